//! Trades: every contract, filtered.

use axum::extract::State;
use engine::types::{AccountKind, Area};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::auth::{Admin, Params};
use crate::api::dto::{self, ContractStatus, PageQuery};
use crate::api::trade::contract_filter;
use crate::api::{ok, Answer, ApiError, AppState, Envelope, ErrorEnvelope};
use crate::readmodel::{ContractRow, Page};
use crate::trading::path_symbol;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(trades))
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
    let account = query.account.map(AccountKind::from);
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
