//! The gateway: the server process around the engine.
//!
//! - [`node`]: assembles the durable core (recovery, pipeline, first admin, settlement timer)
//!   and shuts it down cleanly.
//! - [`password`]: argon2id hashing with the OWASP parameters of decisions §6.
//!
//! The HTTP API (axum), websockets (fastwebsockets) and market data arrive with their issues;
//! they will all talk to the engine through [`node::Node::handle`].

pub mod node;
pub mod password;
