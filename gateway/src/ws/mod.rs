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
pub mod control;
pub mod hub;
pub mod outbox;
pub mod protocol;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::admission::ConnectionCaps;
use crate::metrics::WsFigures;
use control::Control;
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
#[derive(Debug)]
pub struct WsCounters {
    /// Open connections, under their caps.
    pub connections: Arc<ConnectionCaps>,
    /// Market frames replaced in a slow client's outbox before they were sent.
    pub coalesced: AtomicU64,
    /// Connections closed with [`CLOSE_RESYNC`].
    pub resyncs: AtomicU64,
    /// Client messages read.
    pub messages_in: AtomicU64,
}

impl Default for WsCounters {
    /// The counters of the default limits.
    fn default() -> Self {
        WsCounters::new(&WsConfig::default())
    }
}

impl WsCounters {
    /// The counters now, for the metrics page.
    pub fn figures(&self) -> WsFigures {
        WsFigures {
            connections: self.connections.open() as u64,
            coalesced: self.coalesced.load(Ordering::Relaxed),
            resyncs: self.resyncs.load(Ordering::Relaxed),
            messages_in: self.messages_in.load(Ordering::Relaxed),
        }
    }

    fn new(config: &WsConfig) -> WsCounters {
        WsCounters {
            connections: ConnectionCaps::new(config.connections_max, config.connections_per_ip_max),
            coalesced: AtomicU64::new(0),
            resyncs: AtomicU64::new(0),
            messages_in: AtomicU64::new(0),
        }
    }
}

/// What the handlers hold of the websocket service.
#[derive(Debug)]
pub struct Ws {
    /// The limits.
    pub config: WsConfig,
    /// Requests to the hub.
    control: mpsc::Sender<Control>,
    /// Connection ids.
    next_id: AtomicU64,
    /// Counters, shared with every outbox.
    pub counters: Arc<WsCounters>,
}

impl Ws {
    /// The service and the hub's end of its control channel (give it to [`hub::spawn`]).
    pub fn new(config: WsConfig) -> (Ws, mpsc::Receiver<Control>) {
        let (control, requests) = mpsc::channel(HUB_CONTROL_QUEUE_MAX);
        let counters = Arc::new(WsCounters::new(&config));
        let ws = Ws { config, control, next_id: AtomicU64::new(1), counters };
        (ws, requests)
    }

    /// Closes every connection with [`CLOSE_GOING_AWAY`] and stops the hub.
    pub fn shutdown(&self) {
        let _ = self.control.try_send(Control::Shutdown);
    }

    /// Sends a request to the hub, waiting for room.
    pub(crate) async fn tell(&self, control: Control) {
        let _ = self.control.send(control).await;
    }
}
