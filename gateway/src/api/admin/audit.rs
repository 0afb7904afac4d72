//! The audit log of admin actions.

use axum::extract::State;
use engine::types::Area;
use engine::AdminAction;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::auth::{Admin, Params};
use crate::api::dto::{self, PageQuery};
use crate::api::{ok, Answer, ApiError, AppState, Envelope, ErrorEnvelope};
use crate::readmodel::{AuditRow, Page};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(audit))
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
