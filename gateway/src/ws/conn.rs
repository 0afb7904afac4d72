//! One connection: a reader and a writer, polled together in the connection's task.
//!
//! The reader parses each text frame, applies the per-connection limits (message size,
//! message rate, subscriptions, orders in flight) and answers through the outbox. The writer
//! drains the outbox in batches, framing each message with fastwebsockets and writing the
//! batch with one call. Both are generic over the byte stream (the server gives them hyper's
//! upgraded connection).

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Query, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use fastwebsockets::{OpCode, Payload, Role, WebSocketError};
use market_feed::types::Period;
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::control::{ConnId, Control, Topic};
use super::outbox::{Close, Out, Outbox};
use super::protocol::{self, Incoming, RequestId};
use super::{CLOSE_POLICY, CLOSE_PROTOCOL_ERROR, CLOSE_TOO_BIG};
use crate::admission::Refused;
use crate::error::ApiError;
use crate::forward;
use crate::i18n;
use crate::sessions;
use crate::state::AppState;
use crate::trading::{self, order_accepted, place_order_command, OrderBody};

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
    // A place under the websocket caps: 503 when the server is full, 429 when that address (or
    // IPv6 /64) already holds its share.
    let admission = state.ws.counters.connections.take(peer).map_err(|refused| match refused {
        Refused::Full => ApiError::busy(),
        Refused::AddressFull => ApiError::rate_limited(),
    })?;
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
            Ok(socket) => serve(state.clone(), id, language, socket.into_inner()).await,
            Err(error) => tracing::debug!(%error, "websocket upgrade failed"),
        }
        drop(admission);
    });
    Ok(response.into_response())
}

/// Frames written per batch (one write call).
const WRITE_BATCH_FRAMES_MAX: usize = 256;
/// How long the writer gets to send the close frame once the reader has ended.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// Largest websocket frame header (RFC 6455: 2 + 8 length + 4 mask).
const FRAME_HEAD_BYTES_MAX: usize = 14;

/// Serves a connection until either side closes it.
pub async fn serve<S>(state: AppState, id: ConnId, language: usize, stream: S)
where
    S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let outbox = Arc::new(Outbox::new(
        state.ws.config.send_queue_max,
        state.now(),
        Arc::clone(&state.ws.counters),
    ));
    state.ws.tell(Control::Open { conn: id, outbox: Arc::clone(&outbox) }).await;
    let (mut read, write) = tokio::io::split(stream);
    {
        // The write half given to fastwebsockets is never used: the writer frames its own
        // batches (see `write_loop`).
        let (mut socket, _) =
            fastwebsockets::after_handshake_split(&mut read, tokio::io::sink(), Role::Server);
        // fastwebsockets refuses a payload whose length is *at least* the value: one more
        // byte makes the documented limit the enforced one (a message of exactly the limit
        // is read, one byte more closes with 1009).
        socket.set_max_message_size(state.ws.config.message_bytes_max.saturating_add(1));
        socket.set_auto_close(false);
        socket.set_auto_pong(false);
        let mut reader = Reader::new(state.clone(), id, language, Arc::clone(&outbox));
        let reading = reader.run(&mut socket);
        let writing = write_loop(write, &outbox);
        tokio::pin!(reading, writing);
        tokio::select! {
            close = &mut reading => {
                outbox.close(close);
                let _ = tokio::time::timeout(CLOSE_GRACE, &mut writing).await;
            }
            _ = &mut writing => {}
        }
    }
    // Read what the client still sends until it closes too (bounded): closing a socket with
    // unread bytes resets it, and the client would lose the close frame and its code.
    let _ = tokio::time::timeout(CLOSE_GRACE, async {
        let mut discard = [0u8; 1_024];
        while matches!(read.read(&mut discard).await, Ok(n) if n > 0) {}
    })
    .await;
    state.ws.tell(Control::Gone { conn: id }).await;
}

/// Drains the outbox into the socket until the close frame is written or a write fails.
async fn write_loop<W: AsyncWrite + Unpin>(mut write: W, outbox: &Outbox) -> std::io::Result<()> {
    let mut batch = Vec::new();
    loop {
        outbox.take(&mut batch, WRITE_BATCH_FRAMES_MAX);
        if batch.is_empty() {
            outbox.ready().await;
            continue;
        }
        let size: usize = batch.iter().map(|o| frame_len(o) + FRAME_HEAD_BYTES_MAX).sum();
        let mut bytes = Vec::with_capacity(size);
        let mut closing = false;
        for out in batch.drain(..) {
            closing |= matches!(out, Out::Close(_));
            encode(&out, &mut bytes);
        }
        write.write_all(&bytes).await?;
        if closing {
            let _ = write.shutdown().await;
            return Ok(());
        }
        if batch.capacity() > WRITE_BATCH_FRAMES_MAX {
            batch = Vec::new(); // an idle connection keeps no large buffer
        }
    }
}

fn frame_len(out: &Out) -> usize {
    match out {
        Out::Text(b) | Out::Pong(b) => b.len(),
        Out::Ping => 0,
        Out::Close(c) => 2 + c.reason.len(),
    }
}

/// Appends one frame (header and payload) to `bytes`.
fn encode(out: &Out, bytes: &mut Vec<u8>) {
    let close_payload;
    let (opcode, payload): (OpCode, &[u8]) = match out {
        Out::Text(b) => (OpCode::Text, b),
        Out::Pong(b) => (OpCode::Pong, b),
        Out::Ping => (OpCode::Ping, b""),
        Out::Close(c) => {
            close_payload = [&c.code.to_be_bytes()[..], c.reason.as_bytes()].concat();
            (OpCode::Close, &close_payload)
        }
    };
    let mut frame = fastwebsockets::Frame::new(true, opcode, None, Payload::Borrowed(payload));
    let mut head = [0u8; FRAME_HEAD_BYTES_MAX];
    let head_len = frame.fmt_head(&mut head);
    bytes.extend_from_slice(&head[..head_len]);
    bytes.extend_from_slice(payload);
}

/// A token bucket: `rate` per second, up to `burst` at once.
#[derive(Debug)]
struct RateLimit {
    tokens: u64,
    /// Tokens are counted in millis of a message, to refill smoothly without floats.
    burst_milli: u64,
    rate: u64,
    last: Instant,
    /// Messages refused in a row.
    refused: u32,
}

impl RateLimit {
    fn new(rate: u32, burst: u32) -> RateLimit {
        let burst_milli = u64::from(burst.max(1)) * 1_000;
        RateLimit {
            tokens: burst_milli,
            burst_milli,
            rate: u64::from(rate),
            last: Instant::now(),
            refused: 0,
        }
    }

    fn allow(&mut self) -> bool {
        let now = Instant::now();
        let elapsed_ms =
            u64::try_from(now.duration_since(self.last).as_millis()).unwrap_or(u64::MAX);
        if elapsed_ms > 0 {
            self.tokens = self
                .burst_milli
                .min(self.tokens.saturating_add(elapsed_ms.saturating_mul(self.rate)));
            self.last = now;
        }
        if self.tokens >= 1_000 {
            self.tokens -= 1_000;
            self.refused = 0;
            true
        } else {
            self.refused += 1;
            false
        }
    }
}

/// The reading side of a connection and what it knows.
struct Reader {
    state: AppState,
    id: ConnId,
    language: usize,
    outbox: Arc<Outbox>,
    topics: Vec<Topic>,
    /// The user, once authenticated.
    user: Option<sessions::User>,
    /// The token the user authenticated with: a follower places orders through the leader
    /// with it.
    token: Option<String>,
    limit: RateLimit,
}

/// RFC 6455 §5.1: a server must close the connection on a frame from the client that is not
/// masked. fastwebsockets reads such a frame without complaint and keeps the mask private;
/// its header, as `fmt_head` writes it back, carries the mask bit.
fn masked(frame: &mut fastwebsockets::Frame<'_>) -> bool {
    let mut head = [0u8; 14];
    frame.fmt_head(&mut head);
    head[1] & 0x80 != 0
}

impl Reader {
    fn new(state: AppState, id: ConnId, language: usize, outbox: Arc<Outbox>) -> Reader {
        let config = &state.ws.config;
        let limit = RateLimit::new(config.messages_per_second, config.messages_burst);
        Reader { state, id, language, outbox, topics: Vec::new(), user: None, token: None, limit }
    }

    /// Reads until the client closes, breaks the protocol or the outbox closes; returns the
    /// close to send.
    async fn run<R: AsyncRead + Unpin>(
        &mut self,
        socket: &mut fastwebsockets::WebSocketRead<R>,
    ) -> Close {
        let mut no_obligations =
            |_: fastwebsockets::Frame<'_>| std::future::ready(Ok::<(), std::io::Error>(()));
        loop {
            let mut frame = match socket.read_frame(&mut no_obligations).await {
                Ok(frame) => frame,
                Err(error) => return close_for(&error),
            };
            if !masked(&mut frame) {
                return Close {
                    code: CLOSE_PROTOCOL_ERROR,
                    reason: "a client's frames must be masked",
                };
            }
            self.outbox.last_seen_ms.store(self.state.now(), Ordering::Relaxed);
            self.state.ws.counters.messages_in.fetch_add(1, Ordering::Relaxed);
            match frame.opcode {
                OpCode::Text if frame.fin => {
                    if let Some(close) = self.text(&frame.payload).await {
                        return close;
                    }
                }
                OpCode::Text | OpCode::Continuation => {
                    return Close {
                        code: CLOSE_PROTOCOL_ERROR,
                        reason: "fragmented messages are not supported",
                    };
                }
                OpCode::Binary => self.refuse(None, ApiError::bad("BAD_MESSAGE")),
                OpCode::Ping => self.outbox.pong(Bytes::copy_from_slice(&frame.payload)),
                OpCode::Pong => {}
                OpCode::Close => return Close { code: 1000, reason: "" },
            }
            if self.outbox.is_closing() {
                return Close { code: 1000, reason: "" }; // already chosen: the first close wins
            }
        }
    }

    /// Handles one message; `Some` closes the connection.
    async fn text(&mut self, payload: &[u8]) -> Option<Close> {
        if !self.limit.allow() {
            if self.limit.refused > self.state.ws.config.messages_burst {
                return Some(Close { code: CLOSE_POLICY, reason: "message rate limit" });
            }
            self.refuse(None, ApiError::rate_limited());
            return None;
        }
        let message = match protocol::parse(payload) {
            Ok(message) => message,
            Err(refused) => {
                // The request id is echoed whatever else is wrong, so that a client can tell
                // which of its requests (an order, say) was refused.
                self.refuse(refused.id.as_ref().filter(|id| id.echoable()), refused.error);
                return None;
            }
        };
        let id = message.id.as_ref().filter(|id| id.echoable());
        let result = match message.op.as_str() {
            "subscribe" => self.subscribe(id, &message).await.map(Some),
            "unsubscribe" => self.unsubscribe(id, &message).await.map(Some),
            "auth" => self.auth(id, &message.token).await.map(Some),
            "adminAuth" => self.admin_auth(id, &message.token).await.map(Some),
            "order" => self.order(id, &message).map(|()| None), // answered when durable
            "ping" => Ok(Some(protocol::pong(id, self.state.now()))),
            _ => Err(ApiError::bad("BAD_MESSAGE")),
        };
        match result {
            Ok(Some(frame)) => {
                self.outbox.push(frame);
            }
            Ok(None) => {}
            Err(error) => self.refuse(id, error),
        }
        None
    }

    /// Queues an error frame in the connection's language.
    fn refuse(&self, id: Option<&RequestId>, error: ApiError) {
        self.outbox.push(error_frame(&self.state, self.language, id, &error));
    }

    fn topic(&self, message: &Incoming) -> Result<Topic, ApiError> {
        let symbol = || {
            let symbol = trading::symbol(&message.symbol)?;
            if !self.state.market.is_listed(symbol) {
                return Err(ApiError::new(axum::http::StatusCode::NOT_FOUND, "PRODUCT_NOT_FOUND"));
            }
            Ok(symbol)
        };
        match message.channel.as_str() {
            "tickers" => Ok(Topic::Tickers),
            "ticks" => Ok(Topic::Ticks(symbol()?)),
            "candles" => {
                let period = Period::parse(&message.period)
                    .ok_or_else(|| ApiError::invalid("period", "period"))?;
                Ok(Topic::Candles(symbol()?, period))
            }
            "tournament" => Ok(Topic::Tournament(message.tournament)),
            _ => Err(ApiError::bad("UNKNOWN_CHANNEL")),
        }
    }

    async fn subscribe(
        &mut self,
        id: Option<&RequestId>,
        message: &Incoming,
    ) -> Result<Bytes, ApiError> {
        let topic = self.topic(message)?;
        if let Topic::Tournament(id) = topic {
            let kept = self.state.query(move |e| e.tournament(id).is_some()).await?;
            if !kept {
                return Err(engine::EngineError::TournamentNotFound.into());
            }
        }
        if !self.topics.contains(&topic) {
            let max = self.state.ws.config.subscriptions_max;
            if self.topics.len() >= max {
                return Err(ApiError::bad("TOO_MANY_SUBSCRIPTIONS").arg("max", max));
            }
            self.topics.push(topic);
            self.state.ws.tell(Control::Subscribe { conn: self.id, topic }).await;
        }
        Ok(protocol::topic_ack("subscribed", id, &topic))
    }

    async fn unsubscribe(
        &mut self,
        id: Option<&RequestId>,
        message: &Incoming,
    ) -> Result<Bytes, ApiError> {
        let topic = self.topic(message)?;
        if let Some(at) = self.topics.iter().position(|t| *t == topic) {
            self.topics.swap_remove(at);
            self.state.ws.tell(Control::Unsubscribe { conn: self.id, topic }).await;
        }
        Ok(protocol::topic_ack("unsubscribed", id, &topic))
    }

    async fn auth(&mut self, id: Option<&RequestId>, token: &str) -> Result<Bytes, ApiError> {
        let (user, expires_ms) = sessions::live_user(&self.state, token).await?;
        self.user = Some(user);
        self.token = Some(token.to_owned());
        let control =
            Control::Auth { conn: self.id, user: user.id, session: user.session, expires_ms };
        self.state.ws.tell(control).await;
        Ok(protocol::authenticated(id, user.id.into()))
    }

    /// The back-office's live trades: every contract accepted, entered and settled, for an
    /// admin whose role may read trades.
    async fn admin_auth(&mut self, id: Option<&RequestId>, token: &str) -> Result<Bytes, ApiError> {
        let (admin, expires_ms) = sessions::live_admin(&self.state, token).await?;
        admin.reads(engine::types::Area::Trades)?;
        let control = Control::AdminAuth {
            conn: self.id,
            admin: admin.id,
            session: admin.session,
            expires_ms,
        };
        self.state.ws.tell(control).await;
        Ok(protocol::admin_authenticated(id, admin.id.into()))
    }

    /// A cluster follower: the order goes to the leader over HTTP with the caller's token,
    /// once; its answer (or refusal, in the caller's language) comes back on this socket.
    fn order_through_leader(&mut self, id: Option<&RequestId>, body: &OrderBody) {
        let order = serde_json::json!({
            "symbol": body.symbol,
            "direction": body.direction,
            "amount": body.amount,
            "duration": body.duration,
            "account": body.account,
        });
        let token = self.token.clone().unwrap_or_default();
        let language = crate::i18n::LANGUAGES.get(self.language).copied().unwrap_or_default();
        let (state, outbox, conn_language, id) =
            (self.state.clone(), Arc::clone(&self.outbox), self.language, id.cloned());
        tokio::spawn(async move {
            let answer = forward::order_to_leader(&state, &token, language, order).await;
            let frame = match answer {
                Ok(forward::LeaderAnswer::Accepted(accepted)) => {
                    protocol::order_reply(id.as_ref(), &accepted)
                }
                Ok(forward::LeaderAnswer::Refused { code, message, field }) => {
                    protocol::error(id.as_ref(), &code, &message, field.as_deref())
                }
                Err(error) => error_frame(&state, conn_language, id.as_ref(), &error),
            };
            outbox.orders_in_flight.fetch_sub(1, Ordering::AcqRel);
            outbox.push(frame);
        });
    }

    /// Submits an order; its answer comes from a task of its own, so a client may pipeline.
    fn order(&mut self, id: Option<&RequestId>, message: &Incoming) -> Result<(), ApiError> {
        let user = self.user.ok_or_else(ApiError::unauthorized)?;
        let body = OrderBody {
            symbol: message.symbol.clone(),
            direction: message.direction.clone(),
            amount: message.amount.clone(),
            duration: message.duration,
            account: message.account.clone(),
        };
        let command = place_order_command(&self.state, user.id, &body)?;
        let in_flight = &self.outbox.orders_in_flight;
        if in_flight.fetch_add(1, Ordering::AcqRel) >= self.state.ws.config.orders_in_flight_max {
            in_flight.fetch_sub(1, Ordering::AcqRel);
            return Err(ApiError::busy());
        }
        if self.state.cluster.is_some() && !self.state.handle.is_leader() {
            self.order_through_leader(id, &body);
            return Ok(());
        }
        let ticket = match self.state.handle.try_submit(command) {
            Ok(ticket) => ticket,
            Err(error) => {
                in_flight.fetch_sub(1, Ordering::AcqRel);
                return Err(error.into());
            }
        };
        let (state, outbox, language, id) =
            (self.state.clone(), Arc::clone(&self.outbox), self.language, id.cloned());
        tokio::spawn(async move {
            let answer = match ticket.await {
                Ok(result) => result.map_err(ApiError::from).and_then(order_accepted),
                Err(error) => Err(ApiError::from(error)),
            };
            let frame = match answer {
                Ok(accepted) => {
                    state.metrics.orders.inc();
                    protocol::order_reply(id.as_ref(), &accepted)
                }
                Err(error) => error_frame(&state, language, id.as_ref(), &error),
            };
            outbox.orders_in_flight.fetch_sub(1, Ordering::AcqRel);
            outbox.push(frame);
        });
        Ok(())
    }
}

/// An error frame in `language`.
fn error_frame(
    state: &AppState,
    language: usize,
    id: Option<&RequestId>,
    error: &ApiError,
) -> Bytes {
    let message = state.i18n.text(language, &error.key, &error.args);
    protocol::error(id, error.code, &message, error.field)
}

/// The close for a read error.
fn close_for(error: &WebSocketError) -> Close {
    match error {
        WebSocketError::FrameTooLarge => Close { code: CLOSE_TOO_BIG, reason: "message too big" },
        WebSocketError::UnexpectedEOF
        | WebSocketError::IoError(_)
        | WebSocketError::ConnectionClosed => Close { code: 1000, reason: "" },
        _ => Close { code: CLOSE_PROTOCOL_ERROR, reason: "protocol error" },
    }
}
