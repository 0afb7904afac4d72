//! One error type for every handler: a stable code, an HTTP status, and a message key that
//! the localisation layer turns into the caller's language. Internal details are logged,
//! never sent.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use engine::EngineError;
use wal::PipelineError;

/// What a failed call answers, before localisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable machine code (e.g. `USERNAME_EXISTS`).
    pub code: &'static str,
    /// Catalogue key of the message: `api.error.CODE` or `api.validation.x`.
    pub key: String,
    /// Placeholder values for the message.
    pub args: Vec<(&'static str, String)>,
    /// The request field at fault, for validation errors.
    pub field: Option<&'static str>,
    /// The arguments are also figures a program needs (the offer of now), sent as the
    /// envelope's `data`.
    pub data: bool,
}

/// Handler result.
pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    /// An error whose message is the code's own catalogue entry.
    pub fn new(status: StatusCode, code: &'static str) -> ApiError {
        let key = format!("api.error.{code}");
        ApiError { status, code, key, args: Vec::new(), field: None, data: false }
    }

    /// A validation failure of `field` with the message `api.validation.{message}`.
    pub fn invalid(field: &'static str, message: &str) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            code: "VALIDATION",
            key: format!("api.validation.{message}"),
            args: Vec::new(),
            field: Some(field),
            data: false,
        }
    }

    /// Adds a placeholder value.
    pub fn arg(mut self, name: &'static str, value: impl ToString) -> ApiError {
        self.args.push((name, value.to_string()));
        self
    }

    /// 401: no valid token.
    pub fn unauthorized() -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "UNAUTHORIZED")
    }

    /// 401: the token was valid but its session ended or expired.
    pub fn session_expired() -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "SESSION_EXPIRED")
    }

    /// 403.
    pub fn forbidden() -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "FORBIDDEN")
    }

    /// 404.
    pub fn not_found() -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "NOT_FOUND")
    }

    /// 429.
    pub fn rate_limited() -> ApiError {
        ApiError::new(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED")
    }

    /// 429 after failed sign-ins from this address: try again in `wait_ms` (rounded up to
    /// whole seconds, the `seconds` placeholder and the `Retry-After` header).
    pub fn login_delayed(wait_ms: u64) -> ApiError {
        let mut error = ApiError::rate_limited().arg("seconds", wait_ms.div_ceil(1000).max(1));
        error.key = "api.error.LOGIN_DELAYED".to_owned();
        error
    }

    /// 429: the account took as many failed sign-ins as it may from unknown devices; the
    /// password was not checked. The message names the ways in that remain (an e-mail code,
    /// a device that signed in before) and when one more try is allowed.
    pub fn password_sign_in_paused(wait_ms: u64) -> ApiError {
        let seconds = wait_ms.div_ceil(1000).max(1);
        ApiError::new(StatusCode::TOO_MANY_REQUESTS, "PASSWORD_SIGN_IN_PAUSED")
            .arg("minutes", seconds.div_ceil(60))
            .arg("seconds", seconds)
    }

    /// The `Retry-After` of a 429, in seconds.
    pub fn retry_after_seconds(&self) -> Option<&str> {
        if self.status != StatusCode::TOO_MANY_REQUESTS {
            return None;
        }
        Some(self.args.iter().find(|(name, _)| *name == "seconds").map_or("60", |(_, v)| v))
    }

    /// 503: a bounded queue or pool is full.
    pub fn busy() -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "BUSY")
    }

    /// 500, logging what went wrong (never sent to the client).
    pub fn internal(what: impl std::fmt::Display) -> ApiError {
        tracing::error!(error = %what, "internal error");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL")
    }

    /// 400 with a code of its own.
    pub fn bad(code: &'static str) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code)
    }
}

/// `2026-11-30 12:00 UTC`: a time in a message, the same in every language.
pub fn utc_minute(ms: u64) -> String {
    let format = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute] UTC");
    i64::try_from(ms / 1_000)
        .ok()
        .and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok())
        .and_then(|t| t.format(format).ok())
        .unwrap_or_default()
}

/// The HTTP status of an engine refusal.
fn status_of(error: &EngineError) -> StatusCode {
    match error {
        EngineError::TwoFactorLocked { .. } => StatusCode::TOO_MANY_REQUESTS,
        EngineError::Forbidden | EngineError::AccountFrozen | EngineError::SelfExcluded { .. } => {
            StatusCode::FORBIDDEN
        }
        EngineError::UserNotFound
        | EngineError::AdminNotFound
        | EngineError::SessionNotFound
        | EngineError::ProductNotFound
        | EngineError::ContractNotFound
        | EngineError::OrderNotFound
        | EngineError::RuleNotFound
        | EngineError::AddressNotFound
        | EngineError::PriceAlertNotFound
        | EngineError::NotCopyable
        | EngineError::CopyNotFound
        | EngineError::TournamentNotFound => StatusCode::NOT_FOUND,
        EngineError::AdminExists
        | EngineError::AdminKept
        | EngineError::WalletExists
        | EngineError::DemoHasOpenContracts
        | EngineError::ProductHasOpenContracts
        | EngineError::TooManyPendingOrders
        | EngineError::OrderWrongState
        | EngineError::DailyLossLimit
        | EngineError::DailyTurnoverLimit
        | EngineError::OpenContractsLimit
        | EngineError::TooManyPriceAlerts
        | EngineError::TooManyOpenContracts
        | EngineError::SaleUnavailable(_)
        | EngineError::OfferChanged { .. }
        | EngineError::FollowersFull
        | EngineError::FollowingFull
        | EngineError::SharingFull
        | EngineError::TournamentClosed
        | EngineError::TournamentOverlap
        | EngineError::TournamentFull
        | EngineError::NoTournamentBalance
        | EngineError::RebuyUnavailable
        | EngineError::HouseExposureLimit => StatusCode::CONFLICT,
        // The spec's registration errors (USERNAME_EXISTS, EMAIL_EXISTS,
        // INVALID_INVITE_CODE) are HTTP 400, like every other refused input.
        _ => StatusCode::BAD_REQUEST,
    }
}

impl From<EngineError> for ApiError {
    fn from(error: EngineError) -> ApiError {
        let code = error.code();
        let status = status_of(&error);
        let mut api = ApiError::new(status, code);
        match error {
            EngineError::StakeOutOfRange { min, max }
            | EngineError::AmountOutOfRange { min, max } => {
                api = api.arg("min", min).arg("max", max);
            }
            EngineError::SelfExcluded { until_ms } => api = api.arg("until", utc_minute(until_ms)),
            EngineError::SaleUnavailable(reason) => {
                api = api.arg("reason", reason.code());
                api.data = true;
            }
            EngineError::OfferChanged { offer } => {
                api = api.arg("offer", offer);
                api.data = true;
            }
            EngineError::TwoFactorLocked { until_ms } => {
                let wait_ms = until_ms.saturating_sub(wal::pipeline::system_time_ms());
                api = api
                    .arg("until", utc_minute(until_ms))
                    .arg("seconds", wait_ms.div_ceil(1_000).max(1));
            }
            EngineError::PairCouldGain { duration_secs, payout_rate, reward_rates, fee_rate } => {
                let percent = |rate: rust_decimal::Decimal| {
                    (rate * rust_decimal::Decimal::ONE_HUNDRED).normalize()
                };
                api = api
                    .arg("duration", duration_secs)
                    .arg("payout", percent(payout_rate))
                    .arg("rewards", percent(reward_rates))
                    .arg("fee", percent(fee_rate));
            }
            EngineError::Invalid(field) => {
                api.key = "api.error.VALIDATION".into();
                api.args.push(("field", field.to_string()));
            }
            _ => {}
        }
        api
    }
}

impl From<PipelineError> for ApiError {
    fn from(error: PipelineError) -> ApiError {
        match error {
            PipelineError::Overloaded => ApiError::busy(),
            // Cluster mode: this member does not lead (a client may retry another one).
            PipelineError::NotLeader { .. } => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "NOT_LEADER")
            }
            // Never retried behind the caller: it must look before trying again.
            PipelineError::OutcomeUnknown => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "OUTCOME_UNKNOWN")
            }
            // A retry of a request already carried out (its Idempotency-Key).
            PipelineError::Duplicate { index } => {
                ApiError::new(StatusCode::CONFLICT, "DUPLICATE_REQUEST").arg("index", index)
            }
            other => ApiError::internal(other),
        }
    }
}

impl From<crate::readmodel::ReadModelError> for ApiError {
    fn from(error: crate::readmodel::ReadModelError) -> ApiError {
        ApiError::internal(error)
    }
}

impl IntoResponse for ApiError {
    /// The body is written by the localisation middleware, which knows the caller's
    /// language; here the error travels as a response extension.
    fn into_response(self) -> Response {
        let mut response = self.status.into_response();
        response.extensions_mut().insert(self);
        response
    }
}
