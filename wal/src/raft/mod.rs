//! The replicated log of cluster mode: openraft over our own segments.
//!
//! | module | what it holds |
//! |---|---|
//! | [`entry`] | [`CommandBatch`], one Raft entry's commands, and the entry's record form |
//! | [`log_store`] | [`LogStore`]: openraft's log storage over a [`crate::Wal`] and a vote file |
//! | [`state_machine`] | [`MachineStore`]: openraft's state machine over any [`crate::StateMachine`] |
//! | [`network`] | the transport between nodes: TCP, a shared secret, entries in their record form |
//!
//! One Raft entry is one record of the log: an entry carries a batch of commands (one
//! append, one `fdatasync` for a group of entries), the Raft index `i` is record index
//! `i + 1` (openraft's first entry, the initial membership, has index 0), the record's term
//! is the entry's. The commands of a batch get consecutive *command sequence numbers*, the
//! `index` the state machine sees, as on a single node; the leader's time travels inside the
//! batch, so every node applies the same inputs.

pub mod entry;
pub mod log_store;
pub mod network;
pub mod state_machine;

pub use entry::CommandBatch;
pub use log_store::LogStore;
pub use state_machine::MachineStore;

openraft::declare_raft_types!(
    /// The type configuration of the trading cluster's Raft group: node ids are numbers,
    /// a node is known by its address, and a log id is (term, index) (`leader_id_std`),
    /// exactly what our records carry.
    pub TypeConfig:
        D = CommandBatch,
        R = Applied,
        NodeId = u64,
        Node = openraft::impls::BasicNode,
        LeaderId = openraft::impls::leader_id_std::LeaderId<u64, u64>,
);

/// What applying an entry answers through openraft: nothing. The proposing node answers its
/// own clients from the state machine's replies (see [`state_machine`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Applied;

/// A log id: (term, index).
pub type LogId = openraft::alias::LogIdOf<TypeConfig>;
/// A Raft entry of this group.
pub type Entry = openraft::alias::EntryOf<TypeConfig>;
/// A vote of this group.
pub type Vote = openraft::alias::VoteOf<TypeConfig>;

/// The log id of `index` written in `term`.
pub fn log_id(term: u64, index: u64) -> LogId {
    LogId::new_term_index(term, index)
}
