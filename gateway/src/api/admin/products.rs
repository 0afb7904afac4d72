//! Products: the traded list, the catalogue of what can be listed, listing and updating.

use axum::extract::State;
use axum::http::StatusCode;
use engine::types::{Area, MarketHours, Symbol};
use engine::AdminAction;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::auth::{Admin, Body, PathValue};
use crate::api::dto::{self};
use crate::api::{ok, Answer, ApiError, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey};
use crate::trading::path_symbol;

use super::act;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(products, add_product))
        .routes(routes!(catalogue))
        .routes(routes!(update_product))
}

/// A product in the back-office.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProductAdmin {
    /// Product code, e.g. `BTCUSDT`.
    pub symbol: String,
    /// Display name, e.g. `Bitcoin`.
    pub name: String,
    /// crypto or forex.
    pub category: String,
    /// Price decimals.
    pub precision: u8,
    /// Whether users may place orders on it now.
    pub enabled: bool,
    /// `always` or `forex` (closed Friday 22:00 - Sunday 22:00 UTC).
    pub hours: String,
    /// Where its prices come from: `simulated`, `replay: FILE` or `exchange: HOST`.
    pub source: String,
}

/// Every product the engine knows, enabled or not, in the back-office's order.
#[utoipa::path(get, path = "/api/admin/products", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Vec<ProductAdmin>>), (status = 401, body = ErrorEnvelope)))]
async fn products(State(state): State<AppState>, admin: Admin) -> Answer<Vec<ProductAdmin>> {
    admin.reads(Area::Products)?;
    let sources: std::collections::HashMap<Symbol, String> = state
        .market
        .products(state.now())
        .into_iter()
        .map(|p| (p.instrument.symbol, p.source))
        .collect();
    let list = state
        .query(move |e| {
            e.products()
                .iter()
                .map(|p| ProductAdmin {
                    source: sources.get(&p.symbol).cloned().unwrap_or_default(),
                    symbol: p.symbol.to_string(),
                    name: p.name.clone(),
                    category: crate::names::category_name(p.category).into(),
                    precision: p.precision,
                    enabled: p.enabled,
                    hours: hours_name(&p.hours).into(),
                })
                .collect()
        })
        .await?;
    ok(list)
}

/// A catalogue product not listed yet.
#[derive(Debug, Serialize, ToSchema)]
pub struct CatalogueItem {
    /// Product code, e.g. `BTCUSDT`.
    pub symbol: String,
    /// Display name, e.g. `Bitcoin`.
    pub name: String,
    /// crypto or forex.
    pub category: String,
    /// Price decimals.
    pub precision: u8,
    /// `always` or `forex`.
    pub hours: String,
    /// Where its prices would come from.
    pub source: String,
}

/// The catalogue's products that are not listed yet (an admin may add them).
#[utoipa::path(get, path = "/api/admin/catalogue", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Vec<CatalogueItem>>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn catalogue(State(state): State<AppState>, admin: Admin) -> Answer<Vec<CatalogueItem>> {
    admin.reads(Area::Products)?;
    let items = state
        .market
        .unlisted(state.now())
        .into_iter()
        .map(|p| CatalogueItem {
            symbol: p.instrument.symbol.to_string(),
            name: p.instrument.name.clone(),
            category: crate::names::category_name(p.instrument.category).into(),
            precision: p.instrument.precision,
            hours: hours_name(&p.instrument.hours()).into(),
            source: p.source,
        })
        .collect();
    ok(items)
}

/// `{symbol}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct AddProductBody {
    /// A catalogue code not listed yet.
    #[schema(required = true, pattern = "^[A-Za-z0-9]{3,16}$")]
    pub symbol: String,
}

/// List a catalogue product: it is shown, priced and tradable from now on (disable it on the
/// products page to stop trading).
#[utoipa::path(post, path = "/api/admin/products", tag = "admin", security(("admin" = [])), request_body = AddProductBody,
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, description = "PRODUCT_NOT_FOUND: not in the catalogue", body = ErrorEnvelope), (status = 409, description = "PRODUCT_LISTED", body = ErrorEnvelope)))]
async fn add_product(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<AddProductBody>,
) -> Answer<Empty> {
    admin.writes(Area::Products)?;
    let symbol = path_symbol(&body.symbol)?;
    let instrument = state.market.instruments().iter().find(|i| i.symbol == symbol).cloned();
    let instrument =
        instrument.ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "PRODUCT_NOT_FOUND"))?;
    if state.query(move |e| e.product(symbol).is_some()).await? {
        return Err(ApiError::new(StatusCode::CONFLICT, "PRODUCT_LISTED"));
    }
    act(&state, &admin, key, market_feed::feed::listing(&instrument)).await?;
    state.market.list(symbol);
    ok(Empty {})
}

fn hours_name(hours: &MarketHours) -> &'static str {
    if *hours == MarketHours::Always {
        "always"
    } else {
        "forex"
    }
}

/// `{name, enabled}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct ProductBody {
    /// Display name.
    #[schema(required = true, min_length = 1, max_length = 100)]
    pub name: String,
    /// Tradable (false when absent).
    pub enabled: bool,
}

/// Rename, enable or disable a product.
#[utoipa::path(put, path = "/api/admin/products/{symbol}", tag = "admin", security(("admin" = [])), request_body = ProductBody,
    params(("symbol" = String, Path, description = "Product code")),
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn update_product(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(code): PathValue<String>,
    Body(body): Body<ProductBody>,
) -> Answer<Empty> {
    admin.writes(Area::Products)?;
    let symbol = Symbol::new(&code).ok_or_else(|| ApiError::invalid("symbol", "symbol"))?;
    let name = dto::text("name", &body.name, dto::FIELD_CHARS_MAX, "product")?;
    let current = state.query(move |e| e.product(symbol).cloned()).await?;
    let product =
        current.ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "PRODUCT_NOT_FOUND"))?;
    let action = AdminAction::UpsertProduct {
        symbol,
        name,
        category: product.category,
        precision: product.precision,
        enabled: body.enabled,
        hours: product.hours,
    };
    act(&state, &admin, key, action).await?;
    ok(Empty {})
}
