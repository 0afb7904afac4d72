//! The feed: sources -> engine, and staleness.
//!
//! Raw ticks from the sources are submitted to the engine as `Command::Tick` (journaled, since
//! settlement depends on them). Only the source assigned to a product may move its price. A
//! product whose source has been silent too long while its market is open is *stale*: it is
//! reported (log and the product list), and because no ticks reach the engine, the engine's
//! void rules (no entry within 5 s, no tick in the 5 s before expiry) refund its contracts.

use std::collections::HashMap;

use engine::command::{AdminAction, Command};
use engine::types::{AdminId, MarketHours, Symbol};
use engine::{Engine, EngineError, Reply};
use wal::{Handle, PipelineError};

use crate::catalogue::Instrument;
use crate::types::RawTick;

/// A product with no tick from its source for this long, while its market is open, is stale.
pub const STALE_AFTER_MS: u64 = 10_000;

/// Per-product staleness, from the time of the last tick each source delivered.
#[derive(Debug, Default)]
pub struct StalenessTracker {
    /// Product -> (market hours, time the last tick arrived, stale now).
    products: HashMap<Symbol, (MarketHours, Option<u64>, bool)>,
}

/// A change of a product's freshness, for logs and metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// The source went silent while the market is open.
    BecameStale(Symbol),
    /// Ticks flow again.
    Recovered(Symbol),
}

impl StalenessTracker {
    /// Tracks these products from `now_ms` (a product that never ticks becomes stale too).
    pub fn new(products: impl IntoIterator<Item = (Symbol, MarketHours)>, now_ms: u64) -> Self {
        let products = products.into_iter().map(|(s, h)| (s, (h, Some(now_ms), false))).collect();
        StalenessTracker { products }
    }

    /// Records that `symbol` ticked at `now_ms`; reports a recovery.
    pub fn on_tick(&mut self, symbol: Symbol, now_ms: u64) -> Option<Freshness> {
        let entry = self.products.get_mut(&symbol)?;
        entry.1 = Some(now_ms);
        std::mem::take(&mut entry.2).then_some(Freshness::Recovered(symbol))
    }

    /// Re-evaluates every product at `now_ms`; reports the ones that just became stale. A closed
    /// market is never stale (forex is quiet at the weekend by design), and its clock restarts
    /// when it opens so that the first minutes after the open are not reported.
    pub fn check(&mut self, now_ms: u64) -> Vec<Freshness> {
        let mut changes = Vec::new();
        for (symbol, (hours, last, stale)) in &mut self.products {
            if !hours.is_open(now_ms) {
                *last = Some(now_ms);
                *stale = false;
                continue;
            }
            let silent = last.is_none_or(|t| now_ms.saturating_sub(t) > STALE_AFTER_MS);
            if silent && !*stale {
                *stale = true;
                changes.push(Freshness::BecameStale(*symbol));
            }
        }
        changes.sort_by_key(|c| match c {
            Freshness::BecameStale(s) | Freshness::Recovered(s) => s.to_string(),
        });
        changes
    }

    /// True if the product is stale now.
    pub fn is_stale(&self, symbol: Symbol) -> bool {
        self.products.get(&symbol).is_some_and(|p| p.2)
    }
}

/// Adds to the engine every catalogue product listed by default that it does not know yet, as
/// audited admin actions of `admin` (the first admin at install time). Products the engine
/// already has are left as the back-office set them (an admin may have disabled one); the
/// others of the catalogue wait for an admin to add them. Returns how many were added.
pub fn sync_catalogue(
    handle: &Handle<Engine>,
    admin: AdminId,
    catalogue: &[Instrument],
) -> Result<usize, SyncError> {
    let known: Vec<Symbol> =
        handle.query(|e: &Engine| e.products().iter().map(|p| p.symbol).collect())?;
    let mut added = 0;
    for instrument in catalogue.iter().filter(|i| i.listed_by_default && !known.contains(&i.symbol))
    {
        let action = listing(instrument);
        match handle.submit_blocking(Command::Admin { admin, action: Box::new(action) })? {
            Ok(Reply::Done) => added += 1,
            Ok(other) => unreachable!("upsert answered {other:?}"),
            Err(e) => return Err(SyncError::Refused(instrument.symbol, e)),
        }
    }
    Ok(added)
}

/// The admin action that lists `instrument` as a tradable product.
pub fn listing(instrument: &Instrument) -> AdminAction {
    AdminAction::UpsertProduct {
        symbol: instrument.symbol,
        name: instrument.name.clone(),
        category: instrument.category,
        precision: instrument.precision,
        enabled: true,
        hours: instrument.hours(),
    }
}

/// Why the catalogue could not be synchronised.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SyncError {
    /// The pipeline failed.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// The engine refused a product.
    #[error("product {0} refused: {1}")]
    Refused(Symbol, EngineError),
}

/// Turns a raw tick into the command that journals it.
pub fn tick_command(tick: &RawTick) -> Command {
    Command::Tick { symbol: tick.symbol, price: tick.price, quantity: tick.quantity }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MONDAY_NOON: u64 = 1_794_787_200_000 + 12 * 3_600_000;
    const FRIDAY_2200: u64 = 1_794_787_200_000 + (4 * 24 + 22) * 3_600_000;

    fn btc() -> Symbol {
        Symbol::new("BTCUSDT").unwrap()
    }

    fn eur() -> Symbol {
        Symbol::new("EURUSD").unwrap()
    }

    #[test]
    fn a_silent_open_market_becomes_stale_once_and_recovers_on_a_tick() {
        let mut t = StalenessTracker::new([(btc(), MarketHours::Always)], MONDAY_NOON);
        assert!(t.check(MONDAY_NOON + STALE_AFTER_MS).is_empty());
        assert_eq!(t.check(MONDAY_NOON + STALE_AFTER_MS + 1), vec![Freshness::BecameStale(btc())]);
        assert!(t.check(MONDAY_NOON + 60_000).is_empty(), "reported once");
        assert!(t.is_stale(btc()));
        assert_eq!(t.on_tick(btc(), MONDAY_NOON + 61_000), Some(Freshness::Recovered(btc())));
        assert!(!t.is_stale(btc()));
        assert_eq!(t.on_tick(btc(), MONDAY_NOON + 62_000), None);
    }

    #[test]
    fn a_closed_market_is_never_stale_and_gets_a_grace_after_the_open() {
        let mut t = StalenessTracker::new([(eur(), MarketHours::forex())], FRIDAY_2200 - 1_000);
        assert!(t.check(FRIDAY_2200 + 3_600_000).is_empty());
        let sunday_2200 = FRIDAY_2200 + 2 * 86_400_000;
        assert!(t.check(sunday_2200 - 1).is_empty());
        assert!(t.check(sunday_2200 + STALE_AFTER_MS - 1).is_empty());
        assert_eq!(t.check(sunday_2200 + STALE_AFTER_MS + 1), vec![Freshness::BecameStale(eur())]);
    }
}
