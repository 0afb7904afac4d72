//! Signing in and up: password, e-mail code and wallet sign-in, registration, sign-out and a
//! forgotten password (the spec's `/login/*` calls).

use axum::extract::State;
use axum::http::StatusCode;
use engine::command::{NewSession, Register, SessionInfo};
use engine::types::Principal;
use engine::types::{Chain, UserId, WalletBinding};
use engine::{Command, EngineError, Reply};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Body, Client, User};
use super::codes::{send_code_to, CodeSent};
use super::dto::{self, ChainParam};
use super::two_factor::{self};
use super::users::{user_view, UserView};
use super::{
    ok, Answer, ApiError, ApiResult, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey,
};
use crate::mail::Purpose;
use crate::tokens::{RESET_TTL_MS, SESSION_REMEMBER_TTL_MS, SESSION_TTL_MS};

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
    user: UserId,
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
    let token = state.tokens.issue(user.into(), session, "user", now, expires_ms);
    let device_token = state.tokens.issue_device(user.into(), "user", now);
    let view =
        state.query(move |e| user_view(e, user)).await?.ok_or_else(ApiError::unauthorized)?;
    Ok(LoginData { token, user: view, is_new_user, expires_at: expires_ms, device_token })
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
    state.throttles.login_address.take(&client.ip)?;
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
    let known_device = found.as_ref().is_some_and(|(id, ..)| device == Some((*id).into()));
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
    state.throttles.code_check.take(&email)?;
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
    send_code_to(state, client, purpose, email, exists, crate::i18n::language_of(headers)).await
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
    state.throttles.login_address.take(&client.ip)?;
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
    ok(Registered { uid: user.into(), username, invite_code })
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
    state.throttles.login_address.take(&client.ip)?;
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
    state.throttles.login_address.take(&client.ip)?;
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
async fn register_wallet(state: &AppState, chain: Chain, address: &str) -> ApiResult<UserId> {
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
    state.throttles.code_check.take(&email)?;
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
    let reset_token = state.tokens.issue(id.into(), changed, "reset", now, now + RESET_TTL_MS);
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
    let changed = state.query(move |e| e.user(UserId(id)).map(|u| u.password_changed_ms)).await?;
    if changed != Some(claims.sid) {
        return Err(ApiError::bad("INVALID_CODE"));
    }
    let password_hash = state.hasher.hash(password).await.map_err(|_| ApiError::busy())?;
    state
        .submit(key, Command::SetPassword { user: UserId(id), password_hash, keep_session: None })
        .await?;
    ok(Empty {})
}
