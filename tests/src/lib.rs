//! Tests across crates and processes.
//!
//! | module | what it holds |
//! |---|---|
//! | [`crash`] | what the `crash-node` child and `tests/crash.rs` share: the world, how a log record is attributed to the producer that sent it, the ack protocol, and the checker that `verify` runs |

pub mod crash;
