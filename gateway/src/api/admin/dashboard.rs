//! Key figures, the day-by-day dashboard and the state audit anyone with the role may run.

use axum::extract::State;
use engine::types::Area;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::auth::{Admin, Params};
use crate::api::{ok, Answer, ApiError, AppState, Envelope, ErrorEnvelope};
use crate::readmodel::{DayRow, Totals};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(dashboard))
        .routes(routes!(dashboard_days))
        .routes(routes!(state_audit))
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
