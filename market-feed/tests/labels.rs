//! Candles dated by the end of their period, as pandas labels a monthly (`M`, `ME`, `BM`),
//! weekly (`W` = `W-SUN`, `W-FRI`) or quarterly (`Q`, `BQ`) resample, against those dated by
//! their start (Yahoo, TradingView, pandas' `MS`, `BMS`, `QS`); and `#label=start|end` for
//! files whose dates cannot tell.
//!
//! The fixtures in `tests/fixtures/labels/` were written for these tests, the way pandas and
//! Yahoo write them (pandas' float noise in a few prices). Expected ticks are computed here from
//! the fixture's text and the calendar by the rule the replay documents (four ticks at 0, 1/4,
//! 1/2 and 3/4 of the period each candle covers), not by the code under test.

use std::path::{Path, PathBuf};

mod common;

use common::{instruments, options};
use market_feed::source::replay::{CandleLabel, CandlePeriod, Gap, ReplayFile, ReplayOptions};
use market_feed::source::SourceError;
use market_feed::types::RawTick;
use rust_decimal::{Decimal, RoundingStrategy};

const HOUR_MS: u64 = 3_600_000;
const DAY_MS: u64 = 24 * HOUR_MS;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/labels").join(name)
}

fn load_path(path: &Path, symbols: &[&str], with: &str) -> ReplayFile {
    ReplayFile::load_with(path, &instruments(symbols), &options(with))
        .unwrap_or_else(|e| panic!("{} with {with:?}: {e}", path.display()))
}

fn load(name: &str, symbol: &str, with: &str) -> ReplayFile {
    load_path(&fixture(name), &[symbol], with)
}

/// Writes `text` to a file of the test's own.
fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write");
    path
}

/// Unix ms of a UTC date and time (days from the civil calendar, independently of the code).
fn utc(y: i64, m: i64, d: i64, h: u64) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    u64::try_from(days).expect("after 1970") * DAY_MS + h * HOUR_MS
}

/// A fixture's price at `precision` decimals, rounded half-even.
fn at(text: &str, precision: u32) -> Decimal {
    Decimal::from_str_exact(text)
        .expect("price")
        .round_dp_with_strategy(precision, RoundingStrategy::MidpointNearestEven)
}

/// Data rows of a fixture, after its header.
fn rows(name: &str) -> Vec<Vec<String>> {
    std::fs::read_to_string(fixture(name))
        .expect("fixture")
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect()
}

/// The four ticks the replay promises for a candle of `ohlc` and `volume` covering
/// `[from_ms, to_ms)`: at 0, 1/4, 1/2 and 3/4 of it; open, low, high, close when it rises.
fn candle_ticks(
    symbol: &str,
    (from_ms, to_ms): (u64, u64),
    ohlc: [Decimal; 4],
    volume: Decimal,
) -> Vec<RawTick> {
    let symbol = engine::types::Symbol::new(symbol).expect("code");
    let [open, high, low, close] = ohlc;
    let path = if close >= open { [open, low, high, close] } else { [open, high, low, close] };
    let quarter = volume / Decimal::from(4);
    let step = (to_ms - from_ms) / 4;
    (0u64..)
        .zip(path)
        .map(|(k, price)| RawTick {
            symbol,
            price,
            quantity: if k == 3 { volume - quarter * Decimal::from(3) } else { quarter },
            source_ms: from_ms + k * step,
        })
        .collect()
}

/// The ticks a fixture of `Date,Open,High,Low,Close[,Adj Close],Volume` rows should play when
/// its candles cover `spans` (one per row), prices at `precision`.
fn expected(name: &str, symbol: &str, precision: u32, spans: &[(u64, u64)]) -> Vec<RawTick> {
    let rows = rows(name);
    assert_eq!(rows.len(), spans.len(), "{name}: one span per row");
    rows.iter()
        .zip(spans)
        .flat_map(|(r, &span)| {
            let ohlc = [1, 2, 3, 4].map(|k| at(&r[k], precision));
            let volume = Decimal::from_str_exact(&r[r.len() - 1]).expect("volume");
            candle_ticks(symbol, span, ohlc, volume)
        })
        .collect()
}

/// Compares played ticks with expected ones (price and volume numerically).
fn assert_ticks(file: &ReplayFile, want: &[RawTick]) {
    let got: Vec<RawTick> = file.ticks().collect();
    assert_eq!(got.len(), want.len(), "{}", file.path().display());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(
            (g.symbol, g.source_ms, g.price, g.quantity),
            (w.symbol, w.source_ms, w.price, w.quantity),
            "{}: tick {k}",
            file.path().display()
        );
    }
}

/// The calendar month `m` of year `y` as `[first day, first day of the next month)`.
fn month(y: i64, m: i64) -> (u64, u64) {
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    (utc(y, m, 1, 0), utc(ny, nm, 1, 0))
}

/// Candle opens (every fourth tick).
fn opens(file: &ReplayFile) -> Vec<u64> {
    file.ticks().step_by(4).map(|t| t.source_ms).collect()
}

fn labels(file: &ReplayFile) -> Vec<CandleLabel> {
    file.labels().iter().map(|(_, label)| *label).collect()
}

// ---------------------------------------------------------------------------------------------
// Months

/// The issue's file: `resample('M')` of BTC/USD, dated 2012-01-31, 2012-02-29, 2012-03-31, …,
/// used to stop the start with "BTCUSD.csv:3: this BTCUSDT candle opens at
/// 2012-02-29T00:00:00Z, before the one on line 2 ends at 2012-03-02T00:00:00Z".
#[test]
fn the_issues_pandas_month_end_file_plays_each_candle_in_the_month_it_closes() {
    let months: Vec<(u64, u64)> = (1..=12).map(|m| month(2012, m)).collect();
    let want = expected("pandas_btcusd_M.csv", "BTCUSDT", 2, &months);
    for with in ["", "period=1M", "label=end", "period=1M,label=end"] {
        let file = load("pandas_btcusd_M.csv", "BTCUSDT", with);
        assert_ticks(&file, &want);
        assert_eq!(file.gaps(), &[] as &[Gap], "{with}");
        assert_eq!(labels(&file), [CandleLabel::End], "{with}");
        // Every tick of the candle dated the last day of a month falls inside that month.
        let ticks: Vec<RawTick> = file.ticks().collect();
        for (candle, (from, to)) in ticks.chunks(4).zip(&months) {
            assert!(candle.iter().all(|t| (*from..*to).contains(&t.source_ms)), "{with}");
        }
    }
    // February 2012 (dated 2012-02-29) lasts its 29 days: ticks at 0, 7¼, 14½ and 21¾ days.
    let file = load("pandas_btcusd_M.csv", "BTCUSDT", "");
    let february: Vec<u64> = file.ticks().skip(4).take(4).map(|t| t.source_ms).collect();
    let quarter = 29 * DAY_MS / 4;
    let first = utc(2012, 2, 1, 0);
    assert_eq!(february, [first, first + quarter, first + 2 * quarter, first + 3 * quarter]);
}

#[test]
fn business_month_ends_cover_the_calendar_month_they_close() {
    // pandas' `BM`: 2012-03-30 and 2012-06-29 are Fridays, the 31st and 30th a Saturday.
    let file = load("pandas_eurusd_BM.csv", "EURUSD", "");
    assert_eq!(labels(&file), [CandleLabel::End]);
    let months: Vec<(u64, u64)> = (1..=6).map(|m| month(2012, m)).collect();
    assert_ticks(&file, &expected("pandas_eurusd_BM.csv", "EURUSD", 5, &months));
    assert_eq!(opens(&file)[2], utc(2012, 3, 1, 0), "March, dated 2012-03-30, opens on the 1st");
    assert_eq!(file.gaps(), &[] as &[Gap]);
    assert_eq!(file.rounded_prices(), 1, "pandas' float noise in April's high");
}

#[test]
fn month_starts_and_business_month_starts_open_their_calendar_month() {
    // pandas' `BMS`: 2014-02-03 and 2014-03-03 are Mondays; March used to be given 31 days
    // from the 3rd, past April's candle on the 1st.
    let file = load("pandas_eurusd_BMS.csv", "EURUSD", "");
    assert_eq!(labels(&file), [CandleLabel::Start]);
    let months: Vec<(u64, u64)> = (1..=5).map(|m| month(2014, m)).collect();
    assert_ticks(&file, &expected("pandas_eurusd_BMS.csv", "EURUSD", 5, &months));
    // Yahoo's monthly candles, dated the 1st, still open on their dates for their month.
    let yahoo =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats/yahoo_btcusd_1mo.csv");
    let file = load_path(&yahoo, &["BTCUSDT"], "");
    assert_eq!(labels(&file), [CandleLabel::Start]);
    let first: Vec<u64> = [(2023, 11), (2023, 12), (2024, 1), (2024, 2), (2024, 3)]
        .iter()
        .map(|&(y, m)| month(y, m).0)
        .collect();
    assert_eq!(opens(&file), first);
    assert_eq!(
        file.ticks().nth(5).map(|t| t.source_ms),
        Some(utc(2023, 12, 1, 0) + 31 * DAY_MS / 4)
    );
}

#[test]
fn weekly_sundays_and_fridays_close_their_week_and_mondays_open_it() {
    // pandas' `W` (`W-SUN`): Sunday 2024-03-10 is Monday 03-04 00:00 to Monday 03-11 00:00.
    let sundays = [3, 10, 17, 24, 31];
    let spans: Vec<(u64, u64)> = sundays
        .iter()
        .map(|&d| (utc(2024, 3, d, 0) - 6 * DAY_MS, utc(2024, 3, d + 1, 0)))
        .collect();
    let file = load("pandas_btcusd_W.csv", "BTCUSDT", "");
    assert_eq!(labels(&file), [CandleLabel::End]);
    assert_ticks(&file, &expected("pandas_btcusd_W.csv", "BTCUSDT", 2, &spans));
    assert_eq!(opens(&file)[1], utc(2024, 3, 4, 0));
    assert_eq!(file.gaps(), &[] as &[Gap]);
    // `#period=1w` said reads the same.
    assert_ticks(
        &load("pandas_btcusd_W.csv", "BTCUSDT", "period=1w"),
        &expected("pandas_btcusd_W.csv", "BTCUSDT", 2, &spans),
    );

    // pandas' `W-FRI` (business weeks): Friday 2024-03-08 closes Saturday 03-02 to 03-09.
    let fridays = [1, 8, 15, 22];
    let spans: Vec<(u64, u64)> = fridays
        .iter()
        .map(|&d| (utc(2024, 3, d, 0) - 6 * DAY_MS, utc(2024, 3, d + 1, 0)))
        .collect();
    let file = load("pandas_eurusd_W-FRI.csv", "EURUSD", "");
    assert_eq!(labels(&file), [CandleLabel::End]);
    assert_ticks(&file, &expected("pandas_eurusd_W-FRI.csv", "EURUSD", 5, &spans));

    // Yahoo's weekly candles, dated Mondays, open their week.
    let mondays = [4, 11, 18, 25];
    let spans: Vec<(u64, u64)> =
        mondays.iter().map(|&d| (utc(2024, 3, d, 0), utc(2024, 3, d, 0) + 7 * DAY_MS)).collect();
    let file = load("yahoo_btcusd_1wk.csv", "BTCUSDT", "");
    assert_eq!(labels(&file), [CandleLabel::Start]);
    assert_ticks(&file, &expected("yahoo_btcusd_1wk.csv", "BTCUSDT", 2, &spans));
}

#[test]
fn quarter_ends_and_starts_cover_their_calendar_quarter() {
    let quarter = |y: i64, q: i64| {
        let (from, _) = month(y, 3 * q - 2);
        let (_, to) = month(y, 3 * q);
        (from, to)
    };
    let quarters =
        [quarter(2023, 1), quarter(2023, 2), quarter(2023, 3), quarter(2023, 4), quarter(2024, 1)];
    // pandas' `Q` (`QE`), and `BQ`, whose 2023-09-29, 2023-12-29 and 2024-03-29 are Fridays.
    for (name, symbol, precision) in
        [("pandas_btcusd_Q.csv", "BTCUSDT", 2), ("pandas_eurusd_BQ.csv", "EURUSD", 5)]
    {
        let want = expected(name, symbol, precision, &quarters);
        for with in ["", "period=1Q", "period=3M"] {
            let file = load(name, symbol, with);
            assert_eq!(labels(&file), [CandleLabel::End], "{name} {with}");
            assert_ticks(&file, &want);
            assert_eq!(file.gaps(), &[] as &[Gap], "{name} {with}");
        }
    }
    // Second quarter 2023: April 1st to July 1st, 91 days.
    let file = load("pandas_btcusd_Q.csv", "BTCUSDT", "");
    assert_eq!(opens(&file)[1], utc(2023, 4, 1, 0));
    assert_eq!(
        file.ticks().nth(5).map(|t| t.source_ms),
        Some(utc(2023, 4, 1, 0) + 91 * DAY_MS / 4)
    );

    // pandas' `QS`: dated by the first day, played over the quarter that follows.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        &dir,
        "qs.csv",
        "Date,Open,High,Low,Close,Volume\n\
         2023-01-01,16547.0,29189.0,16490.0,28478.0,10\n\
         2023-04-01,28478.0,31431.0,24750.0,30472.0,10\n\
         2023-07-01,30472.0,31804.0,24901.0,26967.0,10\n",
    );
    let file = load_path(&path, &["BTCUSDT"], "");
    assert_eq!(labels(&file), [CandleLabel::Start]);
    assert_eq!(opens(&file), [utc(2023, 1, 1, 0), utc(2023, 4, 1, 0), utc(2023, 7, 1, 0)]);
    assert_eq!(
        file.ticks().nth(1).map(|t| t.source_ms),
        Some(utc(2023, 1, 1, 0) + 90 * DAY_MS / 4)
    );
}

/// Days in month `m` of year `y` (the civil rule, independently of the code).
fn days_in(y: i64, m: i64) -> i64 {
    match m {
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[test]
fn the_label_option_wins_over_the_dates() {
    // Yahoo's Mondays said to close their week: Tuesday to Tuesday.
    let mondays = [4, 11, 18, 25];
    let spans: Vec<(u64, u64)> = mondays
        .iter()
        .map(|&d| (utc(2024, 3, d, 0) - 6 * DAY_MS, utc(2024, 3, d + 1, 0)))
        .collect();
    let file = load("yahoo_btcusd_1wk.csv", "BTCUSDT", "label=end");
    assert_eq!(labels(&file), [CandleLabel::End]);
    assert_ticks(&file, &expected("yahoo_btcusd_1wk.csv", "BTCUSDT", 2, &spans));

    // pandas' Sundays said to open theirs (as Investing.com dates weeks): Sunday to Sunday.
    let sundays = [3, 10, 17, 24, 31];
    let spans: Vec<(u64, u64)> =
        sundays.iter().map(|&d| (utc(2024, 3, d, 0), utc(2024, 3, d, 0) + 7 * DAY_MS)).collect();
    let file = load("pandas_btcusd_W.csv", "BTCUSDT", "label=start");
    assert_eq!(labels(&file), [CandleLabel::Start]);
    assert_ticks(&file, &expected("pandas_btcusd_W.csv", "BTCUSDT", 2, &spans));

    // Month ends said to open their candle: from the date to the same day a month on, or that
    // month's last day (2012-01-31 to 2012-02-29, 2012-02-29 to 2012-03-29).
    let spans: Vec<(u64, u64)> = (1..=12)
        .map(|m| {
            let (ny, nm) = if m == 12 { (2013, 1) } else { (2012, m + 1) };
            let d = days_in(2012, m);
            (utc(2012, m, d, 0), utc(ny, nm, d.min(days_in(ny, nm)), 0))
        })
        .collect();
    let file = load("pandas_btcusd_M.csv", "BTCUSDT", "label=start");
    assert_eq!(labels(&file), [CandleLabel::Start]);
    assert_ticks(&file, &expected("pandas_btcusd_M.csv", "BTCUSDT", 2, &spans));

    // Hourly candles stamped with their close: each plays over the hour before its time.
    let h1 =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats/pandas_eurusd_h1.csv");
    let opened: Vec<RawTick> = load_path(&h1, &["EURUSD"], "").ticks().collect();
    let closed = load_path(&h1, &["EURUSD"], "label=end");
    assert_eq!(labels(&closed), [CandleLabel::End]);
    let shifted: Vec<RawTick> =
        opened.iter().map(|t| RawTick { source_ms: t.source_ms - HOUR_MS, ..t.clone() }).collect();
    assert_ticks(&closed, &shifted);
}

#[test]
fn the_label_option_is_parsed_strictly_and_refused_where_the_columns_say_opens() {
    assert_eq!(options("label=end").label, Some(CandleLabel::End));
    assert_eq!(options("period=1M, label=start").label, Some(CandleLabel::Start));
    assert_eq!(options("").label, None);
    for quarter in ["period=1Q", "period=3M", "period=3mo"] {
        assert_eq!(options(quarter).period, Some(CandlePeriod::Quarter), "{quarter}");
    }
    let e = ReplayOptions::parse("label=right").expect_err("not a label");
    assert!(e.contains("start") && e.contains("end"), "{e}");
    let e = ReplayOptions::parse("closed=right").expect_err("not an option");
    assert!(e.contains("period and label"), "{e}");

    // Our schema's open_ms and Binance's open and close times say what the times are.
    let dir = tempfile::tempdir().expect("tempdir");
    let ours = write(
        &dir,
        "ours.csv",
        "open_ms,symbol,open,high,low,close,volume\n0,BTCUSDT,1.00,1.00,1.00,1.00,1\n",
    );
    let binance =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats/binance_btcusdt_1M.csv");
    for path in [&ours, &binance] {
        match ReplayFile::load_with(path, &instruments(&["BTCUSDT"]), &options("label=end")) {
            Err(SourceError::Config(reason)) => {
                assert!(reason.contains("#label=end does not apply"), "{reason}");
            }
            other => panic!("{}: {other:?}", path.display()),
        }
        let file = load_path(path, &["BTCUSDT"], "label=start");
        assert_eq!(labels(&file), [CandleLabel::Start]);
    }
}

#[test]
fn gaps_between_end_dated_candles_are_counted_in_their_periods() {
    let dir = tempfile::tempdir().expect("tempdir");
    let without = |name: &str, date: &str| {
        let text = std::fs::read_to_string(fixture(name)).expect("fixture");
        let kept: String =
            text.lines().filter(|l| !l.starts_with(date)).map(|l| format!("{l}\n")).collect();
        write(&dir, &format!("without_{date}_{name}"), &kept)
    };
    // March 2012 missing: February's candle ends on March 1st, April's opens on April 1st.
    let file = load_path(&without("pandas_btcusd_M.csv", "2012-03-31"), &["BTCUSDT"], "");
    assert_eq!(labels(&file), [CandleLabel::End]);
    let gap = file.gaps();
    assert_eq!(gap.len(), 1);
    assert_eq!(
        (gap[0].line, gap[0].missing, gap[0].from_ms, gap[0].to_ms),
        (4, 1, utc(2012, 3, 1, 0), utc(2012, 4, 1, 0))
    );
    // The week of Sunday 2024-03-17 missing: Monday 03-11 to Monday 03-18.
    let file = load_path(&without("pandas_btcusd_W.csv", "2024-03-17"), &["BTCUSDT"], "");
    let gap = file.gaps();
    assert_eq!(gap.len(), 1);
    assert_eq!(
        (gap[0].line, gap[0].missing, gap[0].from_ms, gap[0].to_ms),
        (4, 1, utc(2024, 3, 11, 0), utc(2024, 3, 18, 0))
    );
    // The third quarter of 2023 missing: one quarter, July 1st to October 1st.
    let file = load_path(&without("pandas_btcusd_Q.csv", "2023-09-30"), &["BTCUSDT"], "");
    let gap = file.gaps();
    assert_eq!(gap.len(), 1);
    assert_eq!(
        (gap[0].line, gap[0].missing, gap[0].from_ms, gap[0].to_ms),
        (4, 1, utc(2023, 7, 1, 0), utc(2023, 10, 1, 0))
    );
}

#[test]
fn month_end_dates_are_read_on_the_files_own_clock() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rows = "2012-01-31{tz},5.27,7.38,5.27,5.48,1\n2012-02-29{tz},5.48,6.23,4.27,4.86,1\n\
                2012-03-31{tz},4.86,5.40,4.70,4.90,1\n";
    // Offsets in the rows (Tokyo), or said for the file (New York winter time): each candle is
    // the month on that clock.
    for (tz, said, offset_h) in [(" 00:00:00+09:00", "", 9_i64), ("", "tz=-05:00", -5)] {
        let path = write(
            &dir,
            &format!("offset{offset_h}.csv"),
            &format!("Date,Open,High,Low,Close,Volume\n{}", rows.replace("{tz}", tz)),
        );
        let file = load_path(&path, &["BTCUSDT"], said);
        assert_eq!(labels(&file), [CandleLabel::End], "{tz}{said}");
        let shift = |ms: u64| {
            u64::try_from(i64::try_from(ms).expect("small") - offset_h * 3_600_000)
                .expect("after 1970")
        };
        let want: Vec<u64> = (1..=3).map(|m| shift(month(2012, m).0)).collect();
        assert_eq!(opens(&file), want, "{tz}{said}");
        let last = file.ticks().last().map(|t| t.source_ms);
        assert_eq!(last, Some(shift(utc(2012, 3, 1, 0)) + 3 * (31 * DAY_MS / 4)), "{tz}{said}");
    }
}

#[test]
fn products_of_different_periods_in_one_file_play_in_time_order() {
    // BTCUSDT by month ends, ETHUSDT by Sundays, interleaved by date: March's BTCUSDT candle
    // (dated 03-31) opens before the ETHUSDT week dated 03-10 (opening 03-04).
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        &dir,
        "mixed.csv",
        "Date,Symbol,Open,High,Low,Close,Volume\n\
         2024-02-29,BTCUSDT,42580.00,63913.00,41884.00,61130.00,1\n\
         2024-03-03,ETHUSDT,3340.00,3480.00,3200.00,3470.00,1\n\
         2024-03-10,ETHUSDT,3470.00,4090.00,3450.00,3880.00,1\n\
         2024-03-17,ETHUSDT,3880.00,4000.00,3500.00,3520.00,1\n\
         2024-03-31,BTCUSDT,61130.00,73777.00,59005.00,71280.00,1\n",
    );
    let file = load_path(&path, &["BTCUSDT", "ETHUSDT"], "");
    assert_eq!(labels(&file), [CandleLabel::End, CandleLabel::End]);
    let ticks: Vec<RawTick> = file.ticks().collect();
    assert_eq!(ticks.len(), 20);
    assert!(ticks.windows(2).all(|w| w[0].source_ms <= w[1].source_ms), "in time order");
    let btc_march: Vec<u64> = ticks
        .iter()
        .filter(|t| t.symbol.as_str() == "BTCUSDT" && t.source_ms >= utc(2024, 3, 1, 0))
        .map(|t| t.source_ms)
        .collect();
    let quarter = 31 * DAY_MS / 4;
    let first = utc(2024, 3, 1, 0);
    assert_eq!(btc_march, [first, first + quarter, first + 2 * quarter, first + 3 * quarter]);
}

/// A file of two XRPUSDT candles dated `first` and `second`.
fn two_days(first: &str, second: &str) -> String {
    format!("Date,Open,High,Low,Close\n{first},1.00,1.10,0.90,1.05\n{second},1.05,1.10,1.00,1.02\n")
}

#[test]
fn dates_that_cannot_tell_take_the_default_and_errors_name_the_option() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Weekly on Wednesdays: no convention; each opens its week.
    let path = write(&dir, "wednesdays.csv", &two_days("2024-03-06", "2024-03-13"));
    let file = load_path(&path, &["XRPUSDT"], "");
    assert_eq!(labels(&file), [CandleLabel::Start]);
    assert_eq!(opens(&file), [utc(2024, 3, 6, 0), utc(2024, 3, 13, 0)]);
    // Daily candles dated by day are the same day either way.
    let path = write(&dir, "daily.csv", &two_days("2024-03-06", "2024-03-07"));
    let start = load_path(&path, &["XRPUSDT"], "");
    let end = load_path(&path, &["XRPUSDT"], "label=end");
    assert_eq!(start.ticks().collect::<Vec<_>>(), end.ticks().collect::<Vec<_>>());

    // Mid-month dates a calendar month apart are taken as opens; when that overlaps, the error
    // says how to read them the other way.
    let path = write(&dir, "thirtieth.csv", &two_days("2024-01-30", "2024-02-28"));
    let (line, reason) = match ReplayFile::load(&path, &instruments(&["XRPUSDT"])) {
        Err(SourceError::BadRow { line, reason, .. }) => (line, reason),
        other => panic!("{other:?}"),
    };
    assert_eq!(line, 3);
    assert!(reason.contains("ends at 2024-02-29") && reason.contains("#label=end"), "{reason}");

    // Month ends two months apart: neither monthly nor quarterly unless the period is said.
    let path = write(&dir, "two_months.csv", &two_days("2024-01-31", "2024-03-31"));
    let reason = match ReplayFile::load(&path, &instruments(&["XRPUSDT"])) {
        Err(SourceError::BadRow { line: 3, reason, .. }) => reason,
        other => panic!("{other:?}"),
    };
    assert!(reason.contains("2 months apart") && reason.contains("#period=1M"), "{reason}");
    let file = load_path(&path, &["XRPUSDT"], "period=1M");
    assert_eq!(opens(&file), [utc(2024, 1, 1, 0), utc(2024, 3, 1, 0)]);
    assert_eq!(file.gaps().len(), 1, "February is missing");
}
