//! Cluster mode: a write that reaches a follower is forwarded to the leader, and answered
//! only once this follower's read model holds it, so that the caller reads its own write
//! here next (read-your-writes).
//!
//! Reads are served locally. A write is any `/api/` request other than GET, HEAD or OPTIONS.
//! The leader's public address comes from `--peer-apis`; without it, or with no leader known,
//! the write is refused with NOT_LEADER (503) and the client may try again. The leader tells how far its engine had
//! applied when it answered (`x-applied-index`); the follower waits (at most [`CATCH_UP`]) for
//! its own read model to get there before answering.

use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{ApiError, AppState};

/// The header in which a leader tells how far it had applied when it answered a write.
pub const APPLIED_INDEX: &str = "x-applied-index";
/// The most a forwarded body may weigh (an upload with its multipart framing).
const FORWARD_BODY_BYTES_MAX: usize = super::UPLOAD_BYTES_MAX + 64 * 1024;
/// How long a follower waits for its read model to hold a forwarded write.
const CATCH_UP: Duration = Duration::from_secs(2);
/// How long the leader may take to answer a forwarded request.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(15);
/// Request headers that travel to the leader.
const FORWARDED_HEADERS: [&str; 8] = [
    "authorization",
    "idempotency-key",
    "content-type",
    "language",
    "lang",
    "x-language",
    "accept-language",
    "user-agent",
];

fn is_write(request: &Request) -> bool {
    let method = request.method();
    request.uri().path().starts_with("/api/")
        && ![Method::GET, Method::HEAD, Method::OPTIONS].contains(method)
}

/// Forwards a follower's writes to the leader; on the leader, stamps writes' answers with the
/// applied index. A single node passes everything through.
pub async fn forward_writes(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let Some(cluster) = state.cluster.as_ref().filter(|_| is_write(&request)) else {
        return next.run(request).await;
    };
    if state.handle.is_leader() {
        let mut response = next.run(request).await;
        if let Ok(index) = state.query(|engine| engine.applied_index()).await {
            if let Ok(value) = HeaderValue::from_str(&index.to_string()) {
                response.headers_mut().insert(HeaderName::from_static(APPLIED_INDEX), value);
            }
        }
        return response;
    }
    let leader = cluster.status().leader;
    let Some(base) = leader.and_then(|id| state.peer_apis.get(&id).cloned()) else {
        // No leader known (an election), or nowhere to forward: refused before the handler,
        // which would check the caller's session against a state that may be behind.
        return ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "NOT_LEADER").into_response();
    };
    match forward(&state, &base, request).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    }
}

async fn forward(state: &AppState, base: &str, request: Request) -> Result<Response, ApiError> {
    let (parts, body) = request.into_parts();
    let body = to_bytes(body, FORWARD_BODY_BYTES_MAX)
        .await
        .map_err(|_| ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE"))?;
    let target = format!("{base}{}", parts.uri.path_and_query().map_or("/", |p| p.as_str()));
    let headers: Vec<(String, String)> = FORWARDED_HEADERS
        .iter()
        .filter_map(|name| {
            let value = parts.headers.get(*name)?.to_str().ok()?;
            Some(((*name).to_owned(), value.to_owned()))
        })
        .collect();
    let (status, content_type, body) =
        to_leader(state, parts.method, target, headers, body.to_vec()).await?;
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    if let Some(value) = content_type.and_then(|v| HeaderValue::from_str(&v).ok()) {
        response.headers_mut().insert(axum::http::header::CONTENT_TYPE, value);
    }
    Ok(response)
}

/// Sends a write to the leader at `target` and returns its answer (status, content type,
/// body) once this node's read model holds the write (read-your-writes).
async fn to_leader(
    state: &AppState,
    method: Method,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
) -> Result<(u16, Option<String>, Vec<u8>), ApiError> {
    let answer = tokio::task::spawn_blocking(move || send(&method, &target, &headers, &body))
        .await
        .map_err(|_| ApiError::busy())?;
    let (status, content_type, applied, body) = answer.map_err(|error| {
        tracing::warn!(%error, "a write could not be forwarded to the leader");
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "NOT_LEADER")
    })?;
    if let Some(index) = applied {
        // Read-your-writes: this node's history holds the write before the caller hears of it.
        state.readmodel.caught_up(index, CATCH_UP).await;
    }
    Ok((status, content_type, body))
}

/// What the leader answered an order sent over a follower's websocket.
#[derive(Debug)]
pub enum LeaderAnswer {
    /// The order was accepted.
    Accepted(super::trade::OrderAccepted),
    /// Refused: the leader's code, message (in the caller's language) and field.
    Refused { code: String, message: String, field: Option<String> },
}

/// An order a follower received over its websocket, placed through the leader's HTTP API with
/// the caller's own token (never re-sent: one attempt, whatever happens).
pub async fn order_to_leader(
    state: &AppState,
    token: &str,
    language: &str,
    order: serde_json::Value,
) -> Result<LeaderAnswer, ApiError> {
    let not_leader = || ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "NOT_LEADER");
    let cluster = state.cluster.as_ref().ok_or_else(not_leader)?;
    let leader = cluster.status().leader;
    let base = leader.and_then(|id| state.peer_apis.get(&id).cloned()).ok_or_else(not_leader)?;
    let headers = vec![
        ("authorization".to_owned(), format!("Bearer {token}")),
        ("content-type".to_owned(), "application/json".to_owned()),
        ("language".to_owned(), language.to_owned()),
    ];
    let target = format!("{base}/api/trade/orders");
    let (_, _, body) =
        to_leader(state, Method::POST, target, headers, order.to_string().into_bytes()).await?;
    #[derive(serde::Deserialize)]
    struct Envelope {
        success: bool,
        data: Option<super::trade::OrderAccepted>,
        code: Option<String>,
        message: Option<String>,
        field: Option<String>,
    }
    let envelope: Envelope = serde_json::from_slice(&body).map_err(|error| {
        tracing::warn!(%error, "the leader's answer to a forwarded order is not an envelope");
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "OUTCOME_UNKNOWN")
    })?;
    Ok(match (envelope.success, envelope.data) {
        (true, Some(accepted)) => LeaderAnswer::Accepted(accepted),
        _ => LeaderAnswer::Refused {
            code: envelope.code.unwrap_or_else(|| "INTERNAL".to_owned()),
            message: envelope.message.unwrap_or_default(),
            field: envelope.field,
        },
    })
}

/// (status, content type, applied index, body) of the leader's answer.
type Answer = (u16, Option<String>, Option<u64>, Vec<u8>);

fn send(
    method: &Method,
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Result<Answer, String> {
    let agent = ureq::Agent::new_with_config(
        ureq::config::Config::builder()
            .timeout_global(Some(FORWARD_TIMEOUT))
            .http_status_as_error(false)
            .build(),
    );
    let mut builder = ureq::http::Request::builder().method(method.as_str()).uri(url);
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    let request = builder.body(body.to_vec()).map_err(|e| e.to_string())?;
    let mut response = agent.run(request).map_err(|e| e.to_string())?;
    let header =
        |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let content_type = header("content-type");
    let applied = header(APPLIED_INDEX).and_then(|v| v.parse().ok());
    let status = response.status().as_u16();
    let body = response.body_mut().read_to_vec().map_err(|e| e.to_string())?;
    Ok((status, content_type, applied, body))
}
