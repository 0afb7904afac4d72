//! `Idempotency-Key`: a client's id for one request, sent again with a retry (an order sent
//! just before a failover, say). The handler passes it, as an [`IdempotencyKey`], with the
//! first command the request submits; in cluster mode the replicated state remembers it, so
//! the retry is answered, not applied twice.
//!
//! The key is 1 to 64 visible ASCII characters (a UUID, say); anything else is refused (400), so
//! a client never believes it is protected when it is not.

use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use wal::RequestId;

use crate::error::ApiError;

/// Longest key accepted.
pub const KEY_CHARS_MAX: usize = 64;

/// The id of the key in `value`: 1 to [`KEY_CHARS_MAX`] visible ASCII characters.
pub fn parse(value: &str) -> Option<RequestId> {
    let visible = value.bytes().all(|b| b.is_ascii_graphic());
    (visible && (1..=KEY_CHARS_MAX).contains(&value.len()))
        .then(|| RequestId::from_key(value.as_bytes()))
}

/// A request's key, which its handler passes to the command the key protects: the first
/// command the request submits ([`super::AppState::submit`]); any later one goes with
/// [`IdempotencyKey::NONE`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IdempotencyKey(pub Option<RequestId>);

impl IdempotencyKey {
    /// No key: the command is applied however often it is sent.
    pub const NONE: IdempotencyKey = IdempotencyKey(None);

    /// The key, leaving none behind: for a request that may submit more than one command,
    /// the first takes it.
    pub fn take(&mut self) -> IdempotencyKey {
        std::mem::take(self)
    }

    /// The key in `headers`; a malformed one is refused (400 VALIDATION on the header).
    fn of(headers: &HeaderMap) -> Result<IdempotencyKey, ApiError> {
        let Some(value) = headers.get("idempotency-key") else { return Ok(Self::NONE) };
        let key = value.to_str().ok().and_then(parse).ok_or_else(|| {
            let refused = ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION")
                .arg("field", "Idempotency-Key");
            ApiError {
                key: "api.error.VALIDATION".into(),
                field: Some("Idempotency-Key"),
                ..refused
            }
        })?;
        Ok(IdempotencyKey(Some(key)))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<IdempotencyKey, ApiError> {
        IdempotencyKey::of(&parts.headers)
    }
}

/// Refuses a malformed key on any request, also one whose handler submits nothing, so that a
/// client never believes it is protected when it is not.
pub async fn check(request: Request, next: Next) -> Response {
    match IdempotencyKey::of(request.headers()) {
        Ok(_) => next.run(request).await,
        Err(refused) => refused.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_1_to_64_visible_characters() {
        let uuid = "123e4567-e89b-12d3-a456-426614174000";
        assert_eq!(parse(uuid), parse(uuid), "the same key, the same id");
        assert_ne!(parse(uuid), parse("123e4567-e89b-12d3-a456-426614174001"));
        assert!(parse("0").is_some_and(|id| id.0 != 0), "0 stands for no id");
        assert!(parse(&"k".repeat(KEY_CHARS_MAX)).is_some());
        for bad in ["", " ", "a b", "caf\u{e9}", &"k".repeat(KEY_CHARS_MAX + 1)] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }
}
