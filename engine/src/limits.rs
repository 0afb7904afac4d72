//! Responsible trading (decisions §7b): a user's own limits, checked on every order.
//!
//! - Tightening takes effect at once; loosening only 24 hours after it was asked for (until
//!   then the stricter of the old and new value of each limit is in force).
//! - Self-exclusion can only be extended: an earlier end is ignored, by the user or anyone.
//! - The loss and turnover limits count real money per UTC day. An accepted stake and its fee
//!   count as lost until the settlement returns what it returns, so a day's loss can never pass
//!   the limit even with every open contract lost.

use rust_decimal::Decimal;

use crate::constants::{LIMIT_LOOSEN_DELAY_MS, SELF_EXCLUSION_MAX_MS};
use crate::event::{CommandResult, Event, Events, Reply};
use crate::money::{is_valid_amount, Money};
use crate::types::{AccountKind, Contract, LimitsState, TradingLimits, UserId};
use crate::{Engine, EngineError};

const DAY_MS: u64 = 86_400_000;

/// The stricter of two optional ceilings (none = no limit).
fn stricter<T: Ord + Copy>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// Field by field, the stricter of `a` and `b`.
fn strictest(a: &TradingLimits, b: &TradingLimits) -> TradingLimits {
    TradingLimits {
        daily_loss: stricter(a.daily_loss, b.daily_loss),
        daily_turnover: stricter(a.daily_turnover, b.daily_turnover),
        open_contracts: stricter(a.open_contracts, b.open_contracts),
        session_reminder_minutes: stricter(a.session_reminder_minutes, b.session_reminder_minutes),
        excluded_until_ms: a.excluded_until_ms.max(b.excluded_until_ms),
    }
}

impl LimitsState {
    /// Brings the state to `now`: a loosening whose 24 hours are over takes effect, and a new
    /// UTC day starts its counters from zero.
    fn roll(&mut self, now: u64) {
        if self.pending.is_some() && now >= self.pending_from_ms {
            let mut next = self.pending.take().unwrap_or_default();
            next.excluded_until_ms = next.excluded_until_ms.max(self.current.excluded_until_ms);
            self.current = next;
        }
        let day = now / DAY_MS;
        if day != self.day {
            self.day = day;
            self.day_loss = Money::ZERO;
            self.day_turnover = Money::ZERO;
        }
    }
}

impl Engine {
    /// A user's limits as they stand at `now_ms` (none set: all open). Queries pass the wall
    /// clock: the engine's own time moves only with commands.
    pub fn trading_limits(&self, user: UserId, now_ms: u64) -> Option<LimitsState> {
        let mut state = self.limits.get(&user)?.clone();
        state.roll(now_ms.max(self.now_ms));
        Some(state)
    }

    pub(crate) fn set_trading_limits(
        &mut self,
        user: UserId,
        mut asked: TradingLimits,
        events: &mut Events,
    ) -> CommandResult {
        self.user_of(user)?;
        let money_ok = |v: Option<Decimal>| v.is_none_or(is_valid_amount);
        let count_ok = |v: Option<u32>| v.is_none_or(|n| (1..=100_000).contains(&n));
        if !money_ok(asked.daily_loss)
            || !money_ok(asked.daily_turnover)
            || !count_ok(asked.open_contracts)
            || !count_ok(asked.session_reminder_minutes)
            || asked.excluded_until_ms > self.now_ms.saturating_add(SELF_EXCLUSION_MAX_MS)
        {
            return Err(EngineError::Invalid("limits"));
        }
        let now = self.now_ms;
        let state = self
            .limits
            .entry(user)
            .or_insert_with(|| LimitsState { day: now / DAY_MS, ..LimitsState::default() });
        state.roll(now);
        // Self-exclusion only ever grows.
        asked.excluded_until_ms = asked.excluded_until_ms.max(state.current.excluded_until_ms);
        let now_in_force = strictest(&state.current, &asked);
        if now_in_force == asked {
            state.pending = None;
            state.pending_from_ms = 0;
        } else {
            state.pending = Some(asked);
            state.pending_from_ms = now + LIMIT_LOOSEN_DELAY_MS;
        }
        state.current = now_in_force;
        events.push(Event::UserUpdated { user });
        Ok(Reply::Done)
    }

    /// Until when the user excluded themselves from trading, if they are excluded now.
    pub(crate) fn excluded_until(&self, user: UserId) -> Option<u64> {
        let mut state = self.limits.get(&user)?.clone();
        state.roll(self.now_ms);
        let until_ms = state.current.excluded_until_ms;
        (self.now_ms < until_ms).then_some(until_ms)
    }

    /// Refuses an order the user's limits do not allow. Changes nothing.
    pub(crate) fn check_trading_limits(
        &self,
        user: UserId,
        account: AccountKind,
        stake: Money,
        fee: Money,
        open_real: u32,
    ) -> Result<(), EngineError> {
        let Some(state) = self.limits.get(&user) else { return Ok(()) };
        let mut state = state.clone();
        state.roll(self.now_ms);
        let l = &state.current;
        if self.now_ms < l.excluded_until_ms {
            return Err(EngineError::SelfExcluded { until_ms: l.excluded_until_ms });
        }
        // Play money (demo, tournament balances) risks nothing real: only the exclusion holds.
        if account != AccountKind::Real {
            return Ok(());
        }
        if l.open_contracts.is_some_and(|max| open_real >= max) {
            return Err(EngineError::OpenContractsLimit);
        }
        // Limits were checked to be amounts in cents when they were set.
        let above = |max: Decimal, value: Money| Money::from_decimal(max).is_none_or(|m| value > m);
        if l.daily_turnover.is_some_and(|max| above(max, state.day_turnover + stake)) {
            return Err(EngineError::DailyTurnoverLimit);
        }
        if l.daily_loss.is_some_and(|max| above(max, state.day_loss + stake + fee)) {
            return Err(EngineError::DailyLossLimit);
        }
        Ok(())
    }

    /// Refuses a real amount about to be spent (a tournament's fee) that the day's loss limit
    /// does not allow. Changes nothing.
    pub(crate) fn check_loss_limit(&self, user: UserId, amount: Money) -> Result<(), EngineError> {
        let Some(state) = self.limits.get(&user) else { return Ok(()) };
        let mut state = state.clone();
        state.roll(self.now_ms);
        let over =
            |max: Decimal| Money::from_decimal(max).is_none_or(|m| state.day_loss + amount > m);
        if state.current.daily_loss.is_some_and(over) {
            return Err(EngineError::DailyLossLimit);
        }
        Ok(())
    }

    /// Counts real money spent for nothing back (a tournament's fee) as lost today.
    pub(crate) fn count_loss(&mut self, user: UserId, amount: Money) {
        let now = self.now_ms;
        if let Some(state) = self.limits.get_mut(&user) {
            state.roll(now);
            state.day_loss += amount;
        }
    }

    /// Counts an accepted real contract against the day (its stake and fee as lost, for now).
    pub(crate) fn count_accepted(&mut self, contract: &Contract) {
        if contract.account != AccountKind::Real {
            return;
        }
        let now = self.now_ms;
        if let Some(state) = self.limits.get_mut(&contract.user) {
            state.roll(now);
            state.day_turnover += contract.stake;
            state.day_loss += contract.stake + contract.fee;
        }
    }

    /// Takes back from today's loss what a settled real contract returned.
    pub(crate) fn count_settled(&mut self, contract: &Contract, credited: Money) {
        if contract.account != AccountKind::Real {
            return;
        }
        let now = self.now_ms;
        if let Some(state) = self.limits.get_mut(&contract.user) {
            state.roll(now);
            state.day_loss -= credited;
        }
    }
}
