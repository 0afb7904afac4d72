//! Responsible trading (decisions §7b): the user reads and sets their own limits; an admin can
//! read them and nothing more (no call lifts a self-exclusion).

use axum::extract::State;
use engine::types::{LimitsState, TradingLimits, UserId};
use engine::Command;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Admin, Body, PathValue, User};
use super::{dto, ok, Answer, ApiError, AppState, Envelope, ErrorEnvelope, IdempotencyKey};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(limits, set_limits)).routes(routes!(admin_limits))
}

/// One set of limits; a missing or null value means no limit (an empty string is refused).
#[derive(Debug, Default, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct LimitsView {
    /// Most net loss per UTC day on the real account (open stakes and fees count as lost).
    #[schema(value_type = Option<String>, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub daily_loss: Option<String>,
    /// Most stakes per UTC day on the real account.
    #[schema(value_type = Option<String>, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub daily_turnover: Option<String>,
    /// Most real contracts open at once.
    #[schema(minimum = 1, maximum = 100_000)]
    pub open_contracts: Option<u32>,
    /// A reminder after this many minutes of a session.
    #[schema(minimum = 1, maximum = 100_000)]
    pub session_reminder_minutes: Option<u32>,
    /// No trading at all (demo included) before this time (ms since the epoch), at most five
    /// years ahead.
    #[schema(maximum = 9_007_199_254_740_991_u64)]
    pub excluded_until: Option<u64>,
}

impl LimitsView {
    fn of(l: &TradingLimits) -> LimitsView {
        LimitsView {
            daily_loss: l.daily_loss.map(|d| d.to_string()),
            daily_turnover: l.daily_turnover.map(|d| d.to_string()),
            open_contracts: l.open_contracts,
            session_reminder_minutes: l.session_reminder_minutes,
            excluded_until: (l.excluded_until_ms > 0).then_some(l.excluded_until_ms),
        }
    }

    fn parse(&self) -> Result<TradingLimits, ApiError> {
        let money = |field: &'static str, v: &Option<String>| {
            v.as_deref().map(|s| dto::amount(field, s)).transpose()
        };
        let count = |field: &'static str, v: Option<u32>| match v {
            Some(n) if !(1..=100_000).contains(&n) => Err(ApiError::invalid(field, "limits")),
            other => Ok(other),
        };
        Ok(TradingLimits {
            daily_loss: money("dailyLoss", &self.daily_loss)?,
            daily_turnover: money("dailyTurnover", &self.daily_turnover)?,
            open_contracts: count("openContracts", self.open_contracts)?,
            session_reminder_minutes: count(
                "sessionReminderMinutes",
                self.session_reminder_minutes,
            )?,
            excluded_until_ms: self.excluded_until.unwrap_or(0),
        })
    }
}

/// The limits in force, a loosening waiting out its 24 hours, and today's counters.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LimitsAnswer {
    /// In force now.
    pub current: LimitsView,
    /// Asked for and in force from `pendingFrom` (a loosening waits 24 hours).
    pub pending: Option<LimitsView>,
    /// When `pending` takes over (ms).
    pub pending_from: Option<u64>,
    /// Today's (UTC) worst-case loss counted against the limit.
    pub today_loss: String,
    /// Today's stakes counted against the turnover limit.
    pub today_turnover: String,
}

fn answer(state: Option<LimitsState>) -> LimitsAnswer {
    let state = state.unwrap_or_default();
    LimitsAnswer {
        current: LimitsView::of(&state.current),
        pending: state.pending.as_ref().map(LimitsView::of),
        pending_from: state.pending.is_some().then_some(state.pending_from_ms),
        today_loss: state.day_loss.max(engine::money::Money::ZERO).to_string(),
        today_turnover: state.day_turnover.to_string(),
    }
}

/// My responsible-trading limits.
#[utoipa::path(get, path = "/api/user/trading-limits", tag = "account", security(("user" = [])),
    responses((status = 200, body = Envelope<LimitsAnswer>), (status = 401, body = ErrorEnvelope)))]
async fn limits(State(state): State<AppState>, user: User) -> Answer<LimitsAnswer> {
    let (id, now) = (user.id, state.now());
    ok(answer(state.query(move |e| e.trading_limits(id, now)).await?))
}

/// Set my limits: a tighter value applies at once, a looser one 24 hours later, and a
/// self-exclusion can only be extended.
#[utoipa::path(put, path = "/api/user/trading-limits", tag = "account", security(("user" = [])), request_body = LimitsView,
    responses((status = 200, body = Envelope<LimitsAnswer>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn set_limits(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    Body(body): Body<LimitsView>,
) -> Answer<LimitsAnswer> {
    let limits = body.parse()?;
    let id = user.id;
    state.submit(key, Command::SetTradingLimits { user: id, limits: Box::new(limits) }).await?;
    let now = state.now();
    ok(answer(state.query(move |e| e.trading_limits(id, now)).await?))
}

/// A user's responsible-trading limits, read only: no admin call changes them.
#[utoipa::path(get, path = "/api/admin/users/{id}/trading-limits", tag = "admin", security(("admin" = [])),
    params(("id" = u32, Path, description = "UID")),
    responses((status = 200, body = Envelope<LimitsAnswer>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn admin_limits(
    State(state): State<AppState>,
    _admin: Admin,
    PathValue(id): PathValue<u32>,
) -> Answer<LimitsAnswer> {
    let now = state.now();
    let found =
        state.query(move |e| e.user(UserId(id)).map(|_| e.trading_limits(UserId(id), now))).await?;
    ok(answer(found.ok_or_else(|| ApiError::from(engine::EngineError::UserNotFound))?))
}
