//! Tournaments (decisions §11): the lobby, a tournament's rules and standings, entering and
//! rebuying, and each player's contracts in it, public so that anyone can re-derive the table.
//! The tournaments and their seats are the engine's state (read with a query); the contracts
//! are the read model's rows.

use axum::extract::State;
use engine::money::Money;
use engine::tournament::{self, Tournament, TournamentRules, TournamentStatus, BASIS_POINTS};
use engine::types::{Symbol, UserId};
use engine::{Command, Engine, EngineError};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Params, PathValue, User};
use super::dto::{self, PageQuery};
use super::wallet::masked;
use super::{ok, Answer, ApiError, ApiResult, AppState, Envelope, ErrorEnvelope, IdempotencyKey};
use crate::readmodel::{ContractRow, Page};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(lobby))
        .routes(routes!(mine))
        .routes(routes!(detail))
        .routes(routes!(join))
        .routes(routes!(rebuy))
        .routes(routes!(player_contracts))
}

/// Standings shown with a running tournament: the first places (my own place comes with
/// `GET /api/tournaments/mine`; a finished table is shown whole).
pub const STANDINGS_SHOWN: usize = 100;

/// A tournament's rules as the API writes them: amounts as strings, shares in basis points
/// (1/100 of a percent). Every field is required: a rule left out is refused, never taken
/// as a default (an empty product list means every product, so it must be said).
#[derive(Debug, Default, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TournamentRulesView {
    /// Shown in the lobby (1-60 characters).
    #[schema(required = true, min_length = 1, max_length = 60)]
    pub title: String,
    /// Products played; empty for every product.
    #[schema(required = true)]
    pub symbols: Vec<String>,
    /// Contract durations allowed, in seconds; empty for every rule's.
    #[schema(required = true)]
    pub durations: Vec<u32>,
    /// Trading opens (ms).
    #[schema(required = true)]
    pub start_at: u64,
    /// Trading ends (ms): no contract expires after it.
    #[schema(required = true)]
    pub end_at: u64,
    /// Real USDT to enter ("0": free).
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub entry_fee: String,
    /// The tournament balance an entry and each rebuy bring.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub start_balance: String,
    /// Rebuys per player (0-100).
    #[schema(required = true, maximum = 100)]
    pub rebuys_max: u8,
    /// Real USDT per rebuy.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub rebuy_fee: String,
    /// A rebuy is allowed while the tournament balance is below this.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub rebuy_below: String,
    /// The pool's share of the fees, in basis points (8000 = 80 %).
    #[schema(required = true, maximum = 10000)]
    pub pool_share_bp: u16,
    /// The pool's guaranteed minimum in USDT.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub pool_min: String,
    /// Each paid place's share of the pool in basis points, first place first, summing to
    /// 10000.
    #[schema(required = true)]
    pub prizes_bp: Vec<u16>,
}

impl TournamentRulesView {
    pub fn of(r: &TournamentRules) -> TournamentRulesView {
        TournamentRulesView {
            title: r.title.clone(),
            symbols: r.symbols.iter().map(Symbol::to_string).collect(),
            durations: r.durations.clone(),
            start_at: r.start_ms,
            end_at: r.end_ms,
            entry_fee: r.entry_fee.to_string(),
            start_balance: r.start_balance.to_string(),
            rebuys_max: r.rebuys_max,
            rebuy_fee: r.rebuy_fee.to_string(),
            rebuy_below: r.rebuy_below.to_string(),
            pool_share_bp: r.pool_share_bp,
            pool_min: r.pool_min.to_string(),
            prizes_bp: r.prizes_bp.clone(),
        }
    }

    /// The rules, each field checked for its form (the engine checks the figures against
    /// each other, the clock and the catalogue).
    pub fn parse(&self) -> ApiResult<TournamentRules> {
        let money = |field: &'static str, value: &str| {
            dto::plain_decimal(value, 10, 2)
                .and_then(Money::from_decimal)
                .filter(|m| !m.is_negative())
                .ok_or_else(|| ApiError::invalid(field, "amount"))
        };
        let symbols = (self.symbols.iter())
            .map(|s| {
                Symbol::new(&s.to_uppercase()).ok_or_else(|| ApiError::invalid("symbols", "symbol"))
            })
            .collect::<ApiResult<Vec<_>>>()?;
        if self.pool_share_bp > BASIS_POINTS {
            return Err(ApiError::invalid("poolShareBp", "tournament_share"));
        }
        let shares: u32 = self.prizes_bp.iter().map(|&p| u32::from(p)).sum();
        if self.prizes_bp.is_empty() || shares != u32::from(BASIS_POINTS) {
            return Err(ApiError::invalid("prizesBp", "tournament_prizes"));
        }
        if self.end_at <= self.start_at {
            return Err(ApiError::invalid("endAt", "tournament_times"));
        }
        Ok(TournamentRules {
            title: dto::text(
                "title",
                &self.title,
                tournament::TITLE_LENGTH_MAX,
                "tournament_title",
            )?,
            symbols,
            durations: self.durations.clone(),
            start_ms: self.start_at,
            end_ms: self.end_at,
            entry_fee: money("entryFee", &self.entry_fee)?,
            start_balance: money("startBalance", &self.start_balance)?,
            rebuys_max: self.rebuys_max,
            rebuy_fee: money("rebuyFee", &self.rebuy_fee)?,
            rebuy_below: money("rebuyBelow", &self.rebuy_below)?,
            pool_share_bp: self.pool_share_bp,
            pool_min: money("poolMin", &self.pool_min)?,
            prizes_bp: self.prizes_bp.clone(),
        })
    }
}

/// Where a tournament is: `draft` (admins only), `upcoming`, `running`, `ending` (past its
/// end, its last contracts settling), `finished` or `cancelled`.
fn phase(t: &Tournament, now_ms: u64) -> &'static str {
    match t.status {
        TournamentStatus::Draft => "draft",
        TournamentStatus::Finished => "finished",
        TournamentStatus::Cancelled => "cancelled",
        TournamentStatus::Published if now_ms < t.rules.start_ms => "upcoming",
        TournamentStatus::Published if now_ms < t.rules.end_ms => "running",
        TournamentStatus::Published => "ending",
    }
}

/// A tournament in the lobby.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TournamentSummary {
    pub id: u32,
    /// `draft`, `upcoming`, `running`, `ending`, `finished` or `cancelled`.
    pub status: &'static str,
    pub rules: TournamentRulesView,
    /// Players entered.
    pub players: u32,
    /// The prize pool: what the fees so far make it (never below the minimum), or what was
    /// paid once finished.
    pub pool: String,
    /// Each paid place's prize from that pool, first place first.
    pub prizes: Vec<String>,
    /// When it finished or was cancelled (ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed_at: Option<u64>,
}

impl TournamentSummary {
    pub fn of(t: &Tournament, now_ms: u64) -> TournamentSummary {
        let pool = match t.status {
            TournamentStatus::Finished => t.pool,
            _ => t.rules.pool_for(t.fees),
        };
        let prizes = match t.status {
            TournamentStatus::Finished => {
                t.table.iter().take(t.rules.prizes_bp.len()).map(|p| p.prize).collect()
            }
            _ => t.rules.prizes_of(pool),
        };
        TournamentSummary {
            id: t.id,
            status: phase(t, now_ms),
            rules: TournamentRulesView::of(&t.rules),
            players: t.seats.len() as u32,
            pool: pool.to_string(),
            prizes: prizes.iter().map(Money::to_string).collect(),
            closed_at: (t.closed_ms > 0).then_some(t.closed_ms),
        }
    }
}

/// A player's place.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Standing {
    /// 1 for the first.
    pub place: u32,
    pub uid: u32,
    /// Their name, masked.
    pub name: String,
    /// Tournament balance, available and in position: what ranks.
    pub balance: String,
    /// Log index at which it was reached (of two equal balances, the earlier ranks higher).
    pub reached_index: u64,
    /// Rebuys made.
    pub rebuys: u8,
    /// The prize for this place: won once finished, the pool's share for it so far before.
    pub prize: String,
}

/// A tournament with its first places.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TournamentDetail {
    pub tournament: TournamentSummary,
    /// The first [`STANDINGS_SHOWN`] places of now, or the whole final table once finished.
    pub standings: Vec<Standing>,
}

/// The places of a tournament now, best first, each with its masked name; `only` keeps one
/// player's.
fn standings(e: &Engine, t: &Tournament, only: Option<UserId>) -> Vec<Standing> {
    let table = if t.status == TournamentStatus::Finished {
        t.table.clone()
    } else {
        tournament::rank(&t.seats, &t.rules.prizes_of(t.rules.pool_for(t.fees)))
    };
    let rebuys = |user: UserId| t.seats.iter().find(|s| s.user == user).map_or(0, |s| s.rebuys);
    // A finished table is shown whole: anyone may re-derive it, prizes and all.
    let shown = if t.status == TournamentStatus::Finished { usize::MAX } else { STANDINGS_SHOWN };
    (table.iter().enumerate())
        .filter(|(_, p)| only.is_none_or(|u| u == p.user))
        .take(shown)
        .map(|(at, p)| Standing {
            place: at as u32 + 1,
            uid: p.user.into(),
            name: e.user(p.user).map(|u| masked(&u.username)).unwrap_or_default(),
            balance: p.balance.to_string(),
            reached_index: p.reached_index,
            rebuys: rebuys(p.user),
            prize: p.prize.to_string(),
        })
        .collect()
}

/// The tournaments players see (drafts are the back-office's), newest first.
#[utoipa::path(get, path = "/api/tournaments", tag = "tournaments",
    responses((status = 200, body = Envelope<Vec<TournamentSummary>>)))]
async fn lobby(State(state): State<AppState>) -> Answer<Vec<TournamentSummary>> {
    let now = state.now();
    let list = state
        .query(move |e: &Engine| {
            (e.tournaments().rev())
                .filter(|t| t.status != TournamentStatus::Draft)
                .map(|t| TournamentSummary::of(t, now))
                .collect::<Vec<_>>()
        })
        .await?;
    ok(list)
}

/// A tournament, its rules and its first places (the final table once finished).
#[utoipa::path(get, path = "/api/tournaments/{id}", tag = "tournaments",
    params(("id" = u32, Path, description = "Tournament number")),
    responses((status = 200, body = Envelope<TournamentDetail>), (status = 404, description = "TOURNAMENT_NOT_FOUND", body = ErrorEnvelope)))]
async fn detail(
    State(state): State<AppState>,
    PathValue(id): PathValue<u32>,
) -> Answer<TournamentDetail> {
    ok(read_detail(&state, id, false).await?)
}

/// The tournament `id` as players see it (`drafts`: as admins do).
pub(crate) async fn read_detail(
    state: &AppState,
    id: u32,
    drafts: bool,
) -> ApiResult<TournamentDetail> {
    let now = state.now();
    let read = state
        .query(move |e: &Engine| {
            let t = e.tournament(id).filter(|t| drafts || t.status != TournamentStatus::Draft)?;
            Some(TournamentDetail {
                tournament: TournamentSummary::of(t, now),
                standings: standings(e, t, None),
            })
        })
        .await?;
    read.ok_or_else(|| EngineError::TournamentNotFound.into())
}

/// A tournament I entered, with my place.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MyTournament {
    pub tournament: TournamentSummary,
    /// My place, balance and prize.
    pub me: Standing,
    /// Rebuys left to me.
    pub rebuys_left: u8,
}

/// The tournaments I entered that are kept, newest first, each with my place: the one
/// running now is the tournament balance my orders trade from.
#[utoipa::path(get, path = "/api/tournaments/mine", tag = "tournaments", security(("user" = [])),
    responses((status = 200, body = Envelope<Vec<MyTournament>>), (status = 401, body = ErrorEnvelope)))]
async fn mine(State(state): State<AppState>, user: User) -> Answer<Vec<MyTournament>> {
    ok(read_mine(&state, user.id).await?)
}

async fn read_mine(state: &AppState, user: UserId) -> ApiResult<Vec<MyTournament>> {
    let now = state.now();
    let list = state
        .query(move |e: &Engine| {
            (e.tournaments().rev())
                .filter(|t| t.seats.iter().any(|s| s.user == user))
                .filter_map(|t| {
                    let me = standings(e, t, Some(user)).pop()?;
                    let seat = t.seats.iter().find(|s| s.user == user)?;
                    Some(MyTournament {
                        tournament: TournamentSummary::of(t, now),
                        me,
                        rebuys_left: t.rules.rebuys_max.saturating_sub(seat.rebuys),
                    })
                })
                .collect::<Vec<_>>()
        })
        .await?;
    Ok(list)
}

/// Enter a tournament: its entry fee is debited from my real balance (a bill), and my
/// tournament balance starts at its start balance. Entering twice changes nothing.
#[utoipa::path(post, path = "/api/tournaments/{id}/join", tag = "tournaments", security(("user" = [])),
    params(("id" = u32, Path, description = "Tournament number")),
    responses((status = 200, body = Envelope<Vec<MyTournament>>), (status = 401, body = ErrorEnvelope),
        (status = 403, description = "ACCOUNT_FROZEN, SELF_EXCLUDED", body = ErrorEnvelope), (status = 404, description = "TOURNAMENT_NOT_FOUND", body = ErrorEnvelope),
        (status = 409, description = "TOURNAMENT_CLOSED, TOURNAMENT_OVERLAP, TOURNAMENT_FULL, DAILY_LOSS_LIMIT", body = ErrorEnvelope),
        (status = 400, description = "INSUFFICIENT_BALANCE", body = ErrorEnvelope)))]
async fn join(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    PathValue(id): PathValue<u32>,
) -> Answer<Vec<MyTournament>> {
    state.submit(key, Command::JoinTournament { user: user.id, tournament: id }).await?;
    ok(read_mine(&state, user.id).await?)
}

/// Buy another start balance in a running tournament, while my tournament balance is below
/// its rebuy level and rebuys are left.
#[utoipa::path(post, path = "/api/tournaments/{id}/rebuy", tag = "tournaments", security(("user" = [])),
    params(("id" = u32, Path, description = "Tournament number")),
    responses((status = 200, body = Envelope<Vec<MyTournament>>), (status = 401, body = ErrorEnvelope),
        (status = 404, description = "TOURNAMENT_NOT_FOUND", body = ErrorEnvelope),
        (status = 409, description = "TOURNAMENT_CLOSED, NO_TOURNAMENT_BALANCE, REBUY_UNAVAILABLE, DAILY_LOSS_LIMIT", body = ErrorEnvelope),
        (status = 400, description = "INSUFFICIENT_BALANCE", body = ErrorEnvelope)))]
async fn rebuy(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    PathValue(id): PathValue<u32>,
) -> Answer<Vec<MyTournament>> {
    state.submit(key, Command::Rebuy { user: user.id, tournament: id }).await?;
    ok(read_mine(&state, user.id).await?)
}

/// A player's contracts in a tournament, newest first: public, so that anyone can re-derive
/// the standings from them and the archived ticks.
#[utoipa::path(get, path = "/api/tournaments/{id}/players/{uid}/contracts", tag = "tournaments",
    params(("id" = u32, Path, description = "Tournament number"), ("uid" = u32, Path, description = "The player's UID"), PageQuery),
    responses((status = 200, body = Envelope<Page<ContractRow>>), (status = 400, body = ErrorEnvelope), (status = 404, description = "TOURNAMENT_NOT_FOUND", body = ErrorEnvelope)))]
async fn player_contracts(
    State(state): State<AppState>,
    PathValue((id, uid)): PathValue<(u32, u32)>,
    Params(query): Params<PageQuery>,
) -> Answer<Page<ContractRow>> {
    let seated = state
        .query(move |e: &Engine| {
            let t = e.tournament(id).filter(|t| t.status != TournamentStatus::Draft)?;
            Some(t.seats.iter().any(|s| s.user == UserId(uid)))
        })
        .await?;
    if seated != Some(true) {
        return Err(EngineError::TournamentNotFound.into());
    }
    let history = state.history().await?;
    ok(history.contracts(uid, |r| r.tournament == Some(id), query.paging()?)?)
}
