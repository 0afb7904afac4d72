//! The durable core: write-ahead log, snapshots and the command pipeline.
//!
//! The crate knows commands only as bytes; what they mean belongs to the state
//! machine behind [`StateMachine`].
//!
//! | module | what it holds |
//! |---|---|
//! | [`constants`] | every bound of the crate, unit last in the name |
//! | [`machine`] | [`Meta`] and the [`StateMachine`] trait the pipeline drives |
//! | [`record`] | framing of one record: header, CRC32C, padding |
//! | [`storage`] | the file layer: [`FsStorage`] and the fault-injecting [`FaultyStorage`] |
//! | [`segment`] | segment file names and the scan that checks a segment |
//! | [`log`] | [`Wal`]: segments, group commit, recovery, truncation |
//! | [`snapshot`] | [`SnapshotStore`]: checksummed snapshots, a file each |
//! | [`pipeline`] | [`Pipeline`] and [`Handle`]: queue → sequencer/journal → engine → replies and events |
//! | [`prefetch`] | cache hints for memory about to be read |
//! | [`raft`] | cluster mode: openraft's log storage over these segments, its state machine over a [`StateMachine`] |
//!
//! Data flow: producers submit through a [`Handle`] into a bounded queue; one journal
//! thread stamps, batches and appends to the [`Wal`] with one `fdatasync` per batch; one
//! engine thread applies durable batches, replies, and publishes events; a snapshotter
//! thread saves snapshots to files, after which the journal drops log segments behind them.
//! Log segments are pre-written with zeros (a short-lived helper thread prepares the next
//! one while the active one fills) so that each `fdatasync` is one I/O, not two; at start
//! the log is checked and replayed in one read of each segment.

pub mod constants;
pub mod log;
pub mod machine;
pub mod pipeline;
pub mod prefetch;
pub mod raft;
pub mod record;
pub mod segment;
pub mod snapshot;
pub mod storage;

pub use log::{Batch, Recovery, Wal, WalError, WalOptions};
pub use machine::{EventBuffer, Frozen, FrozenAudit, Meta, RestoreRest, StateMachine};
pub use pipeline::{
    yield_to_replay, Audit, Config, EventBatch, Follower, Handle, Pipeline, PipelineError,
    PipelineRecovery, RecoveryTimings, RequestId, Stats, Ticket, RESTART_HELPER_NICE,
};
pub use record::RecordError;
pub use snapshot::{open_db, LoadedSnapshot, SnapshotError, SnapshotLoad, SnapshotStore};
pub use storage::{FaultyStorage, FsStorage, Storage, StorageFile};
