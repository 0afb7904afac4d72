//! A file's rows, read and checked in two passes.
//!
//! Pass one parses every row on its own (fields, prices, bounds); a time may still read two
//! ways (day or month first). Pass two settles the date order for the whole file, then checks
//! what needs neighbours: time order, duplicates, each candle's length, overlaps and gaps.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use engine::types::{MarketHours, Symbol};
use rust_decimal::{Decimal, RoundingStrategy};

use super::dates::{self, Readings, TimeUnit, DAY_MS};
use super::input::Records;
use super::labels::{self, Series, Verdict, Why};
use super::layout::{self, CandleColumns, Layout, LayoutError, TimeColumns};
use super::{CandleLabel, CandlePeriod, Gap, PlayCandle, Recording, ReplayFormat, ReplayOptions};
use crate::catalogue::Instrument;
use crate::source::at_precision;
use crate::source::constants::{
    REPLAY_CANDLE_DEFAULT_MS, REPLAY_CANDLE_MAX_MS, REPLAY_DST_SLACK_MS, REPLAY_GAPS_KEPT_MAX,
    REPLAY_GAP_SLOTS_CHECKED_MAX, REPLAY_TIME_MAX_MS,
};
use crate::source::SourceError;
use crate::types::RawTick;

/// Records read ahead to detect the format: a header (up to three lines for yfinance) and a row.
const DETECT_RECORDS: usize = 4;

/// What reading a file gave.
pub(super) struct Loaded {
    /// Its format.
    pub format: ReplayFormat,
    /// What it plays; never empty.
    pub recording: Recording,
    /// Rows of symbols the source does not serve.
    pub skipped_rows: u64,
    /// Rows without prices.
    pub empty_rows: u64,
    /// Prices rounded to the precision.
    pub rounded_prices: u64,
    /// The first gaps.
    pub gaps: Vec<Gap>,
    /// Every gap.
    pub gap_count: u64,
    /// Which end of its candles each product's times name.
    pub labels: Vec<(Symbol, CandleLabel)>,
}

/// Reads and checks a whole file.
pub(super) fn read(
    reader: impl Read,
    path: &Path,
    instruments: &[Instrument],
    options: &ReplayOptions,
) -> Result<Loaded, SourceError> {
    let mut records = Records::open(reader, path, options.limits)?;
    let first = records.peek(DETECT_RECORDS)?;
    if first.is_empty() {
        return Err(SourceError::Config(format!("{}: the file is empty", path.display())));
    }
    let layout = layout::detect(&first, options).map_err(|e| match e {
        LayoutError::UnknownHeader(header) => {
            SourceError::UnknownFormat { path: path.to_path_buf(), header }
        }
        LayoutError::Bad(line, reason) => {
            SourceError::BadRow { path: path.to_path_buf(), line, reason }
        }
    })?;
    for _ in 0..layout.header_records {
        records.skip()?;
    }
    let mut rows = Rows {
        path,
        precision: instruments.iter().map(|i| (i.symbol, i.precision)).collect(),
        line: 1,
    };
    let only = match (&layout.candles, instruments) {
        (Some(CandleColumns { symbol: None, .. }), [one]) => Some((one.symbol, one.precision)),
        (Some(CandleColumns { symbol: None, .. }), _) => {
            let (file, count) = (path.display(), instruments.len());
            return Err(SourceError::Config(format!(
                "{file} has no symbol column: assign it exactly one product \
                 (replay:PATH=EURUSD), not {count}"
            )));
        }
        _ => None,
    };
    let mut read = Loaded {
        format: layout.format,
        recording: Recording::Ticks(Vec::new()),
        skipped_rows: 0,
        empty_rows: 0,
        rounded_prices: 0,
        gaps: Vec::new(),
        gap_count: 0,
        labels: Vec::new(),
    };
    let mut seen: HashMap<Symbol, u64> = HashMap::new();
    match &layout.candles {
        None => {
            let ticks = read_ticks(&mut records, &mut rows, &layout, &mut read)?;
            for tick in &ticks {
                *seen.entry(tick.symbol).or_default() += 1;
            }
            read.recording = Recording::Ticks(ticks);
        }
        Some(columns) => {
            let (parsed, date_only) =
                read_candles(&mut records, &mut rows, &layout, columns, only, &mut read)?;
            for row in &parsed {
                *seen.entry(row.symbol).or_default() += 1;
            }
            let hours = instruments.iter().map(|i| (i.symbol, i.hours())).collect();
            let settle = Settle { path, options, columns, hours, date_only };
            let settled = settle.run(parsed)?;
            read.recording = Recording::Candles(settled.candles);
            (read.gaps, read.gap_count) = (settled.gaps, settled.gap_count);
            read.labels = settled.labels;
        }
    }
    if seen.is_empty() {
        return Err(SourceError::Config(format!(
            "{}: no rows for the instruments this source serves",
            path.display()
        )));
    }
    if let Some(missing) = instruments.iter().find(|i| !seen.contains_key(&i.symbol)) {
        let (file, symbol) = (path.display(), missing.symbol);
        return Err(SourceError::Config(format!(
            "{file}: no rows for {symbol}, which this replay serves; \
             a product with no prices would only go stale"
        )));
    }
    Ok(read)
}

/// Reads fields and makes line-numbered errors.
struct Rows<'a> {
    /// The file, for errors.
    path: &'a Path,
    /// Served products and their precision.
    precision: HashMap<Symbol, u8>,
    /// Line of the row being read.
    line: u64,
}

impl Rows<'_> {
    fn bad(&self, reason: impl Into<String>) -> SourceError {
        SourceError::BadRow {
            path: self.path.to_path_buf(),
            line: self.line,
            reason: reason.into(),
        }
    }

    /// Takes the next row, checking its field count.
    fn next(
        &mut self,
        records: &mut Records<'_>,
        fields: usize,
    ) -> Result<Option<csv::StringRecord>, SourceError> {
        let Some((line, record)) = records.next_row()? else { return Ok(None) };
        self.line = line;
        if record.len() != fields {
            return Err(self.bad(format!("expected {fields} fields, found {}", record.len())));
        }
        Ok(Some(record))
    }

    /// Our schemas' time: whole milliseconds.
    fn millis(&self, field: &str, name: &str) -> Result<u64, SourceError> {
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

    /// A quantity or volume: an exact decimal >= 0 (other files may write `1.5e+06`).
    fn amount(&self, field: &str, name: &str) -> Result<Decimal, SourceError> {
        let value = decimal(field)
            .map_err(|hint| self.bad(format!("{name} {field:?} is not an exact decimal{hint}")))?;
        if value.is_sign_negative() && !value.is_zero() {
            return Err(self.bad(format!("{name} {field} is negative")));
        }
        Ok(value)
    }

    /// Our schemas' price: positive, no more decimals than the precision.
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

    /// Another file's price: positive, then rounded half-even to the precision. Returns the
    /// exact value and the rounded one.
    fn price_rounded(
        &self,
        field: &str,
        name: &str,
        symbol: Symbol,
        precision: u8,
    ) -> Result<(Decimal, Decimal), SourceError> {
        let value = self.amount(field, name)?;
        if value.is_zero() {
            return Err(self.bad(format!("{name} must be positive")));
        }
        let rounded = value
            .round_dp_with_strategy(u32::from(precision), RoundingStrategy::MidpointNearestEven);
        let rounded =
            at_precision(rounded, precision).filter(|r| !r.is_zero()).ok_or_else(|| {
                self.bad(format!("{name} {field} is 0 at {symbol}'s {precision} decimals"))
            })?;
        Ok((value, rounded))
    }
}

/// An exact decimal, or why not (a hint for decimal commas).
fn decimal(field: &str) -> Result<Decimal, &'static str> {
    let parsed = if field.contains(['e', 'E']) {
        Decimal::from_scientific(field)
    } else {
        Decimal::from_str_exact(field)
    };
    parsed.map_err(|_| if field.contains(',') { " (decimal commas are not read)" } else { "" })
}

/// An empty price as pandas (`NaN`, empty) and Yahoo (`null`) write it.
fn is_missing(field: &str) -> bool {
    field.is_empty() || ["null", "nan", "none", "n/a"].iter().any(|m| field.eq_ignore_ascii_case(m))
}

fn read_ticks(
    records: &mut Records<'_>,
    rows: &mut Rows<'_>,
    layout: &Layout,
    read: &mut Loaded,
) -> Result<Vec<RawTick>, SourceError> {
    let mut ticks = Vec::new();
    let mut previous = 0;
    while let Some(record) = rows.next(records, layout.fields)? {
        let time = rows.millis(&record[0], "time_ms")?;
        if time < previous {
            return Err(rows.bad(format!("time {time} is before the previous row's {previous}")));
        }
        previous = time;
        let Some((symbol, precision)) = rows.symbol(&record[1])? else {
            read.skipped_rows += 1;
            continue;
        };
        let price = rows.price(&record[2], "price", symbol, precision)?;
        let quantity = rows.amount(&record[3], "quantity")?;
        ticks.push(RawTick { symbol, price, quantity, source_ms: time });
    }
    Ok(ticks)
}

/// One candle row after pass one.
struct Row {
    /// Its line.
    line: u64,
    /// Its time's readings (the candle's open, unless it is dated by its end).
    open: Readings,
    /// The UTC offset its time was read in (ms east): the file's clock, for calendar dates.
    offset_ms: i64,
    symbol: Symbol,
    /// Open, high, low, close (at the precision).
    ohlc: [Decimal; 4],
    volume: Decimal,
    /// Length from the file's close time (ms), if it has one.
    length_ms: Option<u64>,
}

/// Pass one over a candle file. Also says whether every time was a date without a time.
fn read_candles(
    records: &mut Records<'_>,
    rows: &mut Rows<'_>,
    layout: &Layout,
    columns: &CandleColumns,
    only: Option<(Symbol, u8)>,
    read: &mut Loaded,
) -> Result<(Vec<Row>, bool), SourceError> {
    let mut parsed = Vec::new();
    let mut date_only = true;
    while let Some(record) = rows.next(records, layout.fields)? {
        let field = |at: usize| record.get(at).unwrap_or("");
        let (open, offset_ms, dates_alone) = candle_open(rows, layout, columns, field)?;
        date_only &= dates_alone;
        let (symbol, precision) = match (columns.symbol, only) {
            (Some(at), _) => match rows.symbol(field(at))? {
                Some(served) => served,
                None => {
                    read.skipped_rows += 1;
                    continue;
                }
            },
            (None, Some(only)) => only,
            (None, None) => return Err(rows.bad("the file names no product")),
        };
        let Some(ohlc) = candle_prices(rows, columns, field, (symbol, precision), read)? else {
            read.empty_rows += 1;
            continue;
        };
        let volume = match columns.volume.map(field) {
            // pandas writes a missing volume as nothing; our schema always has one.
            Some(text) if !columns.ours && is_missing(text) => Decimal::ZERO,
            Some(text) => rows.amount(text, "volume")?,
            None => Decimal::ZERO,
        };
        let length_ms = match columns.close_time {
            None => None,
            Some(at) => Some(candle_length(rows, layout, open[0], field(at))?),
        };
        parsed.push(Row { line: rows.line, open, offset_ms, symbol, ohlc, volume, length_ms });
    }
    let date_only = date_only && !parsed.is_empty();
    Ok((parsed, date_only))
}

/// A row's open time as read (its readings and clock offset), and whether it was a date alone.
fn candle_open<'r>(
    rows: &Rows<'_>,
    layout: &Layout,
    columns: &CandleColumns,
    field: impl Fn(usize) -> &'r str,
) -> Result<(Readings, i64, bool), SourceError> {
    Ok(match columns.time {
        TimeColumns::Millis(at) => ([Some(rows.millis(field(at), "open_ms")?); 2], 0, false),
        TimeColumns::One(at) => {
            let time = layout.times.parse(field(at)).map_err(|e| rows.bad(e))?;
            (time.readings, time.offset_ms, time.date_only)
        }
        TimeColumns::Pair(date, time) => {
            let time =
                layout.times.parse_pair(field(date), field(time)).map_err(|e| rows.bad(e))?;
            (time.readings, time.offset_ms, false)
        }
    })
}

/// A row's open, high, low and close at the product's precision, checked to bound each other;
/// none for a row with no price at all (another file's empty candle).
fn candle_prices<'r>(
    rows: &Rows<'_>,
    columns: &CandleColumns,
    field: impl Fn(usize) -> &'r str,
    (symbol, precision): (Symbol, u8),
    read: &mut Loaded,
) -> Result<Option<[Decimal; 4]>, SourceError> {
    let names = ["open", "high", "low", "close"];
    let mut ohlc = [Decimal::ZERO; 4];
    let mut exact = [Decimal::ZERO; 4];
    if columns.ours {
        for (k, name) in names.into_iter().enumerate() {
            ohlc[k] = rows.price(field(columns.ohlc[k]), name, symbol, precision)?;
        }
        exact = ohlc;
    } else {
        let missing = columns.ohlc.iter().filter(|&&at| is_missing(field(at))).count();
        if missing == 4 {
            return Ok(None);
        }
        if let Some(k) = (0..4).find(|&k| is_missing(field(columns.ohlc[k]))) {
            return Err(rows.bad(format!("{} is empty but other prices are not", names[k])));
        }
        for (k, name) in names.into_iter().enumerate() {
            let (value, rounded) =
                rows.price_rounded(field(columns.ohlc[k]), name, symbol, precision)?;
            read.rounded_prices += u64::from(value != rounded);
            (exact[k], ohlc[k]) = (value, rounded);
        }
    }
    let [open_price, high, low, close] = exact;
    if low > open_price.min(close) || high < open_price.max(close) {
        return Err(rows.bad(format!(
            "low {low} and high {high} do not bound open {open_price} and close {close}"
        )));
    }
    Ok(Some(ohlc))
}

/// A candle's length from its file's close time (Binance's close time is the candle's last
/// ms, or µs, or s).
fn candle_length(
    rows: &Rows<'_>,
    layout: &Layout,
    open_ms: Option<u64>,
    close_text: &str,
) -> Result<u64, SourceError> {
    let close = layout.times.parse(close_text).map_err(|e| rows.bad(format!("close time: {e}")))?;
    let (Some(open_ms), Some(close_ms)) = (open_ms, close.readings[0]) else {
        return Err(rows.bad("close time unreadable"));
    };
    if close_ms < open_ms {
        return Err(rows.bad(format!(
            "close time {} is before the open time {}",
            dates::show(close_ms),
            dates::show(open_ms)
        )));
    }
    let unit_ms = if layout.times.unit == Some(TimeUnit::Seconds) { 1_000 } else { 1 };
    Ok(close_ms - open_ms + unit_ms)
}

/// Pass two over a candle file.
struct Settle<'a> {
    /// The file, for errors.
    path: &'a Path,
    /// `#period=` and friends.
    options: &'a ReplayOptions,
    /// The columns (our schema or not, close times or not).
    columns: &'a CandleColumns,
    /// Market hours of each served product: a missing candle while closed is no gap.
    hours: HashMap<Symbol, MarketHours>,
    /// Every time was a date alone (a single candle then lasts a day).
    date_only: bool,
}

/// What pass two gives.
pub(super) struct Settled {
    /// The candles, in order of their opens (the file's order where they tie).
    pub candles: Vec<PlayCandle>,
    /// The first gaps.
    pub gaps: Vec<Gap>,
    /// Every gap.
    pub gap_count: u64,
    /// Which end of its candles each product's times name.
    pub labels: Vec<(Symbol, CandleLabel)>,
}

/// Where pass two puts each candle (by row), and the gaps it finds.
struct Placed {
    /// Each row's candle opens here (UTC ms)...
    opens: Vec<u64>,
    /// ...and lasts this long (ms).
    lengths: Vec<u64>,
    /// The gaps found, in the order found.
    gaps: Vec<Gap>,
    /// How many.
    gap_count: u64,
}

/// A UTC time (ms) on a clock `offset_ms` east of UTC.
fn local(utc_ms: u64, offset_ms: i64) -> i64 {
    i64::try_from(utc_ms).unwrap_or(i64::MAX).saturating_add(offset_ms)
}

impl Settle<'_> {
    fn bad(&self, line: u64, reason: impl Into<String>) -> SourceError {
        SourceError::BadRow { path: self.path.to_path_buf(), line, reason: reason.into() }
    }

    /// The file's columns say its times are opens: our `open_ms`, or Binance's open time with
    /// its close time.
    fn times_are_opens(&self) -> bool {
        self.columns.ours || self.columns.close_time.is_some()
    }

    /// Settles the date order, checks the order of times, places each candle in time (which
    /// end its time names, how long it lasts), checks overlaps, finds gaps.
    fn run(&self, rows: Vec<Row>) -> Result<Settled, SourceError> {
        self.check_label_applies()?;
        let reading = self.date_order(&rows)?;
        // Each row's time as written: its candle's open, or its end when dated by it.
        let dated: Vec<u64> =
            rows.iter().map(|r| r.open[reading].expect("the chosen reading is valid")).collect();
        let by_symbol = self.by_symbol(&rows, &dated)?;
        let mut placed = Placed {
            opens: vec![0u64; rows.len()],
            lengths: vec![0u64; rows.len()],
            gaps: Vec::new(),
            gap_count: 0,
        };
        let mut labels = Vec::new();
        for (symbol, members) in &by_symbol {
            let (verdict, period) = self.place(&rows, &dated, *symbol, members, &mut placed)?;
            labels.push((*symbol, verdict.label));
            self.check_overlaps_find_gaps(
                &rows,
                &dated,
                *symbol,
                members,
                (&verdict, period),
                &mut placed,
            )?;
        }
        let Placed { opens, lengths, mut gaps, gap_count } = placed;
        gaps.sort_by_key(|g| g.line);
        gaps.truncate(REPLAY_GAPS_KEPT_MAX);
        let mut candles: Vec<PlayCandle> = rows
            .into_iter()
            .zip(opens)
            .zip(lengths)
            .map(|((row, open_ms), length)| {
                let [open, high, low, close] = row.ohlc;
                // The shorter path through the four prices: down first when the candle rises.
                let path =
                    if close >= open { [open, low, high, close] } else { [open, high, low, close] };
                PlayCandle {
                    open_ms,
                    quarter_ms: length / 4,
                    symbol: row.symbol,
                    path,
                    volume: row.volume,
                }
            })
            .collect();
        // Candles dated by their ends open a period earlier, and products of different periods
        // by different amounts: playing merges candles in order of their opens.
        candles.sort_by_key(|c| c.open_ms);
        Ok(Settled { candles, gaps, gap_count, labels })
    }

    /// `#label=end` names what the file's own columns already say: refused.
    fn check_label_applies(&self) -> Result<(), SourceError> {
        if self.options.label == Some(CandleLabel::End) && self.times_are_opens() {
            let whose = if self.columns.ours {
                "opens (open_ms)"
            } else {
                "opens (Binance's open time; its close time says when each candle ends)"
            };
            return Err(SourceError::Config(format!(
                "{}: #label=end does not apply: the file's times are {whose}",
                self.path.display()
            )));
        }
        Ok(())
    }

    /// The rows of each symbol, symbols in the order they first appear (so errors do not
    /// depend on hashing); checks that times never go back over the whole file and that a
    /// symbol's candles never repeat a time.
    fn by_symbol(
        &self,
        rows: &[Row],
        dated: &[u64],
    ) -> Result<Vec<(Symbol, Vec<usize>)>, SourceError> {
        let mut last: HashMap<Symbol, usize> = HashMap::new();
        let mut by_symbol: Vec<(Symbol, Vec<usize>)> = Vec::new();
        for (k, row) in rows.iter().enumerate() {
            if k > 0 && dated[k] < dated[k - 1] {
                let hint =
                    if k == 1 { "; the file looks newest first: sort it oldest first" } else { "" };
                return Err(self.bad(
                    row.line,
                    format!(
                        "time {} is before the previous row's {} (line {}){hint}",
                        self.show(dated[k]),
                        self.show(dated[k - 1]),
                        rows[k - 1].line
                    ),
                ));
            }
            if let Some(&before) = last.get(&row.symbol) {
                if dated[before] == dated[k] {
                    return Err(self.bad(
                        row.line,
                        format!(
                            "a second {} candle at {} (the first is on line {})",
                            row.symbol,
                            self.show(dated[k]),
                            rows[before].line
                        ),
                    ));
                }
            }
            match last.insert(row.symbol, k) {
                Some(_) => {
                    if let Some((_, members)) = by_symbol.iter_mut().find(|(s, _)| *s == row.symbol)
                    {
                        members.push(k);
                    }
                }
                None => by_symbol.push((row.symbol, vec![k])),
            }
        }
        Ok(by_symbol)
    }

    /// Places one symbol's candles in time: which end each time names (said, given by the
    /// columns, or detected) and how long each lasts. Returns the label's verdict and the
    /// period.
    fn place(
        &self,
        rows: &[Row],
        dated: &[u64],
        symbol: Symbol,
        members: &[usize],
        placed: &mut Placed,
    ) -> Result<(Verdict, CandlePeriod), SourceError> {
        let locals: Vec<i64> =
            members.iter().map(|&k| local(dated[k], rows[k].offset_ms)).collect();
        let series = if self.times_are_opens() { Series::default() } else { Series::of(&locals) };
        let period = self.period(rows, dated, members, &series)?;
        let verdict = match self.options.label {
            Some(label) => Verdict { label, why: Why::Said },
            None if self.times_are_opens() => {
                Verdict { label: CandleLabel::Start, why: Why::Columns }
            }
            None => labels::detect(&series, period),
        };
        if let Why::Guessed(note) = &verdict.why {
            tracing::info!("{}: {symbol}: {note}", self.path.display());
        }
        for (&k, &at) in members.iter().zip(&locals) {
            let row = &rows[k];
            let (from, to) = match row.length_ms {
                Some(length) => (dated[k], dated[k] + length),
                None => {
                    let (from, to) = labels::span(at, verdict.label, period, &series);
                    let utc = |ms: i64| {
                        u64::try_from(ms.saturating_sub(row.offset_ms)).map_err(|_| {
                            self.bad(row.line, "this candle would open before 1970-01-01 UTC")
                        })
                    };
                    (utc(from)?, utc(to)?)
                }
            };
            (placed.opens[k], placed.lengths[k]) = (from, to.saturating_sub(from));
            // Calendar quarters are the one period longer than a month.
            let quarter = period == CandlePeriod::Quarter && row.length_ms.is_none();
            if placed.lengths[k] > REPLAY_CANDLE_MAX_MS && !quarter {
                return Err(self.bad(row.line, "a candle longer than a month"));
            }
        }
        Ok((verdict, period))
    }

    /// Refuses a symbol's candle that opens before the one before it ends (with a hint at the
    /// option that may be wrong), and counts the gaps between its candles.
    fn check_overlaps_find_gaps(
        &self,
        rows: &[Row],
        dated: &[u64],
        symbol: Symbol,
        members: &[usize],
        (verdict, period): (&Verdict, CandlePeriod),
        placed: &mut Placed,
    ) -> Result<(), SourceError> {
        let (opens, lengths) = (&placed.opens, &placed.lengths);
        for pair in members.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let end = opens[a] + lengths[a];
            let slack = if lengths[a] >= DAY_MS { REPLAY_DST_SLACK_MS } else { 0 };
            if opens[b] + slack < end {
                let dated_end = verdict.label == CandleLabel::End && rows[b].length_ms.is_none();
                let which = if dated_end {
                    format!(" (dated {}, its end)", self.show(dated[b]))
                } else {
                    String::new()
                };
                let mut hints = String::new();
                if self.options.period.is_some() {
                    hints.push_str("; is #period= right?");
                }
                match (&verdict.why, verdict.label) {
                    (Why::Said, _) => hints.push_str("; is #label= right?"),
                    (Why::Guessed(_), CandleLabel::Start) => hints
                        .push_str("; if each date is the last day of its candle, say #label=end"),
                    (Why::Guessed(_), CandleLabel::End) => {
                        hints.push_str("; if each date opens its candle, say #label=start");
                    }
                    _ => {}
                }
                return Err(self.bad(
                    rows[b].line,
                    format!(
                        "this {symbol} candle{which} opens at {}, before the one on line {} \
                         ends at {}{hints}",
                        self.show(opens[b]),
                        rows[a].line,
                        self.show(end)
                    ),
                ));
            }
            let offsets = (rows[a].offset_ms, rows[b].offset_ms);
            let missing = self.missing(symbol, (opens[a], opens[b]), offsets, lengths[a], period);
            if missing > 0 {
                placed.gap_count += 1;
                placed.gaps.push(Gap {
                    line: rows[b].line,
                    symbol,
                    from_ms: end,
                    to_ms: opens[b],
                    missing,
                });
            }
        }
        Ok(())
    }

    /// Our schemas' times are shown as they are written; others' as dates.
    fn show(&self, ms: u64) -> String {
        if self.columns.ours {
            ms.to_string()
        } else {
            dates::show(ms)
        }
    }

    /// Which reading of the dates the file means: 0 day first, 1 month first.
    fn date_order(&self, rows: &[Row]) -> Result<usize, SourceError> {
        if rows.iter().all(|r| r.open[0] == r.open[1]) {
            return Ok(0);
        }
        let fits = |k: usize| rows.iter().all(|r| r.open[k].is_some());
        match (fits(0), fits(1)) {
            (true, false) => Ok(0),
            (false, true) => Ok(1),
            (true, true) => {
                let row = rows.iter().find(|r| r.open[0] != r.open[1]).expect("one differs");
                let show = |k: usize| row.open[k].map_or_else(String::new, dates::show);
                Err(self.bad(
                    row.line,
                    format!(
                        "this date reads as {} (day first) or {} (month first), and no row \
                         of the file tells which; say #dates=dmy or #dates=mdy",
                        show(0),
                        show(1)
                    ),
                ))
            }
            (false, false) => {
                let day_only = rows.iter().find(|r| r.open[1].is_none()).map_or(0, |r| r.line);
                let month_only = rows.iter().find(|r| r.open[0].is_none()).map_or(0, |r| r.line);
                Err(self.bad(
                    day_only.max(month_only),
                    format!(
                        "line {day_only} has the day first and line {month_only} the month \
                         first: the file mixes date orders"
                    ),
                ))
            }
        }
    }

    /// The candles' period for one symbol: said, or inferred from the steps between their
    /// times (in calendar months for dates at month starts or ends).
    fn period(
        &self,
        rows: &[Row],
        dated: &[u64],
        members: &[usize],
        series: &Series,
    ) -> Result<CandlePeriod, SourceError> {
        if let Some(period) = self.options.period {
            return Ok(period);
        }
        // Binance's close times give every candle its length; the period only names the
        // shortest, and a sparse file is no error.
        if let Some(shortest) = members.iter().filter_map(|&k| rows[k].length_ms).min() {
            return Ok(CandlePeriod::Fixed(shortest));
        }
        let steps = members.windows(2).map(|p| (dated[p[1]] - dated[p[0]], p[1]));
        let Some((step, at)) = steps.min_by_key(|(step, _)| *step) else {
            let single = if self.date_only { DAY_MS } else { REPLAY_CANDLE_DEFAULT_MS };
            return Ok(CandlePeriod::Fixed(single));
        };
        if let Some(calendar) = series.calendar_period() {
            return calendar.map_err(|(months, k)| {
                self.bad(
                    rows[members[k + 1]].line,
                    format!(
                        "consecutive candles are {months} months apart, neither a month nor a \
                         quarter; if the file has gaps, say the period (#period=1M or #period=1Q)"
                    ),
                )
            });
        }
        let near = |target: u64| step.abs_diff(target) <= REPLAY_DST_SLACK_MS;
        Ok(if (28 * DAY_MS..=31 * DAY_MS + REPLAY_DST_SLACK_MS).contains(&step) {
            CandlePeriod::Month
        } else if near(DAY_MS) {
            CandlePeriod::Fixed(DAY_MS)
        } else if near(7 * DAY_MS) {
            CandlePeriod::Fixed(7 * DAY_MS)
        } else if step > REPLAY_CANDLE_MAX_MS {
            return Err(self.bad(
                rows[at].line,
                format!(
                    "consecutive candles are at least {} days apart: candles longer than a month \
                     are not played, except calendar quarters dated on their first or last days; \
                     if the file has gaps, say the period (#period=1d)",
                    step / DAY_MS
                ),
            ));
        } else {
            CandlePeriod::Fixed(step)
        })
    }

    /// Candles missing between two opens `(from, to)` (UTC, read at `offsets` east of it)
    /// while the market was open at their middle.
    fn missing(
        &self,
        symbol: Symbol,
        (from, to): (u64, u64),
        offsets: (i64, i64),
        length: u64,
        period: CandlePeriod,
    ) -> u64 {
        let months = match period {
            CandlePeriod::Month => 1,
            CandlePeriod::Quarter => 3,
            CandlePeriod::Fixed(_) => 0,
        };
        if months > 0 && self.columns.close_time.is_none() {
            let apart = dates::month_index(local(to, offsets.1))
                - dates::month_index(local(from, offsets.0));
            return u64::try_from(apart / months - 1).unwrap_or(0);
        }
        if length == 0 {
            return 0;
        }
        let slots = (to - from + length / 2) / length;
        let absent = slots.saturating_sub(1);
        if absent > REPLAY_GAP_SLOTS_CHECKED_MAX {
            return absent;
        }
        let hours = self.hours.get(&symbol);
        (1..=absent)
            .filter(|s| {
                let middle = from + s * length + length / 2;
                hours.is_none_or(|h| h.is_open(middle))
            })
            .count() as u64
    }
}
