//! Price sources behind one interface: the seeded simulator, a replay of recorded files and a
//! live exchange adapter.
//!
//! | module | what it holds |
//! |---|---|
//! | [`simulated`] | the embedded default: a seeded geometric random walk per symbol |
//! | [`replay`] | recorded tick or OHLCV files (ours, pandas/Yahoo, Binance, HistData, MetaTrader; plain or gzip) played at real or accelerated speed |
//! | [`exchange`] | live exchanges over a websocket, with reconnects: the shared core, and one module per venue ([`exchange::binance`], [`exchange::okx`]: subscription, frames, keepalive) |
//! | [`constants`] | every bound of the sources, units last |
//!
//! A source is chosen per product in configuration ([`SourceConfig`]); a runner holds a
//! `Vec<Box<dyn PriceSource>>`, gives each a bounded channel and one cancellation token, and
//! turns what arrives into engine commands. Sources only report prices: they never sequence,
//! stamp or settle anything.

pub mod constants;
pub mod exchange;
pub mod replay;
pub mod simulated;

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use engine::types::Symbol;
use rust_decimal::Decimal;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::catalogue::Instrument;
use crate::types::RawTick;

pub use exchange::{ExchangeConfig, ExchangeSource, StreamKind, Venue};
pub use replay::{ReplayFile, ReplayOptions, ReplaySource};
pub use simulated::{SimulatedSource, SimulatedWalk};

/// What [`PriceSource::run`] returns: a boxed future, so the trait stays dyn-compatible.
pub type SourceFuture = Pin<Box<dyn Future<Output = Result<SourceEnd, SourceError>> + Send>>;

/// One price source. Sources are chosen per product, so a runner holds them as
/// `Box<dyn PriceSource>`.
pub trait PriceSource: Send + 'static {
    /// Human-readable name for logs ("simulated", "replay:file.csv", "exchange:wss://…",
    /// "exchange:okx:wss://…").
    fn name(&self) -> String;

    /// Runs until `stop` is cancelled or the source ends; sends ticks into `out` (a bounded
    /// channel). Returns how it ended; an error is a failure the source could not recover from.
    fn run(self: Box<Self>, out: mpsc::Sender<RawTick>, stop: CancellationToken) -> SourceFuture;
}

/// How a source ended without failing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SourceEnd {
    /// The stop token was cancelled.
    Stopped,
    /// A replay that does not loop played its last row.
    Finished,
    /// The receiving side of the channel was dropped: nobody listens any more.
    OutputClosed,
}

/// Why a source could not be built or could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// The configuration is unusable (the reason says which part).
    #[error("invalid source configuration: {0}")]
    Config(String),
    /// A replay file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A replay file's header is of no format the replay reads.
    #[error("{path}:1: unknown header {header:?}; expected {}", replay::ACCEPTED_FORMATS)]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// The header as read.
        header: String,
    },
    /// A replay row is malformed, out of order or inconsistent; the whole file is refused.
    #[error("{path}:{line}: {reason}")]
    BadRow {
        /// The file.
        path: PathBuf,
        /// 1-based line number in the file (the header is line 1).
        line: u64,
        /// What is wrong with the row.
        reason: String,
    },
    /// The exchange refused the subscription (wrong stream names are not fixed by retrying).
    #[error("exchange refused the subscription: {0}")]
    Rejected(String),
    /// The exchange could not be reached for too many consecutive attempts.
    #[error("exchange unreachable after {attempts} attempts; last error: {last}")]
    ReconnectsExhausted {
        /// Consecutive failed attempts.
        attempts: u32,
        /// The last failure, as text.
        last: String,
    },
}

/// A source of the current Unix time in milliseconds. Sources stamp `source_ms` and check
/// market hours with it; tests substitute a clock that follows tokio's paused time.
pub trait Clock: Send + Sync + std::fmt::Debug + 'static {
    /// Milliseconds since 1970-01-01 00:00 UTC.
    fn now_ms(&self) -> u64;
}

/// The operating system's wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        // A clock before 1970 is a broken machine; report the epoch rather than panic.
        since.map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }
}

/// A clock that starts at a chosen Unix time and then follows tokio's clock, so it advances
/// with `tokio::time::pause`/`advance` in tests (and monotonically in production).
#[derive(Clone, Copy, Debug)]
pub struct TokioClock {
    /// Unix time (ms) at `origin`.
    origin_ms: u64,
    /// tokio's instant when the clock was made.
    origin: tokio::time::Instant,
}

impl TokioClock {
    /// A clock reading `origin_ms` now. Must be called inside a tokio runtime when time is
    /// paused, so that it follows the paused clock.
    pub fn starting_at(origin_ms: u64) -> TokioClock {
        TokioClock { origin_ms, origin: tokio::time::Instant::now() }
    }
}

impl Clock for TokioClock {
    fn now_ms(&self) -> u64 {
        let elapsed = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.origin_ms.saturating_add(elapsed)
    }
}

/// Which source serves a set of products, as configuration says.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SourceConfig {
    /// The embedded seeded simulator.
    Simulated {
        /// Seed of every symbol's random stream: same seed, same prices.
        seed: u64,
        /// Ticks per second per symbol (1 to [`constants::SIM_TICKS_PER_SECOND_MAX`]).
        ticks_per_second: u32,
    },
    /// A recorded file of ticks or OHLCV candles in one of the formats [`replay`] reads.
    Replay {
        /// The file.
        path: PathBuf,
        /// Playback factor: 1 = real time, 10 = ten times faster, 0 = as fast as consumed.
        speed: Decimal,
        /// Start again from the first row after the last one, until stopped.
        loop_forever: bool,
        /// What to assume where the file leaves a question open (format, time unit, date
        /// order, time zone, period); the default detects everything.
        options: ReplayOptions,
    },
    /// A live exchange's public market streams.
    Exchange {
        /// Whose protocol: Binance's, or OKX's.
        venue: Venue,
        /// Websocket endpoint, e.g. `wss://stream.binance.com:9443/stream` or
        /// `wss://ws.okx.com:8443/ws/v5/public`.
        url: String,
        /// Our product code -> the exchange's symbol; products missing here map to themselves.
        symbols: HashMap<Symbol, String>,
    },
}

impl SourceConfig {
    /// Where prices come from, as the back-office shows it: `simulated`, `replay: FILE` or
    /// `exchange: HOST` (no paths beyond the file name, no credentials).
    pub fn label(&self) -> String {
        match self {
            SourceConfig::Simulated { .. } => "simulated".into(),
            SourceConfig::Replay { path, .. } => {
                let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
                format!("replay: {}", file.unwrap_or_default())
            }
            SourceConfig::Exchange { url, .. } => {
                let host = url.split("://").nth(1).unwrap_or(url).split(['/', '@', '?']).next();
                format!("exchange: {}", host.unwrap_or_default())
            }
        }
    }

    /// The simulator with its default pace, seeded.
    pub fn simulated(seed: u64) -> SourceConfig {
        SourceConfig::Simulated { seed, ticks_per_second: constants::SIM_TICKS_PER_SECOND_DEFAULT }
    }

    /// Builds the source for `instruments`. Replay files are read and validated here, so a bad
    /// file stops the start with its line number rather than half-way through a replay.
    pub fn build(
        &self,
        instruments: &[Instrument],
        clock: Arc<dyn Clock>,
    ) -> Result<Box<dyn PriceSource>, SourceError> {
        check_instruments(instruments)?;
        Ok(match self {
            SourceConfig::Simulated { seed, ticks_per_second } => {
                Box::new(SimulatedSource::new(instruments, *seed, *ticks_per_second, clock)?)
            }
            SourceConfig::Replay { path, speed, loop_forever, options } => {
                let file = ReplayFile::load_with(path, instruments, options)?;
                Box::new(ReplaySource::new(file, *speed, *loop_forever)?)
            }
            SourceConfig::Exchange { venue, url, symbols } => {
                let config = ExchangeConfig::for_venue(*venue, url, instruments, symbols)?;
                Box::new(ExchangeSource::new(config, clock)?)
            }
        })
    }
}

impl SourceConfig {
    /// A replay of `path` whose format and settings are detected from the file.
    pub fn replay(path: impl Into<PathBuf>, speed: Decimal, loop_forever: bool) -> SourceConfig {
        SourceConfig::Replay {
            path: path.into(),
            speed,
            loop_forever,
            options: ReplayOptions::default(),
        }
    }
}

/// Refuses an empty or oversized instrument set, and duplicates.
fn check_instruments(instruments: &[Instrument]) -> Result<(), SourceError> {
    if instruments.is_empty() || instruments.len() > constants::SOURCE_INSTRUMENTS_MAX {
        return Err(SourceError::Config(format!(
            "a source serves 1 to {} instruments, not {}",
            constants::SOURCE_INSTRUMENTS_MAX,
            instruments.len()
        )));
    }
    let mut seen = std::collections::HashSet::new();
    for i in instruments {
        if !seen.insert(i.symbol) {
            return Err(SourceError::Config(format!("{} is listed twice", i.symbol)));
        }
    }
    Ok(())
}

/// Sends one tick unless `stop` fires first. `Some(end)` means the source must end.
async fn send_or_stop(
    out: &mpsc::Sender<RawTick>,
    stop: &CancellationToken,
    tick: RawTick,
) -> Option<SourceEnd> {
    tokio::select! {
        biased;
        () = stop.cancelled() => Some(SourceEnd::Stopped),
        sent = out.send(tick) => sent.err().map(|_| SourceEnd::OutputClosed),
    }
}

/// `value` at exactly `precision` decimal places, if that loses nothing.
pub(crate) fn at_precision(value: Decimal, precision: u8) -> Option<Decimal> {
    let dp = u32::from(precision);
    let normal = value.normalize();
    if normal.scale() > dp {
        return None;
    }
    let mut scaled = normal;
    scaled.rescale(dp);
    (scaled == value).then_some(scaled)
}
