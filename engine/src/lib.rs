//! The trading engine: a pure, deterministic state machine.
//!
//! No I/O, no clock, no randomness, no threads. Time and sequence arrive with each command
//! (`Stamp`), so the same log applied to the same snapshot gives the same state, byte for byte.
//!
//! - [`command`]: every input ([`Command`]), one enum; admin actions in [`AdminAction`].
//! - [`event`]: the [`Reply`] to each command and the [`Event`]s it caused.
//! - [`error`]: [`EngineError`], a typed refusal with a stable code. A refused command changes nothing.
//! - [`types`]: users, wallets, products, rules, contracts, orders.
//! - [`engine`]: the state and the `apply` dispatch, plus read accessors.
//! - `identity`, `two_factor`, `trading`, `funds`, `admin`: the handlers, one area each.
//! - [`copy`]: copy trading, whose copies the leader's own order places.
//! - [`tournament`]: tournaments, whose seats are a third kind of account.
//! - [`snapshot`]: canonical rkyv snapshots, restore, and the state hash.
//! - `invariants`: conservation and consistency checks used by the tests.
//! - [`constants`]: every bound; [`defaults`]: the embedded rules and settings.
//! - `machine` (feature `wal`): the `wal::StateMachine` implementation.

pub mod command;
pub mod constants;
pub mod copy;
pub mod defaults;
pub mod engine;
pub mod error;
pub mod event;
pub mod money;
pub mod sale;
pub mod snapshot;
pub mod tournament;
pub mod types;

mod admin;
mod alerts;
mod cow;
mod funds;
mod identity;
mod invariants;
mod limits;
#[cfg(feature = "wal")]
pub mod machine;
mod slab;
mod terms;
mod trading;
mod two_factor;
mod user_index;

pub use command::{
    AdminAction, Command, NewSession, PlaceOrder, Register, RequestDeposit, SessionInfo,
};
pub use engine::{Engine, Ledger, Stamp};
pub use error::EngineError;
pub use event::{
    AuditRecord, CommandResult, CopyChange, CopyEnd, Event, Events, Opened, Reply, Settled,
    SettledContract, Settlement, WalletChange,
};
pub use identity::invite_code_for;
