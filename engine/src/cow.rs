//! A vector in copy-on-write chunks: cloning it shares every chunk, and a write copies only
//! the chunk it lands in, the first time, while a clone still holds it.
//!
//! Why: a snapshot must see one consistent state while the engine goes on applying. Cloning
//! the big tables (a million users, a million accounts, a million open contracts) took the
//! engine thread as long as serialising them; with chunks, freezing the state is a copy of a
//! few thousand pointers, the snapshot is serialised on another thread, and the engine pays
//! for a chunk only where it writes during that time (a chunk is small enough that one copy
//! is well under a millisecond).
//!
//! Reads and writes find an element through a table of where each chunk's elements start,
//! small enough to stay in cache (32 KB at a million elements). Going through the chunk's `Arc`
//! instead was a second dependent load per access, and at a million accounts the `Arc`s'
//! lines, one per chunk, missed the cache about as often as the elements did: the engine's
//! loop stalled on them before it could even ask for the element. Writes check ownership in a
//! table of their own: asking the `Arc` (a locked instruction on its count) on every write made
//! each one wait for the writes before it to reach memory, and the engine's loop lives on
//! overlapping those misses.

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Elements per chunk (a power of two). At 130-170 bytes an account or a contract, a chunk
/// copies in a few microseconds, so even a tick settling hundreds of contracts across as many
/// shared chunks stays short; 1024 measured slower on the standard mix (A/B) and longer pauses.
pub(crate) const CHUNK: usize = 256;

/// A growable vector of `T` in shared chunks of [`CHUNK`] elements (only the last not full).
#[derive(Debug)]
pub(crate) struct CowVec<T> {
    chunks: Vec<Arc<Vec<T>>>,
    /// Where chunk `c`'s elements start: `chunks[c]`'s buffer, taken with `as_mut_ptr` when
    /// the chunk was made. A chunk is made with room for [`CHUNK`] and never holds more, so
    /// its buffer never moves; a chunk replaced by its copy gets the copy's start.
    starts: Vec<NonNull<T>>,
    /// For each chunk, the value of `clones` when this vector last found it its own: equal to
    /// `clones` now means nothing has shared it since, so it can be written without asking.
    owned_at: Vec<u64>,
    /// Clones taken of this vector so far, plus one (0 in `owned_at` means never found own).
    clones: AtomicU64,
    len: usize,
}

// SAFETY: the pointers in `starts` only ever point into the buffers of the chunks this
// vector holds, so sending or sharing it is sending or sharing those `Arc<Vec<T>>`s, which
// needs what theirs needs: `T: Send + Sync`.
#[allow(unsafe_code)]
unsafe impl<T: Send + Sync> Send for CowVec<T> {}
// SAFETY: as for `Send`; `&CowVec` only reads through `starts`.
#[allow(unsafe_code)]
unsafe impl<T: Send + Sync> Sync for CowVec<T> {}

impl<T> Default for CowVec<T> {
    fn default() -> Self {
        CowVec {
            chunks: Vec::new(),
            starts: Vec::new(),
            owned_at: Vec::new(),
            clones: AtomicU64::new(1),
            len: 0,
        }
    }
}

/// A new chunk holding `first`, with room for a full one, and where its elements start.
fn new_chunk<T>(first: impl IntoIterator<Item = T>) -> (Arc<Vec<T>>, NonNull<T>) {
    chunk_in(Vec::with_capacity(CHUNK), first)
}

/// [`new_chunk`] in `buffer`, which is empty with room for [`CHUNK`].
fn chunk_in<T>(mut chunk: Vec<T>, first: impl IntoIterator<Item = T>) -> (Arc<Vec<T>>, NonNull<T>) {
    debug_assert!(chunk.is_empty() && chunk.capacity() == CHUNK);
    chunk.extend(first);
    debug_assert!(chunk.len() <= CHUNK);
    // Moving the `Vec` into the `Arc` moves its header, not its buffer.
    let start = NonNull::new(chunk.as_mut_ptr()).expect("a Vec's pointer is never null");
    (Arc::new(chunk), start)
}

/// Cheap: shares every chunk. Both sides then copy a chunk before their first write to it.
impl<T> Clone for CowVec<T> {
    fn clone(&self) -> Self {
        // Relaxed is enough: a later `&mut self` on any thread is ordered after this `&self`
        // by whatever handed the vector over.
        self.clones.fetch_add(1, Ordering::Relaxed);
        CowVec {
            chunks: self.chunks.clone(),
            starts: self.starts.clone(),
            owned_at: vec![0; self.owned_at.len()],
            clones: AtomicU64::new(1),
            len: self.len,
        }
    }
}

impl<T: Clone> CowVec<T> {
    /// Elements stored.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The element at `at`.
    #[inline]
    pub(crate) fn get(&self, at: usize) -> Option<&T> {
        if at >= self.len {
            return None;
        }
        let element = self.starts[at / CHUNK].as_ptr().wrapping_add(at % CHUNK);
        // SAFETY: every chunk but the last is full and the last holds the rest of `len`, so
        // `at < len` is an element its chunk holds, initialised, and `starts` says where
        // that chunk's buffer is. `&self` keeps the chunk alive and unchanged for the borrow.
        #[allow(unsafe_code)]
        unsafe {
            Some(&*element)
        }
    }

    /// The element at `at`, to change: copies its chunk first if a clone shares it.
    #[inline]
    pub(crate) fn get_mut(&mut self, at: usize) -> Option<&mut T> {
        if at >= self.len {
            return None;
        }
        self.make_own(at / CHUNK);
        let element = self.starts[at / CHUNK].as_ptr().wrapping_add(at % CHUNK);
        // SAFETY: an element the chunk holds, as in `get`; and `make_own` made this vector
        // the chunk's only holder, so `&mut self` reaches it alone for the borrow.
        #[allow(unsafe_code)]
        unsafe {
            Some(&mut *element)
        }
    }

    /// Makes chunk `c` (which exists) this vector's alone, copying it first if a clone may
    /// share it.
    #[inline]
    fn make_own(&mut self, c: usize) {
        let clones = *self.clones.get_mut();
        if self.owned_at[c] != clones {
            if let Some(start) = owned(&mut self.chunks[c]) {
                self.starts[c] = start;
            }
            self.owned_at[c] = clones;
        }
    }

    /// Chunk `c` (which exists), to change: copied first if a clone may share it.
    #[inline]
    fn chunk_mut(&mut self, c: usize) -> &mut Vec<T> {
        self.make_own(c);
        let chunk = Arc::as_ptr(&self.chunks[c]).cast_mut();
        // SAFETY: `owned_at[c] == clones` says that `owned` found (or made) this `Arc` the
        // only one of its chunk, with no weak pointer (none is ever made), and that no clone
        // of this vector has been taken since: cloning the vector is the only way its chunks'
        // `Arc`s are cloned, and every clone bumps `clones`. So nothing else can reach the
        // chunk, and `&mut self` keeps it so for the returned borrow.
        #[allow(unsafe_code)]
        unsafe {
            &mut *chunk
        }
    }

    /// Asks the CPU to bring the element at `at` into cache ahead of its use: the engine's
    /// loop is bound by misses on accounts and contracts spread over hundreds of MB, and a
    /// batch knows which ones it will touch a few commands before it does.
    #[inline]
    pub(crate) fn prefetch(&self, at: usize) {
        if let Some(start) = self.starts.get(at / CHUNK) {
            wal::prefetch::read(start.as_ptr().wrapping_add(at % CHUNK));
        }
    }

    /// Appends an element.
    pub(crate) fn push(&mut self, value: T) {
        self.push_ready(value, None);
    }

    /// Appends an element, taking a new chunk's buffer from `ready` when it has one.
    pub(crate) fn push_ready(&mut self, value: T, ready: Option<&ReadyChunks<T>>) {
        if !self.len.is_multiple_of(CHUNK) {
            // Within the chunk's room: its buffer stays where `starts` says.
            self.chunk_mut(self.chunks.len() - 1).push(value);
        } else {
            let (chunk, start) = match ready.and_then(|r| r.0.try_recv().ok()) {
                Some(buffer) => chunk_in(buffer, [value]),
                None => new_chunk([value]),
            };
            self.chunks.push(chunk);
            self.starts.push(start);
            self.owned_at.push(*self.clones.get_mut());
        }
        self.len += 1;
    }

    /// Every element in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flat_map(|chunk| chunk.iter())
    }

    /// Room for `n` more elements' chunks in the chunk table.
    pub(crate) fn reserve(&mut self, n: usize) {
        let more = (self.len + n).div_ceil(CHUNK).saturating_sub(self.chunks.len());
        self.chunks.reserve(more);
        self.starts.reserve(more);
        self.owned_at.reserve(more);
    }
}

/// Empty chunk buffers whose memory a thread of their own has written once, handed over in
/// order as it makes them.
///
/// Why: a restore fills a million accounts and a million contracts, about 200 MB, and most of
/// its time went to the kernel zeroing that fresh memory on the first write (on this VM, the
/// host backing it too). Written once on the second core, it is ready when the restoring
/// thread gets to it; a buffer not ready yet is allocated where it is needed, as before, so
/// the restoring thread never waits for this one.
pub(crate) struct ReadyChunks<T>(std::sync::mpsc::Receiver<Vec<T>>);

impl<T: Send> ReadyChunks<T> {
    /// Starts a thread of `scope` making the buffers of `count` chunks; none when no thread
    /// can be started. The thread stops once these are dropped.
    pub(crate) fn spawn<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        count: usize,
    ) -> Option<ReadyChunks<T>>
    where
        T: 'scope,
    {
        let (give, take) = std::sync::mpsc::channel();
        let made = std::thread::Builder::new().name("restore-memory".into()).spawn_scoped(
            scope,
            move || {
                for _ in 0..count {
                    let mut buffer: Vec<T> = Vec::with_capacity(CHUNK);
                    buffer.spare_capacity_mut().fill_with(std::mem::MaybeUninit::zeroed);
                    if give.send(buffer).is_err() {
                        return;
                    }
                }
            },
        );
        made.ok().map(|_| ReadyChunks(take))
    }
}

/// Chunks of `CHUNK` elements that `len` elements fill.
pub(crate) fn chunks_for(len: usize) -> usize {
    len.div_ceil(CHUNK)
}

/// Makes `chunk` the only `Arc` of its chunk, copying it first (with room for a full chunk)
/// if anyone shares it; returns where the copy's elements start.
#[cold]
fn owned<T: Clone>(chunk: &mut Arc<Vec<T>>) -> Option<NonNull<T>> {
    if Arc::get_mut(chunk).is_some() {
        return None;
    }
    let (copy, start) = new_chunk(chunk.iter().cloned());
    *chunk = copy;
    Some(start)
}

impl<T: Clone> FromIterator<T> for CowVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut vec = CowVec::default();
        for value in iter {
            vec.push(value);
        }
        vec
    }
}

impl<T: Clone> std::ops::Index<usize> for CowVec<T> {
    type Output = T;

    #[inline]
    fn index(&self, at: usize) -> &T {
        match self.get(at) {
            Some(element) => element,
            None => panic!("index {at} out of range"),
        }
    }
}

impl<T: Clone> std::ops::IndexMut<usize> for CowVec<T> {
    #[inline]
    fn index_mut(&mut self, at: usize) -> &mut T {
        match self.get_mut(at) {
            Some(element) => element,
            None => panic!("index {at} out of range"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_keeps_what_it_saw_while_the_original_changes() {
        let mut live: CowVec<u64> = (0..(CHUNK as u64 * 3 + 5)).collect();
        assert_eq!(live.len(), CHUNK * 3 + 5);
        let frozen = live.clone();
        live[7] = 1_000;
        *live.get_mut(CHUNK * 2 + 1).unwrap() = 2_000;
        live.push(3_000);
        assert_eq!((live[7], live[CHUNK * 2 + 1], live[CHUNK * 3 + 5]), (1_000, 2_000, 3_000));
        assert_eq!((frozen[7], frozen[CHUNK * 2 + 1]), (7, CHUNK as u64 * 2 + 1));
        assert_eq!(frozen.len(), CHUNK * 3 + 5);
        assert_eq!(
            frozen.iter().copied().collect::<Vec<_>>(),
            (0..(CHUNK as u64 * 3 + 5)).collect::<Vec<_>>()
        );
        // Only the chunks written to were copied; the others are still shared.
        let shared =
            live.chunks.iter().zip(&frozen.chunks).filter(|(a, b)| Arc::ptr_eq(a, b)).count();
        assert_eq!(shared, 1);
        assert_eq!(live.get(CHUNK * 4), None);
    }

    #[test]
    fn ready_buffers_become_the_next_chunks_and_none_ready_is_no_wait() {
        let (give, take) = std::sync::mpsc::channel();
        let ready = ReadyChunks(take);
        let buffers: Vec<Vec<u64>> = (0..2).map(|_| Vec::with_capacity(CHUNK)).collect();
        let given: Vec<*const u64> = buffers.iter().map(|b| b.as_ptr()).collect();
        for buffer in buffers {
            give.send(buffer).unwrap();
        }
        let mut vec = CowVec::default();
        // Three chunks' worth: the third finds the channel empty and allocates its own.
        for value in 0..(CHUNK as u64 * 3) {
            vec.push_ready(value, Some(&ready));
        }
        let used: Vec<*const u64> = vec.chunks.iter().map(|c| c.as_ptr()).collect();
        assert_eq!(&used[..2], &given[..]);
        assert!(!given.contains(&used[2]));
        assert!(vec.iter().copied().eq(0..(CHUNK as u64 * 3)));
        assert_eq!(vec.starts[1].as_ptr().cast_const(), given[1]);
    }

    #[test]
    fn the_memory_thread_makes_as_many_empty_chunk_buffers_as_asked() {
        std::thread::scope(|scope| {
            let ready = ReadyChunks::<[u8; 48]>::spawn(scope, chunks_for(CHUNK * 2 + 1)).unwrap();
            let made: Vec<Vec<[u8; 48]>> = ready.0.iter().collect();
            assert_eq!(made.len(), 3);
            assert!(made.iter().all(|b| b.is_empty() && b.capacity() == CHUNK));
        });
    }

    #[test]
    fn a_chunk_written_since_one_clone_is_copied_again_for_the_next() {
        let mut live: CowVec<u64> = (0..(CHUNK as u64 * 2)).collect();
        let first = live.clone();
        live[1] = 10; // copies chunk 0, which is then the live side's own
        live[2] = 20; // no copy: still its own
        let second = live.clone();
        live[1] = 11; // shared again with `second`: copied again
        let mut third = live.clone();
        third[CHUNK] = 30; // the clone's writes copy too, and leave the original alone
        assert_eq!((first[1], first[2]), (1, 2));
        assert_eq!((second[1], second[2]), (10, 20));
        assert_eq!((live[1], live[2], live[CHUNK]), (11, 20, CHUNK as u64));
        assert_eq!((third[1], third[CHUNK]), (11, 30));
        drop((first, second));
        // Once every clone is gone a write finds the chunk its own again, without a copy.
        drop(third);
        let before = Arc::as_ptr(&live.chunks[0]);
        live[3] = 33;
        assert_eq!(Arc::as_ptr(&live.chunks[0]), before);
        *live.get_mut(CHUNK + 1).unwrap() = 44;
        live.push(55);
        assert_eq!((live[3], live[CHUNK + 1], live[CHUNK * 2]), (33, 44, 55));
        assert_eq!(live.get_mut(CHUNK * 3), None);
    }
}
