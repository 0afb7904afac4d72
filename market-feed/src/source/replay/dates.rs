//! Times as exports write them, to Unix milliseconds (UTC).
//!
//! A time field is one of:
//! - a number: Unix time in seconds, milliseconds or microseconds ([`TimeUnit`]; an
//!   eight-digit number is a `YYYYMMDD` date instead);
//! - a date: `2017-04-19`, `2017.04.19`, `2017/04/19`, `20170419`, or with the year last
//!   (`19.04.2017`, `04/19/2017`: [`DateOrder`] says which is the day);
//! - a date and a time of day, separated by a space or `T`: `09:00`, `09:00:00`,
//!   `09:00:00.250` (digits past the millisecond are dropped), `090000` or `0900`;
//! - either, followed by a UTC offset: `Z`, `+01:00`, `-0500`, `+01`, or ` UTC` / ` GMT`.
//!
//! A time without an offset is in the file's offset (`#tz=`, UTC unless said). Two-digit years
//! are refused: `04.05.17` has three readings.
//!
//! Dates with the year last and day and month both at most 12 (`04.05.2017`) read two ways;
//! without a [`DateOrder`] the parser returns both readings ([`Readings`]) and the file decides
//! (a row with a 13 or more settles it; a file that never does is refused as ambiguous).

use time::format_description::well_known::Rfc3339;
use time::{Date, Month, OffsetDateTime};

use crate::source::constants::REPLAY_TIME_MAX_MS;

/// Milliseconds in a day.
pub(crate) const DAY_MS: u64 = 86_400_000;
/// Julian day number of 1970-01-01.
const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;
/// Largest UTC offset accepted (the world's widest is +14:00).
const OFFSET_MAX_MS: i64 = 18 * 3_600_000;

/// Which of day and month comes first in dates that put the year last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateOrder {
    /// `19.04.2017`: day, month, year (most of the world, Dukascopy).
    DayFirst,
    /// `04/19/2017`: month, day, year (the United States).
    MonthFirst,
}

/// The unit of times written as plain numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Unix seconds (TradingView's `time`).
    Seconds,
    /// Unix milliseconds (Binance klines before 2025).
    Millis,
    /// Unix microseconds (Binance spot klines from 2025).
    Micros,
}

impl TimeUnit {
    /// The option's spelling: `s`, `ms`, `us`.
    pub fn as_str(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "s",
            TimeUnit::Millis => "ms",
            TimeUnit::Micros => "us",
        }
    }

    /// The unit a Unix time of this size is plausibly written in: times from 1973 to 2286
    /// have 9 to 10 digits in seconds, 12 to 13 in ms and 15 to 16 in µs. `None` for anything
    /// else (a test's `60000`, or a value between two ranges): the caller must be told.
    pub fn plausible_for(value: u64) -> Option<TimeUnit> {
        match value {
            100_000_000..=9_999_999_999 => Some(TimeUnit::Seconds),
            100_000_000_000..=9_999_999_999_999 => Some(TimeUnit::Millis),
            100_000_000_000_000..=9_999_999_999_999_999 => Some(TimeUnit::Micros),
            _ => None,
        }
    }

    /// `value` in this unit, in ms (µs rounded down).
    fn to_ms(self, value: u64) -> Option<u64> {
        match self {
            TimeUnit::Seconds => value.checked_mul(1_000),
            TimeUnit::Millis => Some(value),
            TimeUnit::Micros => Some(value / 1_000),
        }
    }
}

/// A time's readings in ms: `[day first, month first]`. Both are the same unless the date puts
/// the year last with day and month both at most 12 and no order was given; a reading that is
/// not a valid date is `None`, and at least one is always `Some`.
pub(crate) type Readings = [Option<u64>; 2];

/// A parsed time field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// Its readings.
    pub readings: Readings,
    /// It was a date alone, with no time of day.
    pub date_only: bool,
    /// The UTC offset it was read in (its own, else the file's; 0 for Unix times), in ms east
    /// of UTC: reading + offset is the time on the file's own clock, whose midnights and
    /// calendar months end-dated candles are placed by.
    pub offset_ms: i64,
}

/// Reads time fields with a file's settings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimeParser {
    /// Day and month order of year-last dates, when known.
    pub order: Option<DateOrder>,
    /// Unit of plain numbers, when known.
    pub unit: Option<TimeUnit>,
    /// The unit was inferred from the first row: every number must then be plausible in it.
    pub unit_inferred: bool,
    /// Offset of times that carry none, in ms east of UTC.
    pub offset_ms: i64,
}

impl TimeParser {
    /// A time in one field: a number, a date, or a date and time.
    pub fn parse(&self, field: &str) -> Result<Parsed, String> {
        let field = field.trim();
        if !field.is_empty() && field.len() != 8 && field.bytes().all(|b| b.is_ascii_digit()) {
            return self.epoch(field);
        }
        let (date, time) = match field.find([' ', 'T']) {
            Some(at) => (&field[..at], Some(field[at + 1..].trim_start())),
            None => (field, None),
        };
        let days = self.date(date)?;
        let (time_ms, offset_ms) = match time {
            Some(time) => {
                let (clock, offset) = split_offset(time)?;
                (time_of_day(clock)?, offset)
            }
            None => (0, None),
        };
        let offset_ms = offset_ms.unwrap_or(self.offset_ms);
        let readings = combine(days, time_ms, offset_ms)?;
        Ok(Parsed { readings, date_only: time.is_none(), offset_ms })
    }

    /// A date in one field and a time of day in another (MetaTrader's `2017.04.19,09:00`).
    pub fn parse_pair(&self, date: &str, time: &str) -> Result<Parsed, String> {
        let days = self.date(date.trim())?;
        let (clock, offset) = split_offset(time.trim())?;
        let offset_ms = offset.unwrap_or(self.offset_ms);
        let readings = combine(days, time_of_day(clock)?, offset_ms)?;
        Ok(Parsed { readings, date_only: false, offset_ms })
    }

    /// A Unix time in the file's unit.
    fn epoch(&self, field: &str) -> Result<Parsed, String> {
        let value: u64 =
            field.parse().map_err(|_| format!("time {field} is too large a number"))?;
        let unit = self.unit.ok_or_else(|| {
            format!("time {field}: is it in seconds, ms or µs? Say #time=s, #time=ms or #time=us")
        })?;
        if self.unit_inferred && TimeUnit::plausible_for(value) != Some(unit) {
            return Err(format!(
                "time {field} is not a plausible time in {} like the rows before it; \
                 say #time=s, #time=ms or #time=us",
                unit.as_str()
            ));
        }
        let ms = unit
            .to_ms(value)
            .filter(|&ms| ms <= REPLAY_TIME_MAX_MS)
            .ok_or_else(|| format!("time {field} {} is too late", unit.as_str()))?;
        Ok(Parsed { readings: [Some(ms); 2], date_only: false, offset_ms: 0 })
    }

    /// Days since 1970-01-01 of a date, in each reading.
    fn date(&self, text: &str) -> Result<[Option<i64>; 2], String> {
        let bad = || format!("{text:?} is not a date (expected e.g. 2017-04-19)");
        if text.len() == 8 && text.bytes().all(|b| b.is_ascii_digit()) {
            let n = |r: std::ops::Range<usize>| text[r].parse::<u32>().map_err(|_| bad());
            let day = calendar_day(n(0..4)?, n(4..6)?, n(6..8)?).ok_or_else(bad)?;
            return Ok([Some(day); 2]);
        }
        let parts: Vec<&str> = text.split(['-', '.', '/']).collect();
        let [a, b, c] = parts[..] else { return Err(bad()) };
        let all_digits =
            |s: &str| !s.is_empty() && s.len() <= 4 && s.bytes().all(|x| x.is_ascii_digit());
        if !(all_digits(a) && all_digits(b) && all_digits(c)) {
            return Err(bad());
        }
        let n = |s: &str| s.parse::<u32>().map_err(|_| bad());
        if a.len() == 4 && b.len() <= 2 && c.len() <= 2 {
            let day = calendar_day(n(a)?, n(b)?, n(c)?)
                .ok_or_else(|| format!("{text} is not a calendar date"))?;
            return Ok([Some(day); 2]);
        }
        if c.len() != 4 || a.len() > 2 || b.len() > 2 {
            return Err(format!("{text:?} is not a date: the year must have four digits"));
        }
        let (year, first, second) = (n(c)?, n(a)?, n(b)?);
        let day_first = calendar_day(year, second, first);
        let month_first = calendar_day(year, first, second);
        match self.order {
            Some(DateOrder::DayFirst) => day_first
                .map(|d| [Some(d); 2])
                .ok_or_else(|| format!("{text} is not a date as day.month.year")),
            Some(DateOrder::MonthFirst) => month_first
                .map(|d| [Some(d); 2])
                .ok_or_else(|| format!("{text} is not a date as month.day.year")),
            None if day_first.is_none() && month_first.is_none() => {
                Err(format!("{text} is not a date with the day or the month first"))
            }
            None => Ok([day_first, month_first]),
        }
    }
}

/// Days since 1970-01-01 of a valid date from 1970 to 9999.
fn calendar_day(year: u32, month: u32, day: u32) -> Option<i64> {
    if !(1970..=9999).contains(&year) {
        return None;
    }
    let month = Month::try_from(u8::try_from(month).ok()?).ok()?;
    let date =
        Date::from_calendar_date(i32::try_from(year).ok()?, month, u8::try_from(day).ok()?).ok()?;
    Some(i64::from(date.to_julian_day()) - UNIX_EPOCH_JULIAN_DAY)
}

/// Splits a trailing UTC offset off a time of day: `09:00+01:00` -> (`09:00`, +1 h).
fn split_offset(text: &str) -> Result<(&str, Option<i64>), String> {
    for zone in [" UTC", " GMT", "Z", "UTC", "GMT"] {
        if let Some(clock) = text.strip_suffix(zone) {
            return Ok((clock.trim_end(), Some(0)));
        }
    }
    let Some(at) = text.rfind(['+', '-']) else { return Ok((text, None)) };
    Ok((text[..at].trim_end(), Some(parse_offset(&text[at..])?)))
}

/// A UTC offset in ms east: `+01:00`, `-0500`, `+01`, `Z`, `UTC`.
pub(crate) fn parse_offset(text: &str) -> Result<i64, String> {
    if matches!(text, "Z" | "UTC" | "GMT") {
        return Ok(0);
    }
    let bad = || format!("{text:?} is not a UTC offset (expected e.g. +01:00)");
    let sign = match text.as_bytes().first() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return Err(bad()),
    };
    let digits: String = text[1..].chars().filter(|c| *c != ':').collect();
    if !digits.bytes().all(|b| b.is_ascii_digit()) || !matches!(digits.len(), 2 | 4) {
        return Err(bad());
    }
    let hours: i64 = digits[..2].parse().map_err(|_| bad())?;
    let minutes: i64 = if digits.len() == 4 { digits[2..].parse().map_err(|_| bad())? } else { 0 };
    let offset_ms = sign * (hours * 3_600_000 + minutes * 60_000);
    if minutes >= 60 || offset_ms.abs() > OFFSET_MAX_MS {
        return Err(bad());
    }
    Ok(offset_ms)
}

/// Milliseconds into the day of `09:00`, `09:00:00`, `09:00:00.250`, `090000`, `0900` or
/// `090000250`.
fn time_of_day(text: &str) -> Result<u64, String> {
    let bad = || format!("{text:?} is not a time of day (expected e.g. 09:00:00)");
    let (clock, fraction) = match text.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (text, None),
    };
    let (hms, mut millis) = if clock.contains(':') {
        let parts: Vec<&str> = clock.split(':').collect();
        if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| p.is_empty() || p.len() > 2) {
            return Err(bad());
        }
        let mut hms = [0u64; 3];
        for (slot, part) in hms.iter_mut().zip(&parts) {
            *slot = part.parse().map_err(|_| bad())?;
        }
        (hms, 0)
    } else {
        if !clock.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let n = |r: std::ops::Range<usize>| clock[r].parse::<u64>().map_err(|_| bad());
        match clock.len() {
            4 => ([n(0..2)?, n(2..4)?, 0], 0),
            6 => ([n(0..2)?, n(2..4)?, n(4..6)?], 0),
            9 => ([n(0..2)?, n(2..4)?, n(4..6)?], n(6..9)?),
            _ => return Err(bad()),
        }
    };
    if let Some(fraction) = fraction {
        if fraction.is_empty()
            || fraction.len() > 9
            || !fraction.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(bad());
        }
        let first3: String = fraction.chars().chain(std::iter::repeat('0')).take(3).collect();
        millis = first3.parse().map_err(|_| bad())?;
    }
    let [hour, minute, second] = hms;
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!("{text:?} is not a time of day: out of range"));
    }
    Ok(((hour * 60 + minute) * 60 + second) * 1_000 + millis)
}

/// Unix ms of each reading of a day, plus a time of day, minus an offset.
fn combine(days: [Option<i64>; 2], time_ms: u64, offset_ms: i64) -> Result<Readings, String> {
    let at = |day: Option<i64>| -> Result<Option<u64>, String> {
        let Some(day) = day else { return Ok(None) };
        let day_ms = i64::try_from(DAY_MS).unwrap_or(i64::MAX);
        let ms = day * day_ms + i64::try_from(time_ms).unwrap_or(i64::MAX) - offset_ms;
        let ms = u64::try_from(ms).map_err(|_| "the time is before 1970-01-01 UTC".to_owned())?;
        Ok(Some(ms))
    };
    Ok([at(days[0])?, at(days[1])?])
}

/// A time for people: `2017-04-19T09:00:00Z` (or the raw ms if it cannot be shown).
pub(crate) fn show(ms: u64) -> String {
    i128::from(ms)
        .checked_mul(1_000_000)
        .and_then(|nanos| OffsetDateTime::from_unix_timestamp_nanos(nanos).ok())
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| format!("{ms} ms"))
}

/// Milliseconds in a day, signed (for times on a file's own clock, which may fall before 1970).
const DAY: i64 = 86_400_000;

/// Days since 1970-01-01 of a date of the proleptic Gregorian calendar, any year (Howard
/// Hinnant's `days_from_civil`; total, unlike `time`'s dates, which end at year 9999).
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((i64::from(month) + 9) % 12) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date (year, month 1 to 12, day 1 to 31) of a day since 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = u32::try_from(day_of_year - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Days in `month` (1 to 12) of `year`.
pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Day of the week of a day since 1970-01-01: 0 Monday to 6 Sunday (1970-01-01 was a Thursday).
pub(crate) fn weekday(days: i64) -> u32 {
    u32::try_from((days + 3).rem_euclid(7)).unwrap_or(0)
}

/// The day (since 1970-01-01) a time on a file's clock falls on.
pub(crate) fn day_of(local_ms: i64) -> i64 {
    local_ms.div_euclid(DAY)
}

/// Months since January 1970 of a time on a file's clock.
pub(crate) fn month_index(local_ms: i64) -> i64 {
    let (year, month, _) = civil_from_days(day_of(local_ms));
    (year - 1970) * 12 + i64::from(month) - 1
}

/// Midnight starting the first day of month `index` (months since January 1970), in ms.
pub(crate) fn month_start(index: i64) -> i64 {
    let month = u32::try_from(index.rem_euclid(12)).unwrap_or(0) + 1;
    days_from_civil(1970 + index.div_euclid(12), month, 1) * DAY
}

/// `local_ms` moved by `months` calendar months, at the same time of day and on the same day
/// of the month, or on the month's last day if it is shorter (Jan 31 + 1 month = Feb 29).
pub(crate) fn add_months(local_ms: i64, months: i64) -> i64 {
    let (year, month, day) = civil_from_days(day_of(local_ms));
    let index = year * 12 + i64::from(month) - 1 + months;
    let (year, month) =
        (index.div_euclid(12), u32::try_from(index.rem_euclid(12)).unwrap_or(0) + 1);
    let day = day.min(days_in_month(year, month));
    days_from_civil(year, month, day) * DAY + local_ms.rem_euclid(DAY)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2017-04-19 09:00:00 UTC.
    const APRIL_19_9H: u64 = 1_492_592_400_000;

    fn utc_parser() -> TimeParser {
        TimeParser { order: None, unit: None, unit_inferred: false, offset_ms: 0 }
    }

    fn one(text: &str) -> u64 {
        let parsed = utc_parser().parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(parsed.readings[0], parsed.readings[1], "{text} reads one way");
        parsed.readings[0].expect("valid")
    }

    #[test]
    fn the_shapes_exports_write_all_read_the_same_instant() {
        for text in [
            "2017-04-19 09:00:00",
            "2017-04-19 09:00",
            "2017-04-19T09:00:00Z",
            "2017-04-19T09:00:00.000Z",
            "2017-04-19 09:00:00+00:00",
            "2017-04-19 11:00:00+02:00",
            "2017-04-19 04:00:00-05:00",
            "2017-04-19 04:00:00-0500",
            "2017-04-19 10:00+01",
            "2017.04.19 09:00",
            "2017/04/19 09:00:00",
            "20170419 090000",
            "20170419 0900",
            "20170419 090000000",
            "2017-04-19 09:00:00 UTC",
            "1492592400",
            "1492592400000",
            "1492592400000000",
        ] {
            let parser = TimeParser {
                unit: text.bytes().all(|b| b.is_ascii_digit()).then(|| {
                    TimeUnit::plausible_for(text.parse().expect("number")).expect("plausible")
                }),
                ..utc_parser()
            };
            let parsed = parser.parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(parsed.readings, [Some(APRIL_19_9H); 2], "{text}");
            assert!(!parsed.date_only, "{text}");
        }
        assert_eq!(one("2017-04-19"), APRIL_19_9H - 9 * 3_600_000);
        assert!(utc_parser().parse("20170419").expect("a date").date_only);
        assert_eq!(one("2017-04-19 09:00:00.2509"), APRIL_19_9H + 250, "µs are dropped");
    }

    #[test]
    fn naive_times_take_the_files_offset_and_explicit_offsets_win() {
        let est = TimeParser { offset_ms: -5 * 3_600_000, ..utc_parser() };
        let naive = est.parse("20170419 040000").expect("valid");
        assert_eq!(naive.readings[0], Some(APRIL_19_9H));
        let explicit = est.parse("2017-04-19 09:00:00Z").expect("valid");
        assert_eq!(explicit.readings[0], Some(APRIL_19_9H));
    }

    #[test]
    fn year_last_dates_read_two_ways_until_an_order_is_given() {
        let both = utc_parser().parse("04.05.2017").expect("valid both ways");
        let may_4 = one("2017-05-04");
        let april_5 = one("2017-04-05");
        assert_eq!(both.readings, [Some(may_4), Some(april_5)]);
        let only_day_first = utc_parser().parse("19.04.2017 09:00").expect("valid");
        assert_eq!(only_day_first.readings, [Some(APRIL_19_9H), None]);
        let only_month_first = utc_parser().parse("04/19/2017 09:00").expect("valid");
        assert_eq!(only_month_first.readings, [None, Some(APRIL_19_9H)]);
        let dmy = TimeParser { order: Some(DateOrder::DayFirst), ..utc_parser() };
        assert_eq!(dmy.parse("04.05.2017").expect("valid").readings, [Some(may_4); 2]);
        assert!(dmy.parse("04/19/2017").is_err(), "no 19th month");
        assert!(utc_parser().parse("13.13.2017").is_err());
    }

    #[test]
    fn numbers_need_a_unit_and_an_inferred_one_must_keep_fitting() {
        let err = utc_parser().parse("60000").expect_err("no unit");
        assert!(err.contains("#time="), "{err}");
        let inferred =
            TimeParser { unit: Some(TimeUnit::Millis), unit_inferred: true, ..utc_parser() };
        assert!(inferred.parse("1492592400000").is_ok());
        let err = inferred.parse("1492592400000000").expect_err("a µs time among ms");
        assert!(err.contains("plausible"), "{err}");
        assert_eq!(TimeUnit::plausible_for(60_000), None);
        assert_eq!(TimeUnit::plausible_for(50_000_000_000), None, "between s and ms");
    }

    #[test]
    fn bad_dates_and_times_say_what_was_expected() {
        for (text, why) in [
            ("2017-02-30", "calendar"),
            ("17-04-19", "four digits"),
            ("2017-04-19 25:00", "out of range"),
            ("2017-04-19 09:61", "out of range"),
            ("2017-04-19 9h", "time of day"),
            ("2017-04-19 09:00+25:00", "offset"),
            ("1969-12-31", "calendar"),
            ("yesterday", "not a date"),
            ("1970-01-01 00:00+01:00", "before 1970"),
        ] {
            let err = utc_parser().parse(text).expect_err(text);
            assert!(err.contains(why), "{text}: {err}");
        }
    }

    fn local(text: &str) -> i64 {
        i64::try_from(one(text)).expect("small")
    }

    #[test]
    fn months_have_their_calendar_lengths() {
        let feb_2017 = local("2017-02-01");
        assert_eq!(add_months(feb_2017, 1) - feb_2017, 28 * DAY);
        assert_eq!(add_months(local("2016-02-01"), 1), local("2016-03-01"));
        assert_eq!(add_months(local("2016-01-31 09:00"), 1), local("2016-02-29 09:00"));
        assert_eq!(add_months(local("2016-03-31"), -1), local("2016-02-29"));
        assert_eq!(add_months(local("2016-12-15"), 3), local("2017-03-15"));
        assert_eq!(month_index(local("2017-03-01")), month_index(feb_2017) + 1);
        assert_eq!(month_start(month_index(local("2017-03-17 12:00"))), local("2017-03-01"));
        assert_eq!(month_index(-1), -1, "1969-12-31T23:59:59.999");
        assert_eq!(show(APRIL_19_9H), "2017-04-19T09:00:00Z");
    }

    #[test]
    fn the_civil_calendar_agrees_with_the_time_crate() {
        // Every day from 1970 to 2100 (and days before 1970, for times on a clock west of UTC).
        for days in -400..47_500 {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(days_from_civil(year, month, day), days);
            assert!(day >= 1 && day <= days_in_month(year, month));
            if days >= 0 {
                let date = Date::from_julian_day(
                    i32::try_from(days + UNIX_EPOCH_JULIAN_DAY).expect("small"),
                )
                .expect("valid");
                assert_eq!(
                    (date.year(), u8::from(date.month()), date.day()),
                    (
                        i32::try_from(year).expect("small"),
                        u8::try_from(month).expect("small"),
                        u8::try_from(day).expect("small")
                    )
                );
                assert_eq!(weekday(days), u32::from(date.weekday().number_days_from_monday()));
            }
        }
    }
}
