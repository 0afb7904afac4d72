//! A connection's send queue, filled by the hub and the reader, drained by the writer.
//!
//! Two kinds of frames, two rules:
//! - market data (ticks, tickers, candles) is *coalesced*: one slot per product (and period),
//!   the latest frame wins, so a slow client sees fewer updates, never stale ones, and the
//!   memory it costs is bounded by its subscriptions;
//! - everything else (answers, the private stream, notices) is *queued* in order, up to
//!   `queue_max` frames. A full queue is never dropped from silently: the connection is
//!   closed with [`super::CLOSE_RESYNC`], which tells the client to reconnect and reload.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

use bytes::Bytes;
use engine::types::Symbol;
use market_feed::types::Period;
use tokio::sync::Notify;

/// The slot a coalesced frame replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A product's last tick.
    Tick(Symbol),
    /// A product's market-list line.
    Ticker(Symbol),
    /// A product's candle of one period; closed and open candles have a slot each, so a
    /// candle's final state is not lost to the next one's first update.
    Candle(Symbol, Period, bool),
    /// An open contract's offer for early close.
    Offer(u64),
}

/// Why and how the server closes a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Close {
    /// The websocket close code.
    pub code: u16,
    /// A short reason, sent in the close frame.
    pub reason: &'static str,
}

/// One frame for the writer.
#[derive(Debug, Clone)]
pub enum Out {
    /// A JSON text frame.
    Text(Bytes),
    /// A heartbeat ping.
    Ping,
    /// The answer to a client's ping, with its payload.
    Pong(Bytes),
    /// The close frame; nothing follows it.
    Close(Close),
}

/// What waits to be written.
#[derive(Debug, Default)]
struct State {
    /// Answers and private events, in order.
    queue: VecDeque<Bytes>,
    /// Coalesced market data, in the order the slots were first filled.
    latest: Vec<(Slot, Bytes)>,
    /// A heartbeat ping is due.
    ping: bool,
    /// A pong is owed.
    pong: Option<Bytes>,
    /// The connection is closing: the frame to end with. Set once.
    close: Option<Close>,
}

/// A connection's outbox. Shared (`Arc`) by the hub, the reader, order tasks and the writer.
#[derive(Debug)]
pub struct Outbox {
    /// The frames; held for a few pointer moves at a time.
    state: Mutex<State>,
    /// Wakes the writer.
    wake: Notify,
    /// Most queued frames before the connection is closed for resync.
    queue_max: usize,
    /// When the client last sent a frame (ms): the heartbeat's evidence of life.
    pub last_seen_ms: AtomicU64,
    /// Orders submitted and not yet answered.
    pub orders_in_flight: AtomicUsize,
    /// The service's counters.
    counters: Arc<super::WsCounters>,
}

impl Outbox {
    /// An empty outbox.
    pub fn new(queue_max: usize, now_ms: u64, counters: Arc<super::WsCounters>) -> Outbox {
        assert!(queue_max > 0, "a connection must be able to queue an answer");
        Outbox {
            state: Mutex::new(State::default()),
            wake: Notify::new(),
            queue_max,
            last_seen_ms: AtomicU64::new(now_ms),
            orders_in_flight: AtomicUsize::new(0),
            counters,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a frame that must not be lost. Returns false if the connection is closing;
    /// a full queue closes it with [`super::CLOSE_RESYNC`] (and returns false).
    pub fn push(&self, frame: Bytes) -> bool {
        let mut state = self.state();
        if state.close.is_some() {
            return false;
        }
        if state.queue.len() >= self.queue_max {
            state.close = Some(super::RESYNC);
            drop(state);
            self.counters.resyncs.fetch_add(1, Ordering::Relaxed);
            self.wake.notify_one();
            return false;
        }
        state.queue.push_back(frame);
        drop(state);
        self.wake.notify_one();
        true
    }

    /// Puts market data in its slot, replacing what the writer has not sent yet.
    pub fn push_latest(&self, slot: Slot, frame: Bytes) {
        let mut state = self.state();
        if state.close.is_some() {
            return;
        }
        if let Slot::Candle(symbol, period, true) = slot {
            // A closed candle is older than any open one of the same chart waiting here:
            // write it first, so a chart never receives a bar older than its last.
            state.latest.retain(|(s, _)| *s != Slot::Candle(symbol, period, false));
        }
        match state.latest.iter_mut().find(|(s, _)| *s == slot) {
            Some((_, old)) => {
                *old = frame;
                self.counters.coalesced.fetch_add(1, Ordering::Relaxed);
            }
            None => state.latest.push((slot, frame)),
        }
        drop(state);
        self.wake.notify_one();
    }

    /// Asks the writer for a heartbeat ping.
    pub fn ping(&self) {
        self.state().ping = true;
        self.wake.notify_one();
    }

    /// Owes the client a pong.
    pub fn pong(&self, payload: Bytes) {
        self.state().pong = Some(payload);
        self.wake.notify_one();
    }

    /// Closes the connection after what is queued; the first reason given wins.
    pub fn close(&self, close: Close) {
        let mut state = self.state();
        if state.close.is_none() {
            state.close = Some(close);
        }
        drop(state);
        self.wake.notify_one();
    }

    /// Whether the connection is closing.
    pub fn is_closing(&self) -> bool {
        self.state().close.is_some()
    }

    /// Moves up to `max` frames into `batch`, control frames first, the close frame last.
    pub fn take(&self, batch: &mut Vec<Out>, max: usize) {
        let mut state = self.state();
        if let Some(payload) = state.pong.take() {
            batch.push(Out::Pong(payload));
        }
        if std::mem::take(&mut state.ping) {
            batch.push(Out::Ping);
        }
        while batch.len() < max {
            match state.queue.pop_front() {
                Some(frame) => batch.push(Out::Text(frame)),
                None => break,
            }
        }
        let room = max.saturating_sub(batch.len()).min(state.latest.len());
        batch.extend(state.latest.drain(..room).map(|(_, frame)| Out::Text(frame)));
        if state.queue.is_empty() && state.latest.is_empty() {
            if let Some(close) = state.close {
                batch.push(Out::Close(close));
            }
        }
    }

    /// Waits until something may be ready to take.
    pub async fn ready(&self) {
        self.wake.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(code: &str) -> Symbol {
        Symbol::new(code).expect("valid")
    }

    fn texts(batch: &[Out]) -> Vec<&[u8]> {
        batch
            .iter()
            .filter_map(|o| match o {
                Out::Text(b) => Some(&b[..]),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn ticks_coalesce_latest_wins_and_queued_frames_keep_their_order() {
        let outbox = Outbox::new(8, 0, Arc::default());
        let btc = sym("BTCUSDT");
        outbox.push_latest(Slot::Tick(btc), Bytes::from_static(b"t1"));
        assert!(outbox.push(Bytes::from_static(b"a")));
        outbox.push_latest(Slot::Tick(btc), Bytes::from_static(b"t2"));
        outbox.push_latest(Slot::Tick(sym("ETHUSDT")), Bytes::from_static(b"e1"));
        assert!(outbox.push(Bytes::from_static(b"b")));
        let mut batch = Vec::new();
        outbox.take(&mut batch, 100);
        assert_eq!(texts(&batch), vec![&b"a"[..], b"b", b"t2", b"e1"]);
        batch.clear();
        outbox.take(&mut batch, 100);
        assert!(batch.is_empty(), "taken frames are gone");
    }

    #[test]
    fn a_full_queue_closes_for_resync_and_refuses_more() {
        let outbox = Outbox::new(2, 0, Arc::default());
        assert!(outbox.push(Bytes::from_static(b"1")));
        assert!(outbox.push(Bytes::from_static(b"2")));
        assert!(!outbox.push(Bytes::from_static(b"3")), "the third overflows");
        assert!(!outbox.push(Bytes::from_static(b"4")), "closing: refused");
        let mut batch = Vec::new();
        outbox.take(&mut batch, 100);
        assert_eq!(texts(&batch), vec![&b"1"[..], b"2"], "what was queued is still written");
        assert!(
            matches!(batch.last(), Some(Out::Close(c)) if c.code == super::super::CLOSE_RESYNC)
        );
    }

    #[test]
    fn a_closed_candle_goes_before_the_next_open_one() {
        let outbox = Outbox::new(8, 0, Arc::default());
        let btc = sym("BTCUSDT");
        let m1 = Period::M1;
        outbox.push_latest(Slot::Candle(btc, m1, false), Bytes::from_static(b"open-0"));
        outbox.push_latest(Slot::Candle(btc, m1, true), Bytes::from_static(b"closed-0"));
        outbox.push_latest(Slot::Candle(btc, m1, false), Bytes::from_static(b"open-1"));
        let mut batch = Vec::new();
        outbox.take(&mut batch, 100);
        assert_eq!(texts(&batch), vec![&b"closed-0"[..], b"open-1"]);
    }

    #[test]
    fn take_is_bounded_and_the_close_frame_comes_last() {
        let outbox = Outbox::new(8, 0, Arc::default());
        for frame in [b"1", b"2", b"3"] {
            outbox.push(Bytes::from_static(frame));
        }
        outbox.close(Close { code: 1000, reason: "bye" });
        let mut batch = Vec::new();
        outbox.take(&mut batch, 2);
        assert_eq!(texts(&batch), vec![&b"1"[..], b"2"]);
        assert!(!batch.iter().any(|o| matches!(o, Out::Close(_))), "not before the queue is empty");
        batch.clear();
        outbox.take(&mut batch, 2);
        assert_eq!(texts(&batch), vec![&b"3"[..]]);
        assert!(matches!(batch.last(), Some(Out::Close(c)) if c.code == 1000));
    }
}
