//! Brute-force limits (decisions §6): sign-in attempts, code requests and code checks, per
//! account and per client address, answered with HTTP 429. GCRA limiters from `governor`,
//! keyed by string; keys of idle clients are forgotten periodically so memory stays bounded.

use std::num::NonZeroU32;
use std::sync::Arc;

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

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

    /// Forgets keys whose limits have fully recovered.
    pub fn purge(&self) {
        self.inner.retain_recent();
        self.inner.shrink_to_fit();
    }
}

/// Every limiter of the API.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Password sign-ins per account name.
    pub login_account: Limiter,
    /// Sign-ins (any kind), registrations and code checks per client address.
    pub login_address: Limiter,
    /// E-mail codes sent per address (the 60 s resend rule is checked separately).
    pub code_address: Limiter,
    /// Code checks per e-mail.
    pub code_check: Limiter,
    /// Uploads per user.
    pub upload_user: Limiter,
}

impl Limits {
    /// The production limits.
    pub fn standard() -> Limits {
        Limits {
            login_account: Limiter::per_minute(10, 10),
            login_address: Limiter::per_minute(60, 60),
            code_address: Limiter::per_minute(10, 5),
            code_check: Limiter::per_minute(10, 10),
            upload_user: Limiter::per_minute(10, 10),
        }
    }

    /// Limits high enough never to trigger (load tests and benchmarks).
    pub fn unlimited() -> Limits {
        let huge = 1_000_000_000;
        Limits {
            login_account: Limiter::per_minute(huge, huge),
            login_address: Limiter::per_minute(huge, huge),
            code_address: Limiter::per_minute(huge, huge),
            code_check: Limiter::per_minute(huge, huge),
            upload_user: Limiter::per_minute(huge, huge),
        }
    }

    /// Forgets idle keys of every limiter.
    pub fn purge(&self) {
        for limiter in
            [&self.login_account, &self.login_address, &self.code_address, &self.code_check]
        {
            limiter.purge();
        }
    }
}
