//! Snapshot and restore with rkyv, and the state hash.
//!
//! The snapshot is canonical: open contracts and orders are written sorted by id, and derived
//! lookups (indexes, books' queues) are left out and rebuilt. Equal states therefore give equal
//! bytes, and the state hash is a digest of those bytes.

use std::collections::BTreeMap;

use rkyv::with::{Inline, Map};
use rustc_hash::FxHashMap;

use crate::copy::{ArchivedCopyState, CopyBook, CopyState};
use crate::cow::{chunks_for, CowVec, ReadyChunks};
use crate::engine::{Book, Due, Indexes, Ledger, Pending};
use crate::sale::{SaleTerms, Volatility};
use crate::terms::Terms;
use crate::tournament::{ArchivedTournamentState, TournamentBook, TournamentState};
use crate::types::{
    Account, Admin, AlertId, Chain, Contract, ContractId, DepositAccount, DepositOrder,
    LimitsState, OrderId, PriceAlert, Product, Rule, SessionId, Settings, TickRef, User, UserId,
    Wallet, WithdrawOrder,
};
use crate::user_index::{lower_into, random_seed, wallet_digest, Key, UserIndex};
use crate::Engine;

/// The alignment a snapshot's archive is read at.
const ARCHIVE_ALIGN_BYTES: usize = 16;

/// The state hash of the state a snapshot's bytes hold.
pub(crate) fn snapshot_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Bumped whenever the layout below changes.
pub const SNAPSHOT_VERSION: u32 = 8;

/// The version of snapshots from before tournaments: a [`Base`], early close's and copy
/// trading's state. They still restore, with no tournament.
const SNAPSHOT_VERSION_BEFORE_TOURNAMENTS: u32 = 7;

/// The version of snapshots from before copy trading: a [`Base`] and early close's state.
/// They still restore, with nobody sharing or copying trades.
const SNAPSHOT_VERSION_BEFORE_COPY: u32 = 6;

/// The version of snapshots from before early close: a [`Base`] alone at the root. They still
/// restore, with the default early-close terms and empty volatility windows (which fill again
/// as ticks come).
const SNAPSHOT_VERSION_BEFORE_SALES: u32 = 5;

/// The persisted part of the engine: what version 5 held, then early close's state, copy
/// trading's, and tournaments'.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Debug)]
struct Snapshot {
    base: Base,
    sale: SaleState,
    copy: CopyState,
    tournaments: TournamentState,
}

/// The root of a version-7 snapshot.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Debug)]
struct SnapshotBeforeTournaments {
    base: Base,
    sale: SaleState,
    copy: CopyState,
}

/// The root of a version-6 snapshot.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Debug)]
struct SnapshotBeforeCopy {
    base: Base,
    sale: SaleState,
}

/// Early close's state: the terms and each product's volatility window, in catalogue order.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Debug, Clone)]
struct SaleState {
    terms: SaleTerms,
    windows: Vec<Volatility>,
}

/// Everything but early close, laid out exactly as the root of a version-5 snapshot.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Debug)]
struct Base {
    /// Layout version.
    version: u32,
    /// Index of the last applied command.
    applied_index: u64,
    /// Time of the last applied command.
    now_ms: u64,
    /// Users by id.
    users: Vec<User>,
    /// Accounts by id.
    accounts: Vec<AccountRecord>,
    /// Admins by id.
    admins: Vec<Admin>,
    products: Vec<Product>,
    /// Latest tick per product.
    last_ticks: Vec<Option<TickRef>>,
    rules: Vec<Rule>,
    settings: Settings,
    /// Where deposits are paid.
    deposit_accounts: Vec<DepositAccount>,
    /// Responsible-trading limits, by user.
    limits: Vec<(UserId, LimitsState)>,
    /// Waiting price alerts, sorted by id.
    alerts: Vec<PriceAlert>,
    /// Next price alert number.
    next_alert: AlertId,
    /// Open contracts, sorted by id.
    contracts: Vec<Contract>,
    /// Pending deposits, sorted by id.
    deposits: Vec<DepositOrder>,
    /// Pending withdrawals, sorted by id.
    withdrawals: Vec<WithdrawOrder>,
    /// House and counters.
    ledger: Ledger,
    /// Next contract number.
    next_contract: ContractId,
    /// Next order number.
    next_order: OrderId,
    /// Next session id.
    next_session: SessionId,
    /// The invite-code key.
    invite_key: u64,
    /// Seed and end of the chart history.
    chart_history: Option<(u64, u64)>,
}

/// The same layout as [`Snapshot`], serialised from borrowed state. `Inline` archives a
/// reference exactly as the value it points to, so the bytes deserialise as a `Snapshot`
/// (the round-trip tests check this).
#[derive(rkyv::Archive, rkyv::Serialize)]
struct SnapshotRef<'a> {
    base: BaseRef<'a>,
    #[rkyv(with = Inline)]
    sale: &'a SaleState,
    #[rkyv(with = Inline)]
    copy: &'a CopyState,
    #[rkyv(with = Inline)]
    tournaments: &'a TournamentState,
}

/// [`Base`] from borrowed state.
#[derive(rkyv::Archive, rkyv::Serialize)]
struct BaseRef<'a> {
    version: u32,
    applied_index: u64,
    now_ms: u64,
    #[rkyv(with = Map<Inline>)]
    users: Vec<&'a User>,
    accounts: Vec<AccountRecord>,
    #[rkyv(with = Inline)]
    admins: &'a Vec<Admin>,
    #[rkyv(with = Inline)]
    products: &'a Vec<Product>,
    #[rkyv(with = Inline)]
    last_ticks: &'a Vec<Option<TickRef>>,
    #[rkyv(with = Inline)]
    rules: &'a Vec<Rule>,
    #[rkyv(with = Inline)]
    settings: &'a Settings,
    #[rkyv(with = Inline)]
    deposit_accounts: &'a Vec<DepositAccount>,
    #[rkyv(with = Inline)]
    limits: &'a Vec<(UserId, LimitsState)>,
    #[rkyv(with = Inline)]
    alerts: &'a Vec<PriceAlert>,
    next_alert: AlertId,
    #[rkyv(with = Map<Inline>)]
    contracts: Vec<&'a Contract>,
    #[rkyv(with = Inline)]
    deposits: &'a Vec<DepositOrder>,
    #[rkyv(with = Inline)]
    withdrawals: &'a Vec<WithdrawOrder>,
    #[rkyv(with = Inline)]
    ledger: &'a Ledger,
    next_contract: ContractId,
    next_order: OrderId,
    next_session: SessionId,
    invite_key: u64,
    chart_history: Option<(u64, u64)>,
}

/// An account as snapshots hold it: the in-memory [`Account`] with its counts of pending
/// orders, the layout every snapshot version has used (so older snapshots, and the state hash,
/// stay as they were when the counts moved out of the hot record).
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Clone, Debug, PartialEq, Eq)]
struct AccountRecord {
    real: Wallet,
    demo: Wallet,
    open_real: u32,
    open_demo: u32,
    pending_deposits: u32,
    pending_withdrawals: u32,
    frozen: bool,
    inviter: Option<UserId>,
}

impl AccountRecord {
    fn of(account: &Account, pending: Pending) -> AccountRecord {
        AccountRecord {
            real: account.real.clone(),
            demo: account.demo.clone(),
            open_real: account.open_real,
            open_demo: account.open_demo,
            pending_deposits: pending.deposits,
            pending_withdrawals: pending.withdrawals,
            frozen: account.frozen,
            inviter: account.inviter(),
        }
    }

    /// The hot record; the pending counts are counted again from the orders themselves.
    fn account(self) -> Account {
        let mut account = Account::invited_by(self.inviter);
        account.real = self.real;
        account.demo = self.demo;
        account.open_real = self.open_real;
        account.open_demo = self.open_demo;
        account.frozen = self.frozen;
        account
    }
}

/// Each user's orders not yet decided, counted from the order lists.
fn count_pending<'a>(
    deposits: impl Iterator<Item = &'a DepositOrder>,
    withdrawals: impl Iterator<Item = &'a WithdrawOrder>,
) -> FxHashMap<UserId, Pending> {
    let mut pending: FxHashMap<UserId, Pending> = FxHashMap::default();
    for d in deposits {
        pending.entry(d.user).or_default().deposits += 1;
    }
    for w in withdrawals {
        pending.entry(w.user).or_default().withdrawals += 1;
    }
    pending
}

/// One archived value deserialised; an archive that validated deserialises, but for memory.
fn de<T>(archived: &T::Archived) -> Result<T, SnapshotError>
where
    T: rkyv::Archive,
    T::Archived: rkyv::Deserialize<T, rkyv::api::high::HighDeserializer<rkyv::rancor::Error>>,
{
    rkyv::deserialize::<T, rkyv::rancor::Error>(archived)
        .map_err(|e| SnapshotError::Invalid(e.to_string()))
}

/// The users' records, and the lookups of users by lower-case username, lower-case e-mail,
/// bound wallet and invite code.
struct UserLookups {
    users: CowVec<User>,
    username: UserIndex<str>,
    email: UserIndex<str>,
    wallet: UserIndex<(Chain, String)>,
    invite: UserIndex<u64>,
}

/// The users and their lookups, read from the archived users: each user's record and the
/// digests of their keys in one pass, then the digests sorted (see [`UserIndex`]).
fn user_lookups(archived: &rkyv::Archived<Vec<User>>) -> Result<UserLookups, SnapshotError> {
    let users: CowVec<User> = archived.iter().map(de::<User>).collect::<Result<_, _>>()?;
    let n = users.len();
    let seed = random_seed();
    let (mut names, mut emails, mut invites) =
        (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let mut wallets = Vec::new();
    let mut lower = String::new();
    for u in users.iter() {
        let id = u.id;
        lower_into(&u.username, &mut lower);
        names.push((lower.as_str().digest(seed), id));
        if let Some(e) = &u.email {
            lower_into(e, &mut lower);
            emails.push((lower.as_str().digest(seed), id));
        }
        if let Some(w) = &u.wallet {
            wallets.push((wallet_digest(w.chain, &w.address, seed), id));
        }
        if let Some(key) = crate::identity::invite_key(&u.invite_code) {
            invites.push((key, id));
        }
    }
    Ok(UserLookups {
        users,
        username: UserIndex::restored(names, seed),
        email: UserIndex::restored(emails, seed),
        wallet: UserIndex::restored(wallets, seed),
        invite: UserIndex::restored(invites, seed),
    })
}

/// The user lookups of a restore, still being built on their own thread.
pub(crate) struct PendingLookups<'scope>(
    std::thread::ScopedJoinHandle<'scope, Result<UserLookups, SnapshotError>>,
);

/// Why snapshot bytes could not be restored.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The bytes are not a valid archive of this layout.
    #[error("snapshot is not a valid archive: {0}")]
    Invalid(String),
    /// The archive was written by another layout version.
    #[error("snapshot version {found} is not {expected}")]
    Version {
        /// Found in the bytes.
        found: u32,
        /// This build's version.
        expected: u32,
    },
}

/// The parts of a snapshot of any version: the base, and the state the version has beside it.
struct Parts<'a> {
    base: &'a ArchivedBase,
    sale: Option<&'a ArchivedSaleState>,
    copy: Option<&'a ArchivedCopyState>,
    tournaments: Option<&'a ArchivedTournamentState>,
}

/// The state at one moment, frozen: the big tables shared with the live engine chunk by chunk
/// (copy-on-write), the small ones copied. Taking it stops the engine for microseconds; its
/// bytes are then written on any thread while the engine goes on applying.
#[derive(Debug)]
pub struct Frozen {
    applied_index: u64,
    now_ms: u64,
    users: CowVec<User>,
    pub(crate) accounts: CowVec<Account>,
    admins: Vec<Admin>,
    products: Vec<Product>,
    last_ticks: Vec<Option<TickRef>>,
    rules: Vec<Rule>,
    settings: Settings,
    deposit_accounts: Vec<DepositAccount>,
    limits: Vec<(UserId, LimitsState)>,
    alerts: Vec<PriceAlert>,
    next_alert: AlertId,
    pub(crate) contracts: CowVec<Option<Contract>>,
    pub(crate) deposits: Vec<DepositOrder>,
    pub(crate) withdrawals: Vec<WithdrawOrder>,
    pub(crate) ledger: Ledger,
    next_contract: ContractId,
    next_order: OrderId,
    next_session: SessionId,
    invite_key: u64,
    chart_history: Option<(u64, u64)>,
    sale: SaleState,
    copy: CopyState,
    tournaments: TournamentState,
}

impl Frozen {
    /// Index of the last command the frozen state includes.
    pub fn applied_index(&self) -> u64 {
        self.applied_index
    }

    /// The canonical rkyv bytes of the frozen state (what [`Engine::snapshot_bytes`] gives).
    /// Serialises through references: only the open contracts are gathered and sorted by id.
    pub fn bytes(&self) -> Vec<u8> {
        let mut contracts: Vec<&Contract> = self.contracts.iter().flatten().collect();
        contracts.sort_unstable_by_key(|c| c.id);
        let pending = count_pending(self.deposits.iter(), self.withdrawals.iter());
        let accounts = (self.accounts.iter().enumerate())
            .map(|(slot, a)| {
                let pending = pending.get(&UserId::from_slot(slot)).copied().unwrap_or_default();
                AccountRecord::of(a, pending)
            })
            .collect();
        let base = BaseRef {
            version: SNAPSHOT_VERSION,
            applied_index: self.applied_index,
            now_ms: self.now_ms,
            users: self.users.iter().collect(),
            accounts,
            admins: &self.admins,
            products: &self.products,
            last_ticks: &self.last_ticks,
            rules: &self.rules,
            settings: &self.settings,
            deposit_accounts: &self.deposit_accounts,
            limits: &self.limits,
            alerts: &self.alerts,
            next_alert: self.next_alert,
            contracts,
            deposits: &self.deposits,
            withdrawals: &self.withdrawals,
            ledger: &self.ledger,
            next_contract: self.next_contract,
            next_order: self.next_order,
            next_session: self.next_session,
            invite_key: self.invite_key,
            chart_history: self.chart_history,
        };
        let snapshot = SnapshotRef {
            base,
            sale: &self.sale,
            copy: &self.copy,
            tournaments: &self.tournaments,
        };
        // Straight into a Vec sized from the counts: no doubling, no copy out of an AlignedVec.
        // Positions in the archive are relative, and restore copies into an aligned buffer.
        let estimate = 512 * self.users.len() + 192 * snapshot.base.contracts.len() + (1 << 16);
        match rkyv::api::high::to_bytes_in::<_, rkyv::rancor::Error>(
            &snapshot,
            Vec::with_capacity(estimate),
        ) {
            Ok(bytes) => bytes,
            // Serialising plain data into a growable buffer cannot fail but for allocation.
            Err(e) => panic!("snapshot serialisation failed: {e}"),
        }
    }
}

impl Engine {
    /// The whole state as canonical rkyv bytes.
    pub fn snapshot_bytes(&self) -> Vec<u8> {
        self.frozen().bytes()
    }

    /// The state now, to serialise later or elsewhere ([`Frozen::bytes`]). Costs a pointer per
    /// chunk of the big tables and a copy of the small ones; the engine then copies a chunk
    /// the first time it writes to it while the frozen state lives.
    pub fn frozen(&self) -> Frozen {
        Frozen {
            applied_index: self.applied_index,
            now_ms: self.now_ms,
            users: self.users.clone(),
            accounts: self.accounts.clone(),
            admins: self.admins.clone(),
            products: self.products.clone(),
            last_ticks: self.books.iter().map(|b| b.last).collect(),
            rules: self.rules.clone(),
            settings: self.settings.clone(),
            deposit_accounts: self.deposit_accounts.clone(),
            limits: self.limits.iter().map(|(&u, l)| (u, l.clone())).collect(),
            alerts: self.alerts.values().cloned().collect(),
            next_alert: self.next_alert,
            contracts: self.contracts.frozen(),
            deposits: self.deposits.values().cloned().collect(),
            withdrawals: self.withdrawals.values().cloned().collect(),
            ledger: self.ledger.clone(),
            next_contract: self.next_contract,
            next_order: self.next_order,
            next_session: self.next_session,
            invite_key: self.invite_key,
            chart_history: self.chart_history,
            sale: SaleState {
                terms: self.sale_terms.clone(),
                windows: self.books.iter().map(|b| b.volatility.clone()).collect(),
            },
            copy: self.copy.state(),
            tournaments: self.tournaments.state(),
        }
    }

    /// Rebuilds an engine from `snapshot_bytes` output, validating the archive first.
    pub fn restore(bytes: &[u8]) -> Result<Engine, SnapshotError> {
        // Read in place when the bytes are aligned as the archive needs (every allocator here
        // gives 16 bytes): a copy of half a gigabyte is a tenth of a restore, more in a fresh
        // process whose pages are touched for the first time.
        let copy;
        let aligned = if bytes.as_ptr().align_offset(ARCHIVE_ALIGN_BYTES) == 0 {
            bytes
        } else {
            let mut buffer =
                rkyv::util::AlignedVec::<ARCHIVE_ALIGN_BYTES>::with_capacity(bytes.len());
            buffer.extend_from_slice(bytes);
            copy = buffer;
            &copy[..]
        };
        std::thread::scope(|scope| {
            // Waited for at once: the helper keeps the caller's priority.
            let (mut engine, lookups) = Engine::restore_within(aligned, scope, || {})?;
            if let Some(lookups) = lookups {
                engine.complete_restore(lookups)?;
            }
            Ok(engine)
        })
    }

    /// [`Engine::restore`] but for the users' records and their lookups by name, e-mail, wallet
    /// and invite code, which a thread of `scope` reads meanwhile: at a million users, a million
    /// records of a few strings each and three million keys, the largest part of a restore,
    /// that trading never reads (`Engine::needs_users`). The caller hands them over with
    /// [`Engine::complete_restore`] before the engine applies any other command or answers
    /// anyone. Unaligned bytes are restored whole. The thread calls `on_helper` first (a
    /// caller that goes on beside it lowers its priority there).
    pub(crate) fn restore_within<'scope, 'env>(
        bytes: &'env [u8],
        scope: &'scope std::thread::Scope<'scope, 'env>,
        on_helper: fn(),
    ) -> Result<(Engine, Option<PendingLookups<'scope>>), SnapshotError> {
        if bytes.as_ptr().align_offset(ARCHIVE_ALIGN_BYTES) != 0 {
            return Ok((Engine::restore(bytes)?, None));
        }
        let Parts { base: s, sale, copy, tournaments } = Self::parts(bytes)?;
        let lookups = std::thread::Builder::new().name("restore-names".into()).spawn_scoped(
            scope,
            move || {
                on_helper();
                user_lookups(&s.users)
            },
        );
        let parts = Parts { base: s, sale, copy, tournaments };
        let engine = Engine::from_archive(s, parts, scope)?;
        match lookups {
            Ok(thread) => Ok((engine, Some(PendingLookups(thread)))),
            // No thread to spare: built here instead.
            Err(_) => {
                let mut engine = engine;
                engine.install_lookups(user_lookups(&s.users)?);
                Ok((engine, None))
            }
        }
    }

    /// Waits for the user lookups a [`Engine::restore_within`] left to its thread and puts them
    /// in place.
    pub(crate) fn complete_restore(
        &mut self,
        lookups: PendingLookups<'_>,
    ) -> Result<(), SnapshotError> {
        let lookups = lookups.0.join().expect("building the user lookups does not panic")?;
        self.install_lookups(lookups);
        Ok(())
    }

    fn install_lookups(&mut self, lookups: UserLookups) {
        self.users = lookups.users;
        let idx = &mut self.idx;
        (idx.username, idx.email) = (lookups.username, lookups.email);
        (idx.wallet, idx.invite) = (lookups.wallet, lookups.invite);
    }

    /// The parts of a snapshot of this version or an older one: the base, and early close's,
    /// copy trading's and tournaments' state where the version has them.
    fn parts(aligned: &[u8]) -> Result<Parts<'_>, SnapshotError> {
        let newest = match rkyv::access::<ArchivedSnapshot, rkyv::rancor::Error>(aligned) {
            Ok(s) if s.base.version == SNAPSHOT_VERSION => {
                return Ok(Parts {
                    base: &s.base,
                    sale: Some(&s.sale),
                    copy: Some(&s.copy),
                    tournaments: Some(&s.tournaments),
                });
            }
            Ok(snapshot) => Err(snapshot.base.version.to_native()),
            Err(error) => Ok(error),
        };
        let version = |found: u32| SnapshotError::Version { found, expected: SNAPSHOT_VERSION };
        match rkyv::access::<ArchivedSnapshotBeforeTournaments, rkyv::rancor::Error>(aligned) {
            Ok(s) if s.base.version == SNAPSHOT_VERSION_BEFORE_TOURNAMENTS => {
                let (sale, copy) = (Some(&s.sale), Some(&s.copy));
                return Ok(Parts { base: &s.base, sale, copy, tournaments: None });
            }
            Ok(s) => return Err(version(s.base.version.to_native())),
            Err(_) => {}
        }
        match rkyv::access::<ArchivedSnapshotBeforeCopy, rkyv::rancor::Error>(aligned) {
            Ok(s) if s.base.version == SNAPSHOT_VERSION_BEFORE_COPY => {
                return Ok(Parts {
                    base: &s.base,
                    sale: Some(&s.sale),
                    copy: None,
                    tournaments: None,
                });
            }
            Ok(s) => return Err(version(s.base.version.to_native())),
            Err(_) => {}
        }
        match rkyv::access::<ArchivedBase, rkyv::rancor::Error>(aligned) {
            Ok(base) if base.version == SNAPSHOT_VERSION_BEFORE_SALES => {
                Ok(Parts { base, sale: None, copy: None, tournaments: None })
            }
            Ok(base) => Err(version(base.version.to_native())),
            Err(_) => Err(match newest {
                Ok(error) => SnapshotError::Invalid(error.to_string()),
                Err(found) => version(found),
            }),
        }
    }

    /// The engine an archive holds, with every derived lookup but the users' rebuilt.
    fn from_archive<'scope>(
        s: &ArchivedBase,
        parts: Parts<'_>,
        scope: &'scope std::thread::Scope<'scope, '_>,
    ) -> Result<Engine, SnapshotError> {
        // Started first, so that their memory is being written while the rest is read.
        let ready_accounts = ReadyChunks::spawn(scope, chunks_for(s.accounts.len()));
        let ready_contracts = ReadyChunks::spawn(scope, chunks_for(s.contracts.len()));
        let Parts { sale, copy, tournaments, .. } = parts;
        let tournaments = match tournaments {
            Some(t) => TournamentBook::of(de::<TournamentState>(t)?),
            None => TournamentBook::default(),
        };
        let copy = match copy {
            Some(copy) => CopyBook::of(de::<CopyState>(copy)?),
            None => CopyBook::default(),
        };
        let sale = match sale {
            Some(sale) => de::<SaleState>(sale)?,
            None => SaleState { terms: SaleTerms::default(), windows: Vec::new() },
        };
        let mut accounts: CowVec<Account> = CowVec::default();
        accounts.reserve(s.accounts.len());
        for a in s.accounts.iter() {
            accounts.push_ready(de::<AccountRecord>(a)?.account(), ready_accounts.as_ref());
        }
        drop(ready_accounts);
        let (rules, settings) = (de::<Vec<Rule>>(&s.rules)?, de::<Settings>(&s.settings)?);
        let limits: Vec<(UserId, LimitsState)> = de(&s.limits)?;
        let deposits: Vec<DepositOrder> = de(&s.deposits)?;
        let withdrawals: Vec<WithdrawOrder> = de(&s.withdrawals)?;
        let last_ticks: Vec<Option<TickRef>> = de(&s.last_ticks)?;
        let mut engine = Engine {
            applied_index: de(&s.applied_index)?,
            now_ms: de(&s.now_ms)?,
            // Read with their lookups on a thread of their own: trading does without them.
            users: CowVec::default(),
            accounts,
            admins: de(&s.admins)?,
            books: last_ticks.into_iter().map(|last| Book { last, ..Book::default() }).collect(),
            products: de(&s.products)?,
            terms: Terms::of(&rules, &settings),
            rules,
            settings,
            deposit_accounts: de(&s.deposit_accounts)?,
            limits: limits.into_iter().collect(),
            alerts: BTreeMap::new(),
            next_alert: de(&s.next_alert)?,
            contracts: Default::default(),
            deposits: deposits.into_iter().map(|d| (d.id, d)).collect::<BTreeMap<_, _>>(),
            withdrawals: withdrawals.into_iter().map(|w| (w.id, w)).collect(),
            ledger: de(&s.ledger)?,
            next_contract: de(&s.next_contract)?,
            next_order: de(&s.next_order)?,
            next_session: de(&s.next_session)?,
            invite_key: de(&s.invite_key)?,
            chart_history: de(&s.chart_history)?,
            sale_terms: sale.terms,
            copy,
            tournaments,
            idx: Indexes::default(),
            quiet: false,
        };
        for (book, window) in engine.books.iter_mut().zip(sale.windows) {
            book.volatility = window;
        }
        engine.idx.pending = count_pending(engine.deposits.values(), engine.withdrawals.values());
        engine.mark_leaders()?;
        engine.rebuild_indexes(&s.contracts, ready_contracts.as_ref())?;
        engine.restore_alerts(de(&s.alerts)?);
        // The sum of the open contracts' reserves, each kept to the cent (a snapshot from
        // before integer money held them at more decimals, rounded up as they were read).
        engine.ledger.house_reserved = engine
            .contracts
            .iter()
            .filter(|c| c.account == crate::types::AccountKind::Real)
            .map(|c| c.reserved)
            .sum();
        Ok(engine)
    }

    /// Sets the flag of every leader someone copies, after checking that copy trading and the
    /// tournaments name only users the snapshot holds.
    fn mark_leaders(&mut self) -> Result<(), SnapshotError> {
        let users = self.accounts.len();
        let known = |u: &UserId| u.slot().is_some_and(|slot| slot < users);
        let leaders: Vec<UserId> = (self.copy.leaders.values())
            .filter(|l| !l.followers.is_empty())
            .map(|l| l.user)
            .collect();
        let copying = self.copy.following.keys();
        if !leaders.iter().all(known) || !copying.into_iter().all(known) {
            return Err(SnapshotError::Invalid("copy trading names an unknown user".into()));
        }
        if !self.tournaments().flat_map(|t| &t.seats).all(|s| known(&s.user)) {
            return Err(SnapshotError::Invalid("a tournament seats an unknown user".into()));
        }
        for leader in leaders {
            self.account_mut(leader).leads = true;
        }
        Ok(())
    }

    /// Rebuilds the derived lookups but the users', and the books' queues, from the persisted
    /// state, deserialising each contract straight into its slot (a vector of a million
    /// contracts between the two was 120 MB of fresh memory to fill and drop).
    fn rebuild_indexes(
        &mut self,
        contracts: &rkyv::Archived<Vec<Contract>>,
        ready: Option<&ReadyChunks<Option<Contract>>>,
    ) -> Result<(), SnapshotError> {
        let Engine { idx, contracts: slab, books, admins, products, .. } = self;
        for a in admins.iter() {
            idx.admin_name.insert(a.username.to_lowercase(), a.id);
        }
        for (at, p) in products.iter().enumerate() {
            idx.symbol.insert(p.symbol, at as u16);
        }
        slab.reserve(contracts.len());
        // Sorted by id = acceptance order, so waiting queues come back in the same order.
        for c in contracts.iter() {
            let c = de::<Contract>(c)?;
            let (product, entered, duration_ms, expiry_ms, user) =
                (usize::from(c.product), c.entry.is_some(), c.duration_ms, c.expiry_ms, c.user);
            let at = slab.push_new(c, ready);
            let book = &mut books[product];
            if entered {
                book.schedule(duration_ms, Due { expiry_ms, at, user });
            } else {
                book.waiting.push_back(at);
            }
        }
        Ok(())
    }

    /// Puts restored price alerts back with their indexes (sorted by id, so each user's
    /// list comes back oldest first).
    fn restore_alerts(&mut self, alerts: Vec<PriceAlert>) {
        for alert in alerts {
            if let Some(&at) = self.idx.symbol.get(&alert.symbol) {
                self.index_alert(usize::from(at), &alert);
            }
            self.idx.user_alerts.entry(alert.user).or_default().push(alert.id);
            self.alerts.insert(alert.id, alert);
        }
    }

    /// A digest of the whole state: equal states, equal hashes, on every run and node.
    pub fn state_hash(&self) -> u64 {
        snapshot_hash(&self.snapshot_bytes())
    }

    /// A digest of everything but the log position and the clock: a refused command, which
    /// still advances both, must leave it unchanged.
    pub fn content_hash(&self) -> u64 {
        let mut frozen = self.frozen();
        (frozen.applied_index, frozen.now_ms) = (0, 0);
        xxhash_rust::xxh3::xxh3_64(&frozen.bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{AdminAction, Command};
    use crate::types::AdminId;
    use crate::Stamp;

    /// The borrowed layout must produce exactly the bytes of the owned one, or restore breaks.
    #[test]
    fn borrowed_and_owned_layouts_give_identical_bytes() {
        let mut engine = Engine::new();
        let mut events = crate::Events::new();
        let mut index = 0;
        let mut run = |engine: &mut Engine, command: Command| {
            index += 1;
            engine.apply(Stamp { index, time_ms: 1_000 * index }, command, &mut events).unwrap();
        };
        run(
            &mut engine,
            Command::BootstrapAdmin { username: "root".into(), password_hash: "h".into() },
        );
        let action = AdminAction::FundHouse { amount: rust_decimal::Decimal::from(1_000) };
        run(&mut engine, Command::Admin { admin: AdminId(1), action: Box::new(action) });
        let account = crate::types::DepositAccount {
            method: crate::types::PayMethod::UsdtTrc20,
            name: "Platform".into(),
            number: "TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz".into(),
            bank: String::new(),
        };
        let action = AdminAction::SetDepositAccounts(vec![account]);
        run(&mut engine, Command::Admin { admin: AdminId(1), action: Box::new(action) });
        let base = Base {
            version: SNAPSHOT_VERSION,
            applied_index: engine.applied_index,
            now_ms: engine.now_ms,
            users: engine.users.iter().cloned().collect(),
            accounts: (engine.accounts.iter().enumerate())
                .map(|(slot, a)| AccountRecord::of(a, engine.pending(UserId::from_slot(slot))))
                .collect(),
            admins: engine.admins.clone(),
            products: engine.products.clone(),
            last_ticks: engine.books.iter().map(|b| b.last).collect(),
            rules: engine.rules.clone(),
            settings: engine.settings.clone(),
            deposit_accounts: engine.deposit_accounts.clone(),
            limits: Vec::new(),
            alerts: Vec::new(),
            next_alert: engine.next_alert,
            contracts: Vec::new(),
            deposits: Vec::new(),
            withdrawals: Vec::new(),
            ledger: engine.ledger.clone(),
            next_contract: engine.next_contract,
            next_order: engine.next_order,
            next_session: engine.next_session,
            invite_key: engine.invite_key,
            chart_history: engine.chart_history,
        };
        let sale = SaleState {
            terms: engine.sale_terms.clone(),
            windows: engine.books.iter().map(|b| b.volatility.clone()).collect(),
        };
        let owned = Snapshot {
            base,
            sale,
            copy: engine.copy.state(),
            tournaments: engine.tournaments.state(),
        };
        let owned_bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&owned).unwrap().into_vec();
        assert_eq!(engine.snapshot_bytes(), owned_bytes);
    }

    /// A restored engine finds each user by name, e-mail, wallet and invite code as the one
    /// it was taken from did (the lookups are rebuilt, not stored).
    #[test]
    fn a_restore_finds_users_by_every_lookup() {
        use crate::command::Register;
        use crate::types::{Chain, WalletBinding};
        let mut engine = Engine::new();
        let mut events = crate::Events::new();
        let register = |username: &str, email: Option<&str>, wallet: Option<WalletBinding>| {
            Command::Register(Box::new(Register {
                username: username.into(),
                email: email.map(Into::into),
                password_hash: email.map(|_| "h".into()),
                wallet,
                invite_code: None,
                email_verified: true,
            }))
        };
        let address = "0x52908400098527886e0f7030069857d2e4169ee7";
        let wallet = WalletBinding { chain: Chain::Eth, address: address.into() };
        let commands = [
            register("Alice", Some("Alice@Example.com"), None),
            register("bob_w", None, Some(wallet)),
        ];
        for (index, command) in (1..).zip(commands) {
            engine.apply(Stamp { index, time_ms: 1_000 * index }, command, &mut events).unwrap();
        }
        let restored = Engine::restore(&engine.snapshot_bytes()).expect("restores");
        let alice = engine.user_by_username("alice").expect("alice").id;
        let bob = engine.user_by_wallet(Chain::Eth, address).expect("bob").id;
        for e in [&engine, &restored] {
            assert_eq!(e.user_by_username("ALICE").map(|u| u.id), Some(alice));
            assert_eq!(e.user_by_email("alice@example.com").map(|u| u.id), Some(alice));
            assert_eq!(e.user_by_wallet(Chain::Eth, address).map(|u| u.id), Some(bob));
            assert_eq!(e.user_by_wallet(Chain::Tron, address).map(|u| u.id), None);
            for user in [alice, bob] {
                let code = &engine.user(user).unwrap().invite_code;
                assert_eq!(e.user_by_invite_code(code).map(|u| u.id), Some(user));
            }
        }
    }

    /// Trading applied while a restore's user lookups are still being built, then the
    /// lookups handed over, gives the state of the engine the snapshot was taken from after
    /// the same commands, lookups included.
    #[test]
    fn trading_goes_on_while_the_users_are_read() {
        use crate::command::{PlaceOrder, Register};
        use crate::types::{Category, Direction, MarketHours, Symbol};
        let btc = Symbol::new("BTCUSDT").unwrap();
        let dec = |n: i64| rust_decimal::Decimal::from(n);
        let mut engine = Engine::new();
        let mut events = crate::Events::new();
        let mut log = Vec::new();
        let mut run = |engine: &mut Engine, log: &mut Vec<(Stamp, Command)>, command: Command| {
            let index = engine.applied_index() + 1;
            let stamp = Stamp { index, time_ms: 1_700_000_000_000 + 1_000 * index };
            log.push((stamp, command.clone()));
            engine.apply(stamp, command, &mut events).unwrap();
        };
        let admin =
            |action: AdminAction| Command::Admin { admin: AdminId(1), action: Box::new(action) };
        let register = |username: &str| {
            Command::Register(Box::new(Register {
                username: username.into(),
                email: Some(format!("{username}@example.com")),
                password_hash: Some("h".into()),
                wallet: None,
                invite_code: None,
                email_verified: true,
            }))
        };
        let setup = [
            Command::BootstrapAdmin { username: "root".into(), password_hash: "h".into() },
            admin(AdminAction::FundHouse { amount: dec(1_000_000) }),
            admin(AdminAction::UpsertProduct {
                symbol: btc,
                name: "Bitcoin".into(),
                category: Category::Crypto,
                precision: 2,
                enabled: true,
                hours: MarketHours::Always,
            }),
            register("Alice"),
            register("Bob"),
        ];
        for command in setup {
            run(&mut engine, &mut log, command);
        }
        let bytes = engine.snapshot_bytes();
        let mut aligned = rkyv::util::AlignedVec::<16>::new();
        aligned.extend_from_slice(&bytes);
        let order = |user: u32, direction: Direction| {
            Command::PlaceOrder(PlaceOrder {
                user: UserId(user),
                account: crate::types::AccountKind::Demo,
                symbol: btc,
                direction,
                stake: dec(10),
                duration_secs: 60,
            })
        };
        let tick = |price: i64| Command::Tick { symbol: btc, price: dec(price), quantity: dec(1) };
        let trading = [order(1, Direction::Up), order(2, Direction::Down), tick(100), tick(101)];
        let from = log.len();
        for command in trading {
            run(&mut engine, &mut log, command);
        }
        for _ in 0..60 {
            run(&mut engine, &mut log, tick(102));
        }
        assert!(engine.contracts.iter().next().is_none(), "both contracts settled");
        std::thread::scope(|scope| {
            let (mut restored, lookups) = Engine::restore_within(&aligned, scope, || {}).unwrap();
            let lookups = lookups.expect("the lookups are left to their thread");
            for (stamp, command) in log[from..].iter().cloned() {
                assert!(!Engine::needs_users(&command));
                restored.apply(stamp, command, &mut events).unwrap();
            }
            restored.complete_restore(lookups).unwrap();
            assert_eq!(restored.state_hash(), engine.state_hash());
            let alice = restored.user_by_email("ALICE@example.com").map(|u| u.id);
            assert_eq!(alice, Some(UserId(1)));
            assert_eq!(restored.user_by_username("bob").map(|u| u.id), Some(UserId(2)));
        });
        assert!(Engine::needs_users(&register("Carol")));
        assert!(Engine::needs_users(&Command::EndSession { user: UserId(1), session: 1 }));
    }

    /// Bytes at any address restore: in place when aligned, from a copy when not.
    #[test]
    fn restores_from_aligned_and_unaligned_bytes() {
        let mut engine = Engine::new();
        let command =
            Command::BootstrapAdmin { username: "root".into(), password_hash: "h".into() };
        engine
            .apply(Stamp { index: 1, time_ms: 1_000 }, command, &mut crate::Events::new())
            .unwrap();
        let bytes = engine.snapshot_bytes();
        let mut buffer = rkyv::util::AlignedVec::<16>::with_capacity(bytes.len() + 1);
        buffer.extend_from_slice(&[0]);
        buffer.extend_from_slice(&bytes);
        let unaligned = &buffer[1..];
        assert_ne!(unaligned.as_ptr().align_offset(16), 0);
        let mut aligned = rkyv::util::AlignedVec::<16>::new();
        aligned.extend_from_slice(&bytes);
        for input in [&aligned[..], unaligned] {
            let restored = Engine::restore(input).expect("restores");
            assert_eq!(restored.state_hash(), engine.state_hash());
        }
    }
}
