//! Checksummed snapshots of the state machine, one file each.
//!
//! A snapshot at index `i` is the file `<dir>/<i, 20 digits>.snapshot`:
//! `[preamble 28 B][magic u32][version u32][index u64][term u64][len u64][crc32c u32][bytes]`,
//! little-endian; the CRC32C covers every header field before it and the bytes. The preamble
//! names the file for a person and puts the bytes at offset 64, so that a snapshot mapped
//! into memory is read in place: the state machine's archive needs its bytes aligned.
//! `save` writes a temporary file, syncs it, renames it into place and syncs the directory,
//! so a saved snapshot is durable and a crash leaves either the whole file or none.
//!
//! Snapshots were values in a sled tree before (the same header and bytes under the index's
//! big-endian key). Opening a directory that still holds that database copies each value, as
//! it is, damaged or not, behind the preamble into a file, then removes the database.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::constants::{SNAPSHOTS_KEPT, SNAPSHOT_HEADER_SIZE_BYTES, SNAPSHOT_SIZE_MAX_BYTES};

/// Marks a value as one of our snapshots ("SNAP").
const SNAPSHOT_MAGIC: u32 = 0x534e_4150;
/// Format version of the header above.
const SNAPSHOT_VERSION: u32 = 1;
/// Name of the sled tree that held snapshots.
const SNAPSHOT_TREE: &str = "snapshots";
/// The start of every snapshot file.
const FILE_PREAMBLE: &[u8; FILE_PREAMBLE_BYTES] = b"trading-platform snapshot\n\0\0";
/// Size of the preamble: header and preamble together are 64 bytes.
const FILE_PREAMBLE_BYTES: usize = 64 - SNAPSHOT_HEADER_SIZE_BYTES;
/// Where the state machine's bytes start in a file.
const FILE_BODY_OFFSET: usize = 64;
/// Names of snapshot files end so.
const FILE_SUFFIX: &str = ".snapshot";
/// A file being written; removed on open if a crash left it.
const TEMPORARY_SUFFIX: &str = ".snapshot.tmp";
/// A snapshot being written is synced every this many bytes.
const SYNC_EVERY_BYTES: usize = 512 << 10;
/// The file of a sled database that marks one present.
const SLED_MAIN_FILE: &str = "db";

/// How long [`open_db`] waits for another handle in this process to release a database.
const SLED_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);
/// sled's page cache for a database that is read once (the snapshots of an older build).
pub const SNAPSHOT_CACHE_BYTES: u64 = 32 << 20;

/// Opens (or creates) the sled database at `path`.
///
/// sled takes an exclusive file lock, and releases it only when its background threads
/// have let go of the file, which dropping the last `Db` handle does not wait for. A
/// database reopened in the same process (a node restarted in place, a test) may so find
/// it still locked for a few milliseconds: the lock, and only the lock, is awaited for at
/// most [`SLED_LOCK_WAIT`]; every other error is returned at once.
///
/// `cache_bytes` bounds sled's page cache, which is otherwise 1 GiB per database: the
/// process's memory must stay flat however long it runs.
pub fn open_db(path: &Path, cache_bytes: u64) -> sled::Result<sled::Db> {
    let deadline = std::time::Instant::now() + SLED_LOCK_WAIT;
    loop {
        match sled::Config::new().path(path).cache_capacity(cache_bytes).open() {
            Err(sled::Error::Io(error))
                if error.to_string().contains("could not acquire lock")
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// Why a snapshot could not be saved or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// A file or the directory could not be read or written.
    #[error("snapshot file: {0}")]
    Io(#[from] std::io::Error),
    /// The sled database of an older build could not be read.
    #[error("sled: {0}")]
    Sled(#[from] sled::Error),
    /// A snapshot to save is larger than the bound.
    #[error("snapshot of {len} bytes exceeds the maximum {SNAPSHOT_SIZE_MAX_BYTES}")]
    TooLarge {
        /// Size of the snapshot in bytes.
        len: u64,
    },
    /// `corrupt_for_test` was asked for a snapshot that is not stored.
    #[error("no snapshot at index {index}")]
    Missing {
        /// The index asked for.
        index: u64,
    },
}

/// Why one stored snapshot is unusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotDamage {
    /// The file is shorter than a header, or than the length it claims.
    #[error("truncated")]
    Truncated,
    /// Preamble, magic or version is not ours.
    #[error("unknown magic or version")]
    Format,
    /// The index in the header is not the one the file is named after.
    #[error("header index differs from its file name")]
    IndexMismatch,
    /// The checksum does not match.
    #[error("checksum mismatch")]
    Checksum,
}

/// The bytes of a loaded snapshot, read in place from its file.
#[derive(Clone)]
pub struct SnapshotBytes(Arc<memmap2::Mmap>);

impl std::ops::Deref for SnapshotBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0[FILE_BODY_OFFSET..]
    }
}

impl PartialEq for SnapshotBytes {
    fn eq(&self, other: &Self) -> bool {
        self[..] == other[..]
    }
}

impl Eq for SnapshotBytes {}

impl std::fmt::Debug for SnapshotBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SnapshotBytes({} bytes)", self.len())
    }
}

/// A snapshot read back and verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedSnapshot {
    /// Index of the last command the snapshot includes.
    pub index: u64,
    /// Term of that command.
    pub term: u64,
    /// The state machine's snapshot bytes, 64-byte aligned.
    pub bytes: SnapshotBytes,
}

/// The result of looking for the newest valid snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapshotLoad {
    /// The newest snapshot whose checksum holds, if any.
    pub snapshot: Option<LoadedSnapshot>,
    /// Indexes of newer snapshots that were damaged and skipped, newest first.
    pub skipped_damaged: Vec<u64>,
}

/// What the file of one index holds.
enum Stored {
    Valid(LoadedSnapshot),
    Damaged,
    /// Removed since the directory was listed.
    Gone,
}

/// Snapshots in files of their own, in one directory.
#[derive(Debug, Clone)]
pub struct SnapshotStore {
    dir: PathBuf,
    /// How many snapshots to keep; older ones are removed after each save.
    kept: usize,
}

impl SnapshotStore {
    /// Opens (or creates) the snapshot directory at `path`, keeping the default number of
    /// snapshots.
    pub fn open(path: &Path) -> Result<Self, SnapshotError> {
        Self::open_keeping(path, SNAPSHOTS_KEPT)
    }

    /// Opens (or creates) the snapshot directory at `path`, keeping the newest `kept`
    /// snapshots. Removes what a crash during a save left, and moves the snapshots of an
    /// older build out of its sled database.
    pub fn open_keeping(path: &Path, kept: usize) -> Result<Self, SnapshotError> {
        assert!(kept >= 1, "keeping no snapshot would delete the one just saved");
        std::fs::create_dir_all(path)?;
        let store = Self { dir: path.to_path_buf(), kept };
        for entry in std::fs::read_dir(path)? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().ends_with(TEMPORARY_SUFFIX) {
                std::fs::remove_file(entry.path())?;
            }
        }
        if path.join(SLED_MAIN_FILE).exists() {
            store.move_out_of_sled()?;
        }
        Ok(store)
    }

    /// Stores a snapshot of the state up to `index`, makes it durable, then removes all but
    /// the newest `kept` snapshots. Returns only once the snapshot is durable.
    pub fn save(&self, index: u64, term: u64, bytes: &[u8]) -> Result<(), SnapshotError> {
        self.save_parts(index, term, &[bytes])
    }

    /// [`SnapshotStore::save`] of the bytes of `parts` one after the other, without joining
    /// them in memory first (a cluster's snapshot is its Raft metadata, then the machine's
    /// hundreds of MB).
    pub fn save_parts(&self, index: u64, term: u64, parts: &[&[u8]]) -> Result<(), SnapshotError> {
        let len = parts.iter().map(|part| part.len() as u64).sum();
        if len > SNAPSHOT_SIZE_MAX_BYTES {
            return Err(SnapshotError::TooLarge { len });
        }
        let header = header(index, term, parts);
        let mut file_parts = vec![FILE_PREAMBLE, &header[..]];
        file_parts.extend_from_slice(parts);
        self.write_file(index, &file_parts)?;
        self.remove_old()?;
        Ok(())
    }

    /// Writes `parts` as the file of `index`, whole or not at all, and durably.
    fn write_file(&self, index: u64, parts: &[&[u8]]) -> Result<(), SnapshotError> {
        let temporary = self.dir.join(format!("{index:020}{TEMPORARY_SUFFIX}"));
        let mut file = File::create(&temporary)?;
        // Synced as it goes, a few MB at a time: written whole and synced once, tens or
        // hundreds of MB queue at the disk at once, and the log's syncs wait behind them.
        let mut unsynced = 0;
        for part in parts {
            for piece in part.chunks(SYNC_EVERY_BYTES) {
                file.write_all(piece)?;
                unsynced += piece.len();
                if unsynced >= SYNC_EVERY_BYTES {
                    file.sync_data()?;
                    unsynced = 0;
                }
            }
        }
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temporary, self.path(index))?;
        File::open(&self.dir)?.sync_all()?;
        Ok(())
    }

    fn path(&self, index: u64) -> PathBuf {
        self.dir.join(format!("{index:020}{FILE_SUFFIX}"))
    }

    /// Removes all but the newest `kept` snapshots (not durable until the directory is
    /// synced again, which is fine: an old snapshot that comes back is still valid).
    fn remove_old(&self) -> Result<(), SnapshotError> {
        let indexes = self.indexes()?;
        let excess = indexes.len().saturating_sub(self.kept);
        for index in &indexes[..excess] {
            match std::fs::remove_file(self.path(*index)) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    return Err(error.into());
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The newest snapshot whose checksum holds; newer damaged ones are skipped and listed.
    pub fn load_latest(&self) -> Result<SnapshotLoad, SnapshotError> {
        self.load_latest_at_or_before(u64::MAX)
    }

    /// The newest snapshot at or before `ceiling` whose checksum holds; newer damaged ones
    /// (at or before the ceiling) are skipped and listed.
    pub fn load_latest_at_or_before(&self, ceiling: u64) -> Result<SnapshotLoad, SnapshotError> {
        let mut load = SnapshotLoad::default();
        for index in self.indexes()?.into_iter().rev().filter(|&index| index <= ceiling) {
            match self.load(index)? {
                Stored::Valid(snapshot) => {
                    load.snapshot = Some(snapshot);
                    break;
                }
                Stored::Damaged => load.skipped_damaged.push(index),
                // Removed by a save since the listing: older ones follow.
                Stored::Gone => {}
            }
        }
        Ok(load)
    }

    /// The snapshot of `index`, mapped and checked.
    fn load(&self, index: u64) -> Result<Stored, SnapshotError> {
        let file = match File::open(self.path(index)) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Stored::Gone),
            Err(error) => return Err(error.into()),
        };
        if file.metadata()?.len() < FILE_BODY_OFFSET as u64 {
            return Ok(Stored::Damaged);
        }
        // Read in place: half a gigabyte copied out of a database was a third of a restart.
        // SAFETY: the file is never written once renamed into place (a save writes a new one;
        // removing a mapped file leaves the mapping whole), so the bytes cannot change under
        // the map. Every byte is checked against the checksum before use.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::MmapOptions::new().populate().map(&file)? };
        let ours = map[..FILE_PREAMBLE_BYTES] == FILE_PREAMBLE[..];
        Ok(match check(index, &map[FILE_PREAMBLE_BYTES..]) {
            Ok(term) if ours => {
                Stored::Valid(LoadedSnapshot { index, term, bytes: SnapshotBytes(Arc::new(map)) })
            }
            _ => Stored::Damaged,
        })
    }

    /// Indexes of every stored snapshot, oldest first.
    pub fn indexes(&self) -> Result<Vec<u64>, SnapshotError> {
        let mut indexes = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let name = entry?.file_name();
            let name = name.to_string_lossy();
            let digits = name.strip_suffix(FILE_SUFFIX).filter(|d| d.len() == 20);
            if let Some(index) = digits.and_then(|d| d.parse::<u64>().ok()) {
                indexes.push(index);
            }
        }
        indexes.sort_unstable();
        Ok(indexes)
    }

    /// Test hook: flips one bit in the body (or header, if empty) of the snapshot at `index`,
    /// writing a new file as a save would.
    pub fn corrupt_for_test(&self, index: u64) -> Result<(), SnapshotError> {
        let mut file = match std::fs::read(self.path(index)) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(SnapshotError::Missing { index });
            }
            other => other?,
        };
        let at = if file.len() > FILE_BODY_OFFSET { FILE_BODY_OFFSET } else { FILE_PREAMBLE_BYTES };
        file[at] ^= 0x01;
        self.write_file(index, &[&file])
    }

    /// Copies each snapshot of an older build's sled database, as it is, into a file of its
    /// own, then removes the database (its main file last, so that a crash before the end
    /// leaves it to be copied again).
    fn move_out_of_sled(&self) -> Result<(), SnapshotError> {
        let db = open_db(&self.dir, SNAPSHOT_CACHE_BYTES)?;
        for entry in db.open_tree(SNAPSHOT_TREE)?.iter() {
            let (key, value) = entry?;
            let index =
                u64::from_be_bytes(key.as_ref().try_into().expect("snapshot keys are 8 bytes"));
            self.write_file(index, &[FILE_PREAMBLE, &value])?;
        }
        db.flush()?;
        drop(db);
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name == "blobs" {
                std::fs::remove_dir_all(entry.path())?;
            } else if name == "conf" || name.starts_with("snap.") {
                std::fs::remove_file(entry.path())?;
            }
        }
        std::fs::remove_file(self.dir.join(SLED_MAIN_FILE))?;
        File::open(&self.dir)?.sync_all()?;
        Ok(())
    }
}

/// The header of a snapshot of `bytes`.
fn header(index: u64, term: u64, parts: &[&[u8]]) -> [u8; SNAPSHOT_HEADER_SIZE_BYTES] {
    let mut header = [0; SNAPSHOT_HEADER_SIZE_BYTES];
    header[0..4].copy_from_slice(&SNAPSHOT_MAGIC.to_le_bytes());
    header[4..8].copy_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
    header[8..16].copy_from_slice(&index.to_le_bytes());
    header[16..24].copy_from_slice(&term.to_le_bytes());
    let len: usize = parts.iter().map(|part| part.len()).sum();
    header[24..32].copy_from_slice(&(len as u64).to_le_bytes());
    let crc = (parts.iter())
        .fold(crc32c::crc32c(&header[..32]), |crc, part| crc32c::crc32c_append(crc, part));
    header[32..36].copy_from_slice(&crc.to_le_bytes());
    header
}

/// Checks a header and the bytes after it, stored as the snapshot of `key`; gives the term.
fn check(key: u64, value: &[u8]) -> Result<u64, SnapshotDamage> {
    if value.len() < SNAPSHOT_HEADER_SIZE_BYTES {
        return Err(SnapshotDamage::Truncated);
    }
    let u32_at = |at: usize| u32::from_le_bytes(value[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_le_bytes(value[at..at + 8].try_into().expect("8 bytes"));
    if u32_at(0) != SNAPSHOT_MAGIC || u32_at(4) != SNAPSHOT_VERSION {
        return Err(SnapshotDamage::Format);
    }
    let (index, term, len, stored) = (u64_at(8), u64_at(16), u64_at(24), u32_at(32));
    if (value.len() - SNAPSHOT_HEADER_SIZE_BYTES) as u64 != len {
        return Err(SnapshotDamage::Truncated);
    }
    let body = &value[SNAPSHOT_HEADER_SIZE_BYTES..];
    let computed = crc32c::crc32c_append(crc32c::crc32c(&value[..32]), body);
    if computed != stored {
        return Err(SnapshotDamage::Checksum);
    }
    if index != key {
        return Err(SnapshotDamage::IndexMismatch);
    }
    Ok(term)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(load: &SnapshotLoad) -> Option<(u64, u64, Vec<u8>)> {
        load.snapshot.as_ref().map(|s| (s.index, s.term, s.bytes.to_vec()))
    }

    #[test]
    fn saves_loads_and_keeps_only_the_newest() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::open(dir.path()).unwrap();
        assert_eq!(store.load_latest().unwrap(), SnapshotLoad::default());
        for index in [10, 20, 30] {
            store.save(index, 2, format!("state {index}").as_bytes()).unwrap();
        }
        assert_eq!(store.indexes().unwrap(), vec![20, 30]);
        let load = store.load_latest().unwrap();
        assert_eq!(bytes_of(&load), Some((30, 2, b"state 30".to_vec())));
        assert!(load.skipped_damaged.is_empty());
        let older = store.load_latest_at_or_before(29).unwrap();
        assert_eq!(bytes_of(&older), Some((20, 2, b"state 20".to_vec())));
    }

    #[test]
    fn survives_reopen_and_reads_its_bytes_aligned() {
        let dir = tempfile::tempdir().unwrap();
        SnapshotStore::open(dir.path()).unwrap().save(7, 1, b"seven").unwrap();
        let store = SnapshotStore::open(dir.path()).unwrap();
        let snapshot = store.load_latest().unwrap().snapshot.unwrap();
        assert_eq!(&snapshot.bytes[..], b"seven");
        assert_eq!(snapshot.bytes.as_ptr().align_offset(64), 0);
    }

    #[test]
    fn a_save_cut_short_by_a_crash_is_not_a_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        SnapshotStore::open(dir.path()).unwrap().save(7, 1, b"seven").unwrap();
        let torn = dir.path().join(format!("{:020}{TEMPORARY_SUFFIX}", 9));
        std::fs::write(&torn, &FILE_PREAMBLE[..10]).unwrap();
        let store = SnapshotStore::open(dir.path()).unwrap();
        assert!(!torn.exists());
        assert_eq!(store.indexes().unwrap(), vec![7]);
    }

    #[test]
    fn damaged_newest_falls_back_to_the_previous_one() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::open(dir.path()).unwrap();
        store.save(10, 1, b"ten").unwrap();
        store.save(20, 1, b"twenty").unwrap();
        store.corrupt_for_test(20).unwrap();
        let load = store.load_latest().unwrap();
        assert_eq!(load.snapshot.unwrap().index, 10);
        assert_eq!(load.skipped_damaged, vec![20]);

        store.corrupt_for_test(10).unwrap();
        let load = store.load_latest().unwrap();
        assert_eq!(load.snapshot, None);
        assert_eq!(load.skipped_damaged, vec![20, 10]);

        std::fs::write(store.path(30), &FILE_PREAMBLE[..]).unwrap();
        assert_eq!(store.load_latest().unwrap().skipped_damaged, vec![30, 20, 10]);
    }

    #[test]
    fn every_bit_flip_of_a_small_snapshot_is_detected() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::open(dir.path()).unwrap();
        store.save(5, 1, b"abc").unwrap();
        let file = std::fs::read(store.path(5)).unwrap();
        for bit in 0..file.len() * 8 {
            let mut damaged = file.clone();
            damaged[bit / 8] ^= 1 << (bit % 8);
            std::fs::write(store.path(5), &damaged).unwrap();
            let load = store.load_latest().unwrap();
            assert_eq!(load.snapshot, None, "flip of bit {bit} went unnoticed");
            assert_eq!(load.skipped_damaged, vec![5]);
        }
        std::fs::write(store.path(6), &file).unwrap();
        std::fs::remove_file(store.path(5)).unwrap();
        assert_eq!(check(6, &file[FILE_PREAMBLE_BYTES..]), Err(SnapshotDamage::IndexMismatch));
        assert_eq!(store.load_latest().unwrap().skipped_damaged, vec![6]);
    }

    /// What an older build stored: the header and bytes as a value of sled's tree.
    fn legacy_value(index: u64, term: u64, bytes: &[u8]) -> Vec<u8> {
        [&header(index, term, &[bytes])[..], bytes].concat()
    }

    #[test]
    fn snapshots_of_an_older_build_in_sled_are_moved_to_files_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = open_db(dir.path(), SNAPSHOT_CACHE_BYTES).unwrap();
            let tree = db.open_tree(SNAPSHOT_TREE).unwrap();
            tree.insert(10u64.to_be_bytes(), legacy_value(10, 3, b"ten")).unwrap();
            let mut damaged = legacy_value(20, 3, b"twenty");
            damaged[SNAPSHOT_HEADER_SIZE_BYTES] ^= 1;
            tree.insert(20u64.to_be_bytes(), damaged).unwrap();
            db.flush().unwrap();
        }
        let store = SnapshotStore::open(dir.path()).unwrap();
        assert!(!dir.path().join(SLED_MAIN_FILE).exists());
        assert!(!dir.path().join("conf").exists());
        assert_eq!(store.indexes().unwrap(), vec![10, 20]);
        let load = store.load_latest().unwrap();
        assert_eq!(bytes_of(&load), Some((10, 3, b"ten".to_vec())));
        assert_eq!(load.skipped_damaged, vec![20]);
        // Opened again: nothing left to move, the same snapshots.
        let load = SnapshotStore::open(dir.path()).unwrap().load_latest().unwrap();
        assert_eq!(bytes_of(&load), Some((10, 3, b"ten".to_vec())));
    }
}
