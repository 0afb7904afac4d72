//! Read-your-writes across members: how far each caller's reads must wait.

use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};

/// Per caller (its bearer token), the highest log index a follower answered one of its
/// forwarded writes at, so that the caller's next read there waits until the follower has
/// applied it. A fixed table of [`WRITE_MARK_SLOTS`]: callers whose tokens share a slot may
/// wait for each other's writes too, never for less than their own.
pub struct WriteMarks {
    slots: Box<[AtomicU64]>,
    hasher: RandomState,
}

/// Slots of [`WriteMarks`].
pub const WRITE_MARK_SLOTS: usize = 4096;

impl Default for WriteMarks {
    fn default() -> WriteMarks {
        WriteMarks {
            slots: (0..WRITE_MARK_SLOTS).map(|_| AtomicU64::new(0)).collect(),
            hasher: RandomState::new(),
        }
    }
}

impl std::fmt::Debug for WriteMarks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteMarks").finish_non_exhaustive()
    }
}

impl WriteMarks {
    fn slot(&self, token: &str) -> &AtomicU64 {
        // The remainder is below the table's length, so it fits a usize.
        let index = self.hasher.hash_one(token) % self.slots.len() as u64;
        &self.slots[usize::try_from(index).unwrap_or(0)]
    }

    /// Records that the caller of `token` was answered a write applied at `index`.
    pub fn mark(&self, token: &str, index: u64) {
        self.slot(token).fetch_max(index, Ordering::AcqRel);
    }

    /// The index the caller of `token` must read at or after (0: none).
    pub fn mark_of(&self, token: &str) -> u64 {
        self.slot(token).load(Ordering::Acquire)
    }
}
