//! Who is signed in: a token whose signature and expiry hold ([`crate::tokens`]) names a
//! session that must still exist in the engine, so a sign-out, a password change or an
//! admin's revocation ends the token at once (decisions §6, sessions). Both transports ask
//! here: the HTTP extractors and the websocket's `auth`.

use engine::types::{Access, AdminId, Area, Role, UserId};
use engine::Engine;

use crate::error::ApiError;
use crate::state::AppState;

/// A signed-in user with a live session.
#[derive(Debug, Clone, Copy)]
pub struct User {
    /// UID.
    pub id: UserId,
    /// Session id.
    pub session: u64,
}

/// The user of a valid token whose session is live, with the session's expiry (ms).
pub(crate) async fn live_user(state: &AppState, token: &str) -> Result<(User, u64), ApiError> {
    let claims = state.tokens.check(token, "user").ok_or_else(ApiError::unauthorized)?;
    let (id, session, now) = (claims.sub, claims.sid, state.now());
    let expires = find_session(state, session, move |engine| {
        let user = engine.user(UserId(id))?;
        user.sessions.iter().find(|s| s.id == session && s.expires_ms > now).map(|s| s.expires_ms)
    })
    .await?;
    let expires = expires.ok_or_else(ApiError::session_expired)?;
    Ok((User { id: UserId(id), session }, expires))
}

/// Looks a session up with `find` on the engine thread. A cluster member that has not yet
/// applied the session's start (its id is not issued in this member's state: the caller signed
/// in through a member ahead of this one) waits for it, at most
/// [`CATCH_UP`](crate::forward::CATCH_UP), and answers "busy" if it is still behind: the
/// session is not known to be over. A session this member has issued and no longer holds is
/// gone at once. Only members sign tokens, so an id ahead of this member's state came from
/// its group.
async fn find_session<R: Send + 'static>(
    state: &AppState,
    session: u64,
    find: impl Fn(&Engine) -> Option<R> + Clone + Send + 'static,
) -> Result<Option<R>, ApiError> {
    let deadline = tokio::time::Instant::now() + crate::forward::CATCH_UP;
    loop {
        let look = find.clone();
        let (found, issued, applied) = state
            .query(move |engine| (look(engine), engine.next_session_id(), engine.applied_index()))
            .await?;
        if found.is_some() || session < issued || state.cluster.is_none() {
            return Ok(found);
        }
        // Wait for this member to apply one more entry, then look again.
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() || !state.readmodel.caught_up(applied + 1, left).await {
            return Err(ApiError::busy());
        }
    }
}

/// A signed-in admin with a live session.
#[derive(Debug, Clone, Copy)]
pub struct Admin {
    /// Admin id.
    pub id: AdminId,
    /// Session id.
    pub session: u64,
    /// The admin's role, which decides the back-office areas they may read and act on.
    pub role: Role,
}

impl Admin {
    /// Refuses an admin whose role may not `access` `area` (the engine checks actions again).
    pub fn require(&self, area: Area, access: Access) -> Result<(), ApiError> {
        if self.role.can(area, access) {
            Ok(())
        } else {
            Err(ApiError::forbidden())
        }
    }

    /// [`Admin::require`] for reading.
    pub fn reads(&self, area: Area) -> Result<(), ApiError> {
        self.require(area, Access::Read)
    }

    /// [`Admin::require`] for acting.
    pub fn writes(&self, area: Area) -> Result<(), ApiError> {
        self.require(area, Access::Write)
    }
}

/// The enabled admin of a valid admin token whose session is live, with the session's expiry
/// (ms).
pub(crate) async fn live_admin(state: &AppState, token: &str) -> Result<(Admin, u64), ApiError> {
    let claims = state.tokens.check(token, "admin").ok_or_else(ApiError::unauthorized)?;
    let (id, session, now) = (claims.sub, claims.sid, state.now());
    let found = find_session(state, session, move |engine| {
        let admin = engine.admin(AdminId(id)).filter(|a| !a.disabled)?;
        let live = admin.sessions.iter().find(|s| s.id == session && s.expires_ms > now)?;
        Some((admin.role, live.expires_ms))
    })
    .await?;
    let (role, expires) = found.ok_or_else(ApiError::session_expired)?;
    Ok((Admin { id: AdminId(id), session, role }, expires))
}
