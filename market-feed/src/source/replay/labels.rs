//! Which end of its period a candle's time names, and the time each candle covers.
//!
//! Exporters date a candle by its start (Yahoo, TradingView, Binance, MetaTrader, pandas' `MS`,
//! `BMS`, `QS`) or by its end (pandas' `M`/`ME`, `BM`/`BME`, `W` = `W-SUN`, `W-FRI`, `Q`/`QE`,
//! `BQ`). Each product's candle times are read on their own, on the file's own clock (a row's
//! UTC offset, else `#tz=`), and `#label=start|end` overrides what follows.
//!
//! **What the dates tell.** Only times that are all midnights can be told apart: they name
//! days. A time of day is a candle's open in every format read (say `#label=end` for bars
//! stamped with their close). Our `open_ms` schema and Binance's klines (open and close times)
//! say their times are opens, and refuse `#label=end`.
//! - Every date the last day or the last weekday (Monday to Friday) of its month, months
//!   strictly increasing: **end-dated** months or quarters (`M`, `BM`, `Q`, `BQ`). Every date the
//!   first day or the first weekday of its month: **start-dated** (`MS`, `BMS`, `QS`, Yahoo's
//!   monthly). A start-dated month never opens on the 31st, so this is never a guess.
//! - Weekly dates (a 7-day period), all on one weekday: only a convention tells. Fridays,
//!   Saturdays and Sundays are taken as **ends** (pandas' `W-FRI`, `W-SAT`, and `W`, which is
//!   `W-SUN`; a week rarely starts on those days); Mondays to Thursdays as **starts** (Yahoo,
//!   TradingView and Binance weeks open on Mondays). Starting weeks on Sundays (Investing.com)
//!   needs `#label=start`; ending them on Mondays `#label=end`. The guess is logged with the
//!   option that changes it. It is not refused: both readings play the same prices at the same
//!   pace and only move the recorded times by six days, so a refusal would cost a restart for
//!   nothing.
//! - Anything else (dates mid-month, every few days): dated by the start, as before, which is
//!   logged with `#label=end`. Daily candles dated by day are the same day either way.
//!
//! **What a candle covers** (half-open, on the file's clock):
//! - Dated by its start at `t`: `[t, t + period)`, a month or quarter being calendar months
//!   (the same day of the month, or the month's last day if shorter: Jan 31 + 1 month = Feb
//!   29). Dated at month starts (first day or weekday): its whole calendar month or quarter
//!   from the 1st, so `BMS`'s 2014-03-03 covers March.
//! - Dated by its end on day `d`: the period that ends when day `d` does (pandas' bins are
//!   closed on the right and take in the whole labelled day), `[d + 1 day - period, d + 1 day)`:
//!   Sunday 2024-03-10 covers Monday 2024-03-04 00:00 to Monday 2024-03-11 00:00. Dated at
//!   month ends (last day or weekday): its whole calendar month or quarter, so 2012-02-29 covers
//!   February and `BM`'s 2012-03-30 covers March, to April 1st 00:00. A time of day `t` (say
//!   `#label=end`) is the close itself: `[t - period, t)`.

use super::dates::{self, DAY_MS};
use super::{CandleLabel, CandlePeriod};

/// Milliseconds in a day, signed (times on a file's clock may fall before 1970).
const DAY: i64 = 86_400_000;

/// Names of the weekdays, Monday first.
const WEEKDAYS: [&str; 7] =
    ["Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays"];

/// Which calendar anchor every date of a series sits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Anchor {
    /// The last day of its month, or its last weekday (`M`, `BM`, `Q`, `BQ`).
    MonthEnd,
    /// The first day of its month, or its first weekday (`MS`, `BMS`, `QS`).
    MonthStart,
}

/// How one product's candle times sit on the calendar, on the file's clock.
#[derive(Clone, Debug, Default)]
pub(super) struct Series {
    /// Every time is a midnight: the times name days.
    pub days: bool,
    /// The anchor every day sits on, the months strictly increasing.
    pub anchor: Option<Anchor>,
    /// Months from each candle to the next, when anchored.
    month_steps: Vec<i64>,
    /// The weekday (0 Monday to 6 Sunday) every day falls on, when they share one.
    weekday: Option<u32>,
}

impl Series {
    /// The series of candle times `locals` (ms on the file's clock, in order).
    pub fn of(locals: &[i64]) -> Series {
        let days = !locals.is_empty() && locals.iter().all(|t| t.rem_euclid(DAY) == 0);
        if !days {
            return Series::default();
        }
        let day_numbers: Vec<i64> = locals.iter().map(|&t| dates::day_of(t)).collect();
        let months: Vec<i64> = locals.iter().map(|&t| dates::month_index(t)).collect();
        let month_steps: Vec<i64> = months.windows(2).map(|m| m[1] - m[0]).collect();
        let increasing = month_steps.iter().all(|&s| s > 0);
        let anchor = if !increasing {
            None
        } else if day_numbers.iter().all(|&d| is_month_end(d)) {
            Some(Anchor::MonthEnd)
        } else if day_numbers.iter().all(|&d| is_month_start(d)) {
            Some(Anchor::MonthStart)
        } else {
            None
        };
        let first = dates::weekday(day_numbers[0]);
        let weekday = day_numbers.iter().all(|&d| dates::weekday(d) == first).then_some(first);
        Series {
            days,
            anchor,
            month_steps: if anchor.is_some() { month_steps } else { Vec::new() },
            weekday,
        }
    }

    /// The period anchored dates imply when not said: a month for steps of a month, a quarter
    /// when every step is a whole number of quarters and the shortest one. `None` if the dates
    /// are not anchored or there is a single candle; `Err((months, k))` for a shortest step of
    /// `months` that is neither, between candles `k` and `k + 1`.
    pub fn calendar_period(&self) -> Option<Result<CandlePeriod, (i64, usize)>> {
        self.anchor?;
        let (k, &shortest) = self.month_steps.iter().enumerate().min_by_key(|(_, s)| **s)?;
        Some(match shortest {
            1 => Ok(CandlePeriod::Month),
            3 if self.month_steps.iter().all(|s| s % 3 == 0) => Ok(CandlePeriod::Quarter),
            _ => Err((shortest, k)),
        })
    }
}

/// The last day of its month, or the last weekday of it.
fn is_month_end(day: i64) -> bool {
    let (year, month, date) = dates::civil_from_days(day);
    let last = dates::days_in_month(year, month);
    // The last weekday: a weekday with only the weekend after it in the month.
    date == last
        || (dates::weekday(day) < 5
            && (date + 1..=last).all(|d| dates::weekday(day + i64::from(d - date)) >= 5))
}

/// The first day of its month, or the first weekday of it.
fn is_month_start(day: i64) -> bool {
    let (_, _, date) = dates::civil_from_days(day);
    date == 1
        || (dates::weekday(day) < 5
            && (1..date).all(|d| dates::weekday(day - i64::from(date - d)) >= 5))
}

/// How a product's labelling was settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Why {
    /// `#label=`.
    Said,
    /// The file's own columns say (our `open_ms`, Binance's open and close times).
    Columns,
    /// The dates tell (month starts or ends).
    Told,
    /// Both readings are the same candles (daily candles dated by day, a single day).
    Moot,
    /// Times of day: opens, as every exporter read writes them.
    Usual,
    /// A convention or the default, which the file cannot confirm: logged with the option
    /// that changes it.
    Guessed(String),
}

/// Which end of its period each of a product's times names, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Verdict {
    /// The labelling.
    pub label: CandleLabel,
    /// How it was settled.
    pub why: Why,
}

/// The labelling of a series of `period` when nothing is said.
pub(super) fn detect(series: &Series, period: CandlePeriod) -> Verdict {
    let verdict = |label, why| Verdict { label, why };
    if !series.days {
        return verdict(CandleLabel::Start, Why::Usual);
    }
    match (series.anchor, period) {
        (Some(Anchor::MonthEnd), CandlePeriod::Month | CandlePeriod::Quarter) => {
            return verdict(CandleLabel::End, Why::Told);
        }
        (Some(Anchor::MonthStart), CandlePeriod::Month | CandlePeriod::Quarter) => {
            return verdict(CandleLabel::Start, Why::Told);
        }
        (_, CandlePeriod::Fixed(DAY_MS)) => return verdict(CandleLabel::Start, Why::Moot),
        _ => {}
    }
    if let (CandlePeriod::Fixed(ms), Some(day)) = (period, series.weekday) {
        if ms == 7 * DAY_MS {
            let name = WEEKDAYS[usize::try_from(day).unwrap_or(0)];
            return if day >= 4 {
                let pandas =
                    ["W-FRI", "W-SAT", "W, which is W-SUN"][usize::try_from(day - 4).unwrap_or(0)];
                verdict(
                    CandleLabel::End,
                    Why::Guessed(format!(
                        "weekly candles dated {name} are taken to close their week (pandas' \
                         {pandas}); say #label=start if each opens on its date"
                    )),
                )
            } else {
                verdict(
                    CandleLabel::Start,
                    Why::Guessed(format!(
                        "weekly candles dated {name} are taken to open their week; say \
                         #label=end if each closes on its date"
                    )),
                )
            };
        }
    }
    verdict(
        CandleLabel::Start,
        Why::Guessed(format!(
            "candles of {period} dated by day are taken to open on their dates; say #label=end \
             if each date is the last day of its candle"
        )),
    )
}

/// The span `[from, to)` (ms on the file's clock) of the candle dated `local`, for a series
/// of `period` labelled `label`.
pub(super) fn span(
    local: i64,
    label: CandleLabel,
    period: CandlePeriod,
    series: &Series,
) -> (i64, i64) {
    // A day names the whole day: its candle ends when the day does.
    let end = if series.days { local + DAY } else { local };
    let fixed = |ms: u64| i64::try_from(ms).unwrap_or(i64::MAX);
    let months = match period {
        CandlePeriod::Fixed(ms) => {
            return match label {
                CandleLabel::Start => (local, local.saturating_add(fixed(ms))),
                CandleLabel::End => (end.saturating_sub(fixed(ms)), end),
            };
        }
        CandlePeriod::Month => 1,
        CandlePeriod::Quarter => 3,
    };
    let month = dates::month_index(local);
    match (label, series.anchor) {
        (CandleLabel::Start, Some(Anchor::MonthStart)) => {
            (dates::month_start(month), dates::month_start(month + months))
        }
        (CandleLabel::End, Some(Anchor::MonthEnd)) => {
            (dates::month_start(month + 1 - months), dates::month_start(month + 1))
        }
        (CandleLabel::Start, _) => (local, dates::add_months(local, months)),
        (CandleLabel::End, _) => (dates::add_months(end, -months), end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i64, m: u32, d: u32) -> i64 {
        dates::days_from_civil(y, m, d)
    }

    fn series(days: &[(i64, u32, u32)]) -> Series {
        let locals: Vec<i64> = days.iter().map(|&(y, m, d)| day(y, m, d) * DAY).collect();
        Series::of(&locals)
    }

    #[test]
    fn month_ends_and_starts_include_the_business_ones() {
        assert!(is_month_end(day(2012, 2, 29)));
        assert!(is_month_end(day(2012, 3, 30)), "Friday; the 31st is a Saturday");
        assert!(is_month_end(day(2012, 3, 31)), "the last day, though a Saturday");
        assert!(!is_month_end(day(2012, 3, 29)));
        assert!(is_month_end(day(2023, 9, 29)), "Friday; the 30th is a Saturday");
        assert!(is_month_start(day(2014, 2, 3)), "Monday; the 1st is a Saturday");
        assert!(is_month_start(day(2014, 3, 3)), "Monday; the 1st is a Saturday");
        assert!(!is_month_start(day(2014, 4, 2)), "the 1st is a Tuesday");
        assert!(!is_month_start(day(2014, 3, 4)));
    }

    #[test]
    fn anchors_need_every_date_and_rising_months() {
        let ends = series(&[(2012, 1, 31), (2012, 2, 29), (2012, 3, 30)]);
        assert_eq!(ends.anchor, Some(Anchor::MonthEnd));
        assert_eq!(ends.calendar_period(), Some(Ok(CandlePeriod::Month)));
        let same_month = series(&[(2024, 3, 29), (2024, 3, 31)]);
        assert_eq!(same_month.anchor, None);
        let mixed = series(&[(2012, 1, 31), (2012, 3, 1)]);
        assert_eq!(mixed.anchor, None);
        let quarters = series(&[(2023, 3, 31), (2023, 6, 30), (2023, 12, 29)]);
        assert_eq!(quarters.calendar_period(), Some(Ok(CandlePeriod::Quarter)));
        let two_months = series(&[(2023, 1, 1), (2023, 3, 1)]);
        assert_eq!(two_months.calendar_period(), Some(Err((2, 0))));
        let timed = Series::of(&[day(2012, 1, 31) * DAY + 3_600_000]);
        assert!(!timed.days && timed.anchor.is_none());
    }

    #[test]
    fn spans_follow_the_documented_rules() {
        let at = |y, m, d| day(y, m, d) * DAY;
        let week = CandlePeriod::Fixed(7 * DAY_MS);
        let sundays = series(&[(2024, 3, 10), (2024, 3, 17)]);
        assert_eq!(detect(&sundays, week).label, CandleLabel::End);
        assert_eq!(
            span(at(2024, 3, 10), CandleLabel::End, week, &sundays),
            (at(2024, 3, 4), at(2024, 3, 11))
        );
        let mondays = series(&[(2024, 3, 4), (2024, 3, 11)]);
        assert_eq!(detect(&mondays, week).label, CandleLabel::Start);
        let bm = series(&[(2012, 2, 29), (2012, 3, 30)]);
        assert_eq!(
            span(at(2012, 3, 30), CandleLabel::End, CandlePeriod::Month, &bm),
            (at(2012, 3, 1), at(2012, 4, 1))
        );
        let q = series(&[(2023, 3, 31), (2023, 6, 30)]);
        assert_eq!(
            span(at(2023, 6, 30), CandleLabel::End, CandlePeriod::Quarter, &q),
            (at(2023, 4, 1), at(2023, 7, 1))
        );
        let bms = series(&[(2014, 2, 3), (2014, 3, 3)]);
        assert_eq!(
            span(at(2014, 3, 3), CandleLabel::Start, CandlePeriod::Month, &bms),
            (at(2014, 3, 1), at(2014, 4, 1))
        );
        // Said against the anchor: from the date, a calendar month on.
        assert_eq!(
            span(at(2012, 1, 31), CandleLabel::Start, CandlePeriod::Month, &bm),
            (at(2012, 1, 31), at(2012, 2, 29))
        );
        let mid = series(&[(2012, 1, 15), (2012, 2, 15)]);
        assert_eq!(
            span(at(2012, 2, 15), CandleLabel::End, CandlePeriod::Month, &mid),
            (at(2012, 1, 16), at(2012, 2, 16))
        );
        // A time of day is the close itself.
        let hour = CandlePeriod::Fixed(3_600_000);
        let timed = Series::of(&[at(2017, 4, 21) + 18 * 3_600_000]);
        assert_eq!(
            span(at(2017, 4, 21) + 18 * 3_600_000, CandleLabel::End, hour, &timed),
            (at(2017, 4, 21) + 17 * 3_600_000, at(2017, 4, 21) + 18 * 3_600_000)
        );
    }
}
