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

/// The stored candles of one product and period, encoded and joined with commas, oldest
/// first, so that the newest `k` of them are one slice of shared bytes.
#[derive(Debug)]
pub struct Page {
    /// The store's write count when they were read.
    writes: u64,
    /// Each candle's open time.
    times: Vec<u64>,
    /// Where each candle's JSON starts in `joined`.
    starts: Vec<usize>,
    /// Every candle's JSON, comma-separated.
    joined: Bytes,
}

impl Page {
    fn new(writes: u64, candles: &[Candle]) -> Page {
        let mut joined = BytesMut::with_capacity(candles.len() * 140);
        let mut starts = Vec::with_capacity(candles.len());
        for (i, candle) in candles.iter().enumerate() {
            if i > 0 {
                joined.put_u8(b',');
            }
            starts.push(joined.len());
            joined.put_slice(&encode(candle));
        }
        let times = candles.iter().map(|c| c.open_ms).collect();
        Page { writes, times, starts, joined: joined.freeze() }
    }

    /// The JSON of candles `from..to` (indexes), commas between them, without a copy.
    fn slice(&self, from: usize, to: usize) -> Bytes {
        if from >= to {
            return Bytes::new();
        }
        let end = self.starts.get(to).map_or(self.joined.len(), |next| next - 1);
        self.joined.slice(self.starts[from]..end)
    }
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
        let page = Arc::new(Page::new(writes, &stored));
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
) -> Answer {
    envelope(page, market.open_candle(symbol, period).as_ref(), limit)
}

fn encode(candle: &Candle) -> Vec<u8> {
    // A struct of numbers and strings always serialises.
    serde_json::to_vec(&CandleView::from(candle)).unwrap_or_default()
}

/// The answer: the newest of `page` with `open` merged on top (it replaces a stored copy of
/// itself, and is left out if the store already holds a newer candle), at most `limit`.
fn envelope(page: &Page, open: Option<&Candle>, limit: usize) -> Answer {
    let mut stored = page.times.len();
    let mut top = None;
    if let Some(open) = open {
        match page.times.last() {
            Some(last) if *last > open.open_ms => {}
            Some(last) if *last == open.open_ms => {
                stored -= 1;
                top = Some(encode(open));
            }
            _ => top = Some(encode(open)),
        }
    }
    let room = limit.saturating_sub(usize::from(top.is_some()));
    let from = stored.saturating_sub(room);
    let mut chunks =
        vec![Bytes::from_static(br#"{"success":true,"data":["#), page.slice(from, stored)];
    if let Some(top) = top {
        let comma: &[u8] = if from < stored { b"," } else { b"" };
        chunks.push(Bytes::from([comma, &top].concat()));
    }
    chunks.push(Bytes::from_static(br#"],"message":"OK"}"#));
    Answer::new(chunks)
}

/// A whole answer as a few chunks of shared bytes, with its exact length.
#[derive(Debug)]
pub struct Answer {
    chunks: std::collections::VecDeque<Bytes>,
    left: u64,
}

impl Answer {
    fn new(chunks: Vec<Bytes>) -> Answer {
        let left = chunks.iter().map(|c| c.len() as u64).sum();
        Answer { chunks: chunks.into_iter().filter(|c| !c.is_empty()).collect(), left }
    }
}

impl http_body::Body for Answer {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        let chunk = this.chunks.pop_front();
        if let Some(chunk) = &chunk {
            this.left -= chunk.len() as u64;
        }
        std::task::Poll::Ready(chunk.map(|c| Ok(http_body::Frame::data(c))))
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.left)
    }
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

    fn bytes(answer: Answer) -> Vec<u8> {
        let length = answer.left;
        let out: Vec<u8> = answer.chunks.iter().flat_map(|c| c.iter().copied()).collect();
        assert_eq!(out.len() as u64, length, "the length told is the length sent");
        out
    }

    fn times(answer: Answer) -> Vec<u64> {
        let value: serde_json::Value = serde_json::from_slice(&bytes(answer)).unwrap();
        assert_eq!(
            (value["success"].as_bool(), value["message"].as_str()),
            (Some(true), Some("OK"))
        );
        value["data"].as_array().unwrap().iter().map(|c| c["time"].as_u64().unwrap()).collect()
    }

    #[test]
    fn the_forming_candle_goes_on_top_of_a_full_page() {
        let stored: Vec<_> = (1..=5).map(|t| candle(t, 10)).collect();
        let page = Page::new(0, &stored);
        assert_eq!(times(envelope(&page, Some(&candle(6, 11)), 3)), [4, 5, 6]);
        // It replaces the store's copy of itself, with its newer price.
        let answer = bytes(envelope(&page, Some(&candle(5, 12)), 3));
        let value: serde_json::Value = serde_json::from_slice(&answer).unwrap();
        assert_eq!(value["data"][2]["close"], "12");
        assert_eq!(value["data"].as_array().unwrap().len(), 3);
        // An older one (the store is ahead) is left out; none at all is fine.
        assert_eq!(times(envelope(&page, Some(&candle(2, 1)), 2)), [4, 5]);
        assert_eq!(times(envelope(&page, None, 10)), [1, 2, 3, 4, 5]);
        let empty = Page::new(0, &[]);
        assert_eq!(times(envelope(&empty, None, 10)), Vec::<u64>::new());
        assert_eq!(times(envelope(&empty, Some(&candle(7, 1)), 10)), [7]);
        // Only the forming candle fits.
        assert_eq!(times(envelope(&page, Some(&candle(6, 11)), 1)), [6]);
    }

    #[test]
    fn a_candle_is_written_as_the_api_writes_it() {
        let json: serde_json::Value = serde_json::from_slice(&encode(&candle(60_000, 7))).unwrap();
        let view = serde_json::to_value(CandleView::from(&candle(60_000, 7))).unwrap();
        assert_eq!(json, view);
        assert_eq!(json["open"], "7");
    }
}
