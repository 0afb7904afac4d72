//! Sign-in, sign-up and the user's own account: the spec's `/login/*` and
//! `/layout/user-info` calls, sign-out, forgotten password, e-mail verification, password
//! change, 2FA, sessions, profile and notification settings.

use engine::command::{NewSession, Register, SessionInfo};
use engine::types::Principal;
use engine::types::{Chain, Profile, WalletBinding};
use engine::{Command, EngineError, Reply};
use serde::{Deserialize, Serialize};
use totp_rs::Secret;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{
    Body, Client, PathValue, User, RESET_TTL_MS, SESSION_REMEMBER_TTL_MS, SESSION_TTL_MS,
};
use super::dto::{self, ChainParam, PageQuery};
use super::two_factor::{self, totp};
use super::{ok, Answer, ApiError, ApiResult, AppState, Empty, IdempotencyKey};
use crate::mail::{CodeError, Purpose};
use crate::readmodel::{LoginRow, Page, SecurityRow};
use axum::extract::State;
use axum::http::StatusCode;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(send_code))
        .routes(routes!(register))
        .routes(routes!(wallet_nonce))
        .routes(routes!(wallet_login))
        .routes(routes!(logout))
        .routes(routes!(forgot_send_code))
        .routes(routes!(forgot_verify))
        .routes(routes!(forgot_reset))
        .routes(routes!(user_info))
        .routes(routes!(profile, update_profile))
        .routes(routes!(email_send_code))
        .routes(routes!(email_verify))
        .routes(routes!(change_password))
        .routes(routes!(two_factor))
        .routes(routes!(two_factor_setup))
        .routes(routes!(two_factor_enable))
        .routes(routes!(two_factor_disable))
        .routes(routes!(sessions))
        .routes(routes!(end_session))
        .routes(routes!(login_history))
        .routes(routes!(security_events))
        .routes(routes!(notification_settings, update_notification_settings))
}

/// The user as the app shows it (spec §3).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserView {
    /// UID.
    pub uid: u32,
    /// Sign-in name.
    pub username: String,
    /// Display name.
    pub nickname: String,
    /// Avatar URL.
    pub avatar: String,
    /// Short text.
    pub bio: String,
    /// Phone.
    pub phone: String,
    /// E-mail.
    pub email: Option<String>,
    /// E-mail verified (certified, for referrals).
    pub email_verified: bool,
    /// Last sign-in (ms).
    pub last_login: u64,
    /// Joined (ms).
    pub join_time: u64,
    /// Invitation code.
    pub invite_code: String,
    /// `wallet` when the username starts with `wallet_`, else `account`.
    pub login_type: String,
    /// 2FA on.
    pub two_factor: bool,
    /// A password is set (wallet users may have none).
    pub has_password: bool,
    /// Frozen by an admin.
    pub frozen: bool,
}

pub(crate) fn user_view(engine: &engine::Engine, id: u32) -> Option<UserView> {
    let user = engine.user(id)?;
    let frozen = engine.account(id).is_some_and(|a| a.frozen);
    Some(UserView {
        uid: user.id,
        username: user.username.clone(),
        nickname: user.profile.nickname.clone(),
        avatar: user.profile.avatar.clone(),
        bio: user.profile.bio.clone(),
        phone: user.profile.phone.clone(),
        email: user.email.clone(),
        email_verified: user.email_verified,
        last_login: user.last_login_ms,
        join_time: user.created_ms,
        invite_code: user.invite_code.clone(),
        login_type: if user.username.starts_with("wallet_") { "wallet" } else { "account" }.into(),
        two_factor: user.totp_secret.is_some(),
        has_password: user.password_hash.is_some(),
        frozen,
    })
}

/// A sign-in's answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginData {
    /// Bearer token.
    pub token: String,
    /// The user.
    pub user: UserView,
    /// True when this sign-in created the account (wallet sign-in).
    pub is_new_user: bool,
    /// Token expiry (ms).
    pub expires_at: u64,
    /// Proof that this browser signed in to this account: sent with later password sign-ins,
    /// it lets them past the account's budget of failed sign-ins (a guesser has none).
    pub device_token: String,
}

/// `POST /api/login/login`: either account fields or e-mail fields.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct LoginBody {
    /// Account sign-in: username.
    #[schema(pattern = "^[A-Za-z0-9_]{3,20}$")]
    pub username: Option<String>,
    /// Account sign-in: password.
    #[schema(min_length = 6, max_length = 128)]
    pub password: Option<String>,
    /// E-mail sign-in: address.
    #[schema(format = Email, max_length = 254)]
    pub email: Option<String>,
    /// E-mail sign-in: the 6-digit code.
    #[schema(pattern = "^[0-9]{6}$")]
    pub code: Option<String>,
    /// Authenticator code, required when 2FA is on.
    pub totp_code: Option<String>,
    /// Remember me: a 30-day session instead of 24 hours.
    pub remember: bool,
    /// The device token of an earlier sign-in to this account on this device, if any.
    #[schema(max_length = 1024)]
    pub device_token: Option<String>,
}

async fn start_session(
    state: &AppState,
    key: IdempotencyKey,
    user: u32,
    client: &Client,
    remember: bool,
    is_new_user: bool,
) -> ApiResult<LoginData> {
    let ttl_ms = if remember { SESSION_REMEMBER_TTL_MS } else { SESSION_TTL_MS };
    let info = SessionInfo { ttl_ms, device: client.device.clone(), ip: client.ip.clone() };
    let reply = state.submit(key, Command::CreateSession(NewSession { user, info })).await?;
    let Reply::SessionCreated { session, expires_ms } = reply else {
        return Err(ApiError::internal("unexpected reply to CreateSession"));
    };
    let now = state.now();
    let token = state.tokens.issue(user, session, "user", now, expires_ms);
    let device_token = state.tokens.issue_device(user, "user", now);
    let view =
        state.query(move |e| user_view(e, user)).await?.ok_or_else(ApiError::unauthorized)?;
    Ok(LoginData { token, user: view, is_new_user, expires_at: expires_ms, device_token })
}

fn limit(allowed: bool) -> ApiResult<()> {
    if allowed {
        Ok(())
    } else {
        Err(ApiError::rate_limited())
    }
}

/// Sign in with username and password, or with e-mail and code.
#[utoipa::path(post, path = "/api/login/login", tag = "auth", request_body = LoginBody,
    responses((status = 200, body = Envelope<LoginData>), (status = 400, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn login(
    State(state): State<AppState>,
    key: IdempotencyKey,
    client: Client,
    Body(body): Body<LoginBody>,
) -> Answer<LoginData> {
    limit(state.throttles.login_address.allow(&client.ip))?;
    if body.email.is_some() || body.code.is_some() {
        return email_login(state, key, client, body).await;
    }
    let username = dto::username(body.username.as_deref().unwrap_or(""))?;
    let password = dto::password("password", body.password.as_deref().unwrap_or(""))?;
    let (guard, budget) = (&state.throttles.login_guard, &state.throttles.account_budget);
    guard.check(&username, &client.ip, state.now()).map_err(ApiError::login_delayed)?;
    let name = username.clone();
    let found = state
        .query(move |e| {
            e.user_by_username(&name)
                .map(|u| (u.id, u.password_hash.clone(), u.totp_secret.clone()))
        })
        .await?;
    let device = state.tokens.device_of(body.device_token.as_deref(), "user");
    let known_device = found.as_ref().is_some_and(|(id, ..)| device == Some(*id));
    // Past the account's budget the password is not looked at, right or wrong, so the answer
    // tells a guesser nothing.
    if !known_device {
        budget.check(&username, state.now()).map_err(ApiError::password_sign_in_paused)?;
    }
    let hash = found.as_ref().and_then(|(_, hash, _)| hash.clone());
    let matches = state.hasher.verify(password, hash).await.map_err(|_| ApiError::busy())?;
    let Some((id, _, totp_secret)) = found.filter(|_| matches) else {
        guard.failed(&username, &client.ip, state.now());
        if !known_device {
            budget.failed(&username, state.now());
        }
        return Err(ApiError::bad("INVALID_CREDENTIALS"));
    };
    if let Some(secret) = totp_secret {
        let code = body.totp_code.as_deref();
        let who = Principal::User(id);
        if let Err(error) = two_factor::verify(&state, who, &secret, code, client.language).await {
            // Asking for the code is a step, a wrong code is a failure.
            if error.code == "INVALID_TOTP" {
                guard.failed(&username, &client.ip, state.now());
            }
            return Err(error);
        }
    }
    guard.succeeded(&username, &client.ip);
    ok(start_session(&state, key, id, &client, body.remember, false).await?)
}

async fn email_login(
    state: AppState,
    mut key: IdempotencyKey,
    client: Client,
    body: LoginBody,
) -> Answer<LoginData> {
    let email = dto::email(body.email.as_deref().unwrap_or(""))?;
    let code = dto::code(body.code.as_deref().unwrap_or(""))?;
    let enabled = state.query(|e| e.settings().email_login).await?;
    if !enabled {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "EMAIL_LOGIN_DISABLED"));
    }
    limit(state.throttles.code_check.allow(&email))?;
    state
        .codes
        .check(Purpose::Login, &email, &code, state.now())
        .map_err(|_| ApiError::bad("INVALID_CODE"))?;
    let address = email.clone();
    let found = state
        .query(move |e| {
            e.user_by_email(&address).map(|u| (u.id, u.email_verified, u.totp_secret.clone()))
        })
        .await?;
    let (id, verified, totp_secret) = found.ok_or_else(|| ApiError::bad("INVALID_CODE"))?;
    if let Some(secret) = totp_secret {
        let code = body.totp_code.as_deref();
        two_factor::verify(&state, Principal::User(id), &secret, code, client.language).await?;
    }
    if !verified {
        // The code reached this mailbox: the address is proven.
        state.submit(key.take(), Command::VerifyEmail { user: id }).await?;
    }
    ok(start_session(&state, key, id, &client, body.remember, false).await?)
}

/// `{email}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct EmailBody {
    /// E-mail address.
    #[schema(required = true, format = Email, max_length = 254)]
    pub email: String,
}

/// When the next code may be asked for.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CodeSent {
    /// Seconds before another code may be sent (60).
    pub resend_after: u64,
}

async fn send_code_to(
    state: &AppState,
    client: &Client,
    purpose: Purpose,
    email: &str,
    exists: bool,
    language: usize,
) -> ApiResult<CodeSent> {
    limit(state.throttles.code_address.allow(&client.ip))?;
    let now = state.now();
    let code = match state.codes.issue(purpose, email, now) {
        Ok(code) => code,
        Err(CodeError::TooSoon(seconds)) => {
            return Err(ApiError::new(StatusCode::TOO_MANY_REQUESTS, "CODE_RESEND_TOO_SOON")
                .arg("seconds", seconds));
        }
        Err(_) => return Err(ApiError::busy()),
    };
    // Unknown addresses get the same answer and no mail, so the call reveals no accounts.
    if exists {
        let subject = state.i18n.text(language, "api.email.code_subject", &[]);
        let body = state.i18n.text(language, "api.email.code_body", &[("code", code)]);
        if let Err(error) = state.mailer.send(email, &subject, &body).await {
            state.codes.withdraw(purpose, email);
            tracing::warn!(%error, "verification e-mail not sent");
            return Err(ApiError::new(StatusCode::BAD_GATEWAY, "EMAIL_SEND_FAILED"));
        }
    }
    Ok(CodeSent { resend_after: crate::mail::CODE_RESEND_MS / 1_000 })
}

/// [`send_code_to`] an address, sending mail only if an account uses it.
async fn send_code_to_account(
    state: &AppState,
    client: &Client,
    purpose: Purpose,
    email: &str,
    headers: &axum::http::HeaderMap,
) -> ApiResult<CodeSent> {
    let address = email.to_owned();
    let exists = state.query(move |e| e.user_by_email(&address).is_some()).await?;
    send_code_to(state, client, purpose, email, exists, super::i18n::language_of(headers)).await
}

/// Send a sign-in code to an e-mail address.
#[utoipa::path(post, path = "/api/login/send-code", tag = "auth", request_body = EmailBody,
    responses((status = 200, body = Envelope<CodeSent>), (status = 400, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn send_code(
    State(state): State<AppState>,
    client: Client,
    headers: axum::http::HeaderMap,
    Body(body): Body<EmailBody>,
) -> Answer<CodeSent> {
    let email = dto::email(&body.email)?;
    let enabled = state.query(|e| e.settings().email_login).await?;
    if !enabled {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "EMAIL_LOGIN_DISABLED"));
    }
    ok(send_code_to_account(&state, &client, Purpose::Login, &email, &headers).await?)
}

/// `POST /api/login/register`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct RegisterBody {
    /// 3-20 letters, digits or underscores.
    #[schema(required = true, pattern = "^[A-Za-z0-9_]{3,20}$")]
    pub username: String,
    /// E-mail.
    #[schema(required = true, format = Email, max_length = 254)]
    pub email: String,
    /// At least 6 characters.
    #[schema(required = true, min_length = 6, max_length = 128)]
    pub password: String,
    /// Must equal the password when given.
    pub confirm_password: Option<String>,
    /// 8 letters or digits; required when the `inviteCodeRequired` setting is on.
    #[schema(pattern = "^([A-Za-z0-9]{8})?$")]
    pub invite_code: Option<String>,
    /// Must be true when given.
    pub agree_terms: Option<bool>,
}

/// The new account.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Registered {
    /// UID.
    pub uid: u32,
    /// Sign-in name.
    pub username: String,
    /// The new user's own invitation code.
    pub invite_code: String,
}

/// Create an account (then sign in on the Login tab).
#[utoipa::path(post, path = "/api/login/register", tag = "auth", request_body = RegisterBody,
    responses((status = 200, body = Envelope<Registered>), (status = 400, description = "VALIDATION, USERNAME_EXISTS, EMAIL_EXISTS, INVALID_INVITE_CODE", body = ErrorEnvelope), (status = 429, description = "RATE_LIMITED", body = ErrorEnvelope)))]
async fn register(
    State(state): State<AppState>,
    key: IdempotencyKey,
    client: Client,
    Body(body): Body<RegisterBody>,
) -> Answer<Registered> {
    limit(state.throttles.login_address.allow(&client.ip))?;
    let username = dto::username(&body.username)?;
    let email = dto::email(&body.email)?;
    let password = dto::password("password", &body.password)?;
    if body.confirm_password.as_ref().is_some_and(|c| *c != password) {
        return Err(ApiError::invalid("confirmPassword", "passwords_mismatch"));
    }
    if body.agree_terms == Some(false) {
        return Err(ApiError::invalid("agreeTerms", "terms"));
    }
    let invite_code = body.invite_code.map(|c| c.to_uppercase()).filter(|c| !c.is_empty());
    if invite_code
        .as_ref()
        .is_some_and(|c| c.len() != 8 || !c.bytes().all(|b| b.is_ascii_alphanumeric()))
    {
        return Err(ApiError::invalid("inviteCode", "invite_length"));
    }
    let password_hash = state.hasher.hash(password).await.map_err(|_| ApiError::busy())?;
    let register = Register {
        username: username.clone(),
        email: Some(email),
        password_hash: Some(password_hash),
        wallet: None,
        invite_code,
        email_verified: false,
    };
    let reply = state.submit(key, Command::Register(Box::new(register))).await?;
    let Reply::Registered { user, invite_code } = reply else {
        return Err(ApiError::internal("unexpected reply to Register"));
    };
    ok(Registered { uid: user, username, invite_code })
}

/// `{chain, address}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct WalletBody {
    /// `eth` (MetaMask), `trust` (Trust Wallet) or `tron` (TronLink).
    #[schema(required = true, inline, value_type = ChainParam)]
    pub chain: String,
    /// The wallet's address (0x and 40 hex digits, or a base58 Tron address).
    #[schema(required = true, min_length = 1, max_length = 64)]
    pub address: String,
    /// The signature of the nonce's message (wallet-login only).
    pub signature: Option<String>,
    /// The nonce from wallet-nonce (wallet-login only).
    pub nonce: Option<String>,
    /// Remember me.
    pub remember: bool,
}

/// The message the wallet must sign.
#[derive(Debug, Serialize, ToSchema)]
pub struct WalletNonce {
    /// One-time nonce, valid 5 minutes.
    pub nonce: String,
    /// The exact text to sign (personal_sign / signMessageV2).
    pub message: String,
}

fn wallet_address(body: &WalletBody) -> ApiResult<(Chain, String)> {
    dto::wallet_address(&body.chain, &body.address)
}

async fn wallet_enabled(state: &AppState) -> ApiResult<()> {
    if state.query(|e| e.settings().wallet_login).await? {
        Ok(())
    } else {
        Err(ApiError::new(StatusCode::FORBIDDEN, "WALLET_LOGIN_DISABLED"))
    }
}

/// Get a one-time sign-in message for a wallet.
#[utoipa::path(post, path = "/api/login/wallet-nonce", tag = "auth", request_body = WalletBody,
    responses((status = 200, body = Envelope<WalletNonce>), (status = 400, body = ErrorEnvelope), (status = 429, description = "RATE_LIMITED", body = ErrorEnvelope)))]
async fn wallet_nonce(
    State(state): State<AppState>,
    client: Client,
    Body(body): Body<WalletBody>,
) -> Answer<WalletNonce> {
    limit(state.throttles.login_address.allow(&client.ip))?;
    wallet_enabled(&state).await?;
    let (chain, address) = wallet_address(&body)?;
    let site = state.query(|e| e.settings().site_name.clone()).await?;
    let (nonce, message) =
        state.nonces.issue(chain, &address, &site, state.now()).ok_or_else(ApiError::busy)?;
    ok(WalletNonce { nonce, message })
}

/// Sign in with a wallet signature over the nonce's message; creates the account on first use.
#[utoipa::path(post, path = "/api/login/wallet-login", tag = "auth", request_body = WalletBody,
    responses((status = 200, body = Envelope<LoginData>), (status = 400, description = "VALIDATION (no signature), INVALID_SIGNATURE, NONCE_INVALID", body = ErrorEnvelope), (status = 429, description = "RATE_LIMITED", body = ErrorEnvelope)))]
async fn wallet_login(
    State(state): State<AppState>,
    key: IdempotencyKey,
    client: Client,
    Body(body): Body<WalletBody>,
) -> Answer<LoginData> {
    limit(state.throttles.login_address.allow(&client.ip))?;
    wallet_enabled(&state).await?;
    let (chain, address) = wallet_address(&body)?;
    // A bare address proves nothing.
    let signature = body
        .signature
        .as_deref()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ApiError::invalid("signature", "body"))?;
    let nonce = body
        .nonce
        .as_deref()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ApiError::invalid("nonce", "body"))?;
    match state.nonces.verify(nonce, chain, &address, signature, state.now()) {
        Ok(()) => {}
        Err(false) => return Err(ApiError::bad("NONCE_INVALID")),
        Err(true) => return Err(ApiError::new(StatusCode::UNAUTHORIZED, "INVALID_SIGNATURE")),
    }
    let wanted = address.clone();
    let existing = state.query(move |e| e.user_by_wallet(chain, &wanted).map(|u| u.id)).await?;
    let (id, is_new) = match existing {
        Some(id) => (id, false),
        None => (register_wallet(&state, chain, &address).await?, true),
    };
    ok(start_session(&state, key, id, &client, body.remember, is_new).await?)
}

/// Creates `wallet_{chain}_{fragment}` with no password (decisions §6).
async fn register_wallet(state: &AppState, chain: Chain, address: &str) -> ApiResult<u32> {
    let tag = chain.tag();
    let room = 20 - "wallet_".len() - tag.len() - 1;
    let plain: String =
        address.trim_start_matches("0x").chars().filter(char::is_ascii_alphanumeric).collect();
    for attempt in 0..4usize {
        let start = (attempt * 7) % plain.len().saturating_sub(room).max(1);
        let fragment: String =
            plain.chars().skip(start).take(room).collect::<String>().to_lowercase();
        let register = Register {
            username: format!("wallet_{tag}_{fragment}"),
            email: None,
            password_hash: None,
            wallet: Some(WalletBinding { chain, address: address.to_owned() }),
            invite_code: None,
            email_verified: false,
        };
        match state.handle.submit(Command::Register(Box::new(register))).await? {
            Ok(Reply::Registered { user, .. }) => return Ok(user),
            Err(EngineError::UsernameExists) => continue,
            Err(other) => return Err(other.into()),
            Ok(_) => return Err(ApiError::internal("unexpected reply to Register")),
        }
    }
    Err(ApiError::internal("no free wallet username"))
}

/// End the current session.
#[utoipa::path(post, path = "/api/login/logout", tag = "auth", security(("user" = [])),
    responses((status = 200, body = Envelope<Empty>), (status = 401, body = ErrorEnvelope)))]
async fn logout(State(state): State<AppState>, key: IdempotencyKey, user: User) -> Answer<Empty> {
    state.submit(key, Command::EndSession { user: user.id, session: user.session }).await?;
    ok(Empty {})
}

/// Step 1 of a forgotten password: a code to the account's e-mail.
#[utoipa::path(post, path = "/api/password/forgot/send-code", tag = "auth", request_body = EmailBody,
    responses((status = 200, body = Envelope<CodeSent>), (status = 400, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn forgot_send_code(
    State(state): State<AppState>,
    client: Client,
    headers: axum::http::HeaderMap,
    Body(body): Body<EmailBody>,
) -> Answer<CodeSent> {
    let email = dto::email(&body.email)?;
    ok(send_code_to_account(&state, &client, Purpose::Reset, &email, &headers).await?)
}

/// `{email, code}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct EmailCodeBody {
    /// E-mail.
    #[schema(required = true, format = Email, max_length = 254)]
    pub email: String,
    /// The 6-digit code.
    #[schema(required = true, pattern = "^[0-9]{6}$")]
    pub code: String,
}

/// A short-lived permission to set a new password.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResetToken {
    /// Pass to reset, within 15 minutes.
    pub reset_token: String,
}

/// Step 2: check the code; answers a reset token.
#[utoipa::path(post, path = "/api/password/forgot/verify", tag = "auth", request_body = EmailCodeBody,
    responses((status = 200, body = Envelope<ResetToken>), (status = 400, body = ErrorEnvelope), (status = 429, description = "RATE_LIMITED", body = ErrorEnvelope)))]
async fn forgot_verify(
    State(state): State<AppState>,
    Body(body): Body<EmailCodeBody>,
) -> Answer<ResetToken> {
    let email = dto::email(&body.email)?;
    let code = dto::code(&body.code)?;
    limit(state.throttles.code_check.allow(&email))?;
    state
        .codes
        .check(Purpose::Reset, &email, &code, state.now())
        .map_err(|_| ApiError::bad("INVALID_CODE"))?;
    let address = email.clone();
    let found = state
        .query(move |e| e.user_by_email(&address).map(|u| (u.id, u.password_changed_ms)))
        .await?;
    let (id, changed) = found.ok_or_else(|| ApiError::bad("INVALID_CODE"))?;
    let now = state.now();
    // Bound to the current password: once it changes, the token is spent.
    let reset_token = state.tokens.issue(id, changed, "reset", now, now + RESET_TTL_MS);
    ok(ResetToken { reset_token })
}

/// Step 3: the new password.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ResetBody {
    /// From step 2.
    #[schema(required = true, min_length = 1)]
    pub reset_token: String,
    /// At least 8 characters with letters and digits.
    #[schema(required = true, min_length = 8, max_length = 128)]
    pub password: String,
    /// Must match.
    #[schema(required = true)]
    pub confirm_password: String,
}

/// Step 3: set the new password; every session ends.
#[utoipa::path(post, path = "/api/password/forgot/reset", tag = "auth", request_body = ResetBody,
    responses((status = 200, body = Envelope<Empty>), (status = 400, description = "VALIDATION, INVALID_CODE (the reset token is spent or expired)", body = ErrorEnvelope)))]
async fn forgot_reset(
    State(state): State<AppState>,
    key: IdempotencyKey,
    Body(body): Body<ResetBody>,
) -> Answer<Empty> {
    let password = dto::strong_password("password", &body.password)?;
    if body.confirm_password != password {
        return Err(ApiError::invalid("confirmPassword", "passwords_mismatch"));
    }
    let claims = state
        .tokens
        .check(&body.reset_token, "reset")
        .ok_or_else(|| ApiError::bad("INVALID_CODE"))?;
    let id = claims.sub;
    let changed = state.query(move |e| e.user(id).map(|u| u.password_changed_ms)).await?;
    if changed != Some(claims.sid) {
        return Err(ApiError::bad("INVALID_CODE"));
    }
    let password_hash = state.hasher.hash(password).await.map_err(|_| ApiError::busy())?;
    state.submit(key, Command::SetPassword { user: id, password_hash, keep_session: None }).await?;
    ok(Empty {})
}

/// The header's user info (spec: `GET /layout/user-info`).
#[derive(Debug, Serialize, ToSchema)]
pub struct LayoutUser {
    /// Sign-in name.
    pub username: String,
    /// Avatar URL.
    pub avatar: String,
    /// Real available balance (USDT).
    pub balance: String,
    /// UID.
    pub uid: u32,
}

/// The header's user info.
#[utoipa::path(get, path = "/api/layout/user-info", tag = "account", security(("user" = [])),
    responses((status = 200, body = Envelope<LayoutUser>), (status = 401, body = ErrorEnvelope)))]
async fn user_info(State(state): State<AppState>, user: User) -> Answer<LayoutUser> {
    let id = user.id;
    let info = state
        .query(move |e| {
            let u = e.user(id)?;
            let balance = e.account(id).map(|a| a.real.available).unwrap_or_default();
            Some(LayoutUser {
                username: u.username.clone(),
                avatar: u.profile.avatar.clone(),
                balance: balance.to_string(),
                uid: id,
            })
        })
        .await?;
    ok(info.ok_or_else(ApiError::unauthorized)?)
}

/// The signed-in user's profile.
#[utoipa::path(get, path = "/api/user/profile", tag = "account", security(("user" = [])),
    responses((status = 200, body = Envelope<UserView>), (status = 401, body = ErrorEnvelope)))]
async fn profile(State(state): State<AppState>, user: User) -> Answer<UserView> {
    let id = user.id;
    ok(state.query(move |e| user_view(e, id)).await?.ok_or_else(ApiError::unauthorized)?)
}

/// Editable profile fields.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct ProfileBody {
    /// Display name.
    #[schema(max_length = 100)]
    pub nickname: String,
    /// Short text.
    #[schema(max_length = 500)]
    pub bio: String,
    /// Phone: digits, spaces and + - ( ).
    #[schema(pattern = "^[0-9 +()-]{0,100}$")]
    pub phone: String,
}

async fn replace_profile(
    state: &AppState,
    key: IdempotencyKey,
    id: u32,
    change: impl FnOnce(&mut Profile) + Send + 'static,
) -> ApiResult<UserView> {
    let current = state.query(move |e| e.user(id).map(|u| u.profile.clone())).await?;
    let mut profile = current.ok_or_else(ApiError::unauthorized)?;
    change(&mut profile);
    state.submit(key, Command::UpdateProfile { user: id, profile: Box::new(profile) }).await?;
    state.query(move |e| user_view(e, id)).await?.ok_or_else(ApiError::unauthorized)
}

/// Update nickname, bio and phone.
#[utoipa::path(put, path = "/api/user/profile", tag = "account", security(("user" = [])), request_body = ProfileBody,
    responses((status = 200, body = Envelope<UserView>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn update_profile(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    Body(body): Body<ProfileBody>,
) -> Answer<UserView> {
    let nickname = dto::optional_text("nickname", &body.nickname, dto::FIELD_CHARS_MAX)?;
    let bio = dto::optional_text("bio", &body.bio, dto::TEXT_CHARS_MAX)?;
    let phone = dto::optional_text("phone", &body.phone, dto::FIELD_CHARS_MAX)?;
    if !phone.chars().all(|c| c.is_ascii_digit() || " +-()".contains(c)) {
        return Err(ApiError::invalid("phone", "settings"));
    }
    ok(replace_profile(&state, key, user.id, move |p| {
        p.nickname = nickname;
        p.bio = bio;
        p.phone = phone;
    })
    .await?)
}

pub(crate) async fn set_avatar(
    state: &AppState,
    key: IdempotencyKey,
    id: u32,
    url: String,
) -> ApiResult<UserView> {
    replace_profile(state, key, id, move |p| p.avatar = url).await
}

/// `POST /api/user/email/send-code`: no address to verify the one on file, or a new one.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct NewEmailBody {
    /// A new address for a user without a verified one (a wallet sign-in): the code goes there
    /// and the address is saved only when the code comes back. Empty: the address on file.
    #[schema(max_length = 254)]
    pub email: String,
}

/// The address a code is for: a new one (checked and not used by anyone else), or the one on
/// file. A verified address cannot be replaced this way.
async fn email_to_verify(state: &AppState, id: u32, typed: &str) -> ApiResult<(String, bool)> {
    let typed = if typed.is_empty() { None } else { Some(dto::email(typed)?) };
    let wanted = typed.clone();
    // One look at the engine: this user's address, and whether someone else has the new one.
    let found = state
        .query(move |e| {
            let taken =
                wanted.as_deref().is_some_and(|w| e.user_by_email(w).is_some_and(|u| u.id != id));
            e.user(id).map(|u| (u.email.clone(), u.email_verified, taken))
        })
        .await?;
    let (on_file, verified, taken) = found.ok_or_else(ApiError::unauthorized)?;
    if verified {
        return Err(ApiError::bad("EMAIL_ALREADY_VERIFIED"));
    }
    let Some(email) = typed else {
        let email = on_file.ok_or_else(|| ApiError::invalid("email", "email_required"))?;
        return Ok((email, false));
    };
    if taken {
        return Err(engine::EngineError::EmailExists.into());
    }
    let new = on_file.is_none_or(|f| !f.eq_ignore_ascii_case(&email));
    Ok((email, new))
}

/// Send a code to verify the signed-in user's e-mail: the one on file, or a new one for a
/// user without a verified address (a wallet sign-in adds an e-mail this way).
#[utoipa::path(post, path = "/api/user/email/send-code", tag = "account", security(("user" = [])), request_body = NewEmailBody,
    responses((status = 200, body = Envelope<CodeSent>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 429, description = "RATE_LIMITED", body = ErrorEnvelope)))]
async fn email_send_code(
    State(state): State<AppState>,
    user: User,
    client: Client,
    headers: axum::http::HeaderMap,
    Body(body): Body<NewEmailBody>,
) -> Answer<CodeSent> {
    let (email, _) = email_to_verify(&state, user.id, body.email.trim()).await?;
    ok(send_code_to(
        &state,
        &client,
        Purpose::Verify,
        &email,
        true,
        super::i18n::language_of(&headers),
    )
    .await?)
}

/// `{code}`, and the new address when one was sent a code.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct CodeBody {
    /// The 6-digit code.
    #[schema(required = true, pattern = "^[0-9]{6}$")]
    pub code: String,
    /// The new address the code was sent to; empty for the address on file.
    #[schema(max_length = 254)]
    pub email: String,
}

/// Verify the e-mail with the code sent to it; a new address is saved, verified, only now.
#[utoipa::path(post, path = "/api/user/email/verify", tag = "account", security(("user" = [])), request_body = CodeBody,
    responses((status = 200, body = Envelope<UserView>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 429, description = "RATE_LIMITED", body = ErrorEnvelope)))]
async fn email_verify(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    Body(body): Body<CodeBody>,
) -> Answer<UserView> {
    let code = dto::code(&body.code)?;
    let id = user.id;
    let (email, new) = email_to_verify(&state, id, body.email.trim()).await?;
    limit(state.throttles.code_check.allow(&email))?;
    state
        .codes
        .check(Purpose::Verify, &email, &code, state.now())
        .map_err(|_| ApiError::bad("INVALID_CODE"))?;
    if new {
        state.submit(key, Command::SetVerifiedEmail { user: id, email }).await?;
    } else {
        state.submit(key, Command::VerifyEmail { user: id }).await?;
    }
    ok(state.query(move |e| user_view(e, id)).await?.ok_or_else(ApiError::unauthorized)?)
}

/// `POST /api/user/password`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ChangePasswordBody {
    /// Current password (empty if the account has none yet).
    pub old_password: String,
    /// At least 6 characters.
    #[schema(required = true, min_length = 6, max_length = 128)]
    pub new_password: String,
    /// Must match.
    #[schema(required = true, min_length = 6, max_length = 128)]
    pub confirm_password: String,
}

impl ChangePasswordBody {
    /// The new password, once every field is filled (the current one only if there is one),
    /// the two new ones match and it is long enough (spec §5, change password).
    pub(super) fn new_password(&self, has_current: bool) -> ApiResult<String> {
        if self.new_password.is_empty()
            || self.confirm_password.is_empty()
            || (has_current && self.old_password.is_empty())
        {
            return Err(ApiError::invalid("newPassword", "password_fields"));
        }
        if self.new_password != self.confirm_password {
            return Err(ApiError::invalid("confirmPassword", "passwords_mismatch"));
        }
        dto::password("newPassword", &self.new_password)
    }
}

/// Change (or first set) the password; other sessions end, withdrawals wait 24 h.
#[utoipa::path(post, path = "/api/user/password", tag = "account", security(("user" = [])), request_body = ChangePasswordBody,
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 429, description = "RATE_LIMITED", body = ErrorEnvelope)))]
async fn change_password(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    Body(body): Body<ChangePasswordBody>,
) -> Answer<Empty> {
    let id = user.id;
    let current = state.query(move |e| e.user(id).map(|u| u.password_hash.clone())).await?;
    let current = current.ok_or_else(ApiError::unauthorized)?;
    let new_password = body.new_password(current.is_some())?;
    limit(state.throttles.login_account.allow(&format!("uid:{id}")))?;
    if current.is_some() {
        let matches =
            state.hasher.verify(body.old_password, current).await.map_err(|_| ApiError::busy())?;
        if !matches {
            return Err(ApiError::bad("WRONG_PASSWORD"));
        }
    }
    let password_hash = state.hasher.hash(new_password).await.map_err(|_| ApiError::busy())?;
    state
        .submit(
            key,
            Command::SetPassword { user: id, password_hash, keep_session: Some(user.session) },
        )
        .await?;
    ok(Empty {})
}

/// Whether 2FA is on.
#[derive(Debug, Serialize, ToSchema)]
pub struct TwoFactorState {
    /// On or off.
    pub enabled: bool,
}

/// 2FA state.
#[utoipa::path(get, path = "/api/user/2fa", tag = "account", security(("user" = [])),
    responses((status = 200, body = Envelope<TwoFactorState>), (status = 401, body = ErrorEnvelope)))]
async fn two_factor(State(state): State<AppState>, user: User) -> Answer<TwoFactorState> {
    let id = user.id;
    let enabled = state.query(move |e| e.user(id).is_some_and(|u| u.totp_secret.is_some())).await?;
    ok(TwoFactorState { enabled })
}

/// A new secret to add to an authenticator app.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TwoFactorSetup {
    /// Base32 secret.
    pub secret: String,
    /// `otpauth://` URL for a QR code.
    pub otpauth_url: String,
}

/// Start enabling 2FA: a fresh secret (nothing changes until enable confirms a code).
#[utoipa::path(post, path = "/api/user/2fa/setup", tag = "account", security(("user" = [])),
    responses((status = 200, body = Envelope<TwoFactorSetup>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn two_factor_setup(State(state): State<AppState>, user: User) -> Answer<TwoFactorSetup> {
    let id = user.id;
    let found = state
        .query(move |e| e.user(id).map(|u| (u.username.clone(), u.totp_secret.is_some())))
        .await?;
    let (username, enabled) = found.ok_or_else(ApiError::unauthorized)?;
    if enabled {
        return Err(ApiError::bad("TOTP_ALREADY_ENABLED"));
    }
    let secret = Secret::generate_secret().to_encoded().to_string();
    let otpauth_url = totp(&secret, &username)?.get_url();
    ok(TwoFactorSetup { secret, otpauth_url })
}

/// `{secret, code}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct TwoFactorBody {
    /// The secret from setup (enable only).
    pub secret: String,
    /// A current 6-digit code from the app.
    #[schema(required = true, pattern = "^[0-9]{6}$")]
    pub code: String,
}

/// Turn 2FA on, confirmed by a code made with the new secret.
#[utoipa::path(post, path = "/api/user/2fa/enable", tag = "account", security(("user" = [])), request_body = TwoFactorBody,
    responses((status = 200, body = Envelope<TwoFactorState>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn two_factor_enable(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    Body(body): Body<TwoFactorBody>,
) -> Answer<TwoFactorState> {
    let id = user.id;
    if state.query(move |e| e.user(id).is_some_and(|u| u.totp_secret.is_some())).await? {
        return Err(ApiError::bad("TOTP_ALREADY_ENABLED"));
    }
    let secret = body.secret.trim().to_owned();
    if secret.len() < 16 || secret.len() > 64 {
        return Err(ApiError::invalid("secret", "body"));
    }
    let step = two_factor::setup_step(&secret, &body.code, state.now())?;
    state.submit(key, Command::SetTotp { user: id, secret: Some(secret) }).await?;
    two_factor::spend_setup_step(&state, Principal::User(id), step).await?;
    ok(TwoFactorState { enabled: true })
}

/// `{code, password}`: turning two-factor authentication off.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct TwoFactorOffBody {
    /// A current 6-digit code from the app.
    #[schema(required = true, pattern = "^[0-9]{6}$")]
    pub code: String,
    /// The account's password: a stolen session alone cannot turn 2FA off.
    #[schema(required = true, min_length = 6, max_length = 128)]
    pub password: String,
}

/// Turn 2FA off, confirmed by the password and a current code.
#[utoipa::path(post, path = "/api/user/2fa/disable", tag = "account", security(("user" = [])), request_body = TwoFactorOffBody,
    responses((status = 200, body = Envelope<TwoFactorState>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn two_factor_disable(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    client: Client,
    Body(body): Body<TwoFactorOffBody>,
) -> Answer<TwoFactorState> {
    let id = user.id;
    let found =
        state.query(move |e| e.user(id).map(|u| (u.totp_secret.clone(), u.password_hash.clone())));
    let (secret, hash) = found.await?.ok_or_else(ApiError::unauthorized)?;
    let secret = secret.ok_or_else(|| ApiError::bad("TOTP_NOT_ENABLED"))?;
    let hash = hash.ok_or_else(|| ApiError::bad("NO_PASSWORD"))?;
    check_own_password(&state, &format!("uid:{id}"), hash, &body.password).await?;
    two_factor::verify(&state, Principal::User(id), &secret, Some(&body.code), client.language)
        .await?;
    state.submit(key, Command::SetTotp { user: id, secret: None }).await?;
    ok(TwoFactorState { enabled: false })
}

/// Checks a signed-in principal's own password (`WRONG_PASSWORD`), a few tries a minute
/// per account (`RATE_LIMITED`): a stolen session cannot guess its way on.
pub(super) async fn check_own_password(
    state: &AppState,
    account: &str,
    hash: String,
    password: &str,
) -> ApiResult<()> {
    if password.is_empty() {
        return Err(ApiError::invalid("password", "password_required"));
    }
    if !state.throttles.login_account.allow(account) {
        return Err(ApiError::rate_limited());
    }
    let matches =
        state.hasher.verify(password.to_owned(), Some(hash)).await.map_err(|_| ApiError::busy())?;
    if matches {
        Ok(())
    } else {
        let mut error = ApiError::bad("WRONG_PASSWORD");
        error.field = Some("password");
        Err(error)
    }
}

/// A live session.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    /// Session id.
    pub id: u64,
    /// Device.
    pub device: String,
    /// Address.
    pub ip: String,
    /// Started (ms).
    pub created_at: u64,
    /// Expires (ms).
    pub expires_at: u64,
    /// The session making this call.
    pub current: bool,
}

/// Live sessions (devices signed in).
#[utoipa::path(get, path = "/api/user/sessions", tag = "account", security(("user" = [])),
    responses((status = 200, body = Envelope<Vec<SessionView>>), (status = 401, body = ErrorEnvelope)))]
async fn sessions(State(state): State<AppState>, user: User) -> Answer<Vec<SessionView>> {
    let (id, current, now) = (user.id, user.session, state.now());
    let list = state
        .query(move |e| {
            e.user(id).map_or_else(Vec::new, |u| {
                u.sessions
                    .iter()
                    .filter(|s| s.expires_ms > now)
                    .map(|s| SessionView {
                        id: s.id,
                        device: s.device.clone(),
                        ip: s.ip.clone(),
                        created_at: s.created_ms,
                        expires_at: s.expires_ms,
                        current: s.id == current,
                    })
                    .collect()
            })
        })
        .await?;
    ok(list)
}

/// End one of the user's sessions (sign a device out).
#[utoipa::path(delete, path = "/api/user/sessions/{id}", tag = "account", security(("user" = [])),
    params(("id" = u64, Path, description = "Session id")),
    responses((status = 200, body = Envelope<Empty>), (status = 401, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn end_session(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    PathValue(id): PathValue<u64>,
) -> Answer<Empty> {
    state.submit(key, Command::EndSession { user: user.id, session: id }).await?;
    ok(Empty {})
}

/// Sign-in history (login and device history).
#[utoipa::path(get, path = "/api/user/login-history", tag = "account", security(("user" = [])), params(PageQuery),
    responses((status = 200, body = Envelope<Page<LoginRow>>), (status = 401, body = ErrorEnvelope)))]
async fn login_history(
    State(state): State<AppState>,
    user: User,
    super::auth::Params(query): super::auth::Params<PageQuery>,
) -> Answer<Page<LoginRow>> {
    ok(state.history().await?.logins(user.id, query.paging()?)?)
}

/// Security history beside sign-ins: two-factor actions paused after wrong codes.
#[utoipa::path(get, path = "/api/user/security-events", tag = "account", security(("user" = [])), params(PageQuery),
    responses((status = 200, body = Envelope<Page<SecurityRow>>), (status = 401, body = ErrorEnvelope)))]
async fn security_events(
    State(state): State<AppState>,
    user: User,
    super::auth::Params(query): super::auth::Params<PageQuery>,
) -> Answer<Page<SecurityRow>> {
    ok(state.history().await?.security_events(user.id, query.paging()?)?)
}

/// Notification preferences (account centre).
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct NotificationSettings {
    /// E-mail notifications.
    pub email: bool,
    /// Price alerts.
    pub price_alerts: bool,
    /// Trade notifications.
    pub trade: bool,
    /// System messages.
    pub system: bool,
    /// Marketing information.
    pub marketing: bool,
    /// Newsletter.
    pub newsletter: bool,
}

const NOTIFY_SET: u8 = 0x80;

impl NotificationSettings {
    fn from_bits(bits: u8) -> Self {
        // Until the user saves once, price alerts (they fire only when the user set one),
        // trade and system messages are on; e-mail, marketing and the newsletter are off.
        let bits = if bits & NOTIFY_SET == 0 { 0b0000_1110 } else { bits };
        let on = |n: u8| bits & (1 << n) != 0;
        NotificationSettings {
            email: on(0),
            price_alerts: on(1),
            trade: on(2),
            system: on(3),
            marketing: on(4),
            newsletter: on(5),
        }
    }

    fn bits(&self) -> u8 {
        let flags = [
            self.email,
            self.price_alerts,
            self.trade,
            self.system,
            self.marketing,
            self.newsletter,
        ];
        flags
            .iter()
            .enumerate()
            .fold(NOTIFY_SET, |bits, (n, on)| if *on { bits | (1 << n) } else { bits })
    }
}

/// Notification preferences.
#[utoipa::path(get, path = "/api/user/notification-settings", tag = "account", security(("user" = [])),
    responses((status = 200, body = Envelope<NotificationSettings>), (status = 401, body = ErrorEnvelope)))]
async fn notification_settings(
    State(state): State<AppState>,
    user: User,
) -> Answer<NotificationSettings> {
    let id = user.id;
    let bits = state.query(move |e| e.user(id).map(|u| u.profile.notify_bits)).await?;
    ok(NotificationSettings::from_bits(bits.ok_or_else(ApiError::unauthorized)?))
}

/// Save notification preferences.
#[utoipa::path(put, path = "/api/user/notification-settings", tag = "account", security(("user" = [])), request_body = NotificationSettings,
    responses((status = 200, body = Envelope<NotificationSettings>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn update_notification_settings(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    Body(body): Body<NotificationSettings>,
) -> Answer<NotificationSettings> {
    let bits = body.bits();
    replace_profile(&state, key, user.id, move |p| p.notify_bits = bits).await?;
    ok(NotificationSettings::from_bits(bits))
}

use super::{Envelope, ErrorEnvelope};
