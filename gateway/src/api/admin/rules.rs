//! Game rules: the published trading rules per duration (never outcomes).

use axum::extract::State;
use engine::types::{Area, Rule};
use engine::AdminAction;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::auth::{Admin, Body, PathValue};
use crate::api::dto::{self};
use crate::api::trade::{self, rule_views, EarlyClose, RuleView};
use crate::api::{
    ok, Answer, ApiError, ApiResult, AppState, Envelope, ErrorEnvelope, IdempotencyKey,
};
use engine::sale::{DurationSpread, ProductSale, SaleTerms};

use super::act;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(rules, set_rule))
        .routes(routes!(remove_rule))
        .routes(routes!(early_close, set_early_close))
}

/// Early close's terms in force.
#[utoipa::path(get, path = "/api/admin/rules/early-close", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<EarlyClose>), (status = 401, body = ErrorEnvelope)))]
async fn early_close(State(state): State<AppState>, admin: Admin) -> Answer<EarlyClose> {
    admin.reads(Area::Rules)?;
    ok(state.query(trade::early_close).await?)
}

/// Early close's terms to set (audited; they apply to sales from now on).
#[derive(Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct EarlyCloseBody {
    /// Offered at all.
    pub enabled: bool,
    /// No offer in the last this many seconds before expiry.
    #[schema(required = true, value_type = u32)]
    pub cutoff_secs: Option<u32>,
    /// The spread of a duration without one of its own (0-1).
    #[schema(required = true, pattern = "^[0-9](\\.[0-9]{1,4})?$")]
    pub spread: String,
    /// Durations with a spread of their own.
    pub durations: Vec<DurationSpreadBody>,
    /// Products with a spread added, or without early close.
    pub products: Vec<ProductSaleBody>,
}

/// One duration's spread.
#[derive(Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(default)]
pub struct DurationSpreadBody {
    /// Duration in seconds.
    #[schema(required = true, value_type = u32, minimum = 1)]
    pub duration: Option<u32>,
    /// Spread (0-1).
    #[schema(required = true, pattern = "^[0-9](\\.[0-9]{1,4})?$")]
    pub spread: String,
}

/// One product's early close.
#[derive(Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(default)]
pub struct ProductSaleBody {
    /// Product code.
    #[schema(required = true, pattern = "^[A-Za-z0-9]{3,16}$")]
    pub symbol: String,
    /// Its contracts may be sold back.
    pub enabled: bool,
    /// Added to the duration's spread (0-1).
    #[schema(required = true, pattern = "^[0-9](\\.[0-9]{1,4})?$")]
    pub spread: String,
}

/// Replace early close's terms.
#[utoipa::path(put, path = "/api/admin/rules/early-close", tag = "admin", security(("admin" = [])), request_body = EarlyCloseBody,
    responses((status = 200, body = Envelope<EarlyClose>), (status = 400, description = "VALIDATION", body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn set_early_close(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<EarlyCloseBody>,
) -> Answer<EarlyClose> {
    admin.writes(Area::Rules)?;
    let durations = (body.durations.iter())
        .map(|d| {
            let spread = rate("durations", &d.spread)?;
            let duration_secs =
                d.duration.ok_or_else(|| ApiError::invalid("durations", "duration"))?;
            Ok(DurationSpread { duration_secs, spread })
        })
        .collect::<ApiResult<Vec<_>>>()?;
    let products = (body.products.iter())
        .map(|p| {
            let symbol = engine::types::Symbol::new(&p.symbol.to_uppercase())
                .ok_or_else(|| ApiError::invalid("products", "symbol"))?;
            Ok(ProductSale { symbol, enabled: p.enabled, spread: rate("products", &p.spread)? })
        })
        .collect::<ApiResult<Vec<_>>>()?;
    let terms = SaleTerms {
        enabled: body.enabled,
        cutoff_secs: body.cutoff_secs.ok_or_else(|| ApiError::invalid("cutoffSecs", "settings"))?,
        spread: rate("spread", &body.spread)?,
        durations,
        products,
    };
    act(&state, &admin, key, AdminAction::SetSaleTerms(Box::new(terms))).await?;
    ok(state.query(trade::early_close).await?)
}

/// Game rules (the published trading rules).
#[utoipa::path(get, path = "/api/admin/rules", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Vec<RuleView>>), (status = 401, body = ErrorEnvelope)))]
async fn rules(State(state): State<AppState>, admin: Admin) -> Answer<Vec<RuleView>> {
    admin.reads(Area::Rules)?;
    ok(state.query(rule_views).await?)
}

/// A rule to add or replace.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct RuleBody {
    /// Duration in seconds.
    #[schema(required = true, minimum = 1)]
    pub duration: u32,
    /// Payout rate (0-1), string.
    #[schema(required = true, pattern = "^[0-9](\\.[0-9]{1,4})?$")]
    pub payout_rate: String,
    /// Smallest stake.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub min_amount: String,
    /// Largest stake.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub max_amount: String,
    /// Fee rate (0-1).
    #[schema(required = true, pattern = "^[0-9](\\.[0-9]{1,4})?$")]
    pub fee_rate: String,
    /// Whether this duration is offered to users now.
    pub enabled: bool,
}

pub(super) fn rate(field: &'static str, value: &str) -> ApiResult<Decimal> {
    let parsed = dto::plain_decimal(value, 1, 4).ok_or_else(|| ApiError::invalid(field, "rate"))?;
    if parsed > Decimal::ONE {
        return Err(ApiError::invalid(field, "rate"));
    }
    Ok(parsed)
}

/// Add or replace the rule of one duration.
#[utoipa::path(put, path = "/api/admin/rules", tag = "admin", security(("admin" = [])), request_body = RuleBody,
    responses((status = 200, body = Envelope<Vec<RuleView>>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn set_rule(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<RuleBody>,
) -> Answer<Vec<RuleView>> {
    admin.writes(Area::Rules)?;
    if body.duration == 0 {
        return Err(ApiError::invalid("duration", "duration"));
    }
    let rule = Rule {
        duration_secs: body.duration,
        payout_rate: rate("payoutRate", &body.payout_rate)?,
        stake_min: dto::amount("minAmount", &body.min_amount)?,
        stake_max: dto::amount("maxAmount", &body.max_amount)?,
        fee_rate: rate("feeRate", &body.fee_rate)?,
        enabled: body.enabled,
    };
    act(&state, &admin, key, AdminAction::SetRule(rule)).await?;
    ok(state.query(rule_views).await?)
}

/// Remove the rule of one duration.
#[utoipa::path(delete, path = "/api/admin/rules/{duration}", tag = "admin", security(("admin" = [])),
    params(("duration" = u32, Path, description = "Duration in seconds")),
    responses((status = 200, body = Envelope<Vec<RuleView>>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, description = "RULE_NOT_FOUND", body = ErrorEnvelope)))]
async fn remove_rule(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(duration): PathValue<u32>,
) -> Answer<Vec<RuleView>> {
    admin.writes(Area::Rules)?;
    act(&state, &admin, key, AdminAction::RemoveRule { duration_secs: duration }).await?;
    ok(state.query(rule_views).await?)
}
