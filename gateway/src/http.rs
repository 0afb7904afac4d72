//! The HTTP listener: accepts connections and serves the router on each (HTTP/1.1, with
//! upgrades to the websocket), bounding what an idle or slow client can hold.
//!
//! - **A time limit for the request head** ([`ListenConfig::head_timeout`]): a connection
//!   that has not sent a whole request head this long after the server began waiting for one
//!   is closed. The wait begins when the connection opens and again after each answer, so the
//!   one limit closes a connection that sends nothing, one that sends half a head (slowloris),
//!   and a keep-alive connection idle between requests. An upgraded websocket is no longer
//!   HTTP: its own heartbeat closes it when silent.
//! - **A cap per address** on plain HTTP connections ([`ListenConfig::connections_per_ip_max`];
//!   IPv4 address or IPv6 /64), so that one client cannot take every place. A websocket gives
//!   its HTTP place back once upgraded and counts under the websocket caps instead.
//! - **A cap on every socket** of the listener, websockets included
//!   ([`ListenConfig::sockets_max`]), kept below the process's descriptor limit with a reserve
//!   for the log, the data files and the metrics listener, so that `accept` never fails for want
//!   of a descriptor while the server needs one.
//!
//! A connection over a cap is closed at once (accepting it frees the kernel's queue for
//! others). At shutdown the listener stops accepting, open connections finish their request in
//! progress and close, for at most [`DRAIN_TIMEOUT`].

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use crate::admission::{Admission, ConnectionCaps};

/// Largest request body outside uploads.
pub const BODY_BYTES_MAX: usize = 64 * 1024;
/// Largest upload (receipts, avatars).
pub const UPLOAD_BYTES_MAX: usize = 5 * 1024 * 1024;
/// Largest upload request: the file and its multipart framing.
pub const UPLOAD_REQUEST_BYTES_MAX: usize = UPLOAD_BYTES_MAX + 64 * 1024;
/// A request that takes longer is answered 503 (the spec's client gives up after 15 s).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(14);

/// In-flight requests get this long to finish at shutdown.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
/// After `accept` fails (descriptors or memory short), wait this long before the next try, so
/// that the loop does not spin while nothing can be accepted.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(50);
/// Refusals and accept errors are logged at most once per this period.
const LOG_PERIOD: Duration = Duration::from_secs(10);
/// Descriptors kept out of the listener's reach: the log's segments, sled, redb, uploads, the
/// outbox, the metrics listener, the runtime's own.
pub const DESCRIPTORS_RESERVED: u64 = 1_024;

/// The limits of the listener.
#[derive(Debug, Clone, Copy)]
pub struct ListenConfig {
    /// Longest wait for a whole request head (at the start and between keep-alive requests).
    pub head_timeout: Duration,
    /// Most plain HTTP connections from one address block.
    pub connections_per_ip_max: usize,
    /// Most sockets open at once, websockets included.
    pub sockets_max: usize,
}

impl Default for ListenConfig {
    fn default() -> Self {
        ListenConfig {
            head_timeout: Duration::from_secs(5),
            connections_per_ip_max: 256,
            sockets_max: sockets_max_for(20_000),
        }
    }
}

/// The socket cap for a descriptor limit: the limit less [`DESCRIPTORS_RESERVED`], and never
/// below a few dozen.
pub fn sockets_max_for(descriptor_limit: u64) -> usize {
    usize::try_from(descriptor_limit.saturating_sub(DESCRIPTORS_RESERVED).max(64))
        .unwrap_or(usize::MAX)
}

/// Raises the soft limit of open descriptors to the hard one and logs both; returns the limit
/// in force.
pub fn raise_descriptor_limit() -> u64 {
    match rlimit::getrlimit(rlimit::Resource::NOFILE) {
        Ok((soft, hard)) => match rlimit::setrlimit(rlimit::Resource::NOFILE, hard, hard) {
            Ok(()) => {
                tracing::info!(
                    soft_was = soft,
                    limit = hard,
                    "open descriptors: soft limit raised to the hard one"
                );
                hard
            }
            Err(error) => {
                tracing::warn!(soft, hard, %error, "open descriptors: the soft limit could not be raised");
                soft
            }
        },
        Err(error) => {
            tracing::warn!(%error, "open descriptors: the limit could not be read");
            20_000
        }
    }
}

/// A socket that holds its place under the socket cap for as long as it lives, also after an
/// upgrade hands it to the websocket.
struct Counted {
    /// The connection.
    stream: TcpStream,
    /// Its place, given back when the socket is dropped.
    _place: Admission,
}

impl AsyncRead for Counted {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// Logs a repeated condition at most once per [`LOG_PERIOD`], with how often it happened.
struct Throttled {
    /// What is logged.
    what: &'static str,
    /// Times since the last line.
    count: u64,
    /// When the last line was written.
    last: Option<Instant>,
}

impl Throttled {
    fn new(what: &'static str) -> Throttled {
        Throttled { what, count: 0, last: None }
    }

    fn note(&mut self, detail: &dyn std::fmt::Display) {
        self.count += 1;
        if self.last.is_none_or(|last| last.elapsed() >= LOG_PERIOD) {
            tracing::warn!(times = self.count, %detail, "{}", self.what);
            self.count = 0;
            self.last = Some(Instant::now());
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then drains. `tap` sets socket
/// options on each accepted connection.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    config: ListenConfig,
    tap: impl Fn(&TcpStream),
    shutdown: impl Future<Output = ()>,
) {
    let sockets = ConnectionCaps::new(config.sockets_max, usize::MAX);
    let per_address = ConnectionCaps::new(usize::MAX, config.connections_per_ip_max);
    // Told to every connection at shutdown; `open` is held by each connection's task, so
    // `open_tx.closed()` completes when the last one ends.
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(());
    let (open_tx, open_rx) = tokio::sync::watch::channel(());
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(config.head_timeout);
    let mut full =
        Throttled::new("connection closed at once: the listener's socket cap is reached");
    let mut crowded = Throttled::new("connection closed at once: its address holds its share");
    let mut failing = Throttled::new("accept failed");
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    failing.note(&error);
                    tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let socket = match sockets.take(None) {
            Ok(place) => place,
            Err(_) => {
                full.note(&sockets.open());
                continue;
            }
        };
        let place = match per_address.take(Some(peer.ip())) {
            Ok(place) => place,
            Err(_) => {
                crowded.note(&peer.ip());
                continue;
            }
        };
        tap(&stream);
        let io = TokioIo::new(Counted { stream, _place: socket });
        // The router, with the peer's address for extractors (`ConnectInfo`) as axum::serve
        // gives it.
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            app.clone().oneshot(request.map(axum::body::Body::new))
        });
        let connection = builder.serve_connection(io, service).with_upgrades();
        let (mut stopping, open) = (stop_rx.clone(), open_rx.clone());
        tokio::spawn(async move {
            tokio::pin!(connection);
            // Ends when the client leaves, a timeout closes it, or it upgrades (its HTTP place
            // is given back then; the socket's stays with the websocket). At shutdown, the
            // request in progress is answered and the connection closes.
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                _ = stopping.changed() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = ended {
                tracing::debug!(%error, %peer, "connection ended");
            }
            drop((place, open));
        });
    }
    drop((listener, open_rx));
    let _ = stop_tx.send(());
    if tokio::time::timeout(DRAIN_TIMEOUT, open_tx.closed()).await.is_err() {
        tracing::warn!("connections still open after the drain timeout are left to close");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_cap_leaves_a_reserve_of_descriptors() {
        assert_eq!(sockets_max_for(20_000), 20_000 - DESCRIPTORS_RESERVED as usize);
        assert_eq!(sockets_max_for(100), 64);
    }
}
