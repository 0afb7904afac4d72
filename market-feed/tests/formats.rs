//! Replay files in the shapes traders and quants keep history in: pandas and Yahoo Finance,
//! yfinance, TradingView, Binance klines (ms, µs, monthly), HistData, MetaTrader, Dukascopy,
//! gzip; with their gaps, time zones, bad lines and ambiguous cases.
//!
//! The fixtures in `tests/fixtures/formats/` were written for these tests (prices from a seeded
//! walk, written the way each tool writes them: pandas' float noise, Yahoo's `null` rows,
//! yfinance's three header lines). Expected ticks are computed here from the fixture's text
//! by the rule the replay documents (four ticks per candle at 0, 1/4, 1/2 and 3/4 of it; open,
//! low, high, close when it rises, else open, high, low, close; prices rounded half-even to the
//! precision), not by the code under test.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod common;

use common::{instruments, options};
use market_feed::source::replay::{CandlePeriod, Gap, ReplayFile, ReplayFormat, ReplayOptions};
use market_feed::source::{SourceConfig, SourceEnd, SourceError, SystemClock};
use market_feed::types::RawTick;
use rust_decimal::{Decimal, RoundingStrategy};

const MINUTE_MS: u64 = 60_000;
const HOUR_MS: u64 = 60 * MINUTE_MS;
const DAY_MS: u64 = 24 * HOUR_MS;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats").join(name)
}

fn load(name: &str, symbol: &str, with: &str) -> ReplayFile {
    ReplayFile::load_with(&fixture(name), &instruments(&[symbol]), &options(with))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn load_err(path: &Path, symbol: &str, with: &str) -> SourceError {
    match ReplayFile::load_with(path, &instruments(&[symbol]), &options(with)) {
        Ok(file) => panic!("{} was accepted as {:?}", path.display(), file.format()),
        Err(e) => e,
    }
}

/// Writes `text` to a file of the test's own.
fn write(dir: &tempfile::TempDir, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write");
    path
}

/// The line and reason of a bad row, after checking its message names the file and line.
fn bad_row(error: SourceError, path: &Path) -> (u64, String) {
    let shown = error.to_string();
    match error {
        SourceError::BadRow { path: p, line, reason } => {
            assert_eq!(p, path);
            assert!(shown.starts_with(&format!("{}:{line}: ", path.display())), "{shown}");
            (line, reason)
        }
        other => panic!("expected a bad row, got {other}"),
    }
}

/// Unix ms of a UTC date and time (days from the civil calendar, independently of the code).
fn utc(y: i64, m: i64, d: i64, h: u64, min: u64) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    u64::try_from(days).expect("after 1970") * DAY_MS + h * HOUR_MS + min * MINUTE_MS
}

fn dec(text: &str) -> Decimal {
    Decimal::from_str_exact(text).expect("decimal")
}

/// A price of a fixture at `precision` decimals, rounded half-even.
fn at(text: &str, precision: u32) -> Decimal {
    let value = if text.contains('e') {
        Decimal::from_scientific(text)
    } else {
        Decimal::from_str_exact(text)
    };
    value.expect("price").round_dp_with_strategy(precision, RoundingStrategy::MidpointNearestEven)
}

/// One candle as the tests state it.
struct Expect {
    open_ms: u64,
    length_ms: u64,
    ohlc: [Decimal; 4],
    volume: Decimal,
}

/// The four ticks the replay promises for `candles` of `symbol`.
fn ticks_of(symbol: &str, candles: &[Expect]) -> Vec<RawTick> {
    let symbol = engine::types::Symbol::new(symbol).expect("code");
    let mut ticks = Vec::new();
    for c in candles {
        let [open, high, low, close] = c.ohlc;
        let path = if close >= open { [open, low, high, close] } else { [open, high, low, close] };
        let quarter = c.volume / Decimal::from(4);
        for (k, price) in (0u64..).zip(path) {
            let quantity = if k == 3 { c.volume - quarter * Decimal::from(3) } else { quarter };
            let source_ms = c.open_ms + k * (c.length_ms / 4);
            ticks.push(RawTick { symbol, price, quantity, source_ms });
        }
    }
    ticks.sort_by_key(|t| t.source_ms);
    ticks
}

/// Compares played ticks with expected ones (price and volume numerically, as the engine does).
fn assert_ticks(file: &ReplayFile, want: &[RawTick]) {
    let got: Vec<RawTick> = file.ticks().collect();
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(
            (g.symbol, g.source_ms, g.price, g.quantity),
            (w.symbol, w.source_ms, w.price, w.quantity),
            "tick {k}"
        );
    }
}

/// Data lines of a fixture split by `delimiter`, after `skip` header lines.
fn rows(name: &str, delimiter: char, skip: usize) -> Vec<Vec<String>> {
    std::fs::read_to_string(fixture(name))
        .expect("fixture")
        .lines()
        .skip(skip)
        .map(|l| l.split(delimiter).map(str::to_owned).collect())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Each format

#[test]
fn the_issues_pandas_export_plays_as_it_is() {
    // `,Open,High,Low,Close,Volume`, `2017-04-21 18:00:00`, float32 noise in every price, and
    // the forex weekend between Friday 21:00 and Sunday 22:00.
    let file = load("pandas_eurusd_h1.csv", "EURUSD", "");
    assert_eq!(file.format(), ReplayFormat::Ohlcv);
    let times = [(21, 18), (21, 19), (21, 20), (21, 21), (23, 22), (23, 23), (24, 0), (24, 1)];
    let candles: Vec<Expect> = rows("pandas_eurusd_h1.csv", ',', 1)
        .iter()
        .zip(times)
        .map(|(r, (day, hour))| Expect {
            open_ms: utc(2017, 4, day, hour, 0),
            length_ms: HOUR_MS,
            ohlc: [at(&r[1], 5), at(&r[2], 5), at(&r[3], 5), at(&r[4], 5)],
            volume: dec(&r[5]),
        })
        .collect();
    assert_ticks(&file, &ticks_of("EURUSD", &candles));
    assert_eq!(file.ticks().next().map(|t| t.price.to_string()), Some("1.07160".to_owned()));
    assert_eq!(file.gaps(), &[] as &[Gap], "a market closed at the weekend is no gap");
    assert!(file.rounded_prices() > 20, "float noise rounded: {}", file.rounded_prices());
}

#[test]
fn gzip_is_told_by_the_content_and_reads_like_the_plain_file() {
    let plain: Vec<RawTick> = load("pandas_eurusd_h1.csv", "EURUSD", "").ticks().collect();
    let gzip = load("pandas_eurusd_h1.csv.gz", "EURUSD", "");
    assert_eq!(gzip.ticks().collect::<Vec<_>>(), plain, "made by the gzip tool");
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes = std::fs::read(fixture("pandas_eurusd_h1.csv.gz")).expect("fixture");
    let renamed = write(&dir, "renamed.csv", bytes);
    let file = ReplayFile::load(&renamed, &instruments(&["EURUSD"])).expect("gzip by content");
    assert_eq!(file.ticks().collect::<Vec<_>>(), plain);
}

#[test]
fn yahoo_daily_skips_null_rows_and_reports_the_missing_day_but_not_the_weekend() {
    let file = load("yahoo_eurusd_d1.csv", "EURUSD", "");
    assert_eq!(file.empty_rows(), 1, "2017-04-20 is all null");
    let days = [17, 18, 19, 21, 24];
    let data: Vec<Vec<String>> =
        rows("yahoo_eurusd_d1.csv", ',', 1).into_iter().filter(|r| r[1] != "null").collect();
    let candles: Vec<Expect> = data
        .iter()
        .zip(days)
        .map(|(r, day)| Expect {
            open_ms: utc(2017, 4, day, 0, 0),
            length_ms: DAY_MS,
            ohlc: [at(&r[1], 5), at(&r[2], 5), at(&r[3], 5), at(&r[4], 5)],
            volume: dec(&r[6]),
        })
        .collect();
    assert_ticks(&file, &ticks_of("EURUSD", &candles));
    // Thursday has no prices: a gap, reported at the line after it (Friday, line 6). Saturday
    // and Sunday are closed at midday: no gap between Friday and Monday.
    let eur = engine::types::Symbol::new("EURUSD").expect("code");
    let thursday = utc(2017, 4, 20, 0, 0);
    assert_eq!(
        file.gaps(),
        &[Gap { line: 6, symbol: eur, from_ms: thursday, to_ms: thursday + DAY_MS, missing: 1 }]
    );
    assert_eq!(file.gap_count(), 1);
}

#[test]
fn yfinance_three_header_lines_reordered_columns_and_utc_offsets() {
    // Price,Close,High,Low,Open,Volume / Ticker,… / Datetime,,,… and London's +01:00.
    let file = load("yfinance_eurusd_h1.csv", "EURUSD", "");
    assert_eq!(file.format(), ReplayFormat::Ohlcv);
    let candles: Vec<Expect> = rows("yfinance_eurusd_h1.csv", ',', 3)
        .iter()
        .enumerate()
        .map(|(k, r)| Expect {
            open_ms: utc(2017, 4, 19, 9 + k as u64, 0),
            length_ms: HOUR_MS,
            ohlc: [at(&r[4], 5), at(&r[2], 5), at(&r[3], 5), at(&r[1], 5)],
            volume: dec(&r[5]),
        })
        .collect();
    assert_eq!(candles.len(), 4);
    assert_ticks(&file, &ticks_of("EURUSD", &candles));
}

#[test]
fn tradingview_times_in_unix_seconds() {
    let file = load("tradingview_btcusdt_4h.csv", "BTCUSDT", "");
    let candles: Vec<Expect> = rows("tradingview_btcusdt_4h.csv", ',', 1)
        .iter()
        .map(|r| Expect {
            open_ms: r[0].parse::<u64>().expect("seconds") * 1_000,
            length_ms: 4 * HOUR_MS,
            ohlc: [dec(&r[1]), dec(&r[2]), dec(&r[3]), dec(&r[4])],
            volume: dec(&r[5]),
        })
        .collect();
    assert_eq!(candles[0].open_ms, utc(2024, 3, 4, 0, 0));
    assert_ticks(&file, &ticks_of("BTCUSDT", &candles));
    assert_eq!(file.rounded_prices(), 0, "already at BTCUSDT's two decimals");
}

/// Binance kline rows: the candle lasts from its open to its close time (inclusive).
fn binance_candles(name: &str, skip: usize, per_ms: u64) -> Vec<Expect> {
    rows(name, ',', skip)
        .iter()
        .map(|r| {
            let open: u64 = r[0].parse().expect("open time");
            let close: u64 = r[6].parse().expect("close time");
            Expect {
                open_ms: open / per_ms,
                length_ms: (close + 1 - open) / per_ms,
                ohlc: [at(&r[1], 2), at(&r[2], 2), at(&r[3], 2), at(&r[4], 2)],
                volume: dec(&r[5]),
            }
        })
        .collect()
}

#[test]
fn binance_klines_in_ms_or_us_with_or_without_a_header() {
    let hourly = load("binance_btcusdt_1h.csv", "BTCUSDT", "");
    assert_eq!(hourly.format(), ReplayFormat::Binance);
    let candles = binance_candles("binance_btcusdt_1h.csv", 0, 1);
    assert_eq!((candles[0].open_ms, candles[0].length_ms), (utc(2024, 3, 4, 0, 0), HOUR_MS));
    assert_ticks(&hourly, &ticks_of("BTCUSDT", &candles));

    let daily_us = load("binance_btcusdt_1d_us.csv", "BTCUSDT", "");
    let candles = binance_candles("binance_btcusdt_1d_us.csv", 0, 1_000);
    assert_eq!((candles[0].open_ms, candles[0].length_ms), (utc(2025, 1, 1, 0, 0), DAY_MS));
    assert_ticks(&daily_us, &ticks_of("BTCUSDT", &candles));

    // Close times give the length, so a sparse file is read: a missing hour is a gap (crypto
    // never closes), and two candles weeks apart are just that.
    let dir = tempfile::tempdir().expect("tempdir");
    let lines: Vec<String> =
        rows("binance_btcusdt_1h.csv", ',', 0).iter().map(|r| r.join(",")).collect();
    let path = write(&dir, "sparse.csv", format!("{}\n{}\n", lines[0], lines[2]));
    let sparse = ReplayFile::load(&path, &instruments(&["BTCUSDT"])).expect("sparse");
    let btc = engine::types::Symbol::new("BTCUSDT").expect("code");
    let (first, third) = (utc(2024, 3, 4, 0, 0), utc(2024, 3, 4, 2, 0));
    assert_eq!(
        sparse.gaps(),
        &[Gap { line: 2, symbol: btc, from_ms: first + HOUR_MS, to_ms: third, missing: 1 }]
    );
    let mut later = rows("binance_btcusdt_1h.csv", ',', 0).swap_remove(2);
    for at in [0, 6] {
        later[at] = (later[at].parse::<u64>().expect("time") + 42 * DAY_MS).to_string();
    }
    let path = write(&dir, "weeks.csv", format!("{}\n{}\n", lines[0], later.join(",")));
    let weeks = ReplayFile::load(&path, &instruments(&["BTCUSDT"])).expect("weeks apart");
    assert_eq!((weeks.tick_count(), weeks.gaps()[0].missing), (8, 42 * 24 + 1));

    // Monthly klines with the futures files' header: each lasts its month (Feb 2024: 29 days).
    let monthly = load("binance_btcusdt_1M.csv", "BTCUSDT", "");
    assert_eq!(monthly.format(), ReplayFormat::Binance);
    let candles = binance_candles("binance_btcusdt_1M.csv", 1, 1);
    let lengths: Vec<u64> = candles.iter().map(|c| c.length_ms / DAY_MS).collect();
    assert_eq!(lengths, [31, 29, 31]);
    assert_ticks(&monthly, &ticks_of("BTCUSDT", &candles));
    assert_eq!(monthly.gaps(), &[] as &[Gap]);
}

#[test]
fn a_monthly_series_plays_each_candle_over_its_own_month() {
    let file = load("yahoo_btcusd_1mo.csv", "BTCUSDT", "");
    let months = [(2023, 11, 30), (2023, 12, 31), (2024, 1, 31), (2024, 2, 29), (2024, 3, 31)];
    let candles: Vec<Expect> = rows("yahoo_btcusd_1mo.csv", ',', 1)
        .iter()
        .zip(months)
        .map(|(r, (y, m, days))| Expect {
            open_ms: utc(y, m, 1, 0, 0),
            length_ms: days * DAY_MS,
            ohlc: [dec(&r[1]), dec(&r[2]), dec(&r[3]), dec(&r[4])],
            volume: dec(&r[6]),
        })
        .collect();
    assert_ticks(&file, &ticks_of("BTCUSDT", &candles));
    assert_eq!(file.gaps(), &[] as &[Gap]);
    // A missing month is a gap of one month.
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(fixture("yahoo_btcusd_1mo.csv")).expect("fixture");
    let without_january: String =
        text.lines().filter(|l| !l.starts_with("2024-01")).map(|l| format!("{l}\n")).collect();
    let path = write(&dir, "monthly_gap.csv", without_january);
    let file = ReplayFile::load(&path, &instruments(&["BTCUSDT"])).expect("a gap is no error");
    assert_eq!(file.gaps().len(), 1);
    let gap = &file.gaps()[0];
    assert_eq!((gap.line, gap.missing, gap.to_ms), (4, 1, utc(2024, 2, 1, 0, 0)));
}

#[test]
fn histdata_semicolons_a_missing_minute_and_its_est_clock() {
    let file = load("histdata_eurusd_m1.csv", "EURUSD", "");
    assert_eq!(file.format(), ReplayFormat::HistData);
    let minutes = [0, 1, 2, 4, 5, 6];
    let candles: Vec<Expect> = rows("histdata_eurusd_m1.csv", ';', 0)
        .iter()
        .zip(minutes)
        .map(|(r, minute)| Expect {
            open_ms: utc(2017, 4, 19, 9, minute),
            length_ms: MINUTE_MS,
            ohlc: [at(&r[1], 5), at(&r[2], 5), at(&r[3], 5), at(&r[4], 5)],
            volume: dec(&r[5]),
        })
        .collect();
    assert_ticks(&file, &ticks_of("EURUSD", &candles));
    let eur = engine::types::Symbol::new("EURUSD").expect("code");
    assert_eq!(
        file.gaps(),
        &[Gap {
            line: 4,
            symbol: eur,
            from_ms: utc(2017, 4, 19, 9, 3),
            to_ms: utc(2017, 4, 19, 9, 4),
            missing: 1
        }]
    );
    // HistData's clock is EST without daylight saving: five hours behind UTC all year.
    let est = load("histdata_eurusd_m1.csv", "EURUSD", "tz=-05:00");
    assert_eq!(est.ticks().next().map(|t| t.source_ms), Some(utc(2017, 4, 19, 14, 0)));
}

#[test]
fn metatrader_rows_with_commas_or_semicolons() {
    let file = load("metatrader_eurusd_h1.csv", "EURUSD", "");
    assert_eq!(file.format(), ReplayFormat::MetaTrader);
    let candles: Vec<Expect> = rows("metatrader_eurusd_h1.csv", ',', 0)
        .iter()
        .enumerate()
        .map(|(k, r)| Expect {
            open_ms: utc(2017, 4, 19, 9 + k as u64, 0),
            length_ms: HOUR_MS,
            ohlc: [dec(&r[2]), dec(&r[3]), dec(&r[4]), dec(&r[5])],
            volume: dec(&r[6]),
        })
        .collect();
    assert_ticks(&file, &ticks_of("EURUSD", &candles));
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(fixture("metatrader_eurusd_h1.csv")).expect("fixture");
    let path = write(&dir, "semicolons.csv", text.replace(',', ";"));
    let semicolons = ReplayFile::load(&path, &instruments(&["EURUSD"])).expect("semicolons");
    assert_eq!(semicolons.ticks().collect::<Vec<_>>(), file.ticks().collect::<Vec<_>>());
    // MetaTrader 5's export: tab-separated, with <DATE> and <TIME> in its header.
    let mt5: String = std::iter::once(
        "<DATE>\t<TIME>\t<OPEN>\t<HIGH>\t<LOW>\t<CLOSE>\t<TICKVOL>\t<VOL>\t<SPREAD>".to_owned(),
    )
    .chain(rows("metatrader_eurusd_h1.csv", ',', 0).iter().map(|r| {
        format!("{}\t{}:00\t{}\t{}\t{}\t{}\t{}\t0\t3", r[0], r[1], r[2], r[3], r[4], r[5], r[6])
    }))
    .map(|l| l + "\n")
    .collect();
    let path = write(&dir, "mt5.csv", mt5);
    let mt5 = ReplayFile::load(&path, &instruments(&["EURUSD"])).expect("MetaTrader 5");
    assert_eq!(mt5.format(), ReplayFormat::Ohlcv);
    assert_eq!(mt5.ticks().collect::<Vec<_>>(), file.ticks().collect::<Vec<_>>());
}

#[test]
fn dukascopy_day_first_dates_are_settled_by_a_day_past_12() {
    let file = load("dukascopy_eurusd_h1.csv", "EURUSD", "");
    let first = file.ticks().next().expect("ticks");
    assert_eq!(first.source_ms, utc(2017, 4, 19, 9, 0));
    assert_eq!(file.tick_count(), 12);
}

#[test]
fn our_two_schemas_still_read_as_before() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let ticks =
        ReplayFile::load(&root.join("ticks.csv"), &instruments(&["BTCUSDT"])).expect("ticks");
    assert_eq!(
        (ticks.format(), ticks.tick_count(), ticks.skipped_rows()),
        (ReplayFormat::Ticks, 5, 5)
    );
    let served = instruments(&["BTCUSDT", "ETHUSDT"]);
    let candles = ReplayFile::load(&root.join("candles.csv"), &served).expect("candles");
    assert_eq!((candles.format(), candles.tick_count()), (ReplayFormat::Candles, 20));
}

// ---------------------------------------------------------------------------------------------
// Ambiguous cases

#[test]
fn ambiguous_dates_are_refused_until_the_order_is_said() {
    // 01.02.2017, 01.03.2017, 01.04.2017: monthly day first, or daily month first.
    let path = fixture("ambiguous_dates.csv");
    let (line, reason) = bad_row(load_err(&path, "EURUSD", ""), &path);
    assert_eq!(line, 2);
    assert!(reason.contains("#dates=dmy") && reason.contains("2017-02-01"), "{reason}");
    let monthly = load("ambiguous_dates.csv", "EURUSD", "dates=dmy");
    let opens: Vec<u64> = monthly.ticks().step_by(4).map(|t| t.source_ms).collect();
    assert_eq!(opens, [utc(2017, 2, 1, 0, 0), utc(2017, 3, 1, 0, 0), utc(2017, 4, 1, 0, 0)]);
    let daily = load("ambiguous_dates.csv", "EURUSD", "dates=mdy");
    let opens: Vec<u64> = daily.ticks().step_by(4).map(|t| t.source_ms).collect();
    assert_eq!(opens, [utc(2017, 1, 2, 0, 0), utc(2017, 1, 3, 0, 0), utc(2017, 1, 4, 0, 0)]);
}

#[test]
fn unit_and_shape_questions_are_refused_until_an_option_answers_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kline = |open: u64| {
        let close = open + 59_999;
        format!("{open},1.00,1.10,0.90,1.05,10,{close},10.5,3,5,5.2,0\n")
    };
    // Times of 1970: seconds, ms or µs? The size of the number cannot tell.
    let small = write(&dir, "small.csv", format!("{}{}", kline(60_000), kline(120_000)));
    let (line, reason) = bad_row(load_err(&small, "XRPUSDT", ""), &small);
    assert_eq!(line, 1);
    assert!(reason.contains("#time=ms"), "{reason}");
    let file = ReplayFile::load_with(&small, &instruments(&["XRPUSDT"]), &options("time=ms"))
        .expect("said");
    assert_eq!(file.ticks().next().map(|t| t.source_ms), Some(60_000));

    // Eight fields after a Unix time: neither Binance's twelve nor time and OHLCV.
    let eight = write(&dir, "eight.csv", "1709510400000,1.00,1.10,0.90,1.05,10,1709510459999,3\n");
    let (_, reason) = bad_row(load_err(&eight, "XRPUSDT", ""), &eight);
    assert!(reason.contains("#format=binance"), "{reason}");
    let file =
        ReplayFile::load_with(&eight, &instruments(&["XRPUSDT"]), &options("format=binance"))
            .expect("said");
    assert_eq!(file.format(), ReplayFormat::Binance);
    assert_eq!(file.ticks().nth(1).map(|t| t.source_ms), Some(1_709_510_400_000 + 15_000));

    // Our candle schema without its header is not taken for Binance.
    let ours =
        write(&dir, "ours.csv", "1732000020000,BTCUSDT,96500.00,96560.00,96480.00,96550.00,12.5\n");
    let (_, reason) = bad_row(load_err(&ours, "BTCUSDT", ""), &ours);
    assert!(reason.contains("open_ms,symbol,open,high,low,close,volume"), "{reason}");

    // A single candle: a minute unless said, or a day when the file has dates only.
    let one =
        write(&dir, "one.csv", ",Open,High,Low,Close\n2017-04-19 09:00,1.07,1.08,1.06,1.07\n");
    let quarter = |with: &str| {
        let file =
            ReplayFile::load_with(&one, &instruments(&["EURUSD"]), &options(with)).expect("one");
        let t: Vec<u64> = file.ticks().map(|t| t.source_ms).collect();
        t[1] - t[0]
    };
    assert_eq!(quarter(""), 15_000);
    assert_eq!(quarter("period=1h"), 15 * MINUTE_MS);
}

#[test]
fn options_are_parsed_strictly() {
    let o = options("format=histdata, time=us,dates=dmy,tz=-05:00,period=4h");
    assert_eq!(o.format, Some(ReplayFormat::HistData));
    assert_eq!(o.utc_offset_ms, -5 * 3_600_000);
    assert_eq!(o.period, Some(CandlePeriod::Fixed(4 * HOUR_MS)));
    assert_eq!(options("period=1M").period, Some(CandlePeriod::Month));
    assert_eq!(options("period=1m").period, Some(CandlePeriod::Fixed(MINUTE_MS)));
    assert_eq!(options(""), ReplayOptions::default());
    for bad in [
        "format=excel",
        "time=ns",
        "dates=ymd",
        "tz=Europe/Paris",
        "period=fortnight",
        "speed=2",
        "format",
    ] {
        let e = ReplayOptions::parse(bad).expect_err(bad);
        assert!(!e.is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input

#[test]
fn a_bad_line_refuses_the_file_naming_file_line_and_what_was_expected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let head =
        ",Open,High,Low,Close,Volume\n2017-04-19 09:00:00,1.07160,1.07240,1.07120,1.07200,10\n";
    let cases = [
        ("2017-04-19 10:00:00,abc,1.07240,1.07120,1.07200,10", 3, "open \"abc\" is not an exact decimal"),
        ("2017-02-30 10:00:00,1.07160,1.07240,1.07120,1.07200,10", 3, "not a calendar date"),
        ("2017-04-19 10:00,1.07160,1.07240,1.07120,1.07200", 3, "expected 6 fields, found 5"),
        ("2017-04-19 10:00,1.07160,1.07100,1.07120,1.07200,10", 3, "do not bound"),
        ("2017-04-19 10:00,1.07160,null,1.07120,1.07200,10", 3, "high is empty but other prices are not"),
        ("2017-04-19 10:00,1.07160,1.07240,1.07120,1.07200,-1", 3, "volume -1 is negative"),
        ("2017-04-19 10:00,0.000001,1.07240,0.000001,1.07200,1", 3, "is 0 at EURUSD's 5 decimals"),
        ("2017-04-19 09:00:00,1.07160,1.07240,1.07120,1.07200,10", 3, "a second EURUSD candle at 2017-04-19T09:00:00Z (the first is on line 2)"),
        ("2017-04-19 08:00:00,1.07160,1.07240,1.07120,1.07200,10", 3, "before the previous row's 2017-04-19T09:00:00Z (line 2); the file looks newest first"),
        ("2017-04-19 10:00:00,1.07160,1.07240,1.07120,1.07200,10\n2017-04-19 11:00:00,1.07160,1.07240,1.07120,1.07200,10\n2017-04-19 10:30:00,1.07160,1.07240,1.07120,1.07200,10", 5, "before the previous row's 2017-04-19T11:00:00Z (line 4)"),
    ];
    for (k, (tail, line, why)) in cases.into_iter().enumerate() {
        let path = write(&dir, &format!("bad{k}.csv"), format!("{head}{tail}\n"));
        let (l, reason) = bad_row(load_err(&path, "EURUSD", ""), &path);
        assert_eq!(l, line, "{tail}: {reason}");
        assert!(reason.contains(why), "{tail}: {reason}");
    }
    // Decimal commas in a semicolon file.
    let path = write(&dir, "commas.csv", "20170419 090000;1,0716;1,0720;1,0710;1,0718;0\n");
    let (_, reason) = bad_row(load_err(&path, "EURUSD", ""), &path);
    assert!(reason.contains("decimal commas are not read"), "{reason}");
    // A #period= that makes candles overlap.
    let path = write(
        &dir,
        "overlap.csv",
        format!("{head}2017-04-19 09:30:00,1.07160,1.07240,1.07120,1.07200,10\n"),
    );
    let (line, reason) = bad_row(load_err(&path, "EURUSD", "period=1h"), &path);
    assert_eq!(line, 3);
    assert!(
        reason.contains("before the one on line 2 ends") && reason.contains("#period="),
        "{reason}"
    );
}

#[test]
fn a_partly_readable_file_starts_nothing() {
    // 500 good hours, then one bad line: the source is not built, so not one tick plays.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::from(",Open,High,Low,Close,Volume\n");
    for h in 0..500u64 {
        let (day, hour) = (1 + h / 24, h % 24);
        text.push_str(&format!(
            "2024-03-{day:02} {hour:02}:00:00,63000.00,63010.00,62990.00,63005.00,1\n"
        ));
    }
    text.push_str("2024-03-21 21:00:00,63000.00,62000.00,62990.00,63005.00,1\n");
    let path = write(&dir, "long.csv", text);
    let config = SourceConfig::replay(path.clone(), Decimal::ZERO, false);
    match config.build(&instruments(&["BTCUSDT"]), Arc::new(SystemClock)) {
        Err(error) => assert_eq!(bad_row(error, &path).0, 502),
        Ok(source) => panic!("{} was built", source.name()),
    }
}

#[test]
fn files_that_are_not_price_text_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let eur = instruments(&["EURUSD"]);
    let zip = write(&dir, "klines.zip", b"PK\x03\x04\x14\x00\x00\x00rest of a zip");
    let (line, reason) = bad_row(load_err(&zip, "EURUSD", ""), &zip);
    assert!(line == 1 && reason.contains("unzip"), "{reason}");

    let utf16: Vec<u8> =
        [0xff, 0xfe].into_iter().chain("Date,Open".bytes().flat_map(|b| [b, 0])).collect();
    let utf16 = write(&dir, "mt5.csv", utf16);
    let (line, reason) = bad_row(load_err(&utf16, "EURUSD", ""), &utf16);
    assert!(line == 1 && reason.contains("UTF-16"), "{reason}");

    // A gzip stream cut short: the error names the line it reached.
    let full = std::fs::read(fixture("pandas_eurusd_h1.csv.gz")).expect("fixture");
    let cut = write(&dir, "cut.csv.gz", &full[..full.len() - 30]);
    let (_, reason) = bad_row(load_err(&cut, "EURUSD", ""), &cut);
    assert!(reason.contains("gzip stream is damaged"), "{reason}");

    // A line longer than the bound.
    let long = write(
        &dir,
        "long.csv",
        format!(",Open,High,Low,Close\n2017-04-19 09:00,{}\n", "1".repeat(2_000)),
    );
    let (line, reason) = bad_row(load_err(&long, "EURUSD", ""), &long);
    assert!(line == 2 && reason.contains("longer than 1024 bytes"), "{line}: {reason}");

    // Too many rows.
    let mut few = ReplayOptions::default();
    few.limits.rows_max = 3;
    let path = fixture("pandas_eurusd_h1.csv");
    let error = ReplayFile::load_with(&path, &eur, &few).expect_err("4th row");
    let (line, reason) = bad_row(error, &path);
    assert!(line == 5 && reason.contains("more than 3 rows"), "{line}: {reason}");
}

#[test]
fn a_gzip_bomb_is_stopped_at_the_size_bound() {
    // 64 MiB of valid rows (padded to 1000 bytes each) compress to about 100 KiB; with a 1 MiB
    // bound the reader stops after the first MiB instead of inflating the rest.
    let dir = tempfile::tempdir().expect("tempdir");
    let row = format!("{:<999}\n", "2017-04-19 09:00,1.07,1.08,1.06,1.07");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b",Open,High,Low,Close\n").expect("gzip");
    for _ in 0..64 * 1_048 {
        gz.write_all(row.as_bytes()).expect("gzip");
    }
    let bomb = write(&dir, "bomb.csv.gz", gz.finish().expect("gzip"));
    assert!(std::fs::metadata(&bomb).expect("size").len() < 1_048_576);
    let mut bounded = ReplayOptions::default();
    bounded.limits.file_bytes_max = 1_048_576;
    let error =
        ReplayFile::load_with(&bomb, &instruments(&["EURUSD"]), &bounded).expect_err("bomb");
    let (_, reason) = bad_row(error, &bomb);
    assert!(reason.contains("larger than 1048576 bytes once decompressed"), "{reason}");
}

#[test]
fn who_a_file_feeds_is_checked() {
    // No symbol column: exactly one product.
    let path = fixture("pandas_eurusd_h1.csv");
    let two = ReplayFile::load(&path, &instruments(&["EURUSD", "GBPUSD"]));
    assert!(
        matches!(&two, Err(SourceError::Config(m)) if m.contains("exactly one product")),
        "{two:?}"
    );
    // A served product the file never prices would only go stale: refused.
    let ticks = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ticks.csv");
    let sol = ReplayFile::load(&ticks, &instruments(&["BTCUSDT", "SOLUSDT"]));
    assert!(
        matches!(&sol, Err(SourceError::Config(m)) if m.contains("no rows for SOLUSDT")),
        "{sol:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Playing

#[tokio::test(start_paused = true)]
async fn candles_play_over_their_own_time_at_the_chosen_speed() {
    // The pandas hours at 3600x: a candle's four ticks 0.25 s apart, and the weekend (Friday
    // 21:45 to Sunday 22:00, 48 h 15 min) in 48.25 s.
    let source = SourceConfig::replay(fixture("pandas_eurusd_h1.csv"), Decimal::from(3_600), false)
        .build(&instruments(&["EURUSD"]), Arc::new(SystemClock))
        .expect("source");
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let task = tokio::spawn(source.run(tx, tokio_util::sync::CancellationToken::new()));
    let started = tokio::time::Instant::now();
    let mut at_ms = Vec::new();
    while let Some(_tick) = rx.recv().await {
        at_ms.push(started.elapsed().as_millis() as u64);
    }
    assert_eq!(task.await.expect("no panic").expect("ok"), SourceEnd::Finished);
    assert_eq!(at_ms.len(), 32);
    // Deadlines are whole microseconds of tokio time; a tick may be seen 1 ms late.
    let near = |k: usize, due: u64| {
        assert!(at_ms[k] == due || at_ms[k] == due + 1, "tick {k} at {} ms, due {due}", at_ms[k]);
    };
    for (k, due) in [(0, 0), (1, 250), (2, 500), (3, 750), (4, 1_000), (15, 3_750)] {
        near(k, due);
    }
    near(16, 3_750 + 48_250); // Friday 21:45 to Sunday 22:00
    near(31, 52_000 + 3_750);
}
