//! What an order and a market view are, for both transports: an order's fields checked and
//! turned into the engine's command, the answer to an accepted order, a product code as
//! typed, and a product's market-list line. The HTTP handlers (`api::trade`) and the
//! websocket (`ws`) call these; neither imports the other.

use engine::command::PlaceOrder;
use engine::types::{AccountKind, Symbol, UserId};
use engine::{Command, Reply};
use market_feed::market::ProductView;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::dto::{self, AccountParam, DirectionParam};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// A market list item (spec §3).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarketItem {
    /// Code, e.g. BTCUSDT.
    pub symbol: String,
    /// Name, e.g. BTC/USDT.
    pub name: String,
    /// `crypto` or `forex`.
    pub category: String,
    /// Price decimals.
    pub precision: u8,
    /// Last price ("" before the first tick).
    pub price: String,
    /// 24 h change.
    pub change: String,
    /// 24 h change in percent.
    pub change_percent: String,
    /// 24 h high.
    pub high: String,
    /// 24 h low.
    pub low: String,
    /// 24 h volume.
    pub volume: String,
    /// Price 24 h ago.
    pub open: String,
    /// Last close.
    pub close: String,
    /// The market is open now.
    pub is_open: bool,
    /// The price source has gone quiet.
    pub stale: bool,
    /// Priced by the simulator: demo money only, unless the operator allows real money.
    pub simulated: bool,
}

/// A product's market-list line (also the websocket's ticker frame).
pub fn market_item(view: &ProductView) -> MarketItem {
    let s = &view.stats;
    MarketItem {
        symbol: view.instrument.symbol.to_string(),
        name: view.instrument.name.clone(),
        category: crate::names::category_name(view.instrument.category).into(),
        precision: view.instrument.precision,
        price: view.last.as_ref().map(|t| t.price.to_string()).unwrap_or_default(),
        change: s.change.to_string(),
        change_percent: s.change_percent.to_string(),
        high: s.high.to_string(),
        low: s.low.to_string(),
        volume: s.volume.to_string(),
        open: s.open.to_string(),
        close: s.close.to_string(),
        is_open: view.open,
        stale: view.stale,
        simulated: view.simulated,
    }
}

/// The document's pattern for a product code in a path or query.
pub const SYMBOL_PATTERN: &str = "^[A-Za-z0-9]{3,16}$";

/// A product code in a path or query: letters and digits only (any case), as documented.
pub fn path_symbol(code: &str) -> ApiResult<Symbol> {
    if !code.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(ApiError::invalid("symbol", "symbol"));
    }
    symbol(code)
}

/// A product code as typed (`btc/usdt` too), checked for shape only.
#[doc(hidden)] // pub for the fuzzers (fuzz/fuzz_targets/ws_frame.rs)
pub fn symbol(code: &str) -> ApiResult<Symbol> {
    Symbol::new(&code.replace('/', "").to_uppercase())
        .ok_or_else(|| ApiError::invalid("symbol", "symbol"))
}

/// `POST /api/trade/orders`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct OrderBody {
    /// Product code.
    #[schema(required = true, pattern = "^[A-Za-z0-9/]{3,17}$")]
    pub symbol: String,
    /// Rise or fall.
    #[schema(required = true, inline, value_type = DirectionParam)]
    pub direction: String,
    /// Stake in USDT, as a string.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub amount: String,
    /// Duration in seconds; must match an enabled rule.
    #[schema(required = true, minimum = 1)]
    pub duration: u32,
    /// The real account when absent.
    #[schema(inline, value_type = Option<AccountParam>)]
    pub account: Option<String>,
}

/// An accepted order.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderAccepted {
    /// Contract (order) number.
    pub contract_id: u64,
    /// Fee charged.
    pub fee: String,
    /// "waiting_entry": the entry spot is the next tick.
    pub status: String,
}

/// Checks an order's fields and makes its command (shared by HTTP and the websocket).
/// Real money is refused on simulated prices unless the operator allowed it: a simulator's
/// prices are not a market's (decisions §8).
pub fn place_order_command(state: &AppState, user: UserId, body: &OrderBody) -> ApiResult<Command> {
    let symbol = symbol(&body.symbol)?;
    let direction = dto::direction(&body.direction)?;
    let stake = dto::amount("amount", &body.amount)?;
    if body.duration == 0 {
        return Err(ApiError::invalid("duration", "duration"));
    }
    let account = dto::account(body.account.as_deref())?;
    if account == AccountKind::Real
        && !state.real_money_on_simulated_prices
        && state.market.is_simulated(symbol)
    {
        return Err(ApiError::new(axum::http::StatusCode::FORBIDDEN, "SIMULATED_PRICES_DEMO_ONLY"));
    }
    Ok(Command::PlaceOrder(PlaceOrder {
        user,
        account,
        symbol,
        direction,
        stake,
        duration_secs: body.duration,
    }))
}

/// The answer to an accepted order.
pub fn order_accepted(reply: Reply) -> ApiResult<OrderAccepted> {
    let Reply::OrderAccepted { contract, fee } = reply else {
        return Err(ApiError::internal("unexpected reply to PlaceOrder"));
    };
    Ok(OrderAccepted {
        contract_id: contract.into(),
        fee: fee.to_string(),
        status: "waiting_entry".into(),
    })
}
