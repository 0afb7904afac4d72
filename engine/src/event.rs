//! What the engine says back: a reply per command, and events for everything that changed.
//! Events carry enough for the websocket fan-out and for a read model of history (bills,
//! settled contracts, orders, audit), so nothing has to read engine internals after the fact.

use rust_decimal::Decimal;

use crate::money::Money;

use crate::types::{
    AccountKind, AdminId, BillType, Contract, ContractId, DepositOrder, OrderId, OrderStatus,
    Outcome, PriceAlert, Principal, SessionId, Symbol, TickRef, UserId, Wallet, WithdrawOrder,
};

/// The successful answer to a command.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reply {
    /// Done; nothing to report.
    Done,
    /// A user was created.
    Registered {
        /// The new UID.
        user: UserId,
        /// Their invite code.
        invite_code: String,
    },
    /// A session was created.
    SessionCreated {
        /// Session id for the token.
        session: SessionId,
        /// When it expires (ms).
        expires_ms: u64,
    },
    /// An admin was created.
    AdminCreated {
        /// The new admin id.
        admin: AdminId,
    },
    /// An order was accepted and waits for its entry tick.
    OrderAccepted {
        /// Order number.
        contract: ContractId,
        /// Fee charged.
        fee: Money,
    },
    /// A deposit or withdrawal order was created.
    OrderCreated {
        /// Order number.
        order: OrderId,
    },
    /// A price alert was set.
    AlertCreated {
        /// The alert as the engine keeps it (number, direction, time).
        alert: Box<PriceAlert>,
    },
    /// An authenticator code was accepted (its time step can never be used again).
    TwoFactorAccepted,
    /// A wrong or reused authenticator code was counted.
    TwoFactorRejected {
        /// The code was right but its time step was used already.
        reused: bool,
        /// This failure paused two-factor actions until then (ms); none if it did not.
        locked_until_ms: Option<u64>,
    },
    /// A contract was sold back.
    Sold {
        /// Order number.
        contract: ContractId,
        /// What the sale paid.
        credited: Money,
    },
    /// A tournament was created as a draft.
    TournamentCreated {
        /// Its number.
        tournament: crate::tournament::TournamentId,
    },
    /// A tick or timer was applied.
    Clock {
        /// Contracts that received their entry.
        entered: u32,
        /// Contracts settled (including voids).
        settled: u32,
    },
}

/// The result of one command.
pub type CommandResult = Result<Reply, crate::EngineError>;

/// A change of one wallet. When `bill` is set the total changed and this is a bill line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalletChange {
    pub user: UserId,
    /// Which wallet.
    pub account: AccountKind,
    /// The bill type when the total changed; none for moves inside the wallet (stake locked).
    pub bill: Option<BillType>,
    /// Signed change of the total.
    pub amount: Money,
    /// The wallet after the change.
    pub wallet: Wallet,
    /// Contract or order that caused it (0 for none).
    pub reference: u64,
}

/// A settled contract as the event list holds it: the exit tick and the owner's wallet inline,
/// the rest in the batch's [`Events`] beside the list ([`Events::settlement`] joins them).
///
/// Laid out for a tick that settles a million contracts: each one writes an 80-byte event and
/// a 160-byte record into buffers the pipeline reuses from batch to batch, and allocates
/// nothing. It is also the owner's wallet change (there is no separate `Wallet` event for it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement {
    /// Where the contract and how it ended sit in the batch's settled records.
    closed: u32,
    /// The exit tick (none for a void without one).
    pub exit: Option<TickRef>,
    /// The owner's wallet after the credit.
    pub wallet: Wallet,
}

/// The contract and how it ended: a [`Settlement`]'s part kept beside the event list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettledContract {
    /// The contract as it was open.
    pub contract: Contract,
    /// Product code.
    pub symbol: Symbol,
    /// How it ended.
    pub outcome: Outcome,
    /// Credited to available: payout on a win, stake on a tie, stake + fee on a void, the
    /// offer on a sale.
    pub credited: Money,
    /// Sequencer time of settlement (ms).
    pub settled_ms: u64,
    /// The leader this contract copied, if it is a copy (four bytes: no user has id 0).
    pub(crate) leader: Option<std::num::NonZeroU32>,
}

impl SettledContract {
    /// The leader this contract copied, if it is a copy.
    pub fn leader(&self) -> Option<UserId> {
        self.leader.map(|u| UserId(u.get()))
    }
}

/// A settled contract whole: the event's inline part with its record. It derefs to the
/// record, so readers write `settled.contract` and `settled.exit` alike.
#[derive(Debug, Clone, Copy)]
pub struct Settled<'a> {
    /// The contract and how it ended.
    pub closed: &'a SettledContract,
    /// The exit tick (none for a void without one).
    pub exit: Option<TickRef>,
    /// The owner's wallet after the credit.
    pub wallet: &'a Wallet,
}

impl std::ops::Deref for Settled<'_> {
    type Target = SettledContract;

    fn deref(&self) -> &SettledContract {
        self.closed
    }
}

impl Settled<'_> {
    /// Net result for the user: credited - stake - fee.
    pub fn profit(&self) -> Money {
        self.credited - self.contract.stake - self.contract.fee
    }

    /// The owner's wallet change: a profit or a loss bill, a refunded fee for a void, and no
    /// bill for a tie (the stake only returns to available).
    pub fn wallet_change(&self) -> WalletChange {
        let Contract { stake, fee, .. } = self.contract;
        let (bill, amount) = match self.outcome {
            Outcome::Win => (Some(BillType::Profit), self.credited - stake),
            Outcome::Loss => (Some(BillType::Loss), -stake),
            Outcome::Tie => (None, Money::ZERO),
            Outcome::Sold => (Some(BillType::Sale), self.credited - stake),
            _ if fee.is_zero() => (None, Money::ZERO),
            _ => (Some(BillType::Refund), fee),
        };
        WalletChange {
            user: self.contract.user,
            account: self.contract.account,
            bill,
            amount,
            wallet: self.wallet.clone(),
            reference: self.contract.id.get(),
        }
    }
}

/// A contract as accepted, kept beside the event list ([`Events::opened`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opened(u32);

/// What one batch of commands changed: the events in order, and the large parts of the two
/// most frequent ones (an accepted order's contract, a settlement's record) in lists of their
/// own beside them. The pipeline clears and reuses a buffer once every reader has let go of
/// it, so a steady stream of orders and settlements allocates nothing per command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Events {
    list: Vec<Event>,
    opened: Vec<Contract>,
    settled: Vec<SettledContract>,
}

impl Events {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends an event.
    pub fn push(&mut self, event: Event) {
        self.list.push(event);
    }

    /// Appends events.
    pub fn extend(&mut self, events: impl IntoIterator<Item = Event>) {
        self.list.extend(events);
    }

    /// Drops every event, keeping the memory.
    pub fn clear(&mut self) {
        self.list.clear();
        self.opened.clear();
        self.settled.clear();
    }

    /// Appends a contract just accepted.
    pub(crate) fn push_opened(
        &mut self,
        contract: Contract,
        symbol: Symbol,
        leader: Option<UserId>,
        tournament: Option<crate::tournament::TournamentId>,
    ) {
        self.opened.push(contract);
        let contract = Opened(index_of(self.opened.len()));
        self.list.push(Event::ContractOpened { contract, symbol, leader, tournament });
    }

    /// Appends a settlement.
    pub(crate) fn push_settled(
        &mut self,
        closed: SettledContract,
        exit: Option<TickRef>,
        wallet: Wallet,
    ) {
        self.settled.push(closed);
        let closed = index_of(self.settled.len());
        self.list.push(Event::ContractSettled(Settlement { closed, exit, wallet }));
    }

    /// The contract an [`Event::ContractOpened`] of this buffer names.
    pub fn opened(&self, opened: Opened) -> &Contract {
        &self.opened[opened.0 as usize]
    }

    /// A settlement of this buffer, whole.
    pub fn settlement<'a>(&'a self, settlement: &'a Settlement) -> Settled<'a> {
        Settled {
            closed: &self.settled[settlement.closed as usize],
            exit: settlement.exit,
            wallet: &settlement.wallet,
        }
    }

    /// Every settlement of this buffer, in order.
    pub fn settlements(&self) -> impl Iterator<Item = Settled<'_>> {
        self.list.iter().filter_map(|event| match event {
            Event::ContractSettled(settlement) => Some(self.settlement(settlement)),
            _ => None,
        })
    }
}

/// The place of the item just pushed onto a list of `len` items. A batch holds at most a few
/// million events (a tick settles at most every open contract), far below `u32::MAX`.
fn index_of(len: usize) -> u32 {
    u32::try_from(len - 1).expect("a batch's events fit 32-bit indexes")
}

/// The events in order.
impl std::ops::Deref for Events {
    type Target = [Event];

    fn deref(&self) -> &[Event] {
        &self.list
    }
}

impl<'a> IntoIterator for &'a Events {
    type Item = &'a Event;
    type IntoIter = std::slice::Iter<'a, Event>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

// What a burst of settlements writes per contract: one event and one settled record.
const _: () = assert!(std::mem::size_of::<Event>() <= 80);
const _: () = assert!(std::mem::size_of::<SettledContract>() <= 160);

/// Something that changed.
/// Not `non_exhaustive`: every reader of events names each kind, so that a new one makes each
/// decide what it means for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A user signed up.
    UserRegistered {
        user: UserId,
        username: String,
        /// E-mail, if given.
        email: Option<String>,
        /// Inviter, if any.
        inviter: Option<UserId>,
    },
    /// A user signed in.
    SessionStarted { user: UserId, session: SessionId, device: String, ip: String },
    /// A session ended (sign out, replaced, password change).
    SessionEnded { user: UserId, session: SessionId },
    /// The password changed: withdrawals are blocked for 24 h.
    PasswordChanged { user: UserId },
    /// Profile, e-mail, 2FA, addresses or freeze flag changed.
    UserUpdated { user: UserId },
    /// A wallet changed.
    Wallet(WalletChange),
    /// A price was sequenced.
    Tick {
        symbol: Symbol,
        /// The tick.
        tick: TickRef,
        /// Quantity traded (candle volume).
        quantity: Decimal,
    },
    /// An order was accepted.
    ContractOpened {
        /// The contract as accepted (no entry yet), kept beside the list: [`Events::opened`].
        contract: Opened,
        /// Its product's code, so readers need no catalogue lookup.
        symbol: Symbol,
        /// The leader whose order this contract copies, if it is a copy.
        leader: Option<UserId>,
        /// The tournament it is played in, if it is on a tournament balance.
        tournament: Option<crate::tournament::TournamentId>,
    },
    /// A contract received its entry tick.
    ContractEntered {
        /// Order number.
        contract: ContractId,
        user: UserId,
        /// Entry tick.
        entry: TickRef,
        /// Expiry (ms).
        expiry_ms: u64,
    },
    /// A contract is being sold back: the offer and every figure it came from. Its
    /// settlement (outcome `Sold`) follows at once.
    ContractSold {
        /// Order number.
        contract: ContractId,
        /// Its owner.
        user: UserId,
        /// The offer and its inputs.
        quote: Box<crate::sale::Quote>,
    },
    /// A contract ended.
    ContractSettled(Settlement),
    /// A deposit order was created.
    DepositRequested(Box<DepositOrder>),
    /// A withdrawal order was created.
    WithdrawalRequested(Box<WithdrawOrder>),
    /// A deposit or withdrawal order was decided.
    OrderResolved {
        /// Order number.
        order: OrderId,
        user: UserId,
        /// True for a withdrawal, false for a deposit.
        withdrawal: bool,
        /// Processing (a withdrawal approved, being paid out), or final: completed, rejected
        /// or failed.
        status: OrderStatus,
        /// Admin's remark.
        remark: String,
    },
    /// A price alert was reached by a tick; it is gone from the engine.
    PriceAlertFired {
        /// The alert as it was set.
        alert: Box<PriceAlert>,
        /// The tick that reached it.
        tick: TickRef,
    },
    /// A system notice for every user.
    Notice {
        /// Its id: the log index of the command that sent it.
        id: u64,
        title: String,
        body: String,
        /// Its language, or empty for every language.
        lang: String,
    },
    /// Sessions of an admin ended (sign-out, a password change, the admin disabled).
    AdminSessionsEnded { admin: AdminId, sessions: Vec<SessionId> },
    /// A notice was withdrawn.
    NoticeWithdrawn {
        /// The notice's id.
        notice: u64,
    },
    /// Too many wrong authenticator codes: two-factor actions of this account are paused.
    TwoFactorLocked {
        /// Whose account.
        who: Principal,
        /// Until when (ms).
        until_ms: u64,
        /// Wrong codes since the last right one.
        failures: u32,
    },
    /// Products, rules or settings changed.
    CatalogueChanged,
    /// An admin acted; one per admin command, successful or refused.
    Audit(Box<AuditRecord>),
    /// A trader started or stopped sharing their trades.
    CopyableChanged { user: UserId, copyable: bool },
    /// A follower started copying a leader, changed how, or stopped.
    CopyChanged { follower: UserId, leader: UserId, change: CopyChange },
    /// A leader's order was not copied for one follower (their balance, limits or the rules
    /// refused it); the leader's order stands.
    CopyRefused {
        follower: UserId,
        leader: UserId,
        /// The leader's contract.
        contract: ContractId,
        /// The refusal's stable code.
        code: &'static str,
    },
    /// A tournament was created, changed, published, entered, cancelled or finished.
    TournamentChanged { tournament: crate::tournament::TournamentId },
    /// A player's tournament balance changed (entry, rebuy, an order, a settlement).
    TournamentBalance {
        tournament: crate::tournament::TournamentId,
        user: UserId,
        /// The balance after the change.
        wallet: Wallet,
        /// Rebuys made so far.
        rebuys: u8,
    },
    /// A tournament ended: its final table, prizes paid.
    TournamentFinished {
        tournament: crate::tournament::TournamentId,
        /// Every player by final place.
        table: Vec<crate::tournament::Place>,
    },
}

/// What happened to a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyChange {
    /// The follower started copying.
    Started,
    /// The follower changed their settings.
    Updated,
    /// The copying ended.
    Ended(CopyEnd),
}

/// Why a copy ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyEnd {
    /// The follower ended it.
    ByFollower,
    /// The leader removed the follower.
    ByLeader,
    /// The leader stopped sharing their trades.
    LeaderStopped,
    /// The follower's balance fell below their stop.
    StopReached,
}

impl CopyEnd {
    /// Stable name, as the API sends it.
    pub fn code(self) -> &'static str {
        match self {
            CopyEnd::ByFollower => "by_follower",
            CopyEnd::ByLeader => "by_leader",
            CopyEnd::LeaderStopped => "leader_stopped",
            CopyEnd::StopReached => "stop_reached",
        }
    }
}

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRecord {
    /// Who acted.
    pub admin: AdminId,
    /// Stable action name.
    pub action: &'static str,
    /// The action's parameters, as text.
    pub detail: String,
    /// The refusal's code, or none if it succeeded.
    pub refused: Option<&'static str>,
    /// Log index of the command.
    pub index: u64,
    /// Sequencer time (ms).
    pub time_ms: u64,
}
