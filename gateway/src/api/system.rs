//! Health and metrics.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ok, Answer, AppState, Envelope, ErrorEnvelope};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(health))
}

/// Liveness, with no business figures (those are on the metrics address).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// "ok", or "degraded" when history stopped following the log or, on a leader, no price
    /// it receives is sequenced.
    pub status: String,
    /// Cluster mode only: this node's place in the Raft group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterHealth>,
}

/// A cluster member's view of its group.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterHealth {
    /// This node's id.
    pub node_id: u64,
    /// leader, follower, candidate, learner or shutdown.
    pub role: String,
    /// The leader this node knows of.
    pub leader: Option<u64>,
    /// Current term.
    pub term: u64,
    /// Index of the last entry in this node's log.
    pub last_log_index: Option<u64>,
    /// Index committed by a quorum.
    pub committed: Option<u64>,
    /// Index applied to this node's engine.
    pub applied: Option<u64>,
    /// Last log index in this node's newest snapshot.
    pub snapshot: Option<u64>,
    /// Last log index purged from this node's log.
    pub purged: Option<u64>,
    /// On the leader: entries each follower's log is behind, by node id.
    pub lag: std::collections::BTreeMap<String, u64>,
}

/// Health check. A cluster member that has not caught up with what its group committed (just
/// restarted, say) answers 503 `CATCHING_UP`, so that a load balancer sends traders elsewhere.
#[utoipa::path(get, path = "/api/health", tag = "system", responses((status = 200, body = Envelope<Health>), (status = 503, description = "CATCHING_UP: a cluster member behind its group's commits", body = ErrorEnvelope)))]
async fn health(State(state): State<AppState>) -> Answer<Health> {
    if let Some(source) = state.cluster.as_ref().filter(|source| !source.current()) {
        return Err(crate::forward::catching_up(&source.status()));
    }
    let stalled = state.readmodel.stalled.load(std::sync::atomic::Ordering::Acquire);
    let cluster = state.cluster.as_ref().map(|source| {
        let s = source.status();
        ClusterHealth {
            node_id: s.node_id,
            role: s.role.into(),
            leader: s.leader,
            term: s.term,
            last_log_index: s.last_log_index,
            committed: s.committed,
            applied: s.applied,
            snapshot: s.snapshot,
            purged: s.purged,
            lag: s.lag.iter().map(|(id, lag)| (id.to_string(), *lag)).collect(),
        }
    });
    let degraded = stalled || state.market.pricing_stalled();
    ok(Health { status: if degraded { "degraded" } else { "ok" }.into(), cluster })
}

/// Prometheus text exposition.
pub(crate) async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let stats = state.handle.stats();
    let cluster = state.cluster.as_ref().map(|source| source.status());
    let body = state.metrics.render(
        &stats,
        state.readmodel.applied_index(),
        state.ws.counters.figures(),
        cluster.as_ref(),
    );
    ([(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")], body)
}
