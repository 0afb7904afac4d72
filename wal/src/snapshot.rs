//! Checksummed snapshots of the state machine, kept in sled.
//!
//! Each snapshot is stored under its index (big-endian, so keys sort by index) in the
//! tree `snapshots` as
//! `[magic u32][version u32][index u64][term u64][len u64][crc32c u32][bytes]`, all
//! little-endian; the CRC32C covers every header field before it and the bytes.
//! `save` returns only after sled has flushed, so a saved snapshot is durable.

use std::path::Path;

use crate::constants::{SNAPSHOTS_KEPT, SNAPSHOT_HEADER_SIZE_BYTES, SNAPSHOT_SIZE_MAX_BYTES};

/// Marks a value as one of our snapshots ("SNAP").
const SNAPSHOT_MAGIC: u32 = 0x534e_4150;
/// Format version of the header above.
const SNAPSHOT_VERSION: u32 = 1;
/// Name of the sled tree holding snapshots.
const SNAPSHOT_TREE: &str = "snapshots";

/// How long [`open_db`] waits for another handle in this process to release a database.
const SLED_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);
/// sled's page cache for the snapshot database: snapshots are written whole and read once
/// at start, so little of them is worth keeping in memory.
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
    /// sled failed (I/O error, corrupt database).
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
    /// The value is shorter than a header, or than the length it claims.
    #[error("truncated")]
    Truncated,
    /// Magic or version is not ours.
    #[error("unknown magic or version")]
    Format,
    /// The index in the header is not the key it is stored under.
    #[error("header index differs from its key")]
    IndexMismatch,
    /// The checksum does not match.
    #[error("checksum mismatch")]
    Checksum,
}

/// A snapshot read back and verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedSnapshot {
    /// Index of the last command the snapshot includes.
    pub index: u64,
    /// Term of that command.
    pub term: u64,
    /// The state machine's snapshot bytes.
    pub bytes: Vec<u8>,
}

/// The result of looking for the newest valid snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapshotLoad {
    /// The newest snapshot whose checksum holds, if any.
    pub snapshot: Option<LoadedSnapshot>,
    /// Indexes of newer snapshots that were damaged and skipped, newest first.
    pub skipped_damaged: Vec<u64>,
}

/// Snapshots in a sled database.
#[derive(Debug, Clone)]
pub struct SnapshotStore {
    /// The database, kept so that `flush` covers the tree.
    db: sled::Db,
    /// The `snapshots` tree, keyed by big-endian index.
    tree: sled::Tree,
    /// How many snapshots to keep; older ones are removed after each save.
    kept: usize,
}

impl SnapshotStore {
    /// Opens (or creates) the snapshot database at `path`, keeping the default number of snapshots.
    pub fn open(path: &Path) -> Result<Self, SnapshotError> {
        Self::open_keeping(path, SNAPSHOTS_KEPT)
    }

    /// Opens (or creates) the snapshot database at `path`, keeping the newest `kept` snapshots.
    pub fn open_keeping(path: &Path, kept: usize) -> Result<Self, SnapshotError> {
        assert!(kept >= 1, "keeping no snapshot would delete the one just saved");
        let db = open_db(path, SNAPSHOT_CACHE_BYTES)?;
        let tree = db.open_tree(SNAPSHOT_TREE)?;
        Ok(Self { db, tree, kept })
    }

    /// Stores a snapshot of the state up to `index`, makes it durable, then removes all but
    /// the newest `kept` snapshots. Returns only once the snapshot is durable.
    pub fn save(&self, index: u64, term: u64, bytes: &[u8]) -> Result<(), SnapshotError> {
        let len = bytes.len() as u64;
        if len > SNAPSHOT_SIZE_MAX_BYTES {
            return Err(SnapshotError::TooLarge { len });
        }
        let value = encode(index, term, bytes);
        debug_assert_eq!(decode(index, &value).as_ref().map(|s| &s.bytes[..]), Ok(bytes));
        self.tree.insert(index.to_be_bytes(), value)?;
        self.db.flush()?;
        self.remove_old()?;
        Ok(())
    }

    /// Removes all but the newest `kept` snapshots (not durable until the next flush,
    /// which is fine: an old snapshot that comes back is still valid).
    fn remove_old(&self) -> Result<(), SnapshotError> {
        let keys: Vec<sled::IVec> = self.tree.iter().keys().collect::<Result<_, _>>()?;
        let excess = keys.len().saturating_sub(self.kept);
        for key in &keys[..excess] {
            self.tree.remove(key)?;
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
        for entry in self.tree.range(..=ceiling.to_be_bytes()).rev() {
            let (key, value) = entry?;
            let index = key_index(&key);
            match decode(index, &value) {
                Ok(snapshot) => {
                    load.snapshot = Some(snapshot);
                    break;
                }
                Err(_) => load.skipped_damaged.push(index),
            }
        }
        Ok(load)
    }

    /// Indexes of every stored snapshot, oldest first.
    pub fn indexes(&self) -> Result<Vec<u64>, SnapshotError> {
        let keys: Vec<sled::IVec> = self.tree.iter().keys().collect::<Result<_, _>>()?;
        Ok(keys.iter().map(|key| key_index(key)).collect())
    }

    /// Test hook: flips one bit in the body (or header, if empty) of the snapshot at `index`.
    pub fn corrupt_for_test(&self, index: u64) -> Result<(), SnapshotError> {
        let key = index.to_be_bytes();
        let mut value = self.tree.get(key)?.ok_or(SnapshotError::Missing { index })?.to_vec();
        let at =
            if value.len() > SNAPSHOT_HEADER_SIZE_BYTES { SNAPSHOT_HEADER_SIZE_BYTES } else { 0 };
        value[at] ^= 0x01;
        self.tree.insert(key, value)?;
        self.db.flush()?;
        Ok(())
    }
}

fn key_index(key: &[u8]) -> u64 {
    // Keys are written only by `save`, always 8 bytes; anything else is a broken invariant.
    u64::from_be_bytes(key.try_into().expect("snapshot keys are 8 bytes"))
}

fn encode(index: u64, term: u64, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(SNAPSHOT_HEADER_SIZE_BYTES + bytes.len());
    out.extend_from_slice(&SNAPSHOT_MAGIC.to_le_bytes());
    out.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
    out.extend_from_slice(&index.to_le_bytes());
    out.extend_from_slice(&term.to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    let mut crc = crc32c::crc32c(&out);
    crc = crc32c::crc32c_append(crc, bytes);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(bytes);
    assert_eq!(out.len(), SNAPSHOT_HEADER_SIZE_BYTES + bytes.len());
    out
}

fn decode(key: u64, value: &[u8]) -> Result<LoadedSnapshot, SnapshotDamage> {
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
    Ok(LoadedSnapshot { index, term, bytes: body.to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let expected = LoadedSnapshot { index: 30, term: 2, bytes: b"state 30".to_vec() };
        assert_eq!(load, SnapshotLoad { snapshot: Some(expected), skipped_damaged: vec![] });
    }

    #[test]
    fn survives_reopen() {
        let dir = tempfile::tempdir().unwrap();
        SnapshotStore::open(dir.path()).unwrap().save(7, 1, b"seven").unwrap();
        let store = SnapshotStore::open(dir.path()).unwrap();
        assert_eq!(store.load_latest().unwrap().snapshot.unwrap().bytes, b"seven");
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
    }

    #[test]
    fn every_bit_flip_of_a_small_snapshot_is_detected() {
        let value = encode(5, 1, b"abc");
        for bit in 0..value.len() * 8 {
            let mut damaged = value.clone();
            damaged[bit / 8] ^= 1 << (bit % 8);
            assert!(decode(5, &damaged).is_err(), "flip of bit {bit} went unnoticed");
        }
        assert_eq!(decode(6, &value), Err(SnapshotDamage::IndexMismatch));
    }
}
