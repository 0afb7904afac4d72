//! Invitations: a user's code and link with the reward rules, and their team over three
//! generations (decisions §5).

use axum::extract::State;
use engine::types::UserId;
use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::User;
use super::{ok, Answer, ApiError, AppState, Envelope, ErrorEnvelope};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(invite)).routes(routes!(team))
}

/// Invitation link and code, and the reward rules.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Invite {
    /// 8 characters.
    pub code: String,
    /// `{origin}/login/register?code=CODE` on the origin the operator set (`--public-origin`);
    /// null when none is set: the app then uses the address its page came from.
    pub link: Option<String>,
    /// Reward rate per generation (1, 2, 3) on invitees' settled real stakes.
    pub reward_rates: Vec<String>,
}

/// The user's invitation link, code and reward rules.
#[utoipa::path(get, path = "/api/invite", tag = "invite", security(("user" = [])),
    responses((status = 200, body = Envelope<Invite>), (status = 401, body = ErrorEnvelope)))]
async fn invite(State(state): State<AppState>, user: User) -> Answer<Invite> {
    let id = user.id;
    let found = state
        .query(move |e| {
            e.user(id).map(|u| {
                (
                    u.invite_code.clone(),
                    e.settings().reward_rates.iter().map(Decimal::to_string).collect::<Vec<_>>(),
                )
            })
        })
        .await?;
    let (code, reward_rates) = found.ok_or_else(ApiError::unauthorized)?;
    let link =
        state.public_origin.as_ref().map(|origin| format!("{origin}/login/register?code={code}"));
    ok(Invite { code, link, reward_rates })
}

/// One generation of the team.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Generation {
    /// 1, 2 or 3.
    pub generation: u8,
    /// How many people this generation counts.
    pub count: usize,
    /// With a verified e-mail.
    pub certified: usize,
    /// How many of them have not verified an e-mail address.
    pub not_certified: usize,
    /// The first members (at most 100).
    pub members: Vec<Member>,
}

/// A team member.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    /// UID.
    pub uid: u32,
    /// The invitee's sign-in name.
    pub username: String,
    /// E-mail verified.
    pub certified: bool,
    /// Joined (ms).
    pub join_time: u64,
}

/// Members listed per generation.
const MEMBERS_LISTED_MAX: usize = 100;

pub(super) fn team_of(engine: &engine::Engine, id: UserId) -> Vec<Generation> {
    engine
        .team(id)
        .iter()
        .enumerate()
        .map(|(n, ids)| {
            let certified =
                ids.iter().filter(|m| engine.user(**m).is_some_and(|u| u.email_verified)).count();
            let members = ids
                .iter()
                .take(MEMBERS_LISTED_MAX)
                .filter_map(|m| engine.user(*m))
                .map(|u| Member {
                    uid: u.id.into(),
                    username: u.username.clone(),
                    certified: u.email_verified,
                    join_time: u.created_ms,
                })
                .collect();
            Generation {
                generation: n as u8 + 1,
                count: ids.len(),
                certified,
                not_certified: ids.len() - certified,
                members,
            }
        })
        .collect()
}

/// Team statistics for generations 1-3.
#[utoipa::path(get, path = "/api/invite/team", tag = "invite", security(("user" = [])),
    responses((status = 200, body = Envelope<Vec<Generation>>), (status = 401, body = ErrorEnvelope)))]
async fn team(State(state): State<AppState>, user: User) -> Answer<Vec<Generation>> {
    let id = user.id;
    ok(state.query(move |e| team_of(e, id)).await?)
}
