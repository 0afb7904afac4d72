//! The write-ahead log: a directory of segments, group commit, recovery and truncation.
//!
//! Recovery policy (DESIGN §1): a torn record at the very tail of the last segment
//! is cut off, because a crash during an unsynced write leaves exactly that; any other
//! bad record, or a gap in the indexes, refuses to open with an error that names the
//! segment, the byte offset and the index expected, because guessing would lose or
//! invent acknowledged commands.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::constants::SEGMENT_SIZE_MAX_BYTES;
use crate::machine::Meta;
use crate::record::{self, RecordError};
use crate::segment::{self, parse_segment_name, segment_name, Damage};
use crate::storage::{Storage, StorageFile};

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
    /// A segment is sealed and a new one started once it has grown past this size.
    pub segment_size_max_bytes: u64,
    /// Whether each batch is made durable with `fdatasync`. Only benchmarks that want to
    /// measure everything but the disk turn this off: with `false`, an acknowledged
    /// command can be lost in a crash.
    pub sync: bool,
}

impl Default for WalOptions {
    fn default() -> Self {
        Self { segment_size_max_bytes: SEGMENT_SIZE_MAX_BYTES, sync: true }
    }
}

/// What opening the log found and repaired.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Segment files found (after creating the first one for a new log).
    pub segments: usize,
    /// Valid records found across all segments.
    pub records: u64,
    /// Bytes cut off the tail of the last segment (a torn write), 0 if none.
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
        record::encode_with(meta, &mut self.bytes, write_payload)?;
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
    /// Bytes of valid records in the file.
    len: u64,
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
    /// Every segment in index order; the last one is the active one, appended to.
    segments: Vec<SegmentInfo>,
    /// The open active segment.
    active: Box<dyn StorageFile>,
    /// Meta of the last record in the log, `None` if the log holds none.
    last_meta: Option<Meta>,
    /// Index the next appended record must have.
    next_index: u64,
    /// Buffer reused by `append_batch`, so steady-state appends do not allocate.
    scratch: Batch,
    /// Set when a write or sync failed: what is on disk is unknown until reopened.
    poisoned: bool,
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
        assert!(options.segment_size_max_bytes > 0, "segments need room for a record");
        let dir = dir.into();
        storage.create_dir_all(&dir).map_err(io_error("create directory", &dir))?;
        let mut segments = list_segments(storage.as_ref(), &dir)?;
        if segments.is_empty() {
            let path = dir.join(segment_name(1));
            storage.create_new(&path).map_err(io_error("create segment", &path))?;
            segments.push(SegmentInfo { first_index: 1, path, len: 0 });
        }
        let mut recovery = Recovery { segments: segments.len(), ..Recovery::default() };
        let mut last_meta = None;
        let count = segments.len();
        for position in 0..count {
            let expected_first = last_meta.map_or(segments[0].first_index, |m: Meta| m.index + 1);
            let is_last = position + 1 == count;
            let found =
                check_segment(storage.as_ref(), &mut segments[position], expected_first, is_last)?;
            recovery.records += found.records;
            recovery.cut_tail_bytes += found.cut_bytes;
            recovery.cut_reason = recovery.cut_reason.or(found.cut_reason);
            last_meta = found.last_meta.or(last_meta);
        }
        let active_info = segments.last().expect("at least one segment");
        let next_index = last_meta.map_or(active_info.first_index, |meta| meta.index + 1);
        let active =
            storage.open_append(&active_info.path).map_err(io_error("open", &active_info.path))?;
        Ok(Wal {
            storage,
            dir,
            options,
            segments,
            active,
            last_meta,
            next_index,
            scratch: Batch::new(),
            poisoned: false,
            syncs: 0,
            recovery,
        })
    }

    /// Calls `visit` with every record whose index is greater than `after_index`, in
    /// order, reading one segment at a time so a long log need not fit in memory.
    /// Returns how many records were visited. Stops at the first error `visit` returns.
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
        if self.poisoned {
            return Err(WalError::Poisoned);
        }
        let (Some(first), Some(last)) = (batch.first, batch.last) else {
            return Ok(());
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
        let result = self.write_and_sync(&batch.bytes);
        if result.is_err() {
            self.poisoned = true;
            self.roll_back_unsynced();
        }
        result?;
        self.segments.last_mut().expect("active segment").len += batch.bytes.len() as u64;
        self.last_meta = Some(last);
        self.next_index = last.index + 1;
        Ok(())
    }

    fn write_and_sync(&mut self, bytes: &[u8]) -> Result<(), WalError> {
        let active = self.segments.last().expect("active segment");
        if active.len >= self.options.segment_size_max_bytes {
            self.roll()?;
        }
        let path = &self.segments.last().expect("active segment").path;
        self.active.write_all(bytes).map_err(io_error("write", path))?;
        if self.options.sync {
            self.active.sync_data().map_err(io_error("sync", path))?;
            self.syncs += 1;
        }
        Ok(())
    }

    /// Best effort after a failed write or sync: cut what the failed batch left in the
    /// file, so that a reopen without a crash does not find records that were never
    /// acknowledged. If this fails too, recovery cuts a partial record anyway; whole
    /// records of the failed batch may then survive (their producers got an error, so
    /// for them the outcome is unknown, as after any timeout).
    fn roll_back_unsynced(&mut self) {
        let durable_len = self.segments.last().expect("active segment").len;
        if self.active.set_len(durable_len).is_ok() {
            let _ = self.active.sync_data();
        }
    }

    /// Seals the active segment and starts a new one named after the next index.
    fn roll(&mut self) -> Result<(), WalError> {
        let path = self.dir.join(segment_name(self.next_index));
        self.active = self.storage.create_new(&path).map_err(io_error("create segment", &path))?;
        self.segments.push(SegmentInfo { first_index: self.next_index, path, len: 0 });
        Ok(())
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
        self.active = self.storage.create_new(&path).map_err(io_error("create segment", &path))?;
        for info in std::mem::take(&mut self.segments) {
            self.storage.remove_file(&info.path).map_err(io_error("remove segment", &info.path))?;
        }
        self.segments.push(SegmentInfo { first_index: next_index, path, len: 0 });
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

    /// What opening the log found and repaired.
    pub fn recovery(&self) -> &Recovery {
        &self.recovery
    }
}

/// Segment files in `dir`, sorted by first index; other files are ignored.
fn list_segments(storage: &dyn Storage, dir: &Path) -> Result<Vec<SegmentInfo>, WalError> {
    let names = storage.list_files(dir).map_err(io_error("list", dir))?;
    let mut segments: Vec<SegmentInfo> = names
        .iter()
        .filter_map(|name| {
            let first_index = parse_segment_name(name)?;
            Some(SegmentInfo { first_index, path: dir.join(name), len: 0 })
        })
        .collect();
    segments.sort_by_key(|info| info.first_index);
    Ok(segments)
}

/// What checking one segment found.
#[derive(Debug)]
struct Checked {
    /// Valid records in the segment.
    records: u64,
    /// Meta of its last valid record.
    last_meta: Option<Meta>,
    /// Bytes cut off its tail.
    cut_bytes: u64,
    /// Why they were cut.
    cut_reason: Option<RecordError>,
}

/// Checks one segment: its name continues the log, its records are valid and contiguous;
/// a torn tail of the last segment is cut and made durable.
fn check_segment(
    storage: &dyn Storage,
    info: &mut SegmentInfo,
    expected_first: u64,
    is_last: bool,
) -> Result<Checked, WalError> {
    let path = info.path.clone();
    if info.first_index != expected_first {
        let found_index = info.first_index;
        return Err(WalError::Gap {
            segment: path,
            offset: 0,
            expected_index: expected_first,
            found_index,
        });
    }
    let bytes = storage.read_file(&path).map_err(io_error("read", &path))?;
    let scan = segment::scan(&bytes, info.first_index, |_| {}).map_err(|gap| WalError::Gap {
        segment: path.clone(),
        offset: gap.offset,
        expected_index: gap.expected_index,
        found_index: gap.found_index,
    })?;
    info.len = scan.valid_len;
    let mut checked = Checked {
        records: scan.records,
        last_meta: scan.last_meta,
        cut_bytes: 0,
        cut_reason: None,
    };
    let Some(damage) = scan.damage else {
        return Ok(checked);
    };
    if !is_last || damage.valid_after {
        let Damage { offset, expected_index, error, .. } = damage;
        return Err(WalError::Corrupt { segment: path, offset, expected_index, source: error });
    }
    let mut file = storage.open_append(&path).map_err(io_error("open", &path))?;
    file.set_len(scan.valid_len).map_err(io_error("cut torn tail", &path))?;
    file.sync_data().map_err(io_error("sync", &path))?;
    checked.cut_bytes = bytes.len() as u64 - scan.valid_len;
    checked.cut_reason = Some(damage.error);
    Ok(checked)
}
