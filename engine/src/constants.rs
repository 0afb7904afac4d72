//! Every bound of the engine, in one place. Units come last in the names.

/// Longest username accepted (the spec's 3-20 rule).
pub const USERNAME_LENGTH_MAX: usize = 20;
/// Shortest username accepted.
pub const USERNAME_LENGTH_MIN: usize = 3;
/// Longest e-mail address kept (RFC 5321 path limit).
pub const EMAIL_LENGTH_MAX: usize = 254;
/// Longest password hash string (argon2 PHC strings are about 100 bytes).
pub const PASSWORD_HASH_LENGTH_MAX: usize = 256;
/// Longest free-text field (nickname, bio, remarks, device names, reasons).
pub const TEXT_LENGTH_MAX: usize = 500;
/// Longest wallet or bank account identifier.
pub const ADDRESS_LENGTH_MAX: usize = 128;
/// Invite codes are exactly this long.
pub const INVITE_CODE_LENGTH: usize = 8;
/// Referral generations that earn rewards.
pub const REFERRAL_GENERATIONS: usize = 3;
/// Sessions kept per user or admin; signing in past this ends the oldest.
pub const SESSIONS_PER_USER_MAX: usize = 10;
/// Saved withdrawal addresses per user.
pub const WITHDRAW_ADDRESSES_PER_USER_MAX: usize = 10;
/// Pending deposit orders per user.
pub const PENDING_DEPOSITS_PER_USER_MAX: u32 = 10;
/// Pending withdrawal orders per user.
pub const PENDING_WITHDRAWALS_PER_USER_MAX: u32 = 5;
/// Products in the catalogue.
pub const PRODUCTS_MAX: usize = 256;
/// Trading rules (one per duration).
pub const RULES_MAX: usize = 32;
/// Admin accounts.
pub const ADMINS_MAX: usize = 1_000;
/// Hard cap on the configurable open-contracts-per-user setting.
pub const OPEN_CONTRACTS_PER_USER_LIMIT: u32 = 10_000;
/// A contract with no entry tick this long after acceptance is void (decisions §2).
pub const ENTRY_WAIT_MAX_MS: u64 = 5_000;
/// A contract whose exit tick is older than this before expiry is void: the feed was stale.
pub const EXIT_TICK_AGE_MAX_MS: u64 = 5_000;
/// The timer settles a contract this long after expiry if no later tick came.
pub const SETTLE_GRACE_MS: u64 = 2_000;
/// Withdrawals are refused this long after a password change.
pub const WITHDRAW_BLOCK_AFTER_PASSWORD_CHANGE_MS: u64 = 24 * 3_600 * 1_000;
/// Shortest contract duration a rule may offer.
pub const DURATION_MIN_SECS: u32 = 5;
/// Longest contract duration a rule may offer (4 weeks).
pub const DURATION_MAX_SECS: u32 = 28 * 24 * 3_600;
/// Decimal places of every USDT amount.
pub const MONEY_SCALE: u32 = 2;
/// Decimal places a price may carry.
pub const PRICE_SCALE_MAX: u32 = 10;
/// Largest amount a single command may move (guards against absurd input).
pub const AMOUNT_MAX_USDT: i64 = 1_000_000_000_000;
/// Most USDT that may exist at once, real and demo counted apart: bounds the sums of every
/// balance and the house's books, so that integer cents can never overflow (checked where
/// money enters: deposits, the house's seed, demo grants and adjustments).
pub const MONEY_SUPPLY_MAX_USDT: i64 = 10_000_000_000_000_000;
/// Minutes in a week, the period of market-hours schedules.
pub const WEEK_MINUTES: u32 = 7 * 24 * 60;
/// Closed windows in one product's weekly schedule.
pub const MARKET_CLOSURES_MAX: usize = 16;

/// A loosened responsible-trading limit takes effect this long after it was asked for.
pub const LIMIT_LOOSEN_DELAY_MS: u64 = 24 * 3_600 * 1_000;

/// The longest self-exclusion one request may ask for (five years, as regulated peers offer).
pub const SELF_EXCLUSION_MAX_MS: u64 = 5 * 365 * 24 * 3_600 * 1_000;

/// Price alerts one user may have waiting at once.
pub const PRICE_ALERTS_PER_USER_MAX: usize = 20;

/// The languages of the product, default first (decisions §10): a notice is written in one.
pub const LANGUAGES: [&str; 8] =
    ["en-US", "es-ES", "pt-PT", "ar-AR", "de-DE", "ru-RU", "fr-FR", "hi-IN"];

/// Wrong authenticator codes in a row before two-factor actions of the account pause.
pub const TWO_FACTOR_FAILURES_PER_LOCK: u32 = 5;
/// The first pause; each further one (5 more wrong codes, no right one between) doubles it.
pub const TWO_FACTOR_LOCK_FIRST_MS: u64 = 15 * 60 * 1_000;
/// The longest pause.
pub const TWO_FACTOR_LOCK_MAX_MS: u64 = 24 * 3_600 * 1_000;
