//! Authenticator codes (RFC 6238), checked the same way wherever one is asked for: user and
//! admin sign-in, turning 2FA off, transfers and withdrawals.
//!
//! The gateway finds the 30-second time step a code belongs to (now, or one step either side
//! for a phone's clock); the engine then accepts that step once and counts wrong codes per
//! account, whatever the address (`Command::TwoFactorCode`). Too many wrong codes pause every
//! two-factor action of the account; the pause is answered `TWO_FACTOR_LOCKED` (429, with when
//! it ends), and the owner is told: the engine's event reaches their open app and their
//! security history, and the request that caused the pause sends them an e-mail.

use engine::types::{Principal, UserId};
use engine::{Command, EngineError, Reply};
use totp_rs::{Algorithm, Secret, TOTP};

use super::{ApiError, ApiResult, AppState};
use crate::error::utc_minute;

/// Seconds a code lives (RFC 6238's default, and every authenticator app's).
const STEP_SECS: u64 = 30;

/// The TOTP of a base32 secret, labelled for an authenticator app.
pub(super) fn totp(secret: &str, account: &str) -> ApiResult<TOTP> {
    let bytes =
        Secret::Encoded(secret.to_owned()).to_bytes().map_err(|_| ApiError::bad("INVALID_TOTP"))?;
    TOTP::new(Algorithm::SHA1, 6, 1, STEP_SECS, bytes, Some("Trading Pro".into()), account.into())
        .map_err(|_| ApiError::bad("INVALID_TOTP"))
}

/// The code as sent, or `TOTP_REQUIRED` when there is none.
fn given(code: Option<&str>) -> ApiResult<&str> {
    code.map(str::trim).filter(|c| !c.is_empty()).ok_or_else(|| ApiError::bad("TOTP_REQUIRED"))
}

/// The time step `code` was made for, now or one step either side; none if it matches none.
fn matching_step(secret: &str, code: &str, now_ms: u64) -> ApiResult<Option<u64>> {
    let totp = totp(secret, "")?;
    let now = now_ms / 1_000 / STEP_SECS;
    let steps = [now, now.saturating_sub(1), now + 1];
    Ok(steps.into_iter().find(|&step| same(&totp.generate(step * STEP_SECS), code)))
}

/// Compares without stopping at the first difference.
fn same(expected: &str, given: &str) -> bool {
    expected.len() == given.len()
        && expected.bytes().zip(given.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// Checks the code of a secret that is not in force yet (turning 2FA on) and returns its step,
/// so that the same code can then be spent.
pub(super) fn setup_step(secret: &str, code: &str, now_ms: u64) -> ApiResult<u64> {
    matching_step(secret, given(Some(code))?, now_ms)?.ok_or_else(|| ApiError::bad("INVALID_TOTP"))
}

/// Spends the step of a code just used to turn 2FA on, so it cannot serve a second time.
pub(super) async fn spend_setup_step(state: &AppState, who: Principal, step: u64) -> ApiResult<()> {
    let command = Command::TwoFactorCode { who, step: Some(step) };
    state.handle.submit_request(command, None).await??;
    Ok(())
}

/// Checks `code` against `who`'s secret through the engine: `Ok` once per code; otherwise
/// `TOTP_REQUIRED`, `INVALID_TOTP` (wrong, or used already) or `TWO_FACTOR_LOCKED`. When this
/// wrong code is the one that pauses the account, a user with an e-mail address is told by
/// e-mail, in the language of `language`.
pub(super) async fn verify(
    state: &AppState,
    who: Principal,
    secret: &str,
    code: Option<&str>,
    language: usize,
) -> ApiResult<()> {
    let code = given(code)?;
    let step = matching_step(secret, code, state.now())?;
    let reply = match state.handle.submit_request(Command::TwoFactorCode { who, step }, None).await
    {
        Ok(Ok(reply)) => reply,
        Ok(Err(refused)) => return Err(refused.into()),
        Err(error) => return Err(error.into()),
    };
    match reply {
        Reply::TwoFactorAccepted => Ok(()),
        Reply::TwoFactorRejected { locked_until_ms: Some(until_ms), .. } => {
            if let Principal::User(user) = who {
                tell_owner(state, user, until_ms, language).await;
            }
            Err(EngineError::TwoFactorLocked { until_ms }.into())
        }
        _ => Err(ApiError::bad("INVALID_TOTP")),
    }
}

/// E-mails a user whose two-factor actions were just paused. Delivery failures are logged,
/// not answered: the pause itself stands either way.
async fn tell_owner(state: &AppState, user: UserId, until_ms: u64, language: usize) {
    let email = state.query(move |e| e.user(user).and_then(|u| u.email.clone())).await;
    let Ok(Some(email)) = email else { return };
    let until = utc_minute(until_ms);
    let subject = state.i18n.text(language, "api.email.two_factor_locked_subject", &[]);
    let body = state.i18n.text(language, "api.email.two_factor_locked_body", &[("until", until)]);
    if let Err(error) = state.mailer.send(&email, &subject, &body).await {
        tracing::warn!(%user, %error, "could not send the two-factor pause e-mail");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

    #[test]
    fn a_code_matches_its_own_step_and_its_neighbours_only() {
        let totp = totp(SECRET, "t").unwrap();
        let now_ms = 1_700_000_000_000;
        let step = now_ms / 1_000 / STEP_SECS;
        for offset in [-1i64, 0, 1] {
            let at = step.checked_add_signed(offset).unwrap();
            let code = totp.generate(at * STEP_SECS);
            assert_eq!(matching_step(SECRET, &code, now_ms).unwrap(), Some(at));
        }
        let far = totp.generate((step + 2) * STEP_SECS);
        assert_eq!(matching_step(SECRET, &far, now_ms).unwrap(), None);
        assert_eq!(given(Some("  ")).unwrap_err().code, "TOTP_REQUIRED");
    }
}
