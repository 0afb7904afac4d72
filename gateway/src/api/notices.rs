//! System notices as users read them.

use axum::extract::State;
use axum::http::HeaderMap;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Params;
use super::dto::PageQuery;
use super::{ok, Answer, AppState, Envelope, ErrorEnvelope};
use crate::i18n::{language_of, LANGUAGES};
use crate::readmodel::{NoticeRow, Page};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(notices))
}

/// System notices, newest first: those written for every language or in the caller's (the
/// language header), not withdrawn.
#[utoipa::path(get, path = "/api/notices", tag = "notices", params(PageQuery),
    responses((status = 200, body = Envelope<Page<NoticeRow>>), (status = 400, body = ErrorEnvelope)))]
async fn notices(
    State(state): State<AppState>,
    headers: HeaderMap,
    Params(query): Params<PageQuery>,
) -> Answer<Page<NoticeRow>> {
    let lang = LANGUAGES[language_of(&headers)];
    let shown = |n: &NoticeRow| n.withdrawn_at.is_none() && (n.lang.is_empty() || n.lang == lang);
    ok(state.history().await?.notices(shown, query.paging()?)?)
}
