//! Orders, ticks, entry, settlement and referral rewards: decisions.md §2 and §5, exactly.
//!
//! - Entry: the first tick of the symbol sequenced after acceptance. None within
//!   `ENTRY_WAIT_MAX_MS` -> void.
//! - Exit: the latest tick with time <= expiry. It is known when a tick with time > expiry is
//!   sequenced (the previous tick is the exit), or when a timer passes expiry + grace.
//! - Void when the exit tick is more than `EXIT_TICK_AGE_MAX_MS` older than expiry (stale
//!   feed) or when the market was closed at any moment of the contract.

use rust_decimal::Decimal;

use crate::command::PlaceOrder;
use crate::constants::{AMOUNT_MAX_USDT, ENTRY_WAIT_MAX_MS, EXIT_TICK_AGE_MAX_MS, SETTLE_GRACE_MS};
use crate::engine::Due;
use crate::event::{CommandResult, Event, Events, Reply, SettledContract};
use crate::money::{is_valid_price, Money, Rate};
use crate::slab::SlotRef;
use crate::tournament::SeatRef;
use crate::types::{
    AccountKind, BillType, Contract, ContractId, Direction, Outcome, Symbol, TickRef, UserId,
    Wallet,
};
use crate::{Engine, EngineError};

/// Due contracts requested from memory ahead of settling, at most (a burst of a million
/// settles with this many in flight).
const PREFETCH_CONTRACTS_MAX: usize = 16;

/// Slack added to a contract's reserve so the rounded pieces never exceed it (5 pieces x 0.005).
const RESERVE_SLACK: Money = Money::from_cents(3);

/// What an order that passed every check will open.
pub(crate) struct CheckedOrder {
    /// Index of the product in the catalogue.
    product: u16,
    stake: Money,
    fee: Money,
    /// The rule's payout rate, locked in the contract.
    payout_rate: Rate,
    /// What the house sets aside (zero on play money).
    reserved: Money,
    /// The seat an order on a tournament balance trades from.
    seat: Option<SeatRef>,
}

impl Engine {
    pub(crate) fn place_order(&mut self, o: PlaceOrder, events: &mut Events) -> CommandResult {
        let checked = self.check_order(&o)?;
        let (stake, fee) = (checked.stake, checked.fee);
        let contract = self.open_contract(&o, checked, None, events);
        // One byte of the account already in cache: orders of traders nobody copies never
        // look further. Tournament play is not copied: a player's tournament is their own.
        if self.accounts[o.user.index()].leads && o.account != AccountKind::Tournament {
            self.copy_order(&o, stake, contract, events);
        }
        Ok(Reply::OrderAccepted { contract, fee })
    }

    /// Every check an order must pass, in the order the refusals are given; changes nothing.
    pub(crate) fn check_order(&self, o: &PlaceOrder) -> Result<CheckedOrder, EngineError> {
        let account = self.active_account(o.user)?;
        let product = *self.idx.symbol.get(&o.symbol).ok_or(EngineError::ProductNotFound)?;
        let listed = &self.products[usize::from(product)];
        if !listed.enabled {
            return Err(EngineError::ProductDisabled);
        }
        if !listed.hours.is_open(self.now_ms) {
            return Err(EngineError::MarketClosed);
        }
        let rule = self
            .terms
            .rules
            .iter()
            .find(|r| r.duration_secs == o.duration_secs && r.enabled)
            .ok_or(EngineError::DurationNotAllowed)?;
        let stake = Money::from_decimal(o.stake)
            .filter(|s| s.is_positive() && *s <= Money::from_usdt(AMOUNT_MAX_USDT))
            .ok_or(EngineError::Invalid("stake"))?;
        if stake < rule.stake_min || stake > rule.stake_max {
            // The bounds as the admin wrote them (the terms have the same positions).
            let written = self.rules.iter().find(|r| r.duration_secs == o.duration_secs);
            let (min, max) = written.map_or_else(
                || (rule.stake_min.to_decimal(), rule.stake_max.to_decimal()),
                |r| (r.stake_min, r.stake_max),
            );
            return Err(EngineError::StakeOutOfRange { min, max });
        }
        let fee = stake.times(rule.fee_rate);
        let (available, open, seat) = match o.account {
            AccountKind::Real => (account.real.available, account.open_real, None),
            AccountKind::Demo => (account.demo.available, account.open_demo, None),
            AccountKind::Tournament => {
                let (at, seat) = self.seat_for_order(o)?;
                (seat.wallet.available, seat.open, Some(at))
            }
        };
        if available < stake + fee {
            return Err(EngineError::InsufficientBalance);
        }
        if open >= self.settings.open_contracts_per_user_max {
            return Err(EngineError::TooManyOpenContracts);
        }
        self.check_trading_limits(o.user, o.account, stake, fee, account.open_real)?;
        let payout_rate = rule.payout_rate;
        let reserved = match o.account {
            AccountKind::Real => {
                // The worst case of this contract for the house, rounded up to the cent: a
                // win and every generation's reward, and the fee back on a void.
                let reserve =
                    stake.times_ceil(payout_rate + self.terms.reward_total) + fee + RESERVE_SLACK;
                if self.house_free() < reserve {
                    return Err(EngineError::HouseExposureLimit);
                }
                reserve
            }
            AccountKind::Demo | AccountKind::Tournament => Money::ZERO,
        };
        Ok(CheckedOrder { product, stake, fee, payout_rate, reserved, seat })
    }

    /// Opens the contract of an order that passed [`Engine::check_order`] (a copy of
    /// `leader`'s order, if one is named): nothing can fail.
    pub(crate) fn open_contract(
        &mut self,
        o: &PlaceOrder,
        CheckedOrder { product, stake, fee, payout_rate, reserved, seat }: CheckedOrder,
        leader: Option<UserId>,
        events: &mut Events,
    ) -> ContractId {
        let id = self.next_contract;
        self.next_contract = self.next_contract.next();
        if let Some(seat) = seat {
            self.open_on_seat(seat, id, stake, fee);
        } else {
            let account = self.account_mut(o.user);
            let wallet = account.wallet_mut(o.account);
            wallet.available -= stake + fee;
            wallet.in_position += stake;
            *account.open_mut(o.account) += 1;
            if o.account == AccountKind::Real {
                self.ledger.house += fee;
                self.ledger.house_reserved += reserved;
            } else {
                self.ledger.demo_house += fee;
            }
        }
        let contract = Contract {
            id,
            user: o.user,
            account: o.account,
            product,
            direction: o.direction,
            stake,
            fee,
            payout_rate,
            reserved,
            duration_ms: u64::from(o.duration_secs) * 1_000,
            accepted_ms: self.now_ms,
            accepted_index: self.applied_index,
            entry: None,
            expiry_ms: 0,
        };
        if !self.quiet {
            let tournament = seat.map(|s| s.tournament);
            events.push_opened(contract.clone(), o.symbol, leader, tournament);
        }
        self.count_accepted(&contract);
        let at = self.contracts.insert(contract);
        self.books[usize::from(product)].waiting.push_back(at);
        match seat {
            Some(seat) if !self.quiet => self.seat_event(seat, events),
            Some(_) => {}
            None => {
                let bill = (!fee.is_zero()).then_some(BillType::Fee);
                self.wallet_event(o.user, o.account, bill, -fee, id.get(), events);
            }
        }
        id
    }

    pub(crate) fn tick(
        &mut self,
        symbol: Symbol,
        price: Decimal,
        quantity: Decimal,
        events: &mut Events,
    ) -> CommandResult {
        let book = usize::from(*self.idx.symbol.get(&symbol).ok_or(EngineError::ProductNotFound)?);
        if !is_valid_price(price) {
            return Err(EngineError::Invalid("price"));
        }
        if quantity < Decimal::ZERO || quantity > Decimal::from(AMOUNT_MAX_USDT) {
            return Err(EngineError::Invalid("quantity"));
        }
        let now = self.now_ms;
        // Contracts that expired before this tick settle on the previous tick.
        let previous = self.books[book].last;
        let mut settled = self.settle_due(book, now, false, previous, events);

        let tick = TickRef { price, time_ms: now, index: self.applied_index };
        self.books[book].last = Some(tick);
        if let Some(previous) = previous {
            self.books[book].volatility.record(&previous, &tick);
        }
        if !self.quiet {
            events.push(Event::Tick { symbol, tick, quantity });
        }
        self.fire_alerts(book, tick, events);

        let mut entered = 0u32;
        // Taken out to settle from while walking it, then put back empty for the next orders
        // to fill: a fresh queue per tick cost an allocation and a free per tick.
        let mut waiting = std::mem::take(&mut self.books[book].waiting);
        for at in waiting.drain(..) {
            let Some(contract) = self.contracts.get_mut(at) else { continue };
            if now - contract.accepted_ms > ENTRY_WAIT_MAX_MS {
                self.settle(at, None, Outcome::VoidNoEntry, events);
                settled += 1;
                continue;
            }
            let expiry_ms = now + contract.duration_ms;
            contract.entry = Some(tick);
            contract.expiry_ms = expiry_ms;
            let (id, user) = (contract.id, contract.user);
            let duration_ms = contract.duration_ms;
            self.books[book].schedule(duration_ms, Due { expiry_ms, at, user });
            if !self.quiet {
                events.push(Event::ContractEntered { contract: id, user, entry: tick, expiry_ms });
            }
            entered += 1;
        }
        if self.books[book].waiting.is_empty() {
            self.books[book].waiting = waiting;
        }
        Ok(Reply::Clock { entered, settled })
    }

    /// Settles contracts past expiry + grace and voids contracts that waited too long for entry.
    pub(crate) fn timer(&mut self, events: &mut Events) -> Reply {
        let now = self.now_ms;
        let mut settled = 0;
        // Contracts first: a tournament finishes once its last one has settled.
        for at in 0..self.books.len() {
            let last = self.books[at].last;
            settled += self.settle_due(at, now, true, last, events);
            while let Some(&slot) = self.books[at].waiting.front() {
                match self.contracts.get(slot) {
                    Some(c) if now - c.accepted_ms <= ENTRY_WAIT_MAX_MS => break,
                    Some(_) => {
                        self.books[at].waiting.pop_front();
                        self.settle(slot, None, Outcome::VoidNoEntry, events);
                        settled += 1;
                    }
                    None => {
                        self.books[at].waiting.pop_front();
                    }
                }
            }
        }
        self.finish_tournaments(events);
        Reply::Clock { entered: 0, settled }
    }

    /// Settles every contract of book `at` whose expiry is before `now` (tick) or at least the
    /// grace before `now` (timer), with `exit` as the exit tick. Returns how many settled.
    fn settle_due(
        &mut self,
        at: usize,
        now: u64,
        by_timer: bool,
        exit: Option<TickRef>,
        events: &mut Events,
    ) -> u32 {
        let is_due =
            |expiry: u64| if by_timer { expiry + SETTLE_GRACE_MS <= now } else { expiry < now };
        // Every queue's first due contracts requested at once (a tick's due contracts are a few
        // dozen at most in steady trading), so their misses overlap; then, while settling,
        // a contract further on and the account of a nearer one.
        for queue in &self.books[at].expiring {
            for due in queue.contracts.iter().take(PREFETCH_CONTRACTS_MAX) {
                if !is_due(due.expiry_ms) {
                    break;
                }
                self.contracts.prefetch(due.at);
            }
        }
        let mut settled = 0;
        while let Some(q) = self.books[at].earliest() {
            let queue = &mut self.books[at].expiring[q].contracts;
            let Some(slot) = queue.front().filter(|d| is_due(d.expiry_ms)).map(|d| d.at) else {
                break;
            };
            queue.pop_front();
            Self::prefetch_settlement(&self.contracts, &self.accounts, queue);
            if queue.is_empty() {
                // A duration no rule offers any more leaves no queue behind.
                self.books[at].expiring.swap_remove(q);
            }
            if let Some(outcome) = self.outcome_of(slot, exit) {
                self.settle(slot, exit, outcome, events);
                settled += 1;
            }
        }
        settled
    }

    /// While settling the contract just taken from `queue`, brings into cache the contract of a
    /// later one (past those requested up front) and the account of a nearer one: settling
    /// walks contracts and accounts at random, and without this each waited for memory in
    /// turn. A contract not yet due costs one wasted request.
    #[inline]
    fn prefetch_settlement(
        contracts: &crate::slab::Slab,
        accounts: &crate::cow::CowVec<crate::types::Account>,
        queue: &std::collections::VecDeque<Due>,
    ) {
        const ACCOUNT_AHEAD: usize = 3;
        if let Some(ahead) = queue.get(PREFETCH_CONTRACTS_MAX - 1) {
            contracts.prefetch(ahead.at);
        }
        if let Some(nearer) = queue.get(ACCOUNT_AHEAD) {
            accounts.prefetch(nearer.user.index());
        }
    }

    /// The result of an entered contract with this exit tick; none if it is no longer open.
    fn outcome_of(&self, at: SlotRef, exit: Option<TickRef>) -> Option<Outcome> {
        let contract = self.contracts.get(at)?;
        let entry = contract.entry?;
        let product = &self.products[usize::from(contract.product)];
        if product.hours.closed_between(contract.accepted_ms, contract.expiry_ms) {
            return Some(Outcome::VoidMarketClosed);
        }
        let Some(exit) = exit else { return Some(Outcome::VoidStaleFeed) };
        debug_assert!(exit.time_ms <= contract.expiry_ms, "exit must be at or before expiry");
        if exit.time_ms + EXIT_TICK_AGE_MAX_MS < contract.expiry_ms {
            return Some(Outcome::VoidStaleFeed);
        }
        Some(match exit.price.cmp(&entry.price) {
            std::cmp::Ordering::Equal => Outcome::Tie,
            std::cmp::Ordering::Greater if contract.direction == Direction::Up => Outcome::Win,
            std::cmp::Ordering::Less if contract.direction == Direction::Down => Outcome::Win,
            _ => Outcome::Loss,
        })
    }

    /// Settles an open contract at expiry with `outcome`.
    pub(crate) fn settle(
        &mut self,
        at: SlotRef,
        exit: Option<TickRef>,
        outcome: Outcome,
        events: &mut Events,
    ) {
        self.close(at, exit, outcome, None, events);
    }

    /// Closes an open contract with `outcome` (a sale with its quote, whose offer it pays):
    /// moves the money, pays rewards, emits events.
    pub(crate) fn close(
        &mut self,
        at: SlotRef,
        exit: Option<TickRef>,
        outcome: Outcome,
        sale: Option<Box<crate::sale::Quote>>,
        events: &mut Events,
    ) {
        let Some(contract) = self.contracts.remove(at) else { return };
        let id = contract.id;
        let leader = if self.copy.marks.is_empty() { None } else { self.copy.marks.remove(&id) };
        let (stake, fee) = (contract.stake, contract.fee);
        let credited = match (outcome, &sale) {
            (Outcome::Sold, Some(quote)) => quote.offer,
            (Outcome::Win, _) => stake.times(Rate::ONE + contract.payout_rate),
            (Outcome::Tie, _) => stake,
            (Outcome::VoidNoEntry | Outcome::VoidStaleFeed | Outcome::VoidMarketClosed, _) => {
                stake + fee
            }
            // A sale without its quote cannot be built; it would pay nothing.
            (Outcome::Loss | Outcome::Sold, _) => Money::ZERO,
        };
        self.count_settled(&contract, credited);
        let house_gain = stake - credited;
        let (after, seat) = if contract.account == AccountKind::Tournament {
            match self.close_on_seat(id, contract.user, stake, credited) {
                Some((seat, wallet)) => (wallet, Some(seat)),
                None => (Wallet::default(), None),
            }
        } else {
            let account = self.account_mut(contract.user);
            *account.open_mut(contract.account) -= 1;
            let wallet = account.wallet_mut(contract.account);
            wallet.in_position -= stake;
            wallet.available += credited;
            let after = wallet.clone();
            if contract.account == AccountKind::Real {
                self.ledger.house += house_gain;
                self.ledger.house_reserved -= contract.reserved;
            } else {
                self.ledger.demo_house += house_gain;
            }
            (after, None)
        };
        // Rewards come out of what the house took in: the stake of a win or a loss, what a sale
        // kept of the stake, none of a returned stake (tie, void).
        let reward_base = match (contract.account, outcome) {
            (AccountKind::Real, Outcome::Win | Outcome::Loss) => stake,
            (AccountKind::Real, Outcome::Sold) => house_gain.max(Money::ZERO),
            _ => Money::ZERO,
        };
        let user = contract.user;
        if !self.quiet {
            if let Some(quote) = sale {
                events.push(Event::ContractSold { contract: id, user: contract.user, quote });
            }
            let symbol = self.products[usize::from(contract.product)].symbol;
            let settled_ms = self.now_ms;
            let closed = SettledContract {
                contract,
                symbol,
                outcome,
                credited,
                settled_ms,
                leader: leader.and_then(|u| std::num::NonZeroU32::new(u.get())),
            };
            events.push_settled(closed, exit, after);
            if let Some(seat) = seat {
                self.seat_event(seat, events);
            }
        }
        if reward_base.is_positive() {
            self.pay_rewards(user, reward_base, id, events);
        }
    }

    /// Pays generations 1-3 of the contract owner's inviters from the house (decisions §5), at
    /// the rates in force now. The contract's reserve (released just before) covered the rates
    /// in force at acceptance; if an admin has raised them since, the difference comes from the
    /// house's free capital and never beyond it, so the house cannot fall below its reserve.
    fn pay_rewards(
        &mut self,
        user: UserId,
        stake: Money,
        contract: ContractId,
        events: &mut Events,
    ) {
        let mut inviter = self.accounts[user.index()].inviter();
        for generation in 0..self.terms.reward_rates.len() {
            let Some(to) = inviter else { break };
            let free = self.house_free();
            let reward = stake.times(self.terms.reward_rates[generation]).min(free);
            if reward.is_positive() {
                self.ledger.house -= reward;
                self.account_mut(to).real.available += reward;
                self.wallet_event(
                    to,
                    AccountKind::Real,
                    Some(BillType::Reward),
                    reward,
                    contract.get(),
                    events,
                );
            }
            inviter = self.accounts[to.index()].inviter();
        }
    }
}
