//! Public evidence for every settlement (decisions §1): the archived ticks of any symbol by
//! log index or time, and a settlement proof per contract (its terms, the ticks that decided
//! it, the tick that shows the exit was the last one at or before expiry, the rule and the
//! result). `trading-verify` re-derives every result from these.

use axum::extract::State;
use axum::http::StatusCode;
use engine::types::MarketHours;
use market_feed::archive::{ArchivedTick, TickArchive};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Params, PathValue};
use super::dto;
use super::{ok, Answer, ApiError, ApiResult, AppState, Envelope, ErrorEnvelope};
use crate::readmodel::{ContractRow, TickRow};

/// Most ticks per page.
pub const TICKS_PAGE_MAX: usize = 1_000;
/// Most proofs per page.
pub const PROOFS_PAGE_MAX: usize = 500;
/// Ticks per page unless asked otherwise.
const TICKS_PAGE_DEFAULT: usize = 500;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(ticks)).routes(routes!(proofs)).routes(routes!(proof))
}

/// A tick as the archive holds it.
#[derive(Debug, Clone, Copy, Serialize, ToSchema, PartialEq, Eq)]
pub struct TickView {
    /// Log index of the tick command.
    pub index: u64,
    /// Sequencer time (ms).
    pub time: u64,
    /// The tick's price as archived (decimal string).
    #[schema(value_type = String)]
    pub price: Decimal,
}

impl From<ArchivedTick> for TickView {
    fn from(t: ArchivedTick) -> Self {
        TickView { index: t.index, time: t.time_ms, price: t.price }
    }
}

impl From<TickRow> for TickView {
    fn from(t: TickRow) -> Self {
        TickView { index: t.sequence, time: t.time, price: t.price }
    }
}

/// What a tick range counts in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TickRange {
    /// Log indexes.
    #[default]
    Index,
    /// Sequencer time in ms.
    Time,
}

/// Which ticks: a range of log indexes or of times, both ends inclusive.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TickQuery {
    /// What `from` and `to` count: log indexes (default) or times in ms.
    #[param(inline)]
    pub by: Option<TickRange>,
    /// First index or time (inclusive, default 0).
    #[param(maximum = 9_007_199_254_740_991_u64)]
    pub from: Option<u64>,
    /// Last index or time (inclusive, default no end). A range that ends before it starts
    /// holds no ticks.
    #[param(maximum = 9_007_199_254_740_991_u64)]
    pub to: Option<u64>,
    /// At most this many (default 500).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<usize>,
}

/// A page of ticks, in order.
#[derive(Debug, Serialize, ToSchema)]
pub struct TickPage {
    /// The ticks.
    pub items: Vec<TickView>,
    /// True when the range holds more: ask again from the last index + 1.
    pub more: bool,
}

async fn blocking<T: Send + 'static>(
    archive: &Arc<TickArchive>,
    read: impl FnOnce(&TickArchive) -> Result<T, market_feed::archive::ArchiveError> + Send + 'static,
) -> ApiResult<T> {
    let archive = Arc::clone(archive);
    tokio::task::spawn_blocking(move || read(&archive))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)
}

/// Archived ticks of a symbol, by log index or by time.
#[utoipa::path(get, path = "/api/ticks/{symbol}", tag = "fairness",
    params(("symbol" = String, Path, description = "Product code, e.g. BTCUSDT", pattern = "^[A-Za-z0-9]{3,16}$"), TickQuery),
    responses((status = 200, body = Envelope<TickPage>)))]
async fn ticks(
    State(state): State<AppState>,
    PathValue(code): PathValue<String>,
    Params(query): Params<TickQuery>,
) -> Answer<TickPage> {
    let symbol = crate::trading::path_symbol(&code)?;
    let limit = query.limit.unwrap_or(TICKS_PAGE_DEFAULT);
    if limit == 0 || limit > TICKS_PAGE_MAX {
        return Err(ApiError::invalid("limit", "page"));
    }
    let by_time = query.by.unwrap_or_default() == TickRange::Time;
    let from = dto::bounded("from", query.from)?.unwrap_or(0);
    let to = dto::bounded("to", query.to)?.unwrap_or(u64::MAX);
    if from > to {
        return ok(TickPage { items: Vec::new(), more: false });
    }
    let mut items: Vec<TickView> = blocking(&state.archive, move |a| {
        if by_time {
            a.by_time(symbol, from, to, limit + 1)
        } else {
            a.by_index(symbol, from, to, limit + 1)
        }
    })
    .await?
    .into_iter()
    .map(TickView::from)
    .collect();
    let more = items.len() > limit;
    items.truncate(limit);
    ok(TickPage { items, more })
}

/// A settled contract's terms and recorded result (no archive lookups).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProofTerms {
    /// Order number.
    pub id: u64,
    /// Product code.
    pub symbol: String,
    /// `real` or `demo`.
    pub account: String,
    /// `up` or `down`.
    pub direction: String,
    /// Stake (USDT).
    #[schema(value_type = String)]
    pub stake: Decimal,
    /// Fee paid at acceptance.
    #[schema(value_type = String)]
    pub fee: Decimal,
    /// Payout rate locked at acceptance.
    #[schema(value_type = String)]
    pub payout_rate: Decimal,
    /// Duration (seconds).
    pub duration: u64,
    /// Accepted at (sequencer ms).
    pub accepted_at: u64,
    /// Log index of the acceptance.
    pub accepted_index: u64,
    /// Entry time + duration, when it entered.
    pub expiry_at: Option<u64>,
    /// The entry tick the engine used.
    pub entry: Option<TickView>,
    /// The exit tick the engine used.
    pub exit: Option<TickView>,
    /// win, loss, tie, void_no_entry, void_stale_feed, void_market_closed.
    pub outcome: String,
    /// Paid back to the wallet.
    #[schema(value_type = String)]
    pub credited: Decimal,
    /// credited - stake - fee.
    #[schema(value_type = String)]
    pub profit: Decimal,
    /// Settled at (sequencer ms): the sale's time for a sale.
    pub settled_at: u64,
    /// A sale before expiry: the offer paid and every figure it came from (the window's
    /// ticks are `GET /api/ticks/{symbol}?from={windowFrom}&to={tick.sequence}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sale: Option<crate::readmodel::SaleRow>,
    /// The UID of the trader whose order this contract copied (placed in that order's own
    /// command, so `acceptedIndex` is the leader's too); null for a trader's own order.
    pub copied_from: Option<u32>,
}

fn terms(row: &ContractRow) -> Option<ProofTerms> {
    Some(ProofTerms {
        id: row.id,
        symbol: row.symbol.clone(),
        account: crate::names::account_name(row.account).into(),
        direction: crate::names::direction_name(row.direction).into(),
        stake: row.stake,
        fee: row.fee,
        payout_rate: row.payout_rate,
        duration: row.duration,
        accepted_at: row.accepted_at,
        accepted_index: row.accepted_index,
        expiry_at: row.expiry_at,
        entry: row.entry.map(TickView::from),
        exit: row.exit.map(TickView::from),
        outcome: crate::names::outcome_name(row.outcome?).into(),
        credited: row.credited?,
        profit: row.profit?,
        settled_at: row.settled_at?,
        sale: row.sale.clone(),
        copied_from: row.copied_from,
    })
}

/// Which settled contracts.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ProofQuery {
    /// Only contracts with a larger order number (paging).
    #[param(maximum = 9_007_199_254_740_991_u64)]
    pub after_id: Option<u64>,
    /// At most this many (default 500).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<usize>,
}

/// Settled contracts in order of their number, with terms and recorded results: what an
/// auditor checks against the ticks.
#[utoipa::path(get, path = "/api/proofs", tag = "fairness", params(ProofQuery),
    responses((status = 200, body = Envelope<Vec<ProofTerms>>)))]
async fn proofs(
    State(state): State<AppState>,
    Params(query): Params<ProofQuery>,
) -> Answer<Vec<ProofTerms>> {
    let limit = query.limit.unwrap_or(PROOFS_PAGE_MAX);
    if limit == 0 || limit > PROOFS_PAGE_MAX {
        return Err(ApiError::invalid("limit", "page"));
    }
    let rows = state.history().await?.contracts_after(
        dto::bounded("afterId", query.after_id)?.unwrap_or(0),
        limit,
        |r| r.outcome.is_some(),
    )?;
    ok(rows.iter().filter_map(terms).collect())
}

/// The rule that decided a contract, as a code and the published text.
#[derive(Debug, Serialize, ToSchema)]
pub struct RuleApplied {
    /// Stable code, e.g. `up_wins_exit_above_entry`.
    pub code: &'static str,
    /// The rule in words (decisions §2).
    pub text: &'static str,
}

/// Everything needed to re-derive one result.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Proof {
    /// Terms and the recorded result.
    pub contract: ProofTerms,
    /// The symbol's first tick after the acceptance (the entry, or the proof that none came
    /// within 5 s).
    pub first_after_acceptance: Option<TickView>,
    /// The symbol's first tick after expiry: the exit is the tick before it.
    pub first_after_expiry: Option<TickView>,
    /// Weekly closed windows of the product (minutes from Monday 00:00 UTC), empty if 24/7.
    pub closed_windows: Vec<(u32, u32)>,
    /// How the result follows from the ticks.
    pub rule: RuleApplied,
}

/// The rule behind an outcome (decisions §2).
pub fn rule_applied(outcome: &str, direction: &str) -> RuleApplied {
    let (code, text) = match (outcome, direction) {
        ("win", "up") => ("up_wins_exit_above_entry", "Buy Up wins when the exit price is above the entry price: stake x (1 + payout rate) is paid."),
        ("win", _) => ("down_wins_exit_below_entry", "Buy Down wins when the exit price is below the entry price: stake x (1 + payout rate) is paid."),
        ("loss", "up") => ("up_loses_exit_not_above_entry", "Buy Up loses when the exit price is below the entry price: the stake goes to the house."),
        ("loss", _) => ("down_loses_exit_not_below_entry", "Buy Down loses when the exit price is above the entry price: the stake goes to the house."),
        ("tie", _) => ("tie_exit_equals_entry", "When the exit price equals the entry price the stake is returned."),
        ("void_no_entry", _) => ("void_no_entry_within_5s", "No tick of the symbol within 5 s after acceptance: the contract is void, stake and fee are refunded."),
        ("sold", _) => ("sold_at_published_offer", "Sold back before expiry at the offer of the early-close rule (GET /api/trade/rules): the sale's tick, the volatility of the ticks from windowFrom to it, the time left and the spread give the amount paid."),
        ("void_stale_feed", _) => ("void_no_tick_in_5s_before_expiry", "The last tick at or before expiry is more than 5 s older than expiry (the feed went quiet): void, stake and fee refunded."),
        _ => ("void_market_closed", "The market was closed at some moment between acceptance and expiry: void, stake and fee refunded."),
    };
    RuleApplied { code, text }
}

/// The settlement proof of one settled contract.
#[utoipa::path(get, path = "/api/proofs/{id}", tag = "fairness",
    params(("id" = u64, Path, description = "Order number")),
    responses((status = 200, body = Envelope<Proof>), (status = 400, description = "VALIDATION", body = ErrorEnvelope),
        (status = 404, description = "CONTRACT_NOT_FOUND, or not settled yet", body = ErrorEnvelope)))]
async fn proof(State(state): State<AppState>, PathValue(id): PathValue<u64>) -> Answer<Proof> {
    let row = state.history().await?.contract(id)?;
    let not_found = || ApiError::new(StatusCode::NOT_FOUND, "CONTRACT_NOT_FOUND");
    let contract = row.as_ref().and_then(terms).ok_or_else(not_found)?;
    let symbol = crate::trading::symbol(&contract.symbol)?;
    let (after, expiry) = (contract.accepted_index, contract.expiry_at);
    let (first_after_acceptance, first_after_expiry) = blocking(&state.archive, move |a| {
        let entry = a.by_index(symbol, after + 1, u64::MAX, 1)?.first().copied();
        let next = match expiry {
            Some(expiry) => a.by_time(symbol, expiry + 1, u64::MAX, 1)?.first().copied(),
            None => None,
        };
        Ok((entry, next))
    })
    .await?;
    let hours = state
        .query(move |e| e.products().iter().find(|p| p.symbol == symbol).map(|p| p.hours.clone()))
        .await?;
    let closed_windows = match hours {
        Some(MarketHours::WeeklyClosed(windows)) => windows,
        _ => Vec::new(),
    };
    let rule = rule_applied(&contract.outcome, &contract.direction);
    ok(Proof {
        contract,
        first_after_acceptance: first_after_acceptance.map(TickView::from),
        first_after_expiry: first_after_expiry.map(TickView::from),
        closed_windows,
        rule,
    })
}
