//! Every input of the engine. Each is journaled before it is applied; time and sequence come
//! from the sequencer (`wal::Meta`), never from the producer.

use rust_decimal::Decimal;

use crate::money::RkyvDecimal;
use crate::types::{
    archived, AccountKind, AdminId, AlertId, Area, Category, Chain, ContractId, DepositAccount,
    Destination, Direction, MarketHours, OrderId, PayMethod, Principal, Profile, Role, Rule,
    SessionId, Settings, Symbol, TradingLimits, UserId, WalletBinding,
};

archived! {
/// One input of the engine.
pub enum Command {
    /// Create a user (password hashed by the gateway, or a wallet binding).
    Register(Box<Register>),
    /// Record a sign-in: a new session (credentials were checked by the gateway).
    CreateSession(NewSession),
    /// Sign out one session.
    EndSession {
        user: UserId,
        session: SessionId,
    },
    /// Change (or first set) the password; ends every other session.
    SetPassword {
        user: UserId,
        /// New argon2id hash.
        password_hash: String,
        /// The session that made the change and stays signed in, if any.
        keep_session: Option<SessionId>,
    },
    /// Mark the e-mail as verified (the gateway checked the code).
    VerifyEmail {
        user: UserId,
    },
    /// Turn TOTP 2FA on (with its secret) or off (none).
    SetTotp {
        user: UserId,
        /// Base32 secret, or none to disable.
        secret: Option<String>,
    },
    /// Replace the editable profile.
    UpdateProfile {
        user: UserId,
        /// The new profile.
        profile: Box<Profile>,
    },
    /// Save a withdrawal address.
    AddAddress {
        user: UserId,
        /// The user's label.
        label: String,
        chain: Chain,
        address: String,
        /// Make it the default.
        make_default: bool,
    },
    /// Forget a saved withdrawal address.
    RemoveAddress {
        user: UserId,
        /// Position in the saved list.
        position: u32,
    },
    /// Buy up or down.
    PlaceOrder(PlaceOrder),
    /// A price from the market feed; enters, settles and voids contracts of its symbol.
    Tick {
        /// Product code.
        symbol: Symbol,
        #[rkyv(with = RkyvDecimal)]
        price: Decimal,
        /// Quantity traded at this price by the source (0 for a quote): candle volume.
        #[rkyv(with = RkyvDecimal)]
        quantity: Decimal,
    },
    /// Periodic: settles contracts past expiry + grace and voids contracts with no entry.
    Timer,
    /// Put the demo wallet back to its starting balance.
    ResetDemo {
        user: UserId,
    },
    /// Ask for a deposit to be credited.
    RequestDeposit(Box<RequestDeposit>),
    /// Ask for a withdrawal: the amount is frozen until an admin decides.
    RequestWithdrawal {
        user: UserId,
        /// Amount including the fee.
        #[rkyv(with = RkyvDecimal)]
        amount: Decimal,
        /// Where to.
        destination: Box<Destination>,
    },
    /// Send real USDT to another user, instantly.
    Transfer {
        from: UserId,
        /// Receiver's UID.
        to: UserId,
        #[rkyv(with = RkyvDecimal)]
        amount: Decimal,
    },
    /// Create the first admin; refused once any admin exists.
    BootstrapAdmin {
        /// Sign-in name.
        username: String,
        /// argon2id hash.
        password_hash: String,
    },
    /// Record an admin sign-in.
    CreateAdminSession {
        admin: AdminId,
        /// Session id, expiry, device, address.
        session: SessionInfo,
    },
    /// End an admin session.
    EndAdminSession {
        admin: AdminId,
        session: SessionId,
    },
    /// A back-office action: permission-checked and audited.
    Admin {
        /// Who acts.
        admin: AdminId,
        /// What they do.
        action: Box<AdminAction>,
    },
    /// Give a user without a verified e-mail (a wallet sign-in, or one who registered with an
    /// address they cannot reach) a new one, already verified: the gateway checked a code sent
    /// to it. Refused if another user has the address or this user's is verified already.
    SetVerifiedEmail {
        user: UserId,
        /// The address, as typed (matched case-insensitively).
        email: String,
    },
    /// Set the user's own responsible-trading limits (tightening at once, loosening after
    /// 24 hours, self-exclusion only extended).
    SetTradingLimits {
        user: UserId,
        /// What they ask for.
        limits: Box<TradingLimits>,
    },
    /// Notify the user once when the product's price reaches `price` (from the side the
    /// market is on now). Refused at the current price, or past the per-user bound.
    SetPriceAlert {
        user: UserId,
        /// Product code.
        symbol: Symbol,
        /// The price to watch for.
        #[rkyv(with = RkyvDecimal)]
        price: Decimal,
    },
    /// Remove a waiting price alert.
    CancelPriceAlert {
        user: UserId,
        alert: AlertId,
    },
    /// The gateway checked an authenticator code: accept its time step once, or count a wrong
    /// code (which pauses two-factor actions after a few). The action the code was for is a
    /// command of its own, submitted only after this one is accepted.
    TwoFactorCode {
        /// Whose code.
        who: Principal,
        /// The 30-second time step the code matched, or none for a wrong code.
        step: Option<u64>,
    },
    /// The install's secret for invite codes, drawn from the OS once, at first start; refused
    /// once set. Codes of users who signed up before it was set keep their codes.
    SetInviteKey {
        /// The key of the invite-code permutation.
        key: u64,
    },
    /// The seed and end of the chart history simulated products show from before their first
    /// tick, drawn once by the first node to lead: every member writes the same history from
    /// it. Refused once set.
    SetChartHistory {
        /// The simulated walk's seed.
        seed: u64,
        /// The history ends with the bucket holding this time (ms).
        end_ms: u64,
    },
    /// Sell an entered contract back at the current offer (see [`crate::sale`]).
    SellContract(SellContract),
    /// Start or stop sharing one's trades to be copied.
    SetCopyable {
        user: UserId,
        copyable: bool,
    },
    /// Copy a leader's trades, or change how.
    Follow {
        follower: UserId,
        leader: UserId,
        settings: Box<crate::copy::CopySettings>,
    },
    /// End a copy: by its follower or by its leader (`by`).
    EndCopy {
        by: UserId,
        follower: UserId,
        leader: UserId,
    },
    /// Enter a published tournament for its entry fee.
    JoinTournament {
        user: UserId,
        tournament: crate::tournament::TournamentId,
    },
    /// Buy another start balance in a running tournament.
    Rebuy {
        user: UserId,
        tournament: crate::tournament::TournamentId,
    },
}
}

archived! {
/// A sign-up.
pub struct Register {
    /// Wanted username (3-20 letters, digits or underscores).
    pub username: String,
    /// E-mail, required unless signing up with a wallet.
    pub email: Option<String>,
    /// argon2id hash, none for wallet sign-ups.
    pub password_hash: Option<String>,
    /// Wallet binding for wallet sign-ups.
    pub wallet: Option<WalletBinding>,
    /// Inviter's code, if given.
    pub invite_code: Option<String>,
    /// The gateway checked an e-mail code for this address (e-mail sign-up).
    pub email_verified: bool,
}
}

archived! {
/// Where and how long a session lives.
pub struct SessionInfo {
    /// How long it lasts (ms); the gateway picks longer with remember-me.
    pub ttl_ms: u64,
    /// User agent, shortened.
    pub device: String,
    /// Client address.
    pub ip: String,
}
}

archived! {
/// A sign-in to record.
pub struct NewSession {
    /// Who signed in.
    pub user: UserId,
    /// Session details.
    pub info: SessionInfo,
}
}

archived! {
/// An order for a rise/fall contract.
pub struct PlaceOrder {
    pub user: UserId,
    /// Real or demo.
    pub account: AccountKind,
    /// Product code.
    pub symbol: Symbol,
    /// Up or down.
    pub direction: Direction,
    /// Amount at risk.
    #[rkyv(with = RkyvDecimal)]
    pub stake: Decimal,
    /// Duration; must match an enabled rule.
    pub duration_secs: u32,
}
}

archived! {
/// A sale of an open contract back to the house before expiry.
pub struct SellContract {
    pub user: UserId,
    /// Order number.
    pub contract: ContractId,
    /// Its product: the contract is found in that product's expiry queue ...
    pub symbol: Symbol,
    /// ... by its expiry time (no index by id is kept for the hot path).
    pub expiry_ms: u64,
    /// The offer the trader saw: the sale goes through only at this or more.
    #[rkyv(with = RkyvDecimal)]
    pub seen: Decimal,
}
}

archived! {
/// A deposit request.
pub struct RequestDeposit {
    pub user: UserId,
    #[rkyv(with = RkyvDecimal)]
    pub amount: Decimal,
    /// How it was paid.
    pub method: PayMethod,
    /// Payer's account name.
    pub account_name: String,
    /// Payer's account number or address.
    pub account_number: String,
    /// Payer's bank.
    pub bank_name: String,
    /// Generated file name of the receipt.
    pub receipt: String,
}
}

archived! {
/// What an admin can do. Nothing here touches a contract's outcome (decisions §1).
pub enum AdminAction {
    /// Add an admin (super only).
    CreateAdmin {
        /// Sign-in name.
        username: String,
        /// argon2id hash.
        password_hash: String,
        role: Role,
    },
    /// Freeze or unfreeze a user.
    SetUserFrozen {
        user: UserId,
        /// Frozen or not.
        frozen: bool,
        reason: String,
    },
    /// Credit (positive) or debit (negative) a user's real available balance against the house.
    AdjustBalance {
        user: UserId,
        /// Signed amount.
        #[rkyv(with = RkyvDecimal)]
        delta: Decimal,
        /// Why (required).
        reason: String,
    },
    /// Add capital to the house (seed capital).
    FundHouse {
        #[rkyv(with = RkyvDecimal)]
        amount: Decimal,
    },
    /// Approve a pending deposit: credit the user.
    ApproveDeposit {
        order: OrderId,
    },
    /// Reject a pending deposit.
    RejectDeposit {
        order: OrderId,
        /// Why, shown to the user.
        remark: String,
    },
    /// Approve a pending withdrawal: it becomes processing; the money stays frozen until
    /// the payout is marked done or failed.
    ApproveWithdrawal {
        order: OrderId,
    },
    /// Reject a pending withdrawal: unfreeze.
    RejectWithdrawal {
        order: OrderId,
        /// Why, shown to the user.
        remark: String,
    },
    /// Add a product or replace one with the same symbol.
    UpsertProduct {
        symbol: Symbol,
        /// Display name.
        name: String,
        /// Crypto or forex.
        category: Category,
        /// Price decimals.
        precision: u8,
        /// Tradable now.
        enabled: bool,
        /// Market hours.
        hours: MarketHours,
    },
    /// Add or replace the rule of one duration.
    SetRule(Rule),
    /// Remove the rule of one duration.
    RemoveRule {
        /// Which duration.
        duration_secs: u32,
    },
    /// Replace the site settings.
    UpdateSettings(Box<Settings>),
    /// Send a system notice to every user.
    BroadcastNotice {
        title: String,
        body: String,
        /// The language it is written in (`en-US` ... `hi-IN`); users of the app in another
        /// language do not see it. Empty: shown in every language.
        lang: String,
    },
    /// A processing withdrawal was paid out: debit frozen, completed.
    CompleteWithdrawal {
        order: OrderId,
    },
    /// A processing withdrawal's payout failed: unfreeze, failed.
    FailWithdrawal {
        order: OrderId,
        /// Why, shown to the user.
        remark: String,
    },
    /// Replace where deposits are paid (at most one account per method).
    SetDepositAccounts(Vec<DepositAccount>),
    /// Disable an admin (no sign-in, no action, sessions ended) or enable it again.
    SetAdminDisabled {
        /// Which admin.
        admin: AdminId,
        /// Disabled or not.
        disabled: bool,
    },
    /// The acting admin's own new password; ends its other sessions.
    ChangeOwnPassword {
        /// New argon2id hash.
        password_hash: String,
        /// The session that made the change and stays signed in.
        keep_session: SessionId,
    },
    /// Turn the acting admin's own two-factor sign-in on (with its secret) or off.
    SetOwnTotp {
        /// Base32 secret, or none to turn it off.
        secret: Option<String>,
    },
    /// Withdraw a system notice: users no longer see it.
    WithdrawNotice {
        /// The notice's id (the log index of its broadcast).
        notice: u64,
    },
    /// Replace the early-close terms (cut-off and spreads).
    SetSaleTerms(Box<crate::sale::SaleTerms>),
    /// Create a draft tournament.
    CreateTournament(Box<crate::tournament::TournamentRules>),
    /// Replace a draft tournament's rules.
    UpdateTournament {
        tournament: crate::tournament::TournamentId,
        rules: Box<crate::tournament::TournamentRules>,
    },
    /// Put a draft tournament in the lobby; its rules are fixed from then on.
    PublishTournament {
        tournament: crate::tournament::TournamentId,
    },
    /// Cancel a tournament before its start, refunding every fee.
    CancelTournament {
        tournament: crate::tournament::TournamentId,
    },
}
}

impl AdminAction {
    /// A stable name for the audit log.
    pub fn name(&self) -> &'static str {
        match self {
            AdminAction::CreateAdmin { .. } => "create_admin",
            AdminAction::SetUserFrozen { .. } => "set_user_frozen",
            AdminAction::AdjustBalance { .. } => "adjust_balance",
            AdminAction::FundHouse { .. } => "fund_house",
            AdminAction::ApproveDeposit { .. } => "approve_deposit",
            AdminAction::RejectDeposit { .. } => "reject_deposit",
            AdminAction::ApproveWithdrawal { .. } => "approve_withdrawal",
            AdminAction::RejectWithdrawal { .. } => "reject_withdrawal",
            AdminAction::UpsertProduct { .. } => "upsert_product",
            AdminAction::SetRule(_) => "set_rule",
            AdminAction::RemoveRule { .. } => "remove_rule",
            AdminAction::UpdateSettings(_) => "update_settings",
            AdminAction::BroadcastNotice { .. } => "broadcast_notice",
            AdminAction::CompleteWithdrawal { .. } => "complete_withdrawal",
            AdminAction::FailWithdrawal { .. } => "fail_withdrawal",
            AdminAction::SetDepositAccounts(_) => "set_deposit_accounts",
            AdminAction::SetAdminDisabled { .. } => "set_admin_disabled",
            AdminAction::ChangeOwnPassword { .. } => "change_own_password",
            AdminAction::SetOwnTotp { .. } => "set_own_totp",
            AdminAction::WithdrawNotice { .. } => "withdraw_notice",
            AdminAction::SetSaleTerms(_) => "set_sale_terms",
            AdminAction::CreateTournament(_) => "create_tournament",
            AdminAction::UpdateTournament { .. } => "update_tournament",
            AdminAction::PublishTournament { .. } => "publish_tournament",
            AdminAction::CancelTournament { .. } => "cancel_tournament",
        }
    }

    /// Every action's [`AdminAction::name`], and the engine's own audit record of an admin's
    /// two-factor pause, for filters.
    pub const NAMES: [&'static str; 26] = [
        "create_admin",
        "set_user_frozen",
        "adjust_balance",
        "fund_house",
        "approve_deposit",
        "reject_deposit",
        "approve_withdrawal",
        "reject_withdrawal",
        "upsert_product",
        "set_rule",
        "remove_rule",
        "update_settings",
        "broadcast_notice",
        "complete_withdrawal",
        "fail_withdrawal",
        "set_deposit_accounts",
        "set_admin_disabled",
        "change_own_password",
        "set_own_totp",
        "withdraw_notice",
        "set_sale_terms",
        "create_tournament",
        "update_tournament",
        "publish_tournament",
        "cancel_tournament",
        "two_factor_locked",
    ];

    /// The area this action acts in; `None` for an admin's own account, which every role
    /// may manage.
    pub fn area(&self) -> Option<Area> {
        Some(match self {
            AdminAction::CreateAdmin { .. } | AdminAction::SetAdminDisabled { .. } => Area::Admins,
            AdminAction::SetUserFrozen { .. } => Area::Users,
            AdminAction::AdjustBalance { .. } => Area::Money,
            AdminAction::FundHouse { .. } => Area::House,
            AdminAction::ApproveDeposit { .. }
            | AdminAction::RejectDeposit { .. }
            | AdminAction::ApproveWithdrawal { .. }
            | AdminAction::RejectWithdrawal { .. }
            | AdminAction::CompleteWithdrawal { .. }
            | AdminAction::FailWithdrawal { .. } => Area::Orders,
            AdminAction::UpsertProduct { .. } => Area::Products,
            AdminAction::SetRule(_)
            | AdminAction::RemoveRule { .. }
            | AdminAction::SetSaleTerms(_)
            | AdminAction::CreateTournament(_)
            | AdminAction::UpdateTournament { .. }
            | AdminAction::PublishTournament { .. }
            | AdminAction::CancelTournament { .. } => Area::Rules,
            AdminAction::UpdateSettings(_) | AdminAction::SetDepositAccounts(_) => Area::Config,
            AdminAction::BroadcastNotice { .. } | AdminAction::WithdrawNotice { .. } => {
                Area::Notices
            }
            AdminAction::ChangeOwnPassword { .. } | AdminAction::SetOwnTotp { .. } => return None,
        })
    }
}
