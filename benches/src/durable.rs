//! Helpers for the durable-path benches (`core-bench fsync | pipeline-* | recovery`).
//!
//! - the raw disk baseline: small appends each followed by `fdatasync`, the same file
//!   pattern as the WAL (append mode, growing file), and large synced appends for MB/s;
//! - pipelines of the real [`Engine`] started from a [`crate::World`]'s snapshot, with a
//!   clock that advances 1 ms per stamped command, as the standard mix does.
//!
//! Data directories go under `$CORE_BENCH_DIR` if set, else the system temp dir; the
//! fsync baseline and the pipeline use the same root, so they measure the same disk.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::command::Command;
use engine::Engine;
use hdrhistogram::Histogram;
use wal::{Config, Handle, Pipeline, PipelineError, SnapshotStore};

use crate::{mix, Cursor};

/// A latency histogram in nanoseconds, 1 ns to 1 h, 3 significant digits.
pub fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds")
}

/// Nanoseconds as milliseconds, for printing.
pub fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Where bench data directories are created.
pub fn bench_root() -> PathBuf {
    std::env::var_os("CORE_BENCH_DIR").map_or_else(std::env::temp_dir, PathBuf::from)
}

/// A fresh directory under [`bench_root`], removed on drop.
pub fn bench_dir(label: &str) -> io::Result<tempfile::TempDir> {
    let root = bench_root();
    std::fs::create_dir_all(&root)?;
    tempfile::Builder::new().prefix(&format!("core-bench-{label}-")).tempdir_in(root)
}

/// Small appends, each made durable before the next.
#[derive(Debug)]
pub struct SmallSyncs {
    /// Latency of write + `fdatasync`, in ns.
    pub latency: Histogram<u64>,
    /// Wall time of the whole loop.
    pub elapsed: Duration,
    /// Appends made.
    pub count: u64,
}

impl SmallSyncs {
    /// Syncs per second over the whole loop.
    pub fn per_sec(&self) -> f64 {
        self.count as f64 / self.elapsed.as_secs_f64()
    }
}

/// Appends `count` records of `record_bytes` to a new file in `dir` opened in append mode
/// (the WAL's pattern: the file grows, so each sync also commits the new size), with one
/// `fdatasync` after each.
pub fn fsync_appends(dir: &Path, count: u64, record_bytes: usize) -> io::Result<SmallSyncs> {
    let path = dir.join("fsync-appends.dat");
    let file = OpenOptions::new().append(true).create_new(true).open(&path)?;
    File::open(dir)?.sync_all()?;
    let record = vec![0xa5u8; record_bytes];
    let syncs = timed_syncs(&file, count, |f, _| (&*f).write_all(&record))?;
    drop(file);
    std::fs::remove_file(&path)?;
    Ok(syncs)
}

/// Runs `count` rounds of `write` followed by `fdatasync`, timing each round.
fn timed_syncs(
    file: &File,
    count: u64,
    mut write: impl FnMut(&File, u64) -> io::Result<()>,
) -> io::Result<SmallSyncs> {
    let mut latency = latency_histogram();
    let start = Instant::now();
    for i in 0..count {
        let t = Instant::now();
        write(file, i)?;
        file.sync_data()?;
        latency.saturating_record(t.elapsed().as_nanos() as u64);
    }
    Ok(SmallSyncs { latency, elapsed: start.elapsed(), count })
}

/// Like [`fsync_appends`] but overwriting a file that was written and synced beforehand,
/// so `fdatasync` has no size or allocation to commit: what a preallocated segment would give.
pub fn fsync_overwrites(dir: &Path, count: u64, record_bytes: usize) -> io::Result<SmallSyncs> {
    let path = dir.join("fsync-overwrites.dat");
    let mut file = OpenOptions::new().write(true).create_new(true).open(&path)?;
    let total = count as usize * record_bytes;
    let zeros = vec![0u8; 1 << 20];
    let mut written = 0;
    while written < total {
        let n = zeros.len().min(total - written);
        file.write_all(&zeros[..n])?;
        written += n;
    }
    file.sync_all()?;
    File::open(dir)?.sync_all()?;
    let record = vec![0xa5u8; record_bytes];
    let syncs = timed_syncs(&file, count, |f, i| f.write_all_at(&record, i * record_bytes as u64))?;
    drop(file);
    std::fs::remove_file(&path)?;
    Ok(syncs)
}

/// Appends `chunks` chunks of `chunk_bytes`, each followed by `fdatasync`; returns MB/s
/// (10^6 bytes per second).
pub fn fsync_throughput(dir: &Path, chunks: u64, chunk_bytes: usize) -> io::Result<f64> {
    let path = dir.join("fsync-throughput.dat");
    let mut file = OpenOptions::new().append(true).create_new(true).open(&path)?;
    let chunk: Vec<u8> = (0..chunk_bytes).map(|i| (i * 31 % 251) as u8).collect();
    let start = Instant::now();
    for _ in 0..chunks {
        file.write_all(&chunk)?;
        file.sync_data()?;
    }
    let secs = start.elapsed().as_secs_f64();
    drop(file);
    std::fs::remove_file(&path)?;
    Ok((chunks * chunk_bytes as u64) as f64 / secs / 1e6)
}

/// A pipeline clock that starts just after `after_ms` and advances 1 ms per stamped
/// command (the journal calls it once per command), as the standard mix does.
pub fn mix_clock(after_ms: u64) -> Arc<dyn Fn() -> u64 + Send + Sync> {
    let now = Arc::new(AtomicU64::new(after_ms));
    Arc::new(move || now.fetch_add(1, Ordering::Relaxed) + 1)
}

/// Stores `snapshot` (an engine at `index`) as the only snapshot of a new data dir.
///
/// A pipeline started there restores it and restarts its empty log at `index + 1`. (Handing
/// a populated engine to `Pipeline::start` as `init` does not work: `init` is used only when
/// no snapshot exists, and must return a machine at index 0.)
pub fn seed_snapshot(
    data_dir: &Path,
    index: u64,
    snapshot: &[u8],
) -> Result<(), wal::SnapshotError> {
    let store = SnapshotStore::open(&data_dir.join("snapshots"))?;
    store.save(index, 1, snapshot)
}

/// A pipeline config for `data_dir` with the mix clock after `after_ms`.
pub fn config(data_dir: &Path, after_ms: u64, sync: bool) -> Config {
    let mut config = Config::new(data_dir);
    config.clock = mix_clock(after_ms);
    config.sync = sync;
    // `CORE_BENCH_SNAPSHOT_EVERY=1000000`: snapshots every so many commands, as the server
    // takes them (by default the benches take none, so their figures leave snapshots out).
    if let Some(every) = std::env::var("CORE_BENCH_SNAPSHOT_EVERY")
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
    {
        config.snapshot_every_commands = every;
    }
    config
}

/// Starts an engine pipeline on a data dir that must hold a snapshot.
pub fn start(config: Config) -> Result<(Pipeline<Engine>, Handle<Engine>), PipelineError> {
    Pipeline::start(config, || -> Engine { panic!("the bench data dir has no snapshot") })
}

/// The standard mix as bare commands (the pipeline stamps them), split round-robin into
/// `parts` streams.
pub fn mix_commands(at: Cursor, commands: usize, seed: u64, parts: usize) -> Vec<Vec<Command>> {
    let mut out: Vec<Vec<Command>> =
        (0..parts).map(|_| Vec::with_capacity(commands / parts + 1)).collect();
    let (stream, _) = mix(at, commands, seed);
    for (n, (_, command)) in stream.into_iter().enumerate() {
        out[n % parts].push(command);
    }
    out
}

/// What a closed-loop producer saw.
#[derive(Debug, Default, Clone, Copy)]
pub struct Produced {
    /// Commands the engine accepted.
    pub accepted: u64,
    /// Commands the engine refused (applied as refusals).
    pub refused: u64,
    /// Commands the queue refused as `Overloaded` (not journaled).
    pub shed: u64,
}

/// How a closed-loop producer waits when its window of tickets is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitPolicy {
    /// Wait on the oldest ticket only (one possible park per reply).
    Oldest,
    /// Wait on the newest of the older half first, then collect the rest of that half,
    /// which are ready by then (one producer's replies arrive in log order): at most one
    /// park per half window. Set `CORE_BENCH_WAIT=half` to use it.
    Half,
}

impl WaitPolicy {
    /// From `$CORE_BENCH_WAIT` (`half`), else [`WaitPolicy::Oldest`].
    pub fn from_env() -> WaitPolicy {
        match std::env::var("CORE_BENCH_WAIT").as_deref() {
            Ok("half") => WaitPolicy::Half,
            _ => WaitPolicy::Oldest,
        }
    }
}

/// Submits `commands` as fast as possible, keeping up to `in_flight` tickets outstanding
/// and waiting on the oldest when full (see [`WaitPolicy`] for `$CORE_BENCH_WAIT`).
pub fn produce(handle: &Handle<Engine>, commands: Vec<Command>, in_flight: usize) -> Produced {
    let policy = WaitPolicy::from_env();
    let mut produced = Produced::default();
    let mut tickets = VecDeque::with_capacity(in_flight);
    let settle = |ticket: wal::Ticket<Engine>, produced: &mut Produced| match ticket
        .wait()
        .expect("pipeline failed")
    {
        Ok(_) => produced.accepted += 1,
        Err(_) => produced.refused += 1,
    };
    for command in commands {
        if tickets.len() >= in_flight {
            if policy == WaitPolicy::Half && in_flight >= 2 {
                let mut older: Vec<_> = tickets.drain(..in_flight / 2).collect();
                let newest = older.pop().expect("half of a full window");
                settle(newest, &mut produced);
                for ticket in older {
                    settle(ticket, &mut produced);
                }
            } else {
                settle(tickets.pop_front().expect("full"), &mut produced);
            }
        }
        match handle.try_submit(command) {
            Ok(ticket) => tickets.push_back(ticket),
            Err(PipelineError::Overloaded) => produced.shed += 1,
            Err(error) => panic!("submit failed: {error}"),
        }
    }
    for ticket in tickets {
        settle(ticket, &mut produced);
    }
    produced
}

/// Total size of the regular files directly in `dir` and how many there are.
pub fn dir_size(dir: &Path) -> io::Result<(u64, usize)> {
    let mut total = (0, 0);
    for entry in std::fs::read_dir(dir)? {
        let meta = entry?.metadata()?;
        if meta.is_file() {
            total.0 += meta.len();
            total.1 += 1;
        }
    }
    Ok(total)
}

/// Three cluster members in this process, each with its own engine, Raft log (our WAL) and
/// snapshots under one data dir, over loopback TCP, all starting from the same engine state.
pub struct LocalCluster {
    /// The members, by node id; dropped (stopped) with the cluster.
    nodes: Vec<wal::pipeline::cluster::ClusterMember<Engine>>,
    /// The leader's handle: commands go through it.
    pub leader: Handle<Engine>,
    /// Raft's tasks run here (dropped after the members).
    _runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for LocalCluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalCluster").field("members", &self.nodes.len()).finish()
    }
}

impl LocalCluster {
    /// Starts three members from `snapshot` (an engine's bytes) with the mix clock after
    /// `after_ms`, and waits until one leads and has committed its term.
    pub fn start(snapshot: &[u8], after_ms: u64) -> Result<LocalCluster, PipelineError> {
        use wal::pipeline::cluster::{ClusterConfig, ClusterMember};
        let dir = bench_dir("cluster").map_err(|e| PipelineError::Spawn(Arc::new(e)))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| PipelineError::Spawn(Arc::new(e)))?;
        let addrs: Vec<(u64, std::net::SocketAddr)> = (1..=3)
            .map(|id| {
                let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
                (id, listener.local_addr().expect("bound"))
            })
            .collect();
        let members: std::collections::BTreeMap<u64, String> =
            addrs.iter().map(|(id, addr)| (*id, addr.to_string())).collect();
        let secret = wal::raft::network::ClusterSecret::new("core-bench");
        let clock = mix_clock(after_ms);
        let mut nodes = Vec::new();
        let mut handles = Vec::new();
        for (id, addr) in &addrs {
            let mut config = ClusterConfig::new(
                *id,
                *addr,
                members.clone(),
                secret.clone(),
                dir.path().join(format!("node{id}")),
            );
            // No snapshot during a run, as the single node's bench configuration takes none:
            // both measure the pipeline. (A snapshot stalls each engine while it serialises
            // its state; BENCHMARKS.md measures that apart.)
            config.snapshot_every_entries = 100_000_000;
            config.catch_up_at_start = Duration::ZERO; // started one after another here
            config.clock = Arc::clone(&clock);
            let restore = || Engine::restore(snapshot).expect("the seeded snapshot restores");
            let (node, handle, _) = ClusterMember::start(config, runtime.handle(), restore, None)?;
            nodes.push(node);
            handles.push(handle);
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        let leader = loop {
            let leading = nodes.iter().position(|n| {
                let s = n.status();
                s.role == "leader" && s.committed.is_some() && s.committed == s.last_log_index
            });
            if let Some(at) = leading {
                break handles.swap_remove(at);
            }
            assert!(Instant::now() < deadline, "no leader within 30 s");
            std::thread::sleep(Duration::from_millis(10));
        };
        Ok(LocalCluster { nodes, leader, _runtime: runtime, _dir: dir })
    }

    /// Stops every member.
    pub fn shutdown(self) -> Result<(), PipelineError> {
        for node in self.nodes {
            node.shutdown()?;
        }
        Ok(())
    }
}
