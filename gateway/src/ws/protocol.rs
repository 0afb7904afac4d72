//! The JSON frames of the websocket, both ways.
//!
//! A client sends `{"op": ..., "id": ...}` text frames:
//!
//! ```text
//! {"op":"subscribe","channel":"tickers"}                       the market list, every product
//! {"op":"subscribe","channel":"ticks","symbol":"BTCUSDT"}      one product's ticks
//! {"op":"subscribe","channel":"candles","symbol":"BTCUSDT","period":"1m"}
//! {"op":"unsubscribe", ...the same fields...}
//! {"op":"auth","token":"<user token>"}                         then the private stream
//! {"op":"order","id":"c-1","symbol":"BTCUSDT","direction":"up","amount":"10","duration":60,"account":"demo"}
//! {"op":"ping"}
//! ```
//!
//! The server answers and pushes `{"type": ..., "id": ..., "data": ...}`; `id` is the
//! client's request id, echoed on the answer to that request only. Every frame is
//! serialised once, by the functions here, into [`Bytes`] shared by all its recipients.

use bytes::Bytes;
use engine::event::{Settled, WalletChange};
use engine::money::Money;
use engine::types::{Contract, OrderStatus, Symbol, TickRef, UserId};
use market_feed::candles::CandleUpdate;
use market_feed::market::TickUpdate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::control::Topic;
use crate::error::ApiError;
use crate::names::{account_name, bill_name, direction_name, outcome_name};
use crate::readmodel::{ContractRow, TickRow};
use crate::trading::{MarketItem, OrderAccepted};

/// Longest text request id echoed back.
pub const REQUEST_ID_CHARS_MAX: usize = 64;

/// A client's request id: a number or a short string, echoed as it came.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum RequestId {
    /// `"id": 7`.
    Number(u64),
    /// `"id": "c-1"`.
    Text(String),
}

impl RequestId {
    /// Whether it is short enough to echo.
    pub fn echoable(&self) -> bool {
        match self {
            RequestId::Text(text) => text.len() <= REQUEST_ID_CHARS_MAX,
            RequestId::Number(_) => true,
        }
    }
}

/// A client frame that could not be read.
#[derive(Debug)]
pub struct Unreadable {
    /// Its request id, if that much could be read.
    pub id: Option<RequestId>,
    /// What to answer: the field of the wrong type, or `BAD_MESSAGE`.
    pub error: ApiError,
}

/// Reads a client frame. On failure it still recovers the request id (whatever other field
/// is wrong) and names the field whose value has the wrong type.
pub fn parse(payload: &[u8]) -> Result<Incoming, Unreadable> {
    let mut reader = serde_json::Deserializer::from_slice(payload);
    let path = match serde_path_to_error::deserialize::<_, Incoming>(&mut reader) {
        Ok(message) if reader.end().is_ok() => return Ok(message),
        Ok(_) => String::new(), // trailing characters
        Err(error) => error.path().to_string(),
    };
    /// Only the id, every other field ignored.
    #[derive(Deserialize)]
    struct IdOnly {
        #[serde(default)]
        id: Option<RequestId>,
    }
    // The first JSON value only: an id is still read when junk follows it.
    let mut reader = serde_json::Deserializer::from_slice(payload);
    let id = IdOnly::deserialize(&mut reader).ok().and_then(|m| m.id);
    let field = INCOMING_FIELDS.iter().find(|f| path == **f || path.starts_with(&format!("{f}.")));
    let error = match field {
        Some(field) => ApiError::invalid(field, "ws_field").arg("field", field),
        None => ApiError::bad("BAD_MESSAGE"),
    };
    Err(Unreadable { id, error })
}

/// The fields of [`Incoming`] as they are spelled on the wire.
const INCOMING_FIELDS: [&str; 10] = [
    "op",
    "id",
    "channel",
    "symbol",
    "period",
    "token",
    "direction",
    "amount",
    "duration",
    "account",
];

/// One client frame. Every field is optional on the wire; each `op` checks its own.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Incoming {
    /// `subscribe`, `unsubscribe`, `auth`, `order` or `ping`.
    pub op: String,
    /// Request id, echoed on the answer.
    pub id: Option<RequestId>,
    /// `tickers`, `ticks`, `candles` or `tournament`.
    pub channel: String,
    /// Tournament number (the `tournament` channel: its live standings).
    pub tournament: u32,
    /// Product code (ticks, candles, order).
    pub symbol: String,
    /// Chart period (candles).
    pub period: String,
    /// User token (auth).
    pub token: String,
    /// `up` or `down` (order).
    pub direction: String,
    /// Stake as a string (order).
    pub amount: String,
    /// Seconds (order).
    pub duration: u32,
    /// `real`, `demo` or `tournament` (order).
    pub account: Option<String>,
}

/// A product code, written as its string.
struct Code(Symbol);

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.as_str())
    }
}

/// A server frame: `{"type", "id"?, "data"}`.
#[derive(Serialize)]
struct Out<'a, T> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RequestId>,
    data: T,
}

/// Serialises a frame once.
pub fn frame<T: Serialize>(kind: &str, id: Option<&RequestId>, data: T) -> Bytes {
    let out = Out { kind, id, data };
    Bytes::from(serde_json::to_vec(&out).expect("frames serialise: no maps with non-string keys"))
}

/// The answer to a subscribe or unsubscribe.
#[derive(Serialize)]
struct TopicView {
    channel: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    symbol: Option<Code>,
    #[serde(skip_serializing_if = "Option::is_none")]
    period: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tournament: Option<u32>,
}

/// `{"type":"subscribed"|"unsubscribed", "data":{channel, symbol?, period?}}`.
pub fn topic_ack(kind: &str, id: Option<&RequestId>, topic: &Topic) -> Bytes {
    let (symbol, period, tournament) = match topic {
        Topic::Tickers => (None, None, None),
        Topic::Ticks(s) => (Some(Code(*s)), None, None),
        Topic::Candles(s, p) => (Some(Code(*s)), Some(p.as_str()), None),
        Topic::Tournament(t) => (None, None, Some(*t)),
    };
    frame(kind, id, TopicView { channel: topic.channel(), symbol, period, tournament })
}

/// An error answer.
#[derive(Serialize)]
struct ErrorView<'a> {
    code: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
}

/// `{"type":"error", "id"?, "data":{code, message, field?}}`.
pub fn error(id: Option<&RequestId>, code: &str, message: &str, field: Option<&str>) -> Bytes {
    frame("error", id, ErrorView { code, message, field })
}

/// The answer to `auth`.
#[derive(Serialize)]
struct AuthView {
    user: u32,
}

/// `{"type":"authenticated","data":{user}}`.
pub fn authenticated(id: Option<&RequestId>, user: u32) -> Bytes {
    frame("authenticated", id, AuthView { user })
}

/// `{"type":"adminAuthenticated","data":{admin}}`: the socket now carries every contract's
/// changes as `adminTrade` frames.
pub fn admin_authenticated(id: Option<&RequestId>, admin: u32) -> Bytes {
    #[derive(Serialize)]
    struct AdminView {
        admin: u32,
    }
    frame("adminAuthenticated", id, AdminView { admin })
}

/// One contract's change for the back-office: `kind` is `opened` or `settled` with the whole
/// row (as `GET /api/admin/trades` lists it), or `entered` with the entry.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AdminTradeView {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    contract: Option<ContractRow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entered: Option<AdminEnteredView>,
}

/// An entry for the back-office.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AdminEnteredView {
    id: u64,
    user: u32,
    entry: TickRow,
    expiry_at: u64,
}

/// `{"type":"adminTrade","data":{kind:"opened",contract}}`.
pub fn admin_trade_opened(contract: &Contract, symbol: Symbol, leader: Option<UserId>) -> Bytes {
    let row = ContractRow::opened(contract, symbol, leader, None);
    frame("adminTrade", None, AdminTradeView { kind: "opened", contract: Some(row), entered: None })
}

/// `{"type":"adminTrade","data":{kind:"entered",entered:{id, user, entry, expiryAt}}}`.
pub fn admin_trade_entered(contract: u64, user: u32, entry: TickRef, expiry_ms: u64) -> Bytes {
    let entered =
        AdminEnteredView { id: contract, user, entry: entry.into(), expiry_at: expiry_ms };
    frame(
        "adminTrade",
        None,
        AdminTradeView { kind: "entered", contract: None, entered: Some(entered) },
    )
}

/// `{"type":"adminTrade","data":{kind:"settled",contract}}`.
pub fn admin_trade_settled(settlement: &Settled<'_>) -> Bytes {
    let mut row =
        ContractRow::opened(&settlement.contract, settlement.symbol, settlement.leader(), None);
    row.settled(settlement);
    frame(
        "adminTrade",
        None,
        AdminTradeView { kind: "settled", contract: Some(row), entered: None },
    )
}

/// The answer to `ping`.
#[derive(Serialize)]
struct PongView {
    time: u64,
}

/// `{"type":"pong","data":{time}}` (server time in ms).
pub fn pong(id: Option<&RequestId>, now_ms: u64) -> Bytes {
    frame("pong", id, PongView { time: now_ms })
}

/// The answer to `order`: `{"type":"order","id","data":{contractId, fee, status}}`.
pub fn order_reply(id: Option<&RequestId>, accepted: &OrderAccepted) -> Bytes {
    frame("order", id, accepted)
}

/// A tick on the wire.
#[derive(Serialize)]
struct TickView {
    symbol: Code,
    price: Decimal,
    quantity: Decimal,
    /// Sequencer time (ms): a client measures delivery latency against it.
    time: u64,
    /// Log index: anyone can look the tick up and re-derive a settlement.
    index: u64,
}

/// `{"type":"tick","data":{symbol, price, quantity, time, index}}`.
pub fn tick(update: &TickUpdate) -> Bytes {
    let view = TickView {
        symbol: Code(update.symbol),
        price: update.price,
        quantity: update.quantity,
        time: update.time_ms,
        index: update.index,
    };
    frame("tick", None, view)
}

/// `{"type":"ticker","data":<market list line>}`.
pub fn ticker(item: &MarketItem) -> Bytes {
    frame("ticker", None, item)
}

/// `{"type":"tickers","data":[<market list line>...]}`: the snapshot on subscribing.
pub fn tickers(items: &[MarketItem]) -> Bytes {
    frame("tickers", None, items)
}

/// A candle on the wire.
#[derive(Serialize)]
struct CandleView<'a> {
    symbol: Code,
    period: &'a str,
    /// Final (a later bucket began) or still open.
    closed: bool,
    time: u64,
    open: Decimal,
    high: Decimal,
    low: Decimal,
    close: Decimal,
    volume: Decimal,
}

/// `{"type":"candle","data":{symbol, period, closed, time, open, high, low, close, volume}}`.
pub fn candle(update: &CandleUpdate) -> Bytes {
    let c = &update.candle;
    let view = CandleView {
        symbol: Code(update.symbol),
        period: update.period.as_str(),
        closed: update.closed,
        time: c.open_ms,
        open: c.open,
        high: c.high,
        low: c.low,
        close: c.close,
        volume: c.volume,
    };
    frame("candle", None, view)
}

// ---------------------------------------------------------------------------------------------
// The private stream
// ---------------------------------------------------------------------------------------------

/// An order the engine accepted (from any of the user's devices).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AcceptedView {
    contract_id: u64,
    symbol: Code,
    account: &'static str,
    direction: &'static str,
    amount: Decimal,
    fee: Decimal,
    payout_rate: Decimal,
    duration: u64,
    accepted_at: u64,
    /// The leader's UID when the contract copies their order.
    copied_from: Option<u32>,
}

/// `{"type":"order.accepted","data":{...}}`.
pub fn order_accepted(contract: &Contract, symbol: Symbol, leader: Option<UserId>) -> Bytes {
    let view = AcceptedView {
        contract_id: contract.id.into(),
        symbol: Code(symbol),
        account: account_name(contract.account),
        direction: direction_name(contract.direction),
        amount: contract.stake.to_decimal(),
        fee: contract.fee.to_decimal(),
        payout_rate: contract.payout_rate.to_decimal(),
        duration: contract.duration_ms / 1_000,
        accepted_at: contract.accepted_ms,
        copied_from: leader.map(u32::from),
    };
    frame("order.accepted", None, view)
}

/// `{"type":"copy"|"copy.refused","data":{...}}`: what copy trading tells a user, the row
/// `GET /api/copy/notes` keeps for them (`CopyNoteRow`).
pub fn copy_note(note: &crate::readmodel::CopyNoteRow) -> Bytes {
    frame(&note.kind, None, note)
}

/// The entry spot of a contract.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EnteredView {
    contract_id: u64,
    entry_price: Decimal,
    entry_time: u64,
    entry_index: u64,
    expires_at: u64,
}

/// `{"type":"order.entered","data":{contractId, entryPrice, entryTime, entryIndex, expiresAt}}`.
pub fn order_entered(contract: u64, entry: &TickRef, expiry_ms: u64) -> Bytes {
    let view = EnteredView {
        contract_id: contract,
        entry_price: entry.price,
        entry_time: entry.time_ms,
        entry_index: entry.index,
        expires_at: expiry_ms,
    };
    frame("order.entered", None, view)
}

/// A settled contract: profit or loss with its amount.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SettledView {
    contract_id: u64,
    symbol: Code,
    account: &'static str,
    direction: &'static str,
    /// win, loss, tie or a void reason.
    outcome: &'static str,
    /// `profit`, `loss` or `even`.
    result: &'static str,
    /// The size of the profit or loss (never negative).
    amount: Decimal,
    /// Signed net result: credited - stake - fee.
    profit: Decimal,
    credited: Decimal,
    stake: Decimal,
    entry_price: Option<Decimal>,
    exit_price: Option<Decimal>,
    exit_time: Option<u64>,
    settled_at: u64,
}

/// `{"type":"order.settled","data":{...}}`.
pub fn order_settled(settlement: &Settled<'_>) -> Bytes {
    let c = &settlement.contract;
    let profit = settlement.profit();
    let result = match profit.cmp(&Money::ZERO) {
        std::cmp::Ordering::Greater => "profit",
        std::cmp::Ordering::Less => "loss",
        std::cmp::Ordering::Equal => "even",
    };
    let view = SettledView {
        contract_id: c.id.into(),
        symbol: Code(settlement.symbol),
        account: account_name(c.account),
        direction: direction_name(c.direction),
        outcome: outcome_name(settlement.outcome),
        result,
        amount: profit.abs().to_decimal(),
        profit: profit.to_decimal(),
        credited: settlement.credited.to_decimal(),
        stake: c.stake.to_decimal(),
        entry_price: c.entry.as_ref().map(|t| t.price),
        exit_price: settlement.exit.as_ref().map(|t| t.price),
        exit_time: settlement.exit.as_ref().map(|t| t.time_ms),
        settled_at: settlement.settled_ms,
    };
    frame("order.settled", None, view)
}

/// A wallet change with the new balance.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BalanceView {
    account: &'static str,
    /// `increase`, `decrease` or `unchanged` (money moved inside the wallet, e.g. a stake).
    change: &'static str,
    /// Size of the change of the total (never negative).
    amount: Decimal,
    /// Bill type when the total changed.
    bill: Option<&'static str>,
    /// The new total: available + frozen + in position.
    balance: Decimal,
    available: Decimal,
    frozen: Decimal,
    in_position: Decimal,
    /// Contract or order that caused it (0 for none).
    reference: u64,
}

/// `{"type":"balance","data":{account, change, amount, bill, balance, available, ...}}`.
pub fn balance(change: &WalletChange) -> Bytes {
    let direction = match change.amount.cmp(&Money::ZERO) {
        std::cmp::Ordering::Greater => "increase",
        std::cmp::Ordering::Less => "decrease",
        std::cmp::Ordering::Equal => "unchanged",
    };
    let w = &change.wallet;
    let view = BalanceView {
        account: account_name(change.account),
        change: direction,
        amount: change.amount.abs().to_decimal(),
        bill: change.bill.map(bill_name),
        balance: w.total().to_decimal(),
        available: w.available.to_decimal(),
        frozen: w.frozen.to_decimal(),
        in_position: w.in_position.to_decimal(),
        reference: change.reference,
    };
    frame("balance", None, view)
}

/// A deposit or withdrawal decided by the back-office.
#[derive(Serialize)]
struct NotificationView<'a> {
    kind: &'static str,
    order: u64,
    /// processing, completed, rejected or failed.
    status: &'static str,
    /// True for processing and completed.
    approved: bool,
    remark: &'a str,
}

/// `{"type":"notification","data":{kind: deposit|withdrawal, order, status, approved, remark}}`.
pub fn order_resolved(order: u64, withdrawal: bool, status: OrderStatus, remark: &str) -> Bytes {
    let kind = if withdrawal { "withdrawal" } else { "deposit" };
    let approved = matches!(status, OrderStatus::Processing | OrderStatus::Completed);
    let status = crate::names::order_status_name(status);
    frame("notification", None, NotificationView { kind, order, status, approved, remark })
}

/// `{"type":"priceAlert","data":{id, symbol, price, direction, createdAt, firedAt, firedPrice,
/// firedSequence}}`: one of the user's price alerts was reached (the same row the alert list
/// answers).
pub fn price_alert(alert: &engine::types::PriceAlert, tick: engine::types::TickRef) -> Bytes {
    frame("priceAlert", None, crate::readmodel::AlertRow::fired(alert, tick))
}

/// `{"type":"security","data":{kind, time, until, failures}}`: an event of the user's security
/// history (the same row `GET /api/user/security-events` lists): too many wrong authenticator
/// codes paused their two-factor actions until `until`.
pub fn security(time_ms: u64, until_ms: u64, failures: u32) -> Bytes {
    frame(
        "security",
        None,
        crate::readmodel::SecurityRow::two_factor_locked(time_ms, until_ms, failures),
    )
}

/// A system notice.
#[derive(Serialize)]
struct NoticeView<'a> {
    id: u64,
    title: &'a str,
    body: &'a str,
    lang: &'a str,
    time: u64,
}

/// `{"type":"notice","data":{id, title, body, lang, time}}`: a notice for every user, or for
/// the users of the app in `lang` when it is not empty.
pub fn notice(id: u64, title: &str, body: &str, lang: &str, time_ms: u64) -> Bytes {
    frame("notice", None, NoticeView { id, title, body, lang, time: time_ms })
}

/// `{"type":"noticeWithdrawn","data":{id}}`: an admin withdrew the notice.
pub fn notice_withdrawn(id: u64) -> Bytes {
    #[derive(Serialize)]
    struct Withdrawn {
        id: u64,
    }
    frame("noticeWithdrawn", None, Withdrawn { id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_message_keeps_its_id_and_names_the_field() {
        let wrong = [
            (r#"{"op":"order","id":"o-7","duration":"60"}"#, Some("duration")),
            (r#"{"op":"order","amount":10,"id":"o-7"}"#, Some("amount")),
            (r#"{"op":"order","id":"o-7","account":7}"#, Some("account")),
            (r#"{"op":"order","id":"o-7","symbol":"BTCUSDT"} trailing"#, None),
            (r#"{"op":"order","id":"o-7","direction":["up"]}"#, Some("direction")),
        ];
        for (payload, field) in wrong {
            let refused = parse(payload.as_bytes()).expect_err(payload);
            assert_eq!(refused.id, Some(RequestId::Text("o-7".into())), "{payload}");
            assert_eq!(refused.error.field, field, "{payload}");
        }
        let numbered = parse(br#"{"id":9,"op":5}"#).expect_err("op is a number");
        assert_eq!((numbered.id, numbered.error.field), (Some(RequestId::Number(9)), Some("op")));
        let garbage = parse(b"not json").expect_err("garbage");
        assert_eq!((garbage.id, garbage.error.code), (None, "BAD_MESSAGE"));
        assert!(parse(br#"{"op":"ping","id":1}"#).is_ok());
    }
}

/// An open contract's offer for early close at the latest tick, or why there is none.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OfferView {
    contract_id: u64,
    /// What selling now would pay (USDT).
    offer: Option<Decimal>,
    /// Why there is no offer (`near_expiry`, `stale_market`, ...).
    reason: Option<&'static str>,
    /// The tick the offer is priced at.
    price: Option<Decimal>,
    tick_index: Option<u64>,
    tick_time: Option<u64>,
}

/// `order.offer`: the live offer of one open contract.
pub fn offer(
    contract: engine::types::ContractId,
    quote: &Result<engine::sale::Quote, engine::sale::NoOffer>,
) -> Bytes {
    let view = match quote {
        Ok(q) => OfferView {
            contract_id: contract.into(),
            offer: Some(q.offer.to_decimal()),
            reason: None,
            price: Some(q.tick.price),
            tick_index: Some(q.tick.index),
            tick_time: Some(q.tick.time_ms),
        },
        Err(reason) => OfferView {
            contract_id: contract.into(),
            offer: None,
            reason: Some(reason.code()),
            price: None,
            tick_index: None,
            tick_time: None,
        },
    };
    frame("order.offer", None, view)
}

/// A player's place-deciding figures in a tournament.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StandingView {
    tournament: u32,
    uid: u32,
    /// Available + in position: what ranks.
    balance: Decimal,
    available: Decimal,
    in_position: Decimal,
    rebuys: u8,
}

/// `{"type":"tournament.standing","data":{tournament, uid, balance, available, inPosition,
/// rebuys}}`: a player's tournament balance changed (to the tournament's subscribers).
pub fn tournament_standing(
    tournament: u32,
    user: UserId,
    wallet: &engine::types::Wallet,
    rebuys: u8,
) -> Bytes {
    let view = StandingView {
        tournament,
        uid: user.into(),
        balance: wallet.total().to_decimal(),
        available: wallet.available.to_decimal(),
        in_position: wallet.in_position.to_decimal(),
        rebuys,
    };
    frame("tournament.standing", None, view)
}

/// The tournament a frame is about.
#[derive(Serialize)]
struct TournamentRef {
    tournament: u32,
}

/// `{"type":"tournament.changed"|"tournament.finished","data":{tournament}}`: read it again
/// (a player entered, it was cancelled, or its final table is out).
pub fn tournament_changed(kind: &str, tournament: u32) -> Bytes {
    frame(kind, None, TournamentRef { tournament })
}
