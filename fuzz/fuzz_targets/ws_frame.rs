//! The websocket's reading side on hostile client bytes, as `gateway::ws::conn` reads them:
//!
//! 1. frames: fastwebsockets' `WebSocketRead::read_frame` over the bytes a client sends after
//!    the handshake, configured exactly as `conn::serve` configures it (server role,
//!    `set_max_message_size(message_bytes_max + 1)`, no auto close or pong), fed in chunks of
//!    a fuzzed size so partial reads are covered; no frame over the limit may get through;
//! 2. messages: each final text frame decoded as the reader does, `ws::protocol::parse` (the
//!    message, or the refusal with the id it could still read and the field at fault), then
//!    the stateless checks the reader dispatches on: the id filter (`RequestId::echoable`),
//!    `trade::symbol`, `Period::parse`, `dto::direction` / `dto::amount` / `dto::account` for
//!    orders, `Tokens::check` for auth;
//! 3. answers: the frame echoing the request id (`protocol::topic_ack` / `pong` / `error`) is
//!    valid JSON carrying the same id.
//!
//! Input: `[mode u8][bytes...]`. mode bit 0 set: the bytes are one text message (the JSON
//! layer alone, no framing); else they are the client's byte stream, read in chunks of
//! `1 + (mode >> 1)` bytes (127 → all at once).
#![no_main]

use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use fastwebsockets::{OpCode, Role};
use gateway::api::auth::Tokens;
use gateway::api::dto;
use gateway::trading as trade;
use gateway::ws::protocol::{self, Incoming, RequestId, Topic, REQUEST_ID_CHARS_MAX};
use gateway::ws::WsConfig;
use libfuzzer_sys::fuzz_target;
use market_feed::types::Period;
use rust_decimal::Decimal;
use tokio::io::{AsyncRead, ReadBuf};

/// Most frames read from one input (each costs little; this only bounds the loop).
const FRAMES_MAX: usize = 256;

/// The client's bytes, handed out at most `chunk` at a time; never pending.
struct Chunked<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl AsyncRead for Chunked<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let n = self.chunk.min(self.data.len()).min(buf.remaining());
        buf.put_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Poll::Ready(Ok(()))
    }
}

/// Runs a future that never waits (its reader is in memory).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("an in-memory read never waits"),
    }
}

fn tokens() -> &'static Tokens {
    static TOKENS: OnceLock<Tokens> = OnceLock::new();
    TOKENS.get_or_init(|| Tokens::new(b"fuzz-secret-fuzz-secret-fuzz-sec"))
}

/// An answer frame must be JSON that echoes the request id as it came.
fn check_answer(frame: &[u8], id: Option<&RequestId>) {
    let value: serde_json::Value = serde_json::from_slice(frame).expect("answer is JSON");
    let echoed = value.get("id").map(|v| serde_json::from_value::<RequestId>(v.clone()));
    match (id, echoed) {
        (None, None) => {}
        (Some(id), Some(Ok(echoed))) => assert_eq!(*id, echoed, "id not echoed as it came"),
        (id, echoed) => panic!("id {id:?} echoed as {echoed:?}"),
    }
}

fn topic(message: &Incoming) -> Option<Topic> {
    match message.channel.as_str() {
        "tickers" => Some(Topic::Tickers),
        "ticks" => Some(Topic::Ticks(trade::symbol(&message.symbol).ok()?)),
        "candles" => {
            let period = Period::parse(&message.period)?;
            assert_eq!(period.as_str(), message.period);
            Some(Topic::Candles(trade::symbol(&message.symbol).ok()?, period))
        }
        _ => None,
    }
}

/// What `Reader::text` does with one message, minus the parts that need a running server.
fn text(payload: &[u8]) {
    let message = match protocol::parse(payload) {
        Ok(message) => message,
        Err(refused) => {
            let id = refused.id.as_ref().filter(|id| id.echoable());
            if let Some(field) = refused.error.field {
                assert_eq!(refused.error.code, "VALIDATION", "{field}");
            }
            let answer = protocol::error(id, refused.error.code, "refused", refused.error.field);
            check_answer(&answer, id);
            return;
        }
    };
    // What parse accepts is one JSON object of the message's shape.
    assert!(serde_json::from_slice::<Incoming>(payload).is_ok());
    let id = message.id.as_ref().filter(|id| id.echoable());
    if let Some(RequestId::Text(text)) = id {
        assert!(text.len() <= REQUEST_ID_CHARS_MAX);
    }
    let answer = match message.op.as_str() {
        kind @ ("subscribe" | "unsubscribe") => {
            let acked = if kind == "subscribe" { "subscribed" } else { "unsubscribed" };
            match topic(&message) {
                Some(topic) => protocol::topic_ack(acked, id, &topic),
                None => protocol::error(id, "VALIDATION", "bad topic", Some("channel")),
            }
        }
        "auth" => {
            if let Some(claims) = tokens().check(&message.token, "user") {
                assert_eq!(claims.kind, "user");
            }
            protocol::error(id, "UNAUTHORIZED", "sign in", None)
        }
        "order" => {
            let symbol = trade::symbol(&message.symbol);
            let direction = dto::direction(&message.direction);
            let stake = dto::amount("amount", &message.amount);
            let account = dto::account(message.account.as_deref());
            if let Ok(stake) = stake {
                assert!(stake > Decimal::ZERO && stake <= Decimal::from(1_000_000_000u64));
                assert!(stake.scale() <= 2);
            }
            if let Ok(symbol) = symbol {
                assert!((3..=16).contains(&symbol.as_str().len()));
            }
            let _ = (direction, account);
            protocol::error(id, "VALIDATION", "order", Some("amount"))
        }
        "ping" => protocol::pong(id, 1_700_000_000_000),
        _ => protocol::error(id, "BAD_MESSAGE", "bad message", None),
    };
    check_answer(&answer, id);
}

fn frames(data: &[u8], chunk: usize) {
    let max = WsConfig::default().message_bytes_max;
    let mut stream = Chunked { data, chunk };
    let (mut socket, _) =
        fastwebsockets::after_handshake_split(&mut stream, tokio::io::sink(), Role::Server);
    socket.set_max_message_size(max.saturating_add(1)); // as conn::serve does
    socket.set_auto_close(false);
    socket.set_auto_pong(false);
    let mut no_obligations =
        |_: fastwebsockets::Frame<'_>| std::future::ready(Ok::<(), std::io::Error>(()));
    for _ in 0..FRAMES_MAX {
        let Ok(frame) = block_on(socket.read_frame(&mut no_obligations)) else { return };
        // The size check: nothing at or over the limit reaches the reader.
        assert!(frame.payload.len() <= max, "a {}-byte frame got through", frame.payload.len());
        match frame.opcode {
            OpCode::Text if frame.fin => {
                assert!(std::str::from_utf8(&frame.payload).is_ok(), "text frame not UTF-8");
                text(&frame.payload);
            }
            OpCode::Text | OpCode::Continuation => return, // closes: fragmented
            OpCode::Ping => assert!(frame.payload.len() <= 125),
            OpCode::Binary | OpCode::Pong => {}
            OpCode::Close => return,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode & 1 == 1 {
        text(rest);
    } else {
        let chunk = match mode >> 1 {
            127 => usize::MAX,
            n => 1 + usize::from(n),
        };
        frames(rest, chunk);
    }
});
