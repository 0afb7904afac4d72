//! The candle aggregator: sequenced ticks -> the open OHLCV candle of every symbol and period.
//!
//! One [`CandleAggregator`] follows every symbol. For each symbol it holds the current (open)
//! candle of each [`Period`] in [`Period::ALL`]. A tick whose time falls in a later bucket
//! closes the open candle (reported once, `closed = true`) and opens a new one at its price.
//!
//! **Gaps.** A bucket in which no tick arrived produces no candle at all: after a quiet spell
//! the next candle simply starts at a later `open_ms`, and a chart shows the hole. Nothing is
//! forward-filled with the previous close, because a made-up flat candle would claim trades
//! that never happened (and the forex weekend would become two days of flat bars).
//!
//! **Time.** Ticks carry the sequencer's time, which the engine keeps non-decreasing. The
//! aggregator checks it: a tick older than the newest time it has seen is refused with
//! [`CandleError::OutOfOrder`] and changes nothing, so a bug upstream cannot rewrite a closed
//! candle.
//!
//! **Cost.** A tick in the same minute as its symbol's 1m candle is in the same bucket for every
//! period (all buckets are whole minutes on the same UTC grid), so the common case is one hash
//! lookup plus eight in-place folds, with no bucket arithmetic. Bucket boundaries are computed
//! only when the minute changes. Whether open-candle updates are emitted at all is chosen once
//! with [`Emit`]: the websocket fan-out wants them, the store does not.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use engine::types::Symbol;
use rust_decimal::Decimal;

use crate::types::{Candle, Period, SequencedTick};

// ---------------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------------

/// Most symbols one aggregator follows (the catalogue has about 32; admins may add products).
pub const SYMBOLS_MAX: usize = 1_024;

/// Most updates one [`CandleAggregator::on_tick`] call appends: a close and an open candle for
/// every period.
pub const UPDATES_PER_TICK_MAX: usize = 2 * PERIODS_COUNT;

/// Number of chart periods.
const PERIODS_COUNT: usize = Period::ALL.len();

/// Milliseconds in a minute: the finest bucket.
const MINUTE_MS: u64 = 60_000;

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/// Which updates [`CandleAggregator::on_tick`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// Only candles that closed. The cheapest mode: most ticks report nothing; read open
    /// candles with [`CandleAggregator::current`] when they are needed (e.g. on a timer).
    ClosedOnly,
    /// Closed candles and, after them, the updated open candle of every period.
    All,
}

/// A candle that changed because of one tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CandleUpdate {
    /// Whose candle.
    pub symbol: Symbol,
    /// Which chart period.
    pub period: Period,
    /// The candle as it stands after the tick.
    pub candle: Candle,
    /// True once, when the candle is final because a later bucket began; false while it is open.
    pub closed: bool,
}

/// Why a tick was refused.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CandleError {
    /// The tick is older than time the aggregator has already seen; the engine never emits
    /// such a tick, so this points at a caller mixing streams.
    #[error("tick at {time_ms} ms is older than {newest_ms} ms, already aggregated")]
    OutOfOrder {
        /// The refused tick's time.
        time_ms: u64,
        /// The newest time seen so far.
        newest_ms: u64,
    },
    /// A new symbol would exceed [`SYMBOLS_MAX`].
    #[error("more than {max} symbols")]
    TooManySymbols {
        /// The bound.
        max: usize,
    },
    /// A candle given to [`CandleAggregator::restore`] does not start on its period's bucket.
    #[error("candle at {open_ms} ms does not start a {period:?} bucket")]
    Misaligned {
        /// The candle's start.
        open_ms: u64,
        /// The period it was given for.
        period: Period,
    },
}

/// The open candles of one symbol, indexed like [`Period::ALL`].
#[derive(Debug)]
struct Book {
    /// Whose candles.
    symbol: Symbol,
    /// `None` before the first tick of the period, or after [`CandleAggregator::close_before`].
    current: [Option<Candle>; PERIODS_COUNT],
    /// Log index of the last tick folded into `current` (0: none since the start).
    last_index: u64,
}

/// Builds OHLCV candles of every period from sequenced ticks of many symbols.
///
/// Symbols are mapped to dense slots by a small hash map with a 16-byte multiply hasher: the
/// engine's tick carries a [`Symbol`], not a slot, and a lookup in a table of ~30 entries costs
/// a few nanoseconds, far under the per-tick budget, while sparing every caller a registration
/// step that could drift from the catalogue.
#[derive(Debug)]
pub struct CandleAggregator {
    /// Symbol -> index into `books`; assigned on a symbol's first tick, never removed.
    slots: HashMap<Symbol, u32, BuildHasherDefault<SymbolHasher>>,
    /// Open candles per symbol slot; at most [`SYMBOLS_MAX`].
    books: Vec<Book>,
    /// What `on_tick` reports.
    emit: Emit,
    /// Newest time seen (ticks and `close_before`); older ticks are refused.
    newest_ms: u64,
}

impl CandleAggregator {
    /// An empty aggregator that reports the updates `emit` selects.
    pub fn new(emit: Emit) -> CandleAggregator {
        CandleAggregator { slots: HashMap::default(), books: Vec::new(), emit, newest_ms: 0 }
    }

    /// Folds one tick into every period's candle of its symbol and appends to `out` the candles
    /// it closed (`closed = true`, shortest period first) and, with [`Emit::All`], the open
    /// candles after the tick. Appends at most [`UPDATES_PER_TICK_MAX`] updates; `out` is never
    /// cleared, so the caller bounds it by draining it.
    ///
    /// A refused tick changes nothing.
    pub fn on_tick(
        &mut self,
        tick: &SequencedTick,
        out: &mut Vec<CandleUpdate>,
    ) -> Result<(), CandleError> {
        if tick.time_ms < self.newest_ms {
            return Err(CandleError::OutOfOrder {
                time_ms: tick.time_ms,
                newest_ms: self.newest_ms,
            });
        }
        let slot = self.slot(tick.symbol)?;
        let book = &mut self.books[slot];
        let minute_ms = tick.time_ms - tick.time_ms % MINUTE_MS;
        let same_minute = matches!(&book.current[0], Some(m1) if m1.open_ms == minute_ms);
        if same_minute {
            // Every period's bucket holds this minute: fold without bucket arithmetic. A period
            // without a candle here (only after a partial `restore`) opens one.
            for (period, current) in Period::ALL.iter().zip(book.current.iter_mut()) {
                match current {
                    Some(candle) => fold(candle, tick),
                    None => *current = Some(open(period.bucket_start(tick.time_ms), tick)),
                }
            }
        } else {
            book.roll(tick, out)?;
        }
        book.last_index = tick.index;
        self.newest_ms = tick.time_ms;
        if self.emit == Emit::All {
            let book = &self.books[slot];
            for (period, candle) in Period::ALL.iter().zip(&book.current) {
                if let Some(candle) = candle {
                    out.push(CandleUpdate {
                        symbol: book.symbol,
                        period: *period,
                        candle: candle.clone(),
                        closed: false,
                    });
                }
            }
        }
        Ok(())
    }

    /// Closes every open candle whose bucket ended at or before `time_ms` (sequencer time, e.g.
    /// from a heartbeat) and appends them to `out` with `closed = true`, so a quiet symbol's last
    /// candle is final without waiting for its next tick. Ticks older than `time_ms` are refused
    /// afterwards. Appends at most one update per period and symbol.
    pub fn close_before(&mut self, time_ms: u64, out: &mut Vec<CandleUpdate>) {
        self.newest_ms = self.newest_ms.max(time_ms);
        for book in &mut self.books {
            for (period, current) in Period::ALL.iter().zip(book.current.iter_mut()) {
                let ended =
                    matches!(current, Some(c) if c.open_ms + period.duration_ms() <= time_ms);
                if let Some(candle) = current.take_if(|_| ended) {
                    out.push(CandleUpdate {
                        symbol: book.symbol,
                        period: *period,
                        candle,
                        closed: true,
                    });
                }
            }
        }
    }

    /// Log index of the last tick of `symbol` folded into its open candles (0: none yet).
    pub fn last_index(&self, symbol: Symbol) -> u64 {
        self.slots.get(&symbol).map_or(0, |&slot| self.books[slot as usize].last_index)
    }

    /// After [`CandleAggregator::restore`]: the open candles of `symbol` hold its ticks up to
    /// log index `index`.
    pub fn restore_position(&mut self, symbol: Symbol, index: u64) -> Result<(), CandleError> {
        let slot = self.slot(symbol)?;
        self.books[slot].last_index = index;
        Ok(())
    }

    /// Restored candles of several symbols were saved at different moments: the ticks that
    /// follow each are replayed in log order from the oldest, which may be older than another
    /// symbol's restored candle. The order check starts again from there.
    pub fn rewind_order_check(&mut self) {
        self.newest_ms = 0;
    }

    /// The open candle of `symbol` for `period`, if it has one.
    pub fn current(&self, symbol: Symbol, period: Period) -> Option<&Candle> {
        let slot = *self.slots.get(&symbol)?;
        self.books[slot as usize].current[period_index(period)].as_ref()
    }

    /// Every open candle of `symbol`, shortest period first.
    pub fn current_all(&self, symbol: Symbol) -> impl Iterator<Item = (Period, &Candle)> + '_ {
        let book = self.slots.get(&symbol).map(|&slot| &self.books[slot as usize]);
        book.into_iter()
            .flat_map(|book| Period::ALL.iter().zip(&book.current))
            .filter_map(|(period, candle)| candle.as_ref().map(|c| (*period, c)))
    }

    /// The symbols seen so far, in the order they first appeared.
    pub fn symbols(&self) -> impl Iterator<Item = Symbol> + '_ {
        self.books.iter().map(|book| book.symbol)
    }

    /// Newest time seen; ticks older than this are refused.
    pub fn newest_ms(&self) -> u64 {
        self.newest_ms
    }

    /// Puts back an open candle persisted before a restart, so the first ticks after the restart
    /// continue it instead of opening a second candle for the same bucket. Replaces the current
    /// candle only if `candle` is in the same or a later bucket. Ticks older than the candle's
    /// start are refused afterwards.
    pub fn restore(
        &mut self,
        symbol: Symbol,
        period: Period,
        candle: Candle,
    ) -> Result<(), CandleError> {
        if period.bucket_start(candle.open_ms) != candle.open_ms {
            return Err(CandleError::Misaligned { open_ms: candle.open_ms, period });
        }
        let slot = self.slot(symbol)?;
        let current = &mut self.books[slot].current[period_index(period)];
        if current.as_ref().is_none_or(|c| c.open_ms <= candle.open_ms) {
            self.newest_ms = self.newest_ms.max(candle.open_ms);
            *current = Some(candle);
        }
        Ok(())
    }

    /// The dense slot of `symbol`, assigned on first sight.
    fn slot(&mut self, symbol: Symbol) -> Result<usize, CandleError> {
        if let Some(&slot) = self.slots.get(&symbol) {
            return Ok(slot as usize);
        }
        if self.books.len() >= SYMBOLS_MAX {
            return Err(CandleError::TooManySymbols { max: SYMBOLS_MAX });
        }
        let slot = self.books.len();
        self.books.push(Book { symbol, current: Default::default(), last_index: 0 });
        self.slots.insert(symbol, slot as u32);
        Ok(slot)
    }
}

impl Book {
    /// The slow path, once per symbol and minute: close the candles whose bucket ended and open
    /// new ones; fold the tick into the rest. Checks every period before changing any.
    fn roll(
        &mut self,
        tick: &SequencedTick,
        out: &mut Vec<CandleUpdate>,
    ) -> Result<(), CandleError> {
        let mut starts = [0u64; PERIODS_COUNT];
        for ((start, period), current) in starts.iter_mut().zip(Period::ALL).zip(&self.current) {
            *start = period.bucket_start(tick.time_ms);
            if let Some(c) = current.as_ref().filter(|c| *start < c.open_ms) {
                // Only a restored candle newer than the tick gets here.
                return Err(CandleError::OutOfOrder {
                    time_ms: tick.time_ms,
                    newest_ms: c.open_ms,
                });
            }
        }
        for ((start, period), current) in
            starts.into_iter().zip(Period::ALL).zip(self.current.iter_mut())
        {
            match current {
                Some(candle) if candle.open_ms == start => fold(candle, tick),
                _ => {
                    let opened = open(start, tick);
                    if let Some(candle) = current.replace(opened) {
                        out.push(CandleUpdate {
                            symbol: self.symbol,
                            period,
                            candle,
                            closed: true,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// A candle opened by its bucket's first tick.
fn open(open_ms: u64, tick: &SequencedTick) -> Candle {
    Candle {
        open_ms,
        open: tick.price,
        high: tick.price,
        low: tick.price,
        close: tick.price,
        volume: tick.quantity,
        ticks: 1,
    }
}

/// Adds a tick of the same bucket to a candle.
#[inline]
fn fold(candle: &mut Candle, tick: &SequencedTick) {
    if tick.price > candle.high {
        candle.high = tick.price;
    } else if tick.price < candle.low {
        candle.low = tick.price;
    }
    candle.close = tick.price;
    // A volume beyond Decimal's range (~7.9e28) is not a real market; saturate, never panic.
    candle.volume = candle.volume.checked_add(tick.quantity).unwrap_or(Decimal::MAX);
    candle.ticks = candle.ticks.saturating_add(1);
}

/// Position of `period` in [`Period::ALL`].
fn period_index(period: Period) -> usize {
    // `Period::ALL` lists the variants in declaration order.
    period as usize
}

/// A multiply-rotate hasher (the Fx hash of rustc) for 16-byte symbol codes: a symbol's hash
/// is two 8-byte words, which SipHash would spend ~20 ns on. Not DoS-resistant, and it need not
/// be: keys are the catalogue's codes, bounded by [`SYMBOLS_MAX`].
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct SymbolHasher {
    /// Running hash.
    hash: u64,
}

/// The Fx multiplier.
const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl SymbolHasher {
    /// Folds one word into the hash.
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
    }
}

impl Hasher for SymbolHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        for &byte in chunks.remainder() {
            self.add(u64::from(byte));
        }
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().expect("test decimal")
    }

    fn sym(code: &str) -> Symbol {
        Symbol::new(code).expect("test symbol")
    }

    fn tick(code: &str, time_ms: u64, price: &str, quantity: &str) -> SequencedTick {
        SequencedTick {
            symbol: sym(code),
            price: d(price),
            quantity: d(quantity),
            time_ms,
            index: 0,
        }
    }

    /// Monday 2026-11-16 00:00 UTC.
    const MONDAY: u64 = 1_794_787_200_000;

    #[test]
    fn a_refused_tick_changes_nothing() {
        let mut agg = CandleAggregator::new(Emit::ClosedOnly);
        let mut out = Vec::new();
        agg.on_tick(&tick("BTCUSDT", MONDAY + 10_000, "100", "1"), &mut out).unwrap();
        let err = agg.on_tick(&tick("ETHUSDT", MONDAY + 9_999, "5", "1"), &mut out).unwrap_err();
        assert_eq!(
            err,
            CandleError::OutOfOrder { time_ms: MONDAY + 9_999, newest_ms: MONDAY + 10_000 }
        );
        assert!(
            agg.current(sym("ETHUSDT"), Period::M1).is_none(),
            "the refused tick opened nothing"
        );
        assert!(out.is_empty());
        assert_eq!(agg.current(sym("BTCUSDT"), Period::M1).map(|c| c.ticks), Some(1));
    }

    #[test]
    fn emit_all_reports_every_open_candle_after_the_closes() {
        let mut agg = CandleAggregator::new(Emit::All);
        let mut out = Vec::new();
        agg.on_tick(&tick("BTCUSDT", MONDAY, "100", "1"), &mut out).unwrap();
        assert_eq!(out.len(), PERIODS_COUNT);
        assert!(out.iter().all(|u| !u.closed));
        out.clear();
        agg.on_tick(&tick("BTCUSDT", MONDAY + MINUTE_MS, "101", "1"), &mut out).unwrap();
        assert_eq!(out.len(), PERIODS_COUNT + 1, "one close (1m) and eight open candles");
        assert!(out[0].closed && out[0].period == Period::M1 && out[0].candle.close == d("100"));
        assert!(out.len() <= UPDATES_PER_TICK_MAX);
    }

    #[test]
    fn close_before_closes_only_ended_buckets_and_refuses_older_ticks() {
        let mut agg = CandleAggregator::new(Emit::ClosedOnly);
        let mut out = Vec::new();
        agg.on_tick(&tick("EURUSD", MONDAY + 30_000, "1.1", "0"), &mut out).unwrap();
        agg.close_before(MONDAY + 5 * MINUTE_MS, &mut out);
        let closed: Vec<Period> = out.iter().map(|u| u.period).collect();
        assert_eq!(closed, vec![Period::M1, Period::M5]);
        assert!(agg.current(sym("EURUSD"), Period::M1).is_none());
        assert!(agg.current(sym("EURUSD"), Period::M15).is_some());
        assert!(agg.on_tick(&tick("EURUSD", MONDAY + 60_000, "1.2", "0"), &mut out).is_err());
        out.clear();
        agg.on_tick(&tick("EURUSD", MONDAY + 5 * MINUTE_MS, "1.2", "0"), &mut out).unwrap();
        assert!(out.is_empty(), "closed candles are not reported twice");
        assert_eq!(
            agg.current(sym("EURUSD"), Period::M15).map(|c| (c.ticks, c.open)),
            Some((2, d("1.1")))
        );
    }

    #[test]
    fn restore_continues_the_persisted_candle() {
        let mut agg = CandleAggregator::new(Emit::ClosedOnly);
        let persisted = Candle {
            open_ms: MONDAY,
            open: d("10"),
            high: d("12"),
            low: d("9"),
            close: d("11"),
            volume: d("3"),
            ticks: 3,
        };
        agg.restore(sym("SOLUSDT"), Period::H1, persisted.clone()).unwrap();
        let mut out = Vec::new();
        agg.on_tick(&tick("SOLUSDT", MONDAY + 20 * MINUTE_MS, "13", "1"), &mut out).unwrap();
        let h1 = agg.current(sym("SOLUSDT"), Period::H1).unwrap();
        assert_eq!(
            (h1.open, h1.high, h1.low, h1.close, h1.volume, h1.ticks),
            (d("10"), d("13"), d("9"), d("13"), d("4"), 4)
        );
        assert!(out.is_empty());
        let misaligned = Candle { open_ms: MONDAY + 1, ..persisted };
        assert!(matches!(
            agg.restore(sym("SOLUSDT"), Period::H1, misaligned),
            Err(CandleError::Misaligned { .. })
        ));
    }

    #[test]
    fn symbols_beyond_the_bound_are_refused() {
        let mut agg = CandleAggregator::new(Emit::ClosedOnly);
        let mut out = Vec::new();
        for i in 0..SYMBOLS_MAX {
            agg.on_tick(&tick(&format!("S{i:04}"), MONDAY, "1", "1"), &mut out).unwrap();
        }
        let err = agg.on_tick(&tick("EXTRA", MONDAY, "1", "1"), &mut out).unwrap_err();
        assert_eq!(err, CandleError::TooManySymbols { max: SYMBOLS_MAX });
        assert_eq!(agg.symbols().count(), SYMBOLS_MAX);
    }
}
