//! The house's funds.

use axum::extract::State;
use engine::types::Area;
use engine::AdminAction;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::auth::{Admin, Body};
use crate::api::dto::{self};
use crate::api::{ok, Answer, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey};

use super::act;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(fund_house))
}

/// `{amount}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct FundBody {
    /// Amount of seed capital to add.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub amount: String,
}

/// Add seed capital to the house (super admins only).
#[utoipa::path(post, path = "/api/admin/house/fund", tag = "admin", security(("admin" = [])), request_body = FundBody,
    responses((status = 200, body = Envelope<Empty>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn fund_house(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<FundBody>,
) -> Answer<Empty> {
    admin.writes(Area::House)?;
    let amount = dto::amount("amount", &body.amount)?;
    act(&state, &admin, key, AdminAction::FundHouse { amount }).await?;
    ok(Empty {})
}
