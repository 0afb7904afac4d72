//! Rolling 24-hour statistics per symbol, kept over a ring of 1440 one-minute slots.
//!
//! [`RollingStats`] is fed 1-minute candles: the aggregator's closed M1 candles and, as often
//! as fresh figures are wanted, its open M1 candle ([`CandleAggregator::current`]). Feeding the
//! same minute again replaces that minute's slot, so the open minute may be fed on every tick
//! or once a second; either way the statistics cost nothing per tick beyond the aggregator's
//! own work, and high, low and volume cost at most one scan of 1440 slots when the minute
//! holding the extreme rolls out.
//!
//! **The window** of a symbol is the 1440 minutes ending with the newest minute seen: the newest
//! candle fed for that symbol, or the time passed to [`RollingStats::advance_to`], whichever is
//! later. Minutes without ticks (gaps, the forex weekend) are empty slots and count for nothing.
//!
//! **Definitions** ([`Stats24h`]):
//! - `open`: the open of the oldest non-empty minute in the window, the price 24 h ago. While
//!   the window is not yet full (less than 24 h of history) that is the first price seen.
//! - `high`, `low`, `volume`: over the non-empty minutes in the window.
//! - `close`: the latest price (the close of the newest minute fed).
//! - `change = close - open`; `change_percent = change / open x 100`, rounded half-even to 2
//!   decimals (the platform's one rounding rule, decisions.md §2), 0 when open is 0.
//! - A window that holds no minute at all (no tick for 24 h, e.g. Saturday for forex once
//!   `advance_to` moved past Friday) reports the last price as open, high, low and close, with
//!   zero volume and zero change: the market is quiet, not gone.
//!
//! [`CandleAggregator::current`]: crate::candles::CandleAggregator::current

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use engine::types::Symbol;
use rust_decimal::{Decimal, RoundingStrategy};

use crate::candles::{CandleUpdate, SymbolHasher};
use crate::types::{Candle, Period, Stats24h};

// ---------------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------------

/// Minutes in the rolling window: 24 h.
pub const WINDOW_MINUTES: u64 = 1_440;

/// Most symbols tracked; the same bound as the aggregator's.
pub const SYMBOLS_MAX: usize = crate::candles::SYMBOLS_MAX;

/// Milliseconds in a minute.
const MINUTE_MS: u64 = 60_000;

/// Decimal places of `change_percent`.
const CHANGE_PERCENT_DP: u32 = 2;

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/// Why a candle was refused.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StatsError {
    /// A new symbol would exceed [`SYMBOLS_MAX`].
    #[error("more than {max} symbols")]
    TooManySymbols {
        /// The bound.
        max: usize,
    },
    /// The candle does not start on a minute, so it is not a 1-minute candle.
    #[error("candle at {open_ms} ms does not start a minute")]
    NotAMinute {
        /// The candle's start.
        open_ms: u64,
    },
}

/// One minute of the ring.
#[derive(Clone, Debug)]
struct Minute {
    /// Minute number since the epoch, or [`EMPTY`] when no tick fell in the slot's minute.
    minute: u64,
    /// First price of the minute.
    open: Decimal,
    /// Highest price.
    high: Decimal,
    /// Lowest price.
    low: Decimal,
    /// Quantity traded.
    volume: Decimal,
}

/// Marks an empty slot.
const EMPTY: u64 = u64::MAX;

impl Minute {
    /// An empty slot.
    const VACANT: Minute = Minute {
        minute: EMPTY,
        open: Decimal::ZERO,
        high: Decimal::ZERO,
        low: Decimal::ZERO,
        volume: Decimal::ZERO,
    };

    /// True if a tick fell in this slot's minute.
    fn is_filled(&self) -> bool {
        self.minute != EMPTY
    }
}

/// The 24 h window of one symbol.
#[derive(Debug)]
struct Window {
    /// Slot `m % WINDOW_MINUTES` holds minute `m`; every filled slot is inside the window.
    ring: Box<[Minute]>,
    /// Newest minute of the window (its end); `None` before the first candle.
    newest: Option<u64>,
    /// Oldest filled minute in the window; `None` when the window is empty.
    oldest: Option<u64>,
    /// Highest price over the filled minutes (meaningless when empty).
    high: Decimal,
    /// Lowest price over the filled minutes (meaningless when empty).
    low: Decimal,
    /// Volume over the filled minutes; exact, since Decimal sums and differences are exact.
    volume: Decimal,
    /// Newest minute fed and its close: the latest price, kept when the window empties.
    last: (u64, Decimal),
}

/// Rolling 24 h statistics for many symbols.
#[derive(Debug, Default)]
pub struct RollingStats {
    /// Symbol -> index into `windows`.
    slots: HashMap<Symbol, u32, BuildHasherDefault<SymbolHasher>>,
    /// One window per symbol, at most [`SYMBOLS_MAX`].
    windows: Vec<Window>,
}

impl RollingStats {
    /// No symbols yet.
    pub fn new() -> RollingStats {
        RollingStats::default()
    }

    /// Feeds the 1-minute candle `candle` of `symbol` (closed or still open). A minute fed again
    /// replaces its earlier version; a minute older than the window is ignored (returns false).
    pub fn on_candle(&mut self, symbol: Symbol, candle: &Candle) -> Result<bool, StatsError> {
        if !candle.open_ms.is_multiple_of(MINUTE_MS) {
            return Err(StatsError::NotAMinute { open_ms: candle.open_ms });
        }
        let minute = candle.open_ms / MINUTE_MS;
        let slot = match self.slots.get(&symbol) {
            Some(&slot) => slot as usize,
            None => self.add(symbol, minute, candle.close)?,
        };
        Ok(self.windows[slot].put(minute, candle))
    }

    /// Feeds the 1-minute candles among `updates` (the aggregator's output), in order.
    pub fn on_updates(&mut self, updates: &[CandleUpdate]) -> Result<(), StatsError> {
        for update in updates.iter().filter(|u| u.period == Period::M1) {
            self.on_candle(update.symbol, &update.candle)?;
        }
        Ok(())
    }

    /// Moves every symbol's window to end at the minute holding `time_ms` (if later than now),
    /// dropping what is then older than 24 h, so quiet symbols age too.
    pub fn advance_to(&mut self, time_ms: u64) {
        let minute = time_ms / MINUTE_MS;
        for window in &mut self.windows {
            window.advance(minute);
        }
    }

    /// The 24 h statistics of `symbol`, or `None` if no candle of it was ever fed.
    pub fn get(&self, symbol: Symbol) -> Option<Stats24h> {
        let window = &self.windows[*self.slots.get(&symbol)? as usize];
        Some(window.stats())
    }

    /// Adds a window for a new symbol.
    fn add(&mut self, symbol: Symbol, minute: u64, price: Decimal) -> Result<usize, StatsError> {
        if self.windows.len() >= SYMBOLS_MAX {
            return Err(StatsError::TooManySymbols { max: SYMBOLS_MAX });
        }
        let slot = self.windows.len();
        self.windows.push(Window {
            ring: vec![Minute::VACANT; WINDOW_MINUTES as usize].into_boxed_slice(),
            newest: None,
            oldest: None,
            high: Decimal::ZERO,
            low: Decimal::ZERO,
            volume: Decimal::ZERO,
            last: (minute, price),
        });
        self.slots.insert(symbol, slot as u32);
        Ok(slot)
    }
}

impl Window {
    /// Stores one minute; false if it is older than the window.
    fn put(&mut self, minute: u64, candle: &Candle) -> bool {
        self.advance(minute);
        let newest = self.newest.unwrap_or(minute);
        if minute + WINDOW_MINUTES <= newest {
            return false;
        }
        let slot = &mut self.ring[(minute % WINDOW_MINUTES) as usize];
        let was_filled = slot.is_filled();
        // A later version of a minute only widens it; anything else needs a rescan.
        let shrinks = was_filled && (candle.high < slot.high || candle.low > slot.low);
        self.volume = self.volume - slot.volume + candle.volume;
        *slot = Minute {
            minute,
            open: candle.open,
            high: candle.high,
            low: candle.low,
            volume: candle.volume,
        };
        match self.oldest {
            None => {
                self.oldest = Some(minute);
                self.high = candle.high;
                self.low = candle.low;
            }
            Some(oldest) => {
                self.oldest = Some(oldest.min(minute));
                self.high = self.high.max(candle.high);
                self.low = self.low.min(candle.low);
            }
        }
        if shrinks {
            self.rescan_extremes();
        }
        if minute >= self.last.0 {
            self.last = (minute, candle.close);
        }
        true
    }

    /// Moves the window's end to `minute` if that is later, vacating the slots that leave.
    fn advance(&mut self, minute: u64) {
        let Some(newest) = self.newest else {
            self.newest = Some(minute);
            return;
        };
        if minute <= newest {
            return;
        }
        self.newest = Some(minute);
        if minute - newest >= WINDOW_MINUTES {
            self.clear();
            return;
        }
        let mut extremes_left = false;
        // Entering minute m reuses the slot of minute m - 1440, which leaves the window.
        for entering in newest + 1..=minute {
            let slot = &mut self.ring[(entering % WINDOW_MINUTES) as usize];
            if slot.is_filled() {
                self.volume -= slot.volume;
                extremes_left |= slot.high >= self.high || slot.low <= self.low;
                *slot = Minute::VACANT;
            }
        }
        let start = minute + 1 - WINDOW_MINUTES.min(minute + 1);
        if self.oldest.is_some_and(|oldest| oldest < start) {
            self.oldest =
                (start..=minute).find(|&m| self.ring[(m % WINDOW_MINUTES) as usize].minute == m);
        }
        if self.oldest.is_none() {
            self.clear();
        } else if extremes_left {
            self.rescan_extremes();
        }
    }

    /// Empties the window (the last price stays).
    fn clear(&mut self) {
        self.ring.fill(Minute::VACANT);
        self.oldest = None;
        self.volume = Decimal::ZERO;
        self.high = Decimal::ZERO;
        self.low = Decimal::ZERO;
    }

    /// Recomputes high and low over the filled slots: at most [`WINDOW_MINUTES`] steps.
    fn rescan_extremes(&mut self) {
        let mut filled = self.ring.iter().filter(|m| m.is_filled());
        let Some(first) = filled.next() else { return };
        let (high, low) =
            filled.fold((first.high, first.low), |(h, l), m| (h.max(m.high), l.min(m.low)));
        self.high = high;
        self.low = low;
    }

    /// The statistics as defined in the module documentation.
    fn stats(&self) -> Stats24h {
        let close = self.last.1;
        let Some(oldest) = self.oldest else {
            return Stats24h { open: close, high: close, low: close, close, ..Stats24h::default() };
        };
        let open = self.ring[(oldest % WINDOW_MINUTES) as usize].open;
        let change = close - open;
        Stats24h {
            open,
            high: self.high,
            low: self.low,
            close,
            volume: self.volume,
            change,
            change_percent: change_percent(change, open),
        }
    }
}

/// `change / open x 100`, rounded half-even to 2 places; 0 when open is 0.
pub fn change_percent(change: Decimal, open: Decimal) -> Decimal {
    if open.is_zero() {
        return Decimal::ZERO;
    }
    // Overflow needs a price rising ~1e26-fold; report the largest figure rather than panic.
    change
        .checked_mul(Decimal::ONE_HUNDRED)
        .and_then(|c| c.checked_div(open))
        .unwrap_or(Decimal::MAX)
        .round_dp_with_strategy(CHANGE_PERCENT_DP, RoundingStrategy::MidpointNearestEven)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().expect("test decimal")
    }

    fn sym() -> Symbol {
        Symbol::new("BTCUSDT").expect("test symbol")
    }

    /// A 1-minute candle at minute `m` after `T0`.
    fn minute(m: u64, o: &str, h: &str, l: &str, c: &str, v: &str) -> Candle {
        Candle {
            open_ms: T0 + m * MINUTE_MS,
            open: d(o),
            high: d(h),
            low: d(l),
            close: d(c),
            volume: d(v),
            ticks: 1,
        }
    }

    /// Monday 2026-11-16 00:00 UTC.
    const T0: u64 = 1_794_787_200_000;

    #[test]
    fn a_window_that_is_not_full_starts_at_the_first_price() {
        let mut stats = RollingStats::new();
        assert_eq!(stats.get(sym()), None);
        stats.on_candle(sym(), &minute(0, "100", "105", "99", "104", "2")).unwrap();
        stats.on_candle(sym(), &minute(1, "104", "110", "103", "108", "3")).unwrap();
        let s = stats.get(sym()).unwrap();
        assert_eq!(
            s,
            Stats24h {
                open: d("100"),
                high: d("110"),
                low: d("99"),
                close: d("108"),
                volume: d("5"),
                change: d("8"),
                change_percent: d("8.00"),
            }
        );
    }

    #[test]
    fn the_open_minute_may_be_fed_again() {
        let mut stats = RollingStats::new();
        stats.on_candle(sym(), &minute(0, "100", "101", "100", "101", "1")).unwrap();
        stats.on_candle(sym(), &minute(0, "100", "103", "98", "99", "4")).unwrap();
        let s = stats.get(sym()).unwrap();
        assert_eq!((s.high, s.low, s.close, s.volume), (d("103"), d("98"), d("99"), d("4")));
        // A shrinking replacement (not the aggregator's doing, but allowed) rescans.
        stats.on_candle(sym(), &minute(0, "100", "100", "100", "100", "1")).unwrap();
        let s = stats.get(sym()).unwrap();
        assert_eq!((s.high, s.low, s.volume), (d("100"), d("100"), d("1")));
    }

    #[test]
    fn the_oldest_minute_rolls_out_of_a_full_window() {
        let mut stats = RollingStats::new();
        // Minute 0 holds the extremes; minutes 1..1440 are calm.
        stats.on_candle(sym(), &minute(0, "50", "200", "10", "100", "1000")).unwrap();
        for m in 1..WINDOW_MINUTES {
            stats.on_candle(sym(), &minute(m, "100", "101", "99", "100", "1")).unwrap();
        }
        let full = stats.get(sym()).unwrap();
        assert_eq!(
            (full.open, full.high, full.low, full.volume),
            (d("50"), d("200"), d("10"), d("2439"))
        );
        assert_eq!(full.change_percent, d("100.00"));
        // Minute 1440 enters; minute 0 leaves with its extremes and volume.
        stats.on_candle(sym(), &minute(WINDOW_MINUTES, "100", "102", "100", "102", "1")).unwrap();
        let rolled = stats.get(sym()).unwrap();
        assert_eq!(
            rolled,
            Stats24h {
                open: d("100"),
                high: d("102"),
                low: d("99"),
                close: d("102"),
                volume: d("1440"),
                change: d("2"),
                change_percent: d("2.00"),
            }
        );
        // A minute older than the window is ignored.
        assert!(!stats.on_candle(sym(), &minute(0, "1", "1", "1", "1", "1")).unwrap());
        assert_eq!(stats.get(sym()).unwrap(), rolled);
    }

    #[test]
    fn gaps_count_for_nothing_and_an_empty_window_keeps_the_last_price() {
        let mut stats = RollingStats::new();
        stats.on_candle(sym(), &minute(0, "10", "12", "9", "11", "1")).unwrap();
        // Ten quiet hours, then one minute.
        stats.on_candle(sym(), &minute(600, "11", "11", "8", "8", "2")).unwrap();
        let s = stats.get(sym()).unwrap();
        assert_eq!(
            (s.open, s.high, s.low, s.close, s.volume),
            (d("10"), d("12"), d("8"), d("8"), d("3"))
        );
        // 24 h after minute 0 it has left; minute 600 is the oldest.
        stats.advance_to(T0 + WINDOW_MINUTES * MINUTE_MS);
        let s = stats.get(sym()).unwrap();
        assert_eq!((s.open, s.high, s.low, s.volume), (d("11"), d("11"), d("8"), d("2")));
        // Another 10 h: nothing in the window.
        stats.advance_to(T0 + (WINDOW_MINUTES + 600) * MINUTE_MS);
        let s = stats.get(sym()).unwrap();
        assert_eq!(
            s,
            Stats24h {
                open: d("8"),
                high: d("8"),
                low: d("8"),
                close: d("8"),
                ..Stats24h::default()
            }
        );
        // The window refills from the next candle.
        stats.on_candle(sym(), &minute(WINDOW_MINUTES + 601, "9", "9", "9", "9", "5")).unwrap();
        let s = stats.get(sym()).unwrap();
        assert_eq!((s.open, s.close, s.volume, s.change_percent), (d("9"), d("9"), d("5"), d("0")));
    }

    #[test]
    fn a_jump_longer_than_the_window_clears_it() {
        let mut stats = RollingStats::new();
        stats.on_candle(sym(), &minute(0, "10", "30", "1", "11", "7")).unwrap();
        stats.on_candle(sym(), &minute(3 * WINDOW_MINUTES, "20", "21", "19", "20", "1")).unwrap();
        let s = stats.get(sym()).unwrap();
        assert_eq!((s.open, s.high, s.low, s.volume), (d("20"), d("21"), d("19"), d("1")));
    }

    #[test]
    fn change_percent_rounds_half_even_to_two_places() {
        assert_eq!(change_percent(d("1"), d("3")), d("33.33"));
        assert_eq!(change_percent(d("-2"), d("3")), d("-66.67"));
        // 0.125 % and 0.135 %: exact halves go to the even neighbour.
        assert_eq!(change_percent(d("0.125"), d("100")), d("0.12"));
        assert_eq!(change_percent(d("0.135"), d("100")), d("0.14"));
        assert_eq!(change_percent(d("5"), Decimal::ZERO), Decimal::ZERO);
        let mut stats = RollingStats::new();
        stats
            .on_candle(sym(), &minute(0, "96500.00", "96500.00", "96500.00", "96500.00", "1"))
            .unwrap();
        stats
            .on_candle(sym(), &minute(1, "96500.00", "97000.00", "96400.00", "96123.45", "1"))
            .unwrap();
        let s = stats.get(sym()).unwrap();
        // -376.55 / 96500 = -0.390207...%
        assert_eq!((s.change, s.change_percent), (d("-376.55"), d("-0.39")));
    }

    #[test]
    fn misaligned_candles_are_refused() {
        let mut stats = RollingStats::new();
        let mut c = minute(0, "1", "1", "1", "1", "1");
        c.open_ms += 1;
        assert_eq!(stats.on_candle(sym(), &c), Err(StatsError::NotAMinute { open_ms: T0 + 1 }));
    }
}
