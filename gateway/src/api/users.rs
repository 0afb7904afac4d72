//! The signed-in user's own account: who they are (`/layout/user-info`), profile and avatar,
//! e-mail verification and notification settings.

use axum::extract::State;
use engine::types::{Profile, UserId};
use engine::Command;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Body, Client, User};
use super::codes::{send_code_to, CodeSent};
use super::dto;
use super::{ok, Answer, ApiError, ApiResult, AppState, Envelope, ErrorEnvelope, IdempotencyKey};
use crate::mail::Purpose;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(user_info))
        .routes(routes!(profile, update_profile))
        .routes(routes!(email_send_code))
        .routes(routes!(email_verify))
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
    /// Phone number as the user typed it (optional).
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

pub(crate) fn user_view(engine: &engine::Engine, id: UserId) -> Option<UserView> {
    let user = engine.user(id)?;
    let frozen = engine.account(id).is_some_and(|a| a.frozen);
    Some(UserView {
        uid: user.id.into(),
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
                uid: id.into(),
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
    id: UserId,
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
    id: UserId,
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
async fn email_to_verify(state: &AppState, id: UserId, typed: &str) -> ApiResult<(String, bool)> {
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
        crate::i18n::language_of(&headers),
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
    state.throttles.code_check.take(&email)?;
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
    /// Whether the user wants the newsletter by e-mail.
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
