//! The embedded default source: a seeded geometric random walk per symbol.
//!
//! Every symbol has its own ChaCha8 stream seeded from (seed, symbol), so the prices of one
//! symbol do not depend on which other symbols are simulated, and the same seed gives the same
//! ticks on every machine. The walk's log price moves by a normal step whose variance is the
//! instrument's annualised volatility scaled to the time since the last tick, with a weak pull
//! back to the catalogue's start price ([`SIM_REVERSION_HALF_LIFE_MS`]). Forex is silent while
//! its market is closed.
//!
//! [`SimulatedWalk::next_tick`] is the pure core (no clock, no I/O); [`SimulatedSource`] paces
//! the walks with tokio's timer.

use std::sync::Arc;

use engine::types::{MarketHours, Symbol};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use tokio::sync::mpsc;
use tokio::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

use super::constants::{
    SIM_CLOSED_SLEEP_MAX_MS, SIM_INTERVAL_JITTER_PERCENT, SIM_REVERSION_HALF_LIFE_MS,
    SIM_STEP_MAX_MS, SIM_TICKS_PER_SECOND_MAX,
};
use super::{send_or_stop, Clock, PriceSource, SourceEnd, SourceError, SourceFuture};
use crate::catalogue::Instrument;
use crate::types::RawTick;

/// Milliseconds in a calendar year (365 days): volatilities are annualised over calendar time.
const YEAR_MS: u64 = 365 * 24 * 3_600_000;
/// Milliseconds in a minute: market hours change on minute boundaries.
const MINUTE_MS: u64 = 60_000;
/// Minutes in a week: the longest search for the next open minute.
const WEEK_MINUTES: u64 = 7 * 24 * 60;
/// Spread of the log of the quantity factor: most trades between half and twice the typical.
const QUANTITY_LOG_SIGMA: f64 = 0.7;
/// Quantity factors are kept within [1/20, 20] of the typical quantity, in thousandths.
const QUANTITY_FACTOR_MIN_THOUSANDTHS: i64 = 50;
/// Upper end of the quantity factor, in thousandths.
const QUANTITY_FACTOR_MAX_THOUSANDTHS: i64 = 20_000;

/// One symbol's random walk: the deterministic core of the simulator.
#[derive(Debug, Clone)]
pub struct SimulatedWalk {
    /// The product.
    symbol: Symbol,
    /// Decimal places of every price it emits.
    precision: u8,
    /// When the product trades; no ticks outside.
    hours: MarketHours,
    /// The symbol's own random stream.
    rng: ChaCha8Rng,
    /// Natural log of the current (unrounded) price.
    log_price: f64,
    /// Natural log of the start price, which the weak reversion pulls towards.
    anchor_log_price: f64,
    /// Standard deviation of the log step per square root of a millisecond.
    sigma_per_sqrt_ms: f64,
    /// Quantities are drawn around this.
    typical_quantity: Decimal,
    /// Nominal interval between ticks (ms), before jitter.
    nominal_interval_ms: u64,
    /// Time of the last tick emitted, if any.
    last_ms: Option<u64>,
    /// Jittered wait (ms) before the next tick, drawn when the last tick was made.
    interval_ms: u64,
}

impl SimulatedWalk {
    /// A walk starting at the instrument's start price.
    pub fn new(
        instrument: &Instrument,
        seed: u64,
        ticks_per_second: u32,
    ) -> Result<SimulatedWalk, SourceError> {
        if ticks_per_second == 0 || ticks_per_second > SIM_TICKS_PER_SECOND_MAX {
            return Err(SourceError::Config(format!(
                "ticks_per_second must be 1 to {SIM_TICKS_PER_SECOND_MAX}, not {ticks_per_second}"
            )));
        }
        let start = instrument.start_price.to_f64().filter(|p| p.is_finite() && *p > 0.0);
        let Some(start) = start else {
            return Err(SourceError::Config(format!(
                "{} has no positive start price",
                instrument.symbol
            )));
        };
        if instrument.typical_quantity <= Decimal::ZERO {
            return Err(SourceError::Config(format!(
                "{} has no positive typical quantity",
                instrument.symbol
            )));
        }
        let nominal_interval_ms = 1_000 / u64::from(ticks_per_second);
        Ok(SimulatedWalk {
            symbol: instrument.symbol,
            precision: instrument.precision,
            hours: instrument.hours(),
            rng: ChaCha8Rng::from_seed(stream_seed(seed, instrument.symbol)),
            log_price: start.ln(),
            anchor_log_price: start.ln(),
            sigma_per_sqrt_ms: sigma_per_sqrt_ms(instrument.volatility_percent),
            typical_quantity: instrument.typical_quantity,
            nominal_interval_ms,
            last_ms: None,
            interval_ms: nominal_interval_ms,
        })
    }

    /// The product this walk prices.
    pub fn symbol(&self) -> Symbol {
        self.symbol
    }

    /// The tick at `now_ms`, or `None` while the market is closed (the walk does not move and
    /// draws nothing then, so a closure never changes what comes after it).
    ///
    /// The step is scaled to the time since the previous tick (the nominal interval for the
    /// first one), capped at [`SIM_STEP_MAX_MS`]. `now_ms` earlier than the last tick counts as
    /// no time passed.
    pub fn next_tick(&mut self, now_ms: u64) -> Option<RawTick> {
        if !self.hours.is_open(now_ms) {
            return None;
        }
        let elapsed_ms = match self.last_ms {
            Some(last) => now_ms.saturating_sub(last),
            None => self.nominal_interval_ms,
        };
        let z: f64 = self.rng.sample(StandardNormal);
        self.step(elapsed_ms.min(SIM_STEP_MAX_MS), z);
        let quantity = self.draw_quantity();
        self.interval_ms = self.draw_interval();
        self.last_ms = Some(now_ms.max(self.last_ms.unwrap_or(0)));
        Some(RawTick { symbol: self.symbol, price: self.price(), quantity, source_ms: now_ms })
    }

    /// The jittered wait (ms) before the next tick; drawn by the last tick.
    pub fn interval_ms(&self) -> u64 {
        self.interval_ms
    }

    /// The current price at the instrument's precision; always at least one unit of it.
    pub fn price(&self) -> Decimal {
        Decimal::new(price_units(self.log_price, self.precision), u32::from(self.precision))
    }

    /// The first minute boundary at or after `now_ms` when the market is open (`now_ms` itself
    /// when open now); `None` if it never opens within a week.
    pub fn next_open_ms(&self, now_ms: u64) -> Option<u64> {
        if self.hours.is_open(now_ms) {
            return Some(now_ms);
        }
        let first = now_ms - now_ms % MINUTE_MS + MINUTE_MS;
        (0..WEEK_MINUTES).map(|m| first + m * MINUTE_MS).find(|&t| self.hours.is_open(t))
    }

    /// Moves the log price by one step of `elapsed_ms` with standard normal draw `z`.
    // The walk itself is floating point (ln, exp, sqrt); every value leaving it is converted to
    // Decimal at the instrument's precision by `price_units`.
    #[allow(clippy::float_arithmetic)]
    fn step(&mut self, elapsed_ms: u64, z: f64) {
        let dt = elapsed_ms as f64;
        let pull = reversion_per_ms() * dt * (self.anchor_log_price - self.log_price);
        self.log_price += pull + self.sigma_per_sqrt_ms * dt.sqrt() * z;
    }

    /// A quantity around the typical one: typical x a log-normal factor with 3 decimals.
    #[allow(clippy::float_arithmetic)] // the factor is drawn as a float, then kept in thousandths
    fn draw_quantity(&mut self) -> Decimal {
        let z: f64 = self.rng.sample(StandardNormal);
        let thousandths = ((QUANTITY_LOG_SIGMA * z).exp() * 1_000.0).round() as i64;
        let thousandths =
            thousandths.clamp(QUANTITY_FACTOR_MIN_THOUSANDTHS, QUANTITY_FACTOR_MAX_THOUSANDTHS);
        (self.typical_quantity * Decimal::new(thousandths, 3)).normalize()
    }

    /// The nominal interval +/- [`SIM_INTERVAL_JITTER_PERCENT`], at least 1 ms.
    fn draw_interval(&mut self) -> u64 {
        let low = self.nominal_interval_ms * (100 - SIM_INTERVAL_JITTER_PERCENT) / 100;
        let high = self.nominal_interval_ms * (100 + SIM_INTERVAL_JITTER_PERCENT) / 100;
        self.rng.gen_range(low.max(1)..=high.max(1))
    }
}

/// The per-symbol seed: the source seed, then the symbol's code, then a version tag, so two
/// symbols never share a stream and changing the walk can change the tag.
fn stream_seed(seed: u64, symbol: Symbol) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let code = symbol.as_str().as_bytes();
    bytes[8..8 + code.len()].copy_from_slice(code);
    bytes[24..].copy_from_slice(b"simwalk1");
    bytes
}

/// Annualised volatility in percent -> standard deviation of the log price per sqrt(ms).
#[allow(clippy::float_arithmetic)] // the walk's own parameter; never leaves the walk
fn sigma_per_sqrt_ms(volatility_percent: u32) -> f64 {
    f64::from(volatility_percent) / 100.0 / (YEAR_MS as f64).sqrt()
}

/// Rate of the pull back to the start price, per ms, from its half-life.
#[allow(clippy::float_arithmetic)] // the walk's own parameter; never leaves the walk
fn reversion_per_ms() -> f64 {
    std::f64::consts::LN_2 / SIM_REVERSION_HALF_LIFE_MS as f64
}

/// The price e^log_price in units of 10^-precision, rounded, at least 1 (prices stay > 0).
#[allow(clippy::float_arithmetic)] // the one place a walk price becomes an exact number
fn price_units(log_price: f64, precision: u8) -> i64 {
    let units = (log_price.exp() * 10f64.powi(i32::from(precision))).round();
    // `as` saturates; a walk far enough to overflow i64 units is clamped, never wrapped.
    (units as i64).max(1)
}

/// The simulator as a source: one walk per instrument, paced by tokio's timer.
#[derive(Debug)]
pub struct SimulatedSource {
    /// One walk per instrument, in catalogue order.
    walks: Vec<SimulatedWalk>,
    /// The seed, for the name in logs.
    seed: u64,
    /// Stamps ticks and decides market hours.
    clock: Arc<dyn Clock>,
}

impl SimulatedSource {
    /// A simulator for `instruments` at `ticks_per_second` per symbol.
    pub fn new(
        instruments: &[Instrument],
        seed: u64,
        ticks_per_second: u32,
        clock: Arc<dyn Clock>,
    ) -> Result<SimulatedSource, SourceError> {
        super::check_instruments(instruments)?;
        let walks = instruments
            .iter()
            .map(|i| SimulatedWalk::new(i, seed, ticks_per_second))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SimulatedSource { walks, seed, clock })
    }

    /// Paces the walks until stopped: each walk ticks after its jittered interval; a closed
    /// walk sleeps until its market reopens (looking again at least every
    /// [`SIM_CLOSED_SLEEP_MAX_MS`]). Scheduling uses tokio's monotonic clock, so a wall-clock
    /// jump changes the stamps, not the pace.
    async fn run_walks(
        mut self,
        out: mpsc::Sender<RawTick>,
        stop: CancellationToken,
    ) -> Result<SourceEnd, SourceError> {
        let start = Instant::now();
        let count = self.walks.len() as u64;
        // Stagger the first ticks over one interval rather than firing every symbol at once.
        let mut due: Vec<Instant> = (0..count)
            .map(|i| start + Duration::from_millis(i * self.walks[0].nominal_interval_ms / count))
            .collect();
        loop {
            let Some((index, &at)) = due.iter().enumerate().min_by_key(|(_, at)| **at) else {
                return Ok(SourceEnd::Finished);
            };
            tokio::select! {
                biased;
                () = stop.cancelled() => return Ok(SourceEnd::Stopped),
                () = tokio::time::sleep_until(at) => {}
            }
            let now_ms = self.clock.now_ms();
            let walk = &mut self.walks[index];
            let wait_ms = match walk.next_tick(now_ms) {
                Some(tick) => {
                    if let Some(end) = send_or_stop(&out, &stop, tick).await {
                        return Ok(end);
                    }
                    walk.interval_ms()
                }
                None => walk
                    .next_open_ms(now_ms)
                    .map_or(SIM_CLOSED_SLEEP_MAX_MS, |open| open - now_ms)
                    .clamp(1, SIM_CLOSED_SLEEP_MAX_MS),
            };
            due[index] = Instant::now() + Duration::from_millis(wait_ms);
        }
    }
}

impl PriceSource for SimulatedSource {
    fn name(&self) -> String {
        format!("simulated(seed={})", self.seed)
    }

    fn run(self: Box<Self>, out: mpsc::Sender<RawTick>, stop: CancellationToken) -> SourceFuture {
        Box::pin(self.run_walks(out, stop))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::catalogue;

    fn instrument(code: &str) -> Instrument {
        catalogue().into_iter().find(|i| i.symbol.as_str() == code).expect("in catalogue")
    }

    #[test]
    fn stream_seeds_differ_per_symbol_and_seed() {
        let btc = Symbol::new("BTCUSDT").expect("valid");
        let eth = Symbol::new("ETHUSDT").expect("valid");
        assert_ne!(stream_seed(1, btc), stream_seed(1, eth));
        assert_ne!(stream_seed(1, btc), stream_seed(2, btc));
        assert_eq!(stream_seed(1, btc), stream_seed(1, btc));
    }

    #[test]
    fn intervals_stay_within_the_jitter_band() {
        let mut walk = SimulatedWalk::new(&instrument("BTCUSDT"), 3, 4).expect("valid");
        let mut t = 0;
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..1_000 {
            assert!(walk.next_tick(t).is_some());
            let interval = walk.interval_ms();
            assert!((200..=300).contains(&interval), "{interval}");
            seen.insert(interval);
            t += interval;
        }
        assert!(seen.len() > 20, "jitter varies: {} distinct intervals", seen.len());
    }

    #[test]
    fn quantities_are_positive_and_around_the_typical_one() {
        let inst = instrument("ETHUSDT");
        let mut walk = SimulatedWalk::new(&inst, 9, 4).expect("valid");
        let mut total = Decimal::ZERO;
        let n = 4_000u32;
        for k in 0..n {
            let tick = walk.next_tick(u64::from(k) * 250).expect("crypto is open");
            assert!(tick.quantity > Decimal::ZERO);
            assert!(tick.quantity <= inst.typical_quantity * Decimal::from(20));
            total += tick.quantity;
        }
        let mean = total / Decimal::from(n);
        // Log-normal with sigma 0.7: mean factor e^(0.245) = 1.28.
        assert!(
            mean > inst.typical_quantity && mean < inst.typical_quantity * Decimal::TWO,
            "{mean}"
        );
    }

    #[test]
    fn bad_pace_is_refused() {
        assert!(matches!(
            SimulatedWalk::new(&instrument("BTCUSDT"), 1, 0),
            Err(SourceError::Config(_))
        ));
        assert!(
            SimulatedWalk::new(&instrument("BTCUSDT"), 1, SIM_TICKS_PER_SECOND_MAX + 1).is_err()
        );
    }

    #[test]
    fn prices_never_reach_zero_even_for_tiny_prices() {
        assert_eq!(price_units(-1_000.0, 8), 1);
        assert_eq!(price_units((2.45e-5f64).ln(), 8), 2_450);
    }
}
