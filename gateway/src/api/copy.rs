//! Copy trading (decisions §11): traders who share their trades, their public (real-money) results,
//! and following them. Who copies whom is the engine's state (read with a query); results
//! come from the read model's per-hour sums of each trader's settled real contracts.

use std::sync::Arc;

use axum::extract::State;
use engine::copy::{CopySettings, CopyView, COPY_PERCENT_MAX};
use engine::copy::{FOLLOWERS_PER_LEADER_MAX, LEADERS_PER_FOLLOWER_MAX};
use engine::money::Money;
use engine::types::UserId;
use engine::{Command, Engine, EngineError};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Body, Params, PathValue, User};
use super::dto::{self, AccountParam, ResultPeriod};
use super::wallet::masked;
use super::{ok, Answer, ApiError, AppState, Envelope, ErrorEnvelope, IdempotencyKey};
use crate::names::WireName;
use crate::readmodel::rows::HourRow;
use crate::readmodel::{CopyNoteRow, Page};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(traders))
        .routes(routes!(trader))
        .routes(routes!(my_copy))
        .routes(routes!(set_sharing))
        .routes(routes!(follow, unfollow))
        .routes(routes!(remove_follower))
        .routes(routes!(copy_notes))
}

/// How long the public rankings are kept before they are added up again.
const BOARD_TTL_MS: u64 = 60_000;

/// How long the list of who shares is kept: anonymous readers of the rankings do not ask the
/// engine each time.
const SHARING_TTL_MS: u64 = 5_000;

const HOUR_MS: u64 = 3_600_000;

/// The three periods results are shown over.
const PERIODS_MS: [u64; 3] = [24 * HOUR_MS, 7 * 24 * HOUR_MS, 30 * 24 * HOUR_MS];

/// A trader's real results over a period.
#[derive(Debug, Clone, Default, Serialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TraderStats {
    /// Contracts settled with a result (voids are not counted).
    pub contracts: u32,
    /// Of them, the ones that ended in profit.
    pub wins: u32,
    /// wins / contracts, from 0 to 1 ("0" without contracts).
    #[schema(value_type = String)]
    pub win_rate: Decimal,
    /// Net result in USDT (credited − stakes − fees).
    #[schema(value_type = String)]
    pub profit: Decimal,
}

impl From<HourRow> for TraderStats {
    fn from(r: HourRow) -> TraderStats {
        let win_rate = if r.settled == 0 {
            Decimal::ZERO
        } else {
            (Decimal::from(r.wins) / Decimal::from(r.settled)).round_dp(4).normalize()
        };
        TraderStats {
            contracts: r.settled,
            wins: r.wins,
            win_rate,
            profit: Money::from_cents(r.profit_cents).to_decimal(),
        }
    }
}

/// A trader who shares their trades, with their results over the last 24 h, 7 d and 30 d
/// (by whole hours).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TraderProfile {
    /// UID.
    pub uid: u32,
    /// Their name, masked (`al***e`).
    pub name: String,
    /// How many copy them.
    pub followers: u32,
    /// Sharing since (ms).
    pub sharing_since: u64,
    /// The last 24 hours.
    pub day: TraderStats,
    /// The last 7 days.
    pub week: TraderStats,
    /// The last 30 days.
    pub month: TraderStats,
    /// When these figures were added up (ms); at most once a minute.
    pub refreshed_at: u64,
}

/// One row of the rankings.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TraderItem {
    pub uid: u32,
    /// Their name, masked.
    pub name: String,
    pub followers: u32,
    pub sharing_since: u64,
    /// Results over the period asked for.
    pub stats: TraderStats,
}

/// The rankings over a period: traders who share their trades, by profit, best first.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TraderBoard {
    /// `24h`, `7d` or `30d`.
    pub period: &'static str,
    /// When the figures were added up (ms); at most once a minute.
    pub refreshed_at: u64,
    pub items: Vec<TraderItem>,
}

/// The rankings' period.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// `24h` when absent.
    #[param(inline)]
    pub period: Option<ResultPeriod>,
}

/// Each trader's results over the three periods.
type Results = [TraderStats; 3];

/// Every trader's results by UID, as added up at one moment.
type ResultsByTrader = Arc<rustc_hash::FxHashMap<u32, Results>>;

/// Who shares, with their masked names, as read at one moment.
type Sharing = Arc<Vec<(engine::copy::LeaderSummary, String)>>;

/// The public figures: who shares and how many follow them are read from the engine at most
/// every [`SHARING_TTL_MS`] (at once after a change made here); each trader's results are added
/// up at most once a minute (a trader who starts sharing meanwhile has theirs added up at once,
/// alone).
#[derive(Debug, Default)]
pub struct Board {
    /// Who shares, and when that was read (ms).
    sharing: tokio::sync::Mutex<Option<(u64, Sharing)>>,
    /// The results by UID, and when they were added up (ms).
    results: tokio::sync::Mutex<Option<(u64, ResultsByTrader)>>,
}

impl Board {
    /// Who shares, read from the engine at most every [`SHARING_TTL_MS`].
    async fn sharing(&self, state: &AppState) -> Result<Sharing, ApiError> {
        let now = state.now();
        let mut sharing = self.sharing.lock().await;
        if let Some((at, list)) = sharing.as_ref() {
            if now.saturating_sub(*at) < SHARING_TTL_MS {
                return Ok(Arc::clone(list));
            }
        }
        // The names are copied on the engine thread and masked here.
        let read = state
            .query(|e: &Engine| {
                (e.copy_leaders().into_iter())
                    .map(|l| (l, e.user(l.user).map(|u| u.username.clone()).unwrap_or_default()))
                    .collect::<Vec<_>>()
            })
            .await?;
        let list: Sharing =
            Arc::new(read.into_iter().map(|(l, name)| (l, masked(&name))).collect());
        *sharing = Some((now, Arc::clone(&list)));
        Ok(list)
    }

    /// Forgets who shares, after a change this server made (the caller reads their own write).
    async fn changed(&self) {
        *self.sharing.lock().await = None;
    }

    /// Every sharing trader's profile, in UID order, and when the results were added up.
    async fn profiles(&self, state: &AppState) -> Result<(u64, Vec<TraderProfile>), ApiError> {
        let leaders = self.sharing(state).await?;
        let now = state.now();
        // Held while adding up, so that concurrent callers wait for one computation.
        let mut cached = self.results.lock().await;
        let fresh = cached.as_ref().filter(|(at, _)| now.saturating_sub(*at) < BOARD_TTL_MS);
        let (at, mut results) = match fresh {
            Some((at, results)) => (*at, Arc::clone(results)),
            None => (now, Arc::default()),
        };
        let missing: Vec<u32> = (leaders.iter().map(|(l, _)| l.user.get()))
            .filter(|uid| !results.contains_key(uid))
            .collect();
        if !missing.is_empty() {
            let added = Self::add_up(state, missing, now).await?;
            Arc::make_mut(&mut results).extend(added);
            *cached = Some((at, Arc::clone(&results)));
        }
        drop(cached);
        let profiles = leaders
            .iter()
            .map(|(leader, name)| {
                let [day, week, month] =
                    results.get(&leader.user.get()).cloned().unwrap_or_default();
                TraderProfile {
                    uid: leader.user.into(),
                    name: name.clone(),
                    followers: leader.followers,
                    sharing_since: leader.since_ms,
                    day,
                    week,
                    month,
                    refreshed_at: at,
                }
            })
            .collect();
        Ok((at, profiles))
    }

    /// The results of `traders` up to `now`, read off the runtime's workers (up to
    /// `LEADERS_MAX` traders of up to 720 hour rows each).
    async fn add_up(
        state: &AppState,
        traders: Vec<u32>,
        now: u64,
    ) -> Result<Vec<(u32, Results)>, ApiError> {
        let history = state.history().await?.clone();
        let windows = PERIODS_MS.map(|span| (now.saturating_sub(span), now + HOUR_MS));
        let add_up = move || {
            (traders.into_iter())
                .map(|uid| {
                    let sums = history.trader_results(uid, &windows)?;
                    Ok((uid, [0, 1, 2].map(|n| TraderStats::from(sums[n]))))
                })
                .collect::<Result<Vec<_>, ApiError>>()
        };
        tokio::task::spawn_blocking(add_up)
            .await
            .map_err(|_| ApiError::internal("the rankings were not added up"))?
    }
}

/// The rankings: traders who share their trades, by profit over the period (only real
/// results count). The results are added up at most once a minute.
#[utoipa::path(get, path = "/api/copy/traders", tag = "copy", params(BoardQuery),
    responses((status = 200, body = Envelope<TraderBoard>), (status = 400, body = ErrorEnvelope)))]
async fn traders(
    State(state): State<AppState>,
    Params(query): Params<BoardQuery>,
) -> Answer<TraderBoard> {
    let period = query.period.unwrap_or(ResultPeriod::Day);
    let (refreshed_at, profiles) = state.copy_board.profiles(&state).await?;
    let mut items: Vec<TraderItem> = profiles
        .into_iter()
        .map(|p| TraderItem {
            uid: p.uid,
            name: p.name,
            followers: p.followers,
            sharing_since: p.sharing_since,
            stats: match period {
                ResultPeriod::Day => p.day,
                ResultPeriod::Week => p.week,
                ResultPeriod::Month => p.month,
            },
        })
        .collect();
    items.sort_by(|a, b| b.stats.profit.cmp(&a.stats.profit).then(a.uid.cmp(&b.uid)));
    ok(TraderBoard { period: period.as_str(), refreshed_at, items })
}

/// A sharing trader's public profile: results over 24 h, 7 d and 30 d.
#[utoipa::path(get, path = "/api/copy/traders/{uid}", tag = "copy",
    params(("uid" = u32, Path, description = "UID")),
    responses((status = 200, body = Envelope<TraderProfile>), (status = 404, description = "NOT_COPYABLE", body = ErrorEnvelope)))]
async fn trader(
    State(state): State<AppState>,
    PathValue(uid): PathValue<u32>,
) -> Answer<TraderProfile> {
    let (_, profiles) = state.copy_board.profiles(&state).await?;
    match profiles.into_iter().find(|p| p.uid == uid) {
        Some(profile) => ok(profile),
        None => Err(EngineError::NotCopyable.into()),
    }
}

/// How a follower copies a leader. A copy's stake is `percent` of the leader's, rounded
/// half to even to the cent, raised to `minStake` and cut to `maxStake`.
#[derive(Debug, Default, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct CopySettingsView {
    /// The wallet the copies trade from.
    #[schema(required = true, inline, value_type = AccountParam)]
    pub account: String,
    /// A copy's stake as a percentage of the leader's.
    #[schema(required = true, minimum = 1, maximum = 1000)]
    pub percent: u16,
    /// The smallest stake of a copy.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub min_stake: String,
    /// The largest stake of a copy.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub max_stake: String,
    /// Copying ends when a leader's order finds my available balance (of that wallet) below
    /// this; "0" for never.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub stop_below: String,
}

impl CopySettingsView {
    fn of(s: &CopySettings) -> CopySettingsView {
        CopySettingsView {
            account: crate::names::account_name(s.account).into(),
            percent: s.percent,
            min_stake: s.min_stake.to_string(),
            max_stake: s.max_stake.to_string(),
            stop_below: s.stop_below.to_string(),
        }
    }

    fn parse(&self) -> Result<CopySettings, ApiError> {
        let account = engine::types::AccountKind::from_wire_name(&self.account)
            .ok_or_else(|| ApiError::invalid("account", "account"))?;
        if !(1..=COPY_PERCENT_MAX).contains(&self.percent) {
            return Err(ApiError::invalid("percent", "copy_percent"));
        }
        let money = |field: &'static str, value: Decimal| {
            Money::from_decimal(value).ok_or_else(|| ApiError::invalid(field, "amount"))
        };
        let min_stake = money("minStake", dto::amount("minStake", &self.min_stake)?)?;
        let max_stake = money("maxStake", dto::amount("maxStake", &self.max_stake)?)?;
        if max_stake < min_stake {
            return Err(ApiError::invalid("maxStake", "copy_bounds"));
        }
        // Zero (any spelling of it): no stop.
        let stop = dto::plain_decimal(&self.stop_below, 10, 2)
            .filter(|d| !d.is_sign_negative())
            .ok_or_else(|| ApiError::invalid("stopBelow", "amount"))?;
        let stop_below = money("stopBelow", stop)?;
        Ok(CopySettings { account, percent: self.percent, min_stake, max_stake, stop_below })
    }
}

/// A trader I copy, and how.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CopyLink {
    /// The leader's UID.
    pub uid: u32,
    /// Their name, masked.
    pub name: String,
    pub settings: CopySettingsView,
    /// Copying since (ms).
    pub since: u64,
}

/// Someone who copies me: their settings (stakes, stop level) are theirs alone, so only the
/// wallet their copies go to is shown.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FollowerLink {
    /// The follower's UID.
    pub uid: u32,
    /// Their name, masked.
    pub name: String,
    /// `real` or `demo`: the wallet their copies trade from.
    #[schema(inline, value_type = AccountParam)]
    pub account: &'static str,
    /// Copying since (ms).
    pub since: u64,
}

/// Copy trading from my side.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MyCopy {
    /// My trades are shared to be copied.
    pub sharing: bool,
    /// Since when (ms).
    pub sharing_since: Option<u64>,
    /// The traders I copy.
    pub following: Vec<CopyLink>,
    /// Who copies me.
    pub followers: Vec<FollowerLink>,
    /// Most followers a trader may have.
    pub followers_max: usize,
    /// Most traders one may copy.
    pub following_max: usize,
}

/// The answer for `user`, read from the engine with the other traders' masked names.
async fn mine(state: &AppState, user: UserId) -> Answer<MyCopy> {
    let (view, names): (CopyView, Vec<(u32, String)>) = state
        .query(move |e| {
            let view = e.copy_view(user);
            let others =
                view.following.iter().map(|f| f.0).chain(view.followers.iter().map(|f| f.follower));
            let names = others
                .map(|u| (u.get(), e.user(u).map(|x| masked(&x.username)).unwrap_or_default()))
                .collect();
            (view, names)
        })
        .await?;
    let name =
        |uid: u32| names.iter().find(|n| n.0 == uid).map(|n| n.1.clone()).unwrap_or_default();
    let link = |uid: UserId, settings: &CopySettings, since: u64| CopyLink {
        uid: uid.get(),
        name: name(uid.get()),
        settings: CopySettingsView::of(settings),
        since,
    };
    ok(MyCopy {
        sharing: view.sharing_since_ms.is_some(),
        sharing_since: view.sharing_since_ms,
        following: view.following.iter().map(|(l, s, since)| link(*l, s, *since)).collect(),
        followers: (view.followers.iter())
            .map(|f| FollowerLink {
                uid: f.follower.get(),
                name: name(f.follower.get()),
                account: crate::names::account_name(f.settings.account),
                since: f.since_ms,
            })
            .collect(),
        followers_max: FOLLOWERS_PER_LEADER_MAX,
        following_max: LEADERS_PER_FOLLOWER_MAX,
    })
}

/// Copy trading from my side: whether I share my trades, whom I copy, who copies me.
#[utoipa::path(get, path = "/api/copy", tag = "copy", security(("user" = [])),
    responses((status = 200, body = Envelope<MyCopy>), (status = 401, body = ErrorEnvelope)))]
async fn my_copy(State(state): State<AppState>, user: User) -> Answer<MyCopy> {
    mine(&state, user.id).await
}

/// Start or stop sharing.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SharingBody {
    /// Share my trades (my masked name and real-money results become public), or stop (which ends
    /// every follower's copying).
    #[schema(required = true, value_type = bool)]
    pub sharing: Option<bool>,
}

/// Share my trades to be copied, or stop.
#[utoipa::path(put, path = "/api/copy/sharing", tag = "copy", security(("user" = [])), request_body = SharingBody,
    responses((status = 200, body = Envelope<MyCopy>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, description = "ACCOUNT_FROZEN", body = ErrorEnvelope)))]
async fn set_sharing(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    Body(body): Body<SharingBody>,
) -> Answer<MyCopy> {
    let sharing = body.sharing.ok_or_else(|| ApiError::invalid("sharing", "body"))?;
    let command = Command::SetCopyable { user: user.id, copyable: sharing };
    state.submit(key, command).await?;
    state.copy_board.changed().await;
    mine(&state, user.id).await
}

/// Copy a trader's trades, or change how.
#[utoipa::path(put, path = "/api/copy/following/{uid}", tag = "copy", security(("user" = [])),
    params(("uid" = u32, Path, description = "The leader's UID")), request_body = CopySettingsView,
    responses((status = 200, body = Envelope<MyCopy>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 403, description = "ACCOUNT_FROZEN", body = ErrorEnvelope), (status = 404, description = "NOT_COPYABLE", body = ErrorEnvelope),
        (status = 409, description = "FOLLOWERS_FULL, FOLLOWING_FULL", body = ErrorEnvelope)))]
async fn follow(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    PathValue(uid): PathValue<u32>,
    Body(body): Body<CopySettingsView>,
) -> Answer<MyCopy> {
    let settings = Box::new(body.parse()?);
    let command = Command::Follow { follower: user.id, leader: UserId(uid), settings };
    state.submit(key, command).await?;
    state.copy_board.changed().await;
    mine(&state, user.id).await
}

/// Stop copying a trader.
#[utoipa::path(delete, path = "/api/copy/following/{uid}", tag = "copy", security(("user" = [])),
    params(("uid" = u32, Path, description = "The leader's UID")),
    responses((status = 200, body = Envelope<MyCopy>), (status = 401, body = ErrorEnvelope), (status = 404, description = "COPY_NOT_FOUND", body = ErrorEnvelope)))]
async fn unfollow(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    PathValue(uid): PathValue<u32>,
) -> Answer<MyCopy> {
    let command = Command::EndCopy { by: user.id, follower: user.id, leader: UserId(uid) };
    state.submit(key, command).await?;
    state.copy_board.changed().await;
    mine(&state, user.id).await
}

/// Remove a follower: they stop copying my trades.
#[utoipa::path(delete, path = "/api/copy/followers/{uid}", tag = "copy", security(("user" = [])),
    params(("uid" = u32, Path, description = "The follower's UID")),
    responses((status = 200, body = Envelope<MyCopy>), (status = 401, body = ErrorEnvelope), (status = 404, description = "COPY_NOT_FOUND", body = ErrorEnvelope)))]
async fn remove_follower(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    PathValue(uid): PathValue<u32>,
) -> Answer<MyCopy> {
    let command = Command::EndCopy { by: user.id, follower: UserId(uid), leader: user.id };
    state.submit(key, command).await?;
    state.copy_board.changed().await;
    mine(&state, user.id).await
}

/// What copy trading told me, newest first (a copy started or ended, a copy refused): how the
/// app catches up on what happened while it was closed.
#[utoipa::path(get, path = "/api/copy/notes", tag = "copy", security(("user" = [])), params(dto::PageQuery),
    responses((status = 200, body = Envelope<Page<CopyNoteRow>>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn copy_notes(
    State(state): State<AppState>,
    user: User,
    Params(query): Params<dto::PageQuery>,
) -> Answer<Page<CopyNoteRow>> {
    ok(state.history().await?.copy_notes(user.id.into(), query.paging()?)?)
}
