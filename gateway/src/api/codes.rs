//! E-mail codes: sending one, for signing in, a forgotten password or a new address.

use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::Client;
use crate::error::{ApiError, ApiResult};
use crate::mail::{CodeError, Purpose};
use crate::state::AppState;

/// When the next code may be asked for.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CodeSent {
    /// Seconds before another code may be sent (60).
    pub resend_after: u64,
}

/// Sends a code for `purpose` to `email`, in `language`, when `exists` (an account uses the
/// address); the answer is the same either way.
pub(super) async fn send_code_to(
    state: &AppState,
    client: &Client,
    purpose: Purpose,
    email: &str,
    exists: bool,
    language: usize,
) -> ApiResult<CodeSent> {
    state.throttles.code_address.take(&client.ip)?;
    let now = state.now();
    let code = match state.codes.issue(purpose, email, now) {
        Ok(code) => code,
        Err(CodeError::TooSoon(seconds)) => {
            return Err(ApiError::new(StatusCode::TOO_MANY_REQUESTS, "CODE_RESEND_TOO_SOON")
                .arg("seconds", seconds));
        }
        Err(_) => return Err(ApiError::busy()),
    };
    // Unknown addresses get the same answer and no mail, so the call reveals no accounts.
    if exists {
        let subject = state.i18n.text(language, "api.email.code_subject", &[]);
        let body = state.i18n.text(language, "api.email.code_body", &[("code", code)]);
        if let Err(error) = state.mailer.send(email, &subject, &body).await {
            state.codes.withdraw(purpose, email);
            tracing::warn!(%error, "verification e-mail not sent");
            return Err(ApiError::new(StatusCode::BAD_GATEWAY, "EMAIL_SEND_FAILED"));
        }
    }
    Ok(CodeSent { resend_after: crate::mail::CODE_RESEND_MS / 1_000 })
}
