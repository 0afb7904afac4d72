//! The HTTP extractors: the signed-in caller ([`User`], [`Admin`], checked by
//! [`crate::sessions`]), who is calling from where ([`Client`]), and bodies, paths and queries
//! whose errors answer in the envelope.

use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::header;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

pub use crate::sessions::{Admin, User};

use crate::error::ApiError;
use crate::sessions::{live_admin, live_user};
use crate::state::AppState;
use crate::tokens::bearer;

/// Longest user agent kept for the device history.
const DEVICE_CHARS_MAX: usize = 120;

impl FromRequestParts<AppState> for User {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<User, ApiError> {
        let token = bearer(&parts.headers).ok_or_else(ApiError::unauthorized)?;
        Ok(live_user(state, token).await?.0)
    }
}

impl FromRequestParts<AppState> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Admin, ApiError> {
        let token = bearer(&parts.headers).ok_or_else(ApiError::unauthorized)?;
        Ok(live_admin(state, token).await?.0)
    }
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
        let language = crate::i18n::language_of(&parts.headers);
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
