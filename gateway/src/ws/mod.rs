//! Real time: the websocket at `/ws` (alias `/trade`), on fastwebsockets.
//!
//! - [`protocol`]: the JSON frames both ways; each server frame is serialised once and its
//!   bytes shared by every recipient.
//! - [`outbox`]: a connection's bounded send queue: market data coalesces (latest wins),
//!   answers and the private stream queue in order, and an overflow closes the socket with
//!   [`CLOSE_RESYNC`] rather than dropping anything silently.
//! - [`hub`]: one task owning who is subscribed to what; it turns engine events and market
//!   data into frames and runs the heartbeat.
//! - [`conn`]: one task per connection: the reader (parse, limits, requests) and the writer
//!   (batched writes), generic over the byte stream so tests can drive them.

pub mod conn;
pub mod hub;
pub mod outbox;
pub mod protocol;

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Query, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::api::{i18n, ApiError, AppState};
use outbox::Close;

/// Close code: the private stream could not be kept whole (the send queue overflowed, or
/// the server lost its place in the event stream). Reconnect and reload state over HTTP.
pub const CLOSE_RESYNC: u16 = 4000;
/// Close code: the session behind the `auth` ended (sign-out, password change, expiry).
pub const CLOSE_SESSION_ENDED: u16 = 4001;
/// Close code: no frame (not even a pong) from the client within the idle timeout.
pub const CLOSE_HEARTBEAT_TIMEOUT: u16 = 4002;
/// Close code (RFC 6455): the server is shutting down.
pub const CLOSE_GOING_AWAY: u16 = 1001;
/// Close code (RFC 6455): a protocol error (a fragmented or malformed frame).
pub const CLOSE_PROTOCOL_ERROR: u16 = 1002;
/// Close code (RFC 6455): rate limit kept being exceeded.
pub const CLOSE_POLICY: u16 = 1008;
/// Close code (RFC 6455): a message larger than the limit.
pub const CLOSE_TOO_BIG: u16 = 1009;

pub(crate) const RESYNC: Close = Close { code: CLOSE_RESYNC, reason: "resync" };

/// Most control messages (subscribe, auth, disconnect) waiting for the hub.
const HUB_CONTROL_QUEUE_MAX: usize = 65_536;

/// The websocket's limits. Every one is per connection unless it says otherwise.
#[derive(Debug, Clone)]
pub struct WsConfig {
    /// A heartbeat ping this often.
    pub ping_interval: Duration,
    /// Closed with [`CLOSE_HEARTBEAT_TIMEOUT`] after this long without a frame.
    pub idle_timeout: Duration,
    /// Most queued (non-coalesced) frames before a resync close.
    pub send_queue_max: usize,
    /// Most subscriptions.
    pub subscriptions_max: usize,
    /// Largest message accepted (bytes); larger closes with [`CLOSE_TOO_BIG`].
    pub message_bytes_max: usize,
    /// Sustained messages per second.
    pub messages_per_second: u32,
    /// Messages allowed in a burst above the sustained rate.
    pub messages_burst: u32,
    /// Most orders awaiting their answer.
    pub orders_in_flight_max: usize,
    /// Most connections on the whole server; more are answered 503.
    pub connections_max: usize,
    /// Most connections from one IP address; more are answered 429.
    pub connections_per_ip_max: usize,
    /// SO_SNDBUF of every accepted socket; none leaves the kernel's autotuning (up to
    /// `tcp_wmem`'s maximum, 4 MiB by default, per slow client).
    pub socket_send_buffer_bytes: Option<usize>,
}

impl Default for WsConfig {
    fn default() -> Self {
        WsConfig {
            ping_interval: Duration::from_secs(20),
            idle_timeout: Duration::from_secs(60),
            send_queue_max: 1_024,
            subscriptions_max: 64,
            message_bytes_max: 4_096,
            messages_per_second: 50,
            messages_burst: 100,
            orders_in_flight_max: 256,
            connections_max: 100_000,
            connections_per_ip_max: 1_000,
            socket_send_buffer_bytes: None,
        }
    }
}

/// What the websocket counts (exported at `/metrics`).
#[derive(Debug, Default)]
pub struct WsCounters {
    /// Open connections.
    pub connections: AtomicUsize,
    /// Market frames replaced in a slow client's outbox before they were sent.
    pub coalesced: AtomicU64,
    /// Connections closed with [`CLOSE_RESYNC`].
    pub resyncs: AtomicU64,
    /// Client messages read.
    pub messages_in: AtomicU64,
    /// Open connections per IP address (only addresses with one or more).
    per_ip: std::sync::Mutex<rustc_hash::FxHashMap<IpAddr, usize>>,
}

impl WsCounters {
    fn per_ip(&self) -> std::sync::MutexGuard<'_, rustc_hash::FxHashMap<IpAddr, usize>> {
        self.per_ip.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Whose share a peer address counts against: an IPv4 address (also when IPv6-mapped), or an
/// IPv6 /64, the block one subscriber is usually given (one address each would be no cap).
fn address_block(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// A connection's place under the connection caps, given back when dropped.
struct Admission {
    counters: Arc<WsCounters>,
    ip: Option<IpAddr>,
}

impl Admission {
    /// A place for a connection from `ip` (none when served without a socket), or 503 when
    /// the server is full, 429 when that address (or IPv6 /64) already holds its share.
    fn take(ws: &Ws, ip: Option<IpAddr>) -> Result<Admission, ApiError> {
        let open = ws.counters.connections.fetch_add(1, Ordering::AcqRel);
        let mut admission = Admission { counters: ws.counters.clone(), ip: None };
        if open >= ws.config.connections_max {
            return Err(ApiError::busy());
        }
        if let Some(ip) = ip.map(address_block) {
            let mut per_ip = ws.counters.per_ip();
            let count = per_ip.entry(ip).or_default();
            if *count >= ws.config.connections_per_ip_max {
                if *count == 0 {
                    per_ip.remove(&ip);
                }
                return Err(ApiError::rate_limited());
            }
            *count += 1;
            admission.ip = Some(ip);
        }
        Ok(admission)
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        self.counters.connections.fetch_sub(1, Ordering::AcqRel);
        if let Some(ip) = self.ip {
            let mut per_ip = self.counters.per_ip();
            if let Some(count) = per_ip.get_mut(&ip) {
                *count -= 1;
                if *count == 0 {
                    per_ip.remove(&ip);
                }
            }
        }
    }
}

/// What the handlers hold of the websocket service.
#[derive(Debug)]
pub struct Ws {
    /// The limits.
    pub config: WsConfig,
    /// Requests to the hub.
    control: mpsc::Sender<hub::Control>,
    /// Connection ids.
    next_id: AtomicU64,
    /// Counters, shared with every outbox.
    pub counters: Arc<WsCounters>,
}

impl Ws {
    /// The service and the hub's end of its control channel (give it to [`hub::spawn`]).
    pub fn new(config: WsConfig) -> (Ws, mpsc::Receiver<hub::Control>) {
        let (control, requests) = mpsc::channel(HUB_CONTROL_QUEUE_MAX);
        let ws = Ws { config, control, next_id: AtomicU64::new(1), counters: Arc::default() };
        (ws, requests)
    }

    /// Closes every connection with [`CLOSE_GOING_AWAY`] and stops the hub.
    pub fn shutdown(&self) {
        let _ = self.control.try_send(hub::Control::Shutdown);
    }

    /// Sends a request to the hub, waiting for room.
    pub(crate) async fn tell(&self, control: hub::Control) {
        let _ = self.control.send(control).await;
    }
}

/// `?language=` for clients that cannot set headers (browsers' websockets).
#[derive(Debug, Default, Deserialize)]
pub struct WsQuery {
    /// One of the eight languages; else the headers decide.
    pub language: Option<String>,
}

/// `GET /ws` and `GET /trade`: the websocket upgrade.
pub async fn upgrade(
    State(state): State<AppState>,
    Query(query): Query<WsQuery>,
    mut request: Request,
) -> Result<Response, ApiError> {
    if !fastwebsockets::upgrade::is_upgrade_request(&request) {
        return Err(ApiError::new(StatusCode::UPGRADE_REQUIRED, "UPGRADE_REQUIRED"));
    }
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|info| info.0.ip());
    let admission = Admission::take(&state.ws, peer)?;
    let language = query
        .language
        .as_deref()
        .and_then(i18n::match_tag)
        .unwrap_or_else(|| i18n::language_of(request.headers()));
    let (response, upgrade) = match fastwebsockets::upgrade::upgrade(&mut request) {
        Ok(pair) => pair,
        Err(_) => return Err(ApiError::bad("UPGRADE_REQUIRED")),
    };
    let id = state.ws.next_id.fetch_add(1, Ordering::Relaxed);
    tokio::spawn(async move {
        match upgrade.await {
            Ok(socket) => conn::serve(state.clone(), id, language, socket.into_inner()).await,
            Err(error) => tracing::debug!(%error, "websocket upgrade failed"),
        }
        drop(admission);
    });
    Ok(response.into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_per_address_cap_counts_ipv4_alone_and_ipv6_by_its_64_block() {
        let ip = |text: &str| text.parse::<IpAddr>().unwrap();
        assert_eq!(address_block(ip("203.0.113.7")), ip("203.0.113.7"));
        assert_eq!(address_block(ip("::ffff:203.0.113.7")), ip("203.0.113.7"));
        assert_eq!(address_block(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
        assert_eq!(address_block(ip("2001:db8:1:2:bbbb::9")), address_block(ip("2001:db8:1:2::5")));
        assert_ne!(address_block(ip("2001:db8:1:3::1")), address_block(ip("2001:db8:1:2::1")));
    }
}
