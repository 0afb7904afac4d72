//! Back-office accounts: the list of admins, creating one with a role, disabling one (super
//! admins only), and each admin's own password and two-factor sign-in. The engine checks the
//! role and records every change in the audit log; secrets never reach it.

use axum::extract::State;
use engine::types::{AdminId, Area, Principal, Role};
use engine::AdminAction;
use serde::{Deserialize, Serialize};
use totp_rs::Secret;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::admin::{act, permissions};
use super::auth::Client;
use super::auth::{Admin, Body, PathValue};
use super::dto::{self, RoleParam};
use super::security::{
    check_own_password, ChangePasswordBody, TwoFactorBody, TwoFactorOffBody, TwoFactorSetup,
    TwoFactorState,
};
use super::two_factor::{self, totp};
use super::{ok, Answer, ApiError, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_admins, create_admin))
        .routes(routes!(set_disabled))
        .routes(routes!(change_password))
        .routes(routes!(two_factor))
        .routes(routes!(two_factor_setup))
        .routes(routes!(two_factor_enable))
        .routes(routes!(two_factor_disable))
}

/// An admin in the list of admins.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminRow {
    /// Id, as the audit log names it.
    pub id: u32,
    /// Sign-in name.
    pub username: String,
    /// super, operations, support or finance.
    pub role: String,
    /// What the role may do.
    pub permissions: Vec<String>,
    /// Cannot sign in or act.
    pub disabled: bool,
    /// Two-factor sign-in is on.
    pub two_factor: bool,
    /// Live sessions.
    pub sessions: usize,
    /// Latest sign-in (ms), if any session is live.
    pub last_sign_in: Option<u64>,
    /// Password last changed (ms; 0 if never since creation).
    pub password_changed_at: u64,
}

/// Every admin, in the order they were created.
#[utoipa::path(get, path = "/api/admin/admins", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Vec<AdminRow>>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn list_admins(State(state): State<AppState>, admin: Admin) -> Answer<Vec<AdminRow>> {
    admin.reads(Area::Admins)?;
    let now = state.now();
    let rows = state
        .query(move |e| {
            e.admins()
                .iter()
                .map(|a| {
                    let live = a.sessions.iter().filter(|s| s.expires_ms > now);
                    AdminRow {
                        id: a.id.into(),
                        username: a.username.clone(),
                        role: a.role.name().into(),
                        permissions: permissions(a.role),
                        disabled: a.disabled,
                        two_factor: a.totp_secret.is_some(),
                        sessions: live.clone().count(),
                        last_sign_in: live.map(|s| s.created_ms).max(),
                        password_changed_at: a.password_changed_ms,
                    }
                })
                .collect()
        })
        .await?;
    ok(rows)
}

/// `POST /api/admin/admins`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct CreateAdminBody {
    /// 3-20 letters, digits or underscores.
    #[schema(required = true, pattern = "^[A-Za-z0-9_]{3,20}$")]
    pub username: String,
    /// At least 6 characters.
    #[schema(required = true, min_length = 6, max_length = 128)]
    pub password: String,
    /// The new admin's role.
    #[schema(required = true, inline, value_type = RoleParam)]
    pub role: String,
}

/// Add an admin (super admins only).
#[utoipa::path(post, path = "/api/admin/admins", tag = "admin", security(("admin" = [])), request_body = CreateAdminBody,
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
async fn create_admin(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<CreateAdminBody>,
) -> Answer<Empty> {
    admin.writes(Area::Admins)?;
    let username = dto::username(&body.username)?;
    let password = dto::password("password", &body.password)?;
    let role = Role::from_name(&body.role).ok_or_else(|| ApiError::invalid("role", "role"))?;
    let password_hash = state.hasher.hash(password).await.map_err(|_| ApiError::busy())?;
    act(&state, &admin, key, AdminAction::CreateAdmin { username, password_hash, role }).await?;
    ok(Empty {})
}

/// `{disabled}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct DisabledBody {
    /// Disable (true) or enable again (false, also when absent).
    pub disabled: bool,
}

/// Disable an admin (its sessions end at once) or enable it again. Nobody disables
/// themselves, and the last enabled super admin stays.
#[utoipa::path(post, path = "/api/admin/admins/{id}/disabled", tag = "admin", security(("admin" = [])), request_body = DisabledBody,
    params(("id" = u32, Path, description = "Admin id")),
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, description = "ADMIN_NOT_FOUND", body = ErrorEnvelope), (status = 409, description = "ADMIN_KEPT: nobody disables themselves", body = ErrorEnvelope)))]
async fn set_disabled(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u32>,
    Body(body): Body<DisabledBody>,
) -> Answer<Empty> {
    admin.writes(Area::Admins)?;
    act(
        &state,
        &admin,
        key,
        AdminAction::SetAdminDisabled { admin: AdminId(id), disabled: body.disabled },
    )
    .await?;
    ok(Empty {})
}

/// Change one's own password: the current one is checked; other sessions end.
#[utoipa::path(post, path = "/api/admin/password", tag = "admin", security(("admin" = [])), request_body = ChangePasswordBody,
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 429, description = "RATE_LIMITED", body = ErrorEnvelope)))]
async fn change_password(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<ChangePasswordBody>,
) -> Answer<Empty> {
    let new_password = body.new_password(true)?;
    let id = admin.id;
    state.throttles.login_account.take(&format!("admin:{id}"))?;
    let current = state.query(move |e| e.admin(id).map(|a| a.password_hash.clone())).await?;
    let matches =
        state.hasher.verify(body.old_password, current).await.map_err(|_| ApiError::busy())?;
    if !matches {
        return Err(ApiError::bad("WRONG_PASSWORD"));
    }
    let password_hash = state.hasher.hash(new_password).await.map_err(|_| ApiError::busy())?;
    let keep_session = admin.session;
    act(&state, &admin, key, AdminAction::ChangeOwnPassword { password_hash, keep_session })
        .await?;
    ok(Empty {})
}

async fn own_secret(state: &AppState, admin: &Admin) -> Result<Option<String>, ApiError> {
    let id = admin.id;
    state.query(move |e| e.admin(id).and_then(|a| a.totp_secret.clone())).await
}

/// Whether one's own two-factor sign-in is on.
#[utoipa::path(get, path = "/api/admin/2fa", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<TwoFactorState>), (status = 401, body = ErrorEnvelope)))]
async fn two_factor(State(state): State<AppState>, admin: Admin) -> Answer<TwoFactorState> {
    ok(TwoFactorState { enabled: own_secret(&state, &admin).await?.is_some() })
}

/// Start turning two-factor sign-in on: a fresh secret (nothing changes until enable
/// confirms a code made with it).
#[utoipa::path(post, path = "/api/admin/2fa/setup", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<TwoFactorSetup>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn two_factor_setup(State(state): State<AppState>, admin: Admin) -> Answer<TwoFactorSetup> {
    if own_secret(&state, &admin).await?.is_some() {
        return Err(ApiError::bad("TOTP_ALREADY_ENABLED"));
    }
    let id = admin.id;
    let name = state.query(move |e| e.admin(id).map(|a| a.username.clone())).await?;
    let name = name.ok_or_else(ApiError::unauthorized)?;
    let secret = Secret::generate_secret().to_encoded().to_string();
    let otpauth_url = totp(&secret, &format!("{name} (back-office)"))?.get_url();
    ok(TwoFactorSetup { secret, otpauth_url })
}

/// Turn two-factor sign-in on, confirmed by a code made with the new secret.
#[utoipa::path(post, path = "/api/admin/2fa/enable", tag = "admin", security(("admin" = [])), request_body = TwoFactorBody,
    responses((status = 200, body = Envelope<TwoFactorState>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn two_factor_enable(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<TwoFactorBody>,
) -> Answer<TwoFactorState> {
    if own_secret(&state, &admin).await?.is_some() {
        return Err(ApiError::bad("TOTP_ALREADY_ENABLED"));
    }
    let secret = body.secret.trim().to_owned();
    if secret.len() < 16 || secret.len() > 64 {
        return Err(ApiError::invalid("secret", "body"));
    }
    let step = two_factor::setup_step(&secret, &body.code, state.now())?;
    act(&state, &admin, key, AdminAction::SetOwnTotp { secret: Some(secret) }).await?;
    two_factor::spend_setup_step(&state, Principal::Admin(admin.id), step).await?;
    ok(TwoFactorState { enabled: true })
}

/// Turn two-factor sign-in off, confirmed by one's password and a current code.
#[utoipa::path(post, path = "/api/admin/2fa/disable", tag = "admin", security(("admin" = [])), request_body = TwoFactorOffBody,
    responses((status = 200, body = Envelope<TwoFactorState>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn two_factor_disable(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    client: Client,
    Body(body): Body<TwoFactorOffBody>,
) -> Answer<TwoFactorState> {
    let id = admin.id;
    let found = state.query(move |e| e.admin(id).map(|a| a.password_hash.clone())).await?;
    let hash = found.ok_or_else(ApiError::unauthorized)?;
    let secret = own_secret(&state, &admin).await?;
    let secret = secret.ok_or_else(|| ApiError::bad("TOTP_NOT_ENABLED"))?;
    check_own_password(&state, &format!("admin:{id}"), hash, &body.password).await?;
    let who = Principal::Admin(id);
    two_factor::verify(&state, who, &secret, Some(&body.code), client.language).await?;
    act(&state, &admin, key, AdminAction::SetOwnTotp { secret: None }).await?;
    ok(TwoFactorState { enabled: false })
}
