//! The file layer under the log, behind a trait so that faults can be injected.
//!
//! [`FsStorage`] is the real thing (std::fs, `fdatasync`, directory fsync).
//! [`FaultyStorage`] keeps files in memory, tells written-but-unsynced bytes from
//! synced ones, and injects crashes, torn writes, short writes, failed syncs and
//! flipped bits, deterministically from a seed.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

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
    /// Opens an existing file for appending.
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn StorageFile>>;
    /// Creates a new, empty file (failing if it exists) and makes its name durable.
    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageFile>>;
    /// Removes a file and makes the removal durable.
    fn remove_file(&self, path: &Path) -> io::Result<()>;
}

/// One open file that the log appends to.
pub trait StorageFile: Send + Debug {
    /// Appends all of `bytes` at the end of the file (not durable until `sync_data`).
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Makes every byte written so far durable (`fdatasync`).
    fn sync_data(&mut self) -> io::Result<()>;
    /// Cuts (or extends with zeros) the file to `len` bytes; durable after `sync_data`.
    fn set_len(&mut self, len: u64) -> io::Result<()>;
}

/// [`Storage`] over the real file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct FsStorage;

/// A file of [`FsStorage`].
#[derive(Debug)]
struct FsFile {
    /// The file, opened in append mode so every write lands at the end.
    file: File,
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

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn StorageFile>> {
        let file = OpenOptions::new().append(true).open(path)?;
        Ok(Box::new(FsFile { file }))
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageFile>> {
        let file = OpenOptions::new().append(true).create_new(true).open(path)?;
        Self::sync_dir(path)?;
        Ok(Box::new(FsFile { file }))
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)?;
        Self::sync_dir(path)
    }
}

impl StorageFile for FsFile {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn set_len(&mut self, len: u64) -> io::Result<()> {
        self.file.set_len(len)
    }
}

/// In-memory [`Storage`] with injectable faults, for tests in this crate and others.
///
/// Every file holds what a reader sees now (`data`) and what would survive a power
/// loss (`durable`). Cloning shares the same files, so a test keeps a clone to inject
/// faults while the log owns another. After [`FaultyStorage::crash`] every operation
/// fails (the process is dead) until [`FaultyStorage::restart`].
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
    /// Whether the next `write_all` writes only a prefix and then fails.
    short_write_next: bool,
    /// How many upcoming `sync_data` calls fail.
    sync_failures_pending: u32,
    /// How many bytes were written and how many syncs succeeded, for tests to check group commit.
    counters: FaultyCounters,
}

/// What a [`FaultyStorage`] has been asked to do so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultyCounters {
    /// Successful `write_all` calls.
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
    /// Whether bytes below `durable.len()` may differ from `durable` (after `set_len`),
    /// so the next sync must copy everything rather than only the appended tail.
    rewritten: bool,
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
    /// random prefix (possibly empty, never all) of the bytes appended since its last sync.
    pub fn crash_torn(&self) {
        self.crash_keeping(true);
    }

    fn crash_keeping(&self, torn: bool) {
        let mut state = self.lock();
        state.crashed = true;
        let paths: Vec<PathBuf> = state.files.keys().cloned().collect();
        for path in paths {
            let file = state.files.get(&path).expect("listed").clone();
            let appended = file.data.len() > file.durable.len()
                && file.data[..file.durable.len()] == file.durable[..];
            let kept = if torn && appended {
                let unsynced = file.data.len() - file.durable.len();
                state.random_below(unsynced as u64) as usize
            } else {
                0
            };
            let file = state.files.get_mut(&path).expect("listed");
            let keep = if appended { file.durable.len() + kept } else { file.durable.len() };
            file.data = if appended { file.data[..keep].to_vec() } else { file.durable.clone() };
            // What a torn write left behind is what the disk holds now.
            file.durable = file.data.clone();
        }
    }

    /// Brings the storage back after a crash, as a restarted process would find it.
    pub fn restart(&self) {
        self.lock().crashed = false;
    }

    /// Flips one bit of a file, both in what is read and in what is durable (media damage).
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
    }

    /// The next `write_all` writes a random strict prefix of its bytes, then fails.
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

    /// Bytes of `path` that are written but not yet synced.
    pub fn unsynced_len(&self, path: &Path) -> Option<u64> {
        let state = self.lock();
        let file = state.files.get(path)?;
        Some(file.data.len().saturating_sub(file.durable.len()) as u64)
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

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn StorageFile>> {
        let mut state = self.lock();
        state.check_alive()?;
        state.file_mut(path)?;
        Ok(Box::new(FaultyFile { storage: self.clone(), path: path.to_path_buf() }))
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageFile>> {
        let mut state = self.lock();
        state.check_alive()?;
        if state.files.contains_key(path) {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, path.display().to_string()));
        }
        // Like FsStorage, creation makes the name durable at once (directory fsync).
        state.files.insert(path.to_path_buf(), MemFile::default());
        Ok(Box::new(FaultyFile { storage: self.clone(), path: path.to_path_buf() }))
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        let mut state = self.lock();
        state.check_alive()?;
        state.files.remove(path).map(drop).ok_or_else(|| not_found(path))
    }
}

impl StorageFile for FaultyFile {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut state = self.storage.lock();
        state.check_alive()?;
        if std::mem::take(&mut state.short_write_next) {
            let written = state.random_below(bytes.len() as u64) as usize;
            state.file_mut(&self.path)?.data.extend_from_slice(&bytes[..written]);
            return Err(io::Error::other(format!("injected short write: {written} bytes")));
        }
        state.file_mut(&self.path)?.data.extend_from_slice(bytes);
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
        if file.rewritten || file.data.len() < file.durable.len() {
            file.durable.clone_from(&file.data);
        } else {
            // Append-only since the last sync: copying only the tail keeps syncs O(batch).
            let synced = file.durable.len();
            file.durable.extend_from_slice(&file.data[synced..]);
        }
        file.rewritten = false;
        state.counters.syncs += 1;
        Ok(())
    }

    fn set_len(&mut self, len: u64) -> io::Result<()> {
        let mut state = self.storage.lock();
        state.check_alive()?;
        let len = usize::try_from(len).map_err(io::Error::other)?;
        let file = state.file_mut(&self.path)?;
        file.data.resize(len, 0);
        file.rewritten = true;
        Ok(())
    }
}
