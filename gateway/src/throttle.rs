//! Brute-force limits (decisions §6): sign-in attempts, code requests and code checks, per
//! account and per client address, answered with HTTP 429. GCRA limiters from `governor`,
//! keyed by string; keys of idle clients are forgotten periodically so memory stays bounded.
//! Failed password sign-ins are counted per account *and* client address ([`LoginGuard`]),
//! so that nobody can keep an account's owner out by failing on purpose.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::ApiError;

/// Keys a limiter may hold before idle ones are purged eagerly.
pub const LIMITER_KEYS_MAX: usize = 100_000;

/// One keyed limiter.
#[derive(Clone, Debug)]
pub struct Limiter {
    /// The GCRA state per key.
    inner: Arc<DefaultKeyedRateLimiter<String>>,
}

impl Limiter {
    /// `burst` attempts at once, refilled at `per_minute` per minute.
    pub fn per_minute(burst: u32, per_minute: u32) -> Limiter {
        let rate = NonZeroU32::new(per_minute.max(1)).unwrap_or(NonZeroU32::MIN);
        let burst = NonZeroU32::new(burst.max(1)).unwrap_or(NonZeroU32::MIN);
        Limiter { inner: Arc::new(RateLimiter::keyed(Quota::per_minute(rate).allow_burst(burst))) }
    }

    /// Takes one attempt for `key`; false = over the limit.
    pub fn allow(&self, key: &str) -> bool {
        if self.inner.len() >= LIMITER_KEYS_MAX {
            self.inner.retain_recent();
        }
        self.inner.check_key(&key.to_owned()).is_ok()
    }

    /// [`Limiter::allow`], with a refusal as the error the caller answers (RATE_LIMITED).
    pub fn take(&self, key: &str) -> Result<(), ApiError> {
        if self.allow(key) {
            Ok(())
        } else {
            Err(ApiError::rate_limited())
        }
    }

    /// Forgets keys whose limits have fully recovered.
    pub fn purge(&self) {
        self.inner.retain_recent();
        self.inner.shrink_to_fit();
    }
}

/// Failures a pair (account, address) may make before each further one costs a delay.
pub const LOGIN_FREE_FAILURES: u32 = 5;
/// The first delay; each further failure doubles it.
pub const LOGIN_DELAY_FIRST_MS: u64 = 1_000;
/// The longest delay.
pub const LOGIN_DELAY_MAX_MS: u64 = 15 * 60_000;
/// A pair whose last failure is this old starts again from zero.
pub const LOGIN_FORGET_AFTER_MS: u64 = 60 * 60_000;

/// Failed sign-ins of one (account, address) pair.
#[derive(Debug, Clone, Copy)]
struct Failures {
    /// Failures since the last success or since they were forgotten.
    count: u32,
    /// When the last one was.
    last_ms: u64,
    /// No attempt before this.
    blocked_until_ms: u64,
}

/// Failed password (and 2FA) sign-ins per account and client address, with a delay that
/// grows with every failure after [`LOGIN_FREE_FAILURES`]: 1 s, 2 s, 4 s … up to 15 min.
/// A success clears the pair. Another address is not affected, so an attacker who fails on
/// purpose delays only themselves, never the owner; guessing from many addresses is held
/// back by the per-address limiter and argon2id. At most [`LIMITER_KEYS_MAX`] pairs are
/// kept: the forgotten and the never-delayed go first.
#[derive(Clone, Debug)]
pub struct LoginGuard {
    /// (lower-case account, address) -> failures.
    pairs: Arc<Mutex<HashMap<(String, String), Failures>>>,
    /// Off for load tests (`--no-rate-limits`).
    enabled: bool,
}

impl LoginGuard {
    fn new(enabled: bool) -> LoginGuard {
        LoginGuard { pairs: Arc::default(), enabled }
    }

    fn pairs(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Failures>> {
        self.pairs.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `Err(ms)`: this pair must wait that long before trying again.
    pub fn check(&self, account: &str, address: &str, now_ms: u64) -> Result<(), u64> {
        if !self.enabled {
            return Ok(());
        }
        let key = (account.to_lowercase(), address.to_owned());
        match self.pairs().get(&key) {
            Some(f) if f.blocked_until_ms > now_ms => Err(f.blocked_until_ms - now_ms),
            _ => Ok(()),
        }
    }

    /// Counts a failure; returns the delay it imposes (0 while failures are free).
    pub fn failed(&self, account: &str, address: &str, now_ms: u64) -> u64 {
        if !self.enabled {
            return 0;
        }
        let mut pairs = self.pairs();
        if pairs.len() >= LIMITER_KEYS_MAX {
            pairs.retain(|_, f| {
                now_ms.saturating_sub(f.last_ms) < LOGIN_FORGET_AFTER_MS
                    && f.count >= LOGIN_FREE_FAILURES
            });
            if pairs.len() >= LIMITER_KEYS_MAX {
                // Every kept pair is delayed: a new one is not remembered (its address is
                // still held by the per-address limiter).
                return 0;
            }
        }
        let entry = pairs.entry((account.to_lowercase(), address.to_owned())).or_insert(Failures {
            count: 0,
            last_ms: now_ms,
            blocked_until_ms: 0,
        });
        if now_ms.saturating_sub(entry.last_ms) >= LOGIN_FORGET_AFTER_MS {
            entry.count = 0;
        }
        entry.count = entry.count.saturating_add(1);
        entry.last_ms = now_ms;
        let delay = login_delay_ms(entry.count);
        entry.blocked_until_ms = now_ms + delay;
        delay
    }

    /// A success: the pair starts again from zero.
    pub fn succeeded(&self, account: &str, address: &str) {
        if self.enabled {
            self.pairs().remove(&(account.to_lowercase(), address.to_owned()));
        }
    }

    /// Forgets pairs whose last failure is old.
    fn purge(&self, now_ms: u64) {
        self.pairs().retain(|_, f| now_ms.saturating_sub(f.last_ms) < LOGIN_FORGET_AFTER_MS);
    }
}

/// The delay after the `count`-th failure in a row.
fn login_delay_ms(count: u32) -> u64 {
    if count <= LOGIN_FREE_FAILURES {
        return 0;
    }
    let doublings = (count - LOGIN_FREE_FAILURES - 1).min(20);
    (LOGIN_DELAY_FIRST_MS << doublings).min(LOGIN_DELAY_MAX_MS)
}

/// Failed sign-ins an account may take from devices it has never signed in on, whatever their
/// addresses: this many at once, then one every hour / this many.
pub const ACCOUNT_FAILURES_PER_HOUR: u64 = 20;
/// Buckets of [`AccountBudget`]: a fixed table, so no number of accounts can grow it or push
/// an account out of it.
const ACCOUNT_BUDGET_BUCKETS: usize = 1 << 20;

/// A per-account budget of failed sign-ins, across every address: what holds back a guesser
/// who spreads their tries over many addresses (each of which [`LoginGuard`] sees only a few
/// times). Past the budget the password is not even looked at: the account signs in with an
/// e-mail code, or from a device that signed in before (its device token), until the budget
/// refills at [`ACCOUNT_FAILURES_PER_HOUR`] an hour. So a distributed guesser gets a bounded
/// number of tries per hour per account, and can never keep the owner out.
///
/// Accounts map to a fixed table of GCRA cells by a keyed hash (SipHash with a random key per
/// process). Two accounts sharing a cell share a budget; with 2^20 cells that is rare, and an
/// attacker cannot aim for it without the key.
#[derive(Clone, Debug)]
pub struct AccountBudget {
    /// Per cell: the time (ms) at which its budget is whole again ("theoretical arrival time").
    cells: Arc<[AtomicU64]>,
    /// Picks the cell of an account.
    hasher: RandomState,
    /// Off for load tests (`--no-rate-limits`).
    enabled: bool,
}

impl AccountBudget {
    /// Milliseconds one failure costs.
    const COST_MS: u64 = 3_600_000 / ACCOUNT_FAILURES_PER_HOUR;
    /// How far ahead of now a cell may run before sign-ins wait.
    const ALLOWANCE_MS: u64 = 3_600_000 - Self::COST_MS;

    fn new(enabled: bool) -> AccountBudget {
        let cells = if enabled { ACCOUNT_BUDGET_BUCKETS } else { 1 };
        AccountBudget {
            cells: (0..cells).map(|_| AtomicU64::new(0)).collect(),
            hasher: RandomState::new(),
            enabled,
        }
    }

    fn cell(&self, account: &str) -> &AtomicU64 {
        let hash = self.hasher.hash_one(account.to_lowercase());
        &self.cells[(hash as usize) % self.cells.len()]
    }

    /// `Err(ms)`: the account's budget is spent; one more try is allowed in that long.
    pub fn check(&self, account: &str, now_ms: u64) -> Result<(), u64> {
        if !self.enabled {
            return Ok(());
        }
        let ahead = self.cell(account).load(Ordering::Relaxed).saturating_sub(now_ms);
        match ahead.checked_sub(Self::ALLOWANCE_MS) {
            Some(wait) if wait > 0 => Err(wait),
            _ => Ok(()),
        }
    }

    /// Spends one failure of the account's budget.
    pub fn failed(&self, account: &str, now_ms: u64) {
        if self.enabled {
            let cell = self.cell(account);
            let _ = cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |tat| {
                Some(tat.max(now_ms) + Self::COST_MS)
            });
        }
    }
}

/// Every limiter of the API.
#[derive(Clone, Debug)]
pub struct Throttles {
    /// Failed password sign-ins per account and address.
    pub login_guard: LoginGuard,
    /// Failed sign-ins per account, from any address.
    pub account_budget: AccountBudget,
    /// Recipient lookups (a UID's masked name) per user.
    pub recipient_lookup: Limiter,
    /// Password changes per account.
    pub login_account: Limiter,
    /// Sign-ins (any kind), registrations and code checks per client address.
    pub login_address: Limiter,
    /// E-mail codes sent per address (the 60 s resend rule is checked separately).
    pub code_address: Limiter,
    /// Code checks per e-mail.
    pub code_check: Limiter,
    /// Uploads per user.
    pub upload_user: Limiter,
    /// Exports of one's history per user.
    pub export_user: Limiter,
    /// Exports being streamed at once, all users together: each holds a reader busy.
    pub exports: Arc<tokio::sync::Semaphore>,
}

/// Exports streamed at once (more are refused as busy until one ends).
pub const EXPORTS_AT_ONCE: usize = 4;

impl Throttles {
    /// The production limits.
    pub fn standard() -> Throttles {
        Throttles {
            login_guard: LoginGuard::new(true),
            account_budget: AccountBudget::new(true),
            recipient_lookup: Limiter::per_minute(10, 10),
            login_account: Limiter::per_minute(10, 10),
            login_address: Limiter::per_minute(60, 60),
            code_address: Limiter::per_minute(10, 5),
            code_check: Limiter::per_minute(10, 10),
            upload_user: Limiter::per_minute(10, 10),
            export_user: Limiter::per_minute(5, 10),
            exports: Arc::new(tokio::sync::Semaphore::new(EXPORTS_AT_ONCE)),
        }
    }

    /// Limits high enough never to trigger (load tests and benchmarks).
    pub fn unlimited() -> Throttles {
        let huge = 1_000_000_000;
        Throttles {
            login_guard: LoginGuard::new(false),
            account_budget: AccountBudget::new(false),
            recipient_lookup: Limiter::per_minute(huge, huge),
            login_account: Limiter::per_minute(huge, huge),
            login_address: Limiter::per_minute(huge, huge),
            code_address: Limiter::per_minute(huge, huge),
            code_check: Limiter::per_minute(huge, huge),
            upload_user: Limiter::per_minute(huge, huge),
            export_user: Limiter::per_minute(huge, huge),
            exports: Arc::new(tokio::sync::Semaphore::new(EXPORTS_AT_ONCE)),
        }
    }

    /// Forgets idle keys of every limiter.
    pub fn purge(&self) {
        self.login_guard.purge(wal::pipeline::system_time_ms());
        let limiters = [
            &self.login_account,
            &self.login_address,
            &self.code_address,
            &self.code_check,
            &self.recipient_lookup,
            &self.upload_user,
            &self.export_user,
        ];
        for limiter in limiters {
            limiter.purge();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_cost_a_growing_delay_for_their_own_address_only() {
        let guard = LoginGuard::new(true);
        let mut now = 1_000_000;
        for _ in 0..LOGIN_FREE_FAILURES {
            assert_eq!(guard.check("Dave", "10.0.0.1", now), Ok(()));
            assert_eq!(guard.failed("Dave", "10.0.0.1", now), 0);
        }
        let mut delays = Vec::new();
        for _ in 0..12 {
            let delay = guard.failed("dave", "10.0.0.1", now);
            assert_eq!(guard.check("DAVE", "10.0.0.1", now), Err(delay));
            assert_eq!(guard.check("dave", "10.0.0.2", now), Ok(()), "another address");
            delays.push(delay);
            now += delay;
            assert_eq!(guard.check("dave", "10.0.0.1", now), Ok(()), "after the delay");
        }
        assert_eq!(&delays[..4], &[1_000, 2_000, 4_000, 8_000]);
        assert_eq!(*delays.last().unwrap(), LOGIN_DELAY_MAX_MS);
        // A success clears the pair; an hour without failures forgets it.
        guard.succeeded("dave", "10.0.0.1");
        assert_eq!(guard.failed("dave", "10.0.0.1", now), 0);
        for _ in 0..LOGIN_FREE_FAILURES {
            guard.failed("dave", "10.0.0.1", now);
        }
        assert!(guard.check("dave", "10.0.0.1", now).is_err());
        now += LOGIN_FORGET_AFTER_MS;
        assert_eq!(guard.failed("dave", "10.0.0.1", now), 0);
    }

    #[test]
    fn an_account_budget_holds_whatever_the_addresses_and_refills_by_the_hour() {
        let budget = AccountBudget::new(true);
        let mut now = 5_000_000;
        let mut tries = 0;
        while budget.check("Dave", now).is_ok() {
            budget.failed("dave", now);
            tries += 1;
            assert!(tries <= ACCOUNT_FAILURES_PER_HOUR, "the budget never ran out");
        }
        assert_eq!(tries, ACCOUNT_FAILURES_PER_HOUR);
        assert_eq!(budget.check("DAVE", now), Err(AccountBudget::COST_MS));
        assert_eq!(budget.check("erin", now), Ok(()), "another account");
        // Over a day of steady guessing: one try per COST_MS, so the hourly rate holds.
        let day_end = now + 24 * 3_600_000;
        let mut later = 0;
        while now < day_end {
            match budget.check("dave", now) {
                Ok(()) => {
                    budget.failed("dave", now);
                    later += 1;
                }
                Err(wait) => now += wait,
            }
        }
        let day = 24 * ACCOUNT_FAILURES_PER_HOUR;
        assert!((day - 1..=day + 1).contains(&later), "{later} tries in a day");
    }

    #[test]
    fn the_guard_is_bounded() {
        let guard = LoginGuard::new(true);
        for i in 0..LIMITER_KEYS_MAX + 10 {
            guard.failed(&format!("user{i}"), "10.0.0.1", 0);
        }
        assert!(guard.pairs().len() <= LIMITER_KEYS_MAX);
    }
}
