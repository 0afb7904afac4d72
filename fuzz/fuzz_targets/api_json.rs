//! The HTTP API's request parsing helpers on arbitrary text: `gateway::api::dto` (plain
//! decimals and amounts, dates, user names, passwords, e-mail, codes, texts, enums, wallet
//! addresses), `walletsig::recover` (wallet sign-in signatures) and JSON bodies read the way
//! `auth::Body` reads them (an object only), here `trade::OrderBody` with its field checks.
//!
//! Input: `[selector u8][a u8][b u8][text...]` (the text is the bytes, lossily UTF-8).
//!
//! Each helper is checked against what its doc and the OpenAPI patterns promise, with an
//! independent reference where one is short (date arithmetic, the decimal pattern).
#![no_main]

use gateway::api::dto;
use gateway::trading::{self as trade, OrderBody};
use gateway::walletsig::{self, Family};
use libfuzzer_sys::fuzz_target;
use rust_decimal::Decimal;

/// Whether `value` is 1..=`whole` digits, then optionally `.` and 1..=`fraction` digits.
fn plain_shape(value: &str, whole: usize, fraction: usize) -> bool {
    let digits = |s: &str, max: usize| {
        !s.is_empty() && s.len() <= max && s.bytes().all(|b| b.is_ascii_digit())
    };
    match value.split_once('.') {
        Some((int, frac)) => digits(int, whole) && digits(frac, fraction),
        None => digits(value, whole),
    }
}

/// Days from 1970-01-01 to `y-m-d`, days past a month's end counting on (reference).
fn days_reference(y: i64, m: u32, d: u32) -> i64 {
    let leaps = |n: i64| n / 4 - n / 100 + n / 400;
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let before_year = 365 * (y - 1970) + leaps(y - 1) - leaps(1969);
    let before_month: i64 = month_days[..(m - 1) as usize].iter().sum();
    before_year + before_month + i64::from(d) - 1
}

fn check_plain_decimal(value: &str, whole: usize, fraction: usize) {
    let parsed = dto::plain_decimal(value, whole, fraction);
    let shape = plain_shape(value, whole, fraction);
    if parsed.is_some() {
        assert!(shape, "{value:?} accepted against the pattern ({whole}, {fraction})");
    }
    if let Some(v) = parsed {
        assert!(!v.is_sign_negative() || v.is_zero());
        let frac_len = value.split_once('.').map_or(0, |(_, f)| f.len());
        assert_eq!(v.scale() as usize, frac_len, "{value:?} parsed as {v}");
        assert_eq!(v, Decimal::from_str_exact(value).expect("exact"));
        assert_eq!(v.to_string().trim_start_matches('0'), value.trim_start_matches('0'));
    }
    // Every value of the pattern that a Decimal holds exactly is accepted.
    let (int_len, frac_len) = match value.split_once('.') {
        Some((int, frac)) => (int.len(), frac.len()),
        None => (value.len(), 0),
    };
    if shape && int_len + frac_len <= 28 {
        assert!(parsed.is_some(), "{value:?} refused though it fits ({whole}, {fraction})");
    }
}

fn check_amount(value: &str) {
    if let Ok(v) = dto::amount("amount", value) {
        assert!(v > Decimal::ZERO && v <= Decimal::from(1_000_000_000u64), "{value:?}");
        assert!(v.scale() <= 2);
        assert!(plain_shape(value, 10, 2), "{value:?} is not the documented pattern");
    }
}

fn check_date(value: &str, end_of_day: bool) {
    let Ok(ms) = dto::date("from", value, end_of_day) else { return };
    if value.bytes().all(|b| b.is_ascii_digit()) {
        assert_eq!(ms, value.parse::<u64>().expect("digits"));
        assert!(value.len() <= 15);
        return;
    }
    let parts: Vec<&str> = value.split('-').collect();
    let [y, m, d] = parts.as_slice() else { panic!("{value:?} accepted as a date") };
    let (y, m, d): (i64, u32, u32) =
        (y.parse().expect("year"), m.parse().expect("month"), d.parse().expect("day"));
    let start = u64::try_from(days_reference(y, m, d)).expect("after 1970") * 86_400_000;
    assert_eq!(ms, if end_of_day { start + 86_399_999 } else { start }, "{value:?}");
}

fn check_identity(selector: u8, value: &str) {
    match selector % 6 {
        0 => {
            if let Ok(name) = dto::username(value) {
                assert!((3..=20).contains(&name.len()));
                assert!(name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
            }
        }
        1 => {
            if let Ok(p) = dto::password("password", value) {
                assert!((6..=dto::PASSWORD_CHARS_MAX).contains(&p.chars().count()));
            }
        }
        2 => {
            if let Ok(p) = dto::strong_password("password", value) {
                assert!((8..=dto::PASSWORD_CHARS_MAX).contains(&p.chars().count()));
            }
        }
        3 => {
            if let Ok(email) = dto::email(value) {
                assert!(email.len() <= 254 && email.contains('@'));
                assert_eq!(email, email.to_ascii_lowercase());
                // Idempotent: a stored address is accepted again as it is.
                assert_eq!(dto::email(&email).ok().as_deref(), Some(email.as_str()));
            }
        }
        4 => {
            if let Ok(code) = dto::code(value) {
                assert!(code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()));
            }
        }
        _ => {
            let max = usize::from(selector >> 3);
            if let Ok(text) = dto::optional_text("remark", value, max) {
                assert!(text.chars().count() <= max);
                assert_eq!(text, text.trim());
            }
            let _ = dto::text("remark", value, max, "remark_required");
        }
    }
}

fn check_names(value: &str) {
    let _ = dto::account(Some(value));
    let _ = dto::direction(value);
    let _ = dto::chain(value);
    let _ = dto::pay_method(value);
    let _ = dto::bounded("page", value.parse().ok());
    if let Ok(symbol) = trade::symbol(value) {
        assert_eq!(trade::symbol(symbol.as_str()).ok(), Some(symbol));
    }
}

fn check_wallet(selector: u8, value: &str) {
    let chain = ["eth", "tron", "trust"][usize::from(selector % 3)];
    if let Ok((_, address)) = dto::wallet_address(chain, value) {
        let again = dto::wallet_address(chain, &address).expect("a normalized address is valid");
        assert_eq!(again.1, address, "normalization is not idempotent");
    }
}

fn check_signature(selector: u8, value: &str) {
    let family = if selector & 1 == 0 { Family::Evm } else { Family::Tron };
    let (message, signature) = value.split_once('\n').unwrap_or((value, ""));
    if let Some(address) = walletsig::recover(family, message, signature) {
        assert_eq!(walletsig::normalize_address(family, &address).as_deref(), Some(&*address));
    }
}

/// `auth::Body`: only an object is a body; then serde; then the order's field checks.
fn check_order_body(bytes: &[u8]) {
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return;
    }
    let Ok(body) = serde_json::from_slice::<OrderBody>(bytes) else { return };
    let _ = trade::symbol(&body.symbol);
    let _ = dto::direction(&body.direction);
    check_amount(&body.amount);
    let _ = dto::account(body.account.as_deref());
}

fuzz_target!(|data: &[u8]| {
    let [selector, a, b, rest @ ..] = data else { return };
    let text = String::from_utf8_lossy(rest);
    match selector % 9 {
        0 => check_plain_decimal(&text, usize::from(*a % 32), usize::from(*b % 32)),
        1 => check_amount(&text),
        2 => check_date(&text, *a & 1 == 1),
        3 => check_identity(*a, &text),
        4 => check_names(&text),
        5 => check_wallet(*a, &text),
        6 => check_signature(*a, &text),
        7 => check_order_body(rest),
        _ => {
            let query = dto::PageQuery {
                page: Some(usize::from(*a) << (b % 64 / 2)),
                page_size: Some(usize::from(*b)),
            };
            if let Ok(paging) = query.paging() {
                assert!(paging.page >= 1 && (1..=dto::PAGE_SIZE_MAX).contains(&paging.size));
            }
            check_amount(&text);
        }
    }
});
