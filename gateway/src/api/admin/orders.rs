//! Recharge and withdrawal orders, their pending counts, and the accounts deposits are paid to.

use axum::extract::State;
use engine::types::{Area, OrderId, OrderStatus as EngineOrderStatus};
use engine::AdminAction;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::auth::{Admin, Body, Params, PathValue};
use crate::api::dto::{self, OrderQuery, PageQuery};
use crate::api::{ok, Answer, ApiError, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey};
use crate::names::WireName;
use crate::readmodel::{OrderKind, OrderRow, Page, ReadModel};

use super::act;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
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
}

fn orders(history: &ReadModel, kind: OrderKind, query: OrderQuery) -> Answer<Page<OrderRow>> {
    let paging = PageQuery { page: query.page, page_size: query.page_size }.paging()?;
    let status = query.status.and_then(|s| EngineOrderStatus::from_wire_name(s.as_str()));
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
    orders(state.history().await?, OrderKind::Deposit, query)
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
    act(&state, &admin, key, AdminAction::ApproveDeposit { order: OrderId(id) }).await?;
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
    act(&state, &admin, key, AdminAction::RejectDeposit { order: OrderId(id), remark }).await?;
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
    orders(state.history().await?, OrderKind::Withdraw, query)
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
    act(&state, &admin, key, AdminAction::ApproveWithdrawal { order: OrderId(id) }).await?;
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
    act(&state, &admin, key, AdminAction::RejectWithdrawal { order: OrderId(id), remark }).await?;
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
    act(&state, &admin, key, AdminAction::CompleteWithdrawal { order: OrderId(id) }).await?;
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
    act(&state, &admin, key, AdminAction::FailWithdrawal { order: OrderId(id), remark }).await?;
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
