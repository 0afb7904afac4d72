//! openraft's log storage over our segments ([`Wal`]) and a small state file.
//!
//! - **Append**: every entry of one `append` call is framed into one batch, written with one
//!   write and made durable with one `fdatasync` (group commit), and only then is openraft
//!   told (the callback): an entry openraft counts as stored is on disk.
//! - **Vote and purge point**: in `raft-state.json`, written to a temporary file, synced,
//!   renamed over the old one and the directory synced, before the call returns. Calls are
//!   serialised by one lock, so a vote is durable in order with the appends around it.
//! - **Truncate after** an index (a follower drops a conflicting tail): [`Wal::truncate_after`],
//!   whole segments newest first, then the kept segment's records zeroed from its end.
//! - **Purge** up to an index (behind a snapshot): the purge point is saved first, then whole
//!   segments below it are deleted; records at or below it that remain in a kept segment are
//!   never read again.
//! - **Reads** (replication to followers) read one record per entry by its offset, checked by
//!   its CRC like every record.
//!
//! - **Sync off the Raft task**: an append writes its batch (readers see it at once) and
//!   hands the sync to the log's sync thread, which completes openraft's callback once the
//!   entries are durable; so the leader replicates while its own sync runs. The thread takes
//!   every sync waiting and does one (one file: the log syncs a segment itself before leaving
//!   it), then completes their callbacks in order. A vote, a truncation and a purge first wait
//!   for every sync handed over, so each is durable in order with the appends before it. A
//!   storage without sync handles (the fault-injecting one) syncs inside the append.
//!
//! The other I/O is synchronous inside the async methods (a vote, a truncation, a purge, a
//! read): openraft serialises log I/O anyway.

use std::fmt::Debug;
use std::io;
use std::ops::{Bound, RangeBounds};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use openraft::storage::{IOFlushed, LogState, RaftLogStorage};
use openraft::{OptionalSend, RaftLogReader};
use serde::{Deserialize, Serialize};

use super::{entry, Entry, LogId, TypeConfig, Vote};
use crate::log::{Batch, Wal, WalError, WalOptions};
use crate::storage::{Storage, SyncHandle};

/// The state file beside the segments.
const STATE_FILE: &str = "raft-state.json";
/// Entries one limited read returns at most (replication to a follower). A full read
/// (`try_get_log_entries`, the apply path) returns the whole range: openraft requires it, and
/// applying fewer entries than asked would skip committed commands.
const READ_ENTRIES_MAX: u64 = 4_096;

/// Syncs handed to the sync thread and not yet done, at most (an append waits for room).
const SYNCS_WAITING_MAX: usize = 1_024;

/// What the state file holds.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct State {
    /// The last vote cast or seen.
    vote: Option<Vote>,
    /// Every entry up to this log id is gone (behind a snapshot).
    purged: Option<LogId>,
}

/// The log and the state file, behind one lock: the writer and every reader share it.
struct Inner {
    /// The segments; one record per entry, offsets kept.
    wal: Wal,
    /// Vote and purge point, as last saved.
    state: State,
    /// The state file's path.
    state_path: PathBuf,
    /// Framing buffer, reused.
    batch: Batch,
}

/// The newest log id a purge may reach, asked at each purge; `None` purges nothing.
pub type PurgeLimit = Arc<dyn Fn() -> Option<LogId> + Send + Sync>;

/// openraft's log storage (and, cloned, its log reader) over our segments.
#[derive(Clone)]
pub struct LogStore {
    inner: Arc<Mutex<Inner>>,
    syncs: Arc<Syncs>,
    /// How far purges may reach (none: as far as openraft asks).
    purge_limit: Option<PurgeLimit>,
}

/// One append's sync, for the sync thread.
struct SyncJob {
    sync: SyncHandle,
    callback: IOFlushed<TypeConfig>,
}

/// The appends' syncs: handed to the sync thread, and how many it has done.
struct Syncs {
    to_thread: SyncSender<SyncJob>,
    /// (handed over, done or failed).
    progress: Mutex<(u64, u64)>,
    /// Signalled when the thread has done a group.
    done: Condvar,
}

impl Syncs {
    /// Starts the sync thread; it ends when the last `LogStore` clone is dropped.
    fn start() -> io::Result<Arc<Syncs>> {
        let (to_thread, jobs) = sync_channel(SYNCS_WAITING_MAX);
        let syncs =
            Arc::new(Syncs { to_thread, progress: Mutex::new((0, 0)), done: Condvar::new() });
        let weak = Arc::downgrade(&syncs);
        std::thread::Builder::new()
            .name("raft-log-sync".to_owned())
            .spawn(move || sync_thread(&jobs, &weak))?;
        Ok(syncs)
    }

    fn progress(&self) -> MutexGuard<'_, (u64, u64)> {
        self.progress.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits until every sync handed over is done.
    fn wait_all(&self) {
        let mut progress = self.progress();
        while progress.1 < progress.0 {
            progress = self.done.wait(progress).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

/// Takes every job waiting, runs the newest one's sync (it covers the others: one file),
/// completes every callback in order, and again until the channel closes.
fn sync_thread(jobs: &Receiver<SyncJob>, syncs: &std::sync::Weak<Syncs>) {
    while let Ok(first) = jobs.recv() {
        let mut newest = first.sync;
        let mut callbacks = vec![first.callback];
        for job in jobs.try_iter() {
            newest = job.sync;
            callbacks.push(job.callback);
        }
        let count = callbacks.len() as u64;
        let result = newest();
        for callback in callbacks {
            callback.io_completed(result.as_ref().map(|_| ()).map_err(copy_error));
        }
        if let Err(error) = &result {
            tracing::error!(%error, "the Raft log's sync failed");
        }
        let Some(syncs) = syncs.upgrade() else { return };
        syncs.progress().1 += count;
        syncs.done.notify_all();
    }
}

impl Debug for LogStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogStore").finish_non_exhaustive()
    }
}

fn to_io(error: WalError) -> io::Error {
    io::Error::other(error)
}

/// The same error again (`io::Error` is not `Clone`): one for openraft's callback, one returned.
fn copy_error(error: &io::Error) -> io::Error {
    io::Error::new(error.kind(), error.to_string())
}

impl LogStore {
    /// Opens (or creates) the log in `dir`, checking every record as the single-node log does.
    pub fn open(
        storage: Arc<dyn Storage>,
        dir: impl Into<PathBuf>,
        segment_size_max_bytes: u64,
    ) -> Result<LogStore, WalError> {
        let dir = dir.into();
        let options = WalOptions { segment_size_max_bytes, sync: true, track_offsets: true };
        let wal = Wal::open(storage, &dir, options)?;
        let state_path = dir.join(STATE_FILE);
        let state = read_state(&state_path).map_err(|source| WalError::Io {
            operation: "read raft state",
            path: state_path.clone(),
            source,
        })?;
        let inner = Inner { wal, state, state_path, batch: Batch::new() };
        let syncs = Syncs::start().map_err(|source| WalError::Io {
            operation: "start the sync thread",
            path: dir.clone(),
            source,
        })?;
        Ok(LogStore { inner: Arc::new(Mutex::new(inner)), syncs, purge_limit: None })
    }

    /// Purges stop at `limit`: the log keeps what a restart still needs to replay beyond it
    /// (a member's durable projections rebuild from the log after the snapshot they restart
    /// from). openraft may ask to purge further; the rest goes at a later purge. openraft
    /// allows a lazy purge: it only needs no hole, and reads no entry it asked to purge.
    pub fn with_purge_limit(mut self, limit: PurgeLimit) -> LogStore {
        self.purge_limit = Some(limit);
        self
    }

    /// Time of the last entry in the log (ms; 0 for an empty log): a new leader never stamps
    /// a batch before it.
    pub fn last_time_ms(&self) -> u64 {
        self.lock().wal.last_meta().map_or(0, |meta| meta.time_ms)
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn read_state(path: &Path) -> io::Result<State> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(io::Error::other),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(State::default()),
        Err(error) => Err(error),
    }
}

impl Inner {
    /// Writes the state file durably: a temporary file synced, renamed, the directory synced.
    fn save_state(&mut self, state: State) -> io::Result<()> {
        let temp = self.state_path.with_extension("json.tmp");
        let bytes = serde_json::to_vec(&state).map_err(io::Error::other)?;
        {
            use std::io::Write;
            let mut file = std::fs::File::create(&temp)?;
            file.write_all(&bytes)?;
            file.sync_data()?;
        }
        std::fs::rename(&temp, &self.state_path)?;
        if let Some(dir) = self.state_path.parent() {
            std::fs::File::open(dir)?.sync_all()?;
        }
        self.state = state;
        Ok(())
    }

    /// Record index of the first entry that may be read: the one after the purge point.
    fn first_readable(&self) -> u64 {
        let after_purge = self.state.purged.as_ref().map_or(1, |purged| purged.index + 2);
        after_purge.max(self.wal.first_index())
    }

    /// The log id of the last entry the log holds, if any after the purge point.
    fn last_log_id(&self) -> Option<LogId> {
        let last = self.wal.last_meta()?;
        (last.index >= self.first_readable()).then(|| super::log_id(last.term, last.index - 1))
    }

    /// Entries with Raft indexes in `range`, in order, stopping at the first missing one.
    /// The entries of `range` the log holds, at most `max`.
    fn entries(&self, range: impl RangeBounds<u64>, max: u64) -> io::Result<Vec<Entry>> {
        let start = match range.start_bound() {
            Bound::Included(&i) => i,
            Bound::Excluded(&i) => i + 1,
            Bound::Unbounded => 0,
        };
        let end = match range.end_bound() {
            Bound::Included(&i) => i.saturating_add(1),
            Bound::Excluded(&i) => i,
            Bound::Unbounded => u64::MAX,
        };
        // Record indexes are Raft indexes + 1: [first, end) in records.
        let first = start.saturating_add(1).max(self.first_readable());
        let end = end.saturating_add(1).min(self.wal.last_index() + 1);
        let end = end.min(first.saturating_add(max));
        let mut entries = Vec::new();
        for index in first..end {
            let Some((meta, payload)) = self.wal.read(index).map_err(to_io)? else { break };
            entries.push(entry::decode(meta, &payload).map_err(io::Error::other)?);
        }
        Ok(entries)
    }

    /// Writes `entries` as one batch; returns the handle that makes them durable, or `None`
    /// if they were synced here.
    fn append(
        &mut self,
        entries: impl IntoIterator<Item = Entry>,
    ) -> io::Result<Option<SyncHandle>> {
        self.batch.clear();
        let mut previous = self.wal.last_meta();
        for entry in entries {
            let index = entry.log_id.index + 1;
            let expected = previous.map_or(self.wal.last_index() + 1, |meta| meta.index + 1);
            if index != expected {
                // Only an empty log (nothing after the purge point) may start anywhere.
                let empty = self.batch.is_empty() && self.last_log_id().is_none();
                if !empty {
                    let message = format!("entry {index} does not follow the log at {expected}");
                    return Err(io::Error::new(io::ErrorKind::InvalidInput, message));
                }
                self.wal.reset(index).map_err(to_io)?;
                previous = None;
            }
            let time = previous.map_or(0, |meta| meta.time_ms);
            let meta = entry::meta(&entry, time);
            let payload = |out: &mut Vec<u8>| entry::encode_payload(&entry, out);
            self.batch.push_with(meta, payload).map_err(|e| to_io(WalError::from(e)))?;
            previous = Some(meta);
        }
        self.wal.append_deferred(&self.batch).map_err(to_io)
    }

    fn truncate_after(&mut self, last: Option<LogId>) -> io::Result<()> {
        let keep = last.map_or(0, |log_id| log_id.index + 1);
        self.wal.truncate_after(keep).map_err(to_io)
    }

    fn purge(&mut self, upto: LogId) -> io::Result<()> {
        let state = State { purged: Some(upto), ..self.state.clone() };
        self.save_state(state)?;
        let next = upto.index + 2;
        if self.wal.last_index() < next - 1 {
            // Nothing kept after the purge point: the next entry starts a new log there.
            return self.wal.reset(next).map_err(to_io);
        }
        self.wal.truncate_before(next).map_err(to_io)?;
        Ok(())
    }
}

impl RaftLogReader<TypeConfig> for LogStore {
    async fn try_get_log_entries<RB: RangeBounds<u64> + Clone + Debug + OptionalSend>(
        &mut self,
        range: RB,
    ) -> Result<Vec<Entry>, io::Error> {
        self.lock().entries(range, u64::MAX)
    }

    async fn limited_get_log_entries(
        &mut self,
        start: u64,
        end: u64,
    ) -> Result<Vec<Entry>, io::Error> {
        self.lock().entries(start..end, READ_ENTRIES_MAX)
    }

    async fn read_vote(&mut self) -> Result<Option<Vote>, io::Error> {
        Ok(self.lock().state.vote)
    }
}

impl RaftLogStorage<TypeConfig> for LogStore {
    type LogReader = LogStore;

    async fn get_log_state(&mut self) -> Result<LogState<TypeConfig>, io::Error> {
        let inner = self.lock();
        let last_purged_log_id = inner.state.purged;
        let last_log_id = inner.last_log_id().or(last_purged_log_id);
        Ok(LogState { last_purged_log_id, last_log_id })
    }

    async fn get_log_reader(&mut self) -> Self::LogReader {
        self.clone()
    }

    async fn save_vote(&mut self, vote: &Vote) -> Result<(), io::Error> {
        self.syncs.wait_all();
        let mut inner = self.lock();
        let state = State { vote: Some(*vote), ..inner.state.clone() };
        inner.save_state(state)
    }

    async fn append<I>(
        &mut self,
        entries: I,
        callback: IOFlushed<TypeConfig>,
    ) -> Result<(), io::Error>
    where
        I: IntoIterator<Item = Entry> + OptionalSend,
        I::IntoIter: OptionalSend,
    {
        let mut inner = self.lock();
        match inner.append(entries) {
            Ok(Some(sync)) => {
                // Handed over under the lock: the thread sees syncs in the order of the writes.
                self.syncs.progress().0 += 1;
                let job = SyncJob { sync, callback };
                if let Err(std::sync::mpsc::SendError(job)) = self.syncs.to_thread.send(job) {
                    self.syncs.progress().0 -= 1;
                    let error = io::Error::other("the Raft log's sync thread stopped");
                    job.callback.io_completed(Err(copy_error(&error)));
                    return Err(error);
                }
                Ok(())
            }
            Ok(None) => {
                callback.io_completed(Ok(()));
                Ok(())
            }
            Err(error) => {
                callback.io_completed(Err(copy_error(&error)));
                Err(error)
            }
        }
    }

    async fn truncate_after(&mut self, last_log_id: Option<LogId>) -> Result<(), io::Error> {
        self.syncs.wait_all();
        self.lock().truncate_after(last_log_id)
    }

    async fn purge(&mut self, log_id: LogId) -> Result<(), io::Error> {
        let upto = match &self.purge_limit {
            Some(limit) => match limit() {
                Some(limit) if limit.index < log_id.index => limit,
                Some(_) => log_id,
                None => return Ok(()),
            },
            None => log_id,
        };
        self.syncs.wait_all();
        let mut inner = self.lock();
        if inner.state.purged.is_some_and(|purged| purged.index >= upto.index) {
            return Ok(()); // purged that far already
        }
        inner.purge(upto)
    }
}
