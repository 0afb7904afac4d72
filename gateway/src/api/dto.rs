//! Request parsing shared by handlers: the spec's §5 validation rules, money as strings,
//! paging, and the API names of engine enums.

use engine::types::{AccountKind, Chain, Direction, PayMethod};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::ApiError;
use crate::readmodel::Paging;

/// The largest number a query may carry (2^53 - 1, the largest integer a JavaScript client
/// holds exactly): log indexes, times and order numbers stay far below it.
pub const NUMBER_MAX: u64 = 9_007_199_254_740_991;

/// Refuses a query number above [`NUMBER_MAX`], as the document's `maximum` says.
pub fn bounded(field: &'static str, value: Option<u64>) -> Result<Option<u64>, ApiError> {
    match value {
        Some(v) if v > NUMBER_MAX => Err(ApiError::invalid(field, "query")),
        other => Ok(other),
    }
}

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

/// A closed set of names a query parameter takes. The type is both the check (serde refuses
/// any other value, the empty one included) and the `enum` of the OpenAPI document.
macro_rules! names {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:tt),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// The API name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }
    };
}

names! {
    /// Which balance: the real one (default), the demo one, or the tournament balance of the
    /// tournament running now.
    AccountParam { Real = "real", Demo = "demo", Tournament = "tournament" }
}

impl From<AccountParam> for AccountKind {
    fn from(value: AccountParam) -> AccountKind {
        match value {
            AccountParam::Real => AccountKind::Real,
            AccountParam::Demo => AccountKind::Demo,
            AccountParam::Tournament => AccountKind::Tournament,
        }
    }
}

names! {
    /// Contracts still open (waiting or running) or closed (settled or void).
    ContractStatus { Open = "open", Settled = "settled" }
}

names! {
    /// A period of a trader's results.
    ResultPeriod { Day = "24h", Week = "7d", Month = "30d" }
}

names! {
    /// A deposit or withdrawal order's state.
    OrderStatus {
        Pending = "pending",
        Processing = "processing",
        Completed = "completed",
        Rejected = "rejected",
        Failed = "failed",
    }
}

names! {
    /// A product category.
    CategoryParam { Crypto = "crypto", Forex = "forex" }
}

names! {
    /// A chart period.
    PeriodParam {
        M1 = "1m", M5 = "5m", M15 = "15m", M30 = "30m", H1 = "1h", H4 = "4h", D1 = "1d", W1 = "1w",
    }
}

names! {
    /// A kind of bill.
    BillType {
        Deposit = "deposit",
        Withdraw = "withdraw",
        Profit = "profit",
        Loss = "loss",
        Fee = "fee",
        Refund = "refund",
        Reward = "reward",
        TransferIn = "transfer_in",
        TransferOut = "transfer_out",
        Adjustment = "adjustment",
        Sale = "sale",
        TournamentFee = "tournament_fee",
        TournamentPrize = "tournament_prize",
        TournamentRefund = "tournament_refund",
    }
}

names! {
    /// A wallet's chain: MetaMask (`eth`), Trust Wallet (`trust`) or TronLink (`tron`).
    ChainParam { Eth = "eth", Trust = "trust", Tron = "tron" }
}

names! {
    /// A deposit's payment method.
    PayMethodParam {
        BankTransfer = "bank_transfer", UsdtTrc20 = "usdt_trc20", UsdtErc20 = "usdt_erc20",
    }
}

names! {
    /// Rise (`up`, also `buy_up`) or fall (`down`, also `buy_down`).
    DirectionParam { Up = "up", Down = "down", BuyUp = "buy_up", BuyDown = "buy_down" }
}

names! {
    /// Where a withdrawal goes.
    WithdrawMethod { Wallet = "wallet", Bank = "bank" }
}

names! {
    /// A notice's language, or empty for every language.
    NoticeLanguage {
        All = "", En = "en-US", Es = "es-ES", Pt = "pt-PT", Ar = "ar-AR", De = "de-DE",
        Ru = "ru-RU", Fr = "fr-FR", Hi = "hi-IN"
    }
}

names! {
    /// An admin's role.
    RoleParam { Super = "super", Operations = "operations", Support = "support", Finance = "finance" }
}

/// Paging query parameters.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PageQuery {
    /// 1-based page (default 1).
    #[param(minimum = 1, maximum = 1_000_000)]
    pub page: Option<usize>,
    /// Rows per page (default 20, at most 100).
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<usize>,
}

/// Deposit and withdrawal order filters.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct OrderQuery {
    /// Every state when absent.
    #[param(inline)]
    pub status: Option<OrderStatus>,
    /// 1-based page.
    #[param(minimum = 1, maximum = 1_000_000)]
    pub page: Option<usize>,
    /// Rows per page.
    #[param(minimum = 1, maximum = 100)]
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
    if value.is_empty() {
        return Err(ApiError::invalid("code", "code_required"));
    }
    if value.len() != 6 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::invalid("code", "code_format"));
    }
    Ok(value.to_owned())
}

/// The document's pattern for a USDT amount.
pub const AMOUNT_PATTERN: &str = r"^[0-9]{1,10}(\.[0-9]{1,2})?$";

/// A plain decimal: 1 to `whole` digits, then optionally a point and 1 to `fraction` digits.
/// Nothing else: no sign, exponent, separator, space or bare point (`1_000`, `1E2`, `+10`,
/// ` 10` and `10.` are all refused). Exactly what the patterns in the document say.
pub fn plain_decimal(value: &str, whole: usize, fraction: usize) -> Option<Decimal> {
    let (int, frac) = match value.split_once('.') {
        Some((int, frac)) => (int, Some(frac)),
        None => (value, None),
    };
    let digits =
        |s: &str, max: usize| (1..=max).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(int, whole) || !frac.is_none_or(|f| digits(f, fraction)) {
        return None;
    }
    // Exact: more digits than a Decimal holds are refused, never rounded.
    Decimal::from_str_exact(value).ok()
}

/// A positive USDT amount given as a string with at most 2 decimals ([`AMOUNT_PATTERN`]).
pub fn amount(field: &'static str, value: &str) -> Result<Decimal, ApiError> {
    let parsed = plain_decimal(value, 10, 2).ok_or_else(|| ApiError::invalid(field, "amount"))?;
    if parsed <= Decimal::ZERO || parsed > Decimal::from(1_000_000_000u64) {
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
    let value = optional_text(field, value, max)?;
    if value.is_empty() {
        return Err(ApiError::invalid(field, missing));
    }
    Ok(value)
}

/// An optional text of at most `max` characters.
///
/// The length is counted as sent (as the document's `maxLength` does); surrounding spaces
/// are then dropped.
pub fn optional_text(field: &'static str, value: &str, max: usize) -> Result<String, ApiError> {
    if value.chars().count() > max {
        return Err(ApiError::invalid(field, "text_too_long"));
    }
    Ok(value.trim().to_owned())
}

/// Where a configured link may point: the schemes it may use beside `https:` and `http:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// A web page only (the provider's chat).
    Web,
    /// A web page, an e-mail address (`mailto:`) or a phone number (`tel:`): customer service.
    Contact,
    /// A web address or a path on this site (an uploaded logo, `/api/uploads/...`).
    Image,
}

/// An optional link of the system config: empty, or an address a browser opens as a page
/// (never `javascript:`, `data:` or another scheme that runs or embeds content).
pub fn optional_link(
    field: &'static str,
    value: &str,
    max: usize,
    kind: LinkKind,
) -> Result<String, ApiError> {
    let link = optional_text(field, value, max)?;
    if link.is_empty() {
        return Ok(link);
    }
    let lower = link.to_ascii_lowercase();
    let web = lower.starts_with("https://") || lower.starts_with("http://");
    let allowed = web
        || match kind {
            LinkKind::Web => false,
            LinkKind::Contact => lower.starts_with("mailto:") || lower.starts_with("tel:"),
            LinkKind::Image => link.starts_with('/') && !link.starts_with("//"),
        };
    let clean = !link.chars().any(|c| c.is_whitespace() || c.is_control() || c == '\\');
    if allowed && clean {
        Ok(link)
    } else if kind == LinkKind::Contact {
        Err(ApiError::invalid(field, "contact_link"))
    } else {
        Err(ApiError::invalid(field, "link"))
    }
}

/// `real` (default) or `demo`.
pub fn account(value: Option<&str>) -> Result<AccountKind, ApiError> {
    match value.unwrap_or("real") {
        "real" => Ok(AccountKind::Real),
        "demo" => Ok(AccountKind::Demo),
        "tournament" => Ok(AccountKind::Tournament),
        _ => Err(ApiError::invalid("account", "account")),
    }
}

/// `up` or `down` (also the spec's `buy_up` / `buy_down`).
pub fn direction(value: &str) -> Result<Direction, ApiError> {
    match value {
        "up" | "buy_up" => Ok(Direction::Up),
        "down" | "buy_down" => Ok(Direction::Down),
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

/// A payment method from its API name.
pub fn pay_method(value: &str) -> Result<PayMethod, ApiError> {
    match value {
        "bank_transfer" => Ok(PayMethod::BankTransfer),
        "usdt_trc20" => Ok(PayMethod::UsdtTrc20),
        "usdt_erc20" => Ok(PayMethod::UsdtErc20),
        _ => Err(ApiError::invalid("method", "method")),
    }
}

/// Where users pay a deposit by one method (system config).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct DepositAccountView {
    /// The payment method these details are for.
    #[schema(required = true, inline, value_type = PayMethodParam)]
    pub method: String,
    /// Account holder (bank transfer) or a label (USDT).
    #[schema(required = true, min_length = 1, max_length = 100)]
    pub name: String,
    /// Account number (bank transfer) or the USDT address.
    #[schema(required = true, min_length = 1, max_length = 100)]
    pub number: String,
    /// Bank name: required for a bank transfer, empty for USDT.
    #[schema(max_length = 100)]
    pub bank: String,
}

impl DepositAccountView {
    /// The API view of the engine's record.
    pub fn of(a: &engine::types::DepositAccount) -> DepositAccountView {
        DepositAccountView {
            method: crate::names::pay_method_name(a.method).into(),
            name: a.name.clone(),
            number: a.number.clone(),
            bank: a.bank.clone(),
        }
    }

    /// The engine's record, checked field by field.
    pub fn parse(&self) -> Result<engine::types::DepositAccount, ApiError> {
        Ok(engine::types::DepositAccount {
            method: pay_method(&self.method)?,
            name: text("name", &self.name, FIELD_CHARS_MAX, "deposit_fields")?,
            number: text("number", &self.number, FIELD_CHARS_MAX, "deposit_fields")?,
            bank: optional_text("bank", &self.bank, FIELD_CHARS_MAX)?,
        })
    }
}

/// A date filter: milliseconds since the epoch, or `YYYY-MM-DD` (UTC; `end` = end of day).
///
/// Exactly the document's pattern: 1-15 digits, or four, two and two digits; no sign, no
/// spaces. A day past the month's end counts on into the next month.
pub fn date(field: &'static str, value: &str, end_of_day: bool) -> Result<u64, ApiError> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(value) && value.len() <= 15 {
        return value.parse::<u64>().map_err(|_| ApiError::invalid(field, "date"));
    }
    let parts: Vec<&str> = value.split('-').collect();
    let [y, m, d] = parts.as_slice() else { return Err(ApiError::invalid(field, "date")) };
    let shape = [(y, 4), (m, 2), (d, 2)].iter().all(|(p, n)| p.len() == *n && digits(p));
    let (true, Ok(y), Ok(m), Ok(d)) = (shape, y.parse::<i64>(), m.parse::<u32>(), d.parse::<u32>())
    else {
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
    fn the_documented_bill_types_are_the_read_models() {
        use crate::names::WireName;
        let names: Vec<&str> = engine::types::BillType::ALL.iter().map(|t| t.wire_name()).collect();
        for name in &names {
            let parsed: BillType = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(parsed.as_str(), *name);
        }
        let doc = serde_json::to_value(<BillType as utoipa::PartialSchema>::schema()).unwrap();
        assert_eq!(doc["enum"], serde_json::json!(names));
        let periods = serde_json::to_value(<PeriodParam as utoipa::PartialSchema>::schema());
        assert_eq!(periods.unwrap()["enum"][0], "1m");
    }

    #[test]
    fn dates_parse_as_utc_days() {
        assert_eq!(date("from", "1970-01-01", false).unwrap(), 0);
        assert_eq!(date("from", "2026-11-20", false).unwrap(), 1_795_132_800_000);
        assert_eq!(date("to", "2026-11-20", true).unwrap(), 1_795_132_800_000 + 86_399_999);
        assert!(date("from", "2026-13-01", false).is_err());
        assert!(date("from", "yesterday", false).is_err());
        assert_eq!(date("from", "1795132800000", false).unwrap(), 1_795_132_800_000);
        for loose in ["+5", " 5", "2026-1-05", "02026-01-05", "2026-01-5", "1234567890123456"] {
            assert!(date("from", loose, false).is_err(), "{loose}");
        }
    }

    /// Found by fuzzing (`fuzz/fuzz_targets/api_json.rs`): 31 digits were accepted, rounded.
    #[test]
    fn plain_decimals_are_exact_or_refused() {
        let long = "317971888818898.8982231797188888";
        assert_eq!(plain_decimal(long, 20, 20), None);
        assert_eq!(
            plain_decimal("1234567890123456789012345678", 28, 0).map(|d| d.scale()),
            Some(0)
        );
        let exact = plain_decimal("0.0000000000000000000000000001", 1, 28);
        assert_eq!(exact, Some(Decimal::new(1, 28)));
    }

    #[test]
    fn amounts_are_positive_strings_with_cents() {
        assert_eq!(amount("amount", "10.50").unwrap(), Decimal::new(1050, 2));
        assert!(amount("amount", "0").is_err());
        assert!(amount("amount", "-1").is_err());
        assert!(amount("amount", "1.001").is_err());
        assert!(amount("amount", "abc").is_err());
        for loose in ["1_000", "1E2", "1e2", "+10", " 10", "10 ", "10.", ".5", "0x10", "1,5", ""] {
            assert!(amount("amount", loose).is_err(), "{loose:?}");
        }
        assert_eq!(amount("amount", "0.01").unwrap(), Decimal::new(1, 2));
        assert_eq!(amount("amount", "1000000000").unwrap(), Decimal::from(1_000_000_000u64));
    }
}
