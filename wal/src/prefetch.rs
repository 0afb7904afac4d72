//! Cache hints for memory the caller is about to read: the engine's loop and the log's replay
//! are bound by misses on data spread over hundreds of MB, and both know a few commands
//! ahead what they will touch.

/// Bytes in a cache line.
const LINE: usize = 64;

/// Asks the CPU to bring every cache line of the `T` at `p` into cache: an account is one
/// line, a contract or a decoded record two or three (bringing in only the first left the
/// load of a field further on to miss). Never reads memory as far as the program can tell,
/// so `p` may point anywhere.
///
/// One hint per line of its size, then one for its last byte, since a `T` may straddle one
/// more line than its size fills. For a line-aligned `T` (an account) that last hint repeats
/// the first; dropping it measured no faster. Written as two plain statements, not one
/// chained iterator: the chained form changed the code of the engine's settlement loop.
#[inline]
pub fn read<T>(p: *const T) {
    let start = p.cast::<u8>();
    let size = std::mem::size_of::<T>().max(1);
    for offset in (0..size).step_by(LINE) {
        line_hint(start.wrapping_add(offset));
    }
    line_hint(start.wrapping_add(size - 1));
}

#[inline]
#[allow(unsafe_code)]
fn line_hint(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is a hint: it does not dereference `p` architecturally, cannot fault
    // on any address (valid or not) and changes no state the program can observe. SSE, which
    // it needs, is part of every x86-64 CPU.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
