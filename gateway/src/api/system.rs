//! Health and metrics.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ok, Answer, AppState, Envelope};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(health))
}

/// Liveness, with no business figures (those are on the metrics address).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// "ok", or "degraded" when history stopped following the log.
    pub status: String,
}

/// Health check.
#[utoipa::path(get, path = "/api/health", tag = "system", responses((status = 200, body = Envelope<Health>)))]
async fn health(State(state): State<AppState>) -> Answer<Health> {
    let stalled = state.readmodel.stalled.load(std::sync::atomic::Ordering::Acquire);
    ok(Health { status: if stalled { "degraded" } else { "ok" }.into() })
}

/// Prometheus text exposition.
pub(crate) async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let stats = state.handle.stats();
    let body = state.metrics.render(&stats, state.readmodel.applied_index(), &state.ws.counters);
    ([(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")], body)
}
