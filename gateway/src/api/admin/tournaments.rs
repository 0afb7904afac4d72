//! Tournaments in the back-office: drafts, publication (which fixes the rules and holds the
//! guaranteed pool aside) and cancellation before the start (which refunds every fee). Each is
//! an audited engine command under the game rules' permission.

use axum::extract::State;
use axum::http::StatusCode;
use engine::tournament::TournamentRules;
use engine::types::Area;
use engine::{AdminAction, Engine, Reply};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::act;
use crate::api::auth::{Admin, Body, PathValue};
use crate::api::tournaments::{
    read_detail, TournamentDetail, TournamentRulesView, TournamentSummary,
};
use crate::api::{ok, Answer, ApiError, AppState, Envelope, ErrorEnvelope, IdempotencyKey};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(detail, update))
        .routes(routes!(publish))
        .routes(routes!(cancel))
}

/// Every tournament kept, drafts included, newest first.
#[utoipa::path(get, path = "/api/admin/tournaments", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<Vec<TournamentSummary>>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn list(State(state): State<AppState>, admin: Admin) -> Answer<Vec<TournamentSummary>> {
    admin.reads(Area::Rules)?;
    let now = state.now();
    let list = state
        .query(move |e: &Engine| {
            e.tournaments().rev().map(|t| TournamentSummary::of(t, now)).collect::<Vec<_>>()
        })
        .await?;
    ok(list)
}

/// A tournament with its standings, drafts included.
#[utoipa::path(get, path = "/api/admin/tournaments/{id}", tag = "admin", security(("admin" = [])),
    params(("id" = u32, Path, description = "Tournament number")),
    responses((status = 200, body = Envelope<TournamentDetail>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, description = "TOURNAMENT_NOT_FOUND", body = ErrorEnvelope)))]
async fn detail(
    State(state): State<AppState>,
    admin: Admin,
    PathValue(id): PathValue<u32>,
) -> Answer<TournamentDetail> {
    admin.reads(Area::Rules)?;
    ok(read_detail(&state, id, true).await?)
}

/// Create a draft tournament (players see it once published).
#[utoipa::path(post, path = "/api/admin/tournaments", tag = "admin", security(("admin" = [])), request_body = TournamentRulesView,
    responses((status = 200, body = Envelope<TournamentDetail>), (status = 400, description = "VALIDATION", body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 409, description = "LIMIT_REACHED", body = ErrorEnvelope)))]
async fn create(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<TournamentRulesView>,
) -> Answer<TournamentDetail> {
    admin.writes(Area::Rules)?;
    let rules = Box::new(body.parse()?);
    real_money_allowed(&state, &rules)?;
    match act(&state, &admin, key, AdminAction::CreateTournament(rules)).await? {
        Reply::TournamentCreated { tournament } => ok(read_detail(&state, tournament, true).await?),
        _ => Err(ApiError::internal("a tournament was created without its number")),
    }
}

/// Replace a draft's rules.
#[utoipa::path(put, path = "/api/admin/tournaments/{id}", tag = "admin", security(("admin" = [])),
    params(("id" = u32, Path, description = "Tournament number")), request_body = TournamentRulesView,
    responses((status = 200, body = Envelope<TournamentDetail>), (status = 400, description = "VALIDATION", body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "TOURNAMENT_NOT_FOUND", body = ErrorEnvelope), (status = 409, description = "TOURNAMENT_CLOSED: published already", body = ErrorEnvelope)))]
async fn update(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u32>,
    Body(body): Body<TournamentRulesView>,
) -> Answer<TournamentDetail> {
    admin.writes(Area::Rules)?;
    let rules = Box::new(body.parse()?);
    real_money_allowed(&state, &rules)?;
    act(&state, &admin, key, AdminAction::UpdateTournament { tournament: id, rules }).await?;
    ok(read_detail(&state, id, true).await?)
}

/// Publish a draft: players see it and may enter; its rules are fixed from now on, and the
/// house holds its guaranteed pool and every fee aside until it ends.
#[utoipa::path(post, path = "/api/admin/tournaments/{id}/publish", tag = "admin", security(("admin" = [])),
    params(("id" = u32, Path, description = "Tournament number")),
    responses((status = 200, body = Envelope<TournamentDetail>), (status = 400, description = "VALIDATION", body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "TOURNAMENT_NOT_FOUND", body = ErrorEnvelope), (status = 409, description = "TOURNAMENT_CLOSED, HOUSE_EXPOSURE_LIMIT", body = ErrorEnvelope)))]
async fn publish(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u32>,
) -> Answer<TournamentDetail> {
    admin.writes(Area::Rules)?;
    act(&state, &admin, key, AdminAction::PublishTournament { tournament: id }).await?;
    ok(read_detail(&state, id, true).await?)
}

/// Cancel a tournament before its start (a draft at any time): every fee is refunded.
#[utoipa::path(post, path = "/api/admin/tournaments/{id}/cancel", tag = "admin", security(("admin" = [])),
    params(("id" = u32, Path, description = "Tournament number")),
    responses((status = 200, body = Envelope<TournamentDetail>), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "TOURNAMENT_NOT_FOUND", body = ErrorEnvelope), (status = 409, description = "TOURNAMENT_CLOSED: started already", body = ErrorEnvelope)))]
async fn cancel(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    PathValue(id): PathValue<u32>,
) -> Answer<TournamentDetail> {
    admin.writes(Area::Rules)?;
    act(&state, &admin, key, AdminAction::CancelTournament { tournament: id }).await?;
    ok(read_detail(&state, id, true).await?)
}

/// Refuses real money (a fee or a guaranteed pool) on a tournament played on simulated prices,
/// unless the operator allowed real money on them: a prize would follow a simulator, not a
/// market (decisions §8).
fn real_money_allowed(state: &AppState, rules: &TournamentRules) -> Result<(), ApiError> {
    let real = [rules.entry_fee, rules.rebuy_fee, rules.pool_min].iter().any(|m| m.is_positive());
    if !real || state.real_money_on_simulated_prices {
        return Ok(());
    }
    let simulated = if rules.symbols.is_empty() {
        let now = state.now();
        state.market.products(now).iter().any(|p| state.market.is_simulated(p.instrument.symbol))
    } else {
        rules.symbols.iter().any(|s| state.market.is_simulated(*s))
    };
    if simulated {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "SIMULATED_PRICES_DEMO_ONLY"));
    }
    Ok(())
}
