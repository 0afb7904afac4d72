//! Users: the list and search, one user's detail, freezing, balance adjustments and their team.

use axum::extract::State;
use axum::http::StatusCode;
use engine::types::{Area, UserId};
use engine::AdminAction;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::auth::{Admin, Body, Params, PathValue};
use crate::api::dto::{self, PageQuery};
use crate::api::invitations::{team_of, Generation};
use crate::api::users::{user_view, UserView};
use crate::api::{ok, Answer, ApiError, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey};
use crate::readmodel::{Page, Paging};

use super::act;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(users))
        .routes(routes!(user))
        .routes(routes!(freeze))
        .routes(routes!(adjust))
        .routes(routes!(team))
}

/// A user in the back-office.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminUser {
    /// The user as they see themselves (spec §3).
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

fn admin_user(e: &engine::Engine, id: UserId) -> Option<AdminUser> {
    let account = e.account(id)?;
    Some(AdminUser {
        user: user_view(e, id)?,
        available: account.real.available.to_string(),
        frozen_amount: account.real.frozen.to_string(),
        in_position: account.real.in_position.to_string(),
        inviter: account.inviter().map(UserId::get),
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
                .filter_map(|id| admin_user(e, engine::types::UserId(id)))
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
            let exact = exact.filter(|id| e.user(UserId(*id)).is_some());
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
            Page {
                items: uids
                    .into_iter()
                    .filter_map(|id| admin_user(e, engine::types::UserId(id)))
                    .collect(),
                total,
            }
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
    /// The address the session was opened from.
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
            let summary = admin_user(e, engine::types::UserId(id))?;
            let sessions = e.user(UserId(id))?.sessions.iter().filter(|s| s.expires_ms > now);
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
    /// Why the account is frozen or unfrozen, kept with the action in the audit log.
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
    act(
        &state,
        &admin,
        key,
        AdminAction::SetUserFrozen { user: UserId(id), frozen: body.frozen, reason },
    )
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
    /// Why the balance is adjusted, kept with the action in the audit log.
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
    act(&state, &admin, key, AdminAction::AdjustBalance { user: UserId(id), delta, reason })
        .await?;
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
    let found = state
        .query(move |e| e.user(UserId(id)).is_some().then(|| team_of(e, engine::types::UserId(id))))
        .await?;
    ok(found.ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "USER_NOT_FOUND"))?)
}
