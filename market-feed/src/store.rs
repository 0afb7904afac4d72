//! Candle history in sled, and synthetic backfill so a chart is full the moment it opens.
//!
//! **Layout.** One sled tree, `candles`. Key: the symbol's 16 code bytes, the period's
//! [`Period::code`], the candle's `open_ms` big-endian: 25 bytes, so one symbol and period is a
//! contiguous, time-ordered key range. Value: a format byte, then open, high, low, close and
//! volume as `Decimal::serialize()` (16 bytes each), then `ticks` as u32 little-endian: 85 bytes.
//! A value is checked when read (length, format byte, high >= max(open, close) >= min(open,
//! close) >= low); a value that fails is reported as [`StoreError::Corrupt`], never guessed at.
//!
//! **What is written, and when** ([`CandleStore::record`]): every closed candle, once, when it
//! closes; and, each time a symbol's 1-minute candle closes, that symbol's open candles of every
//! period, overwriting their earlier versions under the same key, in one batch with the log
//! index of the last tick they hold (the symbol's position). After a restart
//! [`CandleStore::restore_into`] hands the open candles back to the aggregator, and the ticks
//! after each symbol's position are replayed from the tick archive, so every member's candles
//! are the same function of the same ticks, restarted or not.
//!
//! **Durability.** Writes go to sled's page cache; sled flushes on its own timer (500 ms by
//! default) and on [`CandleStore::flush`]. Losing the last moments of candle writes in a crash
//! loses nothing: a batch is all or nothing, and the ticks after the position that survived are
//! replayed from the tick archive.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use engine::types::Symbol;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use rust_decimal::{Decimal, RoundingStrategy};

use crate::candles::{CandleAggregator, CandleError, CandleUpdate};
use crate::catalogue::Instrument;
use crate::types::{Candle, Period};

// ---------------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------------

/// Most candles one query returns (a chart asks for about 500).
pub const CANDLES_QUERY_MAX: usize = 1_500;

/// Fewest candles [`backfill`] writes per period: a chart's first screen.
pub const BACKFILL_CANDLES_MIN: usize = 500;

/// Most candles [`backfill`] writes per period.
pub const BACKFILL_CANDLES_MAX: usize = 5_000;

/// Most candles written in one atomic sled batch by [`CandleStore::put_many`].
pub const PUT_BATCH_MAX: usize = 4_096;

/// Name of the sled tree.
const TREE_NAME: &str = "candles";

/// Key length: symbol (16), period code (1), open_ms big-endian (8).
const KEY_LEN: usize = 16 + 1 + 8;

/// Bytes of the key before `open_ms`: one symbol and period.
const PREFIX_LEN: usize = 16 + 1;

/// Value length: format byte, five decimals, ticks.
const VALUE_LEN: usize = 1 + 5 * 16 + 4;

/// The byte after a symbol's code in the key of its position (no [`Period::code`] is 0xFF).
const POSITION_CODE: u8 = 0xFF;

/// The value format written today; bump it when the encoding changes.
const VALUE_FORMAT: u8 = 1;

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// What can go wrong with candle history.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// sled failed (I/O, or a corrupt database).
    #[error("candle store: {0}")]
    Sled(#[from] sled::Error),
    /// A stored value failed its checks.
    #[error("corrupt candle under key {key:02x?}: {reason}")]
    Corrupt {
        /// The key whose value is bad.
        key: Vec<u8>,
        /// Which check failed.
        reason: &'static str,
    },
    /// [`backfill`] was asked for a count outside
    /// [`BACKFILL_CANDLES_MIN`]..=[`BACKFILL_CANDLES_MAX`].
    #[error("backfill of {count} candles is outside {min}..={max}")]
    BackfillCount {
        /// The count asked for.
        count: usize,
        /// [`BACKFILL_CANDLES_MIN`].
        min: usize,
        /// [`BACKFILL_CANDLES_MAX`].
        max: usize,
    },
    /// The aggregator refused a restored candle.
    #[error("restoring open candles: {0}")]
    Restore(#[from] CandleError),
}

// ---------------------------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------------------------

/// Candle history of every symbol and period. Cheap to clone (a sled tree handle).
/// sled's page cache of a database holding only candles.
pub const CANDLE_CACHE_BYTES: u64 = 64 << 20;

#[derive(Clone, Debug)]
pub struct CandleStore {
    /// The `candles` tree.
    tree: sled::Tree,
    /// Candle writes so far (shared by clones), so that a reader's copy of a page can tell
    /// whether the page may have changed since.
    writes: Arc<AtomicU64>,
}

impl CandleStore {
    /// Opens (or creates) a sled database at `path` holding only candles.
    pub fn open(path: &Path) -> Result<CandleStore, StoreError> {
        CandleStore::with_db(&wal::open_db(path, CANDLE_CACHE_BYTES)?)
    }

    /// Uses the `candles` tree of an already open database (shared with other projections).
    pub fn with_db(db: &sled::Db) -> Result<CandleStore, StoreError> {
        Ok(CandleStore { tree: db.open_tree(TREE_NAME)?, writes: Arc::default() })
    }

    /// How many times candles were written so far: a page read at one count is still what
    /// the store holds while the count is the same.
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Acquire)
    }

    fn wrote(&self) {
        self.writes.fetch_add(1, Ordering::AcqRel);
    }

    /// Writes one candle, replacing any candle of the same symbol, period and `open_ms`.
    pub fn put(&self, symbol: Symbol, period: Period, candle: &Candle) -> Result<(), StoreError> {
        self.tree.insert(key(symbol, period, candle.open_ms), encode(candle).as_slice())?;
        self.wrote();
        Ok(())
    }

    /// Writes many candles, atomically per batch of [`PUT_BATCH_MAX`]; returns how many.
    pub fn put_many<'a>(
        &self,
        candles: impl IntoIterator<Item = (Symbol, Period, &'a Candle)>,
    ) -> Result<usize, StoreError> {
        let mut batch = sled::Batch::default();
        let (mut in_batch, mut written) = (0, 0);
        for (symbol, period, candle) in candles {
            batch.insert(&key(symbol, period, candle.open_ms), encode(candle).as_slice());
            in_batch += 1;
            if in_batch == PUT_BATCH_MAX {
                self.tree.apply_batch(std::mem::take(&mut batch))?;
                self.wrote();
                written += in_batch;
                in_batch = 0;
            }
        }
        if in_batch > 0 {
            self.tree.apply_batch(batch)?;
            self.wrote();
            written += in_batch;
        }
        Ok(written)
    }

    /// Persists the aggregator's output by the module's policy: every closed candle in
    /// `updates`, and for each symbol whose 1-minute candle closed in `updates`, its open candles
    /// of every period (read from `aggregator`). Open-candle updates in `updates` are not
    /// written themselves. Returns the number of candles written.
    pub fn record(
        &self,
        updates: &[CandleUpdate],
        aggregator: &CandleAggregator,
    ) -> Result<usize, StoreError> {
        let closed = updates.iter().filter(|u| u.closed).map(|u| (u.symbol, u.period, &u.candle));
        let mut written = self.put_many(closed)?;
        // Each symbol's open candles go in one batch with the log index of the last tick they
        // hold, so a restart replays exactly the ticks after it (never one twice).
        for update in updates.iter().filter(|u| u.closed && u.period == Period::M1) {
            let mut batch = sled::Batch::default();
            for (period, candle) in aggregator.current_all(update.symbol) {
                batch
                    .insert(&key(update.symbol, period, candle.open_ms), encode(candle).as_slice());
                written += 1;
            }
            let index = aggregator.last_index(update.symbol);
            batch.insert(&position_key(update.symbol), &index.to_le_bytes());
            self.tree.apply_batch(batch)?;
            self.wrote();
        }
        Ok(written)
    }

    /// Records that `symbol`'s stored candles hold every tick up to log index `index` (0 for
    /// a history written before any tick: every tick after it is to be folded).
    pub fn set_position(&self, symbol: Symbol, index: u64) -> Result<(), StoreError> {
        self.tree.insert(position_key(symbol), &index.to_le_bytes())?;
        Ok(())
    }

    /// The log index of the last tick folded into `symbol`'s stored open candles, if any were
    /// stored with one.
    pub fn position(&self, symbol: Symbol) -> Result<Option<u64>, StoreError> {
        let Some(value) = self.tree.get(position_key(symbol))? else { return Ok(None) };
        let bytes: [u8; 8] = value.as_ref().try_into().map_err(|_| StoreError::Corrupt {
            key: position_key(symbol).to_vec(),
            reason: "a position is 8 bytes",
        })?;
        Ok(Some(u64::from_le_bytes(bytes)))
    }

    /// Candles of `symbol` and `period` with `from_ms <= open_ms < to_ms`, ascending, at most
    /// `limit` (itself at most [`CANDLES_QUERY_MAX`]) counted from `from_ms`.
    pub fn range(
        &self,
        symbol: Symbol,
        period: Period,
        from_ms: u64,
        to_ms: u64,
        limit: usize,
    ) -> Result<Vec<Candle>, StoreError> {
        let limit = limit.min(CANDLES_QUERY_MAX);
        if from_ms >= to_ms || limit == 0 {
            return Ok(Vec::new());
        }
        let rows = self.tree.range(key(symbol, period, from_ms)..key(symbol, period, to_ms));
        let mut out = Vec::with_capacity(limit);
        for row in rows.take(limit) {
            let (k, v) = row?;
            out.push(decode(&k, &v)?);
        }
        Ok(out)
    }

    /// The newest `limit` candles (at most [`CANDLES_QUERY_MAX`]) of `symbol` and `period`,
    /// ascending: what a chart loads when it opens.
    pub fn latest(
        &self,
        symbol: Symbol,
        period: Period,
        limit: usize,
    ) -> Result<Vec<Candle>, StoreError> {
        let limit = limit.min(CANDLES_QUERY_MAX);
        let mut out = Vec::with_capacity(limit);
        for row in self.tree.scan_prefix(prefix(symbol, period)).rev().take(limit) {
            let (k, v) = row?;
            out.push(decode(&k, &v)?);
        }
        out.reverse();
        Ok(out)
    }

    /// How many candles of `symbol` and `period` are stored. Walks the keys: for tests and
    /// admin screens, not the request path.
    pub fn count(&self, symbol: Symbol, period: Period) -> Result<usize, StoreError> {
        let mut n = 0;
        for row in self.tree.scan_prefix(prefix(symbol, period)) {
            row?;
            n += 1;
        }
        Ok(n)
    }

    /// True if no candle of any period is stored for `symbol`.
    pub fn is_empty_for(&self, symbol: Symbol) -> Result<bool, StoreError> {
        Ok(self.tree.scan_prefix(symbol_bytes(symbol)).next().transpose()?.is_none())
    }

    /// Hands the newest stored candle of every period of `symbol` to the aggregator, so the
    /// ticks after a restart continue the open candles instead of starting second ones.
    /// Returns how many periods had a candle.
    pub fn restore_into(
        &self,
        aggregator: &mut CandleAggregator,
        symbol: Symbol,
    ) -> Result<usize, StoreError> {
        let mut restored = 0;
        for period in Period::ALL {
            if let Some(candle) = self.latest(symbol, period, 1)?.pop() {
                aggregator.restore(symbol, period, candle)?;
                restored += 1;
            }
        }
        Ok(restored)
    }

    /// Forces everything written so far to disk; returns the bytes sled flushed.
    pub fn flush(&self) -> Result<usize, StoreError> {
        Ok(self.tree.flush()?)
    }
}

/// The 16 code bytes of a symbol, zero-padded as [`Symbol`] stores them.
fn symbol_bytes(symbol: Symbol) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    let code = symbol.as_str().as_bytes();
    bytes[..code.len()].copy_from_slice(code);
    bytes
}

/// Where a symbol's stored open candles stand in the log: its 16 code bytes and a byte no
/// period uses, so no range of candles ever meets it.
fn position_key(symbol: Symbol) -> [u8; PREFIX_LEN] {
    let mut key = [0u8; PREFIX_LEN];
    key[..16].copy_from_slice(&symbol_bytes(symbol));
    key[16] = POSITION_CODE;
    key
}

/// Key prefix of one symbol and period.
fn prefix(symbol: Symbol, period: Period) -> [u8; PREFIX_LEN] {
    let mut p = [0u8; PREFIX_LEN];
    p[..16].copy_from_slice(&symbol_bytes(symbol));
    p[16] = period.code();
    p
}

/// Full key of one candle.
fn key(symbol: Symbol, period: Period, open_ms: u64) -> [u8; KEY_LEN] {
    let mut k = [0u8; KEY_LEN];
    k[..PREFIX_LEN].copy_from_slice(&prefix(symbol, period));
    k[PREFIX_LEN..].copy_from_slice(&open_ms.to_be_bytes());
    k
}

/// The fixed 85-byte value of a candle.
fn encode(candle: &Candle) -> [u8; VALUE_LEN] {
    debug_assert!(ohlc_consistent(candle), "only consistent candles are written");
    let mut v = [0u8; VALUE_LEN];
    v[0] = VALUE_FORMAT;
    let fields = [candle.open, candle.high, candle.low, candle.close, candle.volume];
    for (chunk, field) in v[1..81].chunks_exact_mut(16).zip(fields) {
        chunk.copy_from_slice(&field.serialize());
    }
    v[81..].copy_from_slice(&candle.ticks.to_le_bytes());
    v
}

/// Reads a stored candle back, checking it.
fn decode(k: &[u8], v: &[u8]) -> Result<Candle, StoreError> {
    let corrupt = |reason| StoreError::Corrupt { key: k.to_vec(), reason };
    let open_ms: [u8; 8] =
        k.get(PREFIX_LEN..).and_then(|b| b.try_into().ok()).ok_or_else(|| corrupt("key length"))?;
    let v: &[u8; VALUE_LEN] = v.try_into().map_err(|_| corrupt("value length"))?;
    if v[0] != VALUE_FORMAT {
        return Err(corrupt("unknown value format"));
    }
    let field = |i: usize| {
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&v[1 + 16 * i..1 + 16 * (i + 1)]);
        Decimal::deserialize(bytes)
    };
    let mut ticks = [0u8; 4];
    ticks.copy_from_slice(&v[81..]);
    let candle = Candle {
        open_ms: u64::from_be_bytes(open_ms),
        open: field(0),
        high: field(1),
        low: field(2),
        close: field(3),
        volume: field(4),
        ticks: u32::from_le_bytes(ticks),
    };
    if !ohlc_consistent(&candle) {
        return Err(corrupt("high/low do not bound open/close"));
    }
    Ok(candle)
}

/// high >= max(open, close), low <= min(open, close), volume >= 0.
fn ohlc_consistent(c: &Candle) -> bool {
    c.high >= c.open.max(c.close) && c.low <= c.open.min(c.close) && !c.volume.is_sign_negative()
}

// ---------------------------------------------------------------------------------------------
// Backfill
// ---------------------------------------------------------------------------------------------

/// What [`backfill`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backfill {
    /// The store already had candles for the symbol; nothing was written.
    Skipped,
    /// Synthetic history was written.
    Written {
        /// Candles written over all periods.
        candles: usize,
    },
}

/// Writes `count` synthetic candles of every period for `instrument`, ending with the bucket
/// that holds `now_ms` (whose close is the instrument's start price, where the simulator
/// begins), but only if the store has no candle at all for the symbol.
pub fn backfill(
    store: &CandleStore,
    instrument: &Instrument,
    seed: u64,
    now_ms: u64,
    count: usize,
) -> Result<Backfill, StoreError> {
    check_count(count)?;
    if !store.is_empty_for(instrument.symbol)? {
        return Ok(Backfill::Skipped);
    }
    let mut candles = 0;
    for period in Period::ALL {
        let history = synthetic_history(instrument, period, seed, now_ms, count)?;
        candles += store.put_many(history.iter().map(|c| (instrument.symbol, period, c)))?;
    }
    Ok(Backfill::Written { candles })
}

/// `count` synthetic candles of `period` for `instrument`, ascending, the last one in the bucket
/// of `now_ms` closing at `start_price`. Reproducible: the same seed gives the same candles.
///
/// Buckets that lie entirely inside a market closure (the forex weekend) are skipped and do not
/// count. Each period is its own walk (a 1h candle is not the merge of the 1m candles): the
/// history is a backdrop for the first screen, not a record, and aggregating 500 weeks of
/// minutes would cost 5 M steps per symbol.
pub fn synthetic_history(
    instrument: &Instrument,
    period: Period,
    seed: u64,
    now_ms: u64,
    count: usize,
) -> Result<Vec<Candle>, StoreError> {
    check_count(count)?;
    let buckets = trading_buckets(instrument, period, now_ms, count);
    let mut rng = ChaCha8Rng::seed_from_u64(mix(seed, instrument.symbol, period));
    let mut candles = Vec::with_capacity(buckets.len());
    // The walk goes backwards in time from the start price, so `close` is the next-newer candle's open.
    let mut close = instrument.start_price;
    for &open_ms in &buckets {
        let candle = walk_step(instrument, period, open_ms, close, &mut rng);
        close = candle.open;
        candles.push(candle);
    }
    candles.reverse();
    Ok(candles)
}

/// Refuses counts outside the backfill bounds.
fn check_count(count: usize) -> Result<(), StoreError> {
    if (BACKFILL_CANDLES_MIN..=BACKFILL_CANDLES_MAX).contains(&count) {
        Ok(())
    } else {
        Err(StoreError::BackfillCount {
            count,
            min: BACKFILL_CANDLES_MIN,
            max: BACKFILL_CANDLES_MAX,
        })
    }
}

/// Up to `count` bucket starts at which the instrument trades, newest first, from `now_ms`'s
/// bucket back. Scans at most `2 x count` buckets plus one week of them.
fn trading_buckets(instrument: &Instrument, period: Period, now_ms: u64, count: usize) -> Vec<u64> {
    let hours = instrument.hours();
    let duration = period.duration_ms();
    let scan_max = 2 * count + (Period::W1.duration_ms() / duration) as usize;
    let mut buckets = Vec::with_capacity(count);
    let mut bucket = Some(period.bucket_start(now_ms));
    for _ in 0..scan_max {
        let Some(start) = bucket.filter(|_| buckets.len() < count) else { break };
        // Skip a bucket only when the market is closed at both ends of it: a bucket the
        // closure merely cuts still has ticks.
        if hours.is_open(start) || hours.is_open(start + duration - 1) {
            buckets.push(start);
        }
        bucket = start.checked_sub(duration);
    }
    buckets
}

/// One seed per (seed, symbol, period): FNV-1a over the symbol's bytes and the period code.
fn mix(seed: u64, symbol: Symbol, period: Period) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64 ^ seed;
    for byte in symbol_bytes(symbol).into_iter().chain([period.code()]) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Pull of the backward walk towards the start price per step, in log space. It keeps 500
/// weekly candles of a 100 %-volatility coin within a believable band (about e^±0.7) instead
/// of drifting to e^±3; at 1m it is negligible next to the noise.
const MEAN_REVERSION: f64 = 0.02;

/// Milliseconds in a year, for scaling annualised volatility.
const YEAR_MS: f64 = 365.25 * 86_400_000.0;

/// Generates the candle at `open_ms` that closes at `close`, walking one step back in time.
///
/// Floats are allowed here and only here: this is a simulation, not money. Every price leaves
/// as a Decimal rounded to the instrument's precision, and at least one price unit.
#[allow(clippy::float_arithmetic)]
fn walk_step(
    instrument: &Instrument,
    period: Period,
    open_ms: u64,
    close: Decimal,
    rng: &mut ChaCha8Rng,
) -> Candle {
    let normal = Normal::new(0.0_f64, 1.0).expect("a unit normal is valid");
    let start = instrument.start_price.to_f64().unwrap_or(1.0).max(f64::MIN_POSITIVE);
    let close_f = close.to_f64().unwrap_or(start);
    // Step size: annual volatility scaled by the square root of the period's share of a year.
    let sigma = f64::from(instrument.volatility_percent) / 100.0
        * (period.duration_ms() as f64 / YEAR_MS).sqrt();
    let pull = MEAN_REVERSION * (start.ln() - close_f.ln());
    let open_f = close_f * (pull - sigma * normal.sample(rng)).exp();
    let high_f = open_f.max(close_f) * (0.5 * sigma * normal.sample(rng).abs()).exp();
    let low_f = open_f.min(close_f) * (-0.5 * sigma * normal.sample(rng).abs()).exp();
    let minutes = period.duration_ms() as f64 / 60_000.0;
    let typical = instrument.typical_quantity.to_f64().unwrap_or(1.0);
    let volume_f = typical * minutes * 20.0 * (0.5 * normal.sample(rng)).exp();

    let precision = u32::from(instrument.precision);
    let unit = Decimal::new(1, precision);
    let price = |x: f64| to_decimal(x, precision).max(unit);
    let open = price(open_f);
    let high = price(high_f).max(open).max(close);
    let low = price(low_f).min(open).min(close);
    let volume_dp = instrument.typical_quantity.scale().max(2);
    let volume = to_decimal(volume_f, volume_dp).max(Decimal::new(1, volume_dp));
    let ticks = u32::try_from(period.duration_ms() / 1_000).unwrap_or(u32::MAX);
    Candle { open_ms, open, high, low, close, volume, ticks }
}

/// A float rounded half-even to `dp` places and written with exactly `dp` places (0 if not finite).
fn to_decimal(x: f64, dp: u32) -> Decimal {
    let mut d = Decimal::from_f64(x)
        .unwrap_or(Decimal::ZERO)
        .round_dp_with_strategy(dp, RoundingStrategy::MidpointNearestEven);
    d.rescale(dp);
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().expect("test decimal")
    }

    #[test]
    fn values_round_trip_and_bad_values_are_refused() {
        let candle = Candle {
            open_ms: 1_794_787_200_000,
            open: d("96500.12"),
            high: d("96600.5"),
            low: d("96400"),
            close: d("96450.00"),
            volume: d("12.345678"),
            ticks: 4_000_000_000,
        };
        let symbol = Symbol::new("BTCUSDT").unwrap();
        let k = key(symbol, Period::H4, candle.open_ms);
        let v = encode(&candle);
        let back = decode(&k, &v).unwrap();
        assert_eq!(back, candle);
        assert_eq!(back.close.to_string(), "96450.00", "scale survives");
        assert!(matches!(
            decode(&k, &v[..84]),
            Err(StoreError::Corrupt { reason: "value length", .. })
        ));
        let mut wrong_format = v;
        wrong_format[0] = 9;
        assert!(matches!(
            decode(&k, &wrong_format),
            Err(StoreError::Corrupt { reason: "unknown value format", .. })
        ));
        // Swap high and low: a flipped field fails the OHLC check.
        let mut swapped = v;
        swapped[17..33].copy_from_slice(&v[33..49]);
        swapped[33..49].copy_from_slice(&v[17..33]);
        assert!(matches!(decode(&k, &swapped), Err(StoreError::Corrupt { .. })));
    }

    #[test]
    fn keys_sort_by_symbol_then_period_then_time() {
        let a = Symbol::new("BTCUSDT").unwrap();
        let b = Symbol::new("BTCUSDTX").unwrap();
        assert!(key(a, Period::M1, u64::MAX) < key(a, Period::M5, 0));
        assert!(key(a, Period::W1, u64::MAX) < key(b, Period::M1, 0));
        assert!(
            key(a, Period::M1, 255) < key(a, Period::M1, 256),
            "big-endian time orders numerically"
        );
    }

    #[test]
    fn to_decimal_rounds_half_even_at_the_precision() {
        assert_eq!(to_decimal(1.5, 0).to_string(), "2");
        assert_eq!(to_decimal(2.5, 0).to_string(), "2");
        assert_eq!(to_decimal(1.2, 3).to_string(), "1.200");
        assert_eq!(to_decimal(f64::NAN, 2), Decimal::ZERO);
    }
}
