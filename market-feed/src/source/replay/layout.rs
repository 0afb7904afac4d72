//! Which format a replay file is in, and where its columns are, from its header and first rows.
//!
//! - A first field that reads as a time means there is no header: the shape of the first row
//!   decides (a Unix time and 12 fields: Binance; a date and time in one field: HistData or
//!   headerless OHLCV; a date, then a time: MetaTrader).
//! - Otherwise the first line is a header: our two schemas exactly, Binance's column names, or
//!   any header with a time column and `open`, `high`, `low`, `close` (pandas, Yahoo Finance,
//!   TradingView, MetaTrader 5, Dukascopy), matched without regard to case, `_`, or `<>`.
//! - yfinance's three-line header (`Price,Close,…` / `Ticker,…` / `Datetime,,,…`) is one
//!   header.
//!
//! `#format=` forces a format when this guess is wrong or cannot be made.

use super::dates::{TimeParser, TimeUnit};
use super::{ReplayFormat, ReplayOptions};

/// Our tick schema.
const TICK_HEADER: [&str; 4] = ["time ms", "symbol", "price", "quantity"];
/// Our candle schema.
const CANDLE_HEADER: [&str; 7] = ["open ms", "symbol", "open", "high", "low", "close", "volume"];
/// Names of a time column (pandas writes its index's name, or nothing).
const TIME_NAMES: [&str; 9] =
    ["", "date", "datetime", "date time", "time", "timestamp", "gmt time", "open time", "price"];
/// Names of a volume column, preferred first. MetaTrader 5 writes `<TICKVOL>` and `<VOL>`; its
/// `<VOL>` (exchange volume) is zero for forex and CFDs, so the tick volume comes first.
const VOLUME_NAMES: [&str; 5] = ["volume", "tickvol", "tick volume", "vol", "real volume"];
/// What the error for an unknown layout lists.
pub(crate) const ACCEPTED: &str = "time_ms,symbol,price,quantity | \
     open_ms,symbol,open,high,low,close,volume | a date or time column with Open,High,Low,Close \
     (and Volume) | Binance klines | HistData or MetaTrader rows; or say #format=";

/// Where a row's time is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimeColumns {
    /// Our schemas: whole milliseconds in this column.
    Millis(usize),
    /// A date, date and time, or Unix time in this column.
    One(usize),
    /// A date in the first column and a time of day in the second.
    Pair(usize, usize),
}

impl TimeColumns {
    fn first(self) -> usize {
        match self {
            TimeColumns::Millis(at) | TimeColumns::One(at) | TimeColumns::Pair(at, _) => at,
        }
    }
}

/// The columns of a candle file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CandleColumns {
    /// The candle's open time.
    pub time: TimeColumns,
    /// Our product code, if the file names it.
    pub symbol: Option<usize>,
    /// Open, high, low, close.
    pub ohlc: [usize; 4],
    /// Traded quantity, if any.
    pub volume: Option<usize>,
    /// Binance's close time (last ms or µs of the candle), if any.
    pub close_time: Option<usize>,
    /// Our schema: prices exact at the instrument's precision, names like `open_ms` in
    /// messages. Other files' prices are rounded to the precision (pandas writes floats).
    pub ours: bool,
}

/// How to read a file.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// What it is, for logs and [`super::ReplayFile::format`].
    pub format: ReplayFormat,
    /// Records before the first data row.
    pub header_records: usize,
    /// Fields each row must have (the header's or the first row's count).
    pub fields: usize,
    /// `None` for our tick schema.
    pub candles: Option<CandleColumns>,
    /// How times are read.
    pub times: TimeParser,
}

/// Why no layout fits.
#[derive(Debug)]
pub(crate) enum LayoutError {
    /// The first line is a header of no known format (the header as read).
    UnknownHeader(String),
    /// A line (number) says something is wrong.
    Bad(u64, String),
}

/// A header field as matched: trimmed, lower case, `<>` gone, `_` as a space.
fn normal(field: &str) -> String {
    let field = field.trim().trim_start_matches('\u{feff}').trim_matches(['<', '>']);
    field.to_ascii_lowercase().replace('_', " ")
}

/// Reads the layout from the first records (line, fields): the header and a few rows.
pub(crate) fn detect(
    first: &[(u64, csv::StringRecord)],
    options: &ReplayOptions,
) -> Result<Layout, LayoutError> {
    let Some((line, head)) = first.first() else {
        return Err(LayoutError::Bad(1, "the file is empty".to_owned()));
    };
    let names: Vec<String> = head.iter().map(normal).collect();
    let mut times = TimeParser {
        order: options.date_order,
        unit: options.time_unit,
        unit_inferred: false,
        offset_ms: options.utc_offset_ms,
    };
    let headerless = looks_like_time(&head[0]);
    let (format, header_records, candles) = match options.format {
        Some(format) => forced(format, &names, headerless, first, *line)
            .map_err(|(l, e)| LayoutError::Bad(l, e))?,
        None if names == TICK_HEADER => (ReplayFormat::Ticks, 1, None),
        None if names == CANDLE_HEADER => (ReplayFormat::Candles, 1, Some(ours())),
        None if headerless => {
            let (format, columns) =
                by_shape(head, &times).map_err(|e| LayoutError::Bad(*line, e))?;
            (format, 0, Some(columns))
        }
        None => {
            let (format, columns) = by_names(&names).ok_or_else(|| {
                LayoutError::UnknownHeader(head.iter().collect::<Vec<_>>().join(","))
            })?;
            (format, 1 + extra_header_records(first), Some(columns))
        }
    };
    // A Unix time's unit is the one the first row's time plausibly is in, unless said.
    if let (Some(columns), None) = (&candles, times.unit) {
        if let Some((row_line, row)) = first.get(header_records) {
            let field = row.get(columns.time.first()).unwrap_or("").trim();
            let number =
                field.len() != 8 && !field.is_empty() && field.bytes().all(|b| b.is_ascii_digit());
            if number && !matches!(columns.time, TimeColumns::Millis(_)) {
                let value: u64 = field.parse().unwrap_or(0);
                let unit = TimeUnit::plausible_for(value).ok_or_else(|| {
                    let why = format!(
                        "cannot tell whether time {field} is in seconds, ms or µs; \
                         say #time=s, #time=ms or #time=us"
                    );
                    LayoutError::Bad(*row_line, why)
                })?;
                times.unit = Some(unit);
                times.unit_inferred = true;
            }
        }
    }
    Ok(Layout { format, header_records, fields: head.len(), candles, times })
}

/// Our candle schema's columns.
fn ours() -> CandleColumns {
    CandleColumns {
        time: TimeColumns::Millis(0),
        symbol: Some(1),
        ohlc: [2, 3, 4, 5],
        volume: Some(6),
        close_time: None,
        ours: true,
    }
}

/// Binance's kline columns: open time, open, high, low, close, volume, close time, quote
/// volume, trades, taker buy volume, taker buy quote volume, ignore.
fn binance(fields: usize) -> CandleColumns {
    CandleColumns {
        time: TimeColumns::One(0),
        symbol: None,
        ohlc: [1, 2, 3, 4],
        volume: Some(5),
        close_time: (fields > 6).then_some(6),
        ours: false,
    }
}

/// Time, open, high, low, close and maybe volume from `first` on.
fn positional(time: TimeColumns, first: usize, fields: usize) -> CandleColumns {
    CandleColumns {
        time,
        symbol: None,
        ohlc: [first, first + 1, first + 2, first + 3],
        volume: (fields > first + 4).then_some(first + 4),
        close_time: None,
        ours: false,
    }
}

/// True if `field` reads as a time, so the line holding it is data, not a header: times and
/// dates start with a digit, a header's names never do.
fn looks_like_time(field: &str) -> bool {
    field.trim().starts_with(|c: char| c.is_ascii_digit())
}

/// A headerless file's format from its first row.
fn by_shape(
    row: &csv::StringRecord,
    times: &TimeParser,
) -> Result<(ReplayFormat, CandleColumns), String> {
    let n = row.len();
    let first = row[0].trim();
    if first.len() != 8 && first.bytes().all(|b| b.is_ascii_digit()) {
        let named = row.get(1).is_some_and(|s| s.bytes().any(|b| b.is_ascii_alphabetic()));
        if named && matches!(n, 4 | 7) {
            let header = if n == 4 { TICK_HEADER.join(",") } else { CANDLE_HEADER.join(",") };
            return Err(format!(
                "this looks like our schema without its header line: add `{}` as the first line",
                header.replace(' ', "_")
            ));
        }
        return match n {
            12 => Ok((ReplayFormat::Binance, binance(n))),
            5 | 6 => Ok((ReplayFormat::Ohlcv, positional(TimeColumns::One(0), 1, n))),
            _ => Err(format!(
                "rows of {n} fields starting with a Unix time: Binance klines have 12 and \
                 time,open,high,low,close[,volume] has 5 or 6; say #format=binance or #format=ohlcv"
            )),
        };
    }
    let any_order = TimeParser { unit: Some(TimeUnit::Millis), ..*times };
    let parsed = any_order.parse(first)?;
    if parsed.date_only && n >= 6 && looks_like_clock(&row[1]) {
        return Ok((ReplayFormat::MetaTrader, positional(TimeColumns::Pair(0, 1), 2, n.min(7))));
    }
    if n < 5 {
        return Err(format!(
            "a row of {n} fields; expected a time, open, high, low, close and volume"
        ));
    }
    let histdata = first.len() == 15 && first.as_bytes().get(8) == Some(&b' ');
    let format = if histdata { ReplayFormat::HistData } else { ReplayFormat::Ohlcv };
    Ok((format, positional(TimeColumns::One(0), 1, n.min(6))))
}

/// `09:00` or `09:00:00`: a time of day on its own. (Compact `0900` is read too once the
/// layout is known, but on its own it could be a price.)
fn looks_like_clock(field: &str) -> bool {
    let field = field.trim();
    let digits = field.bytes().filter(u8::is_ascii_digit).count();
    field.contains(':')
        && (3..=6).contains(&digits)
        && field.bytes().all(|b| b.is_ascii_digit() || b == b':')
}

/// A header's format and columns, by the names in it.
fn by_names(names: &[String]) -> Option<(ReplayFormat, CandleColumns)> {
    let find = |name: &str| names.iter().position(|n| n == name);
    let ohlc = [find("open")?, find("high")?, find("low")?, find("close")?];
    if let (Some(0), Some(close_time)) = (find("open time"), find("close time")) {
        let mut columns = binance(names.len());
        columns.ohlc = ohlc;
        columns.volume = find("volume");
        columns.close_time = Some(close_time);
        return Some((ReplayFormat::Binance, columns));
    }
    let at = names.iter().position(|n| TIME_NAMES.contains(&n.as_str()))?;
    let time = if names[at] == "date" && names.get(at + 1).map(String::as_str) == Some("time") {
        TimeColumns::Pair(at, at + 1)
    } else {
        TimeColumns::One(at)
    };
    let volume = VOLUME_NAMES.iter().find_map(|v| find(v));
    Some((
        ReplayFormat::Ohlcv,
        CandleColumns { time, symbol: find("symbol"), ohlc, volume, close_time: None, ours: false },
    ))
}

/// yfinance's extra header lines after `Price,Close,…`: `Ticker,EURUSD=X,…` and `Datetime,,,`.
fn extra_header_records(first: &[(u64, csv::StringRecord)]) -> usize {
    let names = |k: usize| first.get(k).map(|(_, r)| normal(&r[0]));
    if names(0).as_deref() != Some("price") {
        return 0;
    }
    let mut extra = 0;
    if names(1).as_deref() == Some("ticker") {
        extra += 1;
    }
    if let Some(name) = names(1 + extra) {
        let rest_empty = first[1 + extra].1.iter().skip(1).all(str::is_empty);
        if matches!(name.as_str(), "date" | "datetime") && rest_empty {
            extra += 1;
        }
    }
    extra
}

/// The layout `#format=` asks for.
fn forced(
    format: ReplayFormat,
    names: &[String],
    headerless: bool,
    first: &[(u64, csv::StringRecord)],
    line: u64,
) -> Result<(ReplayFormat, usize, Option<CandleColumns>), (u64, String)> {
    let header = usize::from(!headerless);
    let fields = first.get(header).map_or(names.len(), |(_, r)| r.len());
    let need = |n: usize, shape: &str| {
        if fields < n {
            let name = format.name();
            Err((
                line,
                format!(
                    "#format={name} needs rows of at least {n} fields ({shape}); \
                     this file has {fields}"
                ),
            ))
        } else {
            Ok(())
        }
    };
    Ok(match format {
        ReplayFormat::Ticks | ReplayFormat::Candles => {
            let (schema, candles): (&[&str], _) = match format {
                ReplayFormat::Ticks => (&TICK_HEADER, None),
                _ => (&CANDLE_HEADER, Some(ours())),
            };
            if names != schema {
                return Err((
                    line,
                    format!(
                        "#format={} needs the header {}",
                        format.name(),
                        schema.join(",").replace(' ', "_")
                    ),
                ));
            }
            (format, 1, candles)
        }
        ReplayFormat::Binance => {
            need(6, "open time, open, high, low, close, volume")?;
            match (headerless, by_names(names)) {
                (false, Some((ReplayFormat::Binance, columns))) => (format, 1, Some(columns)),
                _ => (format, header, Some(binance(fields))),
            }
        }
        ReplayFormat::Ohlcv if !headerless => {
            let (_, columns) = by_names(names).ok_or_else(|| {
                (
                    line,
                    "#format=ohlcv needs a time column and open, high, low and close in the header"
                        .to_owned(),
                )
            })?;
            (format, 1 + extra_header_records(first), Some(columns))
        }
        ReplayFormat::Ohlcv | ReplayFormat::HistData => {
            need(5, "a time, open, high, low, close")?;
            (format, header, Some(positional(TimeColumns::One(0), 1, fields.min(6))))
        }
        ReplayFormat::MetaTrader => {
            need(6, "a date, a time, open, high, low, close")?;
            (format, header, Some(positional(TimeColumns::Pair(0, 1), 2, fields.min(7))))
        }
    })
}
