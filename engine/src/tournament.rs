//! Tournaments (decisions §11): players pay an entry fee in real USDT for a tournament balance,
//! trade it by the usual rules, and the best final balances share a prize pool.
//!
//! A tournament balance is a third kind of account ([`AccountKind::Tournament`]) held in the
//! player's seat, isolated from real and demo: nothing moves between it and a wallet. Fees (entry
//! and rebuys) are real money with bills, counted against the player's daily loss limit; prizes are
//! real money paid from the house, which holds every fee and the guaranteed pool aside from
//! publication to the end (so a refund or the pool is always there). Contracts on a tournament
//! balance settle exactly as any other; the engine takes no order that could expire after the end,
//! and once the end has passed and the last contract has settled (the timer looks), it ranks the
//! seats by final balance (ties: the balance reached first, then the earlier entry), pays the
//! prizes and keeps the final table. Nobody chooses anything after publication: the rules are fixed
//! and the table follows from the prices in the log, so anyone can re-derive it.
//!
//! A player trades one tournament at a time: tournaments a player enters may not overlap, so
//! an order on the tournament balance always means the one running now.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::command::PlaceOrder;
use crate::constants::AMOUNT_MAX_USDT;
use crate::event::{CommandResult, Event, Events, Reply};
use crate::money::{Money, Rate, RkyvMoney};
use crate::types::{
    archived, archived_copy, AccountKind, BillType, ContractId, Symbol, UserId, Wallet,
};
use crate::{Engine, EngineError};

/// A tournament's number: sequential from 1, never reused.
pub type TournamentId = u32;

/// Tournaments not yet over (drafts and published) at once.
pub const TOURNAMENTS_OPEN_MAX: usize = 50;
/// Finished and cancelled tournaments kept with their final table; the oldest is forgotten
/// first (the log and the read model keep every table).
pub const TOURNAMENTS_KEPT_MAX: usize = 500;
/// Players in one tournament.
pub const SEATS_MAX: usize = 10_000;
/// Tournaments not yet over one player may have entered.
pub const ENTERED_PER_PLAYER_MAX: usize = 10;
/// Paid places.
pub const PRIZES_MAX: usize = 100;
/// Products one tournament is played on (none listed: every product).
pub const TOURNAMENT_SYMBOLS_MAX: usize = 32;
/// Longest title.
pub const TITLE_LENGTH_MAX: usize = 60;
/// Longest tournament (31 days).
pub const TOURNAMENT_LENGTH_MAX_MS: u64 = 31 * 24 * 3_600 * 1_000;
/// Rebuys one tournament may allow each player.
pub const REBUYS_MAX: u8 = 100;
/// Basis points in a whole: prize shares and the pool's share of fees are in basis points.
pub const BASIS_POINTS: u16 = 10_000;

archived! {
/// What an admin sets, fixed once the tournament is published.
pub struct TournamentRules {
    /// Shown in the lobby.
    pub title: String,
    /// Products played; none listed for every product.
    pub symbols: Vec<Symbol>,
    /// Contract durations allowed (seconds); none listed for every rule's.
    pub durations: Vec<u32>,
    /// Trading opens (ms).
    pub start_ms: u64,
    /// Trading ends (ms): no contract may expire after it.
    pub end_ms: u64,
    /// Real USDT to enter; zero for a free tournament.
    #[rkyv(with = RkyvMoney)]
    pub entry_fee: Money,
    /// The tournament balance each entry and each rebuy brings.
    #[rkyv(with = RkyvMoney)]
    pub start_balance: Money,
    /// Rebuys each player may make.
    pub rebuys_max: u8,
    /// Real USDT per rebuy.
    #[rkyv(with = RkyvMoney)]
    pub rebuy_fee: Money,
    /// A rebuy is allowed while the tournament balance (available and in position) is below
    /// this: stakes in play still count, so nobody rebuys while a winning position is open.
    #[rkyv(with = RkyvMoney)]
    pub rebuy_below: Money,
    /// The pool's share of the fees taken in, in basis points.
    pub pool_share_bp: u16,
    /// The least the pool pays, whatever the fees (the house holds it aside).
    #[rkyv(with = RkyvMoney)]
    pub pool_min: Money,
    /// Each paid place's share of the pool, in basis points, first place first; they sum to
    /// [`BASIS_POINTS`].
    pub prizes_bp: Vec<u16>,
}
}

archived_copy! {
/// Where a tournament is in its life. Running is published with the clock between start
/// and end.
pub enum TournamentStatus {
    /// Being written: only admins see it, and its rules may change.
    Draft,
    /// In the lobby: players may enter until the end (less the shortest duration).
    Published,
    /// Ended and paid: the final table is kept.
    Finished,
    /// Cancelled before its start: every fee was refunded.
    Cancelled,
}
}

archived! {
/// One player's seat: their tournament balance and what they paid.
pub struct Seat {
    pub user: UserId,
    /// The tournament balance (never frozen).
    pub wallet: Wallet,
    /// Open contracts on it.
    pub open: u32,
    /// Rebuys made.
    pub rebuys: u8,
    /// Real USDT paid in fees, refunded if the tournament is cancelled.
    #[rkyv(with = RkyvMoney)]
    pub paid: Money,
    /// Log index of the entry.
    pub joined_index: u64,
    /// Log index of the latest change of the balance: of two equal final balances, the one
    /// reached first ranks higher.
    pub reached_index: u64,
}
}

archived! {
/// A place in a final table.
pub struct Place {
    pub user: UserId,
    /// Final tournament balance.
    #[rkyv(with = RkyvMoney)]
    pub balance: Money,
    /// When it was reached (log index).
    pub reached_index: u64,
    /// Real USDT won (zero past the paid places).
    #[rkyv(with = RkyvMoney)]
    pub prize: Money,
}
}

archived! {
/// A tournament, its players and, once finished, its final table.
pub struct Tournament {
    pub id: TournamentId,
    pub rules: TournamentRules,
    pub status: TournamentStatus,
    /// When it was created (ms).
    pub created_ms: u64,
    /// Players in the order they entered.
    pub seats: Vec<Seat>,
    /// Real USDT taken in fees.
    #[rkyv(with = RkyvMoney)]
    pub fees: Money,
    /// The tournament's own house, in tournament money: contract fees and results against
    /// the players.
    #[rkyv(with = RkyvMoney)]
    pub house: Money,
    /// Open contracts on its balances.
    pub open: u32,
    /// The prize pool paid, once finished.
    #[rkyv(with = RkyvMoney)]
    pub pool: Money,
    /// Every player by final place, once finished.
    pub table: Vec<Place>,
    /// When it finished or was cancelled (ms); zero before.
    pub closed_ms: u64,
}
}

impl Tournament {
    /// Real USDT the house holds aside for a published tournament: every fee taken in, and
    /// the guaranteed pool if that is more. Fees are owed back if it is cancelled, and the
    /// pool (their share, or the minimum) is paid from them at the end, so neither can be
    /// committed elsewhere meanwhile; the house's own share is free once it ends.
    pub fn held(&self) -> Money {
        self.fees.max(self.rules.pool_min)
    }
}

impl TournamentRules {
    /// Checks every figure; names the first out of range.
    fn check(&self, engine: &Engine) -> Result<(), EngineError> {
        let most = Money::from_usdt(AMOUNT_MAX_USDT);
        let chars = self.title.trim().chars().count();
        if chars == 0 || chars > TITLE_LENGTH_MAX || self.title.chars().any(char::is_control) {
            return Err(EngineError::Invalid("title"));
        }
        let listed = |s: &Symbol| engine.idx.symbol.contains_key(s);
        let repeated =
            (1..self.symbols.len()).any(|i| self.symbols[..i].contains(&self.symbols[i]));
        if self.symbols.len() > TOURNAMENT_SYMBOLS_MAX
            || repeated
            || !self.symbols.iter().all(listed)
        {
            return Err(EngineError::Invalid("symbols"));
        }
        let offered = |d: &u32| engine.rules.iter().any(|r| r.duration_secs == *d);
        let mut durations = self.durations.clone();
        durations.sort_unstable();
        durations.dedup();
        if durations.len() != self.durations.len() || !self.durations.iter().all(offered) {
            return Err(EngineError::Invalid("durations"));
        }
        if self.end_ms <= self.start_ms
            || self.end_ms - self.start_ms > TOURNAMENT_LENGTH_MAX_MS
            || self.end_ms <= engine.now_ms
        {
            return Err(EngineError::Invalid("endMs"));
        }
        if !self.start_balance.is_positive() || self.start_balance > most {
            return Err(EngineError::Invalid("startBalance"));
        }
        for (amount, field) in
            [(self.entry_fee, "entryFee"), (self.rebuy_fee, "rebuyFee"), (self.pool_min, "poolMin")]
        {
            if amount.is_negative() || amount > most {
                return Err(EngineError::Invalid(field));
            }
        }
        if self.rebuys_max > REBUYS_MAX {
            return Err(EngineError::Invalid("rebuysMax"));
        }
        if self.rebuy_below.is_negative() || self.rebuy_below > self.start_balance {
            return Err(EngineError::Invalid("rebuyBelow"));
        }
        if self.pool_share_bp > BASIS_POINTS {
            return Err(EngineError::Invalid("poolShare"));
        }
        let shares: u32 = self.prizes_bp.iter().map(|&p| u32::from(p)).sum();
        if self.prizes_bp.is_empty()
            || self.prizes_bp.len() > PRIZES_MAX
            || self.prizes_bp.contains(&0)
            || self.prizes_bp.windows(2).any(|w| w[1] > w[0])
            || shares != u32::from(BASIS_POINTS)
        {
            return Err(EngineError::Invalid("prizes"));
        }
        Ok(())
    }

    /// The prize pool for `fees` taken in: their share, and never less than the minimum.
    pub fn pool_for(&self, fees: Money) -> Money {
        fees.times(basis_points(self.pool_share_bp)).max(self.pool_min)
    }

    /// Each paid place's prize from `pool`, first place first, each rounded half to even to
    /// the cent.
    pub fn prizes_of(&self, pool: Money) -> Vec<Money> {
        self.prizes_bp.iter().map(|&bp| pool.times(basis_points(bp))).collect()
    }

    /// The rules for the audit log.
    pub(crate) fn audit(&self) -> String {
        format!(
            "title={} start={} end={} fee={} balance={} rebuys={}x{} below {} pool={}bp min {} prizes={:?}",
            self.title,
            self.start_ms,
            self.end_ms,
            self.entry_fee,
            self.start_balance,
            self.rebuys_max,
            self.rebuy_fee,
            self.rebuy_below,
            self.pool_share_bp,
            self.pool_min,
            self.prizes_bp
        )
    }

    /// Whether an order of this product and duration is played in the tournament.
    fn allows(&self, symbol: Symbol, duration_secs: u32) -> bool {
        (self.symbols.is_empty() || self.symbols.contains(&symbol))
            && (self.durations.is_empty() || self.durations.contains(&duration_secs))
    }
}

/// A share in basis points as a rate.
fn basis_points(bp: u16) -> Rate {
    Rate::from_millionths(i64::from(bp) * 100)
}

/// The final table of `seats`: best balance first, then the balance reached first, then the
/// earlier entry; the paid places get `prizes` in order.
pub fn rank(seats: &[Seat], prizes: &[Money]) -> Vec<Place> {
    let mut order: Vec<&Seat> = seats.iter().collect();
    order.sort_by(|a, b| {
        (b.wallet.total().cmp(&a.wallet.total()))
            .then(a.reached_index.cmp(&b.reached_index))
            .then(a.joined_index.cmp(&b.joined_index))
    });
    order
        .into_iter()
        .enumerate()
        .map(|(place, s)| Place {
            user: s.user,
            balance: s.wallet.total(),
            reached_index: s.reached_index,
            prize: prizes.get(place).copied().unwrap_or(Money::ZERO),
        })
        .collect()
}

/// Tournaments' state: every tournament kept, the tournament of each open contract on a
/// tournament balance, and lookups derived from them.
#[derive(Debug, Default, Clone)]
pub(crate) struct TournamentBook {
    pub(crate) tournaments: BTreeMap<TournamentId, Tournament>,
    pub(crate) next_id: TournamentId,
    /// Open contracts on a tournament balance -> their tournament.
    pub(crate) marks: FxHashMap<ContractId, TournamentId>,
    /// (tournament, player) -> their seat's position (derived).
    seats: FxHashMap<(TournamentId, UserId), u32>,
    /// Player -> the tournaments not yet over they entered (derived).
    entered: FxHashMap<UserId, Vec<TournamentId>>,
    /// Real USDT the house holds aside for published tournaments: [`Tournament::held`] (derived).
    pub(crate) reserved: Money,
}

archived! {
/// Tournaments' part of a snapshot.
pub struct TournamentState {
    /// Every tournament kept, by id.
    pub tournaments: Vec<Tournament>,
    pub next_id: TournamentId,
    /// Open contracts on tournament balances and their tournament, by contract id.
    pub marks: Vec<(ContractId, TournamentId)>,
}
}

impl TournamentBook {
    /// The state as snapshots hold it, in a canonical order.
    pub(crate) fn state(&self) -> TournamentState {
        let mut marks: Vec<(ContractId, TournamentId)> =
            self.marks.iter().map(|(&c, &t)| (c, t)).collect();
        marks.sort_unstable();
        TournamentState {
            tournaments: self.tournaments.values().cloned().collect(),
            next_id: self.next_id,
            marks,
        }
    }

    /// The book a snapshot's state holds, with its derived lookups.
    pub(crate) fn of(state: TournamentState) -> TournamentBook {
        let mut book = TournamentBook {
            tournaments: state.tournaments.into_iter().map(|t| (t.id, t)).collect(),
            next_id: state.next_id,
            marks: state.marks.into_iter().collect(),
            ..TournamentBook::default()
        };
        book.derive();
        book
    }

    /// Rebuilds the seat and entry lookups and the reserve from the tournaments.
    fn derive(&mut self) {
        self.seats.clear();
        self.entered.clear();
        self.reserved = Money::ZERO;
        for t in self.tournaments.values() {
            if t.status != TournamentStatus::Published {
                continue;
            }
            self.reserved += t.held();
            for (at, seat) in t.seats.iter().enumerate() {
                self.seats.insert((t.id, seat.user), at as u32);
                self.entered.entry(seat.user).or_default().push(t.id);
            }
        }
    }

    /// The seat of `user` in tournament `id`, to change. Callers found it first.
    fn seat_mut(&mut self, id: TournamentId, at: u32) -> &mut Seat {
        let t = self.tournaments.get_mut(&id).expect("a seat's tournament is kept");
        &mut t.seats[at as usize]
    }
}

/// Where the money of an order on a tournament balance sits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SeatRef {
    pub(crate) tournament: TournamentId,
    pub(crate) at: u32,
}

impl Engine {
    // ---- admin -----------------------------------------------------------------------------

    /// An admin's tournament action.
    pub(crate) fn tournament_action(
        &mut self,
        action: crate::command::AdminAction,
        events: &mut Events,
    ) -> CommandResult {
        use crate::command::AdminAction;
        match action {
            AdminAction::CreateTournament(rules) => self.create_tournament(*rules, events),
            AdminAction::UpdateTournament { tournament, rules } => {
                self.update_tournament(tournament, *rules, events)
            }
            AdminAction::PublishTournament { tournament } => {
                self.publish_tournament(tournament, events)
            }
            AdminAction::CancelTournament { tournament } => {
                self.cancel_tournament(tournament, events)
            }
            _ => Err(EngineError::Invalid("action")),
        }
    }

    /// Creates a draft tournament.
    pub(crate) fn create_tournament(
        &mut self,
        rules: TournamentRules,
        events: &mut Events,
    ) -> CommandResult {
        rules.check(self)?;
        let open = (self.tournaments.tournaments.values())
            .filter(|t| matches!(t.status, TournamentStatus::Draft | TournamentStatus::Published))
            .count();
        if open >= TOURNAMENTS_OPEN_MAX {
            return Err(EngineError::LimitReached);
        }
        let id = self.tournaments.next_id.max(1);
        self.tournaments.next_id = id + 1;
        self.tournaments.tournaments.insert(
            id,
            Tournament {
                id,
                rules,
                status: TournamentStatus::Draft,
                created_ms: self.now_ms,
                seats: Vec::new(),
                fees: Money::ZERO,
                house: Money::ZERO,
                open: 0,
                pool: Money::ZERO,
                table: Vec::new(),
                closed_ms: 0,
            },
        );
        events.push(Event::TournamentChanged { tournament: id });
        Ok(Reply::TournamentCreated { tournament: id })
    }

    /// Replaces a draft's rules.
    pub(crate) fn update_tournament(
        &mut self,
        id: TournamentId,
        rules: TournamentRules,
        events: &mut Events,
    ) -> CommandResult {
        let status = self.tournament_of(id)?.status;
        if status != TournamentStatus::Draft {
            return Err(EngineError::TournamentClosed);
        }
        rules.check(self)?;
        if let Some(t) = self.tournaments.tournaments.get_mut(&id) {
            t.rules = rules;
        }
        events.push(Event::TournamentChanged { tournament: id });
        Ok(Reply::Done)
    }

    /// Puts a draft in the lobby, holding its guaranteed pool aside from the house's free
    /// capital (and, later, every fee it takes in: [`Tournament::held`]). Its rules are fixed
    /// from now on.
    pub(crate) fn publish_tournament(
        &mut self,
        id: TournamentId,
        events: &mut Events,
    ) -> CommandResult {
        let t = self.tournament_of(id)?;
        if t.status != TournamentStatus::Draft {
            return Err(EngineError::TournamentClosed);
        }
        // Checked again: the clock, the catalogue or the rules may have moved since the draft.
        t.rules.check(self)?;
        let pool_min = t.rules.pool_min;
        if self.house_free() < pool_min {
            return Err(EngineError::HouseExposureLimit);
        }
        self.tournaments.reserved += pool_min;
        if let Some(t) = self.tournaments.tournaments.get_mut(&id) {
            t.status = TournamentStatus::Published;
        }
        events.push(Event::TournamentChanged { tournament: id });
        Ok(Reply::Done)
    }

    /// Cancels a tournament before its start (a draft at any time): every fee is refunded.
    pub(crate) fn cancel_tournament(
        &mut self,
        id: TournamentId,
        events: &mut Events,
    ) -> CommandResult {
        let t = self.tournament_of(id)?;
        let before_start = self.now_ms < t.rules.start_ms;
        match t.status {
            TournamentStatus::Draft => {}
            TournamentStatus::Published if before_start => {}
            _ => return Err(EngineError::TournamentClosed),
        }
        let Some(mut t) = self.tournaments.tournaments.remove(&id) else {
            return Err(EngineError::TournamentNotFound);
        };
        if t.status == TournamentStatus::Published {
            self.tournaments.reserved -= t.held();
        }
        for seat in &t.seats {
            self.leave(id, seat.user);
            if seat.paid.is_positive() {
                self.ledger.house -= seat.paid;
                self.account_mut(seat.user).real.available += seat.paid;
                let bill = Some(BillType::TournamentRefund);
                self.wallet_event(seat.user, AccountKind::Real, bill, seat.paid, id.into(), events);
            }
        }
        t.status = TournamentStatus::Cancelled;
        t.closed_ms = self.now_ms;
        self.keep_closed(t);
        events.push(Event::TournamentChanged { tournament: id });
        Ok(Reply::Done)
    }

    // ---- players ---------------------------------------------------------------------------

    /// Enters `user` in a published tournament for its entry fee. Entering twice changes
    /// nothing.
    pub(crate) fn join_tournament(
        &mut self,
        user: UserId,
        id: TournamentId,
        events: &mut Events,
    ) -> CommandResult {
        let account = self.active_account(user)?;
        let available = account.real.available;
        let t = self.tournament_of(id)?;
        if t.status != TournamentStatus::Published || self.now_ms >= self.entries_close_ms(t) {
            return Err(EngineError::TournamentClosed);
        }
        if self.tournaments.seats.contains_key(&(id, user)) {
            return Ok(Reply::Done);
        }
        if t.seats.len() >= SEATS_MAX {
            return Err(EngineError::TournamentFull);
        }
        let (start, end) = (t.rules.start_ms, t.rules.end_ms);
        let entered = self.tournaments.entered.get(&user).map_or(&[][..], Vec::as_slice);
        if entered.len() >= ENTERED_PER_PLAYER_MAX {
            return Err(EngineError::TournamentOverlap);
        }
        let overlaps = entered
            .iter()
            .filter_map(|o| self.tournaments.tournaments.get(o))
            .any(|o| o.rules.start_ms < end && start < o.rules.end_ms);
        if overlaps {
            return Err(EngineError::TournamentOverlap);
        }
        let (fee, balance) = (t.rules.entry_fee, t.rules.start_balance);
        self.check_fee(user, fee, available)?;
        self.take_fee(user, id, fee, events);
        let index = self.applied_index;
        let seat = Seat {
            user,
            wallet: Wallet { available: balance, ..Wallet::default() },
            open: 0,
            rebuys: 0,
            paid: fee,
            joined_index: index,
            reached_index: index,
        };
        let t = self.tournaments.tournaments.get_mut(&id).ok_or(EngineError::TournamentNotFound)?;
        t.seats.push(seat);
        let at = (t.seats.len() - 1) as u32;
        self.tournaments.seats.insert((id, user), at);
        self.tournaments.entered.entry(user).or_default().push(id);
        self.seat_event(SeatRef { tournament: id, at }, events);
        events.push(Event::TournamentChanged { tournament: id });
        Ok(Reply::Done)
    }

    /// Buys `user` another start balance while the tournament runs and their balance is below
    /// the rules' level, up to the rebuys allowed.
    pub(crate) fn rebuy(
        &mut self,
        user: UserId,
        id: TournamentId,
        events: &mut Events,
    ) -> CommandResult {
        let available = self.active_account(user)?.real.available;
        let t = self.tournament_of(id)?;
        let running = t.status == TournamentStatus::Published
            && t.rules.start_ms <= self.now_ms
            && self.now_ms < self.entries_close_ms(t);
        if !running {
            return Err(EngineError::TournamentClosed);
        }
        let at =
            *self.tournaments.seats.get(&(id, user)).ok_or(EngineError::NoTournamentBalance)?;
        let seat = &t.seats[at as usize];
        if seat.rebuys >= t.rules.rebuys_max || seat.wallet.total() >= t.rules.rebuy_below {
            return Err(EngineError::RebuyUnavailable);
        }
        let (fee, balance) = (t.rules.rebuy_fee, t.rules.start_balance);
        self.check_fee(user, fee, available)?;
        self.take_fee(user, id, fee, events);
        let index = self.applied_index;
        let seat = self.tournaments.seat_mut(id, at);
        seat.wallet.available += balance;
        seat.rebuys += 1;
        seat.paid += fee;
        seat.reached_index = index;
        self.seat_event(SeatRef { tournament: id, at }, events);
        events.push(Event::TournamentChanged { tournament: id });
        Ok(Reply::Done)
    }

    /// Refuses a fee the user cannot pay or their limits do not allow. Changes nothing.
    fn check_fee(&self, user: UserId, fee: Money, available: Money) -> Result<(), EngineError> {
        if let Some(until_ms) = self.excluded_until(user) {
            return Err(EngineError::SelfExcluded { until_ms });
        }
        if available < fee {
            return Err(EngineError::InsufficientBalance);
        }
        self.check_loss_limit(user, fee)
    }

    /// Debits a fee from the real wallet into the house, with its bill; the house holds it
    /// aside with the tournament until it ends.
    fn take_fee(&mut self, user: UserId, id: TournamentId, fee: Money, events: &mut Events) {
        if let Some(t) = self.tournaments.tournaments.get_mut(&id) {
            let before = t.held();
            t.fees += fee;
            self.tournaments.reserved += t.held() - before;
        }
        if fee.is_zero() {
            return;
        }
        self.account_mut(user).real.available -= fee;
        self.ledger.house += fee;
        self.count_loss(user, fee);
        let bill = Some(BillType::TournamentFee);
        self.wallet_event(user, AccountKind::Real, bill, -fee, id.into(), events);
    }

    // ---- orders ----------------------------------------------------------------------------

    /// The seat an order on the tournament balance trades from: the player's tournament
    /// running now, if it plays this product and duration and the contract would expire by
    /// its end.
    pub(crate) fn seat_for_order(&self, o: &PlaceOrder) -> Result<(SeatRef, &Seat), EngineError> {
        let (t, at) = self.running(o.user).ok_or(EngineError::NoTournamentBalance)?;
        let now = self.now_ms;
        if !t.rules.allows(o.symbol, o.duration_secs) {
            return Err(EngineError::NotTournamentProduct);
        }
        if now + u64::from(o.duration_secs) * 1_000 > t.rules.end_ms {
            return Err(EngineError::TournamentClosed);
        }
        Ok((SeatRef { tournament: t.id, at }, &t.seats[at as usize]))
    }

    /// Moves an accepted order's stake and fee on its seat.
    pub(crate) fn open_on_seat(
        &mut self,
        seat: SeatRef,
        contract: ContractId,
        stake: Money,
        fee: Money,
    ) {
        let index = self.applied_index;
        self.tournaments.marks.insert(contract, seat.tournament);
        let t = self.tournaments.tournaments.get_mut(&seat.tournament).expect("seat's tournament");
        t.open += 1;
        t.house += fee;
        let s = &mut t.seats[seat.at as usize];
        s.wallet.available -= stake + fee;
        s.wallet.in_position += stake;
        s.open += 1;
        s.reached_index = index;
    }

    /// Credits a closed contract on a tournament balance to its seat; the seat's wallet after.
    pub(crate) fn close_on_seat(
        &mut self,
        contract: ContractId,
        user: UserId,
        stake: Money,
        credited: Money,
    ) -> Option<(SeatRef, Wallet)> {
        let index = self.applied_index;
        let tournament = self.tournaments.marks.remove(&contract)?;
        let at = *self.tournaments.seats.get(&(tournament, user))?;
        let t = self.tournaments.tournaments.get_mut(&tournament)?;
        t.open -= 1;
        t.house += stake - credited;
        let s = &mut t.seats[at as usize];
        s.wallet.in_position -= stake;
        s.wallet.available += credited;
        s.open -= 1;
        s.reached_index = index;
        Some((SeatRef { tournament, at }, s.wallet.clone()))
    }

    /// Tells the seat's player their tournament balance.
    pub(crate) fn seat_event(&self, seat: SeatRef, events: &mut Events) {
        let Some(t) = self.tournaments.tournaments.get(&seat.tournament) else { return };
        let s = &t.seats[seat.at as usize];
        events.push(Event::TournamentBalance {
            tournament: seat.tournament,
            user: s.user,
            wallet: s.wallet.clone(),
            rebuys: s.rebuys,
        });
    }

    // ---- the end ---------------------------------------------------------------------------

    /// Finishes every published tournament whose end has passed and whose last contract has
    /// settled: ranks, pays the prizes, keeps the table. Called by the timer.
    pub(crate) fn finish_tournaments(&mut self, events: &mut Events) {
        let now = self.now_ms;
        let due: Vec<TournamentId> = (self.tournaments.tournaments.values())
            .filter(|t| {
                t.status == TournamentStatus::Published && t.rules.end_ms <= now && t.open == 0
            })
            .map(|t| t.id)
            .collect();
        for id in due {
            self.finish(id, events);
        }
    }

    fn finish(&mut self, id: TournamentId, events: &mut Events) {
        let Some(mut t) = self.tournaments.tournaments.remove(&id) else { return };
        self.tournaments.reserved -= t.held();
        let pool = t.rules.pool_for(t.fees);
        let prizes = t.rules.prizes_of(pool);
        t.table = rank(&t.seats, &prizes);
        for seat in &t.seats {
            self.leave(id, seat.user);
        }
        for place in t.table.iter().filter(|p| p.prize.is_positive()) {
            self.ledger.house -= place.prize;
            self.account_mut(place.user).real.available += place.prize;
            let bill = Some(BillType::TournamentPrize);
            self.wallet_event(place.user, AccountKind::Real, bill, place.prize, id.into(), events);
        }
        t.pool = t.table.iter().map(|p| p.prize).sum();
        t.status = TournamentStatus::Finished;
        t.closed_ms = self.now_ms;
        events.push(Event::TournamentFinished { tournament: id, table: t.table.clone() });
        self.keep_closed(t);
        events.push(Event::TournamentChanged { tournament: id });
    }

    /// Keeps a finished or cancelled tournament, forgetting the oldest closed one past the
    /// bound.
    fn keep_closed(&mut self, t: Tournament) {
        self.tournaments.tournaments.insert(t.id, t);
        let closed: Vec<TournamentId> = (self.tournaments.tournaments.values())
            .filter(|t| {
                matches!(t.status, TournamentStatus::Finished | TournamentStatus::Cancelled)
            })
            .map(|t| t.id)
            .collect();
        for id in closed.iter().take(closed.len().saturating_sub(TOURNAMENTS_KEPT_MAX)) {
            self.tournaments.tournaments.remove(id);
        }
    }

    /// Forgets `user`'s seat lookups in a tournament that is over.
    fn leave(&mut self, id: TournamentId, user: UserId) {
        self.tournaments.seats.remove(&(id, user));
        if let Some(list) = self.tournaments.entered.get_mut(&user) {
            list.retain(|t| *t != id);
            if list.is_empty() {
                self.tournaments.entered.remove(&user);
            }
        }
    }

    // ---- reads -----------------------------------------------------------------------------

    /// A tournament kept, or why not.
    pub(crate) fn tournament_of(&self, id: TournamentId) -> Result<&Tournament, EngineError> {
        self.tournaments.tournaments.get(&id).ok_or(EngineError::TournamentNotFound)
    }

    /// Where a tournament's entries end: trading stops at the end, and an entry after the
    /// last moment an order of the shortest allowed duration (of the rules in force when it
    /// lists none) could be placed buys nothing.
    fn entries_close_ms(&self, t: &Tournament) -> u64 {
        let offered = self.rules.iter().filter(|r| r.enabled).map(|r| r.duration_secs);
        let allowed = t.rules.durations.iter().copied();
        let shortest =
            if t.rules.durations.is_empty() { offered.min() } else { allowed.min() }.unwrap_or(0);
        t.rules.end_ms.saturating_sub(u64::from(shortest) * 1_000)
    }

    /// Real USDT the house may still commit: its balance less what open contracts and
    /// published tournaments hold aside.
    pub(crate) fn house_free(&self) -> Money {
        self.ledger.house - self.ledger.house_reserved - self.tournaments.reserved
    }

    /// Every tournament kept, by id.
    pub fn tournaments(&self) -> impl DoubleEndedIterator<Item = &Tournament> {
        self.tournaments.tournaments.values()
    }

    /// One tournament kept.
    pub fn tournament(&self, id: TournamentId) -> Option<&Tournament> {
        self.tournaments.tournaments.get(&id)
    }

    /// The tournaments not yet over `user` has entered.
    pub fn entered_tournaments(&self, user: UserId) -> Vec<TournamentId> {
        self.tournaments.entered.get(&user).cloned().unwrap_or_default()
    }

    /// The tournament running now that `user` sits in, and their seat: the balance their
    /// orders on the tournament account trade.
    pub fn running_seat(&self, user: UserId) -> Option<(TournamentId, &Seat)> {
        self.running(user).map(|(t, at)| (t.id, &t.seats[at as usize]))
    }

    /// The tournament running now that `user` sits in, and their seat's position.
    fn running(&self, user: UserId) -> Option<(&Tournament, u32)> {
        let now = self.now_ms;
        let entered = self.tournaments.entered.get(&user)?;
        entered.iter().find_map(|id| {
            let t = self.tournaments.tournaments.get(id)?;
            let at = *self.tournaments.seats.get(&(t.id, user))?;
            (t.rules.start_ms <= now && now < t.rules.end_ms).then_some((t, at))
        })
    }

    /// Whether a published tournament's end has passed by `now_ms` (the caller's clock): the
    /// timer must run so that the engine finishes it.
    pub fn tournament_due(&self, now_ms: u64) -> bool {
        (self.tournaments.tournaments.values())
            .any(|t| t.status == TournamentStatus::Published && t.rules.end_ms <= now_ms)
    }

    /// The house's real USDT held aside for published tournaments ([`Tournament::held`]).
    pub fn tournament_reserve(&self) -> Money {
        self.tournaments.reserved
    }

    /// The tournaments agree with the open contracts and their own lookups: every seat's
    /// position and open count, each tournament's play money conserved, the reserve.
    pub(crate) fn check_tournament_book(&self) -> Result<(), String> {
        let mut copy = self.tournaments.clone();
        copy.derive();
        if copy.seats != self.tournaments.seats || copy.reserved != self.tournaments.reserved {
            return Err("tournament lookups or reserve differ from the tournaments".into());
        }
        let mut entered = copy.entered;
        let mut indexed = self.tournaments.entered.clone();
        for list in entered.values_mut().chain(indexed.values_mut()) {
            list.sort_unstable();
        }
        if entered != indexed {
            return Err("players' tournaments differ from the seats".into());
        }
        let mut open: FxHashMap<(TournamentId, UserId), (Money, u32)> = FxHashMap::default();
        for c in self.contracts.iter().filter(|c| c.account == AccountKind::Tournament) {
            let t =
                self.tournaments.marks.get(&c.id).ok_or(format!("contract {} unmarked", c.id))?;
            let e = open.entry((*t, c.user)).or_default();
            e.0 += c.stake;
            e.1 += 1;
        }
        if open.values().map(|e| e.1 as usize).sum::<usize>() != self.tournaments.marks.len() {
            return Err("a tournament mark on a contract that is not open".into());
        }
        for t in self.tournaments.tournaments.values() {
            let mut minted = Money::ZERO;
            let mut held = t.house;
            let mut count = 0;
            for s in &t.seats {
                let (stakes, n) = open.get(&(t.id, s.user)).copied().unwrap_or_default();
                if s.wallet.in_position != stakes || s.open != n || s.wallet.available.is_negative()
                {
                    return Err(format!("tournament {} seat of {}: {s:?}", t.id, s.user));
                }
                minted +=
                    Money::from_cents(t.rules.start_balance.cents() * (1 + i64::from(s.rebuys)));
                held += s.wallet.total();
                count += n;
            }
            if held != minted || count != t.open {
                return Err(format!("tournament {}: play money {held} != {minted}", t.id));
            }
        }
        if self.ledger.house < self.ledger.house_reserved + self.tournaments.reserved {
            return Err("house below its reserves".into());
        }
        Ok(())
    }
}
