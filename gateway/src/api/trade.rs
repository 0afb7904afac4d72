//! Markets, candles, trading rules, orders and contract records.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use engine::command::PlaceOrder;
use engine::types::{AccountKind, Category, Symbol};
use engine::Command;
use market_feed::types::Period;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Body, Params, PathValue, User};
use super::dto::{self, AccountParam, CategoryParam, ContractStatus, PageQuery, PeriodParam};
use super::{
    export, ok, Answer, ApiError, ApiResult, AppState, Envelope, ErrorEnvelope, IdempotencyKey,
    Submitted,
};
use crate::charts::{self, CandleView, CANDLES_MAX};
use crate::readmodel::{ContractRow, Page};
use crate::trading::{
    market_item, order_accepted, path_symbol, place_order_command, MarketItem, OrderAccepted,
    OrderBody,
};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(markets))
        .routes(routes!(market))
        .routes(routes!(candles))
        .routes(routes!(rules))
        .routes(routes!(place_order))
        .routes(routes!(contracts))
        .routes(routes!(export_contracts))
        .routes(routes!(contract))
        .routes(routes!(sell))
        .routes(routes!(offer))
}

/// Market list filter.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MarketQuery {
    /// All categories when absent.
    #[param(inline)]
    pub category: Option<CategoryParam>,
}

/// The market list (tabs Cryptocurrency and Forex).
#[utoipa::path(get, path = "/api/markets", tag = "markets", params(MarketQuery),
    responses((status = 200, body = Envelope<Vec<MarketItem>>), (status = 400, body = ErrorEnvelope)))]
async fn markets(
    State(state): State<AppState>,
    Params(query): Params<MarketQuery>,
) -> Answer<Vec<MarketItem>> {
    let category = query.category.map(|c| match c {
        CategoryParam::Crypto => Category::Crypto,
        CategoryParam::Forex => Category::Forex,
    });
    let items = state
        .market
        .products(state.now())
        .iter()
        .filter(|v| category.is_none_or(|c| v.instrument.category == c))
        .map(market_item)
        .collect();
    ok(items)
}

/// One market with its 24 h statistics.
#[utoipa::path(get, path = "/api/markets/{symbol}", tag = "markets",
    params(("symbol" = String, Path, description = "Product code, e.g. BTCUSDT", pattern = "^[A-Za-z0-9]{3,16}$")),
    responses((status = 200, body = Envelope<MarketItem>), (status = 404, description = "PRODUCT_NOT_FOUND", body = ErrorEnvelope)))]
async fn market(
    State(state): State<AppState>,
    PathValue(code): PathValue<String>,
) -> Answer<MarketItem> {
    let symbol = path_symbol(&code)?;
    let view = state
        .market
        .product(symbol, state.now())
        .ok_or_else(|| ApiError::new(axum::http::StatusCode::NOT_FOUND, "PRODUCT_NOT_FOUND"))?;
    ok(market_item(&view))
}

/// Candle query.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CandleQuery {
    /// The chart period (default 1m).
    #[param(inline)]
    pub period: Option<PeriodParam>,
    /// From (ms, inclusive; default 0). Without `from` and `to`, the newest candles.
    #[param(maximum = 9_007_199_254_740_991_u64)]
    pub from: Option<u64>,
    /// To (ms, exclusive; default: no end). An empty range has no candles.
    #[param(maximum = 9_007_199_254_740_991_u64)]
    pub to: Option<u64>,
    /// At most this many (default 500).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<usize>,
}

/// Candles of a product for a chart period, from stored history.
#[utoipa::path(get, path = "/api/markets/{symbol}/candles", tag = "markets", params(("symbol" = String, Path, description = "Product code", pattern = "^[A-Za-z0-9]{3,16}$"), CandleQuery),
    responses((status = 200, body = Envelope<Vec<CandleView>>), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn candles(
    State(state): State<AppState>,
    PathValue(code): PathValue<String>,
    Params(query): Params<CandleQuery>,
) -> ApiResult<Response> {
    let symbol = path_symbol(&code)?;
    let period = Period::parse(query.period.map_or("1m", PeriodParam::as_str))
        .ok_or_else(|| ApiError::invalid("period", "period"))?;
    let limit = query.limit.unwrap_or(500);
    if limit == 0 || limit > CANDLES_MAX {
        return Err(ApiError::invalid("limit", "page"));
    }
    if state.market.product(symbol, state.now()).is_none() {
        return Err(ApiError::new(axum::http::StatusCode::NOT_FOUND, "PRODUCT_NOT_FOUND"));
    }
    let (from, to) = (dto::bounded("from", query.from)?, dto::bounded("to", query.to)?);
    if from.is_none() && to.is_none() {
        return newest_candles(&state, symbol, period, limit).await;
    }
    let (from, to) = (from.unwrap_or(0), to.unwrap_or(u64::MAX));
    if from >= to {
        return Ok(ok(Vec::<CandleView>::new())?.into_response());
    }
    let market = state.market.clone();
    let list = tokio::task::spawn_blocking(move || market.candles(symbol, period, from, to, limit))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)?;
    Ok(ok(list.iter().map(CandleView::from).collect::<Vec<_>>())?.into_response())
}

/// A chart's history (the newest candles), copied from the page kept encoded for it.
async fn newest_candles(
    state: &AppState,
    symbol: Symbol,
    period: Period,
    limit: usize,
) -> ApiResult<Response> {
    let page = match state.charts.fresh(&state.market, symbol, period) {
        Some(page) => page,
        None => {
            let state = state.clone();
            tokio::task::spawn_blocking(move || state.charts.refresh(&state.market, symbol, period))
                .await
                .map_err(ApiError::internal)?
                .map_err(ApiError::internal)?
        }
    };
    let body = axum::body::Body::new(charts::answer(&page, &state.market, symbol, period, limit));
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// A published trading rule (decisions §2).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleView {
    /// Duration in seconds.
    pub duration: u32,
    /// Payout rate, e.g. 0.85.
    pub payout_rate: String,
    /// Smallest stake.
    pub min_amount: String,
    /// Largest stake.
    pub max_amount: String,
    /// Fee rate on the stake.
    pub fee_rate: String,
    /// Offered now.
    pub enabled: bool,
}

pub(super) fn rule_views(engine: &engine::Engine) -> Vec<RuleView> {
    engine
        .rules()
        .iter()
        .map(|r| RuleView {
            duration: r.duration_secs,
            payout_rate: r.payout_rate.to_string(),
            min_amount: r.stake_min.to_string(),
            max_amount: r.stake_max.to_string(),
            fee_rate: r.fee_rate.to_string(),
            enabled: r.enabled,
        })
        .collect()
}

/// The rules and how contracts settle.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Rules {
    /// One per duration.
    pub rules: Vec<RuleView>,
    /// Entry, exit, tie and void rules as text, shown before confirming.
    pub settlement: Vec<String>,
    /// Selling a contract back before expiry: the terms in force and the rule.
    pub early_close: EarlyClose,
}

/// Early close as published: the terms the back-office set, and the rule that prices it.
#[derive(Debug, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct EarlyClose {
    /// Offered at all.
    pub enabled: bool,
    /// No offer in the last this many seconds before expiry.
    pub cutoff_secs: u32,
    /// The spread of a duration without one of its own (fraction, e.g. 0.05).
    pub spread: String,
    /// Durations with a spread of their own.
    pub durations: Vec<DurationSpreadView>,
    /// Products with a spread added, or without early close.
    pub products: Vec<ProductSaleView>,
    /// Price changes the volatility is estimated from, and the fewest that give an offer.
    pub window_returns: u32,
    /// See `windowReturns`.
    pub window_returns_min: u32,
    /// The rule in words, step by step, with its formula.
    pub rule: Vec<String>,
}

/// One duration's early-close spread.
#[derive(Debug, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct DurationSpreadView {
    /// Duration in seconds.
    pub duration: u32,
    /// Spread (fraction).
    pub spread: String,
}

/// One product's early close.
#[derive(Debug, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ProductSaleView {
    /// Product code.
    pub symbol: String,
    /// Its contracts may be sold back.
    pub enabled: bool,
    /// Added to the duration's spread (fraction).
    pub spread: String,
}

/// The early-close rule in words (the engine's `sale` module says the same).
const EARLY_CLOSE_RULE: [&str; 6] = [
    "An entered contract may be sold back before expiry at the offer of the moment; you never get less than the offer you confirmed.",
    "Volatility: for each of the product's last price changes (up to the window), r = (p - q) x 10^9 / q rounded toward zero; variance per ms = sum of r^2 / sum of the gaps between the ticks (ms).",
    "sd = floor(sqrt(sum of r^2 x time left in ms / sum of gaps)); distance x = (current price - entry price) x 10^9 / entry price, toward zero, negated for a down contract.",
    "z = x x 10 000 / sd (within +/-4); probability P = the standard normal distribution at z from the published table at steps of 0.01, linear between steps; with sd = 0, P is 1 above the entry, 0 below, 1/2 at it.",
    "Win payout W = stake x (1 + payout rate) in cents; fair = floor(W x P); offer = floor(fair x (1 - spread)) in cents, between 0 and W; spread = the duration's + the product's.",
    "No offer before the entry tick, in the last seconds before expiry, on a price older than 5 s or a market closed since acceptance, with too few price changes, for a frozen or self-excluded account, or when the offer is zero.",
];

pub(crate) fn early_close(engine: &engine::Engine) -> EarlyClose {
    let t = engine.sale_terms();
    EarlyClose {
        enabled: t.enabled,
        cutoff_secs: t.cutoff_secs,
        spread: t.spread.normalize().to_string(),
        durations: (t.durations.iter())
            .map(|d| DurationSpreadView {
                duration: d.duration_secs,
                spread: d.spread.normalize().to_string(),
            })
            .collect(),
        products: (t.products.iter())
            .map(|p| ProductSaleView {
                symbol: p.symbol.to_string(),
                enabled: p.enabled,
                spread: p.spread.normalize().to_string(),
            })
            .collect(),
        window_returns: engine::sale::WINDOW_RETURNS as u32,
        window_returns_min: u32::from(engine::sale::WINDOW_RETURNS_MIN),
        rule: EARLY_CLOSE_RULE.iter().map(|s| (*s).to_owned()).collect(),
    }
}

/// Trading rules (durations, payout rates, stake limits) and settlement rules.
#[utoipa::path(get, path = "/api/trade/rules", tag = "trade", responses((status = 200, body = Envelope<Rules>)))]
async fn rules(State(state): State<AppState>) -> Answer<Rules> {
    let (rules, early_close) = state.query(|e| (rule_views(e), early_close(e))).await?;
    let settlement = vec![
        "Entry spot: the first price tick after your order is accepted.".into(),
        "Exit spot: the last tick at or before expiry (entry time + duration).".into(),
        "Buy up wins if exit > entry; buy down wins if exit < entry; equal prices return the stake.".into(),
        "No entry tick within 5 s, no tick in the 5 s before expiry, or a market closure voids the contract and refunds stake and fee.".into(),
    ];
    ok(Rules { rules, settlement, early_close })
}

/// Buy up or buy down.
#[utoipa::path(post, path = "/api/trade/orders", tag = "trade", security(("user" = [])), request_body = OrderBody,
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,64}$", description = "The client's id for this order (a UUID, say: 1 to 64 visible ASCII characters), sent again with a retry: in a cluster a retried order is answered with the contract placed the first time, never placed twice")),
    responses((status = 200, body = Envelope<OrderAccepted>), (status = 400, description = "VALIDATION, DURATION_NOT_ALLOWED, STAKE_OUT_OF_RANGE, INSUFFICIENT_BALANCE, MARKET_CLOSED, PRODUCT_DISABLED, PRICE_NOT_AVAILABLE", body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, description = "SIMULATED_PRICES_DEMO_ONLY (real money on a simulated market), ACCOUNT_FROZEN", body = ErrorEnvelope), (status = 404, description = "PRODUCT_NOT_FOUND", body = ErrorEnvelope), (status = 409, description = "TOO_MANY_OPEN_CONTRACTS, HOUSE_EXPOSURE_LIMIT", body = ErrorEnvelope), (status = 422, description = "IDEMPOTENCY_KEY_REUSED: the key was sent before with another order", body = ErrorEnvelope)))]
async fn place_order(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    Body(body): Body<OrderBody>,
) -> Answer<OrderAccepted> {
    let command = place_order_command(&state, user.id, &body)?;
    let Command::PlaceOrder(order) = &command else {
        return Err(ApiError::internal("an order's command is not an order"));
    };
    let order = order.clone();
    let reply = match state.submit_once(key, command).await? {
        Submitted::Applied(reply) => reply,
        // A retry (same Idempotency-Key): the order placed the first time, not a second.
        Submitted::Duplicate { index } => return ok(accepted_earlier(&state, &order, index).await?),
    };
    let accepted = order_accepted(reply)?;
    state.metrics.orders.inc();
    ok(accepted)
}

/// The order a retried request placed the first time: the caller's contract accepted at the
/// index the duplicate names. A key used before for another request (another order, or not
/// this caller's) is refused, as the IETF Idempotency-Key draft and Stripe do: answering with
/// the first contract would tell the client a different order was placed.
async fn accepted_earlier(
    state: &AppState,
    order: &PlaceOrder,
    index: u64,
) -> ApiResult<OrderAccepted> {
    let history = state.history().await?;
    let paging = crate::readmodel::Paging { page: 1, size: 1 };
    let found = history.contracts(order.user.into(), |c| c.accepted_index == index, paging)?;
    let reused =
        || ApiError::new(axum::http::StatusCode::UNPROCESSABLE_ENTITY, "IDEMPOTENCY_KEY_REUSED");
    let contract = found.items.into_iter().next().ok_or_else(reused)?;
    let same = contract.symbol == order.symbol.as_str()
        && contract.direction == order.direction
        && contract.stake == order.stake
        && contract.duration == u64::from(order.duration_secs)
        && contract.account == order.account;
    if !same {
        return Err(reused());
    }
    Ok(OrderAccepted {
        contract_id: contract.id,
        fee: contract.fee.to_string(),
        status: contract.status.name().into(),
    })
}

/// Contract record filters.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ContractQuery {
    /// `open` (waiting or running) or `settled` (settled or void); all when absent.
    #[param(inline)]
    pub status: Option<ContractStatus>,
    /// Both accounts when absent.
    #[param(inline)]
    pub account: Option<AccountParam>,
    /// Only copies of other traders' orders (true) or only my own orders (false); both when
    /// absent.
    pub copied: Option<bool>,
    /// 1-based page.
    #[param(minimum = 1, maximum = 1_000_000)]
    pub page: Option<usize>,
    /// Rows per page.
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<usize>,
}

pub(super) fn contract_filter(status: Option<ContractStatus>) -> fn(&ContractRow) -> bool {
    match status {
        None => |_| true,
        Some(ContractStatus::Open) => |r| r.status.is_open(),
        Some(ContractStatus::Settled) => |r| !r.status.is_open(),
    }
}

/// The user's contract records, newest first.
#[utoipa::path(get, path = "/api/trade/contracts", tag = "trade", security(("user" = [])), params(ContractQuery),
    responses((status = 200, body = Envelope<Page<ContractRow>>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn contracts(
    State(state): State<AppState>,
    user: User,
    Params(query): Params<ContractQuery>,
) -> Answer<Page<ContractRow>> {
    let history = state.history().await?;
    let paging = PageQuery { page: query.page, page_size: query.page_size }.paging()?;
    let by_status = contract_filter(query.status);
    let account = query.account.map(AccountKind::from);
    let copied = query.copied;
    let page = history.contracts(
        user.id.into(),
        |r| {
            by_status(r)
                && account.is_none_or(|a| r.account == a)
                && copied.is_none_or(|c| r.copied_from.is_some() == c)
        },
        paging,
    )?;
    ok(page)
}

/// The contract records' filters, and a range of acceptance dates, for an export.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ContractExportQuery {
    /// `open` (waiting or running) or `settled` (settled or void); all when absent.
    #[param(inline)]
    pub status: Option<ContractStatus>,
    /// Both accounts when absent.
    #[param(inline)]
    pub account: Option<AccountParam>,
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
}

/// The contract records as a CSV file: every contract the filters match, oldest first,
/// streamed (no row limit), with its entry and exit ticks and its result.
#[utoipa::path(get, path = "/api/trade/contracts/export", tag = "trade", security(("user" = [])), params(ContractExportQuery),
    responses(
        (status = 200, description = "CSV, one contract per line after the header", content_type = "text/csv", body = String),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 429, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope)))]
async fn export_contracts(
    State(state): State<AppState>,
    user: User,
    Params(query): Params<ContractExportQuery>,
) -> Result<Response, ApiError> {
    let by_status = contract_filter(query.status);
    let account = query.account.map(AccountKind::from);
    let start = query.start.as_deref().map(|s| dto::date("start", s, false)).transpose()?;
    let end = query.end.as_deref().map(|s| dto::date("end", s, true)).transpose()?;
    let history = state.history().await?.clone();
    let permit = export::admit(&state, user.id.get())?;
    // Contracts are numbered as they are accepted: the first one past the end ends it.
    let take = move |r: &ContractRow| {
        if end.is_some_and(|e| r.accepted_at > e) {
            export::Take::Stop
        } else if by_status(r)
            && account.is_none_or(|a| r.account == a)
            && start.is_none_or(|s| r.accepted_at >= s)
        {
            export::Take::Row
        } else {
            export::Take::Skip
        }
    };
    Ok(export::csv_download(history, user.id.get(), account, permit, take))
}

/// One contract with its entry and exit ticks.
#[utoipa::path(get, path = "/api/trade/contracts/{id}", tag = "trade", security(("user" = [])),
    params(("id" = u64, Path, description = "Contract number")),
    responses((status = 200, body = Envelope<ContractRow>), (status = 401, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn contract(
    State(state): State<AppState>,
    user: User,
    PathValue(id): PathValue<u64>,
) -> Answer<ContractRow> {
    let row = state.history().await?.contract(id)?.filter(|r| r.user == user.id.get());
    ok(row.ok_or_else(|| ApiError::new(axum::http::StatusCode::NOT_FOUND, "CONTRACT_NOT_FOUND"))?)
}

/// `POST /api/trade/contracts/{id}/sell`: the offer the trader saw.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct SellBody {
    /// The offer shown, in USDT (a decimal string). The sale goes through at the offer of the
    /// moment it is applied when that is at least this, and is refused otherwise.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub offer: String,
}

/// A contract sold back.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Sold {
    /// Contract number.
    pub contract_id: u64,
    /// What the sale paid into the wallet (USDT).
    pub credited: String,
}

/// Sell an open contract back before expiry at the published offer (the rules page and
/// `GET /api/trade/rules` give the rule). Never at less than the offer sent: a lower offer
/// now is refused with `OFFER_CHANGED` and the new offer; nothing is sold and nothing is
/// retried.
#[utoipa::path(post, path = "/api/trade/contracts/{id}/sell", tag = "trade", security(("user" = [])), request_body = SellBody,
    params(("id" = u64, Path, description = "Contract number")),
    responses((status = 200, body = Envelope<Sold>), (status = 400, description = "VALIDATION", body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 404, description = "CONTRACT_NOT_FOUND (not yours, or no longer open)", body = ErrorEnvelope),
        (status = 409, description = "OFFER_CHANGED (argument `offer`: the offer now), SALE_UNAVAILABLE (argument `reason`: not_entered, unavailable, near_expiry, stale_market, market_closed, few_ticks, account_frozen, account_limited, no_value)", body = ErrorEnvelope)))]
async fn sell(
    State(state): State<AppState>,
    user: User,
    PathValue(id): PathValue<u64>,
    Body(body): Body<SellBody>,
) -> Answer<Sold> {
    let seen = dto::plain_decimal(&body.offer, 10, 2)
        .ok_or_else(|| ApiError::invalid("offer", "amount"))?;
    let (symbol, expiry_ms) = open_entered(&state, &user, id).await?;
    let command = Command::SellContract(engine::command::SellContract {
        user: user.id,
        contract: engine::types::ContractId(id),
        symbol,
        expiry_ms,
        seen,
    });
    match state.submit(IdempotencyKey::NONE, command).await? {
        engine::Reply::Sold { contract, credited } => {
            ok(Sold { contract_id: contract.into(), credited: credited.to_decimal().to_string() })
        }
        other => Err(ApiError::internal(format!("unexpected reply to a sale: {other:?}"))),
    }
}

/// The caller's open contract's product and expiry, which the engine finds it by; refused
/// when it is not the caller's, no longer open, or not entered yet.
async fn open_entered(state: &AppState, user: &User, id: u64) -> ApiResult<(Symbol, u64)> {
    let not_found = || ApiError::new(axum::http::StatusCode::NOT_FOUND, "CONTRACT_NOT_FOUND");
    let row = state.history().await?.contract(id)?.filter(|r| r.user == user.id.get());
    let row = row.filter(|r| r.status.is_open()).ok_or_else(not_found)?;
    let Some(expiry_ms) = row.expiry_at else {
        return Err(engine::EngineError::SaleUnavailable(engine::sale::NoOffer::NotEntered).into());
    };
    Ok((path_symbol(&row.symbol)?, expiry_ms))
}

/// The offer for an open contract now, or why there is none.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Offer {
    /// Contract number.
    pub contract_id: u64,
    /// What selling now would pay (USDT), if it can be sold.
    pub offer: Option<String>,
    /// Why not: not_entered, unavailable, near_expiry, stale_market, market_closed, few_ticks,
    /// account_frozen, account_limited, no_value.
    pub reason: Option<String>,
    /// The offer and every figure it came from, as a sale would record them.
    pub quote: Option<crate::readmodel::SaleRow>,
}

/// The offer for selling an open contract back now (the websocket pushes it at every tick).
#[utoipa::path(get, path = "/api/trade/contracts/{id}/offer", tag = "trade", security(("user" = [])),
    params(("id" = u64, Path, description = "Contract number")),
    responses((status = 200, body = Envelope<Offer>), (status = 401, body = ErrorEnvelope), (status = 404, description = "CONTRACT_NOT_FOUND", body = ErrorEnvelope), (status = 409, description = "SALE_UNAVAILABLE (reason not_entered)", body = ErrorEnvelope)))]
async fn offer(
    State(state): State<AppState>,
    user: User,
    PathValue(id): PathValue<u64>,
) -> Answer<Offer> {
    let (symbol, expiry_ms) = open_entered(&state, &user, id).await?;
    let contract = engine::types::ContractId(id);
    let owner = user.id;
    let found = state.query(move |e| e.offers(symbol, &[(owner, contract, expiry_ms)])).await?;
    let Some((_, _, quote)) = found.into_iter().next() else {
        return Err(ApiError::new(axum::http::StatusCode::NOT_FOUND, "CONTRACT_NOT_FOUND"));
    };
    ok(match quote {
        Ok(q) => Offer {
            contract_id: id,
            offer: Some(q.offer.to_decimal().to_string()),
            reason: None,
            quote: Some((&q).into()),
        },
        Err(reason) => {
            Offer { contract_id: id, offer: None, reason: Some(reason.code().into()), quote: None }
        }
    })
}
