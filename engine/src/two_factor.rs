//! Authenticator codes, once each, with a pause after wrong ones.
//!
//! The gateway computes which 30-second time step a code matches (it holds the clock and the
//! TOTP library); the engine decides, for users and admins alike: a step at or before the last
//! accepted one is a reused code, and every wrong or reused code counts. After
//! [`TWO_FACTOR_FAILURES_PER_LOCK`] in a row, every two-factor action of the account (sign-in,
//! turning 2FA off, transfers, withdrawals) is refused until the pause ends, whatever address
//! the codes came from; each further lock doubles the pause, up to a day. A right code ends the
//! count. Because this is engine state, it survives restarts and is the same on every member.

use crate::constants::{
    TWO_FACTOR_FAILURES_PER_LOCK, TWO_FACTOR_LOCK_FIRST_MS, TWO_FACTOR_LOCK_MAX_MS,
};
use crate::event::{AuditRecord, CommandResult, Event, Events, Reply};
use crate::types::{Principal, TwoFactorGuard};
use crate::{Engine, EngineError};

/// How long the `lock`-th pause in a row lasts (1 = the first).
pub fn lock_ms(lock: u32) -> u64 {
    let doublings = lock.saturating_sub(1).min(16);
    (TWO_FACTOR_LOCK_FIRST_MS << doublings).min(TWO_FACTOR_LOCK_MAX_MS)
}

impl Engine {
    /// The guard of a principal with two-factor on, or why there is none.
    fn two_factor_guard(&self, who: Principal) -> Result<&TwoFactorGuard, EngineError> {
        let (secret, guard) = match who {
            Principal::User(user) => {
                let u = self.user_of(user)?;
                (&u.totp_secret, &u.two_factor)
            }
            Principal::Admin(admin) => {
                let a = self.admin(admin).ok_or(EngineError::AdminNotFound)?;
                (&a.totp_secret, &a.two_factor)
            }
        };
        if secret.is_none() {
            return Err(EngineError::TwoFactorNotEnabled);
        }
        Ok(guard)
    }

    fn two_factor_guard_mut(&mut self, who: Principal) -> &mut TwoFactorGuard {
        match who {
            Principal::User(user) => &mut self.user_mut(user).two_factor,
            Principal::Admin(admin) => &mut self.admins[admin.index()].two_factor,
        }
    }

    pub(crate) fn two_factor_code(
        &mut self,
        who: Principal,
        step: Option<u64>,
        events: &mut Events,
    ) -> CommandResult {
        let guard = self.two_factor_guard(who)?;
        let now = self.now_ms;
        if guard.locked_until_ms > now {
            return Err(EngineError::TwoFactorLocked { until_ms: guard.locked_until_ms });
        }
        let reused = match step {
            Some(step) if step > guard.last_step => {
                let guard = self.two_factor_guard_mut(who);
                guard.last_step = step;
                guard.failures = 0;
                return Ok(Reply::TwoFactorAccepted);
            }
            Some(_) => true,
            None => false,
        };
        let guard = self.two_factor_guard_mut(who);
        guard.failures = guard.failures.saturating_add(1);
        let failures = guard.failures;
        let locked_until_ms = failures.is_multiple_of(TWO_FACTOR_FAILURES_PER_LOCK).then(|| {
            let until_ms = now + lock_ms(failures / TWO_FACTOR_FAILURES_PER_LOCK);
            guard.locked_until_ms = until_ms;
            events.push(Event::TwoFactorLocked { who, until_ms, failures });
            until_ms
        });
        // An admin's pause is for the super admins to see, in the audit log.
        if let (Principal::Admin(admin), Some(until_ms)) = (who, locked_until_ms) {
            events.push(Event::Audit(Box::new(AuditRecord {
                admin,
                action: "two_factor_locked",
                detail: format!("failures={failures} until={until_ms}"),
                refused: None,
                index: self.applied_index,
                time_ms: now,
            })));
        }
        Ok(Reply::TwoFactorRejected { reused, locked_until_ms })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{Command, Register};
    use crate::engine::Stamp;
    use crate::types::UserId;

    fn engine_with_totp_user() -> (Engine, u64) {
        let mut engine = Engine::new();
        let mut events = crate::Events::new();
        let mut index = 0;
        let mut run = |engine: &mut Engine, command| {
            index += 1;
            engine.apply(Stamp { index, time_ms: 1_000_000 }, command, &mut events)
        };
        run(
            &mut engine,
            Command::Register(Box::new(Register {
                username: "alice".into(),
                email: Some("alice@example.com".into()),
                password_hash: Some("hash".into()),
                wallet: None,
                invite_code: None,
                email_verified: false,
            })),
        )
        .unwrap();
        run(
            &mut engine,
            Command::SetTotp { user: UserId(1), secret: Some("JBSWY3DPEHPK3PXPJBSWY3DP".into()) },
        )
        .unwrap();
        (engine, index)
    }

    fn code(
        engine: &mut Engine,
        index: &mut u64,
        time_ms: u64,
        step: Option<u64>,
    ) -> CommandResult {
        *index += 1;
        let mut events = crate::Events::new();
        let result = engine.apply(
            Stamp { index: *index, time_ms },
            Command::TwoFactorCode { who: Principal::User(UserId(1)), step },
            &mut events,
        );
        if let Ok(Reply::TwoFactorRejected { locked_until_ms: Some(until_ms), .. }) = result {
            assert!(
                matches!(events[..], [Event::TwoFactorLocked { until_ms: u, .. }] if u == until_ms)
            );
        } else {
            assert!(events.is_empty());
        }
        result
    }

    #[test]
    fn a_code_is_accepted_once() {
        let (mut engine, mut index) = engine_with_totp_user();
        let now = 1_000_000;
        assert_eq!(code(&mut engine, &mut index, now, Some(100)), Ok(Reply::TwoFactorAccepted));
        for step in [100, 99] {
            assert_eq!(
                code(&mut engine, &mut index, now, Some(step)),
                Ok(Reply::TwoFactorRejected { reused: true, locked_until_ms: None })
            );
        }
        assert_eq!(code(&mut engine, &mut index, now, Some(101)), Ok(Reply::TwoFactorAccepted));
        // After a snapshot and restore (a restart, another member) the step still holds.
        let mut restored = Engine::restore(&engine.snapshot_bytes()).unwrap();
        assert_eq!(
            code(&mut restored, &mut index, now, Some(101)),
            Ok(Reply::TwoFactorRejected { reused: true, locked_until_ms: None })
        );
    }

    #[test]
    fn wrong_codes_pause_two_factor_with_a_growing_pause() {
        let (mut engine, mut index) = engine_with_totp_user();
        let mut now = 1_000_000;
        for lock in 1..=3 {
            for _ in 1..TWO_FACTOR_FAILURES_PER_LOCK {
                assert!(matches!(
                    code(&mut engine, &mut index, now, None),
                    Ok(Reply::TwoFactorRejected { locked_until_ms: None, .. })
                ));
            }
            let until = now + lock_ms(lock);
            assert_eq!(
                code(&mut engine, &mut index, now, None),
                Ok(Reply::TwoFactorRejected { reused: false, locked_until_ms: Some(until) })
            );
            // Locked: even the right code is refused, and the refusal changes nothing.
            let before = engine.content_hash();
            assert_eq!(
                code(&mut engine, &mut index, until - 1, Some(10_000)),
                Err(EngineError::TwoFactorLocked { until_ms: until })
            );
            assert_eq!(engine.content_hash(), before);
            now = until;
        }
        assert_eq!(lock_ms(1), 15 * 60_000);
        assert_eq!(lock_ms(3), 60 * 60_000);
        assert_eq!(lock_ms(30), TWO_FACTOR_LOCK_MAX_MS);
        // A right code after the pause ends the count.
        assert_eq!(code(&mut engine, &mut index, now, Some(10_000)), Ok(Reply::TwoFactorAccepted));
        assert_eq!(engine.user(UserId(1)).unwrap().two_factor.failures, 0);
    }

    #[test]
    fn codes_of_an_account_without_two_factor_are_refused() {
        let (mut engine, mut index) = engine_with_totp_user();
        index += 1;
        engine
            .apply(
                Stamp { index, time_ms: 1_000_000 },
                Command::SetTotp { user: UserId(1), secret: None },
                &mut crate::Events::new(),
            )
            .unwrap();
        assert_eq!(
            code(&mut engine, &mut index, 1_000_000, Some(5)),
            Err(EngineError::TwoFactorNotEnabled)
        );
    }
}
