//! Session tokens and the extractors that check them.
//!
//! A token is a JWT (HS256) naming a user or admin and a session id. Signature and expiry
//! are checked here; then the session must still exist in the engine, so a sign-out, a
//! password change or an admin's revocation ends the token at once (decisions §6).

use std::path::Path;

use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::header;
use axum::http::request::Parts;
use engine::types::{Access, Area, Role};
use engine::Engine;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use super::{ApiError, AppState};

/// Session length without remember-me.
pub const SESSION_TTL_MS: u64 = 24 * 60 * 60 * 1_000;
/// Session length with remember-me.
pub const SESSION_REMEMBER_TTL_MS: u64 = 30 * 24 * 60 * 60 * 1_000;
/// Admin session length.
pub const ADMIN_SESSION_TTL_MS: u64 = 12 * 60 * 60 * 1_000;
/// Password-reset tokens live this long after the e-mail code was checked.
pub const RESET_TTL_MS: u64 = 15 * 60 * 1_000;
/// How long a device token proves an earlier sign-in (renewed at every sign-in).
pub const DEVICE_TTL_MS: u64 = 180 * 24 * 60 * 60 * 1_000;
/// Longest user agent kept for the device history.
const DEVICE_CHARS_MAX: usize = 120;

/// What a token says.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// User or admin id.
    pub sub: u32,
    /// Session id (for reset tokens: the password-change time it was issued against).
    pub sid: u64,
    /// `user`, `admin` or `reset`.
    pub kind: String,
    /// Expiry, seconds since the epoch.
    pub exp: u64,
    /// Issued at, seconds since the epoch.
    pub iat: u64,
}

/// Signs and checks tokens.
pub struct Tokens {
    /// Signing key.
    encoding: EncodingKey,
    /// Checking key.
    decoding: DecodingKey,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokens")
    }
}

impl Tokens {
    /// From a secret.
    pub fn new(secret: &[u8]) -> Tokens {
        Tokens {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
        }
    }

    /// The secret kept in `path` (created with 32 random bytes on first start, owner-only),
    /// so that tokens survive restarts.
    pub fn from_file(path: &Path) -> std::io::Result<Tokens> {
        if let Ok(secret) = std::fs::read(path) {
            if secret.len() >= 32 {
                return Ok(Tokens::new(&secret));
            }
        }
        let secret: [u8; 32] = rand::random();
        let encoded = hex::encode(secret);
        std::fs::write(path, &encoded)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(Tokens::new(encoded.as_bytes()))
    }

    /// The tokens of a cluster member: the signing key comes from the cluster secret, so a
    /// session token issued by one member is valid on every member.
    pub fn for_cluster(cluster_secret: &str) -> Tokens {
        Tokens::new(format!("trading session tokens\0{cluster_secret}").as_bytes())
    }

    /// A token for `sub`/`sid` of `kind`, valid until `expires_ms`.
    pub fn issue(&self, sub: u32, sid: u64, kind: &str, now_ms: u64, expires_ms: u64) -> String {
        let claims =
            Claims { sub, sid, kind: kind.into(), exp: expires_ms / 1_000, iat: now_ms / 1_000 };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing cannot fail")
    }

    /// A device token for `sub` (a user, or an admin with `kind` "admin"): proof, on this
    /// device's later sign-ins, that it signed in to that account before.
    pub fn issue_device(&self, sub: u32, kind: &str, now_ms: u64) -> String {
        let kind = format!("device-{kind}");
        self.issue(sub, rand::random(), &kind, now_ms, now_ms + DEVICE_TTL_MS)
    }

    /// The account a device token of `kind` proves, if it is valid.
    pub fn device_of(&self, token: Option<&str>, kind: &str) -> Option<u32> {
        let token = token.filter(|t| t.len() <= 1_024)?;
        self.check(token, &format!("device-{kind}")).map(|claims| claims.sub)
    }

    /// The claims of a valid, unexpired token of `kind`.
    pub fn check(&self, token: &str, kind: &str) -> Option<Claims> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &validation).ok()?;
        (data.claims.kind == kind).then_some(data.claims)
    }
}

/// The bearer token of a request, if it carries one.
pub(super) fn bearer(headers: &axum::http::HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let token = value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer "))?;
    Some(token.trim())
}

/// A signed-in user with a live session.
#[derive(Debug, Clone, Copy)]
pub struct User {
    /// UID.
    pub id: u32,
    /// Session id.
    pub session: u64,
}

impl FromRequestParts<AppState> for User {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<User, ApiError> {
        let token = bearer(&parts.headers).ok_or_else(ApiError::unauthorized)?;
        Ok(live_user(state, token).await?.0)
    }
}

/// The user of a valid token whose session is live, with the session's expiry (ms).
pub(crate) async fn live_user(state: &AppState, token: &str) -> Result<(User, u64), ApiError> {
    let claims = state.tokens.check(token, "user").ok_or_else(ApiError::unauthorized)?;
    let (id, session, now) = (claims.sub, claims.sid, state.now());
    let expires = find_session(state, session, move |engine| {
        let user = engine.user(id)?;
        user.sessions.iter().find(|s| s.id == session && s.expires_ms > now).map(|s| s.expires_ms)
    })
    .await?;
    let expires = expires.ok_or_else(ApiError::session_expired)?;
    Ok((User { id, session }, expires))
}

/// Looks a session up with `find` on the engine thread. A cluster member that has not yet
/// applied the session's start (its id is not issued in this member's state: the caller signed
/// in through a member ahead of this one) waits for it, at most
/// [`CATCH_UP`](super::forward::CATCH_UP), and answers "busy" if it is still behind: the
/// session is not known to be over. A session this member has issued and no longer holds is
/// gone at once. Only members sign tokens, so an id ahead of this member's state came from
/// its group.
async fn find_session<R: Send + 'static>(
    state: &AppState,
    session: u64,
    find: impl Fn(&Engine) -> Option<R> + Clone + Send + 'static,
) -> Result<Option<R>, ApiError> {
    let deadline = tokio::time::Instant::now() + super::forward::CATCH_UP;
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
    pub id: u32,
    /// Session id.
    pub session: u64,
    /// Role.
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

impl FromRequestParts<AppState> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Admin, ApiError> {
        let token = bearer(&parts.headers).ok_or_else(ApiError::unauthorized)?;
        Ok(live_admin(state, token).await?.0)
    }
}

/// The enabled admin of a valid admin token whose session is live, with the session's expiry
/// (ms).
pub(crate) async fn live_admin(state: &AppState, token: &str) -> Result<(Admin, u64), ApiError> {
    let claims = state.tokens.check(token, "admin").ok_or_else(ApiError::unauthorized)?;
    let (id, session, now) = (claims.sub, claims.sid, state.now());
    let found = find_session(state, session, move |engine| {
        let admin = engine.admin(id).filter(|a| !a.disabled)?;
        let live = admin.sessions.iter().find(|s| s.id == session && s.expires_ms > now)?;
        Some((admin.role, live.expires_ms))
    })
    .await?;
    let (role, expires) = found.ok_or_else(ApiError::session_expired)?;
    Ok((Admin { id, session, role }, expires))
}

/// Who is calling from where: recorded with each session.
#[derive(Debug, Clone)]
pub struct Client {
    /// Peer address (or `local` when served without a socket, as in tests).
    pub ip: String,
    /// User agent, shortened.
    pub device: String,
    /// The caller's language (position in the catalogues), for what is sent outside the
    /// answer, such as an e-mail.
    pub language: usize,
}

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Client, ApiError> {
        let ip = parts
            .extensions
            .get::<ConnectInfo<std::net::SocketAddr>>()
            .map_or_else(|| "local".to_owned(), |info| info.0.ip().to_string());
        let agent = parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("unknown");
        let device: String = agent.chars().take(DEVICE_CHARS_MAX).collect();
        let language = super::i18n::language_of(&parts.headers);
        Ok(Client { ip, device, language })
    }
}

/// A JSON object body whose errors become a `VALIDATION` error in the envelope.
///
/// Only an object is accepted: serde would otherwise read a struct from an array
/// (`["a@b.c","pw"]`), a second spelling of every request that no client needs.
#[derive(Debug)]
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Body<T>, ApiError> {
        let json =
            request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(
                |v| {
                    let essence = v.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
                    essence == "application/json"
                        || (essence.starts_with("application/") && essence.ends_with("+json"))
                },
            );
        if !json {
            return Err(ApiError::invalid("body", "body"));
        }
        let bytes = match axum::body::Bytes::from_request(request, state).await {
            Ok(bytes) => bytes,
            Err(rejection) => {
                tracing::debug!(%rejection, "request body not read");
                if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                    return Err(ApiError::new(rejection.status(), "PAYLOAD_TOO_LARGE"));
                }
                return Err(ApiError::invalid("body", "body"));
            }
        };
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(ApiError::invalid("body", "body"));
        }
        match serde_json::from_slice(&bytes) {
            Ok(value) => Ok(Body(value)),
            Err(error) => {
                tracing::debug!(%error, "bad request body");
                Err(ApiError::invalid("body", "body"))
            }
        }
    }
}

/// A path value (an id, a symbol) that does not parse is a `VALIDATION` error in the
/// envelope, not axum's plain-text rejection.
#[derive(Debug)]
pub struct PathValue<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for PathValue<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<PathValue<T>, ApiError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(PathValue(value)),
            Err(_) => Err(ApiError::invalid("path", "path")),
        }
    }
}

/// Query parameters whose errors become a `VALIDATION` error.
#[derive(Debug)]
pub struct Params<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Params<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Params<T>, ApiError> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(value)) => Ok(Params(value)),
            Err(_) => Err(ApiError::invalid("query", "query")),
        }
    }
}
