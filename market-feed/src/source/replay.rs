//! Replays recorded CSV files at real or accelerated speed.
//!
//! Two formats, told apart by the header line:
//! - ticks: `time_ms,symbol,price,quantity`, one traded price per row;
//! - candles: `open_ms,symbol,open,high,low,close,volume`, one OHLCV candle per row, replayed
//!   as four ticks spread evenly over the candle (at 0, 1/4, 1/2 and 3/4 of its length):
//!   open, low, high, close for a rising candle (close >= open) and open, high, low, close for
//!   a falling one, each with a quarter of the volume (the last takes the remainder, so the
//!   four add up exactly). A candle's length is the smallest gap between two consecutive
//!   candles of its symbol ([`REPLAY_CANDLE_DEFAULT_MS`] if it has only one).
//!
//! Validation is strict and happens before the first tick plays: the whole file is read into
//! memory (at most [`REPLAY_ROWS_MAX`] rows) and the first bad row refuses the file with its
//! line number. Skipping bad rows would change the prices contracts settle on without anyone
//! noticing; a refused file is noticed at start-up. Rules: times are non-decreasing over the
//! whole file and at most [`REPLAY_TIME_MAX_MS`]; symbols are valid codes; prices are
//! positive, exact, and have no more decimals than the instrument's precision; quantities and
//! volumes are >= 0; a candle's low and high bound its open and close. Rows of valid symbols this source does not serve are skipped and
//! counted ([`ReplayFile::skipped_rows`]), so one recording can feed several sources.
//!
//! Pacing: tick i plays at start + (time_i - time_0) / speed on tokio's clock (absolute
//! deadlines, so no drift accumulates); speed 0 plays as fast as the consumer takes them.
//! Ticks keep their recorded time as `source_ms`; a looping replay shifts each lap by the
//! file's span plus [`REPLAY_LOOP_GAP_MS`], so times keep increasing.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use engine::types::Symbol;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use tokio::sync::mpsc;
use tokio::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

use super::constants::{
    REPLAY_CANDLE_DEFAULT_MS, REPLAY_LOOP_GAP_MS, REPLAY_ROWS_MAX, REPLAY_SPEED_MAX,
    REPLAY_TIME_MAX_MS,
};
use super::{at_precision, send_or_stop, PriceSource, SourceEnd, SourceError, SourceFuture};
use crate::catalogue::Instrument;
use crate::types::RawTick;

/// The header of a tick file.
const TICK_HEADER: [&str; 4] = ["time_ms", "symbol", "price", "quantity"];
/// The header of a candle file.
const CANDLE_HEADER: [&str; 7] = ["open_ms", "symbol", "open", "high", "low", "close", "volume"];

/// Which of the two formats a file is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplayFormat {
    /// `time_ms,symbol,price,quantity`.
    Ticks,
    /// `open_ms,symbol,open,high,low,close,volume`.
    Candles,
}

/// A validated recording, ready to play.
#[derive(Clone, Debug)]
pub struct ReplayFile {
    /// Where it was read from (for logs and errors).
    path: PathBuf,
    /// Its format.
    format: ReplayFormat,
    /// Every tick to play, in time order; never empty.
    ticks: Vec<RawTick>,
    /// Rows of symbols this source does not serve.
    skipped_rows: u64,
}

/// One candle row, kept until every candle's length is known.
struct CandleRow {
    /// Start of the candle (ms).
    open_ms: u64,
    /// Product.
    symbol: Symbol,
    /// Open, high, low, close.
    ohlc: [Decimal; 4],
    /// Volume.
    volume: Decimal,
}

/// Reads rows and makes line-numbered errors.
struct RowReader<'a> {
    /// The file, for errors.
    path: &'a Path,
    /// Served products and their precision.
    precision: HashMap<Symbol, u8>,
    /// Line of the row being read.
    line: u64,
}

impl RowReader<'_> {
    fn bad(&self, reason: impl Into<String>) -> SourceError {
        SourceError::BadRow {
            path: self.path.to_path_buf(),
            line: self.line,
            reason: reason.into(),
        }
    }

    fn time(&self, field: &str, name: &str) -> Result<u64, SourceError> {
        let time = field
            .parse()
            .map_err(|_| self.bad(format!("{name} {field:?} is not a whole number of ms")))?;
        if time > REPLAY_TIME_MAX_MS {
            return Err(self.bad(format!("{name} {time} is past {REPLAY_TIME_MAX_MS} ms")));
        }
        Ok(time)
    }

    /// `Ok(None)` for a valid code this source does not serve.
    fn symbol(&self, field: &str) -> Result<Option<(Symbol, u8)>, SourceError> {
        let symbol = Symbol::new(field)
            .ok_or_else(|| self.bad(format!("symbol {field:?} is not a product code")))?;
        Ok(self.precision.get(&symbol).map(|&p| (symbol, p)))
    }

    fn amount(&self, field: &str, name: &str) -> Result<Decimal, SourceError> {
        let value = Decimal::from_str_exact(field)
            .map_err(|_| self.bad(format!("{name} {field:?} is not an exact decimal")))?;
        if value.is_sign_negative() && !value.is_zero() {
            return Err(self.bad(format!("{name} {field} is negative")));
        }
        Ok(value)
    }

    fn price(
        &self,
        field: &str,
        name: &str,
        symbol: Symbol,
        precision: u8,
    ) -> Result<Decimal, SourceError> {
        let value = self.amount(field, name)?;
        if value.is_zero() {
            return Err(self.bad(format!("{name} must be positive")));
        }
        at_precision(value, precision).ok_or_else(|| {
            self.bad(format!("{name} {field} has more decimals than {symbol}'s {precision}"))
        })
    }
}

impl ReplayFile {
    /// Reads and validates `path` for `instruments`.
    pub fn load(path: &Path, instruments: &[Instrument]) -> Result<ReplayFile, SourceError> {
        let file = std::fs::File::open(path)
            .map_err(|source| SourceError::Io { path: path.to_path_buf(), source })?;
        ReplayFile::parse(std::io::BufReader::new(file), path, instruments)
    }

    /// Reads and validates CSV text from `reader`; `path` names it in errors.
    pub fn parse(
        reader: impl Read,
        path: &Path,
        instruments: &[Instrument],
    ) -> Result<ReplayFile, SourceError> {
        let mut csv = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(reader);
        let header: Vec<String> = csv
            .headers()
            .map_err(|e| csv_error(path, &e))?
            .iter()
            .map(str::to_ascii_lowercase)
            .collect();
        let format = if header == TICK_HEADER {
            ReplayFormat::Ticks
        } else if header == CANDLE_HEADER {
            ReplayFormat::Candles
        } else {
            return Err(SourceError::UnknownFormat {
                path: path.to_path_buf(),
                header: header.join(","),
            });
        };
        let mut rows = RowReader {
            path,
            precision: instruments.iter().map(|i| (i.symbol, i.precision)).collect(),
            line: 1,
        };
        let mut skipped_rows = 0;
        let ticks = match format {
            ReplayFormat::Ticks => read_ticks(&mut csv, &mut rows, &mut skipped_rows)?,
            ReplayFormat::Candles => {
                let candles = read_candles(&mut csv, &mut rows, &mut skipped_rows)?;
                expand_candles(&candles)
            }
        };
        if ticks.is_empty() {
            return Err(SourceError::Config(format!(
                "{}: no rows for the instruments this source serves",
                path.display()
            )));
        }
        Ok(ReplayFile { path: path.to_path_buf(), format, ticks, skipped_rows })
    }

    /// The ticks to play, in time order.
    pub fn ticks(&self) -> &[RawTick] {
        &self.ticks
    }

    /// The file's format.
    pub fn format(&self) -> ReplayFormat {
        self.format
    }

    /// Rows skipped because this source does not serve their symbol.
    pub fn skipped_rows(&self) -> u64 {
        self.skipped_rows
    }

    /// Where the file was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn csv_error(path: &Path, error: &csv::Error) -> SourceError {
    match error.position() {
        Some(pos) => SourceError::BadRow {
            path: path.to_path_buf(),
            line: pos.line(),
            reason: error.to_string(),
        },
        None => SourceError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, error.to_string()),
        },
    }
}

/// Yields each record with its line number, enforcing the row bound and time order.
fn next_record<R: Read>(
    csv: &mut csv::Reader<R>,
    rows: &mut RowReader<'_>,
    record: &mut csv::StringRecord,
    count: &mut usize,
) -> Result<bool, SourceError> {
    if !csv.read_record(record).map_err(|e| csv_error(rows.path, &e))? {
        return Ok(false);
    }
    rows.line = record.position().map_or(rows.line + 1, csv::Position::line);
    *count += 1;
    if *count > REPLAY_ROWS_MAX {
        return Err(rows.bad(format!("more than {REPLAY_ROWS_MAX} rows; split the file")));
    }
    Ok(true)
}

/// Refuses a row whose time is before the previous row's.
fn check_order(rows: &RowReader<'_>, previous: &mut u64, time: u64) -> Result<(), SourceError> {
    if time < *previous {
        return Err(rows.bad(format!("time {time} is before the previous row's {previous}")));
    }
    *previous = time;
    Ok(())
}

fn read_ticks<R: Read>(
    csv: &mut csv::Reader<R>,
    rows: &mut RowReader<'_>,
    skipped: &mut u64,
) -> Result<Vec<RawTick>, SourceError> {
    let (mut record, mut count, mut previous) = (csv::StringRecord::new(), 0, 0);
    let mut ticks = Vec::new();
    while next_record(csv, rows, &mut record, &mut count)? {
        let time = rows.time(&record[0], "time_ms")?;
        check_order(rows, &mut previous, time)?;
        let Some((symbol, precision)) = rows.symbol(&record[1])? else {
            *skipped += 1;
            continue;
        };
        let price = rows.price(&record[2], "price", symbol, precision)?;
        let quantity = rows.amount(&record[3], "quantity")?;
        ticks.push(RawTick { symbol, price, quantity, source_ms: time });
    }
    Ok(ticks)
}

fn read_candles<R: Read>(
    csv: &mut csv::Reader<R>,
    rows: &mut RowReader<'_>,
    skipped: &mut u64,
) -> Result<Vec<CandleRow>, SourceError> {
    let (mut record, mut count, mut previous) = (csv::StringRecord::new(), 0, 0);
    let mut candles = Vec::new();
    let mut seen = HashSet::new();
    while next_record(csv, rows, &mut record, &mut count)? {
        let open_ms = rows.time(&record[0], "open_ms")?;
        check_order(rows, &mut previous, open_ms)?;
        let Some((symbol, precision)) = rows.symbol(&record[1])? else {
            *skipped += 1;
            continue;
        };
        if !seen.insert((symbol, open_ms)) {
            return Err(rows.bad(format!("a second {symbol} candle opening at {open_ms}")));
        }
        let mut ohlc = [Decimal::ZERO; 4];
        for (k, name) in ["open", "high", "low", "close"].into_iter().enumerate() {
            ohlc[k] = rows.price(&record[2 + k], name, symbol, precision)?;
        }
        let [open, high, low, close] = ohlc;
        if low > open.min(close) || high < open.max(close) {
            return Err(rows.bad(format!(
                "low {low} and high {high} do not bound open {open} and close {close}"
            )));
        }
        let volume = rows.amount(&record[6], "volume")?;
        candles.push(CandleRow { open_ms, symbol, ohlc, volume });
    }
    Ok(candles)
}

/// Four ticks per candle, spread over its length, in time order across symbols.
fn expand_candles(candles: &[CandleRow]) -> Vec<RawTick> {
    let mut length: HashMap<Symbol, u64> = HashMap::new();
    let mut last_open: HashMap<Symbol, u64> = HashMap::new();
    for c in candles {
        if let Some(previous) = last_open.insert(c.symbol, c.open_ms) {
            let gap = c.open_ms - previous; // > 0: rows are ordered and duplicates refused
            length.entry(c.symbol).and_modify(|l| *l = (*l).min(gap)).or_insert(gap);
        }
    }
    let mut ticks = Vec::with_capacity(candles.len() * 4);
    for c in candles {
        let quarter_ms = length.get(&c.symbol).copied().unwrap_or(REPLAY_CANDLE_DEFAULT_MS) / 4;
        let [open, high, low, close] = c.ohlc;
        let path = if close >= open { [open, low, high, close] } else { [open, high, low, close] };
        let part = c.volume / Decimal::from(4);
        let last_part = c.volume - part * Decimal::from(3);
        for (k, price) in (0u64..).zip(path) {
            let quantity = if k == 3 { last_part } else { part };
            let source_ms = c.open_ms + k * quarter_ms;
            ticks.push(RawTick { symbol: c.symbol, price, quantity, source_ms });
        }
    }
    // Candles of different symbols interleave; a stable sort keeps the file's order for ties.
    ticks.sort_by_key(|t| t.source_ms);
    ticks
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
        let ticks = self.file.ticks();
        tracing::info!(
            file = %self.file.path.display(),
            ticks = ticks.len(),
            skipped_rows = self.file.skipped_rows,
            speed = %self.speed,
            loop_forever = self.loop_forever,
            "replay starts"
        );
        let first_ms = ticks[0].source_ms;
        let lap_ms = ticks[ticks.len() - 1].source_ms - first_ms + REPLAY_LOOP_GAP_MS;
        let mut lap: u64 = 0;
        loop {
            let shift_ms = lap.saturating_mul(lap_ms);
            for tick in ticks {
                let recorded_ms = (tick.source_ms - first_ms).saturating_add(shift_ms);
                if let Some(offset) = self.offset(recorded_ms) {
                    tokio::select! {
                        biased;
                        () = stop.cancelled() => return Ok(SourceEnd::Stopped),
                        () = tokio::time::sleep_until(start + offset) => {}
                    }
                }
                let shifted =
                    RawTick { source_ms: tick.source_ms.saturating_add(shift_ms), ..tick.clone() };
                if let Some(end) = send_or_stop(&out, &stop, shifted).await {
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

    fn parse(text: &str) -> Result<ReplayFile, SourceError> {
        ReplayFile::parse(text.as_bytes(), Path::new("mem.csv"), &catalogue())
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
        let ticks = file.ticks();
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
        let file =
            parse(&format!("{candles}{}{}", row(0), row(REPLAY_TIME_MAX_MS))).expect("valid");
        assert_eq!(
            file.ticks().last().map(|t| t.source_ms),
            Some(REPLAY_TIME_MAX_MS + 3 * (REPLAY_TIME_MAX_MS / 4))
        );
    }

    #[test]
    fn speed_is_bounded() {
        let file = parse("time_ms,symbol,price,quantity\n1,BTCUSDT,1.00,1\n").expect("valid");
        assert!(ReplaySource::new(file.clone(), Decimal::NEGATIVE_ONE, false).is_err());
        assert!(ReplaySource::new(file, Decimal::from(REPLAY_SPEED_MAX + 1), false).is_err());
    }
}
