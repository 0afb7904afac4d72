//! The write-ahead log: a directory of segments, group commit, recovery and truncation.
//!
//! Pre-written segments: with `sync` on, a segment is filled with zeros up to
//! `segment_size_max_bytes` and synced under a temporary name, then renamed into place;
//! records are then written into it by positional overwrite. An `fdatasync` after an
//! overwrite inside the file's size has no size change to write back, so it costs one
//! synchronous I/O instead of two (data, then inode). A helper thread prepares the next
//! segment once the active one is half full, so a roll is a rename. The data of a
//! segment ends at the first all-zero header (or at the end of the file, for segments
//! written as growing files, by older versions or with `sync` off).
//!
//! Recovery policy (DESIGN §1): a torn record at the very tail of the last segment
//! is cut off, because a crash during an unsynced write leaves exactly that; any other
//! bad record, or a gap in the indexes, refuses to open with an error that names the
//! segment, the byte offset and the index expected, because guessing would lose or
//! invent acknowledged commands. In detail, for the bytes after the last valid record:
//! - zeros (or nothing) are the clean end of the data;
//! - anything else with no valid later record after it is a torn tail: in the last
//!   segment it is overwritten with zeros (and the file cut back to its prepared size if
//!   it grew past it) and synced before the log goes on, so that no later open can find
//!   old bytes after new data; in any other segment it refuses to open;
//! - a valid later record after it (even after zeros) is damage in the middle of the log:
//!   it refuses to open.
//!
//! The last segment is reused in place after recovery: the log goes on writing right
//! after its last valid record, into the zeros. (Rolling to a fresh segment at every
//! start would cost a zero fill per restart and leave many small segments.) A last
//! segment that is a growing file stays one until it is full.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::constants::{
    RECORD_ALIGNMENT_BYTES, SEGMENT_PREFILL_MAX_BYTES, SEGMENT_PREPARED_NAME,
    SEGMENT_SIZE_MAX_BYTES,
};
use crate::machine::Meta;
use crate::record::{self, Record, RecordError};
use crate::segment::{self, parse_segment_name, segment_name, Damage, ScanStop};
use crate::storage::{Storage, StorageFile, SyncHandle};

/// Why the log could not open, replay, append or truncate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WalError {
    /// The file layer failed (disk error, missing permission, injected fault).
    #[error("{operation} {}: {source}", path.display())]
    Io {
        /// What the log was doing.
        operation: &'static str,
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A record that is not the torn tail of the log is damaged.
    #[error("corrupt record in {} at byte {offset} (expected index {expected_index}): {source}", segment.display())]
    Corrupt {
        /// The segment file holding the bad record.
        segment: PathBuf,
        /// Byte offset of the bad record within the segment.
        offset: u64,
        /// The index the bad record should have had.
        expected_index: u64,
        /// What is wrong with the bytes.
        source: RecordError,
    },
    /// Indexes do not continue by +1: a record or a whole segment is missing or out of place.
    #[error("index gap in {} at byte {offset}: expected index {expected_index}, found {found_index}", segment.display())]
    Gap {
        /// The segment where the log stops being contiguous.
        segment: PathBuf,
        /// Byte offset of the offending record (0 when the segment's name is the problem).
        offset: u64,
        /// The index the log needed.
        expected_index: u64,
        /// The index found instead (in the record, or in the segment's name).
        found_index: u64,
    },
    /// A record to append is larger than a record may be.
    #[error("record cannot be framed: {0}")]
    Record(#[from] RecordError),
    /// An earlier write or sync failed, so what is on disk is unknown: the log must be
    /// reopened (recovery cuts whatever was not made durable) before appending again.
    #[error("an earlier write or sync failed; reopen the log to recover")]
    Poisoned,
    /// Replay was asked to start before the first record the log still holds.
    #[error("replay after index {after_index} needs records the log no longer holds (it starts at {first_index})")]
    ReplayBeforeStart {
        /// The index replay should continue after.
        after_index: u64,
        /// The first index the log holds.
        first_index: u64,
    },
    /// `reset_empty` was called on a log that holds records.
    #[error("the log holds records up to index {last_index}; it cannot be reset")]
    NotEmpty {
        /// The last index the log holds.
        last_index: u64,
    },
}

/// How the log is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalOptions {
    /// A segment is sealed and a new one started once it has grown past this size. With
    /// `sync` on, new segments are filled with zeros up to this size (at most
    /// [`SEGMENT_PREFILL_MAX_BYTES`]) before records go into them.
    pub segment_size_max_bytes: u64,
    /// Whether each batch is made durable with `fdatasync`. Only benchmarks that want to
    /// measure everything but the disk turn this off: with `false`, an acknowledged
    /// command can be lost in a crash, and segments are not pre-written (growing files:
    /// the zero fill only pays off for syncs).
    pub sync: bool,
    /// Keep each record's offset in memory (4 bytes a record), so that one record can be
    /// read back ([`Wal::read`]) and the log cut after any index ([`Wal::truncate_after`]).
    /// A Raft log needs both (one record is one entry, a batch of commands); the single-node
    /// journal, one record a command, does not.
    pub track_offsets: bool,
}

impl Default for WalOptions {
    fn default() -> Self {
        Self { segment_size_max_bytes: SEGMENT_SIZE_MAX_BYTES, sync: true, track_offsets: false }
    }
}

/// What opening the log found and repaired.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Segment files found (after creating the first one for a new log).
    pub segments: usize,
    /// Valid records found across all segments.
    pub records: u64,
    /// Bytes of torn tail removed from the last segment, 0 if none: garbage after the data
    /// overwritten with zeros (rounded up to the record alignment), plus bytes past the
    /// segment's prepared size cut off.
    pub cut_tail_bytes: u64,
    /// Why the tail was cut, if it was.
    pub cut_reason: Option<RecordError>,
}

/// A batch of framed records in one reused buffer: written with one write and one sync.
#[derive(Debug, Default)]
pub struct Batch {
    /// The framed records, back to back, exactly as they go to disk.
    bytes: Vec<u8>,
    /// Meta of the first record, to check that the batch continues the log.
    first: Option<Meta>,
    /// Meta of the last record, to check that the next record continues the batch.
    last: Option<Meta>,
    /// Records in the batch.
    count: usize,
    /// Where each record starts in `bytes`.
    starts: Vec<u32>,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Frames one record into the batch. Its index must follow the previous record's.
    pub fn push(&mut self, meta: Meta, payload: &[u8]) -> Result<(), RecordError> {
        self.push_with(meta, |out| out.extend_from_slice(payload))
    }

    /// Frames one record whose payload `write_payload` appends in place (no copy).
    /// On error (payload too large) the batch is unchanged.
    pub fn push_with(
        &mut self,
        meta: Meta,
        write_payload: impl FnOnce(&mut Vec<u8>),
    ) -> Result<(), RecordError> {
        if let Some(last) = self.last {
            assert_eq!(meta.index, last.index + 1, "batch indexes must be contiguous");
            assert!(meta.term >= last.term, "terms never go back");
            assert!(meta.time_ms >= last.time_ms, "time never goes back along the log");
        }
        let start = self.bytes.len() as u32;
        record::encode_with(meta, &mut self.bytes, write_payload)?;
        self.starts.push(start);
        self.first.get_or_insert(meta);
        self.last = Some(meta);
        self.count += 1;
        Ok(())
    }

    /// Empties the batch, keeping its buffer for the next one.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.first = None;
        self.last = None;
        self.count = 0;
        self.starts.clear();
    }

    /// Records in the batch.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the batch holds no record.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes the batch will occupy on disk.
    pub fn size_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// Meta of the last record, if any.
    pub fn last_meta(&self) -> Option<Meta> {
        self.last
    }
}

/// One segment file of the log.
#[derive(Debug, Clone)]
struct SegmentInfo {
    /// Index of the segment's first record (also its file name).
    first_index: u64,
    /// Full path of the file.
    path: PathBuf,
    /// Bytes of valid records in the file: where its data ends and the next record goes.
    len: u64,
    /// Length of the file (zeros after the data included).
    file_len: u64,
    /// Where each record starts, with [`WalOptions::track_offsets`] (empty otherwise).
    offsets: Vec<u32>,
}

impl SegmentInfo {
    fn new(first_index: u64, path: PathBuf) -> Self {
        SegmentInfo { first_index, path, len: 0, file_len: 0, offsets: Vec::new() }
    }
}

/// The next segment, being zero-filled by a helper thread under a temporary name.
#[derive(Debug)]
struct Preparing {
    /// The temporary file.
    path: PathBuf,
    /// Bytes of zeros it will hold.
    len: u64,
    /// The helper; `Ok` once the file is filled and synced.
    thread: JoinHandle<io::Result<()>>,
}

/// A write to the active segment not yet known to be durable, to undo if it fails.
#[derive(Debug, Clone, Copy)]
struct PendingWrite {
    /// Where it starts.
    offset: u64,
    /// Bytes written.
    len: u64,
    /// The file's length before the write.
    file_len: u64,
}

/// The write-ahead log. One writer: the sequencer thread owns it.
#[derive(Debug)]
pub struct Wal {
    /// Where the segment files live (real or fault-injecting).
    storage: Arc<dyn Storage>,
    /// The directory of segment files.
    dir: PathBuf,
    /// Segment size and whether to sync.
    options: WalOptions,
    /// Every segment in index order; the last one is the active one, written to.
    segments: Vec<SegmentInfo>,
    /// The open active segment.
    active: Box<dyn StorageFile>,
    /// Length of the active segment's file; between the end of the data and this, zeros.
    active_file_len: u64,
    /// The next segment, if its preparation has started.
    preparing: Option<Preparing>,
    /// The batch being written, until it is durable.
    pending_write: Option<PendingWrite>,
    /// Meta of the last record in the log, `None` if the log holds none.
    last_meta: Option<Meta>,
    /// Index the next appended record must have.
    next_index: u64,
    /// Buffer reused by `append_batch`, so steady-state appends do not allocate.
    scratch: Batch,
    /// Set when a write or sync failed: what is on disk is unknown until reopened.
    poisoned: bool,
    /// Whether the active segment holds writes of [`Wal::append_deferred`] that may not
    /// be durable yet (synced here before the log leaves that file).
    unsynced: bool,
    /// Successful `sync_data` calls, for the pipeline's counters.
    syncs: u64,
    /// What opening the log found and repaired.
    recovery: Recovery,
}

fn io_error<'a>(
    operation: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> WalError + 'a {
    move |source| WalError::Io { operation, path: path.to_path_buf(), source }
}

impl Wal {
    /// Opens (or creates) the log in `dir`, checking every record of every segment and
    /// cutting a torn tail off the last one. See the module doc for what refuses to open.
    pub fn open(
        storage: Arc<dyn Storage>,
        dir: impl Into<PathBuf>,
        options: WalOptions,
    ) -> Result<Wal, WalError> {
        let no_replay = |_: Meta, _: &[u8]| Ok::<(), WalError>(());
        let (wal, _) = Self::open_inner(storage, dir.into(), options, None, no_replay)?;
        Ok(wal)
    }

    /// [`Wal::open`] and [`Wal::replay`] in one read of each segment: calls `visit` with
    /// every record whose index is greater than `after_index`, in order, while the
    /// segments are checked. Returns the log and how many records were visited.
    ///
    /// Records are visited before the later segments are checked: on an error (damage
    /// further on, or `visit`'s own), discard whatever `visit` built.
    pub fn open_and_replay<E: From<WalError>>(
        storage: Arc<dyn Storage>,
        dir: impl Into<PathBuf>,
        options: WalOptions,
        after_index: u64,
        visit: impl FnMut(Meta, &[u8]) -> Result<(), E>,
    ) -> Result<(Wal, u64), E> {
        Self::open_inner(storage, dir.into(), options, Some(after_index), visit)
    }

    fn open_inner<E: From<WalError>>(
        storage: Arc<dyn Storage>,
        dir: PathBuf,
        options: WalOptions,
        after_index: Option<u64>,
        mut visit: impl FnMut(Meta, &[u8]) -> Result<(), E>,
    ) -> Result<(Wal, u64), E> {
        assert!(options.segment_size_max_bytes > 0, "segments need room for a record");
        storage.create_dir_all(&dir).map_err(io_error("create directory", &dir))?;
        remove_prepared(storage.as_ref(), &dir)?;
        let mut segments = list_segments(storage.as_ref(), &dir)?;
        let mut recovery = Recovery::default();
        let mut last_meta = None;
        let mut visited = 0;
        let (active, active_file_len) = if segments.is_empty() {
            // A new log: nothing to check.
            let (info, file, file_len) = create_segment(storage.as_ref(), &dir, 1, &options, None)?;
            segments.push(info);
            (file, file_len)
        } else {
            let first_index = segments[0].first_index;
            if first_index == 0 {
                // Indexes start at 1: a segment named 0 was never written by a log.
                let segment = segments[0].path.clone();
                let gap = WalError::Gap { segment, offset: 0, expected_index: 1, found_index: 0 };
                return Err(gap.into());
            }
            if let Some(after_index) =
                after_index.filter(|after| after.saturating_add(1) < first_index)
            {
                return Err(WalError::ReplayBeforeStart { after_index, first_index }.into());
            }
            let count = segments.len();
            let mut active_file_len = 0;
            for (position, info) in segments.iter_mut().enumerate() {
                let expected_first = last_meta.map_or(first_index, |m: Meta| m.index + 1);
                let is_last = position + 1 == count;
                let check = Check { expected_first, is_last, prefill_len: prefill_len(&options) };
                let (mut offsets, mut at) = (Vec::new(), 0u32);
                let found =
                    check_segment::<E>(storage.as_ref(), info, check, |record: &Record<'_>| {
                        if options.track_offsets {
                            offsets.push(at);
                            at += record.framed_len as u32;
                        }
                        if after_index.is_some_and(|after| record.meta.index > after) {
                            visited += 1;
                            visit(record.meta, record.payload)?;
                        }
                        Ok(())
                    })?;
                info.offsets = offsets;
                info.file_len = found.file_len;
                recovery.records += found.records;
                recovery.cut_tail_bytes += found.cut_bytes;
                recovery.cut_reason = recovery.cut_reason.or(found.cut_reason);
                last_meta = found.last_meta.or(last_meta);
                active_file_len = found.file_len;
            }
            let path = &segments[count - 1].path;
            let active = storage.open_write(path).map_err(io_error("open", path))?;
            (active, active_file_len)
        };
        recovery.segments = segments.len();
        let active_info = segments.last().expect("at least one segment");
        let next_index = last_meta.map_or(active_info.first_index, |meta| meta.index + 1);
        let mut wal = Wal {
            storage,
            dir,
            options,
            segments,
            active,
            active_file_len,
            preparing: None,
            pending_write: None,
            last_meta,
            next_index,
            scratch: Batch::new(),
            poisoned: false,
            unsynced: false,
            syncs: 0,
            recovery,
        };
        wal.prepare_next_if_due();
        Ok((wal, visited))
    }

    /// Calls `visit` with every record whose index is greater than `after_index`, in
    /// order, reading one segment at a time so a long log need not fit in memory.
    /// Returns how many records were visited. Stops at the first error `visit` returns.
    ///
    /// This reads the segments again; at start-up, [`Wal::open_and_replay`] reads them once.
    pub fn replay<E: From<WalError>>(
        &self,
        after_index: u64,
        mut visit: impl FnMut(Meta, &[u8]) -> Result<(), E>,
    ) -> Result<u64, E> {
        let first_index = self.first_index();
        if after_index.saturating_add(1) < first_index {
            return Err(WalError::ReplayBeforeStart { after_index, first_index }.into());
        }
        let mut visited = 0;
        for (position, info) in self.segments.iter().enumerate() {
            let next_first = self.segments.get(position + 1).map(|next| next.first_index);
            if next_first.is_some_and(|next| next <= after_index + 1) {
                continue; // every record of this segment is at or before `after_index`
            }
            visited += self.replay_segment(info, after_index, &mut visit)?;
        }
        Ok(visited)
    }

    fn replay_segment<E: From<WalError>>(
        &self,
        info: &SegmentInfo,
        after_index: u64,
        visit: &mut impl FnMut(Meta, &[u8]) -> Result<(), E>,
    ) -> Result<u64, E> {
        let bytes = self.storage.read_file(&info.path).map_err(io_error("read", &info.path))?;
        let valid = usize::try_from(info.len).expect("segment fits in memory");
        let bytes = bytes.get(..valid).unwrap_or(&bytes);
        let (mut offset, mut expected_index, mut visited) = (0, info.first_index, 0);
        while offset < valid {
            // Checked again after reading: the disk may have changed since `open`.
            let record = record::decode(&bytes[offset..]).map_err(|source| WalError::Corrupt {
                segment: info.path.clone(),
                offset: offset as u64,
                expected_index,
                source,
            })?;
            if record.meta.index != expected_index {
                let found_index = record.meta.index;
                let segment = info.path.clone();
                return Err(WalError::Gap {
                    segment,
                    offset: offset as u64,
                    expected_index,
                    found_index,
                }
                .into());
            }
            if record.meta.index > after_index {
                visit(record.meta, record.payload)?;
                visited += 1;
            }
            offset += record.framed_len;
            expected_index += 1;
        }
        Ok(visited)
    }

    /// Appends `records` with one write and one `fdatasync` (group commit) and returns
    /// only once they are durable. Their indexes must continue the log.
    pub fn append_batch(&mut self, records: &[(Meta, &[u8])]) -> Result<(), WalError> {
        let mut batch = std::mem::take(&mut self.scratch);
        batch.clear();
        let framed = records.iter().try_for_each(|(meta, payload)| batch.push(*meta, payload));
        let result = framed.map_err(WalError::from).and_then(|()| self.append(&batch));
        self.scratch = batch;
        result
    }

    /// Appends a prepared batch with one write and one `fdatasync` and returns only once
    /// it is durable. On error the log is poisoned: nothing more is appended until reopened.
    pub fn append(&mut self, batch: &Batch) -> Result<(), WalError> {
        self.append_inner(batch, false).map(drop)
    }

    /// Writes a prepared batch and returns before it is durable, with the handle that makes
    /// it durable (one `fdatasync` of the segment it went to, which also covers every earlier
    /// deferred write: the log syncs a segment itself before leaving it). Readers see the
    /// batch at once. `None`: the storage has no such handle, and the batch was synced here.
    /// A Raft log uses this so that its leader replicates while its own sync runs.
    pub fn append_deferred(&mut self, batch: &Batch) -> Result<Option<SyncHandle>, WalError> {
        self.append_inner(batch, true)
    }

    fn append_inner(
        &mut self,
        batch: &Batch,
        deferred: bool,
    ) -> Result<Option<SyncHandle>, WalError> {
        if self.poisoned {
            return Err(WalError::Poisoned);
        }
        let (Some(first), Some(last)) = (batch.first, batch.last) else {
            return Ok(None);
        };
        assert_eq!(first.index, self.next_index, "a batch must continue the log");
        if let Some(previous) = self.last_meta {
            assert!(first.term >= previous.term, "terms never go back");
            assert!(first.time_ms >= previous.time_ms, "time never goes back along the log");
        }
        if cfg!(debug_assertions) {
            // Pair check: the bytes about to be written decode to exactly the batch.
            assert_eq!(record::verify_all(&batch.bytes), Ok(batch.count), "framing bug");
        }
        let result = self.write_and_sync(&batch.bytes, deferred);
        if result.is_err() {
            self.poisoned = true;
            self.roll_back_unsynced(&batch.bytes);
        }
        let handle = result?;
        let active = self.segments.last_mut().expect("active segment");
        if self.options.track_offsets {
            let base = active.len as u32;
            active.offsets.extend(batch.starts.iter().map(|start| base + start));
        }
        active.len += batch.bytes.len() as u64;
        active.file_len = self.active_file_len;
        self.last_meta = Some(last);
        self.next_index = last.index + 1;
        self.prepare_next_if_due();
        Ok(handle)
    }

    /// Writes `bytes` and syncs them, or with `deferred` returns the handle that will (when
    /// the storage has one).
    fn write_and_sync(
        &mut self,
        bytes: &[u8],
        deferred: bool,
    ) -> Result<Option<SyncHandle>, WalError> {
        let active = self.segments.last().expect("active segment");
        if active.len >= self.options.segment_size_max_bytes {
            self.sync_deferred()?;
            self.roll()?;
        }
        let active = self.segments.last().expect("active segment");
        let (offset, len, file_len) = (active.len, bytes.len() as u64, self.active_file_len);
        self.pending_write = Some(PendingWrite { offset, len, file_len });
        // Into the zeros after the data: no size change unless the batch runs past the end.
        self.active.write_all_at(bytes, offset).map_err(io_error("write", &active.path))?;
        self.active_file_len = file_len.max(offset + len);
        let handle = if deferred && self.options.sync { self.active.sync_handle() } else { None };
        if handle.is_some() {
            self.unsynced = true;
        } else if self.options.sync {
            self.active.sync_data().map_err(io_error("sync", &active.path))?;
            self.syncs += 1;
            self.unsynced = false;
        }
        self.pending_write = None;
        Ok(handle)
    }

    /// Syncs the active segment if deferred writes may not be durable yet (before the log
    /// moves to another file, so that one handle of the newest file covers every write).
    fn sync_deferred(&mut self) -> Result<(), WalError> {
        if self.unsynced {
            let path = &self.segments.last().expect("active segment").path;
            self.active.sync_data().map_err(io_error("sync", path))?;
            self.syncs += 1;
            self.unsynced = false;
        }
        Ok(())
    }

    /// Best effort after a failed write or sync of `bytes`: cut what the failed batch
    /// added past the end of the file, then put back the zeros it overwrote, one record at
    /// a time from the last, so that a reopen without a crash does not find records that
    /// were never acknowledged. Backwards, so that a crash part way through leaves the
    /// batch's first records followed by zeros (a torn tail), never zeros followed by
    /// records (which recovery must take for damage in the middle of the log). If this
    /// fails too, recovery cuts a partial record anyway; whole records of the failed batch
    /// may then survive (their producers got an error, so for them the outcome is unknown,
    /// as after any timeout).
    fn roll_back_unsynced(&mut self, bytes: &[u8]) {
        let Some(PendingWrite { offset, len, file_len }) = self.pending_write.take() else {
            return; // nothing was written (the roll failed)
        };
        debug_assert_eq!(len, bytes.len() as u64);
        let mut undone = Ok(());
        if offset + len > file_len {
            undone = self.active.set_len(file_len);
        }
        let mut records = Vec::new();
        let mut at = 0;
        while let Ok(record) = record::decode(&bytes[at..]) {
            records.push(at as u64..(at + record.framed_len) as u64);
            at += record.framed_len;
        }
        let zeros = vec![0; records.iter().map(|r| r.end - r.start).max().unwrap_or(0) as usize];
        for record in records.iter().rev() {
            let (start, end) = (offset + record.start, (offset + record.end).min(file_len));
            if undone.is_ok() && start < end {
                undone = self.active.write_all_at(&zeros[..(end - start) as usize], start);
            }
        }
        if undone.is_ok() && self.active.sync_data().is_ok() {
            self.active_file_len = file_len;
        }
    }

    /// Seals the active segment and starts a new one named after the next index.
    fn roll(&mut self) -> Result<(), WalError> {
        let preparing = self.preparing.take();
        let storage = self.storage.as_ref();
        let (info, file, file_len) =
            create_segment(storage, &self.dir, self.next_index, &self.options, preparing)?;
        self.active = file;
        self.active_file_len = file_len;
        self.segments.push(info);
        Ok(())
    }

    /// Starts zero-filling the next segment on a helper thread once the active one is
    /// half full, so that the roll finds it ready. One at a time; never with `sync` off.
    fn prepare_next_if_due(&mut self) {
        let active = self.segments.last().expect("active segment");
        let due = active.len >= self.options.segment_size_max_bytes / 2;
        if !self.options.sync || self.preparing.is_some() || !due {
            return;
        }
        let (path, len) = (prepared_path(&self.dir), prefill_len(&self.options));
        let storage = Arc::clone(&self.storage);
        let target = path.clone();
        let helper = std::thread::Builder::new().name("wal-prepare".to_owned());
        // If no thread can be started, the roll prepares the segment itself.
        if let Ok(thread) = helper.spawn(move || storage.create_zeroed(&target, len)) {
            self.preparing = Some(Preparing { path, len, thread });
        }
    }

    /// Deletes whole segments whose every record is below `index`, oldest first, never
    /// the active one. Call only behind a durable snapshot that covers `index - 1`.
    /// Returns how many segments were deleted.
    pub fn truncate_before(&mut self, index: u64) -> Result<usize, WalError> {
        let mut removed = 0;
        // Segment 0 holds indexes below segment 1's first; oldest first keeps the log a suffix.
        while self.segments.len() > 1 && self.segments[1].first_index <= index {
            let path = self.segments[0].path.clone();
            self.storage.remove_file(&path).map_err(io_error("remove segment", &path))?;
            self.segments.remove(0);
            removed += 1;
        }
        Ok(removed)
    }

    /// The record at `index`, read from its segment and checked, or `None` if the log does
    /// not hold it. Needs [`WalOptions::track_offsets`].
    pub fn read(&self, index: u64) -> Result<Option<(Meta, Vec<u8>)>, WalError> {
        assert!(self.options.track_offsets, "reading one record needs its offset");
        let at = self.segments.partition_point(|info| info.first_index <= index);
        let Some(info) = at.checked_sub(1).map(|at| &self.segments[at]) else {
            return Ok(None);
        };
        let position = (index - info.first_index) as usize;
        let Some(&start) = info.offsets.get(position) else { return Ok(None) };
        let end = info.offsets.get(position + 1).map_or(info.len, |&next| u64::from(next));
        let len = (end - u64::from(start)) as usize;
        let bytes = self
            .storage
            .read_range(&info.path, u64::from(start), len)
            .map_err(io_error("read", &info.path))?;
        // Checked again after reading: the disk may have changed since it was written.
        let record = record::decode(&bytes).map_err(|source| WalError::Corrupt {
            segment: info.path.clone(),
            offset: u64::from(start),
            expected_index: index,
            source,
        })?;
        if record.meta.index != index {
            let (segment, offset) = (info.path.clone(), u64::from(start));
            let found_index = record.meta.index;
            return Err(WalError::Gap { segment, offset, expected_index: index, found_index });
        }
        Ok(Some((record.meta, record.payload.to_vec())))
    }

    /// Removes every record after `index` (a Raft follower drops a conflicting tail): whole
    /// segments newest first, then the records of the last one kept from its end backwards,
    /// each overwritten with zeros, and synced. A crash part way leaves a shorter log that
    /// ends in zeros, never a hole. Needs [`WalOptions::track_offsets`].
    pub fn truncate_after(&mut self, index: u64) -> Result<(), WalError> {
        assert!(self.options.track_offsets, "cutting after a record needs its offset");
        if self.poisoned {
            return Err(WalError::Poisoned);
        }
        if index >= self.last_index() {
            return Ok(());
        }
        if index < self.first_index() {
            return self.reset(index + 1);
        }
        while self.segments.last().is_some_and(|last| last.first_index > index) {
            let info = self.segments.pop().expect("checked above");
            self.storage.remove_file(&info.path).map_err(io_error("remove segment", &info.path))?;
        }
        let info = self.segments.last_mut().expect("a segment holds `index`");
        let keep = (index - info.first_index + 1) as usize;
        let mut file = self.storage.open_write(&info.path).map_err(io_error("open", &info.path))?;
        let mut end = info.len;
        for &start in info.offsets[keep..].iter().rev() {
            let zeros = vec![0; (end - u64::from(start)) as usize];
            file.write_all_at(&zeros, u64::from(start)).map_err(io_error("zero", &info.path))?;
            end = u64::from(start);
        }
        file.sync_data().map_err(io_error("sync", &info.path))?;
        info.len = end;
        info.offsets.truncate(keep);
        self.active = file;
        self.unsynced = false; // the kept file was synced; the others are gone
        self.active_file_len = info.file_len;
        self.next_index = index + 1;
        self.last_meta = self.read(index)?.map(|(meta, _)| meta);
        Ok(())
    }

    /// Drops every record and starts the log again, empty, at `next_index` (a Raft node that
    /// installed a snapshot past its whole log). The old segments go first, newest first, so
    /// a crash part way leaves a shorter log, never two logs.
    pub fn reset(&mut self, next_index: u64) -> Result<(), WalError> {
        assert!(next_index >= 1, "indexes start at 1");
        while let Some(info) = self.segments.pop() {
            self.storage.remove_file(&info.path).map_err(io_error("remove segment", &info.path))?;
        }
        let preparing = self.preparing.take();
        let (info, file, file_len) =
            create_segment(self.storage.as_ref(), &self.dir, next_index, &self.options, preparing)?;
        self.active = file;
        self.active_file_len = file_len;
        self.unsynced = false; // every file written to is gone
        self.segments.push(info);
        self.next_index = next_index;
        self.last_meta = None;
        Ok(())
    }

    /// Restarts an empty log at `next_index`, e.g. when the log was lost but a snapshot up
    /// to `next_index - 1` survives. Refuses if the log holds any record.
    pub fn reset_empty(&mut self, next_index: u64) -> Result<(), WalError> {
        assert!(next_index >= 1, "indexes start at 1");
        if let Some(last) = self.last_meta {
            return Err(WalError::NotEmpty { last_index: last.index });
        }
        let path = self.dir.join(segment_name(next_index));
        if self.segments.iter().any(|info| info.path == path) {
            return Ok(()); // already starts there
        }
        let preparing = self.preparing.take();
        let (info, file, file_len) =
            create_segment(self.storage.as_ref(), &self.dir, next_index, &self.options, preparing)?;
        self.active = file;
        self.active_file_len = file_len;
        for info in std::mem::take(&mut self.segments) {
            self.storage.remove_file(&info.path).map_err(io_error("remove segment", &info.path))?;
        }
        self.segments.push(info);
        self.next_index = next_index;
        Ok(())
    }

    /// Index of the last record, or `first_index() - 1` if the log holds none.
    pub fn last_index(&self) -> u64 {
        self.next_index - 1
    }

    /// Meta of the last record, `None` if the log holds none.
    pub fn last_meta(&self) -> Option<Meta> {
        self.last_meta
    }

    /// Index of the first record the log holds (or would hold, if empty).
    pub fn first_index(&self) -> u64 {
        self.segments[0].first_index
    }

    /// Whether a failed write or sync stopped the log.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    /// Whether each batch is synced (see [`WalOptions::sync`]).
    pub fn is_syncing(&self) -> bool {
        self.options.sync
    }

    /// Successful `fdatasync` calls since open.
    pub fn syncs(&self) -> u64 {
        self.syncs
    }

    /// Paths of every segment, oldest first; the last is the active one.
    pub fn segment_paths(&self) -> Vec<PathBuf> {
        self.segments.iter().map(|info| info.path.clone()).collect()
    }

    /// Byte offset in the active segment where the next record goes (the end of its data).
    pub fn active_data_len(&self) -> u64 {
        self.segments.last().expect("active segment").len
    }

    /// What opening the log found and repaired.
    pub fn recovery(&self) -> &Recovery {
        &self.recovery
    }
}

impl Drop for Wal {
    /// Waits for a segment still being prepared and removes it, so that nothing touches the
    /// log's directory once the log is gone (a test may delete it, a new process open it).
    fn drop(&mut self) {
        if let Some(preparing) = self.preparing.take() {
            let _ = preparing.thread.join();
            let _ = self.storage.remove_file(&preparing.path);
        }
    }
}

/// Bytes a new segment is filled with zeros to.
fn prefill_len(options: &WalOptions) -> u64 {
    options.segment_size_max_bytes.min(SEGMENT_PREFILL_MAX_BYTES)
}

/// A fresh temporary name for a segment being prepared: unique within the process, so
/// that two logs on one directory in turn (a reopen) never share one.
fn prepared_path(dir: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let serial = NEXT.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("{SEGMENT_PREPARED_NAME}.{}.{serial}", std::process::id()))
}

/// Whether `name` is a temporary file of a segment being prepared.
fn is_prepared_name(name: &str) -> bool {
    name.strip_prefix(SEGMENT_PREPARED_NAME).is_some_and(|rest| rest.starts_with('.'))
}

/// Removes segments left half prepared by an earlier process (best effort: a leftover
/// is never read, it only takes room).
fn remove_prepared(storage: &dyn Storage, dir: &Path) -> Result<(), WalError> {
    let names = storage.list_files(dir).map_err(io_error("list", dir))?;
    for name in names.iter().filter(|name| is_prepared_name(name)) {
        let _ = storage.remove_file(&dir.join(name));
    }
    Ok(())
}

/// Creates the segment whose first record will be `first_index`. With `sync` on, it is
/// filled with zeros and synced under a temporary name, then renamed into place, so that
/// a segment file is never seen half filled; `prepared` is used if the helper made it.
/// With `sync` off it is an empty, growing file. Returns the file and its length.
fn create_segment(
    storage: &dyn Storage,
    dir: &Path,
    first_index: u64,
    options: &WalOptions,
    prepared: Option<Preparing>,
) -> Result<(SegmentInfo, Box<dyn StorageFile>, u64), WalError> {
    let path = dir.join(segment_name(first_index));
    let mut info = SegmentInfo::new(first_index, path.clone());
    if !options.sync {
        let file = storage.create_new(&path).map_err(io_error("create segment", &path))?;
        return Ok((info, file, 0));
    }
    let ready = prepared.and_then(|prepared| match prepared.thread.join() {
        Ok(Ok(())) => Some((prepared.path, prepared.len)),
        _ => {
            let _ = storage.remove_file(&prepared.path);
            None
        }
    });
    let (temp, len) = match ready {
        Some(ready) => ready,
        None => {
            let (temp, len) = (prepared_path(dir), prefill_len(options));
            storage.create_zeroed(&temp, len).map_err(io_error("prepare segment", &temp))?;
            (temp, len)
        }
    };
    storage.rename(&temp, &path).map_err(io_error("rename segment", &path))?;
    let file = storage.open_write(&path).map_err(io_error("open", &path))?;
    info.file_len = len;
    Ok((info, file, len))
}

/// Segment files in `dir`, sorted by first index; other files are ignored.
fn list_segments(storage: &dyn Storage, dir: &Path) -> Result<Vec<SegmentInfo>, WalError> {
    let names = storage.list_files(dir).map_err(io_error("list", dir))?;
    let mut segments: Vec<SegmentInfo> = names
        .iter()
        .filter_map(|name| {
            let first_index = parse_segment_name(name)?;
            Some(SegmentInfo::new(first_index, dir.join(name)))
        })
        .collect();
    segments.sort_by_key(|info| info.first_index);
    Ok(segments)
}

/// What a segment is checked against.
#[derive(Debug, Clone, Copy)]
struct Check {
    /// The index its first record must have (its name must say so too).
    expected_first: u64,
    /// Whether it is the last segment: only there is a torn tail expected.
    is_last: bool,
    /// Bytes a segment is prepared to: the last one is cut back to this (or to its data,
    /// if longer) if it grew past it.
    prefill_len: u64,
}

/// What checking one segment found.
#[derive(Debug)]
struct Checked {
    /// Valid records in the segment.
    records: u64,
    /// Meta of its last valid record.
    last_meta: Option<Meta>,
    /// Bytes of torn tail removed (see [`Recovery::cut_tail_bytes`]).
    cut_bytes: u64,
    /// Why they were removed, if they were not all zeros.
    cut_reason: Option<RecordError>,
    /// Length of the file after the check.
    file_len: u64,
}

/// Checks one segment: its name continues the log, its records are valid and contiguous,
/// calling `visit` with each. In the last segment, a torn tail is overwritten with zeros,
/// bytes past the prepared size are cut, and both are made durable.
fn check_segment<E: From<WalError>>(
    storage: &dyn Storage,
    info: &mut SegmentInfo,
    check: Check,
    visit: impl FnMut(&Record<'_>) -> Result<(), E>,
) -> Result<Checked, E> {
    let path = info.path.clone();
    if info.first_index != check.expected_first {
        let found_index = info.first_index;
        let expected_index = check.expected_first;
        return Err(WalError::Gap { segment: path, offset: 0, expected_index, found_index }.into());
    }
    let bytes = storage.read_unwritten(&path).map_err(io_error("read", &path))?;
    let scan = segment::scan(&bytes, info.first_index, visit).map_err(|stop| match stop {
        ScanStop::Gap(gap) => E::from(WalError::Gap {
            segment: path.clone(),
            offset: gap.offset,
            expected_index: gap.expected_index,
            found_index: gap.found_index,
        }),
        ScanStop::Visit(error) => error,
    })?;
    info.len = scan.valid_len;
    let file_len = bytes.len() as u64;
    let mut checked = Checked {
        records: scan.records,
        last_meta: scan.last_meta,
        cut_bytes: 0,
        cut_reason: None,
        file_len,
    };
    if let Some(damage) = &scan.damage {
        if !check.is_last || damage.valid_after {
            let Damage { offset, expected_index, error, .. } = damage.clone();
            let source = error;
            return Err(WalError::Corrupt { segment: path, offset, expected_index, source }.into());
        }
    }
    if !check.is_last {
        return Ok(checked);
    }
    // The log goes on writing at `valid_len`: what follows must read as the end of the data.
    let valid_len = scan.valid_len;
    let keep_len = file_len.min(check.prefill_len.max(valid_len));
    let (valid, keep) = (valid_len as usize, keep_len as usize);
    let garbage_end = (valid + segment::nonzero_end(&bytes[valid..keep]))
        .next_multiple_of(RECORD_ALIGNMENT_BYTES)
        .min(keep) as u64;
    // Not read past here: the tail may be cut under it.
    drop(bytes);
    if garbage_end == valid_len && keep_len == file_len {
        return Ok(checked);
    }
    let mut file = storage.open_write(&path).map_err(io_error("open", &path))?;
    if garbage_end > valid_len {
        let zeros = vec![0; (garbage_end - valid_len) as usize];
        file.write_all_at(&zeros, valid_len).map_err(io_error("zero torn tail", &path))?;
    }
    if keep_len < file_len {
        file.set_len(keep_len).map_err(io_error("cut torn tail", &path))?;
    }
    file.sync_data().map_err(io_error("sync", &path))?;
    checked.cut_bytes = (garbage_end - valid_len) + (file_len - keep_len);
    checked.cut_reason = scan.damage.map(|damage| damage.error);
    checked.file_len = keep_len;
    Ok(checked)
}
