//! The engine's nouns: identifiers, wallets, users, products, rules, contracts and orders.

use std::num::NonZeroU32;

use rkyv::with::Map;
use rust_decimal::Decimal;

use crate::constants::WEEK_MINUTES;
use crate::money::{Money, Rate, RkyvDecimal, RkyvMoney, RkyvRate};

pub use ids::{AdminId, ContractId, OrderId, UserId};

/// The id types. rkyv derives a resolver for each that has no `Debug`, and the lint would
/// flag it in this macro-generated code; the archived ids themselves derive `Debug`.
#[allow(missing_debug_implementations)]
mod ids {
    /// A kind of id as a type of its own, so that one kind cannot be passed where another is
    /// expected. Archived as the number it wraps: the same bytes in the log and in snapshots.
    macro_rules! id {
        ($(#[$doc:meta])* $name:ident($inner:ty)) => {
            $(#[$doc])*
            #[derive(
                rkyv::Archive,
                rkyv::Serialize,
                rkyv::Deserialize,
                Clone,
                Copy,
                Debug,
                Default,
                PartialEq,
                Eq,
                PartialOrd,
                Ord,
                Hash,
            )]
            #[rkyv(derive(Debug))]
            pub struct $name(pub $inner);

            impl $name {
                /// The number.
                pub const fn get(self) -> $inner {
                    self.0
                }

                /// The id issued after this one.
                #[must_use]
                pub const fn next(self) -> Self {
                    $name(self.0 + 1)
                }
            }

            impl std::fmt::Display for $name {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    self.0.fmt(f)
                }
            }

            impl From<$inner> for $name {
                fn from(value: $inner) -> Self {
                    $name(value)
                }
            }

            impl From<$name> for $inner {
                fn from(value: $name) -> Self {
                    value.0
                }
            }
        };
    }

    id! {
        /// A user's id: dense, starting at 1, never reused. Shown to users as their UID.
        UserId(u32)
    }

    id! {
        /// An admin's id: dense, starting at 1.
        AdminId(u32)
    }

    id! {
        /// A contract's order number: sequential, never reused.
        ContractId(u64)
    }

    id! {
        /// A deposit or withdrawal order's number: sequential, shared by both kinds.
        OrderId(u64)
    }

    impl UserId {
        /// The id of the user at `slot` of the dense tables.
        pub fn from_slot(slot: usize) -> UserId {
            UserId(u32::try_from(slot + 1).unwrap_or(u32::MAX))
        }

        /// Where the user's records sit in the engine's dense tables (ids start at 1); `None`
        /// for id 0, which no user has.
        pub fn slot(self) -> Option<usize> {
            (self.0 as usize).checked_sub(1)
        }

        /// Where the user's records sit in the dense tables, for an id known to exist.
        pub(crate) fn index(self) -> usize {
            (self.0 as usize).wrapping_sub(1)
        }
    }

    impl AdminId {
        /// The id of the admin at `slot` of the dense table.
        pub fn from_slot(slot: usize) -> AdminId {
            AdminId(u32::try_from(slot + 1).unwrap_or(u32::MAX))
        }

        /// Where the admin's record sits in the engine's dense table; `None` for id 0.
        pub fn slot(self) -> Option<usize> {
            (self.0 as usize).checked_sub(1)
        }

        /// Where the admin's records sit in the dense tables, for an id known to exist.
        pub(crate) fn index(self) -> usize {
            (self.0 as usize).wrapping_sub(1)
        }
    }
}
/// A session's id, carried inside the JWT so that a session can be ended.
pub type SessionId = u64;
/// A price alert's number: sequential, never reused.
pub type AlertId = u64;

/// Derives shared by every archived type of the engine.
macro_rules! archived {
    ($item:item) => {
        #[derive(
            rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Debug, PartialEq, Eq,
        )]
        $item
    };
}
pub(crate) use archived;

/// Derives for small copyable enums.
macro_rules! archived_copy {
    ($item:item) => {
        #[derive(
            rkyv::Archive,
            rkyv::Serialize,
            rkyv::Deserialize,
            Clone,
            Copy,
            Debug,
            PartialEq,
            Eq,
            Hash,
        )]
        $item
    };
}
pub(crate) use archived_copy;

archived_copy! {
/// Which wallet of a user: real USDT, or the virtual demo balance (decisions §3).
pub enum AccountKind {
    /// Real money: deposits, withdrawals, the house, referral rewards.
    Real,
    /// Virtual money: settles by the same rules, never touches real balances.
    Demo,
    /// A tournament balance: play money in the seat of the tournament running now, isolated
    /// from both others (see [`crate::tournament`]).
    Tournament,
}
}

archived_copy! {
/// A rise/fall contract's direction.
pub enum Direction {
    /// Buy up: wins if exit > entry.
    Up,
    /// Buy down: wins if exit < entry.
    Down,
}
}

archived_copy! {
/// The chain of a wallet used to sign in or to withdraw to.
pub enum Chain {
    /// Ethereum-style (MetaMask): EIP-191 personal_sign.
    Eth,
    /// TRON (TronLink): signMessageV2.
    Tron,
    /// Trust Wallet, an EVM signer shown under its own name.
    Trust,
}
}

impl Chain {
    /// The tag used in wallet usernames (`wallet_{chain}_{fragment}`).
    pub fn tag(self) -> &'static str {
        match self {
            Chain::Eth => "eth",
            Chain::Tron => "tron",
            Chain::Trust => "trust",
        }
    }
}

archived_copy! {
/// Market category of a product.
pub enum Category {
    /// Crypto pairs quoted in USDT, trading 24/7.
    Crypto,
    /// Forex pairs, trading in their market hours.
    Forex,
}
}

archived_copy! {
/// How a deposit was paid.
pub enum PayMethod {
    /// A bank transfer, with a receipt.
    BankTransfer,
    /// USDT on TRON.
    UsdtTrc20,
    /// USDT on Ethereum.
    UsdtErc20,
}
}

archived! {
/// A user's responsible-trading limits (decisions §7b). `None` means no limit. The money limits
/// count the real account only; self-exclusion stops all trading, demo included.
#[derive(Default)]
pub struct TradingLimits {
    /// Most net loss a UTC day may reach, counting every open stake and fee as lost.
    #[rkyv(with = rkyv::with::Map<RkyvDecimal>)]
    pub daily_loss: Option<Decimal>,
    /// Most stakes a UTC day may accept.
    #[rkyv(with = rkyv::with::Map<RkyvDecimal>)]
    pub daily_turnover: Option<Decimal>,
    /// Most real contracts open at once.
    pub open_contracts: Option<u32>,
    /// Remind the user after this many minutes of a session (the app shows it).
    pub session_reminder_minutes: Option<u32>,
    /// No trading before this time (ms); 0 = not excluded.
    pub excluded_until_ms: u64,
}
}

archived! {
/// A user's limits in force, a loosening waiting out its 24 hours, and today's counters.
#[derive(Default)]
pub struct LimitsState {
    /// In force now.
    pub current: TradingLimits,
    /// What the user last asked for, in force from `pending_from_ms` (a loosening).
    pub pending: Option<TradingLimits>,
    /// When `pending` takes over.
    pub pending_from_ms: u64,
    /// The UTC day (ms / 86 400 000) the counters are for.
    pub day: u64,
    /// Today's worst-case net loss: stakes and fees accepted, less what settlements returned.
    #[rkyv(with = RkyvMoney)]
    pub day_loss: Money,
    /// Today's accepted stakes.
    #[rkyv(with = RkyvMoney)]
    pub day_turnover: Money,
}
}

archived! {
/// A user's price alert: notifies once, when a sequenced tick reaches `price` from the side
/// the market was on when the alert was set, and is then gone.
pub struct PriceAlert {
    /// Alert number.
    pub id: AlertId,
    pub user: UserId,
    /// Product code.
    pub symbol: Symbol,
    /// The price to watch for.
    #[rkyv(with = RkyvDecimal)]
    pub price: Decimal,
    /// Set above the market: fires on a tick at or above `price`; otherwise at or below.
    pub rising: bool,
    /// When it was set (ms).
    pub created_ms: u64,
}
}

archived! {
/// Where users pay a deposit by one method: the platform's bank account, or its USDT address
/// on the method's network. Set in system config, shown in the deposit form.
pub struct DepositAccount {
    /// The method these details are for.
    pub method: PayMethod,
    /// Account holder (bank) or a label (USDT).
    pub name: String,
    /// Account number (bank) or address (USDT).
    pub number: String,
    /// Bank name; empty for USDT.
    pub bank: String,
}
}

archived_copy! {
/// What a change of a wallet's total is, as a bill (decisions §3).
pub enum BillType {
    /// An approved deposit.
    Deposit,
    /// A withdrawal (its freeze, approval or release).
    Withdraw,
    /// A winning contract's net gain.
    Profit,
    /// A losing contract's stake.
    Loss,
    /// A trading fee.
    Fee,
    /// A stake and fee returned (void contract).
    Refund,
    /// A referral reward.
    Reward,
    /// Money received from another user.
    TransferIn,
    /// Money sent to another user.
    TransferOut,
    /// An admin's adjustment, with a reason.
    Adjustment,
    /// A contract sold back before expiry: what the sale paid less the stake (signed).
    Sale,
    /// A tournament's entry fee or rebuy.
    TournamentFee,
    /// A tournament prize.
    TournamentPrize,
    /// A cancelled tournament's fees returned.
    TournamentRefund,
}
}

archived_copy! {
/// An admin's role: which parts of the back-office it may read and act in ([`Role::can`]).
pub enum Role {
    /// Everything, including admins, system config and the house's capital.
    Super,
    /// The market: game rules, products, notices, freezing users.
    Operations,
    /// Answering users: reads users, teams, trades and orders; freezes a user, sends notices.
    Support,
    /// Money: recharge and withdraw orders, balance adjustments.
    Finance,
}
}

/// A part of the back-office, as permissions name it (`rules:read`, `orders:write`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Area {
    /// Key figures.
    Dashboard,
    /// Users: read, freeze and unfreeze.
    Users,
    /// Referral trees.
    Teams,
    /// The published game rules.
    Rules,
    /// Every contract.
    Trades,
    /// Recharge and withdraw orders.
    Orders,
    /// Balance adjustments.
    Money,
    /// The product catalogue.
    Products,
    /// System configuration and deposit receiving details.
    Config,
    /// System notices.
    Notices,
    /// The audit log.
    Audit,
    /// Other admins.
    Admins,
    /// The house's seed capital.
    House,
}

impl Area {
    /// Every area, in the back-office's order.
    pub const ALL: [Area; 13] = [
        Area::Dashboard,
        Area::Users,
        Area::Teams,
        Area::Rules,
        Area::Trades,
        Area::Orders,
        Area::Money,
        Area::Products,
        Area::Config,
        Area::Notices,
        Area::Audit,
        Area::Admins,
        Area::House,
    ];

    /// The name in permissions (`users` in `users:read`).
    pub fn name(self) -> &'static str {
        match self {
            Area::Dashboard => "dashboard",
            Area::Users => "users",
            Area::Teams => "teams",
            Area::Rules => "rules",
            Area::Trades => "trades",
            Area::Orders => "orders",
            Area::Money => "money",
            Area::Products => "products",
            Area::Config => "config",
            Area::Notices => "notices",
            Area::Audit => "audit",
            Area::Admins => "admins",
            Area::House => "house",
        }
    }
}

/// Reading an area, or acting in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// See its pages and lists.
    Read,
    /// Take its actions (implies read).
    Write,
}

impl Role {
    /// Every role.
    pub const ALL: [Role; 4] = [Role::Super, Role::Operations, Role::Support, Role::Finance];

    /// The role's name in the API.
    pub fn name(self) -> &'static str {
        match self {
            Role::Super => "super",
            Role::Operations => "operations",
            Role::Support => "support",
            Role::Finance => "finance",
        }
    }

    /// The role called `name`.
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    /// True if this role may `access` `area`. The one table of the back-office's permissions:
    /// the engine checks actions with it, the gateway checks reads, the web app hides menus.
    pub fn can(self, area: Area, access: Access) -> bool {
        use Area::*;
        let (read, write): (&[Area], &[Area]) = match self {
            Role::Super => return true,
            Role::Operations => (
                &[Dashboard, Users, Teams, Rules, Trades, Orders, Products, Config, Notices, Audit],
                &[Users, Rules, Products, Notices],
            ),
            Role::Support => {
                (&[Dashboard, Users, Teams, Trades, Orders, Notices], &[Users, Notices])
            }
            Role::Finance => {
                (&[Dashboard, Users, Teams, Trades, Orders, Money, Audit], &[Orders, Money])
            }
        };
        match access {
            Access::Read => read.contains(&area) || write.contains(&area),
            Access::Write => write.contains(&area),
        }
    }
}

archived_copy! {
/// Why a contract ended.
pub enum Outcome {
    /// The direction was right: stake x (1 + payout rate) credited.
    Win,
    /// The direction was wrong: the stake goes to the house.
    Loss,
    /// Exit equals entry: the stake is returned, the fee is kept.
    Tie,
    /// No entry tick within the wait: stake and fee refunded.
    VoidNoEntry,
    /// No tick in the seconds before expiry: stake and fee refunded.
    VoidStaleFeed,
    /// The market closed during the contract: stake and fee refunded.
    VoidMarketClosed,
    /// Sold back before expiry at the published offer (see [`crate::sale`]).
    Sold,
}
}

impl Outcome {
    /// True for the outcomes that refund stake and fee.
    pub fn is_void(self) -> bool {
        matches!(self, Outcome::VoidNoEntry | Outcome::VoidStaleFeed | Outcome::VoidMarketClosed)
    }
}

archived_copy! {
/// A product's code without a slash (BTCUSDT, EURUSD), stored inline so ticks never allocate.
pub struct Symbol([u8; 16]);
}

impl Symbol {
    /// Upper-case ASCII letters and digits, 3 to 16 of them; anything else is refused.
    pub fn new(code: &str) -> Option<Symbol> {
        let bytes = code.as_bytes();
        if bytes.len() < 3 || bytes.len() > 16 {
            return None;
        }
        if !bytes.iter().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) {
            return None;
        }
        let mut inline = [0u8; 16];
        inline[..bytes.len()].copy_from_slice(bytes);
        Some(Symbol(inline))
    }

    /// The code as text.
    pub fn as_str(&self) -> &str {
        let len = self.0.iter().position(|&b| b == 0).unwrap_or(16);
        // Only ASCII letters and digits were ever stored.
        std::str::from_utf8(&self.0[..len]).unwrap_or("")
    }
}

impl std::fmt::Display for Symbol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

archived! {
/// The three parts of one wallet; the total is their sum.
#[derive(Default)]
pub struct Wallet {
    /// Spendable now.
    #[rkyv(with = RkyvMoney)]
    pub available: Money,
    /// Held by pending withdrawals.
    #[rkyv(with = RkyvMoney)]
    pub frozen: Money,
    /// Staked in open contracts.
    #[rkyv(with = RkyvMoney)]
    pub in_position: Money,
}
}

impl Wallet {
    /// available + frozen + in position.
    pub fn total(&self) -> Money {
        self.available + self.frozen + self.in_position
    }
}

/// The hot part of a user, touched by every order and settlement: kept apart from the profile,
/// and exactly one cache line, so that the engine's loop (bound by misses over a million
/// accounts) waits for one line per account instead of two. Counters it does not need on that
/// path (pending deposit and withdrawal orders) live in the engine's derived indexes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(align(64))]
pub struct Account {
    /// Real USDT.
    pub real: Wallet,
    /// Virtual USDT.
    pub demo: Wallet,
    /// Open real contracts, for the per-user cap.
    pub open_real: u32,
    /// Open demo contracts, for the per-user cap.
    pub open_demo: u32,
    /// Who invited this user (generation 1), in four bytes (no user has id 0). Kept here, not
    /// with the profile, because every real settlement walks the inviter chain.
    inviter: Option<NonZeroU32>,
    /// A frozen user can sign in and look, but not trade or move money.
    pub frozen: bool,
    /// Someone copies this user's trades: an order asks the copy book only then.
    pub leads: bool,
}

const _: () = assert!(std::mem::size_of::<Account>() == 64);

impl Account {
    /// A new user's account, invited by `inviter` if anyone.
    pub fn invited_by(inviter: Option<UserId>) -> Account {
        Account { inviter: inviter.and_then(|u| NonZeroU32::new(u.get())), ..Account::default() }
    }

    /// Who invited this user (generation 1), if anyone.
    #[inline]
    pub fn inviter(&self) -> Option<UserId> {
        self.inviter.map(|u| UserId(u.get()))
    }

    /// The wallet of one kind. An account holds no tournament balance (its seat does): that
    /// reads as empty here.
    pub fn wallet(&self, kind: AccountKind) -> &Wallet {
        static NONE: Wallet =
            Wallet { available: Money::ZERO, frozen: Money::ZERO, in_position: Money::ZERO };
        match kind {
            AccountKind::Real => &self.real,
            AccountKind::Demo => &self.demo,
            AccountKind::Tournament => &NONE,
        }
    }

    /// The wallet of one kind, to change; the engine moves tournament money on seats only.
    pub(crate) fn wallet_mut(&mut self, kind: AccountKind) -> &mut Wallet {
        match kind {
            AccountKind::Real => &mut self.real,
            AccountKind::Demo => &mut self.demo,
            AccountKind::Tournament => unreachable!("a tournament balance is held in its seat"),
        }
    }

    /// Open contracts of one kind; the engine counts tournament contracts on seats only.
    pub(crate) fn open_mut(&mut self, kind: AccountKind) -> &mut u32 {
        match kind {
            AccountKind::Real => &mut self.open_real,
            AccountKind::Demo => &mut self.open_demo,
            AccountKind::Tournament => unreachable!("a tournament balance is held in its seat"),
        }
    }
}

archived! {
/// A signed-in device. The JWT names it; ending it revokes the token.
pub struct Session {
    /// Carried in the token.
    pub id: SessionId,
    /// When it was created (ms).
    pub created_ms: u64,
    /// When it stops being valid (ms).
    pub expires_ms: u64,
    /// The client's user agent, shortened.
    pub device: String,
    /// The client's address as the gateway saw it.
    pub ip: String,
}
}

archived! {
/// A wallet bound to a user: for wallet sign-in, unique across users.
pub struct WalletBinding {
    /// Which chain and signature scheme.
    pub chain: Chain,
    /// The address, normalised by the gateway (lower-case hex for EVM, base58 for TRON).
    pub address: String,
}
}

archived! {
/// A saved withdrawal destination.
pub struct SavedAddress {
    /// The user's name for it.
    pub label: String,
    /// Network of the address.
    pub chain: Chain,
    /// The address itself.
    pub address: String,
}
}

archived! {
/// Where a withdrawal goes.
pub enum Destination {
    /// A crypto wallet.
    Wallet {
        chain: Chain,
        address: String,
    },
    /// A bank card.
    Bank {
        /// Account holder's name.
        name: String,
        /// Account or card number.
        number: String,
        /// Bank's name.
        bank: String,
    },
}
}

archived! {
/// The profile fields a user edits freely.
#[derive(Default)]
pub struct Profile {
    /// Display name.
    pub nickname: String,
    /// Short self-description.
    pub bio: String,
    /// Phone number as typed.
    pub phone: String,
    /// Generated file name of the uploaded avatar, empty for none.
    pub avatar: String,
    /// Notification preferences as bits: e-mail, price alerts, trade, system, marketing, newsletter.
    pub notify_bits: u8,
}
}

archived_copy! {
/// Whose authenticator code a command is about.
pub enum Principal {
    /// A trader.
    User(UserId),
    /// A back-office account.
    Admin(AdminId),
}
}

archived! {
/// What the engine remembers of a principal's authenticator codes, so that it holds after a
/// restart and on every cluster member: the newest time step accepted (a code is good once),
/// and the wrong codes in a row with the pause they caused.
#[derive(Default)]
pub struct TwoFactorGuard {
    /// The newest accepted 30-second time step; a code of this step or an older one is refused.
    pub last_step: u64,
    /// Wrong (or reused) codes since the last accepted one.
    pub failures: u32,
    /// Codes are refused until this time (ms), after too many wrong ones; 0 = never locked.
    pub locked_until_ms: u64,
}
}

archived! {
/// The cold part of a user: identity, security and profile.
pub struct User {
    pub id: UserId,
    /// Unique, case-insensitive; `wallet_{chain}_{fragment}` for wallet sign-ups.
    pub username: String,
    /// Unique, case-insensitive, optional for wallet users.
    pub email: Option<String>,
    /// argon2id PHC string computed by the gateway; none for wallet users who never set one.
    pub password_hash: Option<String>,
    /// The wallet this user signs in with, if any.
    pub wallet: Option<WalletBinding>,
    /// This user's own invite code (derived from the id, unique).
    pub invite_code: String,
    /// Users this one invited directly.
    pub invitees: Vec<UserId>,
    /// E-mail verified: counts as "certified" in team statistics.
    pub email_verified: bool,
    /// Base32 TOTP secret when 2FA is on.
    pub totp_secret: Option<String>,
    /// Each authenticator code once, and a pause after wrong ones.
    pub two_factor: TwoFactorGuard,
    /// When the password last changed (ms), for the 24 h withdrawal block; 0 = never.
    pub password_changed_ms: u64,
    /// Sign-up time (ms).
    pub created_ms: u64,
    /// Last sign-in time (ms), 0 = never.
    pub last_login_ms: u64,
    /// Editable profile.
    pub profile: Profile,
    /// Live sessions, oldest first.
    pub sessions: Vec<Session>,
    /// Saved withdrawal addresses.
    pub addresses: Vec<SavedAddress>,
    /// Index into `addresses` of the default one.
    pub default_address: Option<u32>,
}
}

archived! {
/// A back-office account.
pub struct Admin {
    /// Admin id, recorded on every audit entry.
    pub id: AdminId,
    /// Sign-in name.
    pub username: String,
    /// argon2id PHC string.
    pub password_hash: String,
    /// What this admin may do.
    pub role: Role,
    /// A disabled admin cannot sign in or act.
    pub disabled: bool,
    /// Live sessions.
    pub sessions: Vec<Session>,
    /// Base32 TOTP secret when two-factor sign-in is on.
    pub totp_secret: Option<String>,
    /// Each authenticator code once, and a pause after wrong ones.
    pub two_factor: TwoFactorGuard,
    /// When the password was last changed (ms; 0 if never since creation).
    pub password_changed_ms: u64,
}
}

archived! {
/// When a product trades, as data: crypto is always open, forex closes at the weekend.
pub enum MarketHours {
    /// 24/7.
    Always,
    /// Closed in these windows of the week, as [start, end) minutes since Monday 00:00 UTC.
    /// A window may wrap past the end of the week (start > end).
    WeeklyClosed(Vec<(u32, u32)>),
}
}

/// Milliseconds in a minute.
const MINUTE_MS: u64 = 60_000;

impl MarketHours {
    /// Forex: closed from Friday 22:00 to Sunday 22:00 UTC.
    pub fn forex() -> MarketHours {
        let friday_22 = 4 * 1_440 + 22 * 60;
        let sunday_22 = 6 * 1_440 + 22 * 60;
        MarketHours::WeeklyClosed(vec![(friday_22, sunday_22)])
    }

    /// Minute of the week (Monday 00:00 UTC = 0) of a Unix time in ms.
    /// 1970-01-01 was a Thursday, three days after a Monday.
    pub fn minute_of_week(time_ms: u64) -> u32 {
        let minutes = time_ms / MINUTE_MS + 3 * 1_440;
        (minutes % u64::from(WEEK_MINUTES)) as u32
    }

    /// True if trading is allowed at `time_ms`.
    pub fn is_open(&self, time_ms: u64) -> bool {
        match self {
            MarketHours::Always => true,
            MarketHours::WeeklyClosed(windows) => {
                let minute = Self::minute_of_week(time_ms);
                !windows.iter().any(|&(start, end)| in_window(minute, start, end))
            }
        }
    }

    /// True if the market was closed at any moment of [from_ms, to_ms].
    pub fn closed_between(&self, from_ms: u64, to_ms: u64) -> bool {
        let MarketHours::WeeklyClosed(windows) = self else { return false };
        if to_ms.saturating_sub(from_ms) >= u64::from(WEEK_MINUTES) * MINUTE_MS {
            return !windows.is_empty();
        }
        if !self.is_open(from_ms) || !self.is_open(to_ms) {
            return true;
        }
        // Both ends open and less than a week apart: closed in between only if a window
        // starts inside the span. Walk the window starts, not the minutes.
        let week_ms = u64::from(WEEK_MINUTES) * MINUTE_MS;
        let from_in_week = (from_ms + 3 * 1_440 * MINUTE_MS) % week_ms;
        let span_ms = to_ms - from_ms;
        windows.iter().any(|&(start, _)| {
            let offset = (u64::from(start) * MINUTE_MS + week_ms - from_in_week) % week_ms;
            offset > 0 && offset <= span_ms
        })
    }

    /// True if every window lies inside the week.
    pub fn is_valid(&self) -> bool {
        match self {
            MarketHours::Always => true,
            MarketHours::WeeklyClosed(windows) => {
                windows.len() <= crate::constants::MARKET_CLOSURES_MAX
                    && windows.iter().all(|&(s, e)| s < WEEK_MINUTES && e < WEEK_MINUTES && s != e)
            }
        }
    }
}

fn in_window(minute: u32, start: u32, end: u32) -> bool {
    if start <= end {
        minute >= start && minute < end
    } else {
        minute >= start || minute < end
    }
}

archived! {
/// A tradable product.
pub struct Product {
    /// Code without a slash.
    pub symbol: Symbol,
    /// Display name with a slash (BTC/USDT).
    pub name: String,
    /// Crypto or forex.
    pub category: Category,
    /// Decimal places of its price.
    pub precision: u8,
    /// A disabled product refuses new orders; open contracts still settle.
    pub enabled: bool,
    /// When it trades.
    pub hours: MarketHours,
}
}

archived! {
/// A published trading rule for one duration: never an outcome control (decisions §1).
pub struct Rule {
    /// Contract length in seconds.
    pub duration_secs: u32,
    /// Net payout on a win, as a fraction of the stake (0.85 = 85 %).
    #[rkyv(with = RkyvDecimal)]
    pub payout_rate: Decimal,
    /// Smallest stake.
    #[rkyv(with = RkyvDecimal)]
    pub stake_min: Decimal,
    /// Largest stake.
    #[rkyv(with = RkyvDecimal)]
    pub stake_max: Decimal,
    /// Fee as a fraction of the stake, charged at acceptance.
    #[rkyv(with = RkyvDecimal)]
    pub fee_rate: Decimal,
    /// A disabled rule offers no orders.
    pub enabled: bool,
}
}

archived! {
/// Site-wide settings, editable in the back-office.
pub struct Settings {
    /// Shown in the header and on the login page.
    pub site_name: String,
    /// Generated file name of the logo, empty for the default.
    pub logo: String,
    /// Shown on the login page.
    pub site_description: String,
    /// E-mail code sign-in offered.
    pub email_login: bool,
    /// Wallet sign-in offered.
    pub wallet_login: bool,
    /// Customer-service link shown.
    pub customer_service_enabled: bool,
    /// Where the customer-service icon leads.
    pub customer_service_link: String,
    /// Sign-up needs an invite code (decisions §5; default off).
    pub invite_code_required: bool,
    /// Withdrawal fee as a fraction of the amount.
    #[rkyv(with = RkyvDecimal)]
    pub withdraw_fee_rate: Decimal,
    /// Fixed withdrawal fee added to the proportional part.
    #[rkyv(with = RkyvDecimal)]
    pub withdraw_fee_fixed: Decimal,
    /// Smallest withdrawal.
    #[rkyv(with = RkyvDecimal)]
    pub withdraw_min: Decimal,
    /// Largest withdrawal.
    #[rkyv(with = RkyvDecimal)]
    pub withdraw_max: Decimal,
    /// Smallest deposit.
    #[rkyv(with = RkyvDecimal)]
    pub deposit_min: Decimal,
    /// Largest deposit.
    #[rkyv(with = RkyvDecimal)]
    pub deposit_max: Decimal,
    /// Open contracts a user may hold at once, per account kind (default 200).
    pub open_contracts_per_user_max: u32,
    /// Referral reward rates for generations 1, 2 and 3.
    #[rkyv(with = Map<RkyvDecimal>)]
    pub reward_rates: Vec<Decimal>,
    /// Virtual USDT in a new or reset demo wallet.
    #[rkyv(with = RkyvDecimal)]
    pub demo_balance: Decimal,
    /// Customer service's working hours as shown to users (`09:00-21:00`, UTC).
    pub customer_service_hours: String,
    /// The site-package provider's chat link, opened from the back-office's sidebar.
    pub provider_link: String,
}
}

archived! {
/// A price observation as the engine sequenced it.
#[derive(Copy)]
pub struct TickRef {
    /// The price.
    #[rkyv(with = RkyvDecimal)]
    pub price: Decimal,
    /// Sequencer time of the tick (ms).
    pub time_ms: u64,
    /// Log index of the tick command: anyone can look the tick up and re-derive a result.
    pub index: u64,
}
}

archived! {
/// A rise/fall contract while it is open.
pub struct Contract {
    /// Order number.
    pub id: ContractId,
    pub user: UserId,
    /// Real or demo.
    pub account: AccountKind,
    /// Index of the product in the catalogue.
    pub product: u16,
    /// Up or down.
    pub direction: Direction,
    /// Amount at risk.
    #[rkyv(with = RkyvMoney)]
    pub stake: Money,
    /// Fee charged at acceptance.
    #[rkyv(with = RkyvMoney)]
    pub fee: Money,
    /// Payout rate locked at acceptance.
    #[rkyv(with = RkyvRate)]
    pub payout_rate: Rate,
    /// What the house set aside for this contract (max net payout + rewards + fee).
    #[rkyv(with = RkyvMoney)]
    pub reserved: Money,
    /// Contract length.
    pub duration_ms: u64,
    /// Sequencer time of acceptance.
    pub accepted_ms: u64,
    /// Log index of acceptance.
    pub accepted_index: u64,
    /// The entry tick, once sequenced.
    pub entry: Option<TickRef>,
    /// entry time + duration; 0 while waiting for entry.
    pub expiry_ms: u64,
}
}

archived_copy! {
/// Lifecycle of a deposit or withdrawal order.
pub enum OrderStatus {
    /// Waiting for an admin.
    Pending,
    /// A withdrawal approved by an admin and being paid out; its amount stays frozen.
    Processing,
    /// Done: a deposit credited, a withdrawal paid out.
    Completed,
    /// Refused with a remark; a withdrawal's amount is returned.
    Rejected,
    /// A withdrawal whose payout failed; its amount is returned.
    Failed,
}
}

archived! {
/// A deposit waiting for approval.
pub struct DepositOrder {
    /// Order number.
    pub id: OrderId,
    pub user: UserId,
    /// Amount to credit on approval.
    #[rkyv(with = RkyvMoney)]
    pub amount: Money,
    /// How it was paid.
    pub method: PayMethod,
    /// Payer's account name.
    pub account_name: String,
    /// Payer's account number or address.
    pub account_number: String,
    /// Payer's bank.
    pub bank_name: String,
    /// Generated file name of the receipt image.
    pub receipt: String,
    /// Creation time (ms).
    pub created_ms: u64,
}
}

archived! {
/// A withdrawal waiting for approval; its amount sits in frozen.
pub struct WithdrawOrder {
    /// Order number.
    pub id: OrderId,
    pub user: UserId,
    /// Amount frozen and debited on approval.
    #[rkyv(with = RkyvMoney)]
    pub amount: Money,
    /// Fee kept by the house on approval.
    #[rkyv(with = RkyvMoney)]
    pub fee: Money,
    /// Amount paid out: amount - fee.
    #[rkyv(with = RkyvMoney)]
    pub actual: Money,
    /// Where it goes.
    pub destination: Destination,
    /// Creation time (ms).
    pub created_ms: u64,
    /// Pending, or Processing once an admin approved it (the only two states it is kept in).
    pub status: OrderStatus,
}
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2026-11-20 is a Friday.
    const FRIDAY_2026_11_20_MS: u64 = 1_795_132_800_000;

    fn at(day_offset: u64, hour: u64, minute: u64) -> u64 {
        FRIDAY_2026_11_20_MS + ((day_offset * 24 + hour) * 60 + minute) * MINUTE_MS
    }

    #[test]
    fn forex_closes_friday_22_to_sunday_22_utc() {
        let fx = MarketHours::forex();
        assert!(fx.is_open(at(0, 21, 59)));
        assert!(!fx.is_open(at(0, 22, 0)));
        assert!(!fx.is_open(at(1, 12, 0)));
        assert!(!fx.is_open(at(2, 21, 59)));
        assert!(fx.is_open(at(2, 22, 0)));
        assert!(fx.is_open(at(3, 0, 0)));
    }

    #[test]
    fn closed_between_sees_a_weekend_inside_the_span() {
        let fx = MarketHours::forex();
        assert!(fx.closed_between(at(0, 21, 0), at(2, 23, 0)));
        assert!(!fx.closed_between(at(0, 20, 0), at(0, 21, 59)));
        assert!(fx.closed_between(at(0, 21, 59), at(0, 22, 0)));
        assert!(!MarketHours::Always.closed_between(0, u64::MAX / 2));
    }

    #[test]
    fn symbols_are_upper_case_codes() {
        assert_eq!(Symbol::new("BTCUSDT").map(|s| s.to_string()), Some("BTCUSDT".into()));
        assert!(Symbol::new("BTC/USDT").is_none());
        assert!(Symbol::new("btc").is_none());
        assert!(Symbol::new("AB").is_none());
    }
}
