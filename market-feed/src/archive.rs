//! The tick archive: every tick the engine sequenced (symbol, price, time, log index), kept
//! beyond the log's truncation so that anyone can look up the ticks that decided a contract
//! and re-derive its result (decisions.md §1).
//!
//! Layout: `ticks/<SYMBOL>/<YYYYMMDD>.tk`, one append-only file per symbol and UTC day, made
//! of checksummed blocks; `ticks/position` holds the log index up to which every tick is in
//! the files (`covered`). A block:
//!
//! ```text
//! magic "TKB2" | crc32c u32 (of everything after it) | payload_len u32 | count u32
//! | first_index u64 | last_index u64 | first_time u64 | last_time u64
//! | scale u32 | first_mantissa i64 | reserved u32 | payload: per further tick, LEB128
//!   varints of index delta, zigzag time delta, zigzag price-mantissa delta; then per tick
//!   (the first too) its quantity: scale u8, LEB128 mantissa
//! ```
//!
//! The quantities let candles be rebuilt from the archive with their volumes (a restarted
//! member's candles equal the others'). Blocks written before them ("TKB1") read with a zero
//! quantity.
//!
//! About 9 bytes a tick with the 64-byte header shared by up to 256 ticks: 11 M ticks a day
//! (32 symbols at 4 ticks/s) take about 100 MB. Ticks wait in memory (at most
//! [`BLOCK_TICKS_MAX`] per symbol) and are written as one block when that many are there or
//! on [`TickArchive::flush`] (every [`FLUSH_AGE_MS`] at most); the log keeps everything after
//! `covered` until then (the read model's follower reports the lower of its own and the
//! archive's durable index), so a crash loses nothing: after a restart the log is replayed
//! from there and ticks at or below a symbol's last archived index are skipped.
//!
//! A torn block at the end of a file (a crash mid-write) is cut at start; a damaged block
//! anywhere else is reported by the reads that meet it, never silently skipped.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use engine::event::{Event, Events};
use engine::types::Symbol;
use rust_decimal::Decimal;
use wal::EventBatch;

/// Most ticks in one block.
pub const BLOCK_TICKS_MAX: usize = 256;
/// Longest a tick waits in memory before its block is written.
pub const FLUSH_AGE_MS: u64 = 60_000;
/// Most ticks one read answers.
pub const READ_TICKS_MAX: usize = 10_000;
/// Most files whose block index is kept in memory.
const INDEX_CACHE_FILES_MAX: usize = 64;

/// The block format written now.
const MAGIC: &[u8; 4] = b"TKB2";
/// The format before quantities: still read.
const MAGIC_V1: &[u8; 4] = b"TKB1";
const HEADER_BYTES: usize = 64;
const DAY_MS: u64 = 86_400_000;
const POSITION_FILE: &str = "position";

/// One archived tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchivedTick {
    /// Log index of the tick command.
    pub index: u64,
    /// Sequencer time (ms since the epoch).
    pub time_ms: u64,
    /// The price.
    pub price: Decimal,
    /// Quantity traded at it (candle volume; 0 for a quote, and in blocks written before
    /// quantities were kept).
    pub quantity: Decimal,
}

/// Why the archive could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArchiveError {
    /// A file could not be read, written or synced.
    #[error("tick archive {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A block's checksum or layout is wrong somewhere other than the end of the last file.
    #[error("tick archive {path}: damaged block at byte {offset}")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// Where the block starts.
        offset: u64,
    },
}

/// Ticks of a symbol not written yet.
#[derive(Debug, Default)]
struct Pending {
    ticks: Vec<ArchivedTick>,
}

/// A block's place and range, for reads that skip to it.
#[derive(Debug, Clone, Copy)]
struct BlockMeta {
    offset: u64,
    len: u64,
    first_index: u64,
    last_index: u64,
    last_time: u64,
}

/// The blocks of one file, as far as `covered_len` bytes.
#[derive(Debug, Default)]
struct FileIndex {
    covered_len: u64,
    blocks: Vec<BlockMeta>,
}

#[derive(Debug, Default)]
struct State {
    pending: HashMap<Symbol, Pending>,
    /// Highest index archived (in a file or pending) per symbol: replays skip up to it.
    last_index: HashMap<Symbol, u64>,
    /// Highest log index processed (its ticks pending or written).
    processed: u64,
    /// Highest log index whose ticks are all in synced files.
    covered: u64,
    /// Time of the oldest pending tick.
    oldest_pending_ms: Option<u64>,
    /// Block indexes of recently read files.
    indexes: HashMap<PathBuf, Arc<Mutex<FileIndex>>>,
}

/// The archive. Cheap to share: clone the `Arc`.
#[derive(Debug)]
pub struct TickArchive {
    dir: PathBuf,
    state: Mutex<State>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ArchiveError + '_ {
    move |source| ArchiveError::Io { path: path.to_path_buf(), source }
}

/// `20261122` for a time on 22 November 2026 (UTC).
pub fn day_name(time_ms: u64) -> String {
    let days = (time_ms / DAY_MS) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}{month:02}{day:02}")
}

impl TickArchive {
    /// Opens (or creates) the archive under `dir`, cutting a torn block at the end of each
    /// symbol's newest file.
    pub fn open(dir: &Path) -> Result<TickArchive, ArchiveError> {
        fs::create_dir_all(dir).map_err(io(dir))?;
        let mut state = State { covered: read_position(dir)?, ..State::default() };
        state.processed = state.covered;
        for entry in fs::read_dir(dir).map_err(io(dir))? {
            let entry = entry.map_err(io(dir))?;
            let Some(symbol) = entry.file_name().to_str().and_then(Symbol::new) else { continue };
            if let Some(newest) = day_files(&entry.path())?.pop() {
                if let Some(last) = repair_tail(&newest, state.covered)? {
                    state.last_index.insert(symbol, last);
                }
            }
        }
        Ok(TickArchive { dir: dir.to_path_buf(), state: Mutex::new(state) })
    }

    /// Opens an archive to read it as it is (an audit): nothing is repaired or written.
    pub fn open_read_only(dir: &Path) -> Result<TickArchive, ArchiveError> {
        let covered = read_position(dir)?;
        let state = State { covered, processed: covered, ..State::default() };
        Ok(TickArchive { dir: dir.to_path_buf(), state: Mutex::new(state) })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The log index up to which every tick is in synced files.
    pub fn covered_index(&self) -> u64 {
        self.lock().covered
    }

    /// Adds a sequenced tick (skipped if this symbol already has it: a replay after a crash).
    pub fn append(&self, symbol: Symbol, tick: ArchivedTick) -> Result<(), ArchiveError> {
        let mut state = self.lock();
        if state.last_index.get(&symbol).is_some_and(|&last| tick.index <= last) {
            return Ok(());
        }
        state.last_index.insert(symbol, tick.index);
        state.oldest_pending_ms.get_or_insert(tick.time_ms);
        let pending = state.pending.entry(symbol).or_default();
        let day_changes =
            pending.ticks.last().is_some_and(|t| t.time_ms / DAY_MS != tick.time_ms / DAY_MS);
        if day_changes || pending.ticks.len() >= BLOCK_TICKS_MAX {
            let ticks = std::mem::take(&mut pending.ticks);
            self.write_block(&symbol, &ticks)?;
        }
        state.pending.entry(symbol).or_default().ticks.push(tick);
        Ok(())
    }

    /// Archives the ticks of an event batch and records it as processed.
    pub fn record(&self, batch: &EventBatch<Events>) -> Result<(), ArchiveError> {
        for event in &batch.events {
            if let Event::Tick { symbol, tick, quantity } = event {
                let archived = ArchivedTick {
                    index: tick.index,
                    time_ms: tick.time_ms,
                    price: tick.price,
                    quantity: *quantity,
                };
                self.append(*symbol, archived)?;
            }
        }
        self.processed(batch.last_index);
        Ok(())
    }

    /// The log index up to which every tick has been handed to the archive (written or
    /// waiting in memory): reads see every tick up to it.
    pub fn processed_index(&self) -> u64 {
        self.lock().processed
    }

    /// Records that every tick up to log index `index` has been handed to [`append`].
    ///
    /// [`append`]: TickArchive::append
    pub fn processed(&self, index: u64) {
        let mut state = self.lock();
        state.processed = state.processed.max(index);
    }

    /// Writes the pending ticks if the oldest waited [`FLUSH_AGE_MS`] (by sequencer time
    /// `now_ms`); returns the covered index.
    pub fn flush_if_due(&self, now_ms: u64) -> Result<u64, ArchiveError> {
        let due =
            self.lock().oldest_pending_ms.is_some_and(|t| now_ms.saturating_sub(t) >= FLUSH_AGE_MS);
        if due {
            self.flush()
        } else {
            // Nothing pending: everything processed is covered.
            let mut state = self.lock();
            if state.oldest_pending_ms.is_none() && state.processed > state.covered {
                state.covered = state.processed;
                write_position(&self.dir, state.covered)?;
            }
            Ok(state.covered)
        }
    }

    /// Writes every pending tick as blocks, syncs, and moves `covered` to what was processed.
    pub fn flush(&self) -> Result<u64, ArchiveError> {
        let mut state = self.lock();
        let pending: Vec<(Symbol, Vec<ArchivedTick>)> = state
            .pending
            .iter_mut()
            .filter(|(_, p)| !p.ticks.is_empty())
            .map(|(s, p)| (*s, std::mem::take(&mut p.ticks)))
            .collect();
        for (symbol, ticks) in &pending {
            self.write_block(symbol, ticks)?;
        }
        state.oldest_pending_ms = None;
        if state.processed > state.covered {
            state.covered = state.processed;
            write_position(&self.dir, state.covered)?;
        }
        Ok(state.covered)
    }

    /// Appends one block (ticks of one symbol and one UTC day) and syncs it.
    fn write_block(&self, symbol: &Symbol, ticks: &[ArchivedTick]) -> Result<(), ArchiveError> {
        let Some(first) = ticks.first() else { return Ok(()) };
        let dir = self.dir.join(symbol.as_str());
        fs::create_dir_all(&dir).map_err(io(&dir))?;
        let path = dir.join(format!("{}.tk", day_name(first.time_ms)));
        let mut file =
            OpenOptions::new().create(true).append(true).open(&path).map_err(io(&path))?;
        // Mixed scales (a product's precision changed mid-block) go in separate blocks.
        let mut start = 0;
        while start < ticks.len() {
            let scale = ticks[start].price.scale();
            let end = ticks[start..]
                .iter()
                .position(|t| t.price.scale() != scale)
                .map_or(ticks.len(), |n| start + n);
            file.write_all(&encode_block(&ticks[start..end])).map_err(io(&path))?;
            start = end;
        }
        file.sync_data().map_err(io(&path))?;
        Ok(())
    }

    /// Up to `limit` ticks of `symbol` with `from_index <= index <= to_index`, in order.
    pub fn by_index(
        &self,
        symbol: Symbol,
        from_index: u64,
        to_index: u64,
        limit: usize,
    ) -> Result<Vec<ArchivedTick>, ArchiveError> {
        self.read(
            symbol,
            |t| t.index >= from_index,
            |t| t.index <= to_index,
            limit,
            From::Index(from_index),
        )
    }

    /// Up to `limit` ticks of `symbol` with `from_ms <= time <= to_ms`, in order.
    pub fn by_time(
        &self,
        symbol: Symbol,
        from_ms: u64,
        to_ms: u64,
        limit: usize,
    ) -> Result<Vec<ArchivedTick>, ArchiveError> {
        self.read(
            symbol,
            |t| t.time_ms >= from_ms,
            |t| t.time_ms <= to_ms,
            limit,
            From::Time(from_ms),
        )
    }

    fn read(
        &self,
        symbol: Symbol,
        from: impl Fn(&ArchivedTick) -> bool,
        until: impl Fn(&ArchivedTick) -> bool,
        limit: usize,
        seek: From,
    ) -> Result<Vec<ArchivedTick>, ArchiveError> {
        let limit = limit.min(READ_TICKS_MAX);
        let mut out = Vec::new();
        let (pending, files) = {
            let state = self.lock();
            let pending = state.pending.get(&symbol).map(|p| p.ticks.clone()).unwrap_or_default();
            (pending, day_files(&self.dir.join(symbol.as_str()))?)
        };
        let start = self.first_file(&files, seek)?;
        'files: for path in &files[start..] {
            let index = self.file_index(path)?;
            let metas = index.lock().unwrap_or_else(|p| p.into_inner()).blocks.clone();
            for meta in metas {
                let skip = match seek {
                    From::Index(i) => meta.last_index < i,
                    From::Time(t) => meta.last_time < t,
                };
                if skip {
                    continue;
                }
                for tick in read_block(path, &meta)? {
                    if !from(&tick) {
                        continue;
                    }
                    if !until(&tick) || out.len() >= limit {
                        break 'files;
                    }
                    out.push(tick);
                }
            }
        }
        for tick in pending {
            if out.len() >= limit || !until(&tick) {
                break;
            }
            if from(&tick) && out.last().is_none_or(|last: &ArchivedTick| tick.index > last.index) {
                out.push(tick);
            }
        }
        Ok(out)
    }

    /// The first of `files` that can hold the sought tick: the last whose first tick is at or
    /// before it (files are in time and index order).
    fn first_file(&self, files: &[PathBuf], seek: From) -> Result<usize, ArchiveError> {
        if let From::Time(t) = seek {
            let name = format!("{}.tk", day_name(t));
            return Ok(files
                .iter()
                .position(|f| {
                    f.file_name().is_some_and(|n| n.to_string_lossy().as_ref() >= name.as_str())
                })
                .unwrap_or(files.len()));
        }
        let From::Index(i) = seek else { unreachable!() };
        let (mut lo, mut hi) = (0, files.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let first = self
                .file_index(&files[mid])?
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .blocks
                .first()
                .map_or(u64::MAX, |b| b.first_index);
            if first <= i {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo.saturating_sub(1))
    }

    /// The block index of a file, extended to the file's current length.
    fn file_index(&self, path: &Path) -> Result<Arc<Mutex<FileIndex>>, ArchiveError> {
        let index = {
            let mut state = self.lock();
            if !state.indexes.contains_key(path) && state.indexes.len() >= INDEX_CACHE_FILES_MAX {
                state.indexes.clear();
            }
            Arc::clone(state.indexes.entry(path.to_path_buf()).or_default())
        };
        {
            let mut guard = index.lock().unwrap_or_else(|p| p.into_inner());
            let len = fs::metadata(path).map_err(io(path))?.len();
            if len > guard.covered_len {
                let mut file = File::open(path).map_err(io(path))?;
                file.seek(SeekFrom::Start(guard.covered_len)).map_err(io(path))?;
                let mut bytes = Vec::new();
                file.take(len - guard.covered_len).read_to_end(&mut bytes).map_err(io(path))?;
                let base = guard.covered_len;
                let mut at = 0usize;
                while at + HEADER_BYTES <= bytes.len() {
                    let Some(meta) = parse_header(&bytes[at..], base + at as u64) else {
                        return Err(ArchiveError::Damaged {
                            path: path.to_path_buf(),
                            offset: base + at as u64,
                        });
                    };
                    if at + meta.len as usize > bytes.len() {
                        break; // being written
                    }
                    at += meta.len as usize;
                    guard.blocks.push(meta);
                }
                guard.covered_len = base + at as u64;
            }
        }
        Ok(index)
    }

    /// Every archived tick of `symbol`, file by file (for audits of a whole history).
    pub fn scan(
        &self,
        symbol: Symbol,
        mut each: impl FnMut(ArchivedTick),
    ) -> Result<(), ArchiveError> {
        for path in day_files(&self.dir.join(symbol.as_str()))? {
            let bytes = fs::read(&path).map_err(io(&path))?;
            let mut at = 0usize;
            while at + HEADER_BYTES <= bytes.len() {
                let meta = parse_header(&bytes[at..], at as u64).ok_or_else(|| {
                    ArchiveError::Damaged { path: path.clone(), offset: at as u64 }
                })?;
                let end = at + meta.len as usize;
                let block = bytes.get(at..end).ok_or_else(|| ArchiveError::Damaged {
                    path: path.clone(),
                    offset: at as u64,
                })?;
                for tick in decode_block(block).ok_or_else(|| ArchiveError::Damaged {
                    path: path.clone(),
                    offset: at as u64,
                })? {
                    each(tick);
                }
                at = end;
            }
        }
        for tick in self.lock().pending.get(&symbol).map(|p| p.ticks.clone()).unwrap_or_default() {
            each(tick);
        }
        Ok(())
    }

    /// The symbols that have archived ticks.
    pub fn symbols(&self) -> Result<Vec<Symbol>, ArchiveError> {
        let mut out: Vec<Symbol> = fs::read_dir(&self.dir)
            .map_err(io(&self.dir))?
            .filter_map(|e| e.ok()?.file_name().to_str().and_then(Symbol::new))
            .collect();
        for symbol in self.lock().pending.keys() {
            if !out.contains(symbol) {
                out.push(*symbol);
            }
        }
        out.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        Ok(out)
    }

    /// Deletes day files older than `keep_days` days before `now_ms` (0 keeps everything).
    pub fn prune(&self, now_ms: u64, keep_days: u64) -> Result<usize, ArchiveError> {
        if keep_days == 0 {
            return Ok(0);
        }
        let oldest_kept = format!("{}.tk", day_name(now_ms.saturating_sub(keep_days * DAY_MS)));
        let mut removed = 0;
        for symbol in self.symbols()? {
            for path in day_files(&self.dir.join(symbol.as_str()))? {
                if path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().as_ref() < oldest_kept.as_str())
                {
                    fs::remove_file(&path).map_err(io(&path))?;
                    self.lock().indexes.remove(&path);
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }
}

#[derive(Debug, Clone, Copy)]
enum From {
    Index(u64),
    Time(u64),
}

/// The day files of a symbol's directory, oldest first.
fn day_files(dir: &Path) -> Result<Vec<PathBuf>, ArchiveError> {
    let mut files: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "tk"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(ArchiveError::Io { path: dir.to_path_buf(), source: e }),
    };
    files.sort();
    Ok(files)
}

/// Cuts a block torn by a crash at the end of `path`; returns the file's last index.
///
/// A bad block is torn only if it starts after `covered`: such ticks were never promised
/// and the log still holds them. A bad block at or below `covered` was complete once: it is
/// damage, left in place for reads (and audits) to report.
fn repair_tail(path: &Path, covered: u64) -> Result<Option<u64>, ArchiveError> {
    let bytes = fs::read(path).map_err(io(path))?;
    let mut at = 0usize;
    let mut last = None;
    while at < bytes.len() {
        let meta = parse_header(&bytes[at..], at as u64);
        let block = meta.and_then(|m| bytes.get(at..at + m.len as usize));
        match (meta, block.and_then(decode_block)) {
            (Some(meta), Some(_)) => {
                last = Some(meta.last_index);
                at += meta.len as usize;
            }
            (Some(meta), None) if meta.first_index <= covered => {
                tracing::error!(path = %path.display(), offset = at, "tick archive: a damaged block below the archived position");
                last = Some(meta.last_index);
                at = (at + meta.len as usize).min(bytes.len());
            }
            _ => break,
        }
    }
    if at < bytes.len() {
        let file = OpenOptions::new().write(true).open(path).map_err(io(path))?;
        file.set_len(at as u64).map_err(io(path))?;
        file.sync_all().map_err(io(path))?;
        tracing::warn!(path = %path.display(), cut = bytes.len() - at, "tick archive: cut a torn block at the end of a file");
    }
    Ok(last)
}

fn read_position(dir: &Path) -> Result<u64, ArchiveError> {
    let path = dir.join(POSITION_FILE);
    match fs::read(&path) {
        Ok(bytes) if bytes.len() == 12 => {
            let value = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
            let crc = u32::from_le_bytes(bytes[8..].try_into().expect("4 bytes"));
            // A damaged position only costs a longer replay: start from 0.
            Ok(if crc32c::crc32c(&bytes[..8]) == crc { value } else { 0 })
        }
        Ok(_) => Ok(0),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(source) => Err(ArchiveError::Io { path, source }),
    }
}

fn write_position(dir: &Path, covered: u64) -> Result<(), ArchiveError> {
    let path = dir.join(POSITION_FILE);
    let mut bytes = covered.to_le_bytes().to_vec();
    bytes.extend_from_slice(&crc32c::crc32c(&bytes).to_le_bytes());
    let mut file = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(&path)
        .map_err(io(&path))?;
    file.write_all(&bytes).map_err(io(&path))?;
    file.sync_data().map_err(io(&path))?;
    Ok(())
}

fn put_varint(out: &mut Vec<u8>, value: u64) {
    put_varint_wide(out, u128::from(value));
}

/// LEB128 of a value up to 128 bits (a quantity's mantissa).
fn put_varint_wide(out: &mut Vec<u8>, mut value: u128) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn get_varint_wide(bytes: &[u8], at: &mut usize) -> Option<u128> {
    let mut value = 0u128;
    for shift in (0..128).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u128::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
    }
    None
}

/// A LEB128 value that must fit 64 bits (a larger one is damage).
fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    get_varint_wide(bytes, at).and_then(|value| u64::try_from(value).ok())
}

fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// The i64 mantissa of a price (prices are at most 10 decimals; anything wider is a bug).
fn mantissa(price: Decimal) -> i64 {
    i64::try_from(price.mantissa()).expect("a price's mantissa fits in i64")
}

/// One block of ticks (one symbol, one day, one price scale) in the archive's format.
pub fn encode_block(ticks: &[ArchivedTick]) -> Vec<u8> {
    let first = ticks[0];
    let last = ticks[ticks.len() - 1];
    let scale = first.price.scale();
    let mut payload = Vec::with_capacity(ticks.len() * 6);
    for pair in ticks.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        put_varint(&mut payload, b.index - a.index);
        put_varint(&mut payload, zigzag(b.time_ms as i64 - a.time_ms as i64));
        put_varint(&mut payload, zigzag(mantissa(b.price) - mantissa(a.price)));
    }
    for tick in ticks {
        payload.push(tick.quantity.scale() as u8);
        put_varint_wide(&mut payload, tick.quantity.mantissa().unsigned_abs());
    }
    let mut out = Vec::with_capacity(HEADER_BYTES + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[0; 4]); // the checksum, below
    out.extend_from_slice(&((HEADER_BYTES + payload.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(ticks.len() as u32).to_le_bytes());
    for value in [first.index, last.index, first.time_ms, last.time_ms] {
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(&scale.to_le_bytes());
    out.extend_from_slice(&mantissa(first.price).to_le_bytes());
    out.extend_from_slice(&[0; 4]); // reserved, zero
    out.extend_from_slice(&payload);
    let crc = crc32c::crc32c(&out[8..]);
    out[4..8].copy_from_slice(&crc.to_le_bytes());
    out
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// A block's header, if it looks like one (the checksum is checked when it is decoded).
fn parse_header(bytes: &[u8], offset: u64) -> Option<BlockMeta> {
    if bytes.len() < HEADER_BYTES || (&bytes[..4] != MAGIC && &bytes[..4] != MAGIC_V1) {
        return None;
    }
    let len = u64::from(u32_at(bytes, 8));
    if len < HEADER_BYTES as u64 {
        return None;
    }
    Some(BlockMeta {
        offset,
        len,
        first_index: u64_at(bytes, 16),
        last_index: u64_at(bytes, 24),
        last_time: u64_at(bytes, 40),
    })
}

/// The ticks of a whole block, or `None` if its checksum or layout is wrong.
pub fn decode_block(block: &[u8]) -> Option<Vec<ArchivedTick>> {
    let with_quantities = block.get(..4)? == MAGIC;
    if block.len() < HEADER_BYTES
        || !(with_quantities || &block[..4] == MAGIC_V1)
        || crc32c::crc32c(&block[8..]) != u32_at(block, 4)
    {
        return None;
    }
    let count = u32_at(block, 12) as usize;
    let scale = u32_at(block, 48);
    let mut index = u64_at(block, 16);
    let mut time = u64_at(block, 32);
    let mut mantissa = i64::from_le_bytes(block[52..60].try_into().ok()?);
    if count == 0 || count > BLOCK_TICKS_MAX || scale > 28 {
        return None;
    }
    let price = |m: i64| Decimal::from_i128_with_scale(i128::from(m), scale);
    let mut ticks = Vec::with_capacity(count);
    let quantity = Decimal::ZERO;
    ticks.push(ArchivedTick { index, time_ms: time, price: price(mantissa), quantity });
    let mut at = HEADER_BYTES;
    for _ in 1..count {
        index = index.checked_add(get_varint(block, &mut at)?)?;
        time = time.checked_add_signed(unzigzag(get_varint(block, &mut at)?))?;
        mantissa = mantissa.checked_add(unzigzag(get_varint(block, &mut at)?))?;
        ticks.push(ArchivedTick { index, time_ms: time, price: price(mantissa), quantity });
    }
    if with_quantities {
        for tick in &mut ticks {
            let scale = u32::from(*block.get(at)?);
            at += 1;
            let mantissa = i128::try_from(get_varint_wide(block, &mut at)?).ok()?;
            if scale > 28 || mantissa >= 1 << 96 {
                return None;
            }
            tick.quantity = Decimal::from_i128_with_scale(mantissa, scale);
        }
    }
    let header_says = (u64_at(block, 24), u64_at(block, 40));
    (at == block.len() && header_says == (index, time)).then_some(ticks)
}

fn read_block(path: &Path, meta: &BlockMeta) -> Result<Vec<ArchivedTick>, ArchiveError> {
    let mut file = File::open(path).map_err(io(path))?;
    file.seek(SeekFrom::Start(meta.offset)).map_err(io(path))?;
    let mut block = vec![0; meta.len as usize];
    file.read_exact(&mut block).map_err(io(path))?;
    decode_block(&block)
        .ok_or(ArchiveError::Damaged { path: path.to_path_buf(), offset: meta.offset })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    const DAY0: u64 = 1_795_305_600_000; // 2026-11-22 00:00 UTC

    fn btc() -> Symbol {
        Symbol::new("BTCUSDT").unwrap()
    }

    fn tick(index: u64, time_ms: u64, price: Decimal) -> ArchivedTick {
        let quantity = Decimal::new(i64::try_from(index % 1_000).unwrap(), 3);
        ArchivedTick { index, time_ms, price, quantity }
    }

    #[test]
    fn day_names_are_utc_dates() {
        assert_eq!(day_name(0), "19700101");
        assert_eq!(day_name(DAY0), "20261122");
        assert_eq!(day_name(DAY0 - 1), "20261121");
        assert_eq!(day_name(951_782_400_000), "20000229");
    }

    #[test]
    fn blocks_round_trip_and_a_flipped_bit_is_caught() {
        let ticks: Vec<_> = (0..200)
            .map(|i| {
                tick(
                    10 + i * 37,
                    DAY0 + i * 250,
                    dec!(96483.72) + Decimal::new((i as i64 % 7) - 3, 2),
                )
            })
            .collect();
        let block = encode_block(&ticks);
        assert_eq!(decode_block(&block).unwrap(), ticks);
        assert!(
            block.len() < HEADER_BYTES + ticks.len() * 10,
            "about 9 bytes a tick with its quantity: {}",
            block.len()
        );
        let mut bad = block.clone();
        bad[HEADER_BYTES + 40] ^= 1;
        assert!(decode_block(&bad).is_none());
    }

    /// Blocks written before quantities were kept ("TKB1") still read, with quantity zero.
    #[test]
    fn a_block_of_the_first_format_reads_with_zero_quantities() {
        let ticks: Vec<_> = (0..10)
            .map(|i| tick(5 + i, DAY0 + i * 250, dec!(1.0850) + Decimal::new(i as i64, 4)))
            .collect();
        let mut block = encode_block(&ticks);
        // The first format is this one without the quantities at the end.
        let quantities: usize = ticks
            .iter()
            .map(|t| {
                let mut bytes = Vec::new();
                put_varint_wide(&mut bytes, t.quantity.mantissa().unsigned_abs());
                1 + bytes.len()
            })
            .sum();
        block.truncate(block.len() - quantities);
        block[..4].copy_from_slice(MAGIC_V1);
        let len = block.len() as u32;
        block[8..12].copy_from_slice(&len.to_le_bytes());
        let crc = crc32c::crc32c(&block[8..]);
        block[4..8].copy_from_slice(&crc.to_le_bytes());
        let read = decode_block(&block).unwrap();
        assert_eq!(read.len(), ticks.len());
        for (read, written) in read.iter().zip(&ticks) {
            assert_eq!(
                (read.index, read.time_ms, read.price),
                (written.index, written.time_ms, written.price)
            );
            assert_eq!(read.quantity, Decimal::ZERO);
        }
    }

    #[test]
    fn ticks_are_read_by_index_and_time_from_files_and_memory() {
        let dir = tempfile::tempdir().unwrap();
        let archive = TickArchive::open(dir.path()).unwrap();
        for i in 0..600u64 {
            archive
                .append(
                    btc(),
                    tick(i * 3 + 1, DAY0 + i * 1000, dec!(100.5) + Decimal::new(i as i64, 1)),
                )
                .unwrap();
        }
        // 512 in two written blocks, 88 still in memory.
        let got = archive.by_index(btc(), 700, 1_000, 50).unwrap();
        assert_eq!(got.first().map(|t| t.index), Some(700));
        assert_eq!(got.len(), 50);
        assert!(got.windows(2).all(|w| w[1].index == w[0].index + 3));
        let tail = archive.by_index(btc(), 1_700, u64::MAX, 1_000).unwrap();
        assert_eq!(tail.first().map(|t| t.index), Some(1_702));
        assert_eq!(tail.last().map(|t| t.index), Some(1_798));
        let by_time = archive.by_time(btc(), DAY0 + 100_500, DAY0 + 102_000, 10).unwrap();
        assert_eq!(
            by_time.iter().map(|t| t.time_ms).collect::<Vec<_>>(),
            vec![DAY0 + 101_000, DAY0 + 102_000]
        );
        assert_eq!(by_time[0].price, dec!(110.6));
    }

    #[test]
    fn a_restart_keeps_what_was_flushed_and_skips_replayed_ticks() {
        let dir = tempfile::tempdir().unwrap();
        {
            let archive = TickArchive::open(dir.path()).unwrap();
            for i in 1..=10 {
                archive.append(btc(), tick(i, DAY0 + i, dec!(1))).unwrap();
            }
            archive.processed(12);
            assert_eq!(archive.flush().unwrap(), 12);
            archive.append(btc(), tick(13, DAY0 + 13, dec!(1))).unwrap(); // lost in the crash
        }
        let archive = TickArchive::open(dir.path()).unwrap();
        assert_eq!(archive.covered_index(), 12);
        // The log is replayed from 12: tick 5 again is skipped, 13 comes back.
        archive.append(btc(), tick(5, DAY0 + 5, dec!(9))).unwrap();
        archive.append(btc(), tick(13, DAY0 + 13, dec!(1))).unwrap();
        let all = archive.by_index(btc(), 0, u64::MAX, 100).unwrap();
        assert_eq!(
            all.iter().map(|t| t.index).collect::<Vec<_>>(),
            [(1..=10).collect::<Vec<_>>(), vec![13]].concat()
        );
        assert_eq!(all[4].price, dec!(1));
    }

    #[test]
    fn a_torn_block_at_the_end_is_cut_and_damage_elsewhere_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        {
            let archive = TickArchive::open(dir.path()).unwrap();
            for i in 1..=20 {
                archive.append(btc(), tick(i, DAY0 + i, dec!(1))).unwrap();
            }
            archive.processed(20);
            archive.flush().unwrap();
        }
        let file = dir.path().join("BTCUSDT/20261122.tk");
        let good = fs::metadata(&file).unwrap().len();
        let mut f = OpenOptions::new().append(true).open(&file).unwrap();
        f.write_all(
            &encode_block(&[tick(21, DAY0 + 21, dec!(1)), tick(22, DAY0 + 22, dec!(1))])[..40],
        )
        .unwrap();
        drop(f);
        let archive = TickArchive::open(dir.path()).unwrap();
        assert_eq!(fs::metadata(&file).unwrap().len(), good);
        assert_eq!(archive.by_index(btc(), 0, u64::MAX, 100).unwrap().len(), 20);
        drop(archive);

        let mut bytes = fs::read(&file).unwrap();
        bytes[HEADER_BYTES + 3] ^= 0x40;
        fs::write(&file, &bytes).unwrap();
        // Below the archived position: damage, kept and reported, never cut as a torn tail.
        let archive = TickArchive::open(dir.path()).unwrap();
        assert_eq!(fs::metadata(&file).unwrap().len(), good);
        let error = archive.by_index(btc(), 0, u64::MAX, 100).unwrap_err();
        assert!(matches!(error, ArchiveError::Damaged { .. }), "{error}");
    }

    #[test]
    fn old_days_are_pruned_when_a_retention_is_set() {
        let dir = tempfile::tempdir().unwrap();
        let archive = TickArchive::open(dir.path()).unwrap();
        for day in 0..5u64 {
            archive.append(btc(), tick(day + 1, DAY0 + day * DAY_MS, dec!(1))).unwrap();
            archive.flush().unwrap();
        }
        assert_eq!(archive.prune(DAY0 + 4 * DAY_MS, 0).unwrap(), 0);
        assert_eq!(archive.prune(DAY0 + 4 * DAY_MS, 2).unwrap(), 2);
        let left = archive.by_index(btc(), 0, u64::MAX, 10).unwrap();
        assert_eq!(left.iter().map(|t| t.index).collect::<Vec<_>>(), vec![3, 4, 5]);
    }
}
