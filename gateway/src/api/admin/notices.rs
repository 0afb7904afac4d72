//! Notices: the list, broadcasting and withdrawing.

use axum::extract::State;
use axum::http::StatusCode;
use engine::types::Area;
use engine::AdminAction;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::auth::{Admin, Body, Params, PathValue};
use crate::api::dto::{self, PageQuery};
use crate::api::{ok, Answer, ApiError, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey};
use crate::i18n::LANGUAGES;
use crate::readmodel::{NoticeRow, Page};

use super::act;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(notices, broadcast)).routes(routes!(withdraw_notice))
}

/// `{title, body, lang}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct NoticeBody {
    /// The notice's title, shown in the notification centre's list.
    #[schema(required = true, min_length = 1, max_length = 100)]
    pub title: String,
    /// The notice's text, shown when a user opens it.
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
