//! OKX's public websocket (API v5): the second live exchange, beside Binance.
//!
//! The connection, reconnects, rotation and delivery are [`super`]'s; this module
//! holds what differs, as OKX documents it for `wss://ws.okx.com:8443/ws/v5/public`:
//! - Subscribe after connecting with
//!   `{"op":"subscribe","args":[{"channel":"trades","instId":"BTC-USDT"},…]}`; OKX confirms each
//!   argument with `{"event":"subscribe","arg":{…},"connId":"…"}` and refuses with
//!   `{"event":"error","code":"60018","msg":"…","connId":"…"}`, which ends the source
//!   ([`crate::source::SourceError::Rejected`]): a wrong instrument is not fixed by retrying. Every new
//!   connection subscribes again.
//! - Data: `{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT",
//!   "tradeId":"…","px":"42219.9","sz":"0.12","side":"buy","ts":"1630048897897","count":"3"},
//!   …]}`. One frame may carry several trades; `count` > 1 is one taker order's fills at one
//!   price, already summed in `sz`. `tickers` pushes carry the last price `last` at `ts` and are
//!   passed on as quotes (quantity 0). Numbers are strings, `ts` included.
//! - Keepalive is the client's: OKX closes a connection that has pushed nothing for 30 s. The
//!   client sends the text `ping` after N < 30 s without a message and expects the text `pong`;
//!   without it, it reconnects. The adapter pings after
//!   [`OKX_PING_AFTER_MS`](crate::source::constants::OKX_PING_AFTER_MS) of quiet and reconnects
//!   [`OKX_SILENCE_TIMEOUT_MS`](crate::source::constants::OKX_SILENCE_TIMEOUT_MS) after the last frame.
//! - `{"event":"notice","code":"64008",…}` announces that the server will close the connection
//!   for an upgrade: the adapter reconnects at once.
//! - OKX allows 3 connection attempts per second per IP: the backoff (first delay 0.25 to 0.5 s,
//!   doubling) stays under it.
//! - Instruments are `BASE-QUOTE` (`BTC-USDT`), derived from the product's display name.

use rust_decimal::Decimal;
use serde_json::Value;

use super::{exact, Incoming, SymbolTable};
use crate::source::at_precision;
use crate::types::RawTick;

/// The subscription request for `channel` of every instrument.
pub(super) fn subscription<'a>(
    channel: &str,
    instruments: impl Iterator<Item = &'a str>,
) -> String {
    let args: Vec<Value> =
        instruments.map(|id| serde_json::json!({ "channel": channel, "instId": id })).collect();
    serde_json::json!({ "op": "subscribe", "args": args }).to_string()
}

/// Reads one text frame.
pub(super) fn parse_frame(text: &str, symbols: &SymbolTable) -> Result<Incoming, String> {
    if text == "pong" {
        return Ok(Incoming::Pong);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if let Some(event) = value.get("event").and_then(Value::as_str) {
        return Ok(match event {
            "subscribe" => Incoming::Subscribed,
            "error" => Incoming::Refused(value.to_string()),
            "notice" => Incoming::Shutdown,
            _ => Incoming::Ignored,
        });
    }
    let channel = value.pointer("/arg/channel").and_then(Value::as_str);
    let Some(data) = value.get("data").and_then(Value::as_array) else {
        return Ok(Incoming::Ignored);
    };
    let mut ticks = Vec::new();
    for item in data {
        let Some(theirs) = item.get("instId").and_then(Value::as_str) else {
            return Err("a push without instId".to_owned());
        };
        let Some(&(symbol, precision)) = symbols.get(theirs) else { continue };
        let (price, quantity) = match channel {
            Some("trades" | "trades-all") => (exact(item, "px")?, exact(item, "sz")?),
            Some("tickers") => (exact(item, "last")?, Decimal::ZERO),
            _ => return Ok(Incoming::Ignored),
        };
        let ts = item.get("ts").and_then(Value::as_str).ok_or("no string \"ts\"")?;
        let source_ms: u64 = ts.parse().map_err(|_| format!("\"ts\" = {ts:?} is not ms"))?;
        if price <= Decimal::ZERO || quantity.is_sign_negative() {
            return Err(format!("{theirs}: price {price} or quantity {quantity} out of range"));
        }
        // The exchange is the authority: a finer price passes unchanged; one that fits is
        // presented at the precision.
        let price = at_precision(price, precision).unwrap_or(price);
        ticks.push(RawTick { symbol, price, quantity: quantity.normalize(), source_ms });
    }
    Ok(if ticks.is_empty() { Incoming::Ignored } else { Incoming::Ticks(ticks) })
}

#[cfg(test)]
mod tests {
    use engine::types::Symbol;

    use super::*;

    fn table() -> SymbolTable {
        let mut t = SymbolTable::new();
        t.insert("BTC-USDT".into(), (Symbol::new("BTCUSDT").expect("valid"), 2));
        t.insert("ETH-USDT".into(), (Symbol::new("ETHUSDT").expect("valid"), 2));
        t
    }

    #[test]
    fn a_trade_push_gives_every_trade_of_ours_exactly() {
        let frame = r#"{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","tradeId":"1","px":"96500.1","sz":"0.002","side":"buy","ts":"1732000000100","count":"1"},{"instId":"BTC-USDT","tradeId":"2","px":"96500.123","sz":"0.5","side":"sell","ts":"1732000000101","count":"3"},{"instId":"DOGE-USDT","tradeId":"3","px":"0.4","sz":"1","side":"sell","ts":"1732000000102","count":"1"}]}"#;
        let Ok(Incoming::Ticks(ticks)) = parse_frame(frame, &table()) else {
            panic!("expected ticks from {frame}");
        };
        let seen: Vec<(String, String, u64)> = ticks
            .iter()
            .map(|t| (t.price.to_string(), t.quantity.to_string(), t.source_ms))
            .collect();
        assert_eq!(
            seen,
            [
                ("96500.10".into(), "0.002".into(), 1_732_000_000_100),
                ("96500.123".into(), "0.5".into(), 1_732_000_000_101),
            ],
            "at the precision when it fits; finer prices unchanged; other instruments skipped"
        );
    }

    #[test]
    fn tickers_are_quotes_at_the_last_price() {
        let frame = r#"{"arg":{"channel":"tickers","instId":"ETH-USDT"},"data":[{"instType":"SPOT","instId":"ETH-USDT","last":"3420.5","lastSz":"0.1","askPx":"3420.6","bidPx":"3420.5","ts":"1732000000500"}]}"#;
        let Ok(Incoming::Ticks(ticks)) = parse_frame(frame, &table()) else { panic!("ticks") };
        assert_eq!(
            (ticks[0].price.to_string(), ticks[0].quantity),
            ("3420.50".into(), Decimal::ZERO)
        );
    }

    #[test]
    fn events_pongs_and_bad_frames_are_told_apart() {
        let t = table();
        assert_eq!(parse_frame("pong", &t), Ok(Incoming::Pong));
        assert_eq!(
            parse_frame(
                r#"{"event":"subscribe","arg":{"channel":"trades","instId":"BTC-USDT"},"connId":"a4d3ae55"}"#,
                &t
            ),
            Ok(Incoming::Subscribed)
        );
        assert!(matches!(
            parse_frame(r#"{"event":"error","code":"60018","msg":"Wrong URL or channel:trades,instId:FOO-USDT doesn't exist.","connId":"a4d3ae55"}"#, &t),
            Ok(Incoming::Refused(reply)) if reply.contains("60018")
        ));
        assert_eq!(
            parse_frame(
                r#"{"event":"notice","code":"64008","msg":"The connection will soon be closed for a service upgrade. Please reconnect.","connId":"a4d3ae55"}"#,
                &t
            ),
            Ok(Incoming::Shutdown)
        );
        assert!(parse_frame("ping?", &t).is_err());
        let numbers = r#"{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","px":96500.1,"sz":"1","ts":"1"}]}"#;
        assert!(parse_frame(numbers, &t).is_err(), "prices are strings");
        let negative = r#"{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","px":"-1","sz":"1","ts":"1"}]}"#;
        assert!(parse_frame(negative, &t).is_err());
    }

    #[test]
    fn the_subscription_names_every_instrument() {
        let text = subscription("trades", ["BTC-USDT", "ETH-USDT"].into_iter());
        let value: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(value["op"], "subscribe");
        assert_eq!(value["args"][1]["instId"], "ETH-USDT");
        assert_eq!(value["args"][0]["channel"], "trades");
    }
}
