//! Request parsing shared by handlers: the spec's §5 validation rules, money as strings,
//! paging, and the API names of engine enums.

use engine::types::{AccountKind, Chain, Destination, Direction, PayMethod};
use rust_decimal::Decimal;
use serde::Deserialize;
use utoipa::IntoParams;

use super::ApiError;
use crate::readmodel::Paging;

/// Rows per page unless asked otherwise.
pub const PAGE_SIZE_DEFAULT: usize = 20;
/// Most rows per page.
pub const PAGE_SIZE_MAX: usize = 100;
/// Longest free text (remarks, reasons, bios).
pub const TEXT_CHARS_MAX: usize = 500;
/// Longest short field (names, account numbers, addresses).
pub const FIELD_CHARS_MAX: usize = 100;
/// Longest password accepted (argon2 cost is per byte; refuse absurd inputs).
pub const PASSWORD_CHARS_MAX: usize = 128;

/// Paging query parameters.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PageQuery {
    /// 1-based page (default 1).
    pub page: Option<usize>,
    /// Rows per page (default 20, at most 100).
    pub page_size: Option<usize>,
}

impl PageQuery {
    /// Checked paging.
    pub fn paging(&self) -> Result<Paging, ApiError> {
        let page = self.page.unwrap_or(1);
        let size = self.page_size.unwrap_or(PAGE_SIZE_DEFAULT);
        if page == 0 || page > 1_000_000 || size == 0 || size > PAGE_SIZE_MAX {
            return Err(ApiError::invalid("page", "page"));
        }
        Ok(Paging { page, size })
    }
}

/// Username: required, 3-20 characters (§5), letters, digits and underscores.
pub fn username(value: &str) -> Result<String, ApiError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(ApiError::invalid("username", "username_required"));
    }
    let count = value.chars().count();
    if !(3..=20).contains(&count) {
        return Err(ApiError::invalid("username", "username_length"));
    }
    if !value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(ApiError::invalid("username", "username_chars"));
    }
    Ok(value.to_owned())
}

/// Password for sign-in, sign-up and change: required, at least 6 characters (§5).
pub fn password(field: &'static str, value: &str) -> Result<String, ApiError> {
    if value.is_empty() {
        return Err(ApiError::invalid(field, "password_required"));
    }
    let count = value.chars().count();
    if count < 6 {
        return Err(ApiError::invalid(field, "password_min"));
    }
    if count > PASSWORD_CHARS_MAX {
        return Err(ApiError::invalid(field, "text_too_long"));
    }
    Ok(value.to_owned())
}

/// Password after a reset: at least 8 characters with letters and digits (§5).
pub fn strong_password(field: &'static str, value: &str) -> Result<String, ApiError> {
    if value.is_empty() {
        return Err(ApiError::invalid(field, "password_required"));
    }
    let letters = value.chars().any(char::is_alphabetic);
    let digits = value.chars().any(|c| c.is_ascii_digit());
    if value.chars().count() < 8 || !letters || !digits {
        return Err(ApiError::invalid(field, "password_strong"));
    }
    if value.chars().count() > PASSWORD_CHARS_MAX {
        return Err(ApiError::invalid(field, "text_too_long"));
    }
    Ok(value.to_owned())
}

/// E-mail: required and of a valid shape; returned lower-cased.
pub fn email(value: &str) -> Result<String, ApiError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(ApiError::invalid("email", "email_required"));
    }
    let valid = value.len() <= 254
        && value.parse::<lettre::Address>().is_ok()
        && value.split('@').nth(1).is_some_and(|domain| domain.contains('.'));
    if !valid {
        return Err(ApiError::invalid("email", "email_invalid"));
    }
    Ok(value.to_ascii_lowercase())
}

/// E-mail code: required, exactly 6 digits.
pub fn code(value: &str) -> Result<String, ApiError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(ApiError::invalid("code", "code_required"));
    }
    if value.len() != 6 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::invalid("code", "code_format"));
    }
    Ok(value.to_owned())
}

/// A positive USDT amount given as a string with at most 2 decimals.
pub fn amount(field: &'static str, value: &str) -> Result<Decimal, ApiError> {
    let parsed: Decimal = value.trim().parse().map_err(|_| ApiError::invalid(field, "amount"))?;
    if parsed <= Decimal::ZERO || parsed.scale() > 2 || parsed > Decimal::from(1_000_000_000u64) {
        return Err(ApiError::invalid(field, "amount"));
    }
    Ok(parsed)
}

/// A required text of at most `max` characters.
pub fn text(
    field: &'static str,
    value: &str,
    max: usize,
    missing: &str,
) -> Result<String, ApiError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(ApiError::invalid(field, missing));
    }
    if value.chars().count() > max {
        return Err(ApiError::invalid(field, "text_too_long"));
    }
    Ok(value.to_owned())
}

/// An optional text of at most `max` characters.
pub fn optional_text(field: &'static str, value: &str, max: usize) -> Result<String, ApiError> {
    let value = value.trim();
    if value.chars().count() > max {
        return Err(ApiError::invalid(field, "text_too_long"));
    }
    Ok(value.to_owned())
}

/// `real` (default) or `demo`.
pub fn account(value: Option<&str>) -> Result<AccountKind, ApiError> {
    match value.unwrap_or("real") {
        "real" => Ok(AccountKind::Real),
        "demo" => Ok(AccountKind::Demo),
        _ => Err(ApiError::invalid("account", "account")),
    }
}

/// `up` or `down` (also the spec's `buy_up` / `buy_down`).
pub fn direction(value: &str) -> Result<Direction, ApiError> {
    match value {
        "up" | "buy_up" | "rise" => Ok(Direction::Up),
        "down" | "buy_down" | "fall" => Ok(Direction::Down),
        _ => Err(ApiError::invalid("direction", "direction")),
    }
}

/// `eth`, `tron` or `trust`.
pub fn chain(value: &str) -> Result<Chain, ApiError> {
    match value {
        "eth" => Ok(Chain::Eth),
        "tron" => Ok(Chain::Tron),
        "trust" => Ok(Chain::Trust),
        _ => Err(ApiError::invalid("chain", "chain")),
    }
}

/// A chain and an address valid on it (EVM addresses lower-cased).
pub fn wallet_address(chain_name: &str, address: &str) -> Result<(Chain, String), ApiError> {
    let chain = chain(chain_name)?;
    let family = crate::walletsig::Family::of(chain);
    let address = crate::walletsig::normalize_address(family, address.trim())
        .ok_or_else(|| ApiError::invalid("address", "address"))?;
    Ok((chain, address))
}

/// API name of a product category.
pub fn category_name(category: engine::types::Category) -> &'static str {
    match category {
        engine::types::Category::Crypto => "crypto",
        engine::types::Category::Forex => "forex",
    }
}

/// API name of a payment method.
pub fn pay_method_name(method: PayMethod) -> &'static str {
    match method {
        PayMethod::BankTransfer => "bank_transfer",
        PayMethod::UsdtTrc20 => "usdt_trc20",
        PayMethod::UsdtErc20 => "usdt_erc20",
    }
}

/// A payment method from its API name.
pub fn pay_method(value: &str) -> Result<PayMethod, ApiError> {
    match value {
        "bank_transfer" => Ok(PayMethod::BankTransfer),
        "usdt_trc20" => Ok(PayMethod::UsdtTrc20),
        "usdt_erc20" => Ok(PayMethod::UsdtErc20),
        _ => Err(ApiError::invalid("method", "method")),
    }
}

/// A withdrawal destination as the API shows it: method name and details.
pub fn destination_json(destination: &Destination) -> (&'static str, serde_json::Value) {
    match destination {
        Destination::Wallet { chain, address } => {
            ("wallet", serde_json::json!({ "chain": chain.tag(), "address": address }))
        }
        Destination::Bank { name, number, bank } => (
            "bank",
            serde_json::json!({ "accountName": name, "accountNumber": number, "bankName": bank }),
        ),
    }
}

/// A date filter: milliseconds since the epoch, or `YYYY-MM-DD` (UTC; `end` = end of day).
pub fn date(field: &'static str, value: &str, end_of_day: bool) -> Result<u64, ApiError> {
    if let Ok(ms) = value.parse::<u64>() {
        return Ok(ms);
    }
    let parts: Vec<&str> = value.split('-').collect();
    let [y, m, d] = parts.as_slice() else { return Err(ApiError::invalid(field, "date")) };
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<i64>(), m.parse::<u32>(), d.parse::<u32>()) else {
        return Err(ApiError::invalid(field, "date"));
    };
    if !(1970..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(ApiError::invalid(field, "date"));
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let start = u64::try_from(days).map_err(|_| ApiError::invalid(field, "date"))? * 86_400_000;
    Ok(if end_of_day { start + 86_399_999 } else { start })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_as_utc_days() {
        assert_eq!(date("from", "1970-01-01", false).unwrap(), 0);
        assert_eq!(date("from", "2026-11-20", false).unwrap(), 1_795_132_800_000);
        assert_eq!(date("to", "2026-11-20", true).unwrap(), 1_795_132_800_000 + 86_399_999);
        assert!(date("from", "2026-13-01", false).is_err());
        assert!(date("from", "yesterday", false).is_err());
    }

    #[test]
    fn amounts_are_positive_strings_with_cents() {
        assert_eq!(amount("amount", "10.50").unwrap(), Decimal::new(1050, 2));
        assert!(amount("amount", "0").is_err());
        assert!(amount("amount", "-1").is_err());
        assert!(amount("amount", "1.001").is_err());
        assert!(amount("amount", "abc").is_err());
    }
}
