//! Replays recorded price files at real or accelerated speed.
//!
//! Formats, detected from the header and the first rows ([`ReplayFormat`]; `#format=` forces
//! one when the guess is wrong or cannot be made):
//! - ours, ticks: `time_ms,symbol,price,quantity`, one traded price per row;
//! - ours, candles: `open_ms,symbol,open,high,low,close,volume`;
//! - OHLCV with a header, as pandas, Yahoo Finance, TradingView, MetaTrader 5 and Dukascopy
//!   write it: a date or time column (`Date`, `Datetime`, `time`, `Gmt time`, pandas' unnamed
//!   index, or `<DATE>` and `<TIME>`), `Open`, `High`, `Low`, `Close`, an optional `Volume`;
//!   other columns (`Adj Close`, `Dividends`, …) are ignored;
//! - Binance klines (12 columns: open time in ms or µs, OHLCV, close time, …), with or
//!   without a header;
//! - HistData (`20170419 090000;1.0716;…`) and MetaTrader (`2017.04.19,09:00,…`) rows without a
//!   header, `,` `;` or tab separated;
//! - any of these gzip-compressed (told by the content, not the name).
//!
//! Times are read by [`dates`]: naive times are UTC unless `#tz=` says otherwise. A file
//! without a symbol column feeds the one product its source is assigned.
//!
//! Candles are played as four ticks spread over the candle (at 0, 1/4, 1/2 and 3/4 of its
//! length): open, low, high, close for a rising candle (close >= open) and open, high, low,
//! close for a falling one (the shorter path through the four prices), each with a quarter of
//! the volume (the last takes the remainder, so they add up exactly). A candle's length is
//! Binance's close time where the file has it, else the file's period: `#period=`, or, for
//! each product, dates all at month starts or all at month ends (the first or last day or
//! weekday of each month) stepping by one calendar month (monthly) or by three (quarterly),
//! else the smallest step between consecutive candles: 28 to 31 days is a calendar month,
//! within an hour of a day or a week is that (daylight saving moves offset-aware opens by an
//! hour). A single candle lasts
//! [`REPLAY_CANDLE_DEFAULT_MS`](super::constants::REPLAY_CANDLE_DEFAULT_MS), or a day when the
//! file has dates without times. Periods run up to a month, or a calendar quarter.
//!
//! Which end of its candle a time names is told by the dates, or said by `#label=start|end`
//! (which always wins), as `replay/labels.rs` details. Times of day open their candles. Dates
//! at month ends (last day, or last weekday: pandas' `M`, `ME`, `BM`, `Q`, `BQ`) close theirs,
//! and the candle is the whole calendar month or quarter it closes: 2012-02-29 plays over February
//! 2012, from 2012-02-01T00:00 to 2012-03-01T00:00, and `BM`'s 2012-03-30 over March. Dates at
//! month starts (first day or weekday: `MS`, `BMS`, `QS`, Yahoo) open their calendar month or
//! quarter. Weekly dates on Fridays, Saturdays or Sundays (pandas' `W-FRI`, `W-SAT`, and `W`,
//! which is `W-SUN`) close their week: Sunday 2024-03-10 covers the seven days that end with
//! it, Monday 2024-03-04T00:00 to Monday 2024-03-11T00:00; on Mondays to Thursdays they open it
//! (Yahoo's, TradingView's and Binance's weeks start on Mondays). Nothing in a weekly file can
//! confirm the weekday convention, so the guess is logged naming `#label=`, but not refused:
//! both readings play the same prices at the same pace, six days apart in recorded time.
//! Everything else opens at its time, as before. A candle dated by its end on day `d` covers
//! the period that ends as `d` does (pandas' right-closed bins take in the labelled day); said
//! of a time of day (`#label=end`), it covers the period that ends at that time.
//!
//! Validation is strict and happens before the first tick plays: the whole file is read (at
//! most [`ReplayOptions::limits`]: rows, decompressed bytes, line length) and the first bad
//! row refuses the file with its line number, so a partly readable file never starts half a
//! market; every product the source serves must have rows. Rules: times never go back (a
//! time before the previous row's is an error, never reordered; a file newest-first is told
//! so), a symbol's candle times are unique; symbols are valid codes; prices are positive
//! exact decimals (our schemas: no more decimals than the instrument's precision; other
//! files, whose prices pandas writes as floats: rounded half-even to the precision, and
//! counted); quantities and volumes are >= 0; a candle's low and high bound its open and
//! close; a row whose prices are all empty, `null` or `NaN` (Yahoo's holidays) is skipped
//! and counted. Rows of valid symbols this source does not serve are skipped and counted
//! ([`ReplayFile::skipped_rows`]), so one recording can feed several sources.
//!
//! Gaps: a missing candle inside a file is reported, not refused (markets close): each gap
//! is logged as a warning with the file and the line after it ([`ReplayFile::gaps`]), except
//! missing candles whose middle falls while the product's market is closed (the forex
//! weekend is not a gap).
//!
//! Pacing: tick i plays at start + (time_i - time_0) / speed on tokio's clock (absolute
//! deadlines, so no drift accumulates); speed 0 plays as fast as the consumer takes them.
//! Ticks keep their recorded time as `source_ms`; a looping replay shifts each lap by the
//! file's span plus [`REPLAY_LOOP_GAP_MS`], so times keep increasing. The engine stamps the
//! ticks it sequences with its own clock: the product's candles are of the replay's time.

mod dates;
mod input;
mod labels;
mod layout;
mod rows;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::Read;
use std::path::{Path, PathBuf};

use engine::types::Symbol;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use tokio::sync::mpsc;
use tokio::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

pub use dates::{DateOrder, TimeUnit};
pub(crate) use layout::ACCEPTED as ACCEPTED_FORMATS;

use super::constants::{
    REPLAY_FILE_BYTES_MAX, REPLAY_GAPS_KEPT_MAX, REPLAY_LINE_BYTES_MAX, REPLAY_LOOP_GAP_MS,
    REPLAY_ROWS_MAX, REPLAY_SPEED_MAX,
};
use super::{send_or_stop, PriceSource, SourceEnd, SourceError, SourceFuture};
use crate::catalogue::Instrument;
use crate::types::RawTick;

/// Which format a file is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplayFormat {
    /// Ours: `time_ms,symbol,price,quantity`.
    Ticks,
    /// Ours: `open_ms,symbol,open,high,low,close,volume`.
    Candles,
    /// A time column and open, high, low, close (and volume): by header names (pandas, Yahoo,
    /// TradingView, MetaTrader 5, Dukascopy), or in that order without a header.
    Ohlcv,
    /// Binance klines: open time (ms or µs), OHLCV, close time, …; header optional.
    Binance,
    /// HistData rows without a header: `20170419 090000;open;high;low;close;volume`.
    HistData,
    /// MetaTrader rows without a header: `2017.04.19,09:00,open,high,low,close,volume`.
    MetaTrader,
}

impl ReplayFormat {
    /// Every format, as `#format=` names them.
    pub const ALL: [ReplayFormat; 6] = [
        ReplayFormat::Ticks,
        ReplayFormat::Candles,
        ReplayFormat::Ohlcv,
        ReplayFormat::Binance,
        ReplayFormat::HistData,
        ReplayFormat::MetaTrader,
    ];

    /// The name `#format=` takes.
    pub fn name(self) -> &'static str {
        match self {
            ReplayFormat::Ticks => "ticks",
            ReplayFormat::Candles => "candles",
            ReplayFormat::Ohlcv => "ohlcv",
            ReplayFormat::Binance => "binance",
            ReplayFormat::HistData => "histdata",
            ReplayFormat::MetaTrader => "metatrader",
        }
    }
}

/// How long a file's candles are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CandlePeriod {
    /// This many milliseconds each.
    Fixed(u64),
    /// A calendar month each (on the file's clock).
    Month,
    /// Three calendar months each (on the file's clock).
    Quarter,
}

impl CandlePeriod {
    /// `30s`, `1m`, `15m`, `1h`, `4h`, `1d`, `1w`, `1M` (also `1mo`) for a calendar month, or
    /// `1Q` (also `3M`, `3mo`) for three.
    pub fn parse(text: &str) -> Option<CandlePeriod> {
        if matches!(text, "1M" | "1mo" | "1month") {
            return Some(CandlePeriod::Month);
        }
        if matches!(text, "1Q" | "3M" | "3mo" | "1quarter") {
            return Some(CandlePeriod::Quarter);
        }
        let split = text.find(|c: char| !c.is_ascii_digit())?;
        let count: u64 = text[..split].parse().ok().filter(|n| *n > 0)?;
        let unit_ms = match &text[split..] {
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => dates::DAY_MS,
            "w" => 7 * dates::DAY_MS,
            _ => return None,
        };
        count.checked_mul(unit_ms).map(CandlePeriod::Fixed)
    }
}

impl std::fmt::Display for CandlePeriod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            CandlePeriod::Month => f.write_str("a month"),
            CandlePeriod::Quarter => f.write_str("a quarter"),
            CandlePeriod::Fixed(ms) if ms % dates::DAY_MS == 0 => {
                write!(f, "{}d", ms / dates::DAY_MS)
            }
            CandlePeriod::Fixed(ms) if ms % 3_600_000 == 0 => write!(f, "{}h", ms / 3_600_000),
            CandlePeriod::Fixed(ms) if ms % 60_000 == 0 => write!(f, "{}m", ms / 60_000),
            CandlePeriod::Fixed(ms) => write!(f, "{ms} ms"),
        }
    }
}

/// Which end of its period a candle's time names (`#label=`; otherwise told by the file's
/// dates, as this module's documentation says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CandleLabel {
    /// The time opens the candle (Yahoo, TradingView, Binance, MetaTrader, pandas' `MS`).
    Start,
    /// The time closes it: a date is the candle's last day (pandas' `M`, `BM`, `W`, `Q`).
    End,
}

impl CandleLabel {
    /// The name `#label=` takes.
    pub fn name(self) -> &'static str {
        match self {
            CandleLabel::Start => "start",
            CandleLabel::End => "end",
        }
    }
}

/// Bounds on what a replay file may cost to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplayLimits {
    /// Data rows.
    pub rows_max: usize,
    /// Bytes once decompressed.
    pub file_bytes_max: u64,
    /// Bytes per line, its newline included.
    pub line_bytes_max: usize,
}

impl Default for ReplayLimits {
    fn default() -> ReplayLimits {
        ReplayLimits {
            rows_max: REPLAY_ROWS_MAX,
            file_bytes_max: REPLAY_FILE_BYTES_MAX,
            line_bytes_max: REPLAY_LINE_BYTES_MAX,
        }
    }
}

/// What to assume where a file leaves a question open; the default detects everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplayOptions {
    /// `#format=`: read the file as this format.
    pub format: Option<ReplayFormat>,
    /// `#time=s|ms|us`: the unit of times written as numbers (otherwise told by their size).
    pub time_unit: Option<TimeUnit>,
    /// `#dates=dmy|mdy`: the order of dates that put the year last.
    pub date_order: Option<DateOrder>,
    /// `#tz=+01:00`: the UTC offset of times that carry none (ms east of UTC; 0 = UTC).
    pub utc_offset_ms: i64,
    /// `#period=1h`: the candles' length (otherwise inferred).
    pub period: Option<CandlePeriod>,
    /// `#label=start|end`: which end of its candle a time names (otherwise told by the dates,
    /// else the start).
    pub label: Option<CandleLabel>,
    /// Bounds on the file.
    pub limits: ReplayLimits,
}

impl ReplayOptions {
    /// Parses `key=value` pairs separated by commas: `format=binance,time=us,dates=dmy,
    /// tz=-05:00,period=1h,label=end`.
    pub fn parse(text: &str) -> Result<ReplayOptions, String> {
        let mut options = ReplayOptions::default();
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("option {pair:?}: expected key=value"))?;
            let (key, value) = (key.trim(), value.trim());
            match key {
                "format" => {
                    let format = ReplayFormat::ALL.into_iter().find(|f| f.name() == value);
                    options.format = Some(format.ok_or_else(|| {
                        let names: Vec<&str> = ReplayFormat::ALL.iter().map(|f| f.name()).collect();
                        format!("format={value}: expected one of {}", names.join(", "))
                    })?);
                }
                "time" => {
                    options.time_unit = Some(match value {
                        "s" => TimeUnit::Seconds,
                        "ms" => TimeUnit::Millis,
                        "us" | "µs" => TimeUnit::Micros,
                        _ => return Err(format!("time={value}: expected s, ms or us")),
                    });
                }
                "dates" => {
                    options.date_order = Some(match value {
                        "dmy" => DateOrder::DayFirst,
                        "mdy" => DateOrder::MonthFirst,
                        _ => return Err(format!("dates={value}: expected dmy or mdy")),
                    });
                }
                "tz" => {
                    options.utc_offset_ms = dates::parse_offset(value)
                        .map_err(|e| format!("tz={value}: {e}; named zones are not read"))?;
                }
                "period" => {
                    options.period = Some(CandlePeriod::parse(value).ok_or_else(|| {
                        format!("period={value}: expected e.g. 1m, 15m, 1h, 4h, 1d, 1w, 1M or 1Q")
                    })?);
                }
                "label" => {
                    options.label = Some(match value {
                        "start" => CandleLabel::Start,
                        "end" => CandleLabel::End,
                        _ => {
                            return Err(format!(
                                "label={value}: expected start (each time opens its candle) \
                                 or end (each time closes it)"
                            ))
                        }
                    });
                }
                _ => {
                    return Err(format!(
                        "unknown option {key:?}; options are format, time, dates, tz, period \
                         and label"
                    ))
                }
            }
        }
        Ok(options)
    }
}

/// A stretch of a file with missing candles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    /// Line of the first candle after the gap.
    pub line: u64,
    /// Whose candles are missing.
    pub symbol: Symbol,
    /// End of the candle before the gap (ms).
    pub from_ms: u64,
    /// Open of the candle after it (ms).
    pub to_ms: u64,
    /// Candles missing while the market was open.
    pub missing: u64,
}

/// A candle to play as four ticks.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PlayCandle {
    /// Start (ms).
    open_ms: u64,
    /// A quarter of its length (ms).
    quarter_ms: u64,
    symbol: Symbol,
    /// The four prices in playing order.
    path: [Decimal; 4],
    volume: Decimal,
}

impl PlayCandle {
    /// Tick `k` (0 to 3) of the candle.
    fn tick(&self, k: u8) -> RawTick {
        let part = self.volume / Decimal::from(4);
        let quantity = if k == 3 { self.volume - part * Decimal::from(3) } else { part };
        RawTick {
            symbol: self.symbol,
            price: self.path[usize::from(k)],
            quantity,
            source_ms: self.open_ms + u64::from(k) * self.quarter_ms,
        }
    }
}

/// What a file plays: its ticks, or its candles expanded as they play (four ticks per candle
/// need not be held in memory at once).
#[derive(Clone, Debug)]
enum Recording {
    /// Ticks in time order.
    Ticks(Vec<RawTick>),
    /// Candles in the file's (time) order.
    Candles(Vec<PlayCandle>),
}

/// A validated recording, ready to play.
#[derive(Clone, Debug)]
pub struct ReplayFile {
    /// Where it was read from (for logs and errors).
    path: PathBuf,
    /// Its format.
    format: ReplayFormat,
    /// What it plays; never empty.
    recording: Recording,
    /// Time of the first and the last tick.
    span_ms: (u64, u64),
    /// Rows of symbols this source does not serve.
    skipped_rows: u64,
    /// Rows without prices (`null`, empty), skipped.
    empty_rows: u64,
    /// Prices rounded to the instrument's precision.
    rounded_prices: u64,
    /// The first gaps.
    gaps: Vec<Gap>,
    /// Every gap.
    gap_count: u64,
    /// Which end of its candles each product's times name (none for ticks).
    labels: Vec<(Symbol, CandleLabel)>,
}

/// The ticks of a [`ReplayFile`], in time order.
#[derive(Debug)]
pub struct Ticks<'a> {
    /// Where they come from.
    inner: TicksInner<'a>,
    /// Ticks not yet returned.
    left: usize,
}

#[derive(Debug)]
enum TicksInner<'a> {
    /// A tick file.
    Ticks(std::slice::Iter<'a, RawTick>),
    /// Candles merged in time: each candle's next tick waits in a heap keyed by (time, candle,
    /// tick), so ties keep the file's order and one candle's ticks their own.
    Candles { candles: &'a [PlayCandle], next: usize, heap: BinaryHeap<Reverse<(u64, usize, u8)>> },
}

impl Iterator for Ticks<'_> {
    type Item = RawTick;

    fn next(&mut self) -> Option<RawTick> {
        let tick = match &mut self.inner {
            TicksInner::Ticks(ticks) => ticks.next().cloned(),
            TicksInner::Candles { candles, next, heap } => {
                // Admit every candle that opens no later than the earliest waiting tick.
                while let Some(candle) = candles.get(*next) {
                    match heap.peek() {
                        Some(Reverse((at, _, _))) if *at < candle.open_ms => break,
                        _ => {
                            heap.push(Reverse((candle.open_ms, *next, 0)));
                            *next += 1;
                        }
                    }
                }
                let Reverse((_, at, k)) = heap.pop()?;
                let candle = &candles[at];
                if k < 3 {
                    let due = candle.open_ms + u64::from(k + 1) * candle.quarter_ms;
                    heap.push(Reverse((due, at, k + 1)));
                }
                Some(candle.tick(k))
            }
        };
        self.left = self.left.saturating_sub(1);
        tick
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Ticks<'_> {}

impl ReplayFile {
    /// Reads and validates `path` for `instruments`, detecting its format.
    pub fn load(path: &Path, instruments: &[Instrument]) -> Result<ReplayFile, SourceError> {
        ReplayFile::load_with(path, instruments, &ReplayOptions::default())
    }

    /// Reads and validates `path` for `instruments` with `options`.
    pub fn load_with(
        path: &Path,
        instruments: &[Instrument],
        options: &ReplayOptions,
    ) -> Result<ReplayFile, SourceError> {
        let file = std::fs::File::open(path)
            .map_err(|source| SourceError::Io { path: path.to_path_buf(), source })?;
        ReplayFile::parse_with(file, path, instruments, options)
    }

    /// Reads and validates a file's bytes from `reader`, detecting its format; `path` names it
    /// in errors.
    pub fn parse(
        reader: impl Read,
        path: &Path,
        instruments: &[Instrument],
    ) -> Result<ReplayFile, SourceError> {
        ReplayFile::parse_with(reader, path, instruments, &ReplayOptions::default())
    }

    /// Reads and validates a file's bytes (plain or gzip) from `reader` with `options`.
    pub fn parse_with(
        reader: impl Read,
        path: &Path,
        instruments: &[Instrument],
        options: &ReplayOptions,
    ) -> Result<ReplayFile, SourceError> {
        let read = rows::read(reader, path, instruments, options)?;
        let span_ms = match &read.recording {
            Recording::Ticks(ticks) => (ticks[0].source_ms, ticks[ticks.len() - 1].source_ms),
            Recording::Candles(candles) => (
                candles[0].open_ms,
                candles.iter().map(|c| c.open_ms + 3 * c.quarter_ms).max().unwrap_or(0),
            ),
        };
        let file = ReplayFile {
            path: path.to_path_buf(),
            format: read.format,
            recording: read.recording,
            span_ms,
            skipped_rows: read.skipped_rows,
            empty_rows: read.empty_rows,
            rounded_prices: read.rounded_prices,
            gaps: read.gaps,
            gap_count: read.gap_count,
            labels: read.labels,
        };
        file.log();
        Ok(file)
    }

    /// Says what was read, and every gap kept.
    fn log(&self) {
        let file = self.path.display();
        let mut names: Vec<&str> = self.labels.iter().map(|(_, l)| l.name()).collect();
        names.dedup();
        let labels = match names[..] {
            [] => String::new(),
            [one] => one.to_owned(),
            _ => {
                let each: Vec<String> =
                    self.labels.iter().map(|(s, l)| format!("{s} {}", l.name())).collect();
                each.join(", ")
            }
        };
        tracing::info!(
            %file,
            format = self.format.name(),
            %labels,
            ticks = self.tick_count(),
            from = %dates::show(self.span_ms.0),
            to = %dates::show(self.span_ms.1),
            skipped_rows = self.skipped_rows,
            empty_rows = self.empty_rows,
            rounded_prices = self.rounded_prices,
            gaps = self.gap_count,
            "replay file read"
        );
        for gap in &self.gaps {
            tracing::warn!(
                "{file}:{}: gap: {} candles of {} missing from {} to {}",
                gap.line,
                gap.missing,
                gap.symbol,
                dates::show(gap.from_ms),
                dates::show(gap.to_ms)
            );
        }
        let unlisted = self.gap_count.saturating_sub(self.gaps.len() as u64);
        if unlisted > 0 {
            tracing::warn!(
                "{file}: {unlisted} more gaps (only the first {REPLAY_GAPS_KEPT_MAX} are listed)"
            );
        }
    }

    /// The ticks to play, in time order.
    pub fn ticks(&self) -> Ticks<'_> {
        let inner = match &self.recording {
            Recording::Ticks(ticks) => TicksInner::Ticks(ticks.iter()),
            Recording::Candles(candles) => {
                TicksInner::Candles { candles, next: 0, heap: BinaryHeap::new() }
            }
        };
        Ticks { inner, left: self.tick_count() }
    }

    /// How many ticks the file plays.
    pub fn tick_count(&self) -> usize {
        match &self.recording {
            Recording::Ticks(ticks) => ticks.len(),
            Recording::Candles(candles) => 4 * candles.len(),
        }
    }

    /// The file's format.
    pub fn format(&self) -> ReplayFormat {
        self.format
    }

    /// Rows skipped because this source does not serve their symbol.
    pub fn skipped_rows(&self) -> u64 {
        self.skipped_rows
    }

    /// Rows skipped because they have no prices (`null`, `NaN` or empty).
    pub fn empty_rows(&self) -> u64 {
        self.empty_rows
    }

    /// Prices that had more decimals than their instrument's precision and were rounded.
    pub fn rounded_prices(&self) -> u64 {
        self.rounded_prices
    }

    /// The file's first gaps (at most [`REPLAY_GAPS_KEPT_MAX`]), in file order.
    pub fn gaps(&self) -> &[Gap] {
        &self.gaps
    }

    /// How many gaps the file has.
    pub fn gap_count(&self) -> u64 {
        self.gap_count
    }

    /// Which end of its candles each product's times name, products in the order the file
    /// first has them; empty for a tick file.
    pub fn labels(&self) -> &[(Symbol, CandleLabel)] {
        &self.labels
    }

    /// Where the file was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Plays a [`ReplayFile`].
#[derive(Debug)]
pub struct ReplaySource {
    /// The validated recording.
    file: ReplayFile,
    /// Playback factor; zero plays as fast as consumed.
    speed: Decimal,
    /// Start again after the last tick.
    loop_forever: bool,
}

impl ReplaySource {
    /// A player for `file` at `speed` (0 to [`REPLAY_SPEED_MAX`]; 0 = unpaced).
    pub fn new(
        file: ReplayFile,
        speed: Decimal,
        loop_forever: bool,
    ) -> Result<ReplaySource, SourceError> {
        if speed.is_sign_negative() || speed > Decimal::from(REPLAY_SPEED_MAX) {
            return Err(SourceError::Config(format!(
                "replay speed must be 0 to {REPLAY_SPEED_MAX}, not {speed}"
            )));
        }
        Ok(ReplaySource { file, speed, loop_forever })
    }

    /// Tokio time after the start at which a tick `recorded_ms` into the replay plays.
    fn offset(&self, recorded_ms: u64) -> Option<Duration> {
        if self.speed.is_zero() {
            return None;
        }
        let micros = Decimal::from(recorded_ms) * Decimal::from(1_000) / self.speed;
        // Past u64 microseconds (half a million years) means "never": saturate.
        Some(Duration::from_micros(micros.ceil().to_u64().unwrap_or(u64::MAX)))
    }

    async fn play(
        self,
        out: mpsc::Sender<RawTick>,
        stop: CancellationToken,
    ) -> Result<SourceEnd, SourceError> {
        let start = Instant::now();
        tracing::info!(
            file = %self.file.path.display(),
            ticks = self.file.tick_count(),
            skipped_rows = self.file.skipped_rows,
            speed = %self.speed,
            loop_forever = self.loop_forever,
            "replay starts"
        );
        let (first_ms, last_ms) = self.file.span_ms;
        let lap_ms = last_ms - first_ms + REPLAY_LOOP_GAP_MS;
        let mut lap: u64 = 0;
        loop {
            let shift_ms = lap.saturating_mul(lap_ms);
            for tick in self.file.ticks() {
                let recorded_ms = (tick.source_ms - first_ms).saturating_add(shift_ms);
                if let Some(offset) = self.offset(recorded_ms) {
                    tokio::select! {
                        biased;
                        () = stop.cancelled() => return Ok(SourceEnd::Stopped),
                        () = tokio::time::sleep_until(start + offset) => {}
                    }
                }
                let source_ms = tick.source_ms.saturating_add(shift_ms);
                if let Some(end) = send_or_stop(&out, &stop, RawTick { source_ms, ..tick }).await {
                    return Ok(end);
                }
            }
            if !self.loop_forever {
                return Ok(SourceEnd::Finished);
            }
            lap += 1;
        }
    }
}

impl PriceSource for ReplaySource {
    fn name(&self) -> String {
        let file = self.file.path.file_name().map_or_else(
            || self.file.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        format!("replay:{file}")
    }

    fn run(self: Box<Self>, out: mpsc::Sender<RawTick>, stop: CancellationToken) -> SourceFuture {
        Box::pin(self.play(out, stop))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::catalogue;
    use crate::source::constants::REPLAY_TIME_MAX_MS;

    /// Parses `text` for BTCUSDT alone.
    fn parse(text: &str) -> Result<ReplayFile, SourceError> {
        ReplayFile::parse(text.as_bytes(), Path::new("mem.csv"), &catalogue()[..1])
    }

    fn line_of(result: Result<ReplayFile, SourceError>) -> (u64, String) {
        match result {
            Err(SourceError::BadRow { line, reason, .. }) => (line, reason),
            other => panic!("expected a bad row, got {other:?}"),
        }
    }

    #[test]
    fn every_kind_of_bad_row_is_refused_with_its_line() {
        let head = "time_ms,symbol,price,quantity\n1000,BTCUSDT,96500.10,0.5\n";
        let cases = [
            ("x,BTCUSDT,1.00,1", "whole number"),
            ("2000,btc/usdt,1.00,1", "product code"),
            ("2000,BTCUSDT,abc,1", "exact decimal"),
            ("2000,BTCUSDT,-1.00,1", "negative"),
            ("2000,BTCUSDT,0,1", "positive"),
            ("2000,BTCUSDT,1.001,1", "more decimals"),
            ("2000,BTCUSDT,1.00,-2", "negative"),
            ("999,BTCUSDT,1.00,1", "before the previous"),
            ("2000,BTCUSDT,1.00", "fields"),
        ];
        for (row, why) in cases {
            let (line, reason) = line_of(parse(&format!("{head}{row}\n")));
            assert_eq!(line, 3, "{row}");
            assert!(reason.contains(why), "{row}: {reason}");
        }
    }

    #[test]
    fn candle_bounds_and_duplicates_are_checked() {
        let head = "open_ms,symbol,open,high,low,close,volume\n";
        let (line, reason) = line_of(parse(&format!("{head}0,BTCUSDT,10.00,9.00,8.00,9.50,1\n")));
        assert_eq!(line, 2);
        assert!(reason.contains("do not bound"), "{reason}");
        let twice = format!(
            "{head}0,BTCUSDT,10.00,11.00,9.00,10.50,1\n0,BTCUSDT,10.00,11.00,9.00,10.50,1\n"
        );
        let (line, reason) = line_of(parse(&twice));
        assert_eq!(line, 3);
        assert!(reason.contains("second"), "{reason}");
    }

    #[test]
    fn unknown_headers_and_empty_files_are_refused() {
        assert!(matches!(parse("when,what\n1,2\n"), Err(SourceError::UnknownFormat { .. })));
        assert!(matches!(parse("time_ms,symbol,price,quantity\n"), Err(SourceError::Config(_))));
    }

    #[test]
    fn rows_of_other_symbols_are_skipped_and_counted() {
        let file = ReplayFile::parse(
            "time_ms,symbol,price,quantity\n1,BTCUSDT,1.00,1\n2,FOOBAR,1.234567,1\n".as_bytes(),
            Path::new("mem.csv"),
            &catalogue()[..1],
        )
        .expect("valid");
        assert_eq!(file.ticks().len(), 1);
        assert_eq!(file.skipped_rows(), 1);
    }

    #[test]
    fn a_single_candle_uses_the_default_length_and_splits_volume_exactly() {
        let file = parse(
            "open_ms,symbol,open,high,low,close,volume\n0,BTCUSDT,10.00,11.00,9.00,9.50,1.001\n",
        )
        .expect("valid");
        let ticks: Vec<RawTick> = file.ticks().collect();
        let times: Vec<u64> = ticks.iter().map(|t| t.source_ms).collect();
        assert_eq!(times, [0, 15_000, 30_000, 45_000]);
        let prices: Vec<String> = ticks.iter().map(|t| t.price.to_string()).collect();
        assert_eq!(prices, ["10.00", "11.00", "9.00", "9.50"], "falling: open, high, low, close");
        let volume: Decimal = ticks.iter().map(|t| t.quantity).sum();
        assert_eq!(volume, Decimal::new(1_001, 3));
    }

    /// Found with the fuzz target `fuzz/fuzz_targets/csv_replay.rs` (a crafted input): a candle
    /// near `u64::MAX` ms overflowed when its four ticks were spread over its length.
    #[test]
    fn times_past_the_bound_are_refused_with_their_line() {
        let candles = "open_ms,symbol,open,high,low,close,volume\n";
        let row = |open_ms: u64| format!("{open_ms},BTCUSDT,1.00,1.00,1.00,1.00,1\n");
        for late in [u64::MAX, REPLAY_TIME_MAX_MS + 1] {
            let (line, reason) = line_of(parse(&format!("{candles}{}", row(late))));
            assert_eq!(line, 2);
            assert!(reason.contains("is past"), "{reason}");
            let (line, _) = line_of(parse(&format!("{candles}{}{}", row(0), row(late))));
            assert_eq!(line, 3);
            let ticks =
                format!("time_ms,symbol,price,quantity\n0,BTCUSDT,1.00,1\n{late},BTCUSDT,1.00,1\n");
            assert_eq!(line_of(parse(&ticks)).0, 3);
        }
        let last_minute = REPLAY_TIME_MAX_MS - 60_000;
        let file = parse(&format!("{candles}{}{}", row(last_minute), row(REPLAY_TIME_MAX_MS)))
            .expect("valid");
        assert_eq!(file.ticks().last().map(|t| t.source_ms), Some(REPLAY_TIME_MAX_MS + 45_000));
    }

    #[test]
    fn speed_is_bounded() {
        let file = parse("time_ms,symbol,price,quantity\n1,BTCUSDT,1.00,1\n").expect("valid");
        assert!(ReplaySource::new(file.clone(), Decimal::NEGATIVE_ONE, false).is_err());
        assert!(ReplaySource::new(file, Decimal::from(REPLAY_SPEED_MAX + 1), false).is_err());
    }
}
