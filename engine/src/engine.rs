//! The engine: state, the `apply` dispatch, and read accessors for other threads' queries.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rust_decimal::Decimal;
use rustc_hash::FxHashMap;

use crate::command::Command;
use crate::cow::CowVec;
use crate::defaults;
use crate::event::{CommandResult, Event, Events, WalletChange};
use crate::identity::invite_key;
use crate::money::Money;
use crate::slab::{Slab, SlotRef};
use crate::terms::Terms;
use crate::types::{
    Account, AccountKind, Admin, AdminId, AlertId, BillType, Chain, Contract, ContractId,
    DepositAccount, DepositOrder, LimitsState, OrderId, PriceAlert, Product, Rule, SessionId,
    Settings, Symbol, TickRef, User, UserId, WithdrawOrder,
};
use crate::user_index::{lowers_to, UserIndex};
use crate::EngineError;

/// Due contracts of a tick requested from memory ahead of it, at most per duration.
const PREFETCH_DUE_MAX: usize = 4;

/// Where a command sits in the log and when it was sequenced (mirrors `wal::Meta`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// Log index.
    pub index: u64,
    /// Sequencer time (ms since the Unix epoch).
    pub time_ms: u64,
}

/// Money that is not in any user's wallet, and the counters that conservation is checked against.
#[derive(
    rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Debug, Default, PartialEq, Eq,
)]
pub struct Ledger {
    /// The house's real balance: counterparty of every contract, reward and fee.
    #[rkyv(with = crate::money::RkyvMoney)]
    pub house: Money,
    /// Part of `house` set aside for the worst case of open real contracts.
    #[rkyv(with = crate::money::RkyvMoney)]
    pub house_reserved: Money,
    /// Capital put into the house by admins.
    #[rkyv(with = crate::money::RkyvMoney)]
    pub seed_capital: Money,
    /// Sum of approved deposits.
    #[rkyv(with = crate::money::RkyvMoney)]
    pub deposits_approved: Money,
    /// Sum of amounts paid out by approved withdrawals (after their fee).
    #[rkyv(with = crate::money::RkyvMoney)]
    pub withdrawals_paid: Money,
    /// Virtual USDT created for demo wallets, net of resets.
    #[rkyv(with = crate::money::RkyvMoney)]
    pub demo_minted: Money,
    /// The demo house: virtual, may go negative.
    #[rkyv(with = crate::money::RkyvMoney)]
    pub demo_house: Money,
}

impl Ledger {
    /// Real money that has entered and not left: the house's seed and approved deposits, less
    /// paid withdrawals. Every real balance and the house sum to it.
    pub fn real_supply(&self) -> Money {
        self.seed_capital + self.deposits_approved - self.withdrawals_paid
    }
}

/// One product's live trading state.
#[derive(Debug, Default, Clone)]
pub(crate) struct Book {
    /// The latest tick sequenced.
    pub(crate) last: Option<TickRef>,
    /// Contracts waiting for their entry tick, in acceptance order.
    pub(crate) waiting: VecDeque<SlotRef>,
    /// Entered contracts, one queue per duration: settling walks only what is due.
    pub(crate) expiring: Vec<ExpiryQueue>,
    /// Price alerts set above the market, by price: a tick at or above fires them.
    pub(crate) alerts_up: BTreeSet<(Decimal, AlertId)>,
    /// Price alerts set below the market, by price: a tick at or below fires them.
    pub(crate) alerts_down: BTreeSet<(Decimal, AlertId)>,
    /// The last price changes, for early close's offers.
    pub(crate) volatility: crate::sale::Volatility,
}

/// The entered contracts of one product and one duration, in entry order, which is expiry
/// order: entries are sequenced in time and each adds the same duration. Settling reads the
/// front of a ring buffer instead of one allocation per expiry time in a tree (a tick's due
/// contracts were a cold tree node, then a cold vector, then the contracts), and keeps no
/// per-tick allocation.
#[derive(Debug, Clone)]
pub(crate) struct ExpiryQueue {
    /// The duration of every contract in the queue.
    pub(crate) duration_ms: u64,
    /// The contracts, earliest expiry first.
    pub(crate) contracts: VecDeque<Due>,
}

/// A contract waiting in an expiry queue. The owner is kept beside the slot so that the
/// account a settlement credits can be requested from memory before the contract is read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Due {
    /// entry time + duration.
    pub(crate) expiry_ms: u64,
    /// Where the contract lives.
    pub(crate) at: SlotRef,
    /// Its owner.
    pub(crate) user: UserId,
}

impl Book {
    /// True while any contract of this product waits for entry or for expiry.
    pub(crate) fn has_open_contracts(&self) -> bool {
        !self.waiting.is_empty() || self.expiring.iter().any(|q| !q.contracts.is_empty())
    }

    /// Queues an entered contract for settlement at `expiry_ms`.
    pub(crate) fn schedule(&mut self, duration_ms: u64, due: Due) {
        let queue = match self.expiring.iter().position(|q| q.duration_ms == duration_ms) {
            Some(q) => &mut self.expiring[q],
            None => {
                self.expiring.push(ExpiryQueue { duration_ms, contracts: VecDeque::new() });
                self.expiring.last_mut().expect("just pushed")
            }
        };
        debug_assert!(queue.contracts.back().is_none_or(|d| d.expiry_ms <= due.expiry_ms));
        queue.contracts.push_back(due);
    }

    /// The queue whose front expires first. Equal expiry times are settled in entry order, as
    /// one queue over every duration would: the longer duration entered first.
    pub(crate) fn earliest(&self) -> Option<usize> {
        self.expiring
            .iter()
            .enumerate()
            .filter_map(|(n, q)| {
                q.contracts.front().map(|d| (d.expiry_ms, std::cmp::Reverse(q.duration_ms), n))
            })
            .min()
            .map(|(_, _, n)| n)
    }
}

/// Lookups derived from the state; rebuilt on restore, never snapshotted.
#[derive(Debug, Default, Clone)]
pub(crate) struct Indexes {
    /// Lower-case username -> user.
    pub(crate) username: UserIndex<str>,
    /// Lower-case e-mail -> user.
    pub(crate) email: UserIndex<str>,
    /// Bound wallet -> user.
    pub(crate) wallet: UserIndex<(Chain, String)>,
    /// Invite code -> user, keyed by [`invite_key`]: a number per code, not a string (a
    /// restore builds it for every user).
    pub(crate) invite: UserIndex<u64>,
    /// Lower-case admin name -> admin.
    pub(crate) admin_name: FxHashMap<String, AdminId>,
    /// Product code -> position in the catalogue.
    pub(crate) symbol: FxHashMap<Symbol, u16>,
    /// User -> their waiting price alerts, oldest first.
    pub(crate) user_alerts: FxHashMap<UserId, Vec<AlertId>>,
    /// User -> their deposit and withdrawal orders not yet decided, for the caps (only users
    /// with one; counted from the order lists on restore).
    pub(crate) pending: FxHashMap<UserId, Pending>,
}

/// A user's orders not yet decided: deposits waiting for review, withdrawals waiting or being
/// paid out.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pending {
    pub(crate) deposits: u32,
    pub(crate) withdrawals: u32,
}

/// The whole in-memory state of the platform. Single-threaded and deterministic.
#[derive(Debug, Clone)]
pub struct Engine {
    /// Index of the last applied command.
    pub(crate) applied_index: u64,
    /// Sequencer time of the last applied command; never goes back.
    pub(crate) now_ms: u64,
    /// Users; user `id` sits at `id - 1`.
    pub(crate) users: CowVec<User>,
    /// Wallets and counters; user `id` sits at `id - 1`.
    pub(crate) accounts: CowVec<Account>,
    /// Admins; admin `id` sits at `id - 1`.
    pub(crate) admins: Vec<Admin>,
    /// The catalogue.
    pub(crate) products: Vec<Product>,
    /// One book per product, same positions.
    pub(crate) books: Vec<Book>,
    /// Trading rules, sorted by duration.
    pub(crate) rules: Vec<Rule>,
    /// Site settings.
    pub(crate) settings: Settings,
    /// The rules' and settings' figures as integers, for the hot path (derived).
    pub(crate) terms: Terms,
    /// Where deposits are paid, at most one per method, in method order.
    pub(crate) deposit_accounts: Vec<DepositAccount>,
    /// Responsible-trading limits of the users who set any.
    pub(crate) limits: BTreeMap<UserId, LimitsState>,
    /// Waiting price alerts.
    pub(crate) alerts: BTreeMap<AlertId, PriceAlert>,
    /// Next price alert number.
    pub(crate) next_alert: AlertId,
    /// Open contracts.
    pub(crate) contracts: Slab,
    /// Pending deposits.
    pub(crate) deposits: BTreeMap<OrderId, DepositOrder>,
    /// Pending withdrawals.
    pub(crate) withdrawals: BTreeMap<OrderId, WithdrawOrder>,
    /// House and conservation counters.
    pub(crate) ledger: Ledger,
    /// Next contract number.
    pub(crate) next_contract: ContractId,
    /// Next deposit/withdrawal order number.
    pub(crate) next_order: OrderId,
    /// Next session id.
    pub(crate) next_session: SessionId,
    /// The install's secret key of invite codes; 0 until set (codes then follow the id alone).
    pub(crate) invite_key: u64,
    /// Seed and end (ms) of simulated products' chart history, once set.
    pub(crate) chart_history: Option<(u64, u64)>,
    /// Early close's cut-off and spreads.
    pub(crate) sale_terms: crate::sale::SaleTerms,
    /// Copy trading: leaders, followers, and the leader of each open copy.
    pub(crate) copy: crate::copy::CopyBook,
    /// Tournaments, their seats, and the tournament of each open contract played in one.
    pub(crate) tournaments: crate::tournament::TournamentBook,
    /// Derived lookups.
    pub(crate) idx: Indexes,
    /// While true, trading builds no events (replay discards them anyway). Not state: never
    /// snapshotted, and the state reached is the same either way (a property test checks).
    pub(crate) quiet: bool,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    /// A fresh engine with the default rules and settings, no products, no users.
    pub fn new() -> Engine {
        Engine {
            applied_index: 0,
            now_ms: 0,
            users: CowVec::default(),
            accounts: CowVec::default(),
            admins: Vec::new(),
            products: Vec::new(),
            books: Vec::new(),
            rules: defaults::rules(),
            settings: defaults::settings(),
            terms: Terms::of(&defaults::rules(), &defaults::settings()),
            deposit_accounts: Vec::new(),
            limits: BTreeMap::new(),
            alerts: BTreeMap::new(),
            next_alert: 1,
            contracts: Slab::default(),
            deposits: BTreeMap::new(),
            withdrawals: BTreeMap::new(),
            ledger: Ledger::default(),
            next_contract: ContractId(1),
            next_order: OrderId(1),
            next_session: 1,
            invite_key: 0,
            chart_history: None,
            sale_terms: crate::sale::SaleTerms::default(),
            copy: crate::copy::CopyBook::default(),
            tournaments: crate::tournament::TournamentBook::default(),
            idx: Indexes::default(),
            quiet: false,
        }
    }

    /// Rebuilds the integer copy of the rules and settings after either changed.
    pub(crate) fn refresh_terms(&mut self) {
        self.terms = Terms::of(&self.rules, &self.settings);
    }

    /// Stops (or resumes) building the events of trading commands: orders, ticks, settlements
    /// and their wallet changes, the bulk of any log. For replay, whose events are discarded.
    pub fn set_quiet(&mut self, quiet: bool) {
        self.quiet = quiet;
    }

    /// Brings what `command` will touch first into cache: an order's account, and for a tick
    /// at `time_ms` the first contracts it will settle and their owners' accounts. A caller
    /// that holds a batch calls it a few commands ahead of [`Engine::apply`], so misses on
    /// accounts spread over a million users overlap the commands in between instead of each
    /// stopping the loop in turn (a tick settles one or two contracts at a time in steady
    /// trading, too few to overlap among themselves). Changes nothing, and nothing depends on
    /// it but speed.
    #[inline]
    pub fn prefetch(&self, time_ms: u64, command: &Command) {
        match command {
            Command::PlaceOrder(order) => {
                self.accounts.prefetch(order.user.index());
            }
            Command::Tick { symbol, .. } => {
                let Some(&book) = self.idx.symbol.get(symbol) else { return };
                let Some(book) = self.books.get(usize::from(book)) else { return };
                book.volatility.prefetch();
                for queue in &book.expiring {
                    let due = queue.contracts.iter().take(PREFETCH_DUE_MAX);
                    for due in due.take_while(|d| d.expiry_ms < time_ms) {
                        self.accounts.prefetch(due.user.index());
                        self.contracts.prefetch(due.at);
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether applying `command` reads the users' records or their lookups by name, e-mail,
    /// wallet or invite code, which a restore may still be reading on another thread.
    /// Trading, nearly all of any log, does not (it reads accounts).
    pub fn needs_users(command: &Command) -> bool {
        !matches!(
            command,
            Command::PlaceOrder(_)
                | Command::Tick { .. }
                | Command::Timer
                | Command::SellContract(_)
        )
    }

    /// Applies one command. A refused command changes no state (its audit event aside).
    pub fn apply(&mut self, stamp: Stamp, command: Command, events: &mut Events) -> CommandResult {
        assert!(stamp.index > self.applied_index, "log index must grow");
        self.applied_index = stamp.index;
        self.now_ms = self.now_ms.max(stamp.time_ms);
        match command {
            Command::Register(r) => self.register(*r, events),
            Command::CreateSession(s) => self.create_session(s, events),
            Command::EndSession { user, session } => self.end_session(user, session, events),
            Command::SetPassword { user, password_hash, keep_session } => {
                self.set_password(user, password_hash, keep_session, events)
            }
            Command::VerifyEmail { user } => self.verify_email(user, events),
            Command::SetTotp { user, secret } => self.set_totp(user, secret, events),
            Command::UpdateProfile { user, profile } => self.update_profile(user, *profile, events),
            Command::AddAddress { user, label, chain, address, make_default } => {
                self.add_address(user, label, chain, address, make_default, events)
            }
            Command::RemoveAddress { user, position } => {
                self.remove_address(user, position, events)
            }
            Command::PlaceOrder(order) => self.place_order(order, events),
            Command::Tick { symbol, price, quantity } => self.tick(symbol, price, quantity, events),
            Command::Timer => Ok(self.timer(events)),
            Command::ResetDemo { user } => self.reset_demo(user, events),
            Command::RequestDeposit(d) => self.request_deposit(*d, events),
            Command::RequestWithdrawal { user, amount, destination } => {
                self.request_withdrawal(user, amount, *destination, events)
            }
            Command::Transfer { from, to, amount } => self.transfer(from, to, amount, events),
            Command::BootstrapAdmin { username, password_hash } => {
                self.bootstrap_admin(username, password_hash)
            }
            Command::CreateAdminSession { admin, session } => {
                self.create_admin_session(admin, session)
            }
            Command::EndAdminSession { admin, session } => {
                self.end_admin_session(admin, session, events)
            }
            Command::Admin { admin, action } => self.admin_command(admin, *action, events),
            Command::SetVerifiedEmail { user, email } => {
                self.set_verified_email(user, email, events)
            }
            Command::SetTradingLimits { user, limits } => {
                self.set_trading_limits(user, *limits, events)
            }
            Command::SetPriceAlert { user, symbol, price } => {
                self.set_price_alert(user, symbol, price, events)
            }
            Command::CancelPriceAlert { user, alert } => {
                self.cancel_price_alert(user, alert, events)
            }
            Command::TwoFactorCode { who, step } => self.two_factor_code(who, step, events),
            Command::SetInviteKey { key } => self.set_invite_key(key),
            Command::SetChartHistory { seed, end_ms } => self.set_chart_history(seed, end_ms),
            Command::SellContract(sale) => self.sell_contract(sale, events),
            Command::SetCopyable { user, copyable } => self.set_copyable(user, copyable, events),
            Command::Follow { follower, leader, settings } => {
                self.follow(follower, leader, *settings, events)
            }
            Command::JoinTournament { user, tournament } => {
                self.join_tournament(user, tournament, events)
            }
            Command::Rebuy { user, tournament } => self.rebuy(user, tournament, events),
            Command::EndCopy { by, follower, leader } => {
                self.end_copy(by, follower, leader, events)
            }
        }
    }

    // ---- shared helpers ----------------------------------------------------------------------

    /// The user's account, or `UserNotFound`.
    pub(crate) fn account_of(&self, user: UserId) -> Result<&Account, EngineError> {
        let slot = user.slot().ok_or(EngineError::UserNotFound)?;
        self.accounts.get(slot).ok_or(EngineError::UserNotFound)
    }

    /// The user's account, to change. Callers checked existence first.
    pub(crate) fn account_mut(&mut self, user: UserId) -> &mut Account {
        &mut self.accounts[user.index()]
    }

    /// The user's orders not yet decided.
    pub(crate) fn pending(&self, user: UserId) -> Pending {
        self.idx.pending.get(&user).copied().unwrap_or_default()
    }

    /// Changes the user's count of orders not yet decided; a user with none leaves the index.
    pub(crate) fn count_pending(&mut self, user: UserId, change: impl FnOnce(&mut Pending)) {
        let entry = self.idx.pending.entry(user).or_default();
        change(entry);
        if *entry == Pending::default() {
            self.idx.pending.remove(&user);
        }
    }

    /// The user's record, or `UserNotFound`.
    pub(crate) fn user_of(&self, user: UserId) -> Result<&User, EngineError> {
        self.debug_assert_users_restored();
        let slot = user.slot().ok_or(EngineError::UserNotFound)?;
        self.users.get(slot).ok_or(EngineError::UserNotFound)
    }

    /// Every user has an account. A restore puts the users' records back after trading may
    /// have begun ([`Engine::needs_users`]); nothing else may read them before.
    #[inline]
    fn debug_assert_users_restored(&self) {
        debug_assert_eq!(self.users.len(), self.accounts.len(), "users read before restored");
    }

    /// The user's record, to change. Callers checked existence first.
    pub(crate) fn user_mut(&mut self, user: UserId) -> &mut User {
        self.debug_assert_users_restored();
        &mut self.users[user.index()]
    }

    /// An account that exists and is not frozen.
    pub(crate) fn active_account(&self, user: UserId) -> Result<&Account, EngineError> {
        let account = self.account_of(user)?;
        if account.frozen {
            return Err(EngineError::AccountFrozen);
        }
        Ok(account)
    }

    /// Emits the wallet event for a change that just happened.
    pub(crate) fn wallet_event(
        &self,
        user: UserId,
        account: AccountKind,
        bill: Option<BillType>,
        amount: Money,
        reference: u64,
        events: &mut Events,
    ) {
        if self.quiet {
            return;
        }
        let wallet = self.accounts[user.index()].wallet(account).clone();
        events.push(Event::Wallet(WalletChange { user, account, bill, amount, wallet, reference }));
    }

    // ---- reads -------------------------------------------------------------------------------

    /// Index of the last applied command.
    pub fn applied_index(&self) -> u64 {
        self.applied_index
    }

    /// The id the next session will get: every session with a lower id has been started in
    /// the state applied so far (a cluster member behind another one has not issued it yet).
    pub fn next_session_id(&self) -> SessionId {
        self.next_session
    }

    /// Sequencer time of the last applied command.
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// A user by UID.
    pub fn user(&self, user: UserId) -> Option<&User> {
        self.user_of(user).ok()
    }

    /// A user's wallets and counters.
    pub fn account(&self, user: UserId) -> Option<&Account> {
        self.account_of(user).ok()
    }

    /// A user by username, case-insensitive.
    pub fn user_by_username(&self, username: &str) -> Option<&User> {
        self.user(self.user_named(&username.to_lowercase())?)
    }

    /// A user by e-mail, case-insensitive.
    pub fn user_by_email(&self, email: &str) -> Option<&User> {
        self.user(self.user_with_email(&email.to_lowercase())?)
    }

    /// The user whose username in lower case is `lower`.
    pub(crate) fn user_named(&self, lower: &str) -> Option<UserId> {
        let has = |id| self.user(id).is_some_and(|u| lowers_to(&u.username, lower));
        self.idx.username.get(lower, has)
    }

    /// The user whose e-mail in lower case is `lower`.
    pub(crate) fn user_with_email(&self, lower: &str) -> Option<UserId> {
        let has = |id| {
            self.user(id).and_then(|u| u.email.as_deref()).is_some_and(|e| lowers_to(e, lower))
        };
        self.idx.email.get(lower, has)
    }

    /// The user who bound this wallet.
    pub(crate) fn user_with_wallet(&self, key: &(Chain, String)) -> Option<UserId> {
        let has = |id| {
            let bound = self.user(id).and_then(|u| u.wallet.as_ref());
            bound.is_some_and(|w| w.chain == key.0 && w.address == key.1)
        };
        self.idx.wallet.get(key, has)
    }

    /// The user whose invite code has [`invite_key`] `key`.
    pub(crate) fn user_invited_by(&self, key: u64) -> Option<UserId> {
        let has = |id| self.user(id).is_some_and(|u| invite_key(&u.invite_code) == Some(key));
        self.idx.invite.get(&key, has)
    }

    /// A user by bound wallet.
    pub fn user_by_wallet(&self, chain: Chain, address: &str) -> Option<&User> {
        self.user(self.user_with_wallet(&(chain, address.to_string()))?)
    }

    /// A user by invite code.
    pub fn user_by_invite_code(&self, code: &str) -> Option<&User> {
        self.user(self.user_invited_by(invite_key(code)?)?)
    }

    /// Number of users.
    pub fn user_count(&self) -> usize {
        self.users.len()
    }

    /// An admin by id.
    pub fn admin(&self, admin: AdminId) -> Option<&Admin> {
        self.admins.get(admin.slot()?)
    }

    /// Every admin, by id.
    pub fn admins(&self) -> &[Admin] {
        &self.admins
    }

    /// An admin by name, case-insensitive.
    pub fn admin_by_username(&self, username: &str) -> Option<&Admin> {
        let id = *self.idx.admin_name.get(&username.to_lowercase())?;
        self.admin(id)
    }

    /// Number of admins.
    pub fn admin_count(&self) -> usize {
        self.admins.len()
    }

    /// An open contract by id. Walks every open contract: for tests and the back-office, not
    /// for the hot path (the gateway's read model indexes contracts from events).
    pub fn contract(&self, id: ContractId) -> Option<&Contract> {
        self.contracts.iter().find(|c| c.id == id)
    }

    /// Every open contract, in no particular order.
    pub fn open_contracts(&self) -> impl Iterator<Item = &Contract> {
        self.contracts.iter()
    }

    /// The early-close terms in force.
    pub fn sale_terms(&self) -> &crate::sale::SaleTerms {
        &self.sale_terms
    }

    /// The offer for an open contract now, or why there is none (for tests and tools: walks
    /// every open contract).
    pub fn offer_for(
        &self,
        id: ContractId,
    ) -> Option<Result<crate::sale::Quote, crate::sale::NoOffer>> {
        self.contract(id).map(|c| self.quote(c))
    }

    /// Number of open contracts.
    pub fn open_contract_count(&self) -> usize {
        self.contracts.len()
    }

    /// The catalogue.
    pub fn products(&self) -> &[Product] {
        &self.products
    }

    /// A product by code.
    pub fn product(&self, symbol: Symbol) -> Option<&Product> {
        self.products.get(usize::from(*self.idx.symbol.get(&symbol)?))
    }

    /// The latest tick of a product.
    pub fn last_tick(&self, symbol: Symbol) -> Option<TickRef> {
        self.books.get(usize::from(*self.idx.symbol.get(&symbol)?))?.last
    }

    /// The trading rules, by duration.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The site settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Pending deposit orders.
    pub fn pending_deposits(&self) -> impl Iterator<Item = &DepositOrder> {
        self.deposits.values()
    }

    /// Where deposits are paid, per method.
    pub fn deposit_accounts(&self) -> &[DepositAccount] {
        &self.deposit_accounts
    }

    /// Withdrawal orders not yet final: pending, or processing (approved, being paid out).
    pub fn open_withdrawals(&self) -> impl Iterator<Item = &WithdrawOrder> {
        self.withdrawals.values()
    }

    /// House balance and conservation counters.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// The users invited by `user` in generations 1, 2 and 3.
    pub fn team(&self, user: UserId) -> [Vec<UserId>; 3] {
        let mut generations: [Vec<UserId>; 3] = Default::default();
        let Ok(root) = self.user_of(user) else { return generations };
        generations[0] = root.invitees.clone();
        for g in 1..3 {
            let (done, rest) = generations.split_at_mut(g);
            for &id in &done[g - 1] {
                if let Ok(u) = self.user_of(id) {
                    rest[0].extend_from_slice(&u.invitees);
                }
            }
        }
        generations
    }
}
