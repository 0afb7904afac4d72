//! Deposits, withdrawals, transfers and the demo wallet (decisions.md §3-§4).

use rust_decimal::Decimal;

use crate::command::RequestDeposit;
use crate::constants::{
    MONEY_SUPPLY_MAX_USDT, PENDING_DEPOSITS_PER_USER_MAX, PENDING_WITHDRAWALS_PER_USER_MAX,
    WITHDRAW_BLOCK_AFTER_PASSWORD_CHANGE_MS,
};
use crate::event::{CommandResult, Event, Events, Reply};
use crate::identity::{valid_address, valid_text};
use crate::money::{is_valid_amount, round_cents, Money};
use crate::types::{
    AccountKind, BillType, DepositOrder, Destination, OrderId, OrderStatus, UserId, WithdrawOrder,
};
use crate::{Engine, EngineError};

fn require_text(text: &str, field: &'static str) -> Result<(), EngineError> {
    if text.trim().is_empty() || !valid_text(text) {
        return Err(EngineError::Invalid(field));
    }
    Ok(())
}

fn check_destination(destination: &Destination) -> Result<(), EngineError> {
    match destination {
        Destination::Wallet { address, .. } if !valid_address(address) => {
            Err(EngineError::Invalid("address"))
        }
        Destination::Wallet { .. } => Ok(()),
        Destination::Bank { name, number, bank } => {
            require_text(name, "name")?;
            require_text(number, "number")?;
            require_text(bank, "bank")
        }
    }
}

impl Engine {
    pub(crate) fn request_deposit(
        &mut self,
        d: RequestDeposit,
        events: &mut Events,
    ) -> CommandResult {
        self.active_account(d.user)?;
        if !is_valid_amount(d.amount) {
            return Err(EngineError::Invalid("amount"));
        }
        let (min, max) = (self.settings.deposit_min, self.settings.deposit_max);
        if d.amount < min || d.amount > max {
            return Err(EngineError::AmountOutOfRange { min, max });
        }
        if self.pending(d.user).deposits >= PENDING_DEPOSITS_PER_USER_MAX {
            return Err(EngineError::TooManyPendingOrders);
        }
        require_text(&d.account_name, "account_name")?;
        require_text(&d.account_number, "account_number")?;
        if !valid_text(&d.bank_name) {
            return Err(EngineError::Invalid("bank_name"));
        }
        require_text(&d.receipt, "receipt")?;
        // One receipt backs one deposit: a second pending order on the same image is refused
        // here, where two requests cannot both pass (the gateway refuses one already decided).
        if self.deposits.values().any(|o| o.user == d.user && o.receipt == d.receipt) {
            return Err(EngineError::ReceiptUsed);
        }
        let amount = Money::from_decimal(d.amount).ok_or(EngineError::Invalid("amount"))?;
        let id = self.take_order_id();
        let order = DepositOrder {
            id,
            user: d.user,
            amount,
            method: d.method,
            account_name: d.account_name,
            account_number: d.account_number,
            bank_name: d.bank_name,
            receipt: d.receipt,
            created_ms: self.now_ms,
        };
        self.count_pending(d.user, |p| p.deposits += 1);
        events.push(Event::DepositRequested(Box::new(order.clone())));
        self.deposits.insert(id, order);
        Ok(Reply::OrderCreated { order: id })
    }

    pub(crate) fn request_withdrawal(
        &mut self,
        user: UserId,
        amount: Decimal,
        destination: Destination,
        events: &mut Events,
    ) -> CommandResult {
        let account = self.active_account(user)?;
        if !is_valid_amount(amount) {
            return Err(EngineError::Invalid("amount"));
        }
        let (min, max) = (self.settings.withdraw_min, self.settings.withdraw_max);
        if amount < min || amount > max {
            return Err(EngineError::AmountOutOfRange { min, max });
        }
        if self.money_out_blocked(user)? {
            return Err(EngineError::WithdrawalBlocked);
        }
        check_destination(&destination)?;
        let fee = round_cents(
            amount * self.settings.withdraw_fee_rate + self.settings.withdraw_fee_fixed,
        );
        if fee >= amount {
            return Err(EngineError::AmountOutOfRange { min, max });
        }
        let (amount, fee) = match (Money::from_decimal(amount), Money::from_decimal(fee)) {
            (Some(amount), Some(fee)) => (amount, fee),
            _ => return Err(EngineError::Invalid("amount")),
        };
        if account.real.available < amount {
            return Err(EngineError::InsufficientBalance);
        }
        if self.pending(user).withdrawals >= PENDING_WITHDRAWALS_PER_USER_MAX {
            return Err(EngineError::TooManyPendingOrders);
        }
        let id = self.take_order_id();
        self.count_pending(user, |p| p.withdrawals += 1);
        let account = self.account_mut(user);
        account.real.available -= amount;
        account.real.frozen += amount;
        let order = WithdrawOrder {
            id,
            user,
            amount,
            fee,
            actual: amount - fee,
            destination,
            created_ms: self.now_ms,
            status: OrderStatus::Pending,
        };
        events.push(Event::WithdrawalRequested(Box::new(order.clone())));
        self.withdrawals.insert(id, order);
        self.wallet_event(user, AccountKind::Real, None, Money::ZERO, id.get(), events);
        Ok(Reply::OrderCreated { order: id })
    }

    /// True within 24 h of a password change: no money may leave the account (withdrawals,
    /// transfers).
    fn money_out_blocked(&self, user: UserId) -> Result<bool, EngineError> {
        let changed = self.user_of(user)?.password_changed_ms;
        Ok(changed != 0 && self.now_ms < changed + WITHDRAW_BLOCK_AFTER_PASSWORD_CHANGE_MS)
    }

    pub(crate) fn transfer(
        &mut self,
        from: UserId,
        to: UserId,
        amount: Decimal,
        events: &mut Events,
    ) -> CommandResult {
        self.active_account(from)?;
        if !is_valid_amount(amount) {
            return Err(EngineError::Invalid("amount"));
        }
        if self.money_out_blocked(from)? {
            return Err(EngineError::TransferBlocked);
        }
        let amount = Money::from_decimal(amount).ok_or(EngineError::Invalid("amount"))?;
        let sender = self.account_of(from)?;
        if sender.real.available < amount {
            return Err(EngineError::InsufficientBalance);
        }
        self.account_of(to)?;
        if from == to {
            return Err(EngineError::SelfTransfer);
        }
        self.account_mut(from).real.available -= amount;
        self.account_mut(to).real.available += amount;
        self.wallet_event(
            from,
            AccountKind::Real,
            Some(BillType::TransferOut),
            -amount,
            u64::from(to.get()),
            events,
        );
        self.wallet_event(
            to,
            AccountKind::Real,
            Some(BillType::TransferIn),
            amount,
            u64::from(from.get()),
            events,
        );
        Ok(Reply::Done)
    }

    pub(crate) fn reset_demo(&mut self, user: UserId, events: &mut Events) -> CommandResult {
        // A frozen account changes nothing, the demo wallet included.
        if self.active_account(user)?.open_demo > 0 {
            return Err(EngineError::DemoHasOpenContracts);
        }
        let target = Money::from_decimal(self.settings.demo_balance)
            .ok_or(EngineError::Invalid("demo_balance"))?;
        let delta = target - self.account_of(user)?.demo.available;
        self.check_supply(self.ledger.demo_minted, delta)?;
        let demo = &mut self.account_mut(user).demo;
        demo.available = target;
        self.ledger.demo_minted += delta;
        self.wallet_event(user, AccountKind::Demo, Some(BillType::Adjustment), delta, 0, events);
        Ok(Reply::Done)
    }

    pub(crate) fn approve_deposit(&mut self, order: OrderId, events: &mut Events) -> CommandResult {
        let d = self.deposits.get(&order).ok_or(EngineError::OrderNotFound)?;
        self.check_supply(self.ledger.real_supply(), d.amount)?;
        let d = self.deposits.remove(&order).ok_or(EngineError::OrderNotFound)?;
        self.count_pending(d.user, |p| p.deposits -= 1);
        self.account_mut(d.user).real.available += d.amount;
        self.ledger.deposits_approved += d.amount;
        self.wallet_event(
            d.user,
            AccountKind::Real,
            Some(BillType::Deposit),
            d.amount,
            order.get(),
            events,
        );
        events.push(resolved(order, d.user, false, OrderStatus::Completed, String::new()));
        Ok(Reply::Done)
    }

    pub(crate) fn reject_deposit(
        &mut self,
        order: OrderId,
        remark: String,
        events: &mut Events,
    ) -> CommandResult {
        require_text(&remark, "remark")?;
        let d = self.deposits.remove(&order).ok_or(EngineError::OrderNotFound)?;
        self.count_pending(d.user, |p| p.deposits -= 1);
        events.push(resolved(order, d.user, false, OrderStatus::Rejected, remark));
        Ok(Reply::Done)
    }

    /// Pending → processing: an admin accepted the withdrawal and pays it out; the money
    /// stays frozen until [`Engine::complete_withdrawal`] or [`Engine::fail_withdrawal`].
    pub(crate) fn approve_withdrawal(
        &mut self,
        order: OrderId,
        events: &mut Events,
    ) -> CommandResult {
        let w = self.withdrawals.get_mut(&order).ok_or(EngineError::OrderNotFound)?;
        if w.status != OrderStatus::Pending {
            return Err(EngineError::OrderWrongState);
        }
        w.status = OrderStatus::Processing;
        let user = w.user;
        events.push(resolved(order, user, true, OrderStatus::Processing, String::new()));
        Ok(Reply::Done)
    }

    /// Processing → completed: the payout left; frozen is debited, the fee goes to the house.
    pub(crate) fn complete_withdrawal(
        &mut self,
        order: OrderId,
        events: &mut Events,
    ) -> CommandResult {
        let w = self.take_withdrawal(order, OrderStatus::Processing)?;
        let account = self.account_mut(w.user);
        account.real.frozen -= w.amount;
        self.ledger.house += w.fee;
        self.ledger.withdrawals_paid += w.actual;
        self.wallet_event(
            w.user,
            AccountKind::Real,
            Some(BillType::Withdraw),
            -w.amount,
            order.get(),
            events,
        );
        events.push(resolved(order, w.user, true, OrderStatus::Completed, String::new()));
        Ok(Reply::Done)
    }

    /// Pending → rejected, with the admin's remark; the amount returns to available.
    pub(crate) fn reject_withdrawal(
        &mut self,
        order: OrderId,
        remark: String,
        events: &mut Events,
    ) -> CommandResult {
        self.return_withdrawal(order, OrderStatus::Pending, OrderStatus::Rejected, remark, events)
    }

    /// Processing → failed, with the admin's remark; the amount returns to available.
    pub(crate) fn fail_withdrawal(
        &mut self,
        order: OrderId,
        remark: String,
        events: &mut Events,
    ) -> CommandResult {
        self.return_withdrawal(order, OrderStatus::Processing, OrderStatus::Failed, remark, events)
    }

    fn return_withdrawal(
        &mut self,
        order: OrderId,
        from: OrderStatus,
        to: OrderStatus,
        remark: String,
        events: &mut Events,
    ) -> CommandResult {
        require_text(&remark, "remark")?;
        let w = self.take_withdrawal(order, from)?;
        let account = self.account_mut(w.user);
        account.real.frozen -= w.amount;
        account.real.available += w.amount;
        self.wallet_event(w.user, AccountKind::Real, None, Money::ZERO, order.get(), events);
        events.push(resolved(order, w.user, true, to, remark));
        Ok(Reply::Done)
    }

    /// Removes a withdrawal that is in `state`; anything else changes nothing.
    fn take_withdrawal(
        &mut self,
        order: OrderId,
        state: OrderStatus,
    ) -> Result<WithdrawOrder, EngineError> {
        let w = self.withdrawals.get(&order).ok_or(EngineError::OrderNotFound)?;
        if w.status != state {
            return Err(EngineError::OrderWrongState);
        }
        let w = self.withdrawals.remove(&order).ok_or(EngineError::OrderNotFound)?;
        self.count_pending(w.user, |p| p.withdrawals -= 1);
        Ok(w)
    }

    /// Refuses to let money in that would take `supply` (what has entered so far) past the
    /// bound that keeps every sum of integer cents far from overflow.
    pub(crate) fn check_supply(&self, supply: Money, added: Money) -> Result<(), EngineError> {
        match supply.checked_add(added) {
            Some(total) if total <= Money::from_usdt(MONEY_SUPPLY_MAX_USDT) => Ok(()),
            _ => Err(EngineError::LimitReached),
        }
    }

    fn take_order_id(&mut self) -> OrderId {
        let id = self.next_order;
        self.next_order = self.next_order.next();
        id
    }
}

fn resolved(
    order: OrderId,
    user: UserId,
    withdrawal: bool,
    status: OrderStatus,
    remark: String,
) -> Event {
    Event::OrderResolved { order, user, withdrawal, status, remark }
}
