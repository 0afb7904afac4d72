//! Cluster mode: a write that reaches a follower is forwarded to the leader, and the caller
//! reads its own write here next (read-your-writes).
//!
//! Reads are served locally. A write is any `/api/` request other than GET, HEAD or OPTIONS.
//! The leader's public address comes from `--peer-apis`; without it, with no leader known, or
//! with no connection to it, the write is refused with NOT_LEADER (503) and the client may try
//! again; once the request may have reached the leader, a failure is OUTCOME_UNKNOWN. The leader tells
//! how far its engine had applied when it answered (`x-applied-index`). A signed-in caller gets
//! the leader's answer at once and its next read here waits (at most [`CATCH_UP`]) until this
//! follower has applied that far ([`marks::WriteMarks`]); a caller without a token (a sign-in, a
//! sign-up) gets the answer once this follower has applied it. A follower that learns of a
//! commit only from the next leader (its leader died right after answering) therefore holds a
//! read, never the answer to a write. A read still behind the caller's write after
//! [`CATCH_UP`] is answered by the leader, or refused with NOT_LEADER when no leader is known:
//! never without the caller's own write.

pub mod marks;

use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};

use crate::error::ApiError;
use crate::http::UPLOAD_REQUEST_BYTES_MAX;
use crate::state::AppState;
use crate::tokens::bearer;
use wal::pipeline::cluster::StatusSource;

/// The header in which a leader tells how far it had applied when it answered a write.
pub const APPLIED_INDEX: &str = "x-applied-index";
/// How long a member waits to apply what another member already told the caller (a write, a
/// sign-in) before answering from what it holds.
pub const CATCH_UP: Duration = Duration::from_secs(2);
/// How long the leader may take to answer a forwarded request.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(15);
/// How long connecting to the leader may take: a member that does not answer by then is
/// treated as unreachable, and nothing was sent.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// The largest answer taken from the leader, by either client (a forwarded read, such as an
/// export, can be far larger than any write's answer).
const ANSWER_BYTES_MAX: usize = 10 * 1024 * 1024;
/// Idle connections kept to the leader at most (each forwarded write holds one while in
/// flight; more are opened under load, and closed again past this many idle).
const POOL_IDLE_MAX: usize = 64;
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

/// Reads a member answers however far behind it is: its health says how far, and the API
/// document does not depend on the state.
const UNGATED_READS: [&str; 2] = ["/api/health", "/api/openapi.json"];

/// 503 `CATCHING_UP`: this member has applied less than its group committed.
pub fn catching_up(status: &wal::pipeline::cluster::ClusterStatus) -> ApiError {
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "CATCHING_UP")
        .arg("applied", status.applied.unwrap_or(0))
        .arg("committed", status.committed.map_or_else(|| "?".to_owned(), |c| c.to_string()))
}

fn is_write(request: &Request) -> bool {
    let method = request.method();
    request.uri().path().starts_with("/api/")
        && ![Method::GET, Method::HEAD, Method::OPTIONS].contains(method)
}

/// Forwards a follower's writes to the leader; on the leader, stamps writes' answers with the
/// applied index; makes a caller's reads wait for its own writes. A single node passes
/// everything through.
pub async fn forward_writes(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let Some(cluster) = state.cluster.as_ref() else {
        return next.run(request).await;
    };
    if !is_write(&request) {
        // A member still catching up with its group (just restarted, say) holds a read for a
        // moment, then says so: never an answer from a state that is short of what the
        // caller may have seen elsewhere.
        let path = request.uri().path();
        let gated = path.starts_with("/api/") && !UNGATED_READS.contains(&path);
        if gated && !cluster.wait_current(CATCH_UP).await {
            return catching_up(&cluster.status()).into_response();
        }
        let mark = bearer(request.headers()).map_or(0, |t| state.write_marks.mark_of(t));
        if mark <= state.readmodel.applied_index()
            || state.readmodel.caught_up(mark, CATCH_UP).await
        {
            return next.run(request).await;
        }
        // Still behind the caller's own write: the leader has it, so it answers instead.
        return match leader_api(&state, cluster) {
            Some(base) => {
                forward(&state, &base, request).await.unwrap_or_else(|e| e.into_response())
            }
            None if state.handle.is_leader() => next.run(request).await,
            None => ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "NOT_LEADER").into_response(),
        };
    }
    if state.handle.is_leader() {
        let mut response = next.run(request).await;
        if let Ok(index) = state.query(|engine| engine.applied_index()).await {
            if let Ok(value) = HeaderValue::from_str(&index.to_string()) {
                response.headers_mut().insert(HeaderName::from_static(APPLIED_INDEX), value);
            }
        }
        return response;
    }
    let Some(base) = leader_api(&state, cluster) else {
        // No leader known (an election), or nowhere to forward: refused before the handler,
        // which would check the caller's session against a state that may be behind.
        return ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "NOT_LEADER").into_response();
    };
    match forward(&state, &base, request).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    }
}

/// The way forwarded writes reach the leader: one pooled HTTP/1 client for plain `http://`
/// addresses, so that a follower's orders go over connections already open instead of a new
/// connection (and a blocking thread) per order; `https://` addresses, rare between members,
/// go through a TLS client one call at a time.
#[derive(Clone)]
pub struct LeaderClient {
    http: Client<HttpConnector, Body>,
}

impl LeaderClient {
    /// A client to a leader that closes a connection it waits on for a request's head longer
    /// than `head_timeout` (`--http-head-timeout-secs`, which the members of a group share).
    /// A connection is kept unused for half that, so that this side, not the leader, closes
    /// an idle one: a write never starts on a connection the leader is closing.
    pub fn new(head_timeout: Duration) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(CONNECT_TIMEOUT));
        connector.set_nodelay(true);
        let http = Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(head_timeout / 2)
            .pool_max_idle_per_host(POOL_IDLE_MAX)
            // A request that met a pooled connection found closed before any byte of it was
            // written goes on a fresh one: it cannot have reached the leader.
            .retry_canceled_requests(true)
            .build(connector);
        LeaderClient { http }
    }
}

impl std::fmt::Debug for LeaderClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LeaderClient")
    }
}

/// The leader's HTTP API, when a leader is known and is another member.
fn leader_api(state: &AppState, cluster: &StatusSource) -> Option<String> {
    if state.handle.is_leader() {
        return None;
    }
    let leader = cluster.status().leader?;
    state.peer_apis.get(&leader).cloned()
}

async fn forward(state: &AppState, base: &str, request: Request) -> Result<Response, ApiError> {
    let (parts, body) = request.into_parts();
    let body = to_bytes(body, UPLOAD_REQUEST_BYTES_MAX)
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
    let (status, content_type, applied, body) =
        to_leader(&state.leader, parts.method, target, headers, body.to_vec()).await?;
    match (bearer(&parts.headers), applied) {
        (Some(token), Some(index)) => state.write_marks.mark(token, index),
        (None, Some(index)) => {
            state.readmodel.caught_up(index, CATCH_UP).await;
        }
        (_, None) => {}
    }
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    if let Some(value) = content_type.and_then(|v| HeaderValue::from_str(&v).ok()) {
        response.headers_mut().insert(axum::http::header::CONTENT_TYPE, value);
    }
    if let Some(value) = applied.and_then(|i| HeaderValue::from_str(&i.to_string()).ok()) {
        response.headers_mut().insert(HeaderName::from_static(APPLIED_INDEX), value);
    }
    Ok(response)
}

/// Sends a write to the leader at `target`; its answer. A failure before anything was sent
/// (no connection) is NOT_LEADER: the write is known not applied and may be sent again. Once
/// the request may have left (a reset, a timeout or a close while waiting for the answer), the
/// leader may have applied it: OUTCOME_UNKNOWN, and the caller must look at its records before
/// trying again, or it could place an order twice.
async fn to_leader(
    client: &LeaderClient,
    method: Method,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
) -> Result<Answer, ApiError> {
    let answer = if target.starts_with("http://") {
        send_pooled(client, method, &target, &headers, body).await
    } else {
        tokio::task::spawn_blocking(move || send(&method, &target, &headers, &body))
            .await
            .map_err(|_| ApiError::busy())?
    };
    answer.map_err(|error| {
        if error.sent {
            tracing::warn!(error = %error.what, "a write forwarded to the leader got no answer: its outcome is unknown");
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "OUTCOME_UNKNOWN")
        } else {
            tracing::warn!(error = %error.what, "a write could not be forwarded to the leader");
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "NOT_LEADER")
        }
    })
}

/// Why a forward failed, and whether the request may have reached the leader.
#[derive(Debug)]
struct SendError {
    /// What went wrong.
    what: String,
    /// False only when no connection was made: nothing can have been sent.
    sent: bool,
}

impl SendError {
    fn of(error: ureq::Error) -> SendError {
        use ureq::Timeout;
        let before_sending = match &error {
            ureq::Error::ConnectionFailed
            | ureq::Error::HostNotFound
            | ureq::Error::BadUri(_)
            | ureq::Error::Http(_)
            | ureq::Error::Timeout(Timeout::Resolve | Timeout::Connect) => true,
            // Refused is the answer to a connection attempt, before any byte of the request.
            ureq::Error::Io(io) => io.kind() == std::io::ErrorKind::ConnectionRefused,
            _ => false,
        };
        SendError { what: error.to_string(), sent: !before_sending }
    }

    /// A failure of the pooled client: nothing was sent when no connection could be made, or
    /// when the request was cancelled before any byte of it was written (hyper retries those
    /// on a fresh connection first); anything else may have reached the leader.
    fn of_pooled(error: hyper_util::client::legacy::Error) -> SendError {
        use std::error::Error as _;
        let cancelled = (error.source())
            .and_then(|source| source.downcast_ref::<hyper::Error>())
            .is_some_and(hyper::Error::is_canceled);
        let what = match error.source() {
            Some(source) => format!("{error}: {source}"),
            None => error.to_string(),
        };
        SendError { what, sent: !(error.is_connect() || cancelled) }
    }
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.what)
    }
}

/// What the leader answered an order sent over a follower's websocket.
#[derive(Debug)]
pub enum LeaderAnswer {
    /// The order was accepted.
    Accepted(crate::trading::OrderAccepted),
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
    let base = leader_api(state, cluster).ok_or_else(not_leader)?;
    let headers = vec![
        ("authorization".to_owned(), format!("Bearer {token}")),
        ("content-type".to_owned(), "application/json".to_owned()),
        ("language".to_owned(), language.to_owned()),
    ];
    let target = format!("{base}/api/trade/orders");
    let body = order.to_string().into_bytes();
    let (_, _, applied, body) =
        to_leader(&state.leader, Method::POST, target, headers, body).await?;
    if let Some(index) = applied {
        // The websocket's own events come from this member: the answer follows them.
        state.readmodel.caught_up(index, CATCH_UP).await;
    }
    #[derive(serde::Deserialize)]
    struct Envelope {
        success: bool,
        data: Option<crate::trading::OrderAccepted>,
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

/// Sends a write over the pooled client and reads the whole answer, within
/// [`FORWARD_TIMEOUT`].
async fn send_pooled(
    client: &LeaderClient,
    method: Method,
    url: &str,
    headers: &[(String, String)],
    body: Vec<u8>,
) -> Result<Answer, SendError> {
    let mut builder = axum::http::Request::builder().method(method).uri(url);
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    let request = builder
        .body(Body::from(body))
        .map_err(|e| SendError { what: e.to_string(), sent: false })?;
    // Connecting is bounded on its own (`CONNECT_TIMEOUT`), so running out of time here
    // means the request may have been written.
    let timed_out = || SendError { what: "no answer in time".to_owned(), sent: true };
    let exchange = async {
        let response = client.http.request(request).await.map_err(SendError::of_pooled)?;
        let (parts, incoming) = response.into_parts();
        let body = to_bytes(Body::new(incoming), ANSWER_BYTES_MAX)
            .await
            .map_err(|e| SendError { what: e.to_string(), sent: true })?;
        Ok::<_, SendError>((parts, body))
    };
    let (parts, body) =
        tokio::time::timeout(FORWARD_TIMEOUT, exchange).await.map_err(|_| timed_out())??;
    let header =
        |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let applied = header(APPLIED_INDEX).and_then(|v| v.parse().ok());
    Ok((parts.status.as_u16(), header("content-type"), applied, body.to_vec()))
}

fn send(
    method: &Method,
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Result<Answer, SendError> {
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
    let request =
        builder.body(body.to_vec()).map_err(|e| SendError { what: e.to_string(), sent: false })?;
    // One agent a call: no pooled connection, so a refused connection is this call's own.
    let mut response = agent.run(request).map_err(SendError::of)?;
    let header =
        |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let content_type = header("content-type");
    let applied = header(APPLIED_INDEX).and_then(|v| v.parse().ok());
    let status = response.status().as_u16();
    let body = (response.body_mut().with_config())
        .limit(ANSWER_BYTES_MAX as u64)
        .read_to_vec()
        .map_err(SendError::of)?;
    Ok((status, content_type, applied, body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// A leader that cannot be reached gets nothing: NOT_LEADER, the client may send again.
    /// One whose link breaks after the request was written may have applied it:
    /// OUTCOME_UNKNOWN, never NOT_LEADER.
    #[tokio::test]
    async fn a_forward_is_not_leader_only_when_nothing_was_sent() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let nobody = format!("http://{}/api/trade/orders", closed.local_addr().unwrap());
        drop(closed);
        let client = LeaderClient::new(crate::http::ListenConfig::default().head_timeout);
        let send = |url: String| {
            let headers = vec![("content-type".to_owned(), "application/json".to_owned())];
            to_leader(&client, Method::POST, url, headers, br#"{"symbol":"BTCUSDT"}"#.to_vec())
        };
        assert_eq!(send(nobody).await.unwrap_err().code, "NOT_LEADER");

        // A link cut once the request is written: the far end reads it whole, then closes.
        let cutting = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/api/trade/orders", cutting.local_addr().unwrap());
        let far_end = std::thread::spawn(move || {
            let (mut stream, _) = cutting.accept().unwrap();
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.ends_with(b"{\"symbol\":\"BTCUSDT\"}") {
                let n = stream.read(&mut buf).unwrap();
                assert!(n > 0, "the request was not written whole");
                request.extend_from_slice(&buf[..n]);
            }
            stream.flush().unwrap();
            request.len()
        });
        let answer = send(url).await;
        assert!(far_end.join().unwrap() > 0);
        assert_eq!(answer.unwrap_err().code, "OUTCOME_UNKNOWN");
    }

    /// Writes forwarded one after another go over one connection, each answered with the
    /// leader's status, type and applied index.
    #[tokio::test]
    async fn forwarded_writes_share_one_connection() {
        let leader = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/api/trade/orders", leader.local_addr().unwrap());
        let far_end = std::thread::spawn(move || {
            let (mut stream, _) = leader.accept().unwrap();
            for n in 0..3u64 {
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.ends_with(b"}") {
                    let read = stream.read(&mut buf).unwrap();
                    assert!(read > 0, "the connection was closed after {n} requests");
                    request.extend_from_slice(&buf[..read]);
                }
                let body = format!("{{\"n\":{n}}}");
                let answer = format!(
                    "HTTP/1.1 201 Created\r\ncontent-type: application/json\r\n{APPLIED_INDEX}: {}\r\ncontent-length: {}\r\n\r\n{body}",
                    100 + n,
                    body.len()
                );
                stream.write_all(answer.as_bytes()).unwrap();
            }
            // Every request came on the first connection: no second one is waiting.
            leader.set_nonblocking(true).unwrap();
            leader.accept().is_err()
        });
        let client = LeaderClient::new(crate::http::ListenConfig::default().head_timeout);
        for n in 0..3u64 {
            let headers = vec![("content-type".to_owned(), "application/json".to_owned())];
            let body = br#"{"symbol":"BTCUSDT"}"#.to_vec();
            let (status, content_type, applied, body) =
                to_leader(&client, Method::POST, url.clone(), headers, body).await.unwrap();
            assert_eq!(status, 201);
            assert_eq!(content_type.as_deref(), Some("application/json"));
            assert_eq!(applied, Some(100 + n));
            assert_eq!(body, format!("{{\"n\":{n}}}").into_bytes());
        }
        assert!(tokio::task::spawn_blocking(move || far_end.join().unwrap()).await.unwrap());
    }
}
