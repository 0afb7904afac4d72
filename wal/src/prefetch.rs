//! Cache hints for memory the caller is about to read: the engine's loop and the log's replay
//! are bound by misses on data spread over hundreds of MB, and both know a few commands
//! ahead what they will touch.

/// Bytes in a cache line.
const LINE: usize = 64;

/// Asks the CPU to bring every cache line of the `T` at `p` into cache: an account is one
/// line, a contract or a decoded record two or three (bringing in only the first left the
/// load of a field further on to miss). Never reads memory as far as the program can tell,
/// so `p` may point anywhere.
#[inline]
pub fn read<T>(p: *const T) {
    let start = p.cast::<u8>();
    for offset in offsets::<T>() {
        line_hint(start.wrapping_add(offset));
    }
}

/// Where in a `T` to ask for a line, known at compile time: one offset per line of its size,
/// and its last byte when a `T` need not start a line (it may then straddle one more line
/// than its size fills). A line-aligned value's lines are asked for once each.
#[inline]
fn offsets<T>() -> impl Iterator<Item = usize> {
    let size = std::mem::size_of::<T>().max(1);
    let straddles = std::mem::align_of::<T>() < LINE;
    (0..size).step_by(LINE).chain(straddles.then_some(size - 1))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[repr(align(64))]
    struct OneLine(#[allow(dead_code)] [u8; 64]);

    #[repr(align(64))]
    struct TwoLines(#[allow(dead_code)] [u8; 128]);

    #[test]
    fn a_line_aligned_value_is_asked_for_once_per_line() {
        assert_eq!(offsets::<OneLine>().collect::<Vec<_>>(), [0]);
        assert_eq!(offsets::<TwoLines>().collect::<Vec<_>>(), [0, 64]);
    }

    #[test]
    fn a_value_that_may_straddle_has_its_last_byte_asked_for() {
        // 120 bytes at 8-byte alignment may start anywhere in a line: up to three lines.
        assert_eq!(offsets::<[u64; 15]>().collect::<Vec<_>>(), [0, 64, 119]);
        assert_eq!(offsets::<u64>().collect::<Vec<_>>(), [0, 7]);
        assert_eq!(offsets::<()>().collect::<Vec<_>>(), [0, 0]);
        read(&[0u64; 15]); // a hint: nothing to observe, nothing to fault
    }
}
