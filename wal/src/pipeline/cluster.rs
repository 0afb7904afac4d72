//! Cluster mode: the same queue, engine thread, queries, events and follower as a
//! single node, with the journal replaced by a Raft group.
//!
//! ```text
//! Handle::submit ──► queue ──► proposer: batch, stamp the leader's time, client_write_ff
//!                                 │ (one Raft entry a batch; waiting replies kept by proposal)
//!                                 ▼
//!   openraft: append to our WAL (group fdatasync), replicate to a quorum, commit
//!                                 ▼
//!   EngineMachine::apply (every node): entry → durable batch ──► engine thread: apply, reply
//!   (on the proposing node), publish events, answer queries
//! ```
//!
//! - A command is answered only after its entry is committed by a quorum and applied here.
//! - A follower refuses commands (`NotLeader`); a proposal whose leadership ends before it is
//!   known to be committed is answered `OutcomeUnknown`, never retried behind the caller.
//! - The leader's time travels in the batch and never goes back: a new leader stamps at least
//!   the time of the last entry in its log.
//! - Snapshots are Raft snapshots: the engine's bytes at a log id, saved in a file with the
//!   Raft metadata; a lagging or new node is brought up by a snapshot transfer, then the log.
//!   A snapshot is taken only once the follower (read model) has passed the newest, and the
//!   log keeps as many entries behind a snapshot as a snapshot period, so that a restart from
//!   the older snapshot still finds every entry after it.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, Sender};
use futures_util::{Stream, StreamExt};
use openraft::error::ClientWriteError;
use openraft::impls::{BasicNode, ProgressResponder};
use openraft::storage::{EntryResponder, RaftStateMachine};
use openraft::type_config::async_runtime::WatchReceiver;
use openraft::{EntryPayload, OptionalSend, RaftSnapshotBuilder, ServerState, SnapshotPolicy};

use super::journal::DurableBatch;
use super::shutdown::Shutdown;
use super::{
    engine, spawn_named, Counters, EngineControl, EventBatch, Follower, Handle, PipelineError,
    PipelineRecovery, ReplySender, Shared, Submission,
};
use crate::constants::{QUEUE_BATCHES_MAX, QUEUE_JOURNAL_CONTROL_MAX, QUEUE_QUERIES_MAX};
use crate::machine::{Frozen, Meta, StateMachine};
use crate::raft::network::{self, ClusterSecret, Network};
use crate::raft::state_machine::{Snapshot, SnapshotMeta, StoredMembership};
use crate::raft::{Applied, CommandBatch, LogId, LogStore, TypeConfig};
use crate::snapshot::SnapshotStore;

/// Batches proposed and not yet applied, at most: the proposer waits beyond, and commands
/// gather in the queue meanwhile. Measured (BENCHMARKS "Replicated log"): 256 in flight gave
/// entries of ~20 commands and 0.19 M commands/s; 4 gave ~780 per entry and 0.41 M/s.
const PROPOSALS_IN_FLIGHT_MAX: usize = 4;
/// How long a starting member waits to catch up with its group before serving anyway.
const CATCH_UP_AT_START: Duration = Duration::from_secs(10);

/// How a cluster node runs.
#[derive(Clone)]
pub struct ClusterConfig {
    /// This node's id (1, 2, 3, ...).
    pub node_id: u64,
    /// Where this node listens for its peers.
    pub listen: SocketAddr,
    /// Every member (this node too): id → the address this node reaches it at (the lowest
    /// member writes these into the first membership; each node dials its own list).
    pub members: BTreeMap<u64, String>,
    /// The secret every member shares.
    pub secret: ClusterSecret,
    /// Holds `raft/` (the log) and `snapshots/`.
    pub data_dir: PathBuf,
    /// Commands waiting for the proposer.
    pub queue_commands_max: usize,
    /// Commands per Raft entry at most.
    pub batch_commands_max: usize,
    /// A snapshot after this many entries; the log keeps as many behind it.
    pub snapshot_every_entries: u64,
    /// Leader heartbeat (ms).
    pub heartbeat_ms: u64,
    /// Election timeout range (ms).
    pub election_timeout_ms: (u64, u64),
    /// Segment size of the log.
    pub segment_size_max_bytes: u64,
    /// How long a starting member waits to catch up with its group before serving anyway
    /// (zero: no wait, for members started one after another in one process).
    pub catch_up_at_start: Duration,
    /// Milliseconds since the Unix epoch.
    pub clock: Arc<dyn Fn() -> u64 + Send + Sync>,
}

impl ClusterConfig {
    /// Defaults for a node `node_id` of `members`.
    pub fn new(
        node_id: u64,
        listen: SocketAddr,
        members: BTreeMap<u64, String>,
        secret: ClusterSecret,
        data_dir: impl Into<PathBuf>,
    ) -> ClusterConfig {
        ClusterConfig {
            node_id,
            listen,
            members,
            secret,
            data_dir: data_dir.into(),
            queue_commands_max: crate::constants::QUEUE_COMMANDS_MAX,
            batch_commands_max: crate::constants::BATCH_COMMANDS_MAX,
            snapshot_every_entries: 20_000,
            heartbeat_ms: 50,
            election_timeout_ms: (150, 300),
            segment_size_max_bytes: crate::constants::SEGMENT_SIZE_MAX_BYTES,
            catch_up_at_start: CATCH_UP_AT_START,
            clock: Arc::new(super::system_time_ms),
        }
    }
}

impl std::fmt::Debug for ClusterConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterConfig")
            .field("node_id", &self.node_id)
            .field("listen", &self.listen)
            .field("members", &self.members)
            .field("data_dir", &self.data_dir)
            .finish_non_exhaustive()
    }
}

/// Replies waiting for their batch to be applied, by proposal number.
struct Pending<M: StateMachine> {
    waiting: Mutex<HashMap<u64, Vec<ReplySender<M>>>>,
    room: Condvar,
}

impl<M: StateMachine> Pending<M> {
    fn take(&self, proposal: u64) -> Option<Vec<ReplySender<M>>> {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        let taken = waiting.remove(&proposal);
        self.room.notify_one();
        taken
    }

    fn fail(&self, proposal: u64, error: &PipelineError) {
        for reply in self.take(proposal).into_iter().flatten() {
            let _ = reply.send(Err(error.clone()));
        }
    }

    /// Waits while too many batches are in flight (commands gather in the queue meanwhile,
    /// so the next entry carries more of them: Raft's group commit).
    fn wait_for_room(&self) {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        while waiting.len() >= PROPOSALS_IN_FLIGHT_MAX {
            waiting = self.room.wait(waiting).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Parks `replies` under `proposal`.
    fn park(&self, proposal: u64, replies: Vec<ReplySender<M>>) {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        waiting.insert(proposal, replies);
    }
}

/// A Raft node of this cluster.
pub type ClusterRaft<M> = openraft::Raft<TypeConfig, EngineMachine<M>>;

/// The running cluster node.
pub struct ClusterMember<M: StateMachine> {
    raft: ClusterRaft<M>,
    shared: Arc<Shared<M>>,
    runtime: tokio::runtime::Handle,
    proposer: Option<JoinHandle<()>>,
    /// Tells the proposer to stop (it also stops when every handle is gone).
    stop_proposer: Sender<()>,
    engine: Option<JoinHandle<()>>,
    /// The task serving the other members, and what stops it.
    server: (tokio::task::JoinHandle<()>, tokio::sync::watch::Sender<()>),
    /// How far this member has caught up since its start (see [`StatusSource::current`]).
    caught_up: Arc<CatchUp>,
}

impl<M: StateMachine> std::fmt::Debug for ClusterMember<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterMember").finish_non_exhaustive()
    }
}

/// What a node reports of its place in the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterStatus {
    /// This node.
    pub node_id: u64,
    /// `leader`, `follower`, `candidate` or `learner`.
    pub role: &'static str,
    /// The leader it knows of.
    pub leader: Option<u64>,
    /// Current term.
    pub term: u64,
    /// Last log index.
    pub last_log_index: Option<u64>,
    /// Committed index.
    pub committed: Option<u64>,
    /// Applied index.
    pub applied: Option<u64>,
    /// Last log index in this member's newest snapshot.
    pub snapshot: Option<u64>,
    /// Last log index purged from this member's log (kept behind the snapshot its durable
    /// projections would restart from).
    pub purged: Option<u64>,
    /// On the leader: how far behind each follower's log is (entries).
    pub lag: BTreeMap<u64, u64>,
}

impl<M: StateMachine> ClusterMember<M> {
    /// Starts a node: restores the newest snapshot (at or before `follower`'s position, if
    /// any), starts the engine thread, the Raft node, its server and the proposer. The lowest
    /// member initialises the group on its very first start. Returns the node, a handle like a
    /// single node's, and the follower's live events if a follower was given.
    #[allow(clippy::type_complexity)]
    pub fn start(
        config: ClusterConfig,
        runtime: &tokio::runtime::Handle,
        init: impl FnOnce() -> M,
        follower: Option<Follower<M::Events>>,
    ) -> Result<
        (ClusterMember<M>, Handle<M>, Option<Receiver<Arc<EventBatch<M::Events>>>>),
        PipelineError,
    > {
        let store =
            SnapshotStore::open_keeping(&config.data_dir.join("snapshots"), SNAPSHOTS_KEPT)?;
        let followed = follower.as_ref().map(|f| f.applied_index);
        let (machine, meta, requests, skipped_damaged) = restore_member(&store, followed, init)?;
        let recovery = PipelineRecovery {
            snapshot_index: meta.as_ref().map(|_| machine.applied_index()),
            skipped_damaged_snapshots: skipped_damaged,
            ..PipelineRecovery::default()
        };
        let (commands, commands_rx) = bounded(config.queue_commands_max);
        let (queries, queries_rx) = bounded(QUEUE_QUERIES_MAX);
        let (engine_control, engine_control_rx) = bounded(QUEUE_JOURNAL_CONTROL_MAX);
        let (batches, batches_rx) = bounded(QUEUE_BATCHES_MAX);
        let shared = Arc::new(Shared {
            commands,
            queries,
            engine_control: engine_control.clone(),
            subscribers: Mutex::new(Vec::new()),
            shutdown: Shutdown::default(),
            counters: Counters::default(),
            recovery,
            followed: AtomicU64::new(followed.unwrap_or(u64::MAX)),
            leading: std::sync::atomic::AtomicBool::new(false),
        });
        let events = follower.map(|f| {
            let (sender, receiver) = bounded(f.capacity.max(1));
            shared.subscribers.lock().unwrap_or_else(|p| p.into_inner()).push(sender);
            receiver
        });
        let pending =
            Arc::new(Pending { waiting: Mutex::new(HashMap::new()), room: Condvar::new() });
        let machine_state = MachineState::at_start(&machine, meta.as_ref(), requests);
        let machine_state = Arc::new(Mutex::new(machine_state));
        let engine = spawn_engine(machine, batches_rx, queries_rx, engine_control_rx, &shared)?;
        let log = open_log(&config, Arc::clone(&machine_state), Arc::clone(&shared))?;
        let state_machine = EngineMachine {
            node_id: config.node_id,
            to_engine: batches,
            control: engine_control,
            pending: Arc::clone(&pending),
            store,
            state: machine_state,
            shared: Arc::clone(&shared),
        };
        let (raft, server) = start_raft(runtime, &config, log.clone(), state_machine, &shared)?;
        let (stop_proposer, stop) = bounded(1);
        let proposer = Proposer {
            node_id: config.node_id,
            commands: commands_rx,
            stop,
            raft: raft.clone(),
            runtime: runtime.clone(),
            pending,
            log,
            batch_commands_max: config.batch_commands_max,
            clock: Arc::clone(&config.clock),
            next_proposal: 1,
            last_time_ms: 0,
            shared: Arc::clone(&shared),
        };
        let proposer = spawn_named("raft-proposer", move || proposer.run())?;
        // A member that restarts serves once it has caught up with its group (bounded), so
        // that reads there do not go back in time (a session created meanwhile, say).
        if !config.catch_up_at_start.is_zero() {
            wait_caught_up(runtime, &raft, config.catch_up_at_start);
        }
        let handle = Handle { shared: Arc::clone(&shared) };
        let node = ClusterMember {
            raft,
            shared,
            runtime: runtime.clone(),
            proposer: Some(proposer),
            stop_proposer,
            engine: Some(engine),
            server,
            caught_up: Arc::default(),
        };
        Ok((node, handle, events))
    }

    /// The Raft node.
    pub fn raft(&self) -> &ClusterRaft<M> {
        &self.raft
    }

    /// A handle like a single node's.
    pub fn handle(&self) -> Handle<M> {
        Handle { shared: Arc::clone(&self.shared) }
    }

    /// Where this node stands.
    pub fn status(&self) -> ClusterStatus {
        status_of(&self.raft.metrics().borrow_watched())
    }

    /// A cheap, cloneable view of [`ClusterMember::status`] for other threads and tasks.
    pub fn status_source(&self) -> StatusSource {
        StatusSource(self.raft.metrics(), Arc::clone(&self.caught_up))
    }

    /// Stops proposing, then Raft, its server and the engine thread.
    pub fn shutdown(mut self) -> Result<(), PipelineError> {
        self.stop()
    }

    fn stop(&mut self) -> Result<(), PipelineError> {
        self.shared.shutdown.close();
        let _ = self.stop_proposer.try_send(());
        // The peers' connections end before Raft does: a request handed to a stopped Raft is
        // logged by openraft as an error.
        let _ = self.server.1.send(());
        let _ = self.runtime.block_on(&mut self.server.0);
        let raft = self.raft.clone();
        let _ = self.runtime.block_on(raft.shutdown());
        if let Some(proposer) = self.proposer.take() {
            let _ = proposer.join();
        }
        if let Some(engine) = self.engine.take() {
            // The engine thread ends once Raft (which holds its input) is gone.
            let _ = engine.join();
        }
        // The gateway's projector waits for the end of its stream before the node is dropped.
        self.shared.end_subscriptions();
        Ok(())
    }
}

impl<M: StateMachine> Drop for ClusterMember<M> {
    fn drop(&mut self) {
        if self.proposer.is_some() {
            let _ = self.stop();
        }
    }
}

/// Entries a member that has caught up once may trail the commit index before it counts as
/// catching up again (a member cut off a while, say): a few seconds of full load.
pub const CATCHING_UP_ENTRIES_MAX: u64 = 10_000;

/// Where a node stands, read when asked (see [`ClusterMember::status_source`]).
#[derive(Clone)]
pub struct StatusSource(
    openraft::alias::WatchReceiverOf<TypeConfig, openraft::RaftMetrics<TypeConfig>>,
    Arc<CatchUp>,
);

/// A member's progress towards what its group had committed when it first heard (see
/// [`StatusSource::current`]).
#[derive(Debug, Default)]
pub struct CatchUp {
    /// The first commit index heard from a leader, plus one (0: none yet).
    target: std::sync::atomic::AtomicU64,
    /// Set once this member has applied that far.
    caught_up: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for StatusSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("StatusSource").finish_non_exhaustive()
    }
}

impl StatusSource {
    /// The node's status now.
    pub fn status(&self) -> ClusterStatus {
        status_of(&self.0.borrow_watched())
    }

    /// Whether this member holds what the cluster has committed, so that what it answers
    /// from its state is not short: after a start, not until it has heard a commit index from
    /// a leader and applied that far (a restarted member otherwise answers from a state
    /// seconds behind, as if current); after that, while it trails the commit index by at
    /// most [`CATCHING_UP_ENTRIES_MAX`] (a follower always trails a little under load, so the
    /// target is the first commit index heard, not the moving one).
    pub fn current(&self) -> bool {
        let status = self.status();
        let (Some(committed), Some(applied)) = (status.committed, status.applied) else {
            return false;
        };
        let catch_up = &self.1;
        if catch_up.caught_up.load(Ordering::Acquire) {
            return committed.saturating_sub(applied) <= CATCHING_UP_ENTRIES_MAX;
        }
        if status.leader.is_none() {
            return false;
        }
        // The first commit index heard (+1: 0 means none yet).
        let target = match catch_up.target.compare_exchange(
            0,
            committed + 1,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => committed,
            Err(set) => set - 1,
        };
        let caught_up = applied >= target;
        if caught_up {
            catch_up.caught_up.store(true, Ordering::Release);
        }
        caught_up
    }

    /// Waits (at most `timeout`) until [`StatusSource::current`] holds; whether it does.
    pub async fn wait_current(&self, timeout: Duration) -> bool {
        let mut changes = self.0.clone();
        let wait = async {
            while !self.current() {
                if changes.changed().await.is_err() {
                    return; // the node stopped
                }
            }
        };
        let _ = tokio::time::timeout(timeout, wait).await;
        self.current()
    }
}

fn status_of(m: &openraft::RaftMetrics<TypeConfig>) -> ClusterStatus {
    let role = match m.state {
        _ if m.running_state.is_err() => "shutdown",
        ServerState::Leader => "leader",
        ServerState::Follower => "follower",
        ServerState::Candidate => "candidate",
        ServerState::Learner => "learner",
        ServerState::Shutdown => "shutdown",
    };
    let last = m.last_log_index.unwrap_or(0);
    let lag = m
        .replication
        .as_ref()
        .map(|replication| {
            replication
                .iter()
                .filter(|(id, _)| **id != m.id)
                .map(|(id, matched)| (*id, last.saturating_sub(matched.map_or(0, |l| l.index + 1))))
                .collect()
        })
        .unwrap_or_default();
    ClusterStatus {
        node_id: m.id,
        role,
        leader: m.current_leader,
        term: m.current_term,
        last_log_index: m.last_log_index,
        committed: m.cluster_committed.map(|l| l.index),
        applied: m.last_applied.map(|l| l.index),
        snapshot: m.snapshot.map(|l| l.index),
        purged: m.purged.map(|l| l.index),
        lag,
    }
}

/// Takes queued commands, batches them and proposes each batch to Raft (on the leader).
struct Proposer<M: StateMachine> {
    node_id: u64,
    commands: Receiver<Submission<M>>,
    stop: Receiver<()>,
    raft: ClusterRaft<M>,
    runtime: tokio::runtime::Handle,
    pending: Arc<Pending<M>>,
    log: LogStore,
    batch_commands_max: usize,
    clock: Arc<dyn Fn() -> u64 + Send + Sync>,
    next_proposal: u64,
    last_time_ms: u64,
    shared: Arc<Shared<M>>,
}

impl<M: StateMachine> Proposer<M> {
    fn run(mut self) {
        loop {
            let first = crossbeam_channel::select! {
                recv(self.commands) -> first => match first {
                    Ok(first) => first,
                    Err(_) => return,
                },
                recv(self.stop) -> _ => break,
            };
            self.pending.wait_for_room();
            let mut submissions = vec![first];
            while submissions.len() < self.batch_commands_max {
                let Ok(next) = self.commands.try_recv() else { break };
                submissions.push(next);
            }
            self.propose(submissions);
        }
        // Stopping: whoever still waits in the queue is told, not left hanging.
        while let Ok(submission) = self.commands.try_recv() {
            let _ = submission.reply.send(Err(PipelineError::ShutDown));
        }
    }

    fn propose(&mut self, submissions: Vec<Submission<M>>) {
        let (leader, state) = {
            let metrics = self.raft.metrics();
            let metrics = metrics.borrow_watched();
            (metrics.current_leader, metrics.state)
        };
        if leader != Some(self.node_id) || state != ServerState::Leader {
            let error = PipelineError::NotLeader { leader };
            for submission in submissions {
                let _ = submission.reply.send(Err(error.clone()));
            }
            return;
        }
        // Never before the last entry of the log, whoever stamped it.
        let floor = self.last_time_ms.max(self.log.last_time_ms());
        let time_ms = (self.clock)().max(floor);
        self.last_time_ms = time_ms;
        let proposal = self.next_proposal;
        self.next_proposal += 1;
        let mut batch = CommandBatch::new(time_ms, self.node_id, proposal);
        let mut replies = Vec::with_capacity(submissions.len());
        let mut requests = Vec::with_capacity(submissions.len());
        for Submission { command, request, reply } in submissions {
            batch.push_with(|out| M::encode_command(&command, out));
            requests.push(request.map_or(0, |r| r.0));
            replies.push(reply);
        }
        if requests.iter().any(|r| *r != 0) {
            batch.requests = requests; // most batches carry no request id: none travels
        }
        self.pending.park(proposal, replies);
        let (responder, complete) = ProgressResponder::complete_only();
        let raft = self.raft.clone();
        let queued = self.runtime.block_on(raft.client_write_ff(batch, Some(responder)));
        if let Err(fatal) = queued {
            self.pending.fail(proposal, &PipelineError::Raft(fatal.to_string()));
            return;
        }
        let pending = Arc::clone(&self.pending);
        self.shared.count(|c| &c.batches, 1);
        self.runtime.spawn(async move {
            // Applied batches took their replies already; what is left was not applied here.
            let error = match complete.await {
                Ok(Ok(_)) => return,
                // Refused before it was appended (this member no longer leads, or its lease
                // ran out): known not to be applied anywhere, so the caller may send it again.
                Ok(Err(ClientWriteError::ForwardToLeader(forward))) => {
                    PipelineError::NotLeader { leader: forward.leader_id }
                }
                // Appended, then discarded or lost with the leadership: another leader may
                // have committed it.
                Ok(Err(_)) | Err(_) => PipelineError::OutcomeUnknown,
            };
            pending.fail(proposal, &error);
        });
    }
}

/// A member's state at start: the newest snapshot (at or before `followed`, a follower's
/// position, if any) restored, with its Raft metadata and the requests it remembers, or a
/// fresh machine; and the damaged snapshots skipped.
#[allow(clippy::type_complexity)]
fn restore_member<M: StateMachine>(
    store: &SnapshotStore,
    followed: Option<u64>,
    init: impl FnOnce() -> M,
) -> Result<(M, Option<SnapshotMeta>, RequestTable, Vec<u64>), PipelineError> {
    let load = match followed {
        Some(followed) => store.load_latest_at_or_before(followed)?,
        None => store.load_latest()?,
    };
    Ok(match load.snapshot {
        Some(snapshot) => {
            let (meta, data) = split_snapshot(&snapshot.bytes)?;
            let (requests, bytes) = RequestTable::decode(data)
                .map_err(|e| PipelineError::Raft(format!("stored snapshot: {e}")))?;
            (
                super::restore::<M>(snapshot.index, bytes)?,
                Some(meta),
                requests,
                load.skipped_damaged,
            )
        }
        None => (init(), None, RequestTable::default(), load.skipped_damaged),
    })
}

/// Starts the engine thread of a member: it applies what Raft commits, as a single node's
/// engine applies durable batches.
fn spawn_engine<M: StateMachine>(
    machine: M,
    batches: Receiver<DurableBatch<M>>,
    queries: Receiver<super::Query<M>>,
    control: Receiver<EngineControl<M>>,
    shared: &Arc<Shared<M>>,
) -> Result<JoinHandle<()>, PipelineError> {
    let (recycle, _recycled) = bounded(1);
    let (snapshots, _unused) = bounded(1);
    let engine = engine::Engine::<M> {
        machine,
        batches,
        queries,
        control,
        recycle,
        snapshots,
        events: M::Events::default(),
        published: std::collections::VecDeque::new(),
        since_snapshot: 0,
        newest_snapshot: 0,
        last_term: 0,
        snapshot_every_commands: 0,
        audits: Vec::new(),
        auditor: engine::Auditor::default(),
        shared: Arc::clone(shared),
    };
    spawn_named("wal-engine", move || engine.run())
}

/// Opens the member's Raft log, which never purges entries behind what its durable
/// projections have made durable (see [`MachineState::purge_limit`]).
fn open_log<M: StateMachine>(
    config: &ClusterConfig,
    state: Arc<Mutex<MachineState>>,
    shared: Arc<Shared<M>>,
) -> Result<LogStore, PipelineError> {
    let purge_limit: crate::raft::log_store::PurgeLimit = Arc::new(move || {
        let followed = shared.followed.load(Ordering::Acquire);
        state.lock().unwrap_or_else(|p| p.into_inner()).purge_limit(followed)
    });
    Ok(LogStore::open(
        Arc::new(crate::storage::FsStorage),
        config.data_dir.join("raft"),
        config.segment_size_max_bytes,
    )?
    .with_purge_limit(purge_limit))
}

/// Starts the Raft node and the server the other members reach it by; the lowest member
/// initialises the group on its very first start.
#[allow(clippy::type_complexity)]
fn start_raft<M: StateMachine>(
    runtime: &tokio::runtime::Handle,
    config: &ClusterConfig,
    log: LogStore,
    state_machine: EngineMachine<M>,
    shared: &Arc<Shared<M>>,
) -> Result<
    (ClusterRaft<M>, (tokio::task::JoinHandle<()>, tokio::sync::watch::Sender<()>)),
    PipelineError,
> {
    let raft_config = raft_config(config)?;
    let network =
        Network::with_peers(config.node_id, config.secret.clone(), config.members.clone());
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|e| PipelineError::Listen { address: config.listen, error: Arc::new(e) })?;
        let raft = openraft::Raft::new(config.node_id, raft_config, network, log, state_machine)
            .await
            .map_err(|e| PipelineError::Raft(e.to_string()))?;
        let (stop_server, stopped) = tokio::sync::watch::channel(());
        let secret = config.secret.clone();
        let server = tokio::spawn(network::serve(listener, raft.clone(), secret, stopped));
        let server = (server, stop_server);
        let lowest = config.members.keys().next().copied();
        if lowest == Some(config.node_id) && raft.is_initialized().await.ok() == Some(false) {
            let members: BTreeMap<u64, BasicNode> =
                config.members.iter().map(|(id, addr)| (*id, BasicNode::new(addr))).collect();
            raft.initialize(members).await.map_err(|e| PipelineError::Raft(e.to_string()))?;
        }
        watch_leadership(&raft, Arc::clone(shared));
        Ok((raft, server))
    })
}

/// Raft's timings and policies for this member.
fn raft_config(config: &ClusterConfig) -> Result<Arc<openraft::Config>, PipelineError> {
    let raft_config = openraft::Config {
        heartbeat_interval: config.heartbeat_ms,
        election_timeout_min: config.election_timeout_ms.0,
        election_timeout_max: config.election_timeout_ms.1,
        snapshot_policy: SnapshotPolicy::LogsSinceLast(config.snapshot_every_entries),
        max_in_snapshot_log_to_keep: config.snapshot_every_entries,
        // A follower whose log lost its tail (a torn last record cut at recovery, a disk
        // that acknowledged a sync it had not done) is sent the log again from where it
        // matches. openraft's default stops the leader's Raft instead: one member's disk
        // would stop the group.
        allow_log_reversion: Some(true),
        // A follower whose timer fires first asks whether it would win before it raises
        // its term. Without this, one a record behind the other stood for election, lost,
        // and had already voted for itself in the term its peer then stood in: a split
        // vote and another timeout (+250 ms in 4 of 10 failovers measured).
        enable_pre_vote: Some(true),
        ..Default::default()
    };
    Ok(Arc::new(raft_config.validate().map_err(|e| PipelineError::Raft(e.to_string()))?))
}

/// Keeps `Handle::is_leader` in step with Raft's view; a fatal error stops the member. Runs
/// on the runtime it is called in.
fn watch_leadership<M: StateMachine>(raft: &ClusterRaft<M>, watched: Arc<Shared<M>>) {
    let mut metrics = raft.metrics();
    tokio::spawn(async move {
        loop {
            let (leads, fatal) = {
                let m = metrics.borrow_watched();
                (m.state == ServerState::Leader, m.running_state.clone().err())
            };
            if let Some(fatal) = fatal {
                if watched.shutdown.is_closed() {
                    tracing::info!("raft stopped");
                    return;
                }
                tracing::error!(%fatal, "raft stopped: this member stops");
                watched.leading.store(false, Ordering::Release);
                watched.shutdown.fail(PipelineError::Raft(fatal.to_string()));
                return;
            }
            watched.leading.store(leads, Ordering::Release);
            if metrics.changed().await.is_err() {
                watched.leading.store(false, Ordering::Release);
                return;
            }
        }
    });
}

/// Waits (at most `within`) until this member has applied what a leader reported committed.
fn wait_caught_up<M: StateMachine>(
    runtime: &tokio::runtime::Handle,
    raft: &ClusterRaft<M>,
    within: std::time::Duration,
) {
    let wait = raft.wait(Some(within));
    // The commit index a leader reported, not this member's own idea of it: a restarted
    // member's own commit index is its own applied one until it hears from a leader.
    let caught_up = |m: &openraft::RaftMetrics<TypeConfig>| {
        m.current_leader.is_some()
            && m.cluster_committed.is_some()
            && m.last_applied.map(|l| l.index) >= m.cluster_committed.map(|l| l.index)
    };
    if runtime.block_on(wait.metrics(caught_up, "caught up")).is_err() {
        tracing::warn!("not caught up with the cluster at start; serving anyway");
    }
}

/// The state machine's own bookkeeping (the machine itself lives on the engine thread).
#[derive(Debug)]
struct MachineState {
    /// Sequence number the next command gets.
    next_index: u64,
    /// Time of the last batch applied: never less after.
    last_time_ms: u64,
    /// Last entry applied.
    last_applied: Option<LogId>,
    /// Membership of the last membership entry applied.
    membership: StoredMembership,
    /// Command index of the newest snapshot saved.
    newest_snapshot: u64,
    /// The snapshots kept on disk, oldest first: command index and the last log id each
    /// covers (the log is purged only behind one of them; see [`MachineState::purge_limit`]).
    kept_snapshots: std::collections::VecDeque<(u64, LogId)>,
    /// The most recent request ids applied, with where: replicated state (in snapshots), so
    /// every member answers a retry the same way.
    requests: RequestTable,
}

impl MachineState {
    /// The state of a member that starts from `machine` (restored from a snapshot with `meta`,
    /// or fresh).
    fn at_start<M: StateMachine>(
        machine: &M,
        meta: Option<&SnapshotMeta>,
        requests: RequestTable,
    ) -> MachineState {
        MachineState {
            next_index: machine.applied_index() + 1,
            last_time_ms: machine.applied_time_ms(),
            last_applied: meta.and_then(|m| m.last_log_id),
            membership: meta.map(|m| m.last_membership.clone()).unwrap_or_default(),
            newest_snapshot: machine.applied_index(),
            kept_snapshots: meta
                .as_ref()
                .and_then(|m| m.last_log_id)
                .map(|id| (machine.applied_index(), id))
                .into_iter()
                .collect(),
            requests,
        }
    }
}

impl MachineState {
    /// A snapshot was saved (built here, or installed from the leader).
    fn snapshot_saved(&mut self, index: u64, last_log_id: Option<LogId>) {
        self.newest_snapshot = self.newest_snapshot.max(index);
        if let Some(log_id) = last_log_id {
            self.kept_snapshots.push_back((index, log_id));
            while self.kept_snapshots.len() > SNAPSHOTS_KEPT {
                self.kept_snapshots.pop_front();
            }
        }
    }

    /// How far the log may be purged: to the newest kept snapshot at or before `followed`,
    /// the position every durable projection (the read model, the tick archive) has made
    /// durable. A restart restores that snapshot (or a newer one at or before the projections)
    /// and replays the log after it, so the projections get every event they had not made
    /// durable: purging further would lose them (a member's archive once lost 36 s of ticks
    /// that way, and its settlement proofs with them).
    fn purge_limit(&self, followed: u64) -> Option<LogId> {
        self.kept_snapshots.iter().rev().find(|(index, _)| *index <= followed).map(|&(_, id)| id)
    }
}

/// Snapshots kept on disk: one at or before the projections' durable position always remains.
const SNAPSHOTS_KEPT: usize = 2;

/// Request ids remembered, at most: a retry comes within seconds; this covers minutes of
/// orders at full speed.
pub const REQUESTS_REMEMBERED: usize = 100_000;

/// The most recent request ids and where each was applied, oldest forgotten first.
#[derive(Debug, Default)]
struct RequestTable {
    applied: HashMap<u128, u64>,
    order: std::collections::VecDeque<u128>,
}

impl RequestTable {
    fn get(&self, id: u128) -> Option<u64> {
        self.applied.get(&id).copied()
    }

    fn insert(&mut self, id: u128, index: u64) {
        if self.applied.insert(id, index).is_none() {
            self.order.push_back(id);
        }
        while self.order.len() > REQUESTS_REMEMBERED {
            if let Some(oldest) = self.order.pop_front() {
                self.applied.remove(&oldest);
            }
        }
    }

    /// `[count u32][(id u128, index u64)...]`, oldest first.
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.order.len() as u32).to_le_bytes());
        for id in &self.order {
            out.extend_from_slice(&id.to_le_bytes());
            out.extend_from_slice(&self.applied[id].to_le_bytes());
        }
    }

    /// The table and the bytes after it.
    fn decode(bytes: &[u8]) -> io::Result<(RequestTable, &[u8])> {
        let bad = || io::Error::new(io::ErrorKind::InvalidData, "request table");
        let (count, mut rest) = bytes.split_first_chunk::<4>().ok_or_else(bad)?;
        let mut table = RequestTable::default();
        for _ in 0..u32::from_le_bytes(*count) {
            let (id, after) = rest.split_first_chunk::<16>().ok_or_else(bad)?;
            let (index, after) = after.split_first_chunk::<8>().ok_or_else(bad)?;
            table.insert(u128::from_le_bytes(*id), u64::from_le_bytes(*index));
            rest = after;
        }
        Ok((table, rest))
    }
}

/// openraft's state machine in cluster mode: committed entries become durable batches for the
/// engine thread; snapshots are the engine's bytes, saved in a file with their Raft metadata.
pub struct EngineMachine<M: StateMachine> {
    node_id: u64,
    to_engine: Sender<DurableBatch<M>>,
    control: Sender<EngineControl<M>>,
    pending: Arc<Pending<M>>,
    store: SnapshotStore,
    state: Arc<Mutex<MachineState>>,
    shared: Arc<Shared<M>>,
}

impl<M: StateMachine> std::fmt::Debug for EngineMachine<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineMachine").field("node_id", &self.node_id).finish_non_exhaustive()
    }
}

fn closed() -> io::Error {
    io::Error::other("the engine thread stopped")
}

/// Set in a stored snapshot's length word when padding follows the metadata.
const PADDED: u32 = 1 << 31;

/// The alignment of the machine's bytes within a stored snapshot (whose body starts 64-byte
/// aligned): what the engine's archive needs to be restored in place. Unaligned, a restore
/// first copied the whole machine (540 MB at a million users) into an aligned buffer.
const MACHINE_ALIGN: usize = 16;

/// What a stored snapshot holds before its data:
/// `[json len | PADDED, u32][json meta][pad count u8][pad]`. The data is the request table
/// (`requests_len` bytes) and then the machine, which the padding aligns to
/// [`MACHINE_ALIGN`]. Snapshots stored before had no padding and no flag; both load.
fn stored_prefix(meta: &SnapshotMeta, requests_len: usize) -> Vec<u8> {
    let json = serde_json::to_vec(meta).expect("a snapshot meta serialises");
    let before_pad = 4 + json.len() + 1;
    let pad = (MACHINE_ALIGN - (before_pad + requests_len) % MACHINE_ALIGN) % MACHINE_ALIGN;
    let mut out = Vec::with_capacity(before_pad + pad);
    let len = u32::try_from(json.len()).ok().filter(|len| len & PADDED == 0);
    out.extend_from_slice(&(len.expect("a snapshot meta is small") | PADDED).to_le_bytes());
    out.extend_from_slice(&json);
    out.push(pad as u8);
    out.resize(before_pad + pad, 0);
    out
}

/// Saves `data` (the request table, `requests_len` bytes, then the machine) with its Raft
/// metadata, without joining the two in memory first.
fn save_snapshot(
    store: &SnapshotStore,
    index: u64,
    meta: &SnapshotMeta,
    data: &[u8],
    requests_len: usize,
) -> Result<(), crate::snapshot::SnapshotError> {
    let term = meta.last_log_id.map_or(0, |l| l.leader_id.term);
    store.save_parts(index, term, &[&stored_prefix(meta, requests_len), data])
}

fn split_snapshot(stored: &[u8]) -> Result<(SnapshotMeta, &[u8]), PipelineError> {
    let bad = |what: String| PipelineError::Raft(format!("stored snapshot: {what}"));
    let truncated = || bad("truncated".into());
    let (len, rest) = stored.split_first_chunk::<4>().ok_or_else(truncated)?;
    let len = u32::from_le_bytes(*len);
    let (json, mut data) = rest.split_at_checked((len & !PADDED) as usize).ok_or_else(truncated)?;
    if len & PADDED != 0 {
        let (&pad, after) = data.split_first().ok_or_else(truncated)?;
        data = after.get(usize::from(pad)..).ok_or_else(truncated)?;
    }
    let meta = serde_json::from_slice(json).map_err(|e| bad(e.to_string()))?;
    Ok((meta, data))
}

impl<M: StateMachine> EngineMachine<M> {
    fn lock(&self) -> std::sync::MutexGuard<'_, MachineState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Turns a committed batch into a durable batch for the engine thread.
    /// A command whose request id was applied already is not applied again: its waiting
    /// client (if here) is answered `Duplicate` with where the first one went.
    fn batch_for_engine(&self, log_id: LogId, batch: CommandBatch) -> io::Result<DurableBatch<M>> {
        let mut state = self.lock();
        let time_ms = batch.time_ms.max(state.last_time_ms);
        state.last_time_ms = time_ms;
        let mine = (batch.proposer == self.node_id).then(|| self.pending.take(batch.proposal));
        let mut waiting =
            mine.flatten().filter(|replies| replies.len() == batch.len()).map(Vec::into_iter);
        let mut durable = DurableBatch::with_capacity(batch.len());
        for (n, bytes) in batch.commands().enumerate() {
            // Another node's clients, or ours from before a restart: nobody here waits.
            let reply = waiting.as_mut().and_then(Iterator::next);
            let request = batch.requests.get(n).copied().filter(|id| *id != 0);
            if let Some(index) = request.and_then(|id| state.requests.get(id)) {
                if let Some(reply) = reply {
                    let _ = reply.send(Err(PipelineError::Duplicate { index }));
                }
                continue;
            }
            let command = M::decode_command(bytes).map_err(io::Error::other)?;
            let meta = Meta { term: log_id.leader_id.term, index: state.next_index, time_ms };
            if let Some(id) = request {
                state.requests.insert(id, meta.index);
            }
            state.next_index += 1;
            durable.metas.push(meta);
            durable.commands.push(command);
            durable.replies.push(reply);
        }
        Ok(durable)
    }
}

/// A snapshot taken from the engine when the builder was made: the engine frozen exactly at
/// `meta`'s log id.
pub struct EngineSnapshot {
    meta: SnapshotMeta,
    index: u64,
    /// The request table, encoded.
    requests: Vec<u8>,
    /// The machine frozen at `index`, until built.
    machine: Option<Frozen>,
    store: SnapshotStore,
    state: Arc<Mutex<MachineState>>,
}

impl std::fmt::Debug for EngineSnapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineSnapshot")
            .field("meta", &self.meta)
            .field("index", &self.index)
            .finish()
    }
}

impl RaftSnapshotBuilder<TypeConfig> for EngineSnapshot {
    type SnapshotData = Vec<u8>;

    async fn build_snapshot(&mut self) -> Result<Snapshot, io::Error> {
        // Saving the whole machine (tens of MB, the file's write and fsync) takes
        // long enough to stall every Raft task on this worker: heartbeats stopped for
        // hundreds of ms, the leader's lease ran out, and a member's snapshot cost the
        // cluster an election. It runs on a thread of its own instead, at the single
        // node's snapshot priority: serialising the frozen machine (the engine goes on
        // applying meanwhile) gives way to the engine, the log and the runtime.
        let (store, index, meta) = (self.store.clone(), self.index, self.meta.clone());
        let mut bytes = std::mem::take(&mut self.requests);
        let machine = self.machine.take().ok_or_else(|| io::Error::other("built twice"))?;
        let (saved, result) = oneshot::channel();
        std::thread::Builder::new().name("raft-snapshot".into()).spawn(move || {
            super::set_own_nice(super::SNAPSHOT_NICE);
            let requests_len = bytes.len();
            bytes.extend_from_slice(&machine());
            let _ = saved
                .send(save_snapshot(&store, index, &meta, &bytes, requests_len).map(|()| bytes));
        })?;
        let bytes = result
            .await
            .map_err(|_| io::Error::other("the snapshot's thread ended without an answer"))?
            .map_err(io::Error::other)?;
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.snapshot_saved(self.index, self.meta.last_log_id);
        Ok(Snapshot { meta: self.meta.clone(), snapshot: bytes })
    }
}

impl<M: StateMachine> RaftStateMachine<TypeConfig> for EngineMachine<M> {
    type SnapshotData = Vec<u8>;
    type SnapshotBuilder = EngineSnapshot;

    async fn applied_state(&mut self) -> Result<(Option<LogId>, StoredMembership), io::Error> {
        let state = self.lock();
        Ok((state.last_applied, state.membership.clone()))
    }

    async fn apply<Strm>(&mut self, mut entries: Strm) -> Result<(), io::Error>
    where
        Strm: Stream<Item = Result<EntryResponder<TypeConfig>, io::Error>> + Unpin + OptionalSend,
    {
        let mut last_done = None;
        while let Some(next) = entries.next().await {
            let (entry, responder) = next?;
            let log_id = entry.log_id;
            match entry.payload {
                EntryPayload::Blank => {}
                EntryPayload::Membership(membership) => {
                    self.lock().membership = StoredMembership::new(Some(log_id), membership);
                }
                EntryPayload::Normal(batch) => {
                    let mut durable = self.batch_for_engine(log_id, batch)?;
                    if !durable.commands.is_empty() {
                        let (done, applied) = oneshot::channel();
                        durable.done = Some(done);
                        self.to_engine.send(durable).map_err(|_| closed())?;
                        last_done = Some(applied);
                    }
                }
            }
            self.lock().last_applied = Some(log_id);
            if let Some(responder) = responder {
                responder.send(Applied);
            }
        }
        // The machine holds every entry of this call before openraft counts it applied
        // (batches reach the engine in order: the last one's answer covers them all).
        if let Some(applied) = last_done {
            applied.await.map_err(|_| closed())?;
        }
        Ok(())
    }

    async fn try_create_snapshot_builder(&mut self, _force: bool) -> Option<EngineSnapshot> {
        // The read model must have passed the newest snapshot, so that one stays behind it.
        let newest = self.lock().newest_snapshot;
        if newest > self.shared.followed.load(Ordering::Acquire) {
            return None;
        }
        Some(self.get_snapshot_builder().await)
    }

    async fn get_snapshot_builder(&mut self) -> EngineSnapshot {
        let (answer, frozen) = oneshot::channel();
        let empty = || -> (u64, Frozen) { (0, Box::new(Vec::new)) };
        let (index, machine) = match self.control.send(EngineControl::Freeze(answer)) {
            Ok(()) => frozen.await.unwrap_or_else(|_| empty()),
            Err(_) => empty(),
        };
        let state = self.lock();
        let meta = SnapshotMeta {
            last_log_id: state.last_applied,
            last_membership: state.membership.clone(),
        };
        // The snapshot's data: the request table, then the machine (serialised when built).
        let mut requests = Vec::new();
        state.requests.encode(&mut requests);
        EngineSnapshot {
            meta,
            index,
            requests,
            machine: Some(machine),
            store: self.store.clone(),
            state: Arc::clone(&self.state),
        }
    }

    async fn install_snapshot(
        &mut self,
        meta: &SnapshotMeta,
        snapshot: Vec<u8>,
    ) -> Result<(), io::Error> {
        let (requests, bytes) = RequestTable::decode(&snapshot)?;
        let machine = M::restore(bytes).map_err(io::Error::other)?;
        let (index, time) = (machine.applied_index(), machine.applied_time_ms());
        let requests_len = snapshot.len() - bytes.len();
        save_snapshot(&self.store, index, meta, &snapshot, requests_len)
            .map_err(io::Error::other)?;
        let (done, replaced) = oneshot::channel();
        self.control.send(EngineControl::Replace(Box::new(machine), done)).map_err(|_| closed())?;
        replaced.await.map_err(|_| closed())?;
        let mut state = self.lock();
        state.next_index = index + 1;
        state.last_time_ms = state.last_time_ms.max(time);
        state.last_applied = meta.last_log_id;
        state.membership = meta.last_membership.clone();
        state.newest_snapshot = index;
        state.snapshot_saved(index, meta.last_log_id);
        state.requests = requests;
        Ok(())
    }

    /// The newest snapshot at or before the durable projections, not the newest of all:
    /// openraft installs this one at start when it is ahead of the machine, and a machine
    /// moved past what the projections hold would never give them the events in between
    /// (a restarted member's tick archive lost its unwritten ticks that way). Sent to a
    /// lagging follower, it is older than it could be, and the log after it is kept.
    async fn get_current_snapshot(&mut self) -> Result<Option<Snapshot>, io::Error> {
        let followed = self.shared.followed.load(Ordering::Acquire);
        let load = self.store.load_latest_at_or_before(followed).map_err(io::Error::other)?;
        let Some(stored) = load.snapshot else {
            return Ok(None);
        };
        let (meta, bytes) = split_snapshot(&stored.bytes).map_err(io::Error::other)?;
        Ok(Some(Snapshot { meta, snapshot: bytes.to_vec() }))
    }
}

/// How long [`ClusterMember`] users may wait for a leader at most in tests and tools.
pub const LEADER_WAIT: Duration = Duration::from_secs(10);

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> SnapshotMeta {
        SnapshotMeta { last_log_id: None, last_membership: StoredMembership::default() }
    }

    /// The data of a snapshot: a request table of `requests` entries, then `machine`.
    fn data(requests: u32, machine: &[u8]) -> (Vec<u8>, usize) {
        let mut table = RequestTable::default();
        for n in 0..requests {
            table.insert(u128::from(n) + 1, u64::from(n) + 7);
        }
        let mut data = Vec::new();
        table.encode(&mut data);
        let requests_len = data.len();
        data.extend_from_slice(machine);
        (data, requests_len)
    }

    #[test]
    fn a_stored_snapshot_puts_the_machine_at_an_aligned_offset() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::open(dir.path()).unwrap();
        for (index, requests) in [(1u64, 0u32), (2, 1), (3, 2), (4, 5), (5, 1_000)] {
            let machine = format!("machine at {index}").into_bytes();
            let (data, requests_len) = data(requests, &machine);
            save_snapshot(&store, index, &meta(), &data, requests_len).unwrap();
            let stored = store.load_latest().unwrap().snapshot.unwrap();
            let (read_meta, read) = split_snapshot(&stored.bytes).unwrap();
            assert_eq!(read_meta, meta());
            assert_eq!(read, &data[..], "the data comes back as it went in");
            let (table, rest) = RequestTable::decode(read).unwrap();
            assert_eq!(table.order.len(), requests as usize);
            assert_eq!(rest, &machine[..]);
            assert_eq!(rest.as_ptr().align_offset(MACHINE_ALIGN), 0, "{requests} requests");
        }
    }

    #[test]
    fn a_snapshot_stored_without_padding_still_loads() {
        let (data, _) = data(3, b"machine");
        let json = serde_json::to_vec(&meta()).unwrap();
        let mut stored = (json.len() as u32).to_le_bytes().to_vec();
        stored.extend_from_slice(&json);
        stored.extend_from_slice(&data);
        let (read_meta, read) = split_snapshot(&stored).unwrap();
        assert_eq!((read_meta, read), (meta(), &data[..]));
    }

    #[test]
    fn a_truncated_stored_snapshot_is_an_error() {
        let (data, requests_len) = data(2, b"machine");
        let stored = [stored_prefix(&meta(), requests_len), data].concat();
        let json_end = 4 + serde_json::to_vec(&meta()).unwrap().len();
        for cut in [0, 3, json_end - 1, json_end] {
            assert!(split_snapshot(&stored[..cut]).is_err(), "cut at {cut}");
        }
    }
}
