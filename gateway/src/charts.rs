//! A chart's history served from bytes already made.
//!
//! Every trader who opens a chart, or reconnects after a restart, asks for the same newest
//! candles of a product and period. Stored candles change only when the candle store is
//! written (a minute closes), so each (product, period) keeps its stored candles encoded as
//! the API writes them, with the store's write count they were read at; a request copies the
//! newest of them and puts the forming candle, which changes with every tick, on top.

use std::sync::{Arc, Mutex};

use bytes::{BufMut, Bytes, BytesMut};
use engine::types::Symbol;
use market_feed::market::MarketData;
use market_feed::store::StoreError;
use market_feed::types::{Candle, Period};
use rustc_hash::FxHashMap;
use serde::Serialize;
use utoipa::ToSchema;

/// Most candles one request may ask for, and how many each page keeps encoded.
pub const CANDLES_MAX: usize = 1_000;

/// A candle as the API writes it.
#[derive(Debug, Serialize, ToSchema)]
pub struct CandleView {
    /// Open time (ms).
    pub time: u64,
    /// First trade price in the period.
    pub open: String,
    /// Highest trade price in the period.
    pub high: String,
    /// Lowest trade price in the period.
    pub low: String,
    /// Last trade price in the period (the latest price while the candle is open).
    pub close: String,
    /// Volume traded in the period, as the feed reports it.
    pub volume: String,
}

impl From<&Candle> for CandleView {
    fn from(c: &Candle) -> Self {
        CandleView {
            time: c.open_ms,
            open: c.open.to_string(),
            high: c.high.to_string(),
            low: c.low.to_string(),
            close: c.close.to_string(),
            volume: c.volume.to_string(),
        }
    }
}

/// The stored candles of one product and period, each encoded, oldest first.
#[derive(Debug)]
pub struct Page {
    /// The store's write count when they were read.
    writes: u64,
    /// Open time and JSON of each candle.
    candles: Vec<(u64, Bytes)>,
}

/// The encoded pages, one per product and period asked for (at most every product times
/// eight periods, each at most [`CANDLES_MAX`] candles of about 130 bytes).
#[derive(Debug, Default)]
pub struct Charts {
    pages: Mutex<FxHashMap<(Symbol, Period), Arc<Page>>>,
}

impl Charts {
    /// The page kept for `symbol` and `period`, if it is still what the store holds.
    pub fn fresh(&self, market: &MarketData, symbol: Symbol, period: Period) -> Option<Arc<Page>> {
        let page = self.lock().get(&(symbol, period)).cloned()?;
        (page.writes == market.candle_writes()).then_some(page)
    }

    /// Reads the page of `symbol` and `period` from the store again and keeps it (blocking:
    /// call it off the async workers).
    pub fn refresh(
        &self,
        market: &MarketData,
        symbol: Symbol,
        period: Period,
    ) -> Result<Arc<Page>, StoreError> {
        let (writes, stored) = market.stored_candles(symbol, period, CANDLES_MAX)?;
        let candles = stored.iter().map(|c| (c.open_ms, encode(c))).collect();
        let page = Arc::new(Page { writes, candles });
        self.lock().insert((symbol, period), Arc::clone(&page));
        Ok(page)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FxHashMap<(Symbol, Period), Arc<Page>>> {
        self.pages.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The API's whole answer (`{success, data, message}`): the newest `limit` candles of
/// `page` with the forming candle of `symbol` and `period` on top.
pub fn answer(
    page: &Page,
    market: &MarketData,
    symbol: Symbol,
    period: Period,
    limit: usize,
) -> Bytes {
    envelope(&page.candles, market.open_candle(symbol, period).as_ref(), limit)
}

fn encode(candle: &Candle) -> Bytes {
    // A struct of numbers and strings always serialises.
    serde_json::to_vec(&CandleView::from(candle)).unwrap_or_default().into()
}

/// The answer: the newest of `stored` with `open` merged on top (it replaces a stored copy
/// of itself, is left out if the store already holds a newer candle), at most `limit`.
fn envelope(stored: &[(u64, Bytes)], open: Option<&Candle>, limit: usize) -> Bytes {
    let mut stored = stored;
    let mut top = None;
    if let Some(open) = open {
        match stored.last() {
            Some((last, _)) if *last > open.open_ms => {}
            Some((last, _)) if *last == open.open_ms => {
                stored = &stored[..stored.len() - 1];
                top = Some(encode(open));
            }
            _ => top = Some(encode(open)),
        }
    }
    let room = limit.saturating_sub(usize::from(top.is_some()));
    let stored = &stored[stored.len().saturating_sub(room)..];
    let items = stored.iter().map(|(_, json)| json).chain(top.as_ref());
    let size: usize = stored.iter().map(|(_, json)| json.len() + 1).sum::<usize>() + 256;
    let mut out = BytesMut::with_capacity(size);
    out.put_slice(br#"{"success":true,"data":["#);
    for (i, json) in items.enumerate() {
        if i > 0 {
            out.put_u8(b',');
        }
        out.put_slice(json);
    }
    out.put_slice(br#"],"message":"OK"}"#);
    out.freeze()
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;

    use super::*;

    fn candle(open_ms: u64, close: i64) -> Candle {
        let price = Decimal::from(close);
        Candle {
            open_ms,
            open: price,
            high: price,
            low: price,
            close: price,
            volume: Decimal::ONE,
            ticks: 1,
        }
    }

    fn times(answer: &Bytes) -> Vec<u64> {
        let value: serde_json::Value = serde_json::from_slice(answer).unwrap();
        assert_eq!(
            (value["success"].as_bool(), value["message"].as_str()),
            (Some(true), Some("OK"))
        );
        value["data"].as_array().unwrap().iter().map(|c| c["time"].as_u64().unwrap()).collect()
    }

    #[test]
    fn the_forming_candle_goes_on_top_of_a_full_page() {
        let stored: Vec<_> = (1..=5).map(|t| (t, encode(&candle(t, 10)))).collect();
        assert_eq!(times(&envelope(&stored, Some(&candle(6, 11)), 3)), [4, 5, 6]);
        // It replaces the store's copy of itself, with its newer price.
        let answer = envelope(&stored, Some(&candle(5, 12)), 3);
        assert_eq!(times(&answer), [3, 4, 5]);
        let value: serde_json::Value = serde_json::from_slice(&answer).unwrap();
        assert_eq!(value["data"][2]["close"], "12");
        // An older one (the store is ahead) is left out; none at all is fine.
        assert_eq!(times(&envelope(&stored, Some(&candle(2, 1)), 2)), [4, 5]);
        assert_eq!(times(&envelope(&stored, None, 10)), [1, 2, 3, 4, 5]);
        assert_eq!(times(&envelope(&[], None, 10)), Vec::<u64>::new());
    }

    #[test]
    fn a_candle_is_written_as_the_api_writes_it() {
        let json: serde_json::Value = serde_json::from_slice(&encode(&candle(60_000, 7))).unwrap();
        let view = serde_json::to_value(CandleView::from(&candle(60_000, 7))).unwrap();
        assert_eq!(json, view);
        assert_eq!(json["open"], "7");
    }
}
