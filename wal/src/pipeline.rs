//! The command pipeline: producers → bounded queue → journal thread → engine thread.
//!
//! ```text
//! Handle::submit ──► queue (bounded) ──► journal: stamp, batch, append, fdatasync
//!                                              │ durable batch (bounded, 2)
//!                                              ▼
//!                        engine: apply, reply, publish events, freeze snapshots
//!                                              │ frozen state (StateMachine::freeze)
//!                                              ▼
//!                        snapshotter: serialise, save to a file (durable) ──► journal: truncate the log
//! ```
//!
//! Guarantees:
//! - a reply leaves only after its batch is durable (the engine only ever sees durable
//!   batches), and never for a command that was not journaled;
//! - if the log fails, the pipeline stops and every waiting producer gets an error;
//! - the log is truncated only behind a durable snapshot, and only up to the oldest
//!   snapshot still kept, so that recovery can fall back to it if the newest is damaged;
//! - a slow event subscriber is dropped, never waited for.

pub mod cluster;
mod engine;
mod journal;
mod shutdown;
mod snapshotter;

use std::fmt;
use std::future::Future;
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};

use crate::constants::{
    BATCH_COMMANDS_MAX, QUEUE_BATCHES_MAX, QUEUE_COMMANDS_MAX, QUEUE_JOURNAL_CONTROL_MAX,
    QUEUE_QUERIES_MAX, QUEUE_SNAPSHOTS_MAX, SEGMENT_SIZE_MAX_BYTES, SNAPSHOTS_KEPT,
    SUBSCRIBERS_MAX,
};
use crate::log::{Recovery, Wal, WalError, WalOptions};
use crate::machine::{EventBuffer, Frozen, Meta, RestoreRest, StateMachine};
use crate::snapshot::{SnapshotError, SnapshotLoad, SnapshotStore};
use crate::storage::{FsStorage, Storage};
use shutdown::Shutdown;

/// Why a command, query or the pipeline itself failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// The queue is full. Only non-blocking submits see this; retry later or shed load.
    #[error("the pipeline is overloaded")]
    Overloaded,
    /// The pipeline stopped (or is stopping) cleanly; the command was not journaled.
    #[error("the pipeline is shut down")]
    ShutDown,
    /// The log could not make a batch durable; the pipeline stopped, and commands that
    /// were not durable were not applied. For the failed batch's own commands the outcome
    /// is unknown, as after a timeout: the log rolls the batch back when it can, but a
    /// crash at the wrong moment may leave some of its records durable.
    #[error("journal failed: {0}")]
    JournalFailed(Arc<WalError>),
    /// The engine thread stopped (the state machine panicked); the pipeline stopped.
    #[error("the engine thread stopped")]
    EngineStopped,
    /// The command's journal form is larger than a record may be; it was not journaled.
    #[error("command of {len} bytes exceeds the record maximum")]
    CommandTooLarge {
        /// Size of the encoded command in bytes.
        len: usize,
    },
    /// Too many event subscribers are registered.
    #[error("too many subscribers")]
    TooManySubscribers,
    /// Opening or replaying the log failed at start.
    #[error("log: {0}")]
    Wal(Arc<WalError>),
    /// Opening, loading or saving snapshots failed.
    #[error("snapshot: {0}")]
    Snapshot(Arc<SnapshotError>),
    /// The state machine could not decode a journaled command or a snapshot.
    #[error("cannot decode {what} at index {index}: {source}")]
    Decode {
        /// "command" or "snapshot".
        what: &'static str,
        /// Index of the record or snapshot.
        index: u64,
        /// The machine's decode error.
        source: Arc<dyn std::error::Error + Send + Sync>,
    },
    /// A restored snapshot reports a different applied index than it was saved under.
    #[error(
        "snapshot saved at index {snapshot_index} restores a machine at index {applied_index}"
    )]
    SnapshotIndexMismatch {
        /// Index the snapshot was stored under.
        snapshot_index: u64,
        /// Index the restored machine reports.
        applied_index: u64,
    },
    /// The log was truncated behind a snapshot and no valid snapshot covers the gap: the
    /// records needed to rebuild the state are gone, so starting would lose commands.
    #[error("log starts at index {log_first_index} but the newest valid snapshot is at {snapshot_index} (damaged and skipped: {skipped_damaged:?})")]
    SnapshotMissing {
        /// First index the log holds.
        log_first_index: u64,
        /// Index of the newest valid snapshot (0 if none).
        snapshot_index: u64,
        /// Damaged snapshots that were skipped.
        skipped_damaged: Vec<u64>,
    },
    /// The log holds records but ends before the snapshot: records were lost (e.g. run
    /// with `sync: false`), and appending after the snapshot would leave a gap.
    #[error("log ends at index {log_last_index}, before the snapshot at {snapshot_index}")]
    LogBehindSnapshot {
        /// Last index the log holds.
        log_last_index: u64,
        /// Index of the snapshot.
        snapshot_index: u64,
    },
    /// A follower (read model) is further behind than any snapshot kept and the log reaches.
    #[error(
        "follower at index {follower_index} is behind the log, which starts at {log_first_index}"
    )]
    FollowerBehindLog {
        /// Last index the follower has applied.
        follower_index: u64,
        /// First index the log holds.
        log_first_index: u64,
    },
    /// A follower claims to have applied commands the log does not hold.
    #[error(
        "follower at index {follower_index} is ahead of the log, which ends at {log_last_index}"
    )]
    FollowerAheadOfLog {
        /// Last index the follower has applied.
        follower_index: u64,
        /// Last index the log holds.
        log_last_index: u64,
    },
    /// The follower's sink refused the events replayed for it at start.
    #[error("follower catch-up failed: {0}")]
    FollowerFailed(String),
    /// The configured term is lower than the last term in the log.
    #[error("configured term {config_term} is behind the log's term {log_term}")]
    TermBehindLog {
        /// Term in the configuration.
        config_term: u64,
        /// Term of the last record in the log.
        log_term: u64,
    },
    /// A pipeline thread could not be started.
    #[error("cannot spawn thread: {0}")]
    Spawn(Arc<io::Error>),
    /// Cluster mode: the listener for the other members could not be opened.
    #[error("cannot listen for cluster members on {address}: {error}")]
    Listen {
        /// The configured cluster address.
        address: std::net::SocketAddr,
        /// Why (the port is taken, say).
        error: Arc<io::Error>,
    },
    /// Cluster mode: this node does not lead; the command was not proposed.
    #[error("this node is not the leader (leader: {leader:?})")]
    NotLeader {
        /// The leader this node knows of, if any.
        leader: Option<u64>,
    },
    /// Cluster mode: the command was proposed but leadership changed before it was known to be
    /// committed. It may or may not take effect: the caller must check, never resend blindly.
    #[error("the outcome is unknown: leadership changed while the command was proposed")]
    OutcomeUnknown,
    /// Cluster mode: Raft failed (storage or a fatal error); the node stops.
    #[error("raft: {0}")]
    Raft(String),
    /// Cluster mode: a command with this request id was applied already, at `index` (the
    /// command sequence number): this one was not applied again.
    #[error("request already applied at index {index}")]
    Duplicate {
        /// Where the first one was applied.
        index: u64,
    },
}

impl From<WalError> for PipelineError {
    fn from(error: WalError) -> Self {
        PipelineError::Wal(Arc::new(error))
    }
}

impl From<SnapshotError> for PipelineError {
    fn from(error: SnapshotError) -> Self {
        PipelineError::Snapshot(Arc::new(error))
    }
}

/// How to run a pipeline. [`Config::new`] gives sane defaults.
#[derive(Clone)]
pub struct Config {
    /// Holds `wal/` (segments) and `snapshots/` (one file per snapshot).
    pub data_dir: PathBuf,
    /// Commands waiting for the journal; beyond it blocking submits wait, others get `Overloaded`.
    pub queue_commands_max: usize,
    /// Commands per batch, i.e. per write and per fdatasync.
    pub batch_commands_max: usize,
    /// Take a snapshot after this many commands since the last one; 0 = only on demand.
    pub snapshot_every_commands: u64,
    /// Snapshots kept.
    pub snapshots_kept: usize,
    /// Term stamped on new records (1 on a single node; Raft will bump it).
    pub term: u64,
    /// Milliseconds since the Unix epoch; the journal never stamps less than the previous record.
    pub clock: Arc<dyn Fn() -> u64 + Send + Sync>,
    /// Roll to a new segment past this size.
    pub segment_size_max_bytes: u64,
    /// fdatasync each batch. `false` is only for benchmarks that measure everything but
    /// the disk: replies then come before durability and a crash loses acknowledged commands.
    pub sync: bool,
    /// The file layer for the log (snapshots always use the real file system).
    pub storage: Arc<dyn Storage>,
}

impl Config {
    /// Defaults from [`crate::constants`], the system clock, fdatasync on, real files.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            queue_commands_max: QUEUE_COMMANDS_MAX,
            batch_commands_max: BATCH_COMMANDS_MAX,
            snapshot_every_commands: 0,
            snapshots_kept: SNAPSHOTS_KEPT,
            term: 1,
            clock: Arc::new(system_time_ms),
            segment_size_max_bytes: SEGMENT_SIZE_MAX_BYTES,
            sync: true,
            storage: Arc::new(FsStorage),
        }
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("data_dir", &self.data_dir)
            .field("queue_commands_max", &self.queue_commands_max)
            .field("batch_commands_max", &self.batch_commands_max)
            .field("snapshot_every_commands", &self.snapshot_every_commands)
            .field("snapshots_kept", &self.snapshots_kept)
            .field("term", &self.term)
            .field("segment_size_max_bytes", &self.segment_size_max_bytes)
            .field("sync", &self.sync)
            .field("storage", &self.storage)
            .finish_non_exhaustive()
    }
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn system_time_ms() -> u64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since.map_or(0, |duration| u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

/// The events of one durable batch, published once to every subscriber.
#[derive(Debug)]
pub struct EventBatch<E> {
    /// Index of the batch's first command.
    pub first_index: u64,
    /// Index of the batch's last command: the next batch starts at `last_index + 1`,
    /// so a subscriber can tell it missed nothing.
    pub last_index: u64,
    /// Sequencer time of the batch's last command (ms since the epoch). Commands of one
    /// live batch were stamped within the batch's few milliseconds; catch-up batches at
    /// start-up hold only commands of exactly this time.
    pub time_ms: u64,
    /// Events of every command of the batch, in order.
    pub events: E,
}

/// A durable consumer of every event (a read model), which must see each event exactly
/// once across restarts although replay at start-up is normally quiet.
///
/// The contract: the follower stores its projection together with the index it has applied
/// (`applied_index`) and reports progress with [`Handle::set_followed`]. At start, the
/// pipeline restores the newest snapshot at or before `applied_index`, replays the log
/// quietly up to it and hands the events of every later record to `sink`, before any new
/// command runs. Periodic snapshots wait until the follower has passed the newest one, so
/// with two snapshots kept a snapshot at or before the follower always exists and the log
/// behind it is kept.
pub struct Follower<E> {
    /// Last index whose events the follower has made durable (0 for a new follower).
    pub applied_index: u64,
    /// Receives the events of records after `applied_index` replayed at start, in order,
    /// in batches of at most [`FOLLOWER_REPLAY_BATCH_RECORDS`] records of one time.
    pub sink: FollowerSink<E>,
    /// Capacity of the follower's live event channel, in batches.
    pub capacity: usize,
    /// An index at which a catch-up batch must end, if the replay passes it. A follower made
    /// of two projections made durable up to different indexes replays from the lower one;
    /// the other skips whole batches up to its own index, which needs a batch to end there.
    pub boundary: Option<u64>,
}

impl<E> fmt::Debug for Follower<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Follower")
            .field("applied_index", &self.applied_index)
            .field("capacity", &self.capacity)
            .field("boundary", &self.boundary)
            .finish_non_exhaustive()
    }
}

/// Log records read and decoded at start-up at most ahead of the machine, while the snapshot
/// is restored and beside replay (about 100 MB of commands; then reading waits).
const REPLAY_AHEAD_RECORDS_MAX: usize = 1 << 20;

/// Decoded records handed from the log's reader to replay at a time.
const REPLAY_BATCH_RECORDS: usize = 4_096;

/// How many commands ahead of the one being applied the machine is asked to prefetch, by the
/// engine thread within a batch and by replay at start-up: far enough for a miss to memory to
/// overlap the commands in between, near enough that what came in is still in cache.
const PREFETCH_AHEAD: usize = 8;

/// Records per batch handed to a follower's sink during start-up catch-up.
pub const FOLLOWER_REPLAY_BATCH_RECORDS: u64 = 4_096;

/// What start-up recovery did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PipelineRecovery {
    /// Index of the snapshot the state was restored from, `None` if started from `init()`.
    pub snapshot_index: Option<u64>,
    /// Newer snapshots that were damaged and skipped.
    pub skipped_damaged_snapshots: Vec<u64>,
    /// Log records applied after the snapshot.
    pub records_replayed: u64,
    /// What opening the log found (records scanned, torn tail cut).
    pub wal: Recovery,
    /// How long each part of start-up took, one after the other.
    pub timings: RecoveryTimings,
}

/// The parts of start-up in the order they run: together they are the time to ready. The
/// log is read and decoded on a thread of its own beside all three.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecoveryTimings {
    /// Reading the newest snapshot's bytes from the store.
    pub snapshot_load: Duration,
    /// Rebuilding the machine from them.
    pub restore: Duration,
    /// Applying the log's records after the snapshot, to the last.
    pub replay: Duration,
}

/// Counters since start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Commands made durable and applied.
    pub commands: u64,
    /// Batches written (each one write).
    pub batches: u64,
    /// fdatasync calls on the log.
    pub fsyncs: u64,
    /// Snapshots saved.
    pub snapshots: u64,
    /// Log segments deleted behind snapshots.
    pub segments_truncated: u64,
    /// Subscribers dropped because their channel was full.
    pub subscribers_dropped: u64,
    /// Records replayed at start.
    pub recovered_records: u64,
    /// Bytes of torn tail cut at start.
    pub cut_tail_bytes: u64,
}

/// Live counters, updated by the pipeline threads.
#[derive(Debug, Default)]
struct Counters {
    /// See [`Stats::commands`].
    commands: AtomicU64,
    /// See [`Stats::batches`].
    batches: AtomicU64,
    /// See [`Stats::fsyncs`].
    fsyncs: AtomicU64,
    /// See [`Stats::snapshots`].
    snapshots: AtomicU64,
    /// See [`Stats::segments_truncated`].
    segments_truncated: AtomicU64,
    /// See [`Stats::subscribers_dropped`].
    subscribers_dropped: AtomicU64,
}

/// Where a reply goes.
type ReplySender<M> = oneshot::Sender<Result<<M as StateMachine>::Reply, PipelineError>>;
/// Where an event subscriber listens.
type Subscriber<M> = Sender<Arc<EventBatch<<M as StateMachine>::Events>>>;
/// A read run by the engine thread between batches.
type Query<M> = Box<dyn FnOnce(&M) + Send>;

/// A command on its way to the journal, with where its reply goes.
struct Submission<M: StateMachine> {
    /// The command, owned.
    command: M::Command,
    /// The client's id for this request, if it gave one: a retry with the same id is
    /// answered, never applied twice (cluster mode, see [`RequestId`]).
    request: Option<RequestId>,
    /// Receives the reply once the command is durable and applied, or an error.
    reply: ReplySender<M>,
}

/// A client's id for one request (an idempotency key), 128 bits, chosen by the client and
/// sent again with a retry. In cluster mode the replicated state remembers the most recent
/// ids ([`cluster::REQUESTS_REMEMBERED`]) with where each was applied: a retry after a failover
/// is answered [`PipelineError::Duplicate`] instead of being applied a second time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u128);

impl RequestId {
    /// The id of a client's key (an `Idempotency-Key`): the first 128 bits of its SHA-256,
    /// never 0 (0 stands for "no id" in a journaled batch).
    pub fn from_key(key: &[u8]) -> RequestId {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(key);
        let id = u128::from_le_bytes(digest[..16].try_into().expect("16 of 32 bytes"));
        RequestId(id.max(1))
    }
}

/// Requests to the engine thread that are neither commands nor queries.
enum EngineControl<M> {
    /// Take a snapshot now; answer with its index once it is durable.
    SnapshotNow(oneshot::Sender<Result<u64, PipelineError>>),
    /// The machine frozen as it is now, with its applied index (cluster mode: the Raft
    /// snapshot builder serialises and saves it).
    Freeze(oneshot::Sender<(u64, Frozen)>),
    /// Replace the machine (cluster mode: a Raft snapshot was installed); answer when done.
    Replace(Box<M>, oneshot::Sender<()>),
    /// Audit the machine once a batch has brought it to this index or past it.
    AuditAt(u64, oneshot::Sender<Audit>),
}

/// Audits waiting on the engine thread, at most: more are answered at once, where they are.
pub const AUDITS_WAITING_MAX: usize = 64;

/// Audited states waiting for their hash behind the one being hashed, at most; more are hashed
/// on the engine thread.
const AUDITS_HASHING_QUEUED_MAX: usize = 2;

/// The machine audited between two batches: where, its state hash and its invariants.
/// In cluster mode batches are Raft entries, the same on every member, so the members audited
/// at the same requested index audit the same state: their hashes must be equal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Audit {
    /// The command index the machine had applied.
    pub index: u64,
    /// [`StateMachine::state_hash`] there.
    pub state_hash: u64,
    /// [`StateMachine::check_invariants`] there.
    pub invariants: Result<(), String>,
}

/// Everything the handles and the threads share.
struct Shared<M: StateMachine> {
    /// Producers' side of the bounded command queue.
    commands: Sender<Submission<M>>,
    /// Queries for the engine thread.
    queries: Sender<Query<M>>,
    /// Snapshot requests for the engine thread.
    engine_control: Sender<EngineControl<M>>,
    /// Event subscribers; the engine drops those whose channel is full.
    subscribers: Mutex<Vec<Subscriber<M>>>,
    /// Whether new commands are refused, and why.
    shutdown: Shutdown,
    /// Live counters.
    counters: Counters,
    /// What start-up recovery did.
    recovery: PipelineRecovery,
    /// Index up to which the follower (read model) has made its projection durable;
    /// `u64::MAX` without a follower. Periodic snapshots wait for it, see [`Follower`].
    followed: AtomicU64,
    /// Whether commands submitted here are sequenced here: always on a single node; in
    /// cluster mode, while this node leads.
    leading: std::sync::atomic::AtomicBool,
}

impl<M: StateMachine> Shared<M> {
    /// Ends every subscriber's stream, even while handles live on: called once the engine
    /// thread has ended, so that they have had every event.
    fn end_subscriptions(&self) {
        self.subscribers.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    fn count(&self, counter: impl Fn(&Counters) -> &AtomicU64, amount: u64) {
        counter(&self.counters).fetch_add(amount, Ordering::Relaxed);
    }

    fn stats(&self) -> Stats {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let counters = &self.counters;
        Stats {
            commands: load(&counters.commands),
            batches: load(&counters.batches),
            fsyncs: load(&counters.fsyncs),
            snapshots: load(&counters.snapshots),
            segments_truncated: load(&counters.segments_truncated),
            subscribers_dropped: load(&counters.subscribers_dropped),
            recovered_records: self.recovery.records_replayed,
            cut_tail_bytes: self.recovery.wal.cut_tail_bytes,
        }
    }
}

/// The running pipeline. [`Pipeline::shutdown`] (or drop) stops it cleanly.
pub struct Pipeline<M: StateMachine> {
    /// State shared with the handles.
    shared: Arc<Shared<M>>,
    /// Tells the journal to drain and stop.
    journal_control: Sender<journal::Control>,
    /// The threads, until joined.
    threads: Option<Threads>,
}

/// The pipeline's threads.
#[derive(Debug)]
struct Threads {
    /// Sequencer and journal; returns the failure that stopped it, if any.
    journal: JoinHandle<Result<(), PipelineError>>,
    /// Applies durable batches.
    engine: JoinHandle<()>,
    /// Saves snapshots to their files.
    snapshotter: JoinHandle<()>,
}

impl<M: StateMachine> fmt::Debug for Pipeline<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pipeline").field("stats", &self.shared.stats()).finish_non_exhaustive()
    }
}

impl<M: StateMachine> Pipeline<M> {
    /// Recovers the state (newest valid snapshot, then the log after it) and starts the
    /// journal, engine and snapshotter threads. `init` builds the machine when no
    /// snapshot is usable.
    ///
    /// Refuses to start if the log was truncated behind a snapshot that is now damaged:
    /// starting from scratch would silently drop the commands the snapshot held. If the
    /// log still starts at index 1, all snapshots being damaged is harmless: the whole
    /// log is replayed.
    pub fn start(
        config: Config,
        init: impl FnOnce() -> M,
    ) -> Result<(Pipeline<M>, Handle<M>), PipelineError> {
        assert!(config.queue_commands_max > 0 && config.batch_commands_max > 0);
        assert!(config.term >= 1, "terms start at 1");
        let started = Instant::now();
        let store =
            SnapshotStore::open_keeping(&config.data_dir.join("snapshots"), config.snapshots_kept)?;
        let load = store.load_latest()?;
        let snapshot_load = started.elapsed();
        let (wal, machine, mut recovery) = recover(&config, load, init, None)?;
        recovery.timings.snapshot_load = snapshot_load;
        Self::spawn(config, store, wal, machine, recovery, u64::MAX)
    }

    /// [`Pipeline::start`] with a [`Follower`]: catches the follower up from the log, then
    /// returns, besides the pipeline and a handle, the follower's live event channel,
    /// subscribed before the first new command runs so that no event falls in between.
    #[allow(clippy::type_complexity)]
    pub fn start_following(
        config: Config,
        init: impl FnOnce() -> M,
        mut follower: Follower<M::Events>,
    ) -> Result<(Pipeline<M>, Handle<M>, Receiver<Arc<EventBatch<M::Events>>>), PipelineError> {
        assert!(config.queue_commands_max > 0 && config.batch_commands_max > 0);
        assert!(config.term >= 1, "terms start at 1");
        assert!(config.snapshots_kept >= 2, "a follower needs a snapshot behind the newest");
        let started = Instant::now();
        let store =
            SnapshotStore::open_keeping(&config.data_dir.join("snapshots"), config.snapshots_kept)?;
        let load = store.load_latest_at_or_before(follower.applied_index)?;
        let snapshot_load = started.elapsed();
        let followed = follower.applied_index;
        let boundary = follower.boundary;
        let recovered =
            recover(&config, load, init, Some((followed, boundary, &mut follower.sink)));
        let (wal, machine, mut recovery) = match recovered {
            // No snapshot at or before the follower, and the log no longer reaches back to it.
            Err(PipelineError::SnapshotMissing { log_first_index, .. }) => {
                return Err(PipelineError::FollowerBehindLog {
                    follower_index: followed,
                    log_first_index,
                });
            }
            other => other?,
        };
        recovery.timings.snapshot_load = snapshot_load;
        if wal.last_index() < followed {
            let log_last_index = wal.last_index();
            return Err(PipelineError::FollowerAheadOfLog {
                follower_index: followed,
                log_last_index,
            });
        }
        let (pipeline, handle) = Self::spawn(config, store, wal, machine, recovery, followed)?;
        let (sender, receiver) = bounded(follower.capacity.max(1));
        pipeline.shared.subscribers.lock().unwrap_or_else(|p| p.into_inner()).push(sender);
        Ok((pipeline, handle, receiver))
    }

    fn spawn(
        config: Config,
        store: SnapshotStore,
        wal: Wal,
        machine: M,
        recovery: PipelineRecovery,
        followed: u64,
    ) -> Result<(Pipeline<M>, Handle<M>), PipelineError> {
        let newest_snapshot = store.indexes()?.last().copied().unwrap_or(0);
        let last_term = wal.last_meta().map_or(config.term, |meta| meta.term);
        let (commands, commands_rx) = bounded(config.queue_commands_max);
        let (queries, queries_rx) = bounded(QUEUE_QUERIES_MAX);
        let (engine_control, engine_control_rx) = bounded(QUEUE_JOURNAL_CONTROL_MAX);
        let (journal_control, journal_control_rx) = bounded(QUEUE_JOURNAL_CONTROL_MAX);
        let (batches, batches_rx) = bounded(QUEUE_BATCHES_MAX);
        let (recycled, recycled_rx) = bounded(QUEUE_BATCHES_MAX + 1);
        let (snapshots, snapshots_rx) = bounded(QUEUE_SNAPSHOTS_MAX);
        let shared = Arc::new(Shared {
            commands,
            queries,
            engine_control,
            subscribers: Mutex::new(Vec::new()),
            shutdown: Shutdown::default(),
            counters: Counters::default(),
            recovery,
            followed: AtomicU64::new(followed),
            leading: std::sync::atomic::AtomicBool::new(true),
        });
        let journal = journal::Journal::<M> {
            wal,
            commands: commands_rx,
            control: journal_control_rx,
            to_engine: batches,
            recycled: recycled_rx,
            batch: crate::log::Batch::new(),
            term: config.term,
            clock: Arc::clone(&config.clock),
            batch_commands_max: config.batch_commands_max,
            shared: Arc::clone(&shared),
        };
        let engine = engine::Engine::<M> {
            machine,
            batches: batches_rx,
            queries: queries_rx,
            control: engine_control_rx,
            recycle: recycled,
            snapshots,
            events: M::Events::default(),
            published: std::collections::VecDeque::new(),
            since_snapshot: 0,
            newest_snapshot,
            last_term,
            snapshot_every_commands: config.snapshot_every_commands,
            audits: Vec::new(),
            auditor: engine::Auditor::default(),
            shared: Arc::clone(&shared),
        };
        let snapshotter = snapshotter::Snapshotter::<M> {
            store,
            jobs: snapshots_rx,
            journal: journal_control.clone(),
            shared: Arc::clone(&shared),
        };
        let threads = Threads {
            journal: spawn_named("wal-journal", move || journal.run())?,
            engine: spawn_named("wal-engine", move || engine.run())?,
            snapshotter: spawn_named("wal-snapshotter", move || snapshotter.run())?,
        };
        let handle = Handle { shared: Arc::clone(&shared) };
        Ok((Pipeline { shared, journal_control, threads: Some(threads) }, handle))
    }

    /// Stops accepting commands, journals and applies what is already queued, and joins
    /// the threads. Returns the failure that stopped the pipeline earlier, if any.
    pub fn shutdown(mut self) -> Result<(), PipelineError> {
        self.stop()
    }

    fn stop(&mut self) -> Result<(), PipelineError> {
        let Some(threads) = self.threads.take() else {
            return Ok(());
        };
        self.shared.shutdown.close();
        // If the journal already stopped (failure), the message has nowhere to go: fine.
        let _ = self.journal_control.send(journal::Control::Shutdown);
        let journal = threads.journal.join().unwrap_or(Err(PipelineError::EngineStopped));
        let engine = threads.engine.join().map_err(|_| PipelineError::EngineStopped);
        let _ = threads.snapshotter.join();
        self.shared.end_subscriptions();
        journal.and(engine)
    }

    /// A new handle for producers.
    pub fn handle(&self) -> Handle<M> {
        Handle { shared: Arc::clone(&self.shared) }
    }

    /// Counters since start.
    pub fn stats(&self) -> Stats {
        self.shared.stats()
    }

    /// What start-up recovery did.
    pub fn recovery(&self) -> &PipelineRecovery {
        &self.shared.recovery
    }
}

impl<M: StateMachine> Drop for Pipeline<M> {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

fn spawn_named<T: Send + 'static>(
    name: &str,
    body: impl FnOnce() -> T + Send + 'static,
) -> Result<JoinHandle<T>, PipelineError> {
    let builder = std::thread::Builder::new().name(name.to_owned());
    builder.spawn(body).map_err(|error| PipelineError::Spawn(Arc::new(error)))
}

/// Restores the newest valid snapshot (or `init()`) while a reader thread opens the log and
/// reads, checks and decodes it after the snapshot in one pass (each segment is read once),
/// then applies the decoded records, and checks that the log continues the snapshot.
fn recover<M: StateMachine>(
    config: &Config,
    load: SnapshotLoad,
    init: impl FnOnce() -> M,
    follower: Option<Following<'_, M::Events>>,
) -> Result<(Wal, M, PipelineRecovery), PipelineError> {
    let SnapshotLoad { snapshot, skipped_damaged } = load;
    let snapshot_index = snapshot.as_ref().map_or(0, |snapshot| snapshot.index);
    let mut catch_up = CatchUp::new(follower);
    let mut timings = RecoveryTimings::default();
    let (opened, mut machine) = std::thread::scope(|scope| {
        // The log is opened, read, checked and decoded on a thread of its own, ahead of the
        // machine: first while the snapshot is restored here, then beside replay, so that
        // applying is all this thread does. Each of the three is a second or more at a
        // million users and ten million records.
        let lead = REPLAY_AHEAD_RECORDS_MAX / REPLAY_BATCH_RECORDS;
        let (decoded, batches) = bounded::<Vec<(Meta, M::Command)>>(lead);
        // Emptied batches go back to the reader to fill again: a fresh 400 KB allocation per
        // batch, freed by this thread after the reader's made it, cost more than the channel.
        let (recycle, recycled) = bounded::<Vec<(Meta, M::Command)>>(lead + 1);
        let reader = spawn_log_reader::<M>(scope, config, snapshot_index, decoded, recycled)?;
        let started = Instant::now();
        let (mut machine, mut rest) = match &snapshot {
            None => {
                let machine = init();
                assert_eq!(machine.applied_index(), 0, "init() must build a fresh machine");
                (machine, None)
            }
            Some(snapshot) => restore_within::<M>(snapshot.index, &snapshot.bytes, scope)?,
        };
        timings.restore = started.elapsed();
        let started = Instant::now();
        machine.set_replaying(snapshot_index < catch_up.followed);
        for mut batch in &batches {
            // The accounts of a few records ahead are requested from memory first.
            for (meta, command) in batch.iter().take(PREFETCH_AHEAD) {
                machine.prefetch(*meta, command);
            }
            let mut records = batch.drain(..);
            while let Some((meta, command)) = records.next() {
                let ahead = records.as_slice();
                if let Some(record) = ahead.get(2 * PREFETCH_AHEAD - 1) {
                    // Decoded records wait in memory (up to a million) from the reader's
                    // thread until replay takes them; their first load was a tenth of
                    // `apply`'s samples in a restart.
                    crate::prefetch::read(record);
                }
                if let Some((ahead_meta, ahead)) = ahead.get(PREFETCH_AHEAD - 1) {
                    machine.prefetch(*ahead_meta, ahead);
                }
                if rest.is_some() && M::needs_whole_restore(&command) {
                    complete(&mut machine, rest.take(), snapshot_index)?;
                }
                catch_up.apply(&mut machine, meta, command)?;
            }
            drop(records);
            // Full only if the reader has stopped taking them back: then dropped.
            let _ = recycle.try_send(batch);
        }
        complete(&mut machine, rest.take(), snapshot_index)?;
        let opened = reader.join().expect("the log reader does not panic");
        timings.replay = started.elapsed();
        Ok::<_, PipelineError>((opened, machine))
    })?;
    machine.set_replaying(false);
    if opened.is_ok() {
        catch_up.hand_over()?;
    }
    let (mut wal, records_replayed) = match opened {
        Ok(opened) => opened,
        Err(PipelineError::Wal(error)) => {
            return Err(match *error {
                // The log was truncated behind a snapshot that is not there any more.
                WalError::ReplayBeforeStart { first_index, .. } => PipelineError::SnapshotMissing {
                    log_first_index: first_index,
                    snapshot_index,
                    skipped_damaged,
                },
                _ => PipelineError::Wal(error),
            });
        }
        Err(other) => return Err(other),
    };
    check_log_continues(&mut wal, snapshot_index, config.term)?;
    let recovery = PipelineRecovery {
        snapshot_index: snapshot.map(|snapshot| snapshot.index),
        skipped_damaged_snapshots: skipped_damaged,
        records_replayed,
        wal: wal.recovery().clone(),
        timings,
    };
    Ok((wal, machine, recovery))
}

/// Where a follower's start-up events go.
type FollowerSink<E> = Box<dyn FnMut(EventBatch<E>) -> Result<(), String> + Send>;

/// A follower at start-up: the last index it has seen, where a batch must also end, and
/// where its events go.
type Following<'s, E> = (u64, Option<u64>, &'s mut FollowerSink<E>);

/// The log opened, and how many records were replayed from it.
type Opened = Result<(Wal, u64), PipelineError>;

/// Start-up replay for a follower (a durable read model): records it has already seen are
/// applied quietly; the ones after are applied with their events, which are handed over in
/// batches of one time, at most [`FOLLOWER_REPLAY_BATCH_RECORDS`] records each.
struct CatchUp<'s, E> {
    /// The follower has seen every record up to here (`u64::MAX` without a follower).
    followed: u64,
    /// A batch also ends here (the follower's boundary, a snapshot's index).
    boundary: Option<u64>,
    sink: Option<&'s mut FollowerSink<E>>,
    /// Events gathered for the follower and not yet handed over.
    batch: EventBatch<E>,
    /// Events of records the follower has seen, dropped after each.
    discarded: E,
}

impl<'s, E: EventBuffer> CatchUp<'s, E> {
    fn new(follower: Option<Following<'s, E>>) -> Self {
        let (followed, boundary, sink) = match follower {
            Some((followed, boundary, sink)) => (followed, boundary, Some(sink)),
            None => (u64::MAX, None, None),
        };
        let batch = EventBatch {
            first_index: followed.saturating_add(1),
            last_index: followed,
            time_ms: 0,
            events: E::default(),
        };
        CatchUp { followed, boundary, sink, batch, discarded: E::default() }
    }

    /// Applies one decoded record, keeping its events if the follower has not seen it.
    fn apply<M: StateMachine<Events = E>>(
        &mut self,
        machine: &mut M,
        meta: Meta,
        command: M::Command,
    ) -> Result<(), PipelineError> {
        if meta.index <= self.followed {
            return apply_decoded(machine, &mut self.discarded, meta, command, false);
        }
        if meta.index == self.followed.saturating_add(1) {
            machine.set_replaying(false);
        }
        // A batch carries one time: records stamped at other times go in the next one.
        if meta.time_ms != self.batch.time_ms {
            self.hand_over()?;
            self.batch.time_ms = meta.time_ms;
        }
        apply_decoded(machine, &mut self.batch.events, meta, command, true)?;
        self.batch.last_index = meta.index;
        if self.batch.last_index + 1 - self.batch.first_index >= FOLLOWER_REPLAY_BATCH_RECORDS
            || self.boundary == Some(meta.index)
        {
            self.hand_over()?;
        }
        Ok(())
    }

    /// Gives the follower the events gathered so far, if any.
    fn hand_over(&mut self) -> Result<(), PipelineError> {
        let Some(sink) = &mut self.sink else { return Ok(()) };
        let batch = &mut self.batch;
        if batch.last_index < batch.first_index {
            return Ok(());
        }
        let next = batch.last_index + 1;
        let time_ms = batch.time_ms;
        let empty =
            EventBatch { first_index: next, last_index: next - 1, time_ms, events: E::default() };
        sink(std::mem::replace(batch, empty)).map_err(PipelineError::FollowerFailed)
    }
}

/// Starts the thread that opens the log and reads, checks and decodes the records after the
/// snapshot, handing them over in batches of [`REPLAY_BATCH_RECORDS`].
fn spawn_log_reader<'scope, M: StateMachine>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    config: &Config,
    snapshot_index: u64,
    decoded: crossbeam_channel::Sender<Vec<(Meta, M::Command)>>,
    recycled: crossbeam_channel::Receiver<Vec<(Meta, M::Command)>>,
) -> Result<std::thread::ScopedJoinHandle<'scope, Opened>, PipelineError> {
    let options = WalOptions {
        segment_size_max_bytes: config.segment_size_max_bytes,
        sync: config.sync,
        track_offsets: false,
    };
    let storage = Arc::clone(&config.storage);
    let dir = config.data_dir.join("wal");
    std::thread::Builder::new()
        .name("wal-replay-read".into())
        .spawn_scoped(scope, move || {
            yield_to_replay();
            let mut batch = Vec::with_capacity(REPLAY_BATCH_RECORDS);
            let opened =
                Wal::open_and_replay(storage, dir, options, snapshot_index, |meta, payload| {
                    batch.push((meta, decode_record::<M>(meta, payload)?));
                    if batch.len() == REPLAY_BATCH_RECORDS {
                        let next = recycled
                            .try_recv()
                            .unwrap_or_else(|_| Vec::with_capacity(REPLAY_BATCH_RECORDS));
                        // Refused only once the applier has stopped on an error of its own.
                        decoded
                            .send(std::mem::replace(&mut batch, next))
                            .map_err(|_| PipelineError::ShutDown)?;
                    }
                    Ok(())
                });
            if opened.is_ok() && !batch.is_empty() {
                let _ = decoded.send(batch);
            }
            opened
        })
        .map_err(|error| PipelineError::Spawn(Arc::new(error)))
}

/// The log must continue the snapshot: an empty log starts right after it, a log that ends
/// before it is refused, and the configured term is not behind the log's.
fn check_log_continues(wal: &mut Wal, snapshot_index: u64, term: u64) -> Result<(), PipelineError> {
    if wal.last_index() < snapshot_index {
        if let Some(last) = wal.last_meta() {
            return Err(PipelineError::LogBehindSnapshot {
                log_last_index: last.index,
                snapshot_index,
            });
        }
        wal.reset_empty(snapshot_index + 1)?;
    }
    if let Some(last) = wal.last_meta() {
        if term < last.term {
            return Err(PipelineError::TermBehindLog { config_term: term, log_term: last.term });
        }
    }
    Ok(())
}

/// The snapshot restored whole.
fn restore<M: StateMachine>(snapshot_index: u64, bytes: &[u8]) -> Result<M, PipelineError> {
    let machine = M::restore(bytes).map_err(|error| snapshot_error(snapshot_index, error))?;
    check_restored_index(&machine, snapshot_index)?;
    Ok(machine)
}

/// The snapshot restored, but for what the machine leaves to a thread of `scope` until a
/// command needs it ([`StateMachine::restore_within`]).
#[allow(clippy::type_complexity)]
fn restore_within<'scope, 'env, M: StateMachine>(
    snapshot_index: u64,
    bytes: &'env [u8],
    scope: &'scope std::thread::Scope<'scope, 'env>,
) -> Result<(M, Option<RestoreRest<'scope, M>>), PipelineError> {
    let (machine, rest) =
        M::restore_within(bytes, scope).map_err(|error| snapshot_error(snapshot_index, error))?;
    check_restored_index(&machine, snapshot_index)?;
    Ok((machine, rest))
}

/// A snapshot must restore to the index it was saved at.
fn check_restored_index<M: StateMachine>(
    machine: &M,
    snapshot_index: u64,
) -> Result<(), PipelineError> {
    let applied_index = machine.applied_index();
    if applied_index != snapshot_index {
        return Err(PipelineError::SnapshotIndexMismatch { snapshot_index, applied_index });
    }
    Ok(())
}

/// Waits for the rest of a restore, if any is left, and applies it to the machine.
fn complete<M: StateMachine>(
    machine: &mut M,
    rest: Option<RestoreRest<'_, M>>,
    snapshot_index: u64,
) -> Result<(), PipelineError> {
    let Some(rest) = rest else { return Ok(()) };
    rest(machine).map_err(|error| snapshot_error(snapshot_index, error))
}

fn snapshot_error(
    snapshot_index: u64,
    error: impl std::error::Error + Send + Sync + 'static,
) -> PipelineError {
    PipelineError::Decode { what: "snapshot", index: snapshot_index, source: Arc::new(error) }
}

/// Decodes one log record read at start-up.
fn decode_record<M: StateMachine>(meta: Meta, payload: &[u8]) -> Result<M::Command, PipelineError> {
    M::decode_command(payload).map_err(|error| PipelineError::Decode {
        what: "command",
        index: meta.index,
        source: Arc::new(error),
    })
}

/// The nice value of start-up's helper threads: the log's reader, and a machine's own (the
/// engine reads its users' records on one). Restore then replay on the starting thread are a
/// restart's critical path, and the helpers have time to spare beside it: at equal priority
/// the scheduler shared two cores among three threads and replay waited its turn. At 10, a
/// helper still gets about a tenth of a core against a thread of default priority.
pub const RESTART_HELPER_NICE: i32 = 10;

/// Lowers the calling thread's priority to [`RESTART_HELPER_NICE`] (Linux's nice value is per
/// thread), for a helper of start-up. Lowering one's own priority needs no privilege and is
/// never undone: the helpers end with start-up.
pub fn yield_to_replay() {
    set_own_nice(RESTART_HELPER_NICE);
}

/// The nice value of the thread that serialises and writes snapshots. A snapshot is taken
/// beside trading, on the same cores as the engine and the journal, whose every delay a
/// caller waits for; the snapshot can wait instead. It still gets about a tenth of a core
/// when the machine is full, and all it wants when it is not.
pub(crate) const SNAPSHOT_NICE: i32 = 10;

/// Sets the calling thread's own nice value (Linux's is per thread). Raising it needs no
/// privilege.
pub(crate) fn set_own_nice(nice: i32) {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority changes only the scheduling priority of the thread `gettid` names,
    // the caller; it reads and writes no memory of ours. A failure leaves the priority as it
    // was, which is merely slower.
    #[allow(unsafe_code)]
    unsafe {
        let thread = libc::gettid() as libc::id_t;
        let _ = libc::setpriority(libc::PRIO_PROCESS, thread, nice);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}

/// Applies one decoded log record at start-up; events are discarded unless a follower needs
/// them (they were published before the restart, and subscribers resync after one).
fn apply_decoded<M: StateMachine>(
    machine: &mut M,
    events: &mut M::Events,
    meta: Meta,
    command: M::Command,
    keep_events: bool,
) -> Result<(), PipelineError> {
    let _reply = machine.apply(meta, command, events);
    if !keep_events {
        events.clear();
    }
    assert_eq!(machine.applied_index(), meta.index, "the machine must record each applied index");
    Ok(())
}

/// A producer's way in. Cheap to clone; `Send + Sync`.
pub struct Handle<M: StateMachine> {
    /// State shared with the pipeline.
    shared: Arc<Shared<M>>,
}

impl<M: StateMachine> Clone for Handle<M> {
    fn clone(&self) -> Self {
        Self { shared: Arc::clone(&self.shared) }
    }
}

impl<M: StateMachine> fmt::Debug for Handle<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle").field("closed", &self.shared.shutdown.is_closed()).finish()
    }
}

/// A submitted command's reply, still to come. Wait with [`Ticket::wait`] or `.await`.
pub struct Ticket<M: StateMachine> {
    /// Receives the reply or the error.
    receiver: oneshot::Receiver<Result<M::Reply, PipelineError>>,
    /// To tell why the reply never came, if it does not.
    shared: Arc<Shared<M>>,
}

impl<M: StateMachine> fmt::Debug for Ticket<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ticket").finish_non_exhaustive()
    }
}

impl<M: StateMachine> Ticket<M> {
    /// Blocks until the command is durable and applied (or failed).
    pub fn wait(self) -> Result<M::Reply, PipelineError> {
        self.receiver.recv().unwrap_or_else(|_| Err(self.shared.shutdown.error()))
    }
}

impl<M: StateMachine> Future for Ticket<M> {
    type Output = Result<M::Reply, PipelineError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        match Pin::new(&mut this.receiver).poll(cx) {
            Poll::Ready(Ok(result)) => Poll::Ready(result),
            // The sender was dropped: the command was abandoned by a stop or a failure.
            Poll::Ready(Err(_)) => Poll::Ready(Err(this.shared.shutdown.error())),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<M: StateMachine> Handle<M> {
    /// Submits a command, waiting for room in the queue, and blocks until its reply (sent
    /// only once the command is durable). For threads that may block.
    pub fn submit_blocking(&self, command: M::Command) -> Result<M::Reply, PipelineError> {
        let (submission, ticket) = self.prepare(command)?;
        self.shared.commands.send(submission).map_err(|_| self.shared.shutdown.error())?;
        ticket.wait()
    }

    /// Queues a command without blocking; `Overloaded` if the queue is full.
    pub fn try_submit(&self, command: M::Command) -> Result<Ticket<M>, PipelineError> {
        let (submission, ticket) = self.prepare(command)?;
        match self.shared.commands.try_send(submission) {
            Ok(()) => Ok(ticket),
            Err(TrySendError::Full(_)) => Err(PipelineError::Overloaded),
            Err(TrySendError::Disconnected(_)) => Err(self.shared.shutdown.error()),
        }
    }

    /// Submits a command from async code (any runtime) and awaits its durable reply. Never
    /// blocks a runtime thread: a full queue is `Overloaded` at once.
    pub async fn submit(&self, command: M::Command) -> Result<M::Reply, PipelineError> {
        self.try_submit(command)?.await
    }

    /// [`Handle::submit`] with the client's request id: in cluster mode a command whose id
    /// was applied already is answered [`PipelineError::Duplicate`], not applied again. A
    /// single node applies it as any command.
    pub async fn submit_request(
        &self,
        command: M::Command,
        request: Option<RequestId>,
    ) -> Result<M::Reply, PipelineError> {
        let (mut submission, ticket) = self.prepare(command)?;
        submission.request = request;
        match self.shared.commands.try_send(submission) {
            Ok(()) => ticket.await,
            Err(TrySendError::Full(_)) => Err(PipelineError::Overloaded),
            Err(TrySendError::Disconnected(_)) => Err(self.shared.shutdown.error()),
        }
    }

    /// [`Handle::submit_request`] for threads that may block.
    pub fn submit_request_blocking(
        &self,
        command: M::Command,
        request: Option<RequestId>,
    ) -> Result<M::Reply, PipelineError> {
        let (mut submission, ticket) = self.prepare(command)?;
        submission.request = request;
        self.shared.commands.send(submission).map_err(|_| self.shared.shutdown.error())?;
        ticket.wait()
    }

    fn prepare(&self, command: M::Command) -> Result<(Submission<M>, Ticket<M>), PipelineError> {
        if self.shared.shutdown.is_closed() {
            return Err(self.shared.shutdown.error());
        }
        let (reply, receiver) = oneshot::channel();
        let ticket = Ticket { receiver, shared: Arc::clone(&self.shared) };
        Ok((Submission { command, request: None, reply }, ticket))
    }

    /// Runs `read` on the engine thread between batches and returns its result. Not
    /// journaled. Keep it to point lookups: the engine applies nothing while it runs.
    pub fn query<R: Send + 'static>(
        &self,
        read: impl FnOnce(&M) -> R + Send + 'static,
    ) -> Result<R, PipelineError> {
        let (query, receiver) = boxed_query(read);
        self.shared.queries.send(query).map_err(|_| self.shared.shutdown.error())?;
        receiver.recv().map_err(|_| self.shared.shutdown.error())
    }

    /// Async [`Handle::query`]: `Overloaded` at once if the query queue is full.
    pub async fn query_async<R: Send + 'static>(
        &self,
        read: impl FnOnce(&M) -> R + Send + 'static,
    ) -> Result<R, PipelineError> {
        let (query, receiver) = boxed_query(read);
        match self.shared.queries.try_send(query) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => return Err(PipelineError::Overloaded),
            Err(TrySendError::Disconnected(_)) => return Err(self.shared.shutdown.error()),
        }
        receiver.await.map_err(|_| self.shared.shutdown.error())
    }

    /// Subscribes to events: one `Arc<EventBatch>` per durable batch, in order.
    ///
    /// The channel holds `capacity` batches. A subscriber that falls that far behind is
    /// dropped, never waited for (the engine must not stall on a slow reader): its
    /// receiver then reports disconnection, and it must subscribe again and resync its
    /// view (e.g. with a query), using `first_index`/`last_index` to spot the seam.
    pub fn subscribe(
        &self,
        capacity: usize,
    ) -> Result<Receiver<Arc<EventBatch<M::Events>>>, PipelineError> {
        assert!(capacity > 0, "a subscriber needs room for one batch");
        if self.shared.shutdown.is_closed() {
            return Err(self.shared.shutdown.error());
        }
        let (sender, receiver) = bounded(capacity);
        let mut subscribers = self.shared.subscribers.lock().unwrap_or_else(|p| p.into_inner());
        if subscribers.len() >= SUBSCRIBERS_MAX {
            return Err(PipelineError::TooManySubscribers);
        }
        subscribers.push(sender);
        Ok(receiver)
    }

    /// Whether this node sequences commands: always on a single node; in cluster mode,
    /// while it leads (elsewhere a command is refused with [`PipelineError::NotLeader`]).
    /// Producers that only matter on the leader (price feeds, the settlement timer) ask first.
    pub fn is_leader(&self) -> bool {
        self.shared.leading.load(Ordering::Acquire)
    }

    /// Whether the pipeline refuses new commands (shut down or failed).
    pub fn is_closed(&self) -> bool {
        self.shared.shutdown.is_closed()
    }

    /// Why the pipeline refuses new commands, once it does ([`PipelineError::ShutDown`] for a
    /// clean stop).
    pub fn closed_because(&self) -> Option<PipelineError> {
        self.shared.shutdown.is_closed().then(|| self.shared.shutdown.error())
    }

    /// Tells the pipeline that the follower has made its projection durable up to `index`
    /// (see [`Follower`]). Never moves backwards.
    pub fn set_followed(&self, index: u64) {
        self.shared.followed.fetch_max(index, Ordering::AcqRel);
    }

    /// Takes a snapshot now and returns its index once it is saved durably and the log
    /// segments behind the oldest kept snapshot are deleted.
    pub fn snapshot_now(&self) -> Result<u64, PipelineError> {
        let (done, receiver) = oneshot::channel();
        let request = EngineControl::SnapshotNow(done);
        self.shared.engine_control.send(request).map_err(|_| self.shared.shutdown.error())?;
        receiver.recv().unwrap_or_else(|_| Err(self.shared.shutdown.error()))
    }

    /// Audits the machine at the end of the first batch that reaches `index` (at once if it
    /// is there already or past it: the answer says where). Waits for that batch.
    pub async fn audit_at(&self, index: u64) -> Result<Audit, PipelineError> {
        let (answer, receiver) = oneshot::channel();
        let request = EngineControl::AuditAt(index, answer);
        match self.shared.engine_control.try_send(request) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => return Err(PipelineError::Overloaded),
            Err(TrySendError::Disconnected(_)) => return Err(self.shared.shutdown.error()),
        }
        receiver.await.map_err(|_| self.shared.shutdown.error())
    }

    /// Counters since start.
    pub fn stats(&self) -> Stats {
        self.shared.stats()
    }

    /// What start-up recovery did.
    pub fn recovery(&self) -> &PipelineRecovery {
        &self.shared.recovery
    }
}

fn boxed_query<M: StateMachine, R: Send + 'static>(
    read: impl FnOnce(&M) -> R + Send + 'static,
) -> (Query<M>, oneshot::Receiver<R>) {
    let (sender, receiver) = oneshot::channel();
    let query: Query<M> = Box::new(move |machine: &M| {
        // The asker may have given up; then nobody needs the answer.
        let _ = sender.send(read(machine));
    });
    (query, receiver)
}
