//! The gateway: the server process around the engine.
//!
//! - [`server`]: the whole server: async runtime, durable core, market data; started in order
//!   and stopped in reverse.
//! - [`node`]: assembles the durable core (recovery, pipeline, first admin, settlement timer)
//!   and shuts it down cleanly.
//! - [`feeds`]: `--feed` specifications: which price source feeds which product.
//! - [`password`]: argon2id hashing with the OWASP parameters of decisions §6.
//!
//! The HTTP API (axum) and websockets (fastwebsockets) arrive with their issues; they will talk
//! to the engine through [`node::Node::handle`] and to market data through
//! [`market_feed::market::MarketData`].

pub mod feeds;
pub mod node;
pub mod password;
pub mod server;
