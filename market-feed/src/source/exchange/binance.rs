//! Binance's public market streams, as Binance documents them for spot market streams. The
//! connection, reconnects, rotation and delivery are [`super`]'s; this module holds what is
//! Binance's own:
//! - Connect to the combined-stream endpoint (`…/stream`); events arrive wrapped as
//!   `{"stream":"btcusdt@trade","data":{…}}` (raw `/ws` payloads without the wrapper are
//!   accepted too).
//! - Subscribe after connecting with `{"method":"SUBSCRIBE","params":["btcusdt@trade",…],"id":N}`
//!   (stream names are lower case). The reply `{"result":null,"id":N}` confirms it; an error
//!   reply (`{"code":…,"msg":…,"id":N}`) is a refusal.
//! - The server pings every 20 s and disconnects a client that does not pong within a minute.
//!   tungstenite queues the pong when it reads the ping; the adapter flushes it at once.
//! - A connection lives at most 24 h; a `serverShutdown` event asks for a new one at once.
//! - Lost connections are retried from 0.5 s doubling to 30 s.
//! - At most [`EXCHANGE_STREAMS_MAX`](crate::source::constants::EXCHANGE_STREAMS_MAX) streams
//!   per connection.
//!
//! Events: `trade` and `aggTrade` give price `p`, quantity `q` and trade time `T`; `24hrTicker`
//! gives the last price `c` at event time `E` as a quote (quantity 0); `bookTicker` gives the
//! mid of best bid `b` and ask `a`, rounded half-even to the instrument's precision, as a quote
//! stamped with the local clock. Prices and quantities arrive as strings and are parsed
//! exactly; a price with more decimals than the instrument's precision is passed on unchanged
//! (the exchange is the authority), one that fits is presented at the precision.

use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::Value;

use super::{exact, Incoming, SymbolTable};
use crate::source::at_precision;
use crate::types::RawTick;

/// Reads one text frame. `now_ms` stamps quotes that carry no time.
pub(super) fn parse_frame(
    text: &str,
    symbols: &SymbolTable,
    now_ms: u64,
) -> Result<Incoming, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if let Some(id) = value.get("id") {
        if value.get("code").is_some() || value.get("error").is_some() {
            return Ok(Incoming::Refused(value.to_string()));
        }
        return id.as_u64().map(Incoming::Confirmed).ok_or_else(|| format!("odd reply id {id}"));
    }
    let data = value.get("data").unwrap_or(&value);
    let event = data.get("e").and_then(Value::as_str);
    if event == Some("serverShutdown") {
        return Ok(Incoming::Shutdown);
    }
    let Some(theirs) = data.get("s").and_then(Value::as_str) else { return Ok(Incoming::Ignored) };
    let Some(&(symbol, precision)) = symbols.get(theirs) else { return Ok(Incoming::Ignored) };
    let (price, quantity, source_ms) = match event {
        Some("trade" | "aggTrade") => {
            let at = number(data, "T").or_else(|_| number(data, "E"))?;
            (exact(data, "p")?, exact(data, "q")?, at)
        }
        Some("24hrTicker") => (exact(data, "c")?, Decimal::ZERO, number(data, "E")?),
        None if data.get("b").is_some() && data.get("a").is_some() => {
            let mid = (exact(data, "b")? + exact(data, "a")?) / Decimal::TWO;
            let mid = mid.round_dp_with_strategy(
                u32::from(precision),
                RoundingStrategy::MidpointNearestEven,
            );
            (mid, Decimal::ZERO, number(data, "E").unwrap_or(now_ms))
        }
        _ => return Ok(Incoming::Ignored),
    };
    if price <= Decimal::ZERO || quantity.is_sign_negative() {
        return Err(format!("{theirs}: price {price} or quantity {quantity} out of range"));
    }
    let price = at_precision(price, precision).unwrap_or(price);
    Ok(Incoming::Tick(RawTick { symbol, price, quantity: quantity.normalize(), source_ms }))
}

/// A whole number field (ms timestamps).
fn number(data: &Value, field: &str) -> Result<u64, String> {
    data.get(field).and_then(Value::as_u64).ok_or_else(|| format!("no number {field:?}"))
}

#[cfg(test)]
mod tests {
    use engine::types::Symbol;

    use super::*;

    fn table() -> SymbolTable {
        let mut t = SymbolTable::new();
        t.insert("BTCUSDT".into(), (Symbol::new("BTCUSDT").expect("valid"), 2));
        t.insert("XRPUSDT".into(), (Symbol::new("XRPUSDT").expect("valid"), 4));
        t
    }

    fn tick(text: &str) -> RawTick {
        match parse_frame(text, &table(), 7) {
            Ok(Incoming::Tick(t)) => t,
            other => panic!("expected a tick from {text}, got {other:?}"),
        }
    }

    #[test]
    fn trades_parse_exactly_and_keep_the_trade_time() {
        let t = tick(
            r#"{"stream":"btcusdt@trade","data":{"e":"trade","E":1732000000100,"s":"BTCUSDT","t":1,"p":"96500.10000000","q":"0.00200000","T":1732000000099,"m":true,"M":true}}"#,
        );
        assert_eq!(t.price.to_string(), "96500.10", "presented at the precision");
        assert_eq!(t.quantity.to_string(), "0.002");
        assert_eq!(t.source_ms, 1_732_000_000_099);
        let raw = tick(
            r#"{"e":"aggTrade","E":5,"s":"XRPUSDT","a":1,"p":"1.45010","q":"300","f":1,"l":2,"T":4,"m":false,"M":true}"#,
        );
        assert_eq!((raw.price, raw.source_ms), (Decimal::new(14_501, 4), 4));
    }

    #[test]
    fn finer_prices_than_the_precision_pass_unchanged() {
        let t = tick(r#"{"e":"trade","E":1,"s":"BTCUSDT","p":"96500.123","q":"1","T":1}"#);
        assert_eq!(t.price, Decimal::new(96_500_123, 3));
    }

    #[test]
    fn quotes_are_mid_prices_or_last_prices_with_no_quantity() {
        let book = tick(r#"{"u":1,"s":"BTCUSDT","b":"96500.10","B":"1","a":"96500.13","A":"2"}"#);
        assert_eq!(
            (book.price.to_string(), book.quantity, book.source_ms),
            ("96500.12".into(), Decimal::ZERO, 7)
        );
        let ticker = tick(
            r#"{"stream":"btcusdt@ticker","data":{"e":"24hrTicker","E":9,"s":"BTCUSDT","c":"96000.00","Q":"0.1"}}"#,
        );
        assert_eq!(
            (ticker.price, ticker.quantity, ticker.source_ms),
            (Decimal::new(9_600_000, 2), Decimal::ZERO, 9)
        );
    }

    #[test]
    fn replies_shutdowns_and_strangers_are_told_apart() {
        let t = table();
        assert_eq!(parse_frame(r#"{"result":null,"id":3}"#, &t, 0), Ok(Incoming::Confirmed(3)));
        assert!(matches!(
            parse_frame(r#"{"code":2,"msg":"Invalid request","id":3}"#, &t, 0),
            Ok(Incoming::Refused(_))
        ));
        assert_eq!(parse_frame(r#"{"e":"serverShutdown","E":1}"#, &t, 0), Ok(Incoming::Shutdown));
        assert_eq!(
            parse_frame(r#"{"e":"trade","s":"DOGEUSDT","p":"1","q":"1","T":1}"#, &t, 0),
            Ok(Incoming::Ignored)
        );
        assert!(parse_frame("not json", &t, 0).is_err());
        assert!(
            parse_frame(r#"{"e":"trade","s":"BTCUSDT","p":1.5,"q":"1","T":1}"#, &t, 0).is_err(),
            "numbers must be strings"
        );
        assert!(
            parse_frame(r#"{"e":"trade","s":"BTCUSDT","p":"-1","q":"1","T":1}"#, &t, 0).is_err()
        );
    }
}
