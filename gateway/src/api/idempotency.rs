//! `Idempotency-Key`: a client's id for one request, sent again with a retry (an order sent
//! just before a failover, say). It travels with the first command the request submits; in
//! cluster mode the replicated state remembers it, so the retry is answered, not applied twice.
//!
//! The key is 1 to 64 visible ASCII characters (a UUID, say); anything else is refused (400), so
//! a client never believes it is protected when it is not.

use std::cell::Cell;

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use wal::RequestId;

use super::ApiError;

tokio::task_local! {
    /// The key of the request being handled, until its first command takes it.
    static KEY: Cell<Option<RequestId>>;
}

/// Longest key accepted.
pub const KEY_CHARS_MAX: usize = 64;

/// The id of the key in `value`: 1 to [`KEY_CHARS_MAX`] visible ASCII characters.
pub fn parse(value: &str) -> Option<RequestId> {
    let visible = value.bytes().all(|b| b.is_ascii_graphic());
    (visible && (1..=KEY_CHARS_MAX).contains(&value.len()))
        .then(|| RequestId::from_key(value.as_bytes()))
}

/// Makes the request's key available to [`take`] while the request is handled.
pub async fn scope(request: Request, next: Next) -> Response {
    let key = match request.headers().get("idempotency-key") {
        None => None,
        Some(value) => match value.to_str().ok().and_then(parse) {
            Some(key) => Some(key),
            None => {
                let refused = ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION")
                    .arg("field", "Idempotency-Key");
                return ApiError {
                    key: "api.error.VALIDATION".into(),
                    field: Some("Idempotency-Key"),
                    ..refused
                }
                .into_response();
            }
        },
    };
    KEY.scope(Cell::new(key), next.run(request)).await
}

/// The request's key, once: the first command a request submits carries it.
pub fn take() -> Option<RequestId> {
    KEY.try_with(Cell::take).ok().flatten()
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
