//! Price alerts: a user sets a price on a product and is told once, live and in the
//! notification centre, when a sequenced tick reaches it. The engine holds the waiting ones
//! (bounded per user, in the snapshot) and fires them on ticks; the read model keeps the
//! fired ones.

use axum::extract::State;
use engine::constants::PRICE_ALERTS_PER_USER_MAX;
use engine::{Command, EngineError, Reply};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Body, Params, PathValue, User};
use super::dto::{self, PageQuery};
use super::{ok, Answer, ApiError, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey};
use crate::readmodel::{AlertRow, Page};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(alerts, set_alert))
        .routes(routes!(cancel_alert))
        .routes(routes!(fired_alerts))
}

/// A user's waiting alerts and how many they may have.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertsAnswer {
    /// Waiting alerts, oldest first.
    pub waiting: Vec<AlertRow>,
    /// Most alerts waiting at once.
    pub max: usize,
}

/// A new alert.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewAlert {
    /// Product code, e.g. BTCUSDT.
    #[schema(pattern = "^[A-Za-z0-9/]{3,17}$")]
    pub symbol: String,
    /// The price to be told about: above the market (a rise to it) or below (a fall to it).
    #[schema(pattern = "^[0-9]{1,12}(\\.[0-9]{1,10})?$")]
    pub price: String,
}

/// My waiting price alerts.
#[utoipa::path(get, path = "/api/user/price-alerts", tag = "account", security(("user" = [])),
    responses((status = 200, body = Envelope<AlertsAnswer>), (status = 401, body = ErrorEnvelope)))]
async fn alerts(State(state): State<AppState>, user: User) -> Answer<AlertsAnswer> {
    let id = user.id;
    let waiting = state.query(move |e| e.price_alerts(id)).await?;
    ok(AlertsAnswer {
        waiting: waiting.iter().map(AlertRow::waiting).collect(),
        max: PRICE_ALERTS_PER_USER_MAX,
    })
}

/// Set a price alert. Refused at the current price (there is nothing to cross), with more
/// decimals than the product's prices have, or past the per-user bound.
#[utoipa::path(post, path = "/api/user/price-alerts", tag = "account", security(("user" = [])), request_body = NewAlert,
    responses((status = 200, body = Envelope<AlertRow>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 404, description = "PRODUCT_NOT_FOUND", body = ErrorEnvelope), (status = 409, description = "TOO_MANY_PRICE_ALERTS", body = ErrorEnvelope)))]
async fn set_alert(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    Body(body): Body<NewAlert>,
) -> Answer<AlertRow> {
    let symbol = crate::trading::symbol(&body.symbol)?;
    let price = dto::plain_decimal(&body.price, 12, 10)
        .filter(|p| !p.is_zero())
        .ok_or_else(|| ApiError::invalid("price", "price"))?;
    // The engine decides; these reads only give the refusals a clearer message.
    let (precision, last) = state
        .query(move |e| Some((e.product(symbol)?.precision, e.last_tick(symbol).map(|t| t.price))))
        .await?
        .ok_or(EngineError::ProductNotFound)?;
    if price.normalize().scale() > u32::from(precision) {
        return Err(ApiError::invalid("price", "price_decimals").arg("decimals", precision));
    }
    if last == Some(price) {
        return Err(ApiError::invalid("price", "price_at_market"));
    }
    let command = Command::SetPriceAlert { user: user.id, symbol, price };
    match state.submit(key, command).await? {
        Reply::AlertCreated { alert } => ok(AlertRow::waiting(&alert)),
        _ => Err(ApiError::internal("set alert answered otherwise")),
    }
}

/// Remove a waiting price alert.
#[utoipa::path(delete, path = "/api/user/price-alerts/{id}", tag = "account", security(("user" = [])),
    params(("id" = u64, Path, description = "Alert number")),
    responses((status = 200, body = Envelope<Empty>), (status = 401, body = ErrorEnvelope), (status = 404, description = "PRICE_ALERT_NOT_FOUND", body = ErrorEnvelope)))]
async fn cancel_alert(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    PathValue(id): PathValue<u64>,
) -> Answer<Empty> {
    state.submit(key, Command::CancelPriceAlert { user: user.id, alert: id }).await?;
    ok(Empty {})
}

/// My fired price alerts, newest first (also how the notification centre catches up on
/// alerts that fired while the user was away).
#[utoipa::path(get, path = "/api/user/price-alerts/fired", tag = "account", security(("user" = [])), params(PageQuery),
    responses((status = 200, body = Envelope<Page<AlertRow>>), (status = 401, body = ErrorEnvelope)))]
async fn fired_alerts(
    State(state): State<AppState>,
    user: User,
    Params(query): Params<PageQuery>,
) -> Answer<Page<AlertRow>> {
    ok(state.history().await?.fired_alerts(user.id.into(), query.paging()?)?)
}
