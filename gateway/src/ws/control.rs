//! What connections ask of the hub, and what they subscribe to.

use std::sync::Arc;

use engine::types::{AdminId, SessionId, Symbol, UserId};
use market_feed::types::Period;

use super::outbox::Outbox;

/// A connection's id.
pub type ConnId = u64;

/// What connections ask of the hub.
#[derive(Debug)]
pub enum Control {
    /// A connection opened.
    Open {
        /// Its id.
        conn: ConnId,
        /// Its outbox.
        outbox: Arc<Outbox>,
    },
    /// Start sending a topic.
    Subscribe { conn: ConnId, topic: Topic },
    /// Stop sending a topic.
    Unsubscribe { conn: ConnId, topic: Topic },
    /// The connection authenticated: send it this user's private stream.
    Auth {
        conn: ConnId,
        /// The user.
        user: UserId,
        /// The session, to close the socket when it ends.
        session: SessionId,
        /// When the session expires (ms).
        expires_ms: u64,
    },
    /// The connection authenticated as an admin: send it every contract's changes.
    AdminAuth {
        conn: ConnId,
        /// The admin.
        admin: AdminId,
        /// The session, to close the socket when it ends.
        session: SessionId,
        /// When the session expires (ms).
        expires_ms: u64,
    },
    /// The connection closed.
    Gone { conn: ConnId },
    /// The server stops: close everyone.
    Shutdown,
}

/// What a subscription is to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topic {
    /// Every product's market-list line, on each of its ticks.
    Tickers,
    /// One product's ticks.
    Ticks(Symbol),
    /// One product's candles of one period.
    Candles(Symbol, Period),
    /// One tournament's live standings.
    Tournament(u32),
}

impl Topic {
    /// The channel's name on the wire.
    pub fn channel(&self) -> &'static str {
        match self {
            Topic::Tickers => "tickers",
            Topic::Ticks(_) => "ticks",
            Topic::Candles(..) => "candles",
            Topic::Tournament(_) => "tournament",
        }
    }
}
