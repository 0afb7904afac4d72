//! Price alerts: a user asks to be told when a product's price reaches a level. Checked on
//! every sequenced tick (so the same log fires the same alerts on every replay), bounded per
//! user, and kept in the snapshot. An alert fires once and is then gone.
//!
//! Each book keeps two ordered sets, alerts waiting for a rise and for a fall, so a tick costs
//! one range lookup per side plus the alerts it fires.

use rust_decimal::Decimal;

use crate::constants::PRICE_ALERTS_PER_USER_MAX;
use crate::event::{CommandResult, Event, Events, Reply};
use crate::money::is_valid_price;
use crate::types::{AlertId, PriceAlert, Symbol, TickRef, UserId};
use crate::{Engine, EngineError};

impl Engine {
    pub(crate) fn set_price_alert(
        &mut self,
        user: UserId,
        symbol: Symbol,
        price: Decimal,
        events: &mut Events,
    ) -> CommandResult {
        self.user_of(user)?;
        let at = usize::from(*self.idx.symbol.get(&symbol).ok_or(EngineError::ProductNotFound)?);
        let precision = u32::from(self.products[at].precision);
        if !is_valid_price(price) || price.normalize().scale() > precision {
            return Err(EngineError::Invalid("price"));
        }
        let last = self.books[at].last.ok_or(EngineError::PriceNotAvailable)?;
        // At the market already: there is no crossing to wait for.
        if price == last.price {
            return Err(EngineError::Invalid("price"));
        }
        let mine = self.idx.user_alerts.entry(user).or_default();
        if mine.len() >= PRICE_ALERTS_PER_USER_MAX {
            return Err(EngineError::TooManyPriceAlerts);
        }
        let id = self.next_alert;
        self.next_alert += 1;
        mine.push(id);
        let rising = price > last.price;
        let alert = PriceAlert { id, user, symbol, price, rising, created_ms: self.now_ms };
        self.index_alert(at, &alert);
        self.alerts.insert(id, alert.clone());
        events.push(Event::UserUpdated { user });
        Ok(Reply::AlertCreated { alert: Box::new(alert) })
    }

    pub(crate) fn cancel_price_alert(
        &mut self,
        user: UserId,
        alert: AlertId,
        events: &mut Events,
    ) -> CommandResult {
        match self.alerts.get(&alert) {
            Some(a) if a.user == user => {}
            _ => return Err(EngineError::PriceAlertNotFound),
        }
        self.remove_alert(alert);
        events.push(Event::UserUpdated { user });
        Ok(Reply::Done)
    }

    /// Adds an alert to its book's sets (on creation and when a snapshot is restored).
    pub(crate) fn index_alert(&mut self, book: usize, alert: &PriceAlert) {
        let book = &mut self.books[book];
        let side = if alert.rising { &mut book.alerts_up } else { &mut book.alerts_down };
        side.insert((alert.price, alert.id));
    }

    /// Forgets an alert everywhere; returns it.
    fn remove_alert(&mut self, id: AlertId) -> Option<PriceAlert> {
        let alert = self.alerts.remove(&id)?;
        if let Some(&at) = self.idx.symbol.get(&alert.symbol) {
            let book = &mut self.books[usize::from(at)];
            let side = if alert.rising { &mut book.alerts_up } else { &mut book.alerts_down };
            side.remove(&(alert.price, id));
        }
        if let Some(mine) = self.idx.user_alerts.get_mut(&alert.user) {
            mine.retain(|&a| a != id);
            if mine.is_empty() {
                self.idx.user_alerts.remove(&alert.user);
            }
        }
        Some(alert)
    }

    /// Fires every alert of the book that `tick` reaches: rising ones at or below its price,
    /// falling ones at or above it.
    pub(crate) fn fire_alerts(&mut self, book: usize, tick: TickRef, events: &mut Events) {
        let b = &self.books[book];
        let price = tick.price;
        // The common case, nothing reached: the lowest rising and highest falling alert are
        // the sets' ends, found without comparing keys on the way down.
        let up = b.alerts_up.first().is_some_and(|&(level, _)| level <= price);
        let down = b.alerts_down.last().is_some_and(|&(level, _)| level >= price);
        if !up && !down {
            return;
        }
        let fired: Vec<AlertId> = b
            .alerts_up
            .range(..=(price, AlertId::MAX))
            .chain(b.alerts_down.range((price, 0)..))
            .map(|&(_, id)| id)
            .collect();
        for id in fired {
            let Some(alert) = self.remove_alert(id) else { continue };
            if !self.quiet {
                events.push(Event::PriceAlertFired { alert: Box::new(alert), tick });
            }
        }
    }

    /// A user's waiting alerts, oldest first.
    pub fn price_alerts(&self, user: UserId) -> Vec<PriceAlert> {
        let Some(mine) = self.idx.user_alerts.get(&user) else { return Vec::new() };
        mine.iter().filter_map(|id| self.alerts.get(id)).cloned().collect()
    }

    /// Alerts waiting, over all users.
    pub fn price_alert_count(&self) -> usize {
        self.alerts.len()
    }
}
