//! The back-office (decisions §9): sign-in, dashboard, users, teams, game rules (the
//! published trading rules, never outcomes), trades, recharge and withdraw orders, products,
//! system config, notices, the audit log and pending counts. Every action is journaled with
//! the admin's id and audited by the engine, which also checks the admin's role.

use axum::extract::State;
use axum::http::StatusCode;
use engine::command::SessionInfo;
use engine::types::{Access, Area, MarketHours, Principal, Role, Rule, Settings, Symbol};
use engine::{AdminAction, Command, Reply};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Admin, Body, Client, Params, PathValue, ADMIN_SESSION_TTL_MS};
use super::dto::{self, ContractStatus, LinkKind, OrderQuery, OrderStatus, PageQuery};
use super::i18n::LANGUAGES;
use super::invitations::{team_of, Generation};
use super::trade::{contract_filter, rule_views, RuleView};
use super::two_factor;
use super::users::{user_view, UserView};
use super::{
    ok, Answer, ApiError, ApiResult, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey,
};
use crate::readmodel::{
    AuditRow, ContractRow, DayRow, NoticeRow, OrderRow, Page, Paging, ReadModel, Totals,
};
use crate::trading::path_symbol;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(logout))
        .routes(routes!(me))
        .routes(routes!(dashboard))
        .routes(routes!(dashboard_days))
        .routes(routes!(state_audit))
        .routes(routes!(users))
        .routes(routes!(user))
        .routes(routes!(freeze))
        .routes(routes!(adjust))
        .routes(routes!(team))
        .routes(routes!(rules, set_rule))
        .routes(routes!(remove_rule))
        .routes(routes!(trades))
        .routes(routes!(recharge_orders))
        .routes(routes!(recharge_pending))
        .routes(routes!(recharge_approve))
        .routes(routes!(recharge_reject))
        .routes(routes!(withdraw_orders))
        .routes(routes!(withdraw_pending))
        .routes(routes!(withdraw_approve))
        .routes(routes!(withdraw_reject))
        .routes(routes!(withdraw_paid))
        .routes(routes!(deposit_accounts, set_deposit_accounts))
        .routes(routes!(withdraw_failed))
        .routes(routes!(products, add_product))
        .routes(routes!(catalogue))
        .routes(routes!(update_product))
        .routes(routes!(basic_info))
        .routes(routes!(config, update_config))
        .routes(routes!(notices, broadcast))
        .routes(routes!(withdraw_notice))
        .routes(routes!(audit))
        .routes(routes!(fund_house))
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
    /// Id.
    pub id: u32,
    /// Name.
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
    if !state.throttles.login_address.allow(&client.ip) {
        return Err(ApiError::rate_limited());
    }
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
    let known_device = found.as_ref().is_some_and(|f| device == Some(f.0));
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
    let token = state.tokens.issue(id, session, "admin", now, expires_ms);
    ok(AdminLogin {
        token,
        device_token: state.tokens.issue_device(id, "admin", now),
        admin: AdminView {
            id,
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
        id,
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

/// Key figures.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dashboard {
    /// Registered users.
    pub users: usize,
    /// Contracts open now.
    pub open_contracts: usize,
    /// House capital (real).
    pub house_balance: String,
    /// Held against open contracts' worst case.
    pub house_reserved: String,
    /// Seed capital.
    pub seed_capital: String,
    /// Approved deposits, all time.
    pub deposits_approved: String,
    /// Paid withdrawals, all time.
    pub withdrawals_paid: String,
    /// Pending recharge orders.
    pub pending_deposits: usize,
    /// Pending withdraw orders.
    pub pending_withdrawals: usize,
    /// Open websocket connections (traders' apps and market viewers).
    pub online: usize,
    /// Running totals from history.
    pub totals: Totals,
}

/// The most days one dashboard series covers.
pub const DASHBOARD_DAYS_MAX: u32 = 90;

/// `?days=`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DaysQuery {
    /// Days up to and including today (UTC), 1 to 90; 30 when absent.
    #[param(minimum = 1, maximum = 90)]
    pub days: Option<u32>,
}

/// How far ahead of the applied index a state audit may wait.
pub const AUDIT_AHEAD_MAX: u64 = 10_000;
/// The largest index the API documents (2^53 - 1, exact in every JSON reader).
const AUDIT_INDEX_MAX: u64 = 9_007_199_254_740_991;
/// How long a state audit waits for its index.
const AUDIT_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// `?index=`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StateAuditQuery {
    /// Audit at the end of the first batch that reaches this command index; the state now when
    /// absent, passed already, more than 10 000 ahead or not reached within 5 seconds (the
    /// answer's `index` says where it was audited).
    #[param(minimum = 0, maximum = 9_007_199_254_740_991_u64)]
    pub index: Option<u64>,
}

/// The engine audited between two batches.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StateAudit {
    /// The command index the engine had applied when audited.
    pub index: u64,
    /// The digest of the whole state there (16 hexadecimal digits): in a cluster, every member
    /// asked for the same index answers the same index and the same hash.
    pub state_hash: String,
    /// Whether money was conserved and every counter consistent there.
    pub invariants_hold: bool,
}

/// Audits the engine's state: its hash and invariants at an index.
#[utoipa::path(get, path = "/api/admin/state-audit", tag = "admin", security(("admin" = [])), params(StateAuditQuery),
    responses((status = 200, body = Envelope<StateAudit>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn state_audit(
    State(state): State<AppState>,
    admin: Admin,
    Params(query): Params<StateAuditQuery>,
) -> Answer<StateAudit> {
    admin.reads(Area::Dashboard)?;
    let applied = state.query(wal::StateMachine::applied_index).await?;
    let wanted = query.index.unwrap_or(0);
    if wanted > AUDIT_INDEX_MAX {
        return Err(ApiError::invalid("index", "query"));
    }
    // Too far ahead, or not reached in time: the state now (its `index` says where).
    let index = if wanted > applied.saturating_add(AUDIT_AHEAD_MAX) { 0 } else { wanted };
    let audit = match tokio::time::timeout(AUDIT_WAIT, state.handle.audit_at(index)).await {
        Ok(audit) => audit?,
        Err(_) => state.handle.audit_at(0).await?,
    };
    if let Err(violation) = &audit.invariants {
        tracing::error!(index = audit.index, %violation, "state audit: an invariant does not hold");
    }
    ok(StateAudit {
        index: audit.index,
        state_hash: format!("{:016x}", audit.state_hash),
        invariants_hold: audit.invariants.is_ok(),
    })
}

/// Daily figures (UTC days, oldest first, today last), real money only.
#[utoipa::path(get, path = "/api/admin/dashboard/days", tag = "admin", security(("admin" = [])), params(DaysQuery),
    responses((status = 200, body = Envelope<Vec<DayRow>>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn dashboard_days(
    State(state): State<AppState>,
    admin: Admin,
    Params(query): Params<DaysQuery>,
) -> Answer<Vec<DayRow>> {
    admin.reads(Area::Dashboard)?;
    let days = query.days.unwrap_or(30);
    if !(1..=DASHBOARD_DAYS_MAX).contains(&days) {
        return Err(ApiError::invalid("days", "days"));
    }
    ok(state.history().await?.days(state.now(), days)?)
}

/// Dashboard figures.
#[utoipa::path(get, path = "/api/admin/dashboard", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Dashboard>), (status = 401, body = ErrorEnvelope)))]
async fn dashboard(State(state): State<AppState>, admin: Admin) -> Answer<Dashboard> {
    admin.reads(Area::Dashboard)?;
    let totals = state.history().await?.totals()?;
    let online = state.ws.counters.connections.open();
    let figures = state
        .query(move |e| {
            let l = e.ledger();
            Dashboard {
                users: e.user_count(),
                open_contracts: e.open_contract_count(),
                house_balance: l.house.to_string(),
                house_reserved: l.house_reserved.to_string(),
                seed_capital: l.seed_capital.to_string(),
                deposits_approved: l.deposits_approved.to_string(),
                withdrawals_paid: l.withdrawals_paid.to_string(),
                pending_deposits: e.pending_deposits().count(),
                pending_withdrawals: e
                    .open_withdrawals()
                    .filter(|w| w.status == engine::types::OrderStatus::Pending)
                    .count(),
                online,
                totals,
            }
        })
        .await?;
    ok(figures)
}

/// A user in the back-office.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminUser {
    /// Profile.
    pub user: UserView,
    /// Real wallet: available.
    pub available: String,
    /// Real wallet: frozen.
    pub frozen_amount: String,
    /// Real wallet: in position.
    pub in_position: String,
    /// Inviter's UID.
    pub inviter: Option<u32>,
    /// Open real contracts.
    pub open_contracts: u32,
}

fn admin_user(e: &engine::Engine, id: u32) -> Option<AdminUser> {
    let account = e.account(id)?;
    Some(AdminUser {
        user: user_view(e, id)?,
        available: account.real.available.to_string(),
        frozen_amount: account.real.frozen.to_string(),
        in_position: account.real.in_position.to_string(),
        inviter: account.inviter,
        open_contracts: account.open_real,
    })
}

/// User search.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct UserQuery {
    /// A UID, or a part of a username or e-mail (any case); every user, newest first, when
    /// absent.
    #[param(max_length = 100)]
    pub q: Option<String>,
    /// 1-based page.
    #[param(minimum = 1, maximum = 1_000_000)]
    pub page: Option<usize>,
    /// Rows per page.
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<usize>,
}

/// Search users, or page through all of them, newest first.
#[utoipa::path(get, path = "/api/admin/users", tag = "admin", security(("admin" = [])), params(UserQuery),
    responses((status = 200, body = Envelope<Page<AdminUser>>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn users(
    State(state): State<AppState>,
    admin: Admin,
    Params(query): Params<UserQuery>,
) -> Answer<Page<AdminUser>> {
    admin.reads(Area::Users)?;
    let paging = PageQuery { page: query.page, page_size: query.page_size }.paging()?;
    let q = query.q.unwrap_or_default();
    if q.chars().count() > dto::FIELD_CHARS_MAX {
        return Err(ApiError::invalid("q", "text_too_long"));
    }
    let q = q.trim().to_owned();
    if !q.is_empty() {
        return search_users(&state, q, paging).await;
    }
    let page = state
        .query(move |e| {
            // UIDs are dense from 1: a page is a range, O(page size) on the engine thread.
            let count = e.user_count() as u32;
            let skip = (paging.page - 1).saturating_mul(paging.size);
            let items = (1..=count)
                .rev()
                .skip(skip)
                .take(paging.size)
                .filter_map(|id| admin_user(e, id))
                .collect();
            Page { items, total: u64::from(count) }
        })
        .await?;
    ok(page)
}

/// Users whose UID is `q`, then those whose name or e-mail contains it, newest first (the
/// read model's search index, off the engine thread).
async fn search_users(state: &AppState, q: String, paging: Paging) -> Answer<Page<AdminUser>> {
    let found = state.history().await?.search_users(&q, paging)?;
    let exact = q.parse::<u32>().ok();
    let page = state
        .query(move |e| {
            let exact = exact.filter(|id| e.user(*id).is_some());
            let mut uids: Vec<u32> = found.items;
            let mut total = found.total;
            if let Some(id) = exact {
                if !uids.contains(&id) {
                    total += 1;
                    if paging.page == 1 {
                        uids.insert(0, id);
                        uids.truncate(paging.size);
                    }
                }
            }
            Page { items: uids.into_iter().filter_map(|id| admin_user(e, id)).collect(), total }
        })
        .await?;
    ok(page)
}

/// A user with the sessions signed in now.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminUserDetail {
    /// The user as lists show it.
    #[serde(flatten)]
    pub summary: AdminUser,
    /// Live sessions: device, address, when.
    pub sessions: Vec<AdminSession>,
}

/// A user's live session, as the back-office shows it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminSession {
    /// Device (user agent, shortened).
    pub device: String,
    /// Address.
    pub ip: String,
    /// Started (ms).
    pub created_at: u64,
    /// Expires (ms).
    pub expires_at: u64,
}

/// One user, with the sessions signed in now.
#[utoipa::path(get, path = "/api/admin/users/{id}", tag = "admin", security(("admin" = [])),
    params(("id" = u32, Path, description = "UID")),
    responses((status = 200, body = Envelope<AdminUserDetail>), (status = 401, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn user(
    State(state): State<AppState>,
    admin: Admin,
    PathValue(id): PathValue<u32>,
) -> Answer<AdminUserDetail> {
    admin.reads(Area::Users)?;
    let now = state.now();
    let found = state
        .query(move |e| {
            let summary = admin_user(e, id)?;
            let sessions = e.user(id)?.sessions.iter().filter(|s| s.expires_ms > now);
            let sessions = sessions
                .map(|s| AdminSession {
                    device: s.device.clone(),
                    ip: s.ip.clone(),
                    created_at: s.created_ms,
                    expires_at: s.expires_ms,
                })
                .collect();
            Some(AdminUserDetail { summary, sessions })
        })
        .await?;
    ok(found.ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "USER_NOT_FOUND"))?)
}

/// `{frozen, reason}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct FreezeBody {
    /// Freeze (true) or unfreeze (false, also when absent).
    pub frozen: bool,
    /// Why.
    #[schema(required = true, min_length = 1, max_length = 500)]
    pub reason: String,
}

/// Freeze or unfreeze a user.
#[utoipa::path(post, path = "/api/admin/users/{id}/freeze", tag = "admin", security(("admin" = [])), request_body = FreezeBody,
    params(("id" = u32, Path, description = "UID")),
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn freeze(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u32>,
    Body(body): Body<FreezeBody>,
) -> Answer<Empty> {
    admin.writes(Area::Users)?;
    let reason = dto::text("reason", &body.reason, dto::TEXT_CHARS_MAX, "reason")?;
    act(&state, &admin, key, AdminAction::SetUserFrozen { user: id, frozen: body.frozen, reason })
        .await?;
    ok(Empty {})
}

/// `{amount, reason}`: a signed amount.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct AdjustBody {
    /// Signed amount, e.g. "25.00" or "-10".
    #[schema(required = true, pattern = "^-?[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub amount: String,
    /// Why.
    #[schema(required = true, min_length = 1, max_length = 500)]
    pub reason: String,
}

/// Adjust a user's real balance against the house, with a reason.
#[utoipa::path(post, path = "/api/admin/users/{id}/adjust", tag = "admin", security(("admin" = [])), request_body = AdjustBody,
    params(("id" = u32, Path, description = "UID")),
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, description = "USER_NOT_FOUND", body = ErrorEnvelope), (status = 409, description = "HOUSE_EXPOSURE_LIMIT: the house cannot cover a credit", body = ErrorEnvelope)))]
async fn adjust(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u32>,
    Body(body): Body<AdjustBody>,
) -> Answer<Empty> {
    admin.writes(Area::Money)?;
    let (negative, magnitude) = match body.amount.strip_prefix('-') {
        Some(magnitude) => (true, magnitude),
        None => (false, body.amount.as_str()),
    };
    let magnitude = dto::amount("amount", magnitude)?;
    let delta = if negative { -magnitude } else { magnitude };
    let reason = dto::text("reason", &body.reason, dto::TEXT_CHARS_MAX, "reason")?;
    act(&state, &admin, key, AdminAction::AdjustBalance { user: id, delta, reason }).await?;
    ok(Empty {})
}

/// A user's referral tree, generations 1-3.
#[utoipa::path(get, path = "/api/admin/teams/{id}", tag = "admin", security(("admin" = [])),
    params(("id" = u32, Path, description = "UID")),
    responses((status = 200, body = Envelope<Vec<Generation>>), (status = 401, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn team(
    State(state): State<AppState>,
    admin: Admin,
    PathValue(id): PathValue<u32>,
) -> Answer<Vec<Generation>> {
    admin.reads(Area::Teams)?;
    let found = state.query(move |e| e.user(id).is_some().then(|| team_of(e, id))).await?;
    ok(found.ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "USER_NOT_FOUND"))?)
}

/// Game rules (the published trading rules).
#[utoipa::path(get, path = "/api/admin/rules", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Vec<RuleView>>), (status = 401, body = ErrorEnvelope)))]
async fn rules(State(state): State<AppState>, admin: Admin) -> Answer<Vec<RuleView>> {
    admin.reads(Area::Rules)?;
    ok(state.query(rule_views).await?)
}

/// A rule to add or replace.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct RuleBody {
    /// Duration in seconds.
    #[schema(required = true, minimum = 1)]
    pub duration: u32,
    /// Payout rate (0-1), string.
    #[schema(required = true, pattern = "^[0-9](\\.[0-9]{1,4})?$")]
    pub payout_rate: String,
    /// Smallest stake.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub min_amount: String,
    /// Largest stake.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub max_amount: String,
    /// Fee rate (0-1).
    #[schema(required = true, pattern = "^[0-9](\\.[0-9]{1,4})?$")]
    pub fee_rate: String,
    /// Offered.
    pub enabled: bool,
}

fn rate(field: &'static str, value: &str) -> ApiResult<Decimal> {
    let parsed = dto::plain_decimal(value, 1, 4).ok_or_else(|| ApiError::invalid(field, "rate"))?;
    if parsed > Decimal::ONE {
        return Err(ApiError::invalid(field, "rate"));
    }
    Ok(parsed)
}

/// Add or replace the rule of one duration.
#[utoipa::path(put, path = "/api/admin/rules", tag = "admin", security(("admin" = [])), request_body = RuleBody,
    responses((status = 200, body = Envelope<Vec<RuleView>>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn set_rule(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<RuleBody>,
) -> Answer<Vec<RuleView>> {
    admin.writes(Area::Rules)?;
    if body.duration == 0 {
        return Err(ApiError::invalid("duration", "duration"));
    }
    let rule = Rule {
        duration_secs: body.duration,
        payout_rate: rate("payoutRate", &body.payout_rate)?,
        stake_min: dto::amount("minAmount", &body.min_amount)?,
        stake_max: dto::amount("maxAmount", &body.max_amount)?,
        fee_rate: rate("feeRate", &body.fee_rate)?,
        enabled: body.enabled,
    };
    act(&state, &admin, key, AdminAction::SetRule(rule)).await?;
    ok(state.query(rule_views).await?)
}

/// Remove the rule of one duration.
#[utoipa::path(delete, path = "/api/admin/rules/{duration}", tag = "admin", security(("admin" = [])),
    params(("duration" = u32, Path, description = "Duration in seconds")),
    responses((status = 200, body = Envelope<Vec<RuleView>>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, description = "RULE_NOT_FOUND", body = ErrorEnvelope)))]
async fn remove_rule(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(duration): PathValue<u32>,
) -> Answer<Vec<RuleView>> {
    admin.writes(Area::Rules)?;
    act(&state, &admin, key, AdminAction::RemoveRule { duration_secs: duration }).await?;
    ok(state.query(rule_views).await?)
}

/// Trade filters.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct TradeQuery {
    /// Only this UID.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 4294967295_u64)]
    pub user: Option<u32>,
    /// Only this product.
    #[param(pattern = "^[A-Za-z0-9]{3,16}$")]
    pub symbol: Option<String>,
    /// Every state when absent.
    #[param(inline)]
    pub status: Option<ContractStatus>,
    /// Both accounts when absent.
    #[param(inline)]
    pub account: Option<dto::AccountParam>,
    /// Accepted from (YYYY-MM-DD UTC or ms).
    #[param(
        pattern = r"^([0-9]{1,15}|(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$"
    )]
    pub start: Option<String>,
    /// Accepted until, inclusive (YYYY-MM-DD UTC or ms).
    #[param(
        pattern = r"^([0-9]{1,15}|(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$"
    )]
    pub end: Option<String>,
    /// 1-based page.
    #[param(minimum = 1, maximum = 1_000_000)]
    pub page: Option<usize>,
    /// Rows per page.
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<usize>,
}

/// Every user's contracts, newest first.
#[utoipa::path(get, path = "/api/admin/trades", tag = "admin", security(("admin" = [])), params(TradeQuery),
    responses((status = 200, body = Envelope<Page<ContractRow>>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn trades(
    State(state): State<AppState>,
    admin: Admin,
    Params(query): Params<TradeQuery>,
) -> Answer<Page<ContractRow>> {
    admin.reads(Area::Trades)?;
    let history = state.history().await?;
    let paging = PageQuery { page: query.page, page_size: query.page_size }.paging()?;
    if query.user == Some(0) {
        return Err(ApiError::invalid("user", "query"));
    }
    let by_status = contract_filter(query.status);
    let symbol = match &query.symbol {
        Some(code) => Some(path_symbol(code)?.as_str().to_owned()),
        None => None,
    };
    let account = query.account.map(|a| crate::readmodel::account_name(a.into()));
    let start = query.start.as_deref().map(|s| dto::date("start", s, false)).transpose()?;
    let end = query.end.as_deref().map(|s| dto::date("end", s, true)).transpose()?;
    let keep = |r: &ContractRow| {
        by_status(r)
            && query.user.is_none_or(|u| r.user == u)
            && symbol.as_ref().is_none_or(|s| r.symbol == *s)
            && account.is_none_or(|a| r.account == a)
            && start.is_none_or(|s| r.accepted_at >= s)
            && end.is_none_or(|e| r.accepted_at <= e)
    };
    let page = match query.user {
        Some(user) => history.contracts(user, keep, paging)?,
        None => history.all_contracts(keep, paging)?,
    };
    ok(page)
}

fn orders(history: &ReadModel, kind: &'static str, query: OrderQuery) -> Answer<Page<OrderRow>> {
    let paging = PageQuery { page: query.page, page_size: query.page_size }.paging()?;
    let status = query.status.map(OrderStatus::as_str);
    ok(history.all_orders(|o| o.kind == kind && status.is_none_or(|s| o.status == s), paging)?)
}

/// A count.
#[derive(Debug, Serialize, ToSchema)]
pub struct Count {
    /// How many.
    pub count: usize,
}

/// `{remark}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct RemarkBody {
    /// Why, shown to the user.
    #[schema(required = true, min_length = 1, max_length = 500)]
    pub remark: String,
}

/// Recharge (deposit) orders.
#[utoipa::path(get, path = "/api/admin/recharge-orders", tag = "admin", security(("admin" = [])), params(OrderQuery),
    responses((status = 200, body = Envelope<Page<OrderRow>>), (status = 401, body = ErrorEnvelope)))]
async fn recharge_orders(
    State(state): State<AppState>,
    admin: Admin,
    Params(query): Params<OrderQuery>,
) -> Answer<Page<OrderRow>> {
    admin.reads(Area::Orders)?;
    orders(state.history().await?, "deposit", query)
}

/// Pending recharge orders (polled every 60 s).
#[utoipa::path(get, path = "/api/admin/recharge-orders/pending-count", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Count>), (status = 401, body = ErrorEnvelope)))]
async fn recharge_pending(State(state): State<AppState>, admin: Admin) -> Answer<Count> {
    admin.reads(Area::Orders)?;
    ok(Count { count: state.query(|e| e.pending_deposits().count()).await? })
}

/// Approve a recharge order: the user is credited.
#[utoipa::path(post, path = "/api/admin/recharge-orders/{id}/approve", tag = "admin", security(("admin" = [])),
    params(("id" = u64, Path, description = "Order id")),
    responses((status = 200, body = Envelope<Empty>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn recharge_approve(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u64>,
) -> Answer<Empty> {
    admin.writes(Area::Orders)?;
    act(&state, &admin, key, AdminAction::ApproveDeposit { order: id }).await?;
    ok(Empty {})
}

/// Reject a recharge order with a remark.
#[utoipa::path(post, path = "/api/admin/recharge-orders/{id}/reject", tag = "admin", security(("admin" = [])), request_body = RemarkBody,
    params(("id" = u64, Path, description = "Order id")),
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn recharge_reject(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u64>,
    Body(body): Body<RemarkBody>,
) -> Answer<Empty> {
    admin.writes(Area::Orders)?;
    let remark = dto::text("remark", &body.remark, dto::TEXT_CHARS_MAX, "remark")?;
    act(&state, &admin, key, AdminAction::RejectDeposit { order: id, remark }).await?;
    ok(Empty {})
}

/// Withdraw orders.
#[utoipa::path(get, path = "/api/admin/withdraw-orders", tag = "admin", security(("admin" = [])), params(OrderQuery),
    responses((status = 200, body = Envelope<Page<OrderRow>>), (status = 401, body = ErrorEnvelope)))]
async fn withdraw_orders(
    State(state): State<AppState>,
    admin: Admin,
    Params(query): Params<OrderQuery>,
) -> Answer<Page<OrderRow>> {
    admin.reads(Area::Orders)?;
    orders(state.history().await?, "withdraw", query)
}

/// Pending withdraw orders (polled every 60 s).
#[utoipa::path(get, path = "/api/admin/withdraw-orders/pending-count", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Count>), (status = 401, body = ErrorEnvelope)))]
async fn withdraw_pending(State(state): State<AppState>, admin: Admin) -> Answer<Count> {
    admin.reads(Area::Orders)?;
    ok(Count {
        count: state
            .query(|e| {
                e.open_withdrawals()
                    .filter(|w| w.status == engine::types::OrderStatus::Pending)
                    .count()
            })
            .await?,
    })
}

/// Approve a pending withdraw order: it becomes `processing` while it is paid out; the funds
/// stay frozen until it is marked paid (`completed`) or failed.
#[utoipa::path(post, path = "/api/admin/withdraw-orders/{id}/approve", tag = "admin", security(("admin" = [])),
    params(("id" = u64, Path, description = "Order id")),
    responses((status = 200, body = Envelope<Empty>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
async fn withdraw_approve(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u64>,
) -> Answer<Empty> {
    admin.writes(Area::Orders)?;
    act(&state, &admin, key, AdminAction::ApproveWithdrawal { order: id }).await?;
    ok(Empty {})
}

/// Reject a pending withdraw order with a remark: the funds are unfrozen.
#[utoipa::path(post, path = "/api/admin/withdraw-orders/{id}/reject", tag = "admin", security(("admin" = [])), request_body = RemarkBody,
    params(("id" = u64, Path, description = "Order id")),
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
async fn withdraw_reject(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u64>,
    Body(body): Body<RemarkBody>,
) -> Answer<Empty> {
    admin.writes(Area::Orders)?;
    let remark = dto::text("remark", &body.remark, dto::TEXT_CHARS_MAX, "remark")?;
    act(&state, &admin, key, AdminAction::RejectWithdrawal { order: id, remark }).await?;
    ok(Empty {})
}

/// Mark a processing withdraw order paid out: the frozen funds leave, `completed`.
#[utoipa::path(post, path = "/api/admin/withdraw-orders/{id}/paid", tag = "admin", security(("admin" = [])),
    params(("id" = u64, Path, description = "Order id")),
    responses((status = 200, body = Envelope<Empty>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
async fn withdraw_paid(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u64>,
) -> Answer<Empty> {
    admin.writes(Area::Orders)?;
    act(&state, &admin, key, AdminAction::CompleteWithdrawal { order: id }).await?;
    ok(Empty {})
}

/// Mark a processing withdraw order failed with a remark: the funds return to the user,
/// `failed`.
#[utoipa::path(post, path = "/api/admin/withdraw-orders/{id}/failed", tag = "admin", security(("admin" = [])), request_body = RemarkBody,
    params(("id" = u64, Path, description = "Order id")),
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
async fn withdraw_failed(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u64>,
    Body(body): Body<RemarkBody>,
) -> Answer<Empty> {
    admin.writes(Area::Orders)?;
    let remark = dto::text("remark", &body.remark, dto::TEXT_CHARS_MAX, "remark")?;
    act(&state, &admin, key, AdminAction::FailWithdrawal { order: id, remark }).await?;
    ok(Empty {})
}

/// `PUT /api/admin/system/deposit-accounts`. `accounts` is required: a body without it must
/// not clear every method's details.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DepositAccountsBody {
    /// One account per payment method at most.
    #[schema(required = true, max_items = 3)]
    pub accounts: Vec<dto::DepositAccountView>,
}

/// Where users pay deposits, per method.
#[utoipa::path(get, path = "/api/admin/system/deposit-accounts", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Vec<dto::DepositAccountView>>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn deposit_accounts(
    State(state): State<AppState>,
    admin: Admin,
) -> Answer<Vec<dto::DepositAccountView>> {
    admin.reads(Area::Config)?;
    ok(state
        .query(|e| e.deposit_accounts().iter().map(dto::DepositAccountView::of).collect())
        .await?)
}

/// Replace where users pay deposits: at most one account per method; a bank transfer names
/// its bank, a USDT method gives an address. Shown to users in the deposit form.
#[utoipa::path(put, path = "/api/admin/system/deposit-accounts", tag = "admin", security(("admin" = [])),
    request_body = DepositAccountsBody,
    responses((status = 200, body = Envelope<Vec<dto::DepositAccountView>>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn set_deposit_accounts(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<DepositAccountsBody>,
) -> Answer<Vec<dto::DepositAccountView>> {
    admin.writes(Area::Config)?;
    if body.accounts.len() > 3 {
        return Err(ApiError::invalid("accounts", "deposit_fields"));
    }
    let accounts =
        body.accounts.iter().map(dto::DepositAccountView::parse).collect::<Result<Vec<_>, _>>()?;
    act(&state, &admin, key, AdminAction::SetDepositAccounts(accounts)).await?;
    deposit_accounts(State(state), admin).await
}

/// A product in the back-office.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProductAdmin {
    /// Code.
    pub symbol: String,
    /// Name.
    pub name: String,
    /// crypto or forex.
    pub category: String,
    /// Price decimals.
    pub precision: u8,
    /// Tradable.
    pub enabled: bool,
    /// `always` or `forex` (closed Friday 22:00 - Sunday 22:00 UTC).
    pub hours: String,
    /// Where its prices come from: `simulated`, `replay: FILE` or `exchange: HOST`.
    pub source: String,
}

/// Products.
#[utoipa::path(get, path = "/api/admin/products", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Vec<ProductAdmin>>), (status = 401, body = ErrorEnvelope)))]
async fn products(State(state): State<AppState>, admin: Admin) -> Answer<Vec<ProductAdmin>> {
    admin.reads(Area::Products)?;
    let sources: std::collections::HashMap<Symbol, String> = state
        .market
        .products(state.now())
        .into_iter()
        .map(|p| (p.instrument.symbol, p.source))
        .collect();
    let list = state
        .query(move |e| {
            e.products()
                .iter()
                .map(|p| ProductAdmin {
                    source: sources.get(&p.symbol).cloned().unwrap_or_default(),
                    symbol: p.symbol.to_string(),
                    name: p.name.clone(),
                    category: dto::category_name(p.category).into(),
                    precision: p.precision,
                    enabled: p.enabled,
                    hours: hours_name(&p.hours).into(),
                })
                .collect()
        })
        .await?;
    ok(list)
}

/// A catalogue product not listed yet.
#[derive(Debug, Serialize, ToSchema)]
pub struct CatalogueItem {
    /// Code.
    pub symbol: String,
    /// Name.
    pub name: String,
    /// crypto or forex.
    pub category: String,
    /// Price decimals.
    pub precision: u8,
    /// `always` or `forex`.
    pub hours: String,
    /// Where its prices would come from.
    pub source: String,
}

/// The catalogue's products that are not listed yet (an admin may add them).
#[utoipa::path(get, path = "/api/admin/catalogue", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Vec<CatalogueItem>>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn catalogue(State(state): State<AppState>, admin: Admin) -> Answer<Vec<CatalogueItem>> {
    admin.reads(Area::Products)?;
    let items = state
        .market
        .unlisted(state.now())
        .into_iter()
        .map(|p| CatalogueItem {
            symbol: p.instrument.symbol.to_string(),
            name: p.instrument.name.clone(),
            category: dto::category_name(p.instrument.category).into(),
            precision: p.instrument.precision,
            hours: hours_name(&p.instrument.hours()).into(),
            source: p.source,
        })
        .collect();
    ok(items)
}

/// `{symbol}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct AddProductBody {
    /// A catalogue code not listed yet.
    #[schema(required = true, pattern = "^[A-Za-z0-9]{3,16}$")]
    pub symbol: String,
}

/// List a catalogue product: it is shown, priced and tradable from now on (disable it on the
/// products page to stop trading).
#[utoipa::path(post, path = "/api/admin/products", tag = "admin", security(("admin" = [])), request_body = AddProductBody,
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, description = "PRODUCT_NOT_FOUND: not in the catalogue", body = ErrorEnvelope), (status = 409, description = "PRODUCT_LISTED", body = ErrorEnvelope)))]
async fn add_product(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<AddProductBody>,
) -> Answer<Empty> {
    admin.writes(Area::Products)?;
    let symbol = path_symbol(&body.symbol)?;
    let instrument = state.market.instruments().iter().find(|i| i.symbol == symbol).cloned();
    let instrument =
        instrument.ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "PRODUCT_NOT_FOUND"))?;
    if state.query(move |e| e.product(symbol).is_some()).await? {
        return Err(ApiError::new(StatusCode::CONFLICT, "PRODUCT_LISTED"));
    }
    act(&state, &admin, key, market_feed::feed::listing(&instrument)).await?;
    state.market.list(symbol);
    ok(Empty {})
}

fn hours_name(hours: &MarketHours) -> &'static str {
    if *hours == MarketHours::Always {
        "always"
    } else {
        "forex"
    }
}

/// `{name, enabled}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct ProductBody {
    /// Display name.
    #[schema(required = true, min_length = 1, max_length = 100)]
    pub name: String,
    /// Tradable (false when absent).
    pub enabled: bool,
}

/// Rename, enable or disable a product.
#[utoipa::path(put, path = "/api/admin/products/{symbol}", tag = "admin", security(("admin" = [])), request_body = ProductBody,
    params(("symbol" = String, Path, description = "Product code")),
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn update_product(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(code): PathValue<String>,
    Body(body): Body<ProductBody>,
) -> Answer<Empty> {
    admin.writes(Area::Products)?;
    let symbol = Symbol::new(&code).ok_or_else(|| ApiError::invalid("symbol", "symbol"))?;
    let name = dto::text("name", &body.name, dto::FIELD_CHARS_MAX, "product")?;
    let current = state.query(move |e| e.product(symbol).cloned()).await?;
    let product =
        current.ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "PRODUCT_NOT_FOUND"))?;
    let action = AdminAction::UpsertProduct {
        symbol,
        name,
        category: product.category,
        precision: product.precision,
        enabled: body.enabled,
        hours: product.hours,
    };
    act(&state, &admin, key, action).await?;
    ok(Empty {})
}

/// Public site information (spec: `GET /admin/system/basic-info`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BasicInfo {
    /// Logo URL.
    pub logo: String,
    /// Site name.
    pub site_name: String,
    /// Description.
    pub site_description: String,
    /// E-mail code sign-in offered.
    pub email_login: bool,
    /// Wallet sign-in offered.
    pub wallet_login: bool,
    /// Customer service.
    pub customer_service: CustomerService,
    /// An invite code is required to register.
    pub invite_code_required: bool,
}

/// `{enabled, serviceLink, hours}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerService {
    /// Shown.
    pub enabled: bool,
    /// Link opened in a new tab.
    pub service_link: String,
    /// Working hours as users see them (`09:00-21:00`).
    pub hours: String,
}

/// Site name, logo, sign-in options, customer service (public).
#[utoipa::path(get, path = "/api/admin/system/basic-info", tag = "system",
    responses((status = 200, body = Envelope<BasicInfo>)))]
async fn basic_info(State(state): State<AppState>) -> Answer<BasicInfo> {
    let info = state
        .query(|e| {
            let s = e.settings();
            BasicInfo {
                logo: s.logo.clone(),
                site_name: s.site_name.clone(),
                site_description: s.site_description.clone(),
                email_login: s.email_login,
                wallet_login: s.wallet_login,
                customer_service: CustomerService {
                    enabled: s.customer_service_enabled,
                    service_link: s.customer_service_link.clone(),
                    hours: s.customer_service_hours.clone(),
                },
                invite_code_required: s.invite_code_required,
            }
        })
        .await?;
    ok(info)
}

/// The whole system configuration.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct SystemConfig {
    /// Site information.
    pub basic: BasicConfig,
    /// Money limits and fees.
    pub finance: FinanceConfig,
}

/// Site information.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct BasicConfig {
    /// Site name.
    #[schema(max_length = 64)]
    pub site_name: String,
    /// Logo URL.
    #[schema(max_length = 500)]
    pub logo: String,
    /// Description.
    #[schema(max_length = 500)]
    pub site_description: String,
    /// E-mail code sign-in.
    pub email_login: bool,
    /// Wallet sign-in.
    pub wallet_login: bool,
    /// Customer service shown.
    pub customer_service_enabled: bool,
    /// Customer service link.
    #[schema(max_length = 500)]
    pub customer_service_link: String,
    /// Customer service's working hours as users see them (`09:00-21:00`).
    #[schema(max_length = 100)]
    pub customer_service_hours: String,
    /// Invite code required at sign-up.
    pub invite_code_required: bool,
    /// The site-package provider's chat link, in the back-office's sidebar.
    #[schema(max_length = 500)]
    pub provider_link: String,
}

/// Money settings (amounts and rates as strings).
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct FinanceConfig {
    /// Withdrawal fee rate (0-0.5).
    #[schema(pattern = "^[0-9](\\.[0-9]{1,4})?$")]
    pub withdraw_fee_rate: String,
    /// Fixed withdrawal fee.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub withdraw_fee_fixed: String,
    /// Smallest withdrawal.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub withdraw_min: String,
    /// Largest withdrawal.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub withdraw_max: String,
    /// Smallest deposit.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub deposit_min: String,
    /// Largest deposit.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub deposit_max: String,
    /// Open contracts per user at most.
    pub open_contracts_per_user_max: u32,
    /// Referral reward rates for generations 1-3.
    pub reward_rates: Vec<String>,
    /// Demo wallet starting balance.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub demo_balance: String,
}

fn config_of(s: &Settings) -> SystemConfig {
    SystemConfig {
        basic: BasicConfig {
            site_name: s.site_name.clone(),
            logo: s.logo.clone(),
            site_description: s.site_description.clone(),
            email_login: s.email_login,
            wallet_login: s.wallet_login,
            customer_service_enabled: s.customer_service_enabled,
            customer_service_link: s.customer_service_link.clone(),
            customer_service_hours: s.customer_service_hours.clone(),
            invite_code_required: s.invite_code_required,
            provider_link: s.provider_link.clone(),
        },
        finance: FinanceConfig {
            withdraw_fee_rate: s.withdraw_fee_rate.to_string(),
            withdraw_fee_fixed: s.withdraw_fee_fixed.to_string(),
            withdraw_min: s.withdraw_min.to_string(),
            withdraw_max: s.withdraw_max.to_string(),
            deposit_min: s.deposit_min.to_string(),
            deposit_max: s.deposit_max.to_string(),
            open_contracts_per_user_max: s.open_contracts_per_user_max,
            reward_rates: s.reward_rates.iter().map(Decimal::to_string).collect(),
            demo_balance: s.demo_balance.to_string(),
        },
    }
}

fn money(field: &'static str, value: &str) -> ApiResult<Decimal> {
    dto::plain_decimal(value, 10, 2).ok_or_else(|| ApiError::invalid(field, "settings"))
}

/// System configuration.
#[utoipa::path(get, path = "/api/admin/system/config", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<SystemConfig>), (status = 401, body = ErrorEnvelope)))]
async fn config(State(state): State<AppState>, admin: Admin) -> Answer<SystemConfig> {
    admin.reads(Area::Config)?;
    ok(state.query(|e| config_of(e.settings())).await?)
}

/// Replace the system configuration.
#[utoipa::path(put, path = "/api/admin/system/config", tag = "admin", security(("admin" = [])), request_body = SystemConfig,
    responses((status = 200, body = Envelope<SystemConfig>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn update_config(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<SystemConfig>,
) -> Answer<SystemConfig> {
    admin.writes(Area::Config)?;
    let b = body.basic;
    let f = body.finance;
    let settings = Settings {
        site_name: dto::text("siteName", &b.site_name, dto::FIELD_CHARS_MAX, "settings")?,
        logo: dto::optional_link("logo", &b.logo, dto::TEXT_CHARS_MAX, LinkKind::Image)?,
        site_description: dto::optional_text(
            "siteDescription",
            &b.site_description,
            dto::TEXT_CHARS_MAX,
        )?,
        email_login: b.email_login,
        wallet_login: b.wallet_login,
        customer_service_enabled: b.customer_service_enabled,
        customer_service_link: dto::optional_link(
            "customerServiceLink",
            &b.customer_service_link,
            dto::TEXT_CHARS_MAX,
            LinkKind::Contact,
        )?,
        invite_code_required: b.invite_code_required,
        withdraw_fee_rate: rate("withdrawFeeRate", &f.withdraw_fee_rate)?,
        withdraw_fee_fixed: money("withdrawFeeFixed", &f.withdraw_fee_fixed)?,
        withdraw_min: money("withdrawMin", &f.withdraw_min)?,
        withdraw_max: money("withdrawMax", &f.withdraw_max)?,
        deposit_min: money("depositMin", &f.deposit_min)?,
        deposit_max: money("depositMax", &f.deposit_max)?,
        open_contracts_per_user_max: f.open_contracts_per_user_max,
        reward_rates: f
            .reward_rates
            .iter()
            .map(|r| rate("rewardRates", r))
            .collect::<ApiResult<_>>()?,
        demo_balance: money("demoBalance", &f.demo_balance)?,
        customer_service_hours: dto::optional_text(
            "customerServiceHours",
            &b.customer_service_hours,
            dto::FIELD_CHARS_MAX,
        )?,
        provider_link: dto::optional_link(
            "providerLink",
            &b.provider_link,
            dto::TEXT_CHARS_MAX,
            LinkKind::Web,
        )?,
    };
    act(&state, &admin, key, AdminAction::UpdateSettings(Box::new(settings))).await?;
    ok(state.query(|e| config_of(e.settings())).await?)
}

/// `{title, body, lang}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct NoticeBody {
    /// Title.
    #[schema(required = true, min_length = 1, max_length = 100)]
    pub title: String,
    /// Text.
    #[schema(required = true, min_length = 1, max_length = 2000)]
    pub body: String,
    /// The language it is written in: only users of the app in that language see it. Empty
    /// or absent: every user.
    #[schema(inline, value_type = Option<dto::NoticeLanguage>)]
    pub lang: String,
}

/// Every notice sent, newest first, withdrawn ones included.
#[utoipa::path(get, path = "/api/admin/notices", tag = "admin", security(("admin" = [])), params(PageQuery),
    responses((status = 200, body = Envelope<Page<NoticeRow>>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn notices(
    State(state): State<AppState>,
    admin: Admin,
    Params(query): Params<PageQuery>,
) -> Answer<Page<NoticeRow>> {
    admin.reads(Area::Notices)?;
    ok(state.history().await?.notices(|_| true, query.paging()?)?)
}

/// Withdraw a notice: users no longer see it, and open apps drop it at once.
#[utoipa::path(delete, path = "/api/admin/notices/{id}", tag = "admin", security(("admin" = [])),
    params(("id" = u64, Path, description = "Notice id")),
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, description = "NOTICE_NOT_FOUND", body = ErrorEnvelope), (status = 409, description = "NOTICE_WITHDRAWN", body = ErrorEnvelope)))]
async fn withdraw_notice(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u64>,
) -> Answer<Empty> {
    admin.writes(Area::Notices)?;
    let notice = state.history().await?.notice(id)?;
    let notice = notice.ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "NOTICE_NOT_FOUND"))?;
    if notice.withdrawn_at.is_some() {
        return Err(ApiError::new(StatusCode::CONFLICT, "NOTICE_WITHDRAWN"));
    }
    act(&state, &admin, key, AdminAction::WithdrawNotice { notice: id }).await?;
    ok(Empty {})
}

/// Broadcast a system notice to every user.
#[utoipa::path(post, path = "/api/admin/notices", tag = "admin", security(("admin" = [])), request_body = NoticeBody,
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn broadcast(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<NoticeBody>,
) -> Answer<Empty> {
    admin.writes(Area::Notices)?;
    let title = dto::text("title", &body.title, dto::FIELD_CHARS_MAX, "notice")?;
    let text = dto::text("body", &body.body, dto::TEXT_CHARS_MAX * 4, "notice")?;
    let lang = body.lang;
    if !(lang.is_empty() || LANGUAGES.contains(&lang.as_str())) {
        return Err(ApiError::invalid("lang", "notice"));
    }
    act(&state, &admin, key, AdminAction::BroadcastNotice { title, body: text, lang }).await?;
    ok(Empty {})
}

/// Audit log filters.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AuditQuery {
    /// Only this admin's actions.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 4294967295_u64)]
    pub admin: Option<u32>,
    /// Only this action (one of the engine's action names).
    #[param(schema_with = audit_action_schema)]
    pub action: Option<String>,
    /// From (YYYY-MM-DD UTC or ms).
    #[param(
        pattern = r"^([0-9]{1,15}|(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$"
    )]
    pub start: Option<String>,
    /// To, inclusive (YYYY-MM-DD UTC or ms).
    #[param(
        pattern = r"^([0-9]{1,15}|(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$"
    )]
    pub end: Option<String>,
    /// 1-based page.
    #[param(minimum = 1, maximum = 1_000_000)]
    pub page: Option<usize>,
    /// Rows per page.
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<usize>,
}

/// The audit filter's `action`: one of [`AdminAction::NAMES`], so the document says exactly
/// which values the server takes.
fn audit_action_schema() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(AdminAction::NAMES))
        .build()
}

/// The audit log: every admin action, refused or not, newest first, filtered by admin,
/// action and time.
#[utoipa::path(get, path = "/api/admin/audit", tag = "admin", security(("admin" = [])), params(AuditQuery),
    responses((status = 200, body = Envelope<Page<AuditRow>>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn audit(
    State(state): State<AppState>,
    admin: Admin,
    Params(query): Params<AuditQuery>,
) -> Answer<Page<AuditRow>> {
    admin.reads(Area::Audit)?;
    let paging = PageQuery { page: query.page, page_size: query.page_size }.paging()?;
    if query.admin == Some(0) {
        return Err(ApiError::invalid("admin", "query"));
    }
    if let Some(action) = &query.action {
        if !AdminAction::NAMES.contains(&action.as_str()) {
            return Err(ApiError::invalid("action", "action"));
        }
    }
    let start = query.start.as_deref().map(|s| dto::date("start", s, false)).transpose()?;
    let end = query.end.as_deref().map(|s| dto::date("end", s, true)).transpose()?;
    let (admin, action) = (query.admin, query.action);
    let keep = |row: &AuditRow| {
        admin.is_none_or(|a| row.admin == a)
            && action.as_deref().is_none_or(|a| row.action == a)
            && start.is_none_or(|s| row.time >= s)
            && end.is_none_or(|e| row.time <= e)
    };
    ok(state.history().await?.audit(keep, paging)?)
}

/// `{amount}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct FundBody {
    /// Amount of seed capital to add.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub amount: String,
}

/// Add seed capital to the house (super admins only).
#[utoipa::path(post, path = "/api/admin/house/fund", tag = "admin", security(("admin" = [])), request_body = FundBody,
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn fund_house(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<FundBody>,
) -> Answer<Empty> {
    admin.writes(Area::House)?;
    let amount = dto::amount("amount", &body.amount)?;
    act(&state, &admin, key, AdminAction::FundHouse { amount }).await?;
    ok(Empty {})
}
