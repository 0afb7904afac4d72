//! The signed-in user's security: password change, two-factor authentication, sessions,
//! sign-in history and security events.

use axum::extract::State;
use engine::types::Principal;
use engine::Command;
use serde::{Deserialize, Serialize};
use totp_rs::Secret;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Body, Client, PathValue, User};
use super::dto::{self, PageQuery};
use super::two_factor::{self, totp};
use super::{
    ok, Answer, ApiError, ApiResult, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey,
};
use crate::readmodel::{LoginRow, Page, SecurityRow};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(change_password))
        .routes(routes!(two_factor))
        .routes(routes!(two_factor_setup))
        .routes(routes!(two_factor_enable))
        .routes(routes!(two_factor_disable))
        .routes(routes!(sessions))
        .routes(routes!(end_session))
        .routes(routes!(login_history))
        .routes(routes!(security_events))
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
    state.throttles.login_account.take(&format!("uid:{id}"))?;
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
    state.throttles.login_account.take(account)?;
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
    /// The device (user agent, shortened) the session was opened on.
    pub device: String,
    /// The address the session was opened from.
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
    ok(state.history().await?.logins(user.id.into(), query.paging()?)?)
}

/// Security history beside sign-ins: two-factor actions paused after wrong codes.
#[utoipa::path(get, path = "/api/user/security-events", tag = "account", security(("user" = [])), params(PageQuery),
    responses((status = 200, body = Envelope<Page<SecurityRow>>), (status = 401, body = ErrorEnvelope)))]
async fn security_events(
    State(state): State<AppState>,
    user: User,
    super::auth::Params(query): super::auth::Params<PageQuery>,
) -> Answer<Page<SecurityRow>> {
    ok(state.history().await?.security_events(user.id.into(), query.paging()?)?)
}
