//! Why the engine refuses a command. Every refusal is a value with a stable code; a refused
//! command changes nothing.

use rust_decimal::Decimal;

/// A refusal. `code()` is the stable machine code the API sends to clients.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// A field failed validation (the field is named).
    #[error("invalid {0}")]
    Invalid(&'static str),
    /// The username is taken (case-insensitive).
    #[error("username already exists")]
    UsernameExists,
    /// The e-mail is taken (case-insensitive).
    #[error("e-mail already exists")]
    EmailExists,
    /// The wallet is bound to another user.
    #[error("wallet already bound to another user")]
    WalletExists,
    /// The invite code is malformed or unknown.
    #[error("invalid invite code")]
    InvalidInviteCode,
    /// Sign-up needs an invite code and none was given.
    #[error("invite code required")]
    InviteCodeRequired,
    /// No such user.
    #[error("user not found")]
    UserNotFound,
    /// No such admin, or the admin is disabled.
    #[error("admin not found")]
    AdminNotFound,
    /// Admins exist already: bootstrap is refused.
    #[error("an admin already exists")]
    AdminExists,
    /// The admin's role does not allow the action.
    #[error("permission denied")]
    Forbidden,
    /// An admin tried to disable themselves.
    #[error("this admin must stay enabled")]
    AdminKept,
    /// No such session (ended, expired or never existed).
    #[error("session not found")]
    SessionNotFound,
    /// The user is frozen.
    #[error("account frozen")]
    AccountFrozen,
    /// No such product.
    #[error("product not found")]
    ProductNotFound,
    /// The product is disabled.
    #[error("product disabled")]
    ProductDisabled,
    /// The product's market is closed now.
    #[error("market closed")]
    MarketClosed,
    /// No enabled rule for this duration.
    #[error("duration not offered")]
    DurationNotAllowed,
    /// The stake is outside the rule's limits.
    #[error("stake must be between {min} and {max}")]
    StakeOutOfRange {
        /// Smallest stake.
        min: Decimal,
        /// Largest stake.
        max: Decimal,
    },
    /// The amount is outside the configured limits.
    #[error("amount must be between {min} and {max}")]
    AmountOutOfRange {
        /// Smallest amount.
        min: Decimal,
        /// Largest amount.
        max: Decimal,
    },
    /// Not enough available balance.
    #[error("insufficient balance")]
    InsufficientBalance,
    /// The user holds the maximum number of open contracts.
    #[error("too many open contracts")]
    TooManyOpenContracts,
    /// The house cannot cover this contract's payout now.
    #[error("trading temporarily unavailable")]
    HouseExposureLimit,
    /// No price yet for this product.
    #[error("price not available")]
    PriceNotAvailable,
    /// No such open contract.
    #[error("contract not found")]
    ContractNotFound,
    /// No such pending order.
    #[error("order not found")]
    OrderNotFound,
    /// The contract has no offer now (early close).
    #[error("this contract cannot be sold now ({})", .0.code())]
    SaleUnavailable(crate::sale::NoOffer),
    /// The offer fell below the one the trader saw; nothing was sold.
    #[error("the offer changed to {offer}")]
    OfferChanged {
        /// The offer now.
        offer: Decimal,
    },
    /// The user excluded themselves from trading until a time.
    #[error("self-excluded from trading")]
    SelfExcluded {
        /// The exclusion's end (ms).
        until_ms: u64,
    },
    /// The order would pass the user's daily loss limit.
    #[error("daily loss limit reached")]
    DailyLossLimit,
    /// The order would pass the user's daily turnover limit.
    #[error("daily turnover limit reached")]
    DailyTurnoverLimit,
    /// The user's own limit of open contracts is reached.
    #[error("open contracts limit reached")]
    OpenContractsLimit,
    /// The order is not in the state the action needs (a withdrawal being paid out cannot
    /// be rejected, a pending one cannot be marked paid or failed).
    #[error("order not in the right state")]
    OrderWrongState,
    /// No rule for this duration to remove.
    #[error("rule not found")]
    RuleNotFound,
    /// No saved address at this position.
    #[error("address not found")]
    AddressNotFound,
    /// Too many pending orders of this kind.
    #[error("too many pending orders")]
    TooManyPendingOrders,
    /// Withdrawals are blocked for 24 h after a password change.
    #[error("withdrawal blocked after password change")]
    WithdrawalBlocked,
    /// Transfers are blocked for 24 h after a password change, like withdrawals: money must
    /// not leave at once through a session stolen with the old password.
    #[error("transfer blocked after password change")]
    TransferBlocked,
    /// A transfer to oneself.
    #[error("cannot transfer to yourself")]
    SelfTransfer,
    /// The demo wallet has open contracts; it cannot be reset now.
    #[error("demo account has open contracts")]
    DemoHasOpenContracts,
    /// Too many saved addresses.
    #[error("too many saved addresses")]
    TooManyAddresses,
    /// The user has as many price alerts waiting as allowed.
    #[error("too many price alerts")]
    TooManyPriceAlerts,
    /// No such waiting price alert of this user.
    #[error("price alert not found")]
    PriceAlertNotFound,
    /// Too many wrong authenticator codes: codes are refused until then.
    #[error("two-factor actions paused")]
    TwoFactorLocked {
        /// When codes are accepted again (ms).
        until_ms: u64,
    },
    /// The account has no two-factor authentication turned on.
    #[error("two-factor authentication is not on")]
    TwoFactorNotEnabled,
    /// The invite key (or the chart history's seed) is set once.
    #[error("set once at install")]
    AlreadyInstalled,
    /// A rule and the referral reward rates together would let a matched Up and Down pair of
    /// contracts gain (decisions §5).
    #[error("a matched up/down pair could gain")]
    PairCouldGain {
        /// The rule's duration.
        duration_secs: u32,
        /// Its payout rate.
        payout_rate: Decimal,
        /// The three generations' reward rates together.
        reward_rates: Decimal,
        /// Its fee rate.
        fee_rate: Decimal,
    },
    /// The receipt already backs another deposit.
    #[error("receipt already used")]
    ReceiptUsed,
    /// A catalogue or table is full.
    #[error("limit reached")]
    LimitReached,
    /// Market hours cannot change while contracts are open on the product: settlement checks
    /// them, so changing them would let an operator void running contracts (decisions §1).
    #[error("product has open contracts")]
    ProductHasOpenContracts,
    /// The trader does not share their trades.
    #[error("this trader cannot be copied")]
    NotCopyable,
    /// The leader has the most followers allowed.
    #[error("this trader has the most followers allowed")]
    FollowersFull,
    /// The follower copies the most leaders allowed.
    #[error("you copy the most traders allowed")]
    FollowingFull,
    /// No such running copy.
    #[error("no such copy")]
    CopyNotFound,
    /// No such tournament.
    #[error("no such tournament")]
    TournamentNotFound,
    /// The tournament does not take this now: entries closed, not published, over, its rules
    /// fixed, or an order that would expire after its end.
    #[error("the tournament does not allow this now")]
    TournamentClosed,
    /// The player is in another tournament at that time, or in the most allowed.
    #[error("you play another tournament at that time")]
    TournamentOverlap,
    /// The tournament has the most players allowed.
    #[error("the tournament is full")]
    TournamentFull,
    /// An order on the tournament balance, or a rebuy, without a seat in a running tournament.
    #[error("you have no running tournament")]
    NoTournamentBalance,
    /// The running tournament is not played on this product or duration.
    #[error("the tournament is not played on this product or duration")]
    NotTournamentProduct,
    /// No rebuy left, or the balance is not below the rebuy level.
    #[error("no rebuy available")]
    RebuyUnavailable,
    /// As many traders share their trades as allowed.
    #[error("as many traders share their trades as allowed")]
    SharingFull,
}

impl EngineError {
    /// The stable machine code, as the API sends it.
    pub fn code(&self) -> &'static str {
        match self {
            EngineError::Invalid(_) => "VALIDATION",
            EngineError::UsernameExists => "USERNAME_EXISTS",
            EngineError::EmailExists => "EMAIL_EXISTS",
            EngineError::WalletExists => "WALLET_EXISTS",
            EngineError::InvalidInviteCode => "INVALID_INVITE_CODE",
            EngineError::InviteCodeRequired => "INVITE_CODE_REQUIRED",
            EngineError::UserNotFound => "USER_NOT_FOUND",
            EngineError::AdminNotFound => "ADMIN_NOT_FOUND",
            EngineError::AdminExists => "ADMIN_EXISTS",
            EngineError::Forbidden => "FORBIDDEN",
            EngineError::AdminKept => "ADMIN_KEPT",
            EngineError::SessionNotFound => "SESSION_NOT_FOUND",
            EngineError::AccountFrozen => "ACCOUNT_FROZEN",
            EngineError::ProductNotFound => "PRODUCT_NOT_FOUND",
            EngineError::ProductDisabled => "PRODUCT_DISABLED",
            EngineError::MarketClosed => "MARKET_CLOSED",
            EngineError::DurationNotAllowed => "DURATION_NOT_ALLOWED",
            EngineError::StakeOutOfRange { .. } => "STAKE_OUT_OF_RANGE",
            EngineError::AmountOutOfRange { .. } => "AMOUNT_OUT_OF_RANGE",
            EngineError::InsufficientBalance => "INSUFFICIENT_BALANCE",
            EngineError::TooManyOpenContracts => "TOO_MANY_OPEN_CONTRACTS",
            EngineError::HouseExposureLimit => "HOUSE_EXPOSURE_LIMIT",
            EngineError::PriceNotAvailable => "PRICE_NOT_AVAILABLE",
            EngineError::ContractNotFound => "CONTRACT_NOT_FOUND",
            EngineError::OrderNotFound => "ORDER_NOT_FOUND",
            EngineError::OrderWrongState => "ORDER_WRONG_STATE",
            EngineError::SelfExcluded { .. } => "SELF_EXCLUDED",
            EngineError::DailyLossLimit => "DAILY_LOSS_LIMIT",
            EngineError::DailyTurnoverLimit => "DAILY_TURNOVER_LIMIT",
            EngineError::OpenContractsLimit => "OPEN_CONTRACTS_LIMIT",
            EngineError::RuleNotFound => "RULE_NOT_FOUND",
            EngineError::AddressNotFound => "ADDRESS_NOT_FOUND",
            EngineError::TooManyPendingOrders => "TOO_MANY_PENDING_ORDERS",
            EngineError::WithdrawalBlocked => "WITHDRAWAL_BLOCKED",
            EngineError::TransferBlocked => "TRANSFER_BLOCKED",
            EngineError::SelfTransfer => "SELF_TRANSFER",
            EngineError::DemoHasOpenContracts => "DEMO_HAS_OPEN_CONTRACTS",
            EngineError::TooManyAddresses => "TOO_MANY_ADDRESSES",
            EngineError::TooManyPriceAlerts => "TOO_MANY_PRICE_ALERTS",
            EngineError::PriceAlertNotFound => "PRICE_ALERT_NOT_FOUND",
            EngineError::TwoFactorLocked { .. } => "TWO_FACTOR_LOCKED",
            EngineError::TwoFactorNotEnabled => "TOTP_NOT_ENABLED",
            EngineError::AlreadyInstalled => "VALIDATION",
            EngineError::PairCouldGain { .. } => "PAIR_COULD_GAIN",
            EngineError::ReceiptUsed => "RECEIPT_USED",
            EngineError::LimitReached => "LIMIT_REACHED",
            EngineError::ProductHasOpenContracts => "PRODUCT_HAS_OPEN_CONTRACTS",
            EngineError::SaleUnavailable(_) => "SALE_UNAVAILABLE",
            EngineError::OfferChanged { .. } => "OFFER_CHANGED",
            EngineError::NotCopyable => "NOT_COPYABLE",
            EngineError::FollowersFull => "FOLLOWERS_FULL",
            EngineError::FollowingFull => "FOLLOWING_FULL",
            EngineError::CopyNotFound => "COPY_NOT_FOUND",
            EngineError::TournamentNotFound => "TOURNAMENT_NOT_FOUND",
            EngineError::TournamentClosed => "TOURNAMENT_CLOSED",
            EngineError::TournamentOverlap => "TOURNAMENT_OVERLAP",
            EngineError::TournamentFull => "TOURNAMENT_FULL",
            EngineError::NoTournamentBalance => "NO_TOURNAMENT_BALANCE",
            EngineError::NotTournamentProduct => "NOT_TOURNAMENT_PRODUCT",
            EngineError::RebuyUnavailable => "REBUY_UNAVAILABLE",
            EngineError::SharingFull => "SHARING_FULL",
        }
    }
}
