//! The file layer under the log, behind a trait so that faults can be injected.
//!
//! [`FsStorage`] is the real thing (std::fs, positional writes, `fdatasync`, directory
//! fsync). [`FaultyStorage`] keeps files in memory, tells written-but-unsynced bytes from
//! synced ones, and injects crashes, torn writes, short writes, failed syncs and
//! flipped bits, deterministically from a seed.
//!
//! The log writes records by positional overwrite into segments that were filled with
//! zeros and synced beforehand ([`Storage::create_zeroed`]): `fdatasync` after an
//! overwrite inside the file's size has no size change to write back, so it costs one
//! synchronous I/O instead of two.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::constants::SEGMENT_PREFILL_CHUNK_BYTES;

/// The operations the log needs from a file system.
///
/// Paths are full paths; `dir` arguments name the directory that holds the segments.
pub trait Storage: Send + Sync + Debug + 'static {
    /// Creates `dir` and its parents if missing.
    fn create_dir_all(&self, dir: &Path) -> io::Result<()>;
    /// Names (not paths) of the regular files directly inside `dir`, in no particular order.
    fn list_files(&self, dir: &Path) -> io::Result<Vec<String>>;
    /// The whole content of the file at `path`.
    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// The whole content of a file no one writes while the result lives: a log segment while
    /// the log opens. Read in place where the storage can (a file system maps it), else copied.
    fn read_unwritten(&self, path: &Path) -> io::Result<FileBytes> {
        self.read_file(path).map(FileBytes::Read)
    }
    /// `len` bytes of the file at `path` from `offset` (a Raft log reads one entry).
    fn read_range(&self, path: &Path, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        let bytes = self.read_file(path)?;
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        bytes.get(start..start.saturating_add(len)).map(<[u8]>::to_vec).ok_or_else(|| {
            io::Error::new(io::ErrorKind::UnexpectedEof, "read past the end of the file")
        })
    }
    /// Opens an existing file for positional writes.
    fn open_write(&self, path: &Path) -> io::Result<Box<dyn StorageFile>>;
    /// Creates a new, empty file (failing if it exists) and makes its name durable.
    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageFile>>;
    /// Creates a new file (failing if it exists) holding `len` zero bytes, and makes those
    /// bytes durable (not its name: the caller renames it into place with [`Storage::rename`]).
    fn create_zeroed(&self, path: &Path, len: u64) -> io::Result<()>;
    /// Renames `from` to `to` (replacing `to` if it exists) and makes the change durable.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Removes a file and makes the removal durable.
    fn remove_file(&self, path: &Path) -> io::Result<()>;
}

/// A whole file's bytes, copied or mapped.
#[derive(Debug)]
pub enum FileBytes {
    /// Read into memory of its own.
    Read(Vec<u8>),
    /// Mapped from the file.
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Read(bytes) => bytes,
            FileBytes::Mapped(map) => map,
        }
    }
}

/// One open file that the log writes to.
pub trait StorageFile: Send + Debug {
    /// Writes all of `bytes` at byte `offset`, overwriting what is there and extending the
    /// file if needed (not durable until `sync_data`).
    fn write_all_at(&mut self, bytes: &[u8], offset: u64) -> io::Result<()>;
    /// Makes every byte written so far durable (`fdatasync`).
    fn sync_data(&mut self) -> io::Result<()>;
    /// Cuts (or extends with zeros) the file to `len` bytes; durable after `sync_data`.
    fn set_len(&mut self, len: u64) -> io::Result<()>;
    /// Something another thread can call to make every byte written to this file so far
    /// durable (`fdatasync`), if the storage has it; `None` (the default): sync here.
    fn sync_handle(&self) -> Option<SyncHandle> {
        None
    }
}

/// Makes the writes to one file durable from another thread ([`StorageFile::sync_handle`]).
pub type SyncHandle = Box<dyn FnOnce() -> io::Result<()> + Send>;

/// [`Storage`] over the real file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct FsStorage;

/// A file of [`FsStorage`].
#[derive(Debug)]
struct FsFile {
    /// The file, opened for writing (not in append mode: on Linux `pwrite` on an
    /// `O_APPEND` file ignores the offset). Shared with its sync handles.
    file: Arc<File>,
}

impl FsStorage {
    /// Makes a directory entry change (create, remove) durable: fdatasync on a file
    /// does not cover its name in the directory.
    fn sync_dir(path: &Path) -> io::Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        File::open(dir)?.sync_all()
    }
}

impl Storage for FsStorage {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        std::fs::create_dir_all(dir)
    }

    fn list_files(&self, dir: &Path) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        Ok(names)
    }

    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn read_unwritten(&self, path: &Path) -> io::Result<FileBytes> {
        let file = File::open(path)?;
        if file.metadata()?.len() == 0 {
            return Ok(FileBytes::Read(Vec::new()));
        }
        // Mapped, not read: a copy of each 64 MB segment went out to memory and came back for
        // the scan, a tenth of the log reader's time at start-up and memory traffic beside the
        // replay it feeds.
        // SAFETY: the caller promises that nobody writes or truncates the file while the map
        // lives (the log reads a segment so only while it opens, before it has a writer, and
        // drops the map before it cuts a torn tail), so the bytes cannot change under it.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::MmapOptions::new().populate().map(&file)? };
        Ok(FileBytes::Mapped(map))
    }

    fn read_range(&self, path: &Path, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        use std::io::{Read, Seek};
        let mut file = std::fs::File::open(path)?;
        file.seek(io::SeekFrom::Start(offset))?;
        // Read into spare room: no zeroing of a buffer about to be overwritten.
        let mut bytes = Vec::with_capacity(len);
        file.take(len as u64).read_to_end(&mut bytes)?;
        if bytes.len() < len {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "read past the end of the file",
            ));
        }
        Ok(bytes)
    }

    fn open_write(&self, path: &Path) -> io::Result<Box<dyn StorageFile>> {
        let file = OpenOptions::new().write(true).open(path)?;
        Ok(Box::new(FsFile { file: Arc::new(file) }))
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageFile>> {
        let file = OpenOptions::new().write(true).create_new(true).open(path)?;
        Self::sync_dir(path)?;
        Ok(Box::new(FsFile { file: Arc::new(file) }))
    }

    fn create_zeroed(&self, path: &Path, len: u64) -> io::Result<()> {
        let file = OpenOptions::new().write(true).create_new(true).open(path)?;
        // Real zeros, not `fallocate` or `set_len`: unwritten extents and holes would
        // still need a metadata update on the first sync after each overwrite. Each chunk
        // is synced before the next is written, so that the fill (running beside the log)
        // never has more than a chunk queued at the device ahead of the log's own syncs.
        let zeros = vec![0u8; SEGMENT_PREFILL_CHUNK_BYTES];
        let mut offset = 0;
        while offset < len {
            let chunk = usize::try_from(len - offset).unwrap_or(usize::MAX).min(zeros.len());
            file.write_all_at(&zeros[..chunk], offset)?;
            file.sync_data()?;
            offset += chunk as u64;
        }
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)?;
        Self::sync_dir(to)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)?;
        Self::sync_dir(path)
    }
}

impl StorageFile for FsFile {
    fn write_all_at(&mut self, bytes: &[u8], offset: u64) -> io::Result<()> {
        self.file.write_all_at(bytes, offset)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn set_len(&mut self, len: u64) -> io::Result<()> {
        self.file.set_len(len)
    }

    fn sync_handle(&self) -> Option<SyncHandle> {
        let file = Arc::clone(&self.file); // no descriptor of its own: no syscall per append
        Some(Box::new(move || file.sync_data()))
    }
}

/// In-memory [`Storage`] with injectable faults, for tests in this crate and others.
///
/// Every file holds what a reader sees now (`data`) and what would survive a power
/// loss (`durable`), plus the writes since the last sync, in order. Cloning shares the
/// same files, so a test keeps a clone to inject faults while the log owns another.
/// After [`FaultyStorage::crash`] every operation fails (the process is dead) until
/// [`FaultyStorage::restart`].
///
/// An overwrite that was not synced reverts to the bytes that were durable before it
/// (for a pre-written segment: zeros) when the storage crashes; a torn crash keeps a
/// random prefix of the unsynced writes, in the order they were made.
#[derive(Debug, Clone)]
pub struct FaultyStorage {
    /// The files and the pending faults, shared by every clone and open file.
    state: Arc<Mutex<FaultyState>>,
}

/// Everything behind the [`FaultyStorage`] lock.
#[derive(Debug)]
struct FaultyState {
    /// Files by full path.
    files: BTreeMap<PathBuf, MemFile>,
    /// Deterministic random source (xorshift64*), seeded by the test.
    rng: u64,
    /// Whether a crash happened and no restart yet: every operation then fails.
    crashed: bool,
    /// Whether the next `write_all_at` writes only a prefix and then fails.
    short_write_next: bool,
    /// How many upcoming `sync_data` calls fail.
    sync_failures_pending: u32,
    /// How many bytes were written and how many syncs succeeded, for tests to check group commit.
    counters: FaultyCounters,
}

/// What a [`FaultyStorage`] has been asked to do so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultyCounters {
    /// Successful `write_all_at` calls (zero-filled files made by `create_zeroed` not counted).
    pub writes: u64,
    /// Successful `sync_data` calls.
    pub syncs: u64,
}

/// One in-memory file.
#[derive(Debug, Default, Clone)]
struct MemFile {
    /// What a reader sees now, synced or not.
    data: Vec<u8>,
    /// What survives a crash: the content as of the last successful sync.
    durable: Vec<u8>,
    /// Changes since the last sync, oldest first: applied to `durable` by a sync, in part
    /// by a torn crash, not at all by a clean crash.
    pending: Vec<Change>,
}

/// One unsynced change to a [`MemFile`].
#[derive(Debug, Clone)]
enum Change {
    /// Bytes written at an offset (a write past the end extends the file, zeros in between).
    Write {
        /// Where the bytes go.
        offset: usize,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// The file cut or extended with zeros to this length.
    SetLen(usize),
}

impl Change {
    /// Applies the change to `content`, keeping at most `budget` written bytes; returns how
    /// many written bytes it kept.
    fn apply(&self, content: &mut Vec<u8>, budget: usize) -> usize {
        match self {
            Change::Write { offset, bytes } => {
                let kept = bytes.len().min(budget);
                if kept > 0 {
                    let end = offset + kept;
                    if content.len() < end {
                        content.resize(end, 0);
                    }
                    content[*offset..end].copy_from_slice(&bytes[..kept]);
                }
                kept
            }
            Change::SetLen(len) => {
                content.resize(*len, 0);
                0
            }
        }
    }

    /// Bytes the change writes.
    fn written_len(&self) -> usize {
        match self {
            Change::Write { bytes, .. } => bytes.len(),
            Change::SetLen(_) => 0,
        }
    }
}

/// A file of [`FaultyStorage`]: a path into the shared state.
#[derive(Debug)]
struct FaultyFile {
    /// The storage the file lives in.
    storage: FaultyStorage,
    /// The file's full path.
    path: PathBuf,
}

impl FaultyStorage {
    /// An empty storage whose random choices (torn prefixes, short writes) follow `seed`.
    pub fn new(seed: u64) -> Self {
        let state = FaultyState {
            files: BTreeMap::new(),
            rng: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            crashed: false,
            short_write_next: false,
            sync_failures_pending: 0,
            counters: FaultyCounters::default(),
        };
        Self { state: Arc::new(Mutex::new(state)) }
    }

    fn lock(&self) -> MutexGuard<'_, FaultyState> {
        // A test thread that panicked while holding the lock leaves consistent data.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Power loss: every file goes back to its durable content, and operations fail
    /// until [`FaultyStorage::restart`].
    pub fn crash(&self) {
        self.crash_keeping(false);
    }

    /// Power loss in the middle of writes: each file keeps its durable content plus a
    /// random prefix (possibly empty, never all) of the bytes written since its last sync,
    /// in the order they were written; the rest of those writes is lost (an overwrite
    /// leaves the bytes that were durable before it).
    pub fn crash_torn(&self) {
        self.crash_keeping(true);
    }

    fn crash_keeping(&self, torn: bool) {
        let mut state = self.lock();
        state.crashed = true;
        let paths: Vec<PathBuf> = state.files.keys().cloned().collect();
        for path in paths {
            let unsynced: usize = state.files[&path].pending.iter().map(Change::written_len).sum();
            let mut budget = if torn { state.random_below(unsynced as u64) as usize } else { 0 };
            let file = state.files.get_mut(&path).expect("listed");
            for change in std::mem::take(&mut file.pending) {
                if !torn {
                    break;
                }
                let kept = change.apply(&mut file.durable, budget);
                budget -= kept;
                if kept < change.written_len() {
                    break; // the tear: nothing written after it reached the disk
                }
            }
            // What a torn write left behind is what the disk holds now.
            file.data.clone_from(&file.durable);
        }
    }

    /// Brings the storage back after a crash, as a restarted process would find it.
    pub fn restart(&self) {
        self.lock().crashed = false;
    }

    /// Flips one bit of a file, in what is read, in what is durable and in unsynced writes
    /// covering it (media damage).
    ///
    /// Panics if the file or offset does not exist: that is a broken test.
    pub fn flip_bit(&self, path: &Path, offset: u64, bit: u8) {
        assert!(bit < 8, "bit {bit} is not within a byte");
        let mut state = self.lock();
        let file = state.files.get_mut(path).expect("flip_bit: no such file");
        let at = usize::try_from(offset).expect("offset fits");
        file.data[at] ^= 1 << bit;
        if at < file.durable.len() {
            file.durable[at] ^= 1 << bit;
        }
        for change in &mut file.pending {
            if let Change::Write { offset, bytes } = change {
                if let Some(byte) = at.checked_sub(*offset).and_then(|i| bytes.get_mut(i)) {
                    *byte ^= 1 << bit;
                }
            }
        }
    }

    /// The next `write_all_at` writes a random strict prefix of its bytes, then fails.
    pub fn short_write_next(&self) {
        self.lock().short_write_next = true;
    }

    /// The next `count` calls to `sync_data` fail without making anything durable.
    pub fn fail_syncs(&self, count: u32) {
        self.lock().sync_failures_pending = count;
    }

    /// Successful writes and syncs so far.
    pub fn counters(&self) -> FaultyCounters {
        self.lock().counters
    }

    /// Full paths of every file, sorted.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.lock().files.keys().cloned().collect()
    }

    /// What a reader of `path` sees now, if the file exists.
    pub fn contents(&self, path: &Path) -> Option<Vec<u8>> {
        self.lock().files.get(path).map(|file| file.data.clone())
    }

    /// What would survive a crash of `path` now, if the file exists.
    pub fn durable_contents(&self, path: &Path) -> Option<Vec<u8>> {
        self.lock().files.get(path).map(|file| file.durable.clone())
    }

    /// Bytes of `path` that are written but not yet synced.
    pub fn unsynced_len(&self, path: &Path) -> Option<u64> {
        let state = self.lock();
        let file = state.files.get(path)?;
        Some(file.pending.iter().map(Change::written_len).sum::<usize>() as u64)
    }

    /// Replaces the content of `path` (read and durable), e.g. to plant a segment in the
    /// format an older version wrote. Creates the file if missing.
    pub fn put_file(&self, path: &Path, bytes: &[u8]) {
        let file = MemFile { data: bytes.to_vec(), durable: bytes.to_vec(), pending: Vec::new() };
        self.lock().files.insert(path.to_path_buf(), file);
    }
}

impl FaultyState {
    /// xorshift64*: small, deterministic, good enough to pick prefixes.
    fn next_random(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..bound` (0 when `bound` is 0).
    fn random_below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            0
        } else {
            self.next_random() % bound
        }
    }

    fn check_alive(&self) -> io::Result<()> {
        if self.crashed {
            return Err(io::Error::other("faulty storage: crashed"));
        }
        Ok(())
    }

    fn file_mut(&mut self, path: &Path) -> io::Result<&mut MemFile> {
        self.files.get_mut(path).ok_or_else(|| not_found(path))
    }

    fn create(&mut self, path: &Path, file: MemFile) -> io::Result<()> {
        self.check_alive()?;
        if self.files.contains_key(path) {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, path.display().to_string()));
        }
        self.files.insert(path.to_path_buf(), file);
        Ok(())
    }
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, format!("no such file: {}", path.display()))
}

impl Storage for FaultyStorage {
    fn create_dir_all(&self, _dir: &Path) -> io::Result<()> {
        // Directories are implicit: a file's directory is its path's parent.
        self.lock().check_alive()
    }

    fn list_files(&self, dir: &Path) -> io::Result<Vec<String>> {
        let state = self.lock();
        state.check_alive()?;
        let names = state
            .files
            .keys()
            .filter(|path| path.parent() == Some(dir))
            .filter_map(|path| path.file_name().map(|name| name.to_string_lossy().into_owned()))
            .collect();
        Ok(names)
    }

    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        let state = self.lock();
        state.check_alive()?;
        state.files.get(path).map(|file| file.data.clone()).ok_or_else(|| not_found(path))
    }

    fn open_write(&self, path: &Path) -> io::Result<Box<dyn StorageFile>> {
        let mut state = self.lock();
        state.check_alive()?;
        state.file_mut(path)?;
        Ok(Box::new(FaultyFile { storage: self.clone(), path: path.to_path_buf() }))
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageFile>> {
        // Like FsStorage, creation makes the name durable at once (directory fsync).
        self.lock().create(path, MemFile::default())?;
        Ok(Box::new(FaultyFile { storage: self.clone(), path: path.to_path_buf() }))
    }

    fn create_zeroed(&self, path: &Path, len: u64) -> io::Result<()> {
        // Written and synced in one step: the file only matters once renamed into place,
        // and the log renames it only after this returned.
        let len = usize::try_from(len).map_err(io::Error::other)?;
        // `vec![0; n]` asks the allocator for zeroed memory, so untouched pages cost nothing.
        let file = MemFile { data: vec![0; len], durable: vec![0; len], pending: Vec::new() };
        self.lock().create(path, file)
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut state = self.lock();
        state.check_alive()?;
        let file = state.files.remove(from).ok_or_else(|| not_found(from))?;
        state.files.insert(to.to_path_buf(), file);
        Ok(())
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        let mut state = self.lock();
        state.check_alive()?;
        state.files.remove(path).map(drop).ok_or_else(|| not_found(path))
    }
}

impl StorageFile for FaultyFile {
    fn write_all_at(&mut self, bytes: &[u8], offset: u64) -> io::Result<()> {
        let mut state = self.storage.lock();
        state.check_alive()?;
        let offset = usize::try_from(offset).map_err(io::Error::other)?;
        let short = std::mem::take(&mut state.short_write_next);
        let written =
            if short { state.random_below(bytes.len() as u64) as usize } else { bytes.len() };
        let file = state.file_mut(&self.path)?;
        let change = Change::Write { offset, bytes: bytes[..written].to_vec() };
        change.apply(&mut file.data, written);
        file.pending.push(change);
        if short {
            return Err(io::Error::other(format!("injected short write: {written} bytes")));
        }
        state.counters.writes += 1;
        Ok(())
    }

    fn sync_data(&mut self) -> io::Result<()> {
        let mut state = self.storage.lock();
        state.check_alive()?;
        if state.sync_failures_pending > 0 {
            state.sync_failures_pending -= 1;
            return Err(io::Error::other("injected sync failure"));
        }
        let file = state.file_mut(&self.path)?;
        // Replaying the changes keeps a sync O(batch) rather than O(file).
        for change in std::mem::take(&mut file.pending) {
            change.apply(&mut file.durable, usize::MAX);
        }
        debug_assert_eq!(file.durable.len(), file.data.len());
        state.counters.syncs += 1;
        Ok(())
    }

    fn set_len(&mut self, len: u64) -> io::Result<()> {
        let mut state = self.storage.lock();
        state.check_alive()?;
        let len = usize::try_from(len).map_err(io::Error::other)?;
        let file = state.file_mut(&self.path)?;
        file.data.resize(len, 0);
        file.pending.push(Change::SetLen(len));
        Ok(())
    }
}
