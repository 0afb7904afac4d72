//! The durable core as one running unit ([`DurableCore`]): the engine behind its journal
//! (one process's pipeline, or a [`ClusterMember`] of a Raft group), the read model that
//! follows it, the tick archive and the settlement timer. [`crate::server`] runs it with market
//! data and the HTTP API around it.
//!
//! Start-up is the same path as restart: recover (snapshot + log), then serve. On the very
//! first start the core creates the first admin (from configuration, or with a random password
//! printed once) through the log like any other command.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use engine::command::Command;
use engine::{Engine, EngineError, Reply};
use market_feed::archive::{ArchiveError, TickArchive};
use wal::pipeline::cluster::{ClusterConfig, ClusterMember, ClusterStatus, StatusSource};
use wal::raft::network::ClusterSecret;
use wal::{Handle, Pipeline, PipelineError};

use crate::password;
use crate::readmodel::{spawn_projector, ReadModel, ReadModelError, FOLLOWER_CAPACITY_BATCHES};

/// How often the settlement timer fires: settles contracts whose market went quiet
/// (expiry + 2 s grace) and voids contracts that got no entry tick.
const TIMER_PERIOD: Duration = Duration::from_millis(500);
/// Take a snapshot after this many commands, so restarts replay a bounded log.
const SNAPSHOT_EVERY_COMMANDS: u64 = 1_000_000;

/// The sequencer's clock (ms since the epoch): the system clock, or a test's simulated one.
#[derive(Clone)]
pub struct Clock(pub Arc<dyn Fn() -> u64 + Send + Sync>);

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Clock")
    }
}

/// What the node needs to start.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    /// Where the log and snapshots live.
    pub data_dir: PathBuf,
    /// First admin's name, used only when no admin exists yet.
    pub admin_username: String,
    /// First admin's password; none = generate one and print it once.
    pub admin_password: Option<String>,
    /// The sequencer's clock; `None` is the system clock (tests run simulated days).
    pub clock: Option<Clock>,
    /// fdatasync every batch of the log. Off only for tests on throwaway data.
    pub durable: bool,
    /// Days of archived ticks kept (0 keeps them all).
    pub tick_archive_days: u64,
    /// Cluster mode: this node's place in a Raft group; `None` runs one node alone.
    pub cluster: Option<ClusterOptions>,
    /// Seed of simulated products' chart history, journaled at first start (`--sim-seed`, else
    /// drawn from the OS).
    pub chart_history_seed: u64,
}

/// A node's place in a cluster (`--cluster`).
#[derive(Debug, Clone)]
pub struct ClusterOptions {
    /// This node's id.
    pub node_id: u64,
    /// Where it listens for its peers.
    pub listen: std::net::SocketAddr,
    /// Every member, this node too: id → peer address.
    pub members: std::collections::BTreeMap<u64, String>,
    /// The secret the members share.
    pub secret: String,
    /// Each member's public address (`http://host:port`), where a follower forwards writes.
    pub peer_apis: std::collections::BTreeMap<u64, String>,
    /// Raft entries between this member's snapshots; `None` keeps the default (20 000).
    pub snapshot_every_entries: Option<u64>,
}

impl CoreConfig {
    /// Defaults: admin `admin` with a generated password, the system clock, a durable log.
    pub fn new(data_dir: impl Into<PathBuf>) -> CoreConfig {
        CoreConfig {
            data_dir: data_dir.into(),
            admin_username: "admin".into(),
            admin_password: None,
            clock: None,
            durable: true,
            tick_archive_days: 0,
            cluster: None,
            chart_history_seed: rand::random(),
        }
    }
}

/// Why the node could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoreError {
    /// Recovery or the pipeline failed.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// The read model could not be opened or caught up.
    #[error(transparent)]
    ReadModel(#[from] ReadModelError),
    /// The tick archive could not be opened or caught up.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// A thread could not be started.
    #[error("thread: {0}")]
    Spawn(#[from] std::io::Error),
    /// The engine refused the first admin (for example an invalid name).
    #[error("the first admin was refused: {0}")]
    Bootstrap(engine::EngineError),
    /// Cluster mode needs the async runtime to run its Raft node on.
    #[error("cluster mode needs a runtime")]
    NoRuntime,
}

/// Starts this node as a member of its Raft group.
#[allow(clippy::type_complexity)]
fn start_member(
    config: &CoreConfig,
    cluster: &ClusterOptions,
    runtime: &tokio::runtime::Handle,
    follower: wal::Follower<engine::Events>,
) -> Result<
    (
        ClusterMember<Engine>,
        Handle<Engine>,
        crossbeam_channel::Receiver<Arc<wal::EventBatch<engine::Events>>>,
    ),
    CoreError,
> {
    let mut member = ClusterConfig::new(
        cluster.node_id,
        cluster.listen,
        cluster.members.clone(),
        ClusterSecret::new(&cluster.secret),
        &config.data_dir,
    );
    if let Some(Clock(clock)) = &config.clock {
        member.clock = Arc::clone(clock);
    }
    if let Some(every) = cluster.snapshot_every_entries {
        member.snapshot_every_entries = every.max(1);
    }
    let (node, handle, live) = ClusterMember::start(member, runtime, Engine::new, Some(follower))?;
    Ok((node, handle, live.expect("a follower was given")))
}

/// What happened at start-up, for the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Startup {
    /// The snapshot restored, if any.
    pub snapshot_index: Option<u64>,
    /// Log records replayed after it.
    pub records_replayed: u64,
    /// Torn-tail bytes cut from the log.
    pub cut_tail_bytes: u64,
    /// How long loading the snapshot, restoring it and replaying the log took.
    pub timings: wal::RecoveryTimings,
    /// The first admin's generated password, set only on the start that created it.
    pub generated_admin_password: Option<String>,
}

/// The durable core: one node's pipeline, or a member of a Raft group.
#[derive(Debug)]
enum Core {
    /// A single node: journal, engine, snapshots.
    Single(Pipeline<Engine>),
    /// A cluster member.
    Cluster(ClusterMember<Engine>),
}

/// The durable core, running.
#[derive(Debug)]
pub struct DurableCore {
    /// The core; `None` once shut down.
    core: Option<Core>,
    /// Cheap to clone: how everything else talks to the engine.
    handle: Handle<Engine>,
    /// History projected from events.
    readmodel: ReadModel,
    /// Every sequenced tick, beyond the log's truncation.
    archive: Arc<TickArchive>,
    /// The projector thread; ends after the pipeline.
    projector: Option<JoinHandle<()>>,
    /// Tells the timer thread to stop.
    stop: Arc<AtomicBool>,
    /// The settlement timer.
    timer: Option<JoinHandle<()>>,
}

impl DurableCore {
    /// Recovers the state from `data_dir` and starts serving, as one node alone.
    pub fn start(config: CoreConfig) -> Result<(DurableCore, Startup), CoreError> {
        Self::start_on(config, None)
    }

    /// [`DurableCore::start`]; cluster mode (`config.cluster`) runs its Raft node on `runtime`.
    pub fn start_on(
        config: CoreConfig,
        runtime: Option<&tokio::runtime::Handle>,
    ) -> Result<(DurableCore, Startup), CoreError> {
        let readmodel = ReadModel::open(&config.data_dir.join("readmodel"))?;
        let archive = Arc::new(TickArchive::open(&config.data_dir.join("ticks"))?);
        // One follower feeds both: the log is replayed from the lower of their positions; a
        // replayed batch ends at the read model's, which skips whole batches up to it, and
        // the archive skips ticks it holds already.
        let (projected, archived) = (readmodel.applied_index(), archive.covered_index());
        let (sink_model, sink_archive) = (readmodel.clone(), Arc::clone(&archive));
        let follower = wal::Follower {
            applied_index: projected.min(archived),
            sink: Box::new(move |batch| {
                sink_archive.record(&batch).map_err(|e| e.to_string())?;
                sink_model.apply(&batch).map_err(|e| e.to_string())
            }),
            capacity: FOLLOWER_CAPACITY_BATCHES,
            boundary: (archived < projected).then_some(projected),
        };
        let (core, handle, live) = match (&config.cluster, runtime) {
            (Some(cluster), Some(runtime)) => {
                let (node, handle, live) = start_member(&config, cluster, runtime, follower)?;
                (Core::Cluster(node), handle, live)
            }
            (Some(_), None) => return Err(CoreError::NoRuntime),
            (None, _) => {
                let mut wal_config = wal::Config::new(&config.data_dir);
                wal_config.snapshot_every_commands = SNAPSHOT_EVERY_COMMANDS;
                wal_config.sync = config.durable;
                if let Some(Clock(clock)) = &config.clock {
                    wal_config.clock = Arc::clone(clock);
                }
                let (pipeline, handle, live) =
                    Pipeline::start_following(wal_config, Engine::new, follower)?;
                (Core::Single(pipeline), handle, live)
            }
        };
        readmodel.flush()?;
        let covered = archive.flush()?;
        handle.set_followed(readmodel.applied_index().min(covered));
        let projector = Some(spawn_projector(
            readmodel.clone(),
            Arc::clone(&archive),
            config.tick_archive_days,
            handle.clone(),
            live,
        )?);
        let recovery = handle.recovery().clone();
        // A cluster member creates the first admin once it leads (see `leader_duties`).
        let generated_admin_password = match core {
            Core::Single(_) => bootstrap_admin(&handle, &config)?,
            Core::Cluster(_) => None,
        };
        let stop = Arc::new(AtomicBool::new(false));
        let timer = Some(spawn_timer(handle.clone(), stop.clone()));
        let startup = Startup {
            snapshot_index: recovery.snapshot_index,
            records_replayed: recovery.records_replayed,
            cut_tail_bytes: recovery.wal.cut_tail_bytes,
            timings: recovery.timings,
            generated_admin_password,
        };
        let node =
            DurableCore { core: Some(core), handle, readmodel, archive, projector, stop, timer };
        Ok((node, startup))
    }

    /// History: bills, contract records, orders, sign-ins, notices, audit log.
    pub fn readmodel(&self) -> &ReadModel {
        &self.readmodel
    }

    /// Every sequenced tick (for lookups and settlement proofs).
    pub fn archive(&self) -> &Arc<TickArchive> {
        &self.archive
    }

    /// Submit commands and run queries through this.
    pub fn handle(&self) -> &Handle<Engine> {
        &self.handle
    }

    /// In cluster mode, where this node stands; `None` for a single node.
    pub fn cluster_status(&self) -> Option<ClusterStatus> {
        self.cluster_status_source().map(|source| source.status())
    }

    /// In cluster mode, a cloneable view of [`DurableCore::cluster_status`].
    pub fn cluster_status_source(&self) -> Option<StatusSource> {
        match &self.core {
            Some(Core::Cluster(node)) => Some(node.status_source()),
            _ => None,
        }
    }

    /// In cluster mode, the work only the leader does, as it becomes the leader: the first
    /// admin (if none exists) and whatever `duties` the server adds (the catalogue). Runs on a
    /// thread of its own until the node stops. A single node does these at start.
    pub fn spawn_leader_duties(
        &self,
        config: &CoreConfig,
        duties: impl Fn(&Handle<Engine>) + Send + 'static,
    ) -> Option<JoinHandle<()>> {
        let Some(Core::Cluster(_)) = &self.core else { return None };
        let (handle, stop, config) = (self.handle.clone(), Arc::clone(&self.stop), config.clone());
        let thread = std::thread::Builder::new().name("leader-duties".into()).spawn(move || {
            let mut leading = false;
            while !stop.load(Ordering::Acquire) {
                std::thread::park_timeout(TIMER_PERIOD);
                let now = handle.is_leader();
                if now && !leading {
                    match bootstrap_admin(&handle, &config) {
                        Ok(Some(password)) => tracing::warn!(
                            username = %config.admin_username,
                            %password,
                            "first admin created on this leader: keep this password, it is not shown again"
                        ),
                        Ok(None) => {}
                        Err(error) => tracing::warn!(%error, "the first admin could not be created yet"),
                    }
                    duties(&handle);
                }
                leading = now;
            }
        });
        thread.ok()
    }

    /// Stops the timer, drains the queue, syncs the log and joins every thread.
    pub fn shutdown(mut self) -> Result<(), PipelineError> {
        self.stop_all()
    }

    fn stop_all(&mut self) -> Result<(), PipelineError> {
        self.stop.store(true, Ordering::Release);
        if let Some(timer) = self.timer.take() {
            let _ = timer.join();
        }
        let result = match self.core.take() {
            Some(Core::Single(pipeline)) => pipeline.shutdown(),
            Some(Core::Cluster(node)) => node.shutdown(),
            None => Ok(()),
        };
        if let Some(projector) = self.projector.take() {
            let _ = projector.join();
        }
        result
    }
}

impl Drop for DurableCore {
    fn drop(&mut self) {
        let _ = self.stop_all();
    }
}

/// Gives the install what it draws once, if it lacks it (a new install, or one from before
/// they existed): its invite-code key, from the OS, so that another install's users cannot
/// tell this one's codes; and its chart history's seed and end, so that every member writes
/// the same history.
fn ensure_install(handle: &Handle<Engine>, config: &CoreConfig) -> Result<(), CoreError> {
    let (has_key, has_history) =
        handle.query(|e: &Engine| (e.has_invite_key(), e.chart_history().is_some()))?;
    let mut commands = Vec::new();
    if !has_key {
        let key = loop {
            let key: u64 = rand::random();
            if key != 0 {
                break key;
            }
        };
        commands.push(Command::SetInviteKey { key });
    }
    if !has_history {
        let end_ms = wal::pipeline::system_time_ms();
        commands.push(Command::SetChartHistory { seed: config.chart_history_seed, end_ms });
    }
    for command in commands {
        match handle.submit_blocking(command)? {
            // Another member set it first: that one stands.
            Ok(_) | Err(EngineError::AlreadyInstalled) => {}
            Err(e) => return Err(CoreError::Bootstrap(e)),
        }
    }
    Ok(())
}

/// Creates the first admin if there is none, and the invite-code key. Returns the generated
/// password, if one was made.
fn bootstrap_admin(
    handle: &Handle<Engine>,
    config: &CoreConfig,
) -> Result<Option<String>, CoreError> {
    ensure_install(handle, config)?;
    if handle.query(|e: &Engine| e.admin_count())? > 0 {
        return Ok(None);
    }
    let (password, generated) = match &config.admin_password {
        Some(p) => (p.clone(), None),
        None => {
            let p = password::generate();
            (p.clone(), Some(p))
        }
    };
    let command = Command::BootstrapAdmin {
        username: config.admin_username.clone(),
        password_hash: password::hash(&password),
    };
    match handle.submit_blocking(command)? {
        Ok(Reply::AdminCreated { .. }) => Ok(generated),
        Ok(other) => unreachable!("bootstrap answered {other:?}"),
        Err(e) => Err(CoreError::Bootstrap(e)),
    }
}

/// Fires `Command::Timer` while contracts are open or a tournament's end has passed. The timer
/// is a command like any other: journaled, so replay settles and finishes exactly as the live
/// run did.
fn spawn_timer(handle: Handle<Engine>, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name("settlement-timer".into())
        .spawn(move || {
            while !stop.load(Ordering::Acquire) {
                std::thread::park_timeout(TIMER_PERIOD);
                if !handle.is_leader() {
                    continue; // the leader's timer settles for the whole cluster
                }
                let now = wal::pipeline::system_time_ms();
                let due = handle
                    .query(move |e: &Engine| e.open_contract_count() > 0 || e.tournament_due(now));
                match due {
                    Ok(false) => {}
                    Ok(true) => {
                        if let Err(e) = handle.submit_blocking(Command::Timer) {
                            tracing::warn!(error = %e, "settlement timer could not submit");
                        }
                    }
                    Err(PipelineError::ShutDown) => break,
                    Err(e) => tracing::warn!(error = %e, "settlement timer query failed"),
                }
            }
        })
        .expect("spawning the timer thread")
}

#[cfg(test)]
mod tests {
    use engine::types::{AdminId, UserId};

    use super::*;

    fn config(dir: &std::path::Path, password: Option<&str>) -> CoreConfig {
        CoreConfig { admin_password: password.map(Into::into), ..CoreConfig::new(dir) }
    }

    #[test]
    fn first_start_creates_one_admin_and_restart_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let (node, startup) = DurableCore::start(config(dir.path(), None)).unwrap();
        let generated = startup.generated_admin_password.expect("a generated password");
        let hash = node
            .handle()
            .query(|e: &Engine| e.admin_by_username("admin").unwrap().password_hash.clone())
            .unwrap();
        assert!(password::verify(&generated, &hash));
        node.shutdown().unwrap();

        let (node, startup) = DurableCore::start(config(dir.path(), Some("ignored-now"))).unwrap();
        assert_eq!(startup.generated_admin_password, None);
        // The install's invite key and chart history, and the admin.
        assert_eq!(startup.records_replayed, 3);
        assert_eq!(node.handle().query(|e: &Engine| e.admin_count()).unwrap(), 1);
        node.shutdown().unwrap();
    }

    #[test]
    fn two_installs_give_their_first_user_different_invite_codes() {
        let code_of_uid_1 = || {
            let dir = tempfile::tempdir().unwrap();
            let (node, _) = DurableCore::start(config(dir.path(), Some("s3cret-pass"))).unwrap();
            let register = Command::Register(Box::new(engine::Register {
                username: "first".into(),
                email: Some("first@example.com".into()),
                password_hash: Some("hash".into()),
                wallet: None,
                invite_code: None,
                email_verified: false,
            }));
            let reply = node.handle().submit_blocking(register).unwrap();
            node.shutdown().unwrap();
            match reply {
                Ok(Reply::Registered { user: UserId(1), invite_code }) => invite_code,
                other => panic!("{other:?}"),
            }
        };
        let (a, b) = (code_of_uid_1(), code_of_uid_1());
        assert_ne!(a, b, "the code of UID 1 is the install's own");
        assert_ne!(a, engine::invite_code_for(UserId(1)));
    }

    #[test]
    fn a_configured_admin_password_is_used() {
        let dir = tempfile::tempdir().unwrap();
        let (node, startup) = DurableCore::start(config(dir.path(), Some("s3cret-pass"))).unwrap();
        assert_eq!(startup.generated_admin_password, None);
        let hash = node
            .handle()
            .query(|e: &Engine| e.admin(AdminId(1)).unwrap().password_hash.clone())
            .unwrap();
        assert!(password::verify("s3cret-pass", &hash));
        node.shutdown().unwrap();
    }
}
