//! The back-office (decisions §9): sign-in, dashboard, users, teams, game rules (the
//! published trading rules, never outcomes), trades, recharge and withdraw orders, products,
//! system config, notices, the audit log and pending counts, one file per page of the
//! back-office; this one holds the admin's own session. Every action is journaled with the
//! admin's id and audited by the engine, which also checks the admin's role.

mod audit;
mod config;
mod dashboard;
mod house;
mod notices;
mod orders;
mod products;
mod rules;
mod tournaments;
mod trades;
mod users;

use axum::extract::State;
use engine::command::SessionInfo;
use engine::types::{Access, Area, Principal, Role};
use engine::{AdminAction, Command, Reply};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Admin, Body, Client};
use super::dto::{self};
use super::two_factor;
use super::{
    ok, Answer, ApiError, ApiResult, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey,
};
use crate::tokens::ADMIN_SESSION_TTL_MS;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(logout))
        .routes(routes!(me))
        .merge(dashboard::routes())
        .merge(users::routes())
        .merge(rules::routes())
        .merge(trades::routes())
        .merge(orders::routes())
        .merge(products::routes())
        .merge(config::routes())
        .merge(notices::routes())
        .merge(audit::routes())
        .merge(house::routes())
        .merge(tournaments::routes())
}

/// What `role` may do, as the web app checks it: `area:read` and `area:write` from the one
/// table in the engine ([`Role::can`]).
pub(super) fn permissions(role: Role) -> Vec<String> {
    let mut list = Vec::new();
    for area in Area::ALL {
        for (access, name) in [(Access::Read, "read"), (Access::Write, "write")] {
            if role.can(area, access) {
                list.push(format!("{}:{name}", area.name()));
            }
        }
    }
    list
}

/// The admin as the back-office shows it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminView {
    /// The admin's id (audit records name it).
    pub id: u32,
    /// The admin's sign-in name.
    pub username: String,
    /// super, operations, support or finance.
    pub role: String,
    /// What the role may do.
    pub permissions: Vec<String>,
    /// The site-package provider's chat link (system config), empty when not set.
    pub provider_link: String,
}

/// Admin sign-in answer (spec: token, admin {username, role, permissions}).
#[derive(Debug, Serialize, ToSchema)]
pub struct AdminLogin {
    /// Bearer token for admin calls.
    pub token: String,
    /// Proof that this browser signed in as this admin, for later sign-ins (see the users').
    #[serde(rename = "deviceToken")]
    pub device_token: String,
    /// The admin.
    pub admin: AdminView,
}

/// `{username, password}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AdminLoginBody {
    /// 3-20 letters, digits or underscores.
    #[schema(required = true, pattern = "^[A-Za-z0-9_]{3,20}$")]
    pub username: String,
    /// At least 6 characters.
    #[schema(required = true, min_length = 6, max_length = 128)]
    pub password: String,
    /// Authenticator code, required when the admin turned two-factor sign-in on.
    #[schema(pattern = "^[0-9]{6}$")]
    pub totp_code: Option<String>,
    /// The device token of an earlier sign-in of this admin on this device, if any.
    #[schema(max_length = 1024)]
    pub device_token: Option<String>,
}

/// Administrator sign-in.
#[utoipa::path(post, path = "/api/admin/login", tag = "admin", request_body = AdminLoginBody,
    responses((status = 200, body = Envelope<AdminLogin>), (status = 400, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn login(
    State(state): State<AppState>,
    key: IdempotencyKey,
    client: Client,
    Body(body): Body<AdminLoginBody>,
) -> Answer<AdminLogin> {
    let username = dto::username(&body.username)?;
    let password = dto::password("password", &body.password)?;
    // A code that is sent must look like one, whether or not this admin needs it.
    if let Some(code) = &body.totp_code {
        if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ApiError::invalid("totpCode", "code_format"));
        }
    }
    state.throttles.login_address.take(&client.ip)?;
    let (guard, budget) = (&state.throttles.login_guard, &state.throttles.account_budget);
    let account = format!("admin:{username}");
    guard.check(&account, &client.ip, state.now()).map_err(ApiError::login_delayed)?;
    let name = username.clone();
    let found = state
        .query(move |e| {
            e.admin_by_username(&name).filter(|a| !a.disabled).map(|a| {
                let secret = a.totp_secret.clone();
                (a.id, a.password_hash.clone(), a.role, a.username.clone(), secret)
            })
        })
        .await?;
    let device = state.tokens.device_of(body.device_token.as_deref(), "admin");
    let known_device = found.as_ref().is_some_and(|f| device == Some(f.0.into()));
    // As for users: past the budget the password is not looked at.
    if !known_device {
        budget.check(&account, state.now()).map_err(ApiError::password_sign_in_paused)?;
    }
    let hash = found.as_ref().map(|f| f.1.clone());
    let matches = state.hasher.verify(password, hash).await.map_err(|_| ApiError::busy())?;
    let Some((id, _, role, username, totp_secret)) = found.filter(|_| matches) else {
        guard.failed(&account, &client.ip, state.now());
        if !known_device {
            budget.failed(&account, state.now());
        }
        return Err(ApiError::bad("ADMIN_LOGIN_FAILED"));
    };
    if let Some(secret) = totp_secret {
        let (who, code) = (Principal::Admin(id), body.totp_code.as_deref());
        if let Err(error) = two_factor::verify(&state, who, &secret, code, client.language).await {
            // Asking for the code is a step, a wrong code is a failure.
            if error.code == "INVALID_TOTP" {
                guard.failed(&account, &client.ip, state.now());
            }
            return Err(error);
        }
    }
    guard.succeeded(&account, &client.ip);
    let session =
        SessionInfo { ttl_ms: ADMIN_SESSION_TTL_MS, device: client.device, ip: client.ip };
    let reply = state.submit(key, Command::CreateAdminSession { admin: id, session }).await?;
    let Reply::SessionCreated { session, expires_ms } = reply else {
        return Err(ApiError::internal("unexpected reply"));
    };
    let now = state.now();
    let token = state.tokens.issue(id.into(), session, "admin", now, expires_ms);
    ok(AdminLogin {
        token,
        device_token: state.tokens.issue_device(id.into(), "admin", now),
        admin: AdminView {
            id: id.into(),
            username,
            role: role.name().into(),
            permissions: permissions(role),
            provider_link: state.query(|e| e.settings().provider_link.clone()).await?,
        },
    })
}

/// End the admin session.
#[utoipa::path(post, path = "/api/admin/logout", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Empty>), (status = 401, body = ErrorEnvelope)))]
async fn logout(State(state): State<AppState>, key: IdempotencyKey, admin: Admin) -> Answer<Empty> {
    state.submit(key, Command::EndAdminSession { admin: admin.id, session: admin.session }).await?;
    ok(Empty {})
}

/// The signed-in admin.
#[utoipa::path(get, path = "/api/admin/me", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<AdminView>), (status = 401, body = ErrorEnvelope)))]
async fn me(State(state): State<AppState>, admin: Admin) -> Answer<AdminView> {
    let id = admin.id;
    let (username, provider_link) = state
        .query(move |e| {
            e.admin(id).map(|a| (a.username.clone(), e.settings().provider_link.clone()))
        })
        .await?
        .ok_or_else(ApiError::unauthorized)?;
    ok(AdminView {
        id: id.into(),
        username,
        role: admin.role.name().into(),
        permissions: permissions(admin.role),
        provider_link,
    })
}

/// Submits an admin's action, with the request's key.
pub(super) async fn act(
    state: &AppState,
    admin: &Admin,
    key: IdempotencyKey,
    action: AdminAction,
) -> ApiResult<Reply> {
    state.submit(key, Command::Admin { admin: admin.id, action: Box::new(action) }).await
}
