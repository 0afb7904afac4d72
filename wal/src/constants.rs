//! Every bound of the crate, in one place, with its unit last in the name.
//!
//! A bound that is not written down here is a bug: queues, batches, records and
//! files all have a maximum so that memory and latency stay predictable.

/// Size of a record header on disk: `[payload_len u32][crc32c u32][term u64][index u64][time_ms u64]`.
pub const RECORD_HEADER_SIZE_BYTES: usize = 32;

/// Records start on this alignment; the gap after a payload is zero padding.
pub const RECORD_ALIGNMENT_BYTES: usize = 8;

/// Largest payload one record may carry. A larger length read from disk is a torn
/// or corrupt header, never a reason to allocate.
pub const RECORD_PAYLOAD_MAX_BYTES: usize = 1024 * 1024;

/// A segment is sealed and a new one started once it has grown past this size.
pub const SEGMENT_SIZE_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// A segment is filled with zeros up to its maximum size before records go into it, but
/// never beyond this many bytes (a huge configured maximum would make that fill huge).
pub const SEGMENT_PREFILL_MAX_BYTES: u64 = 1024 * 1024 * 1024;

/// [`crate::FsStorage`] zero-fills a segment in chunks of this size, syncing each before
/// writing the next, so that the fill never queues more than this at the device ahead of
/// the log's own syncs.
pub const SEGMENT_PREFILL_CHUNK_BYTES: usize = 1024 * 1024;

/// Start of the name of a file the next segment is zero-filled in before it is renamed
/// into place (`next-segment.tmp.{pid}.{serial}`); not a segment name, so a leftover one
/// is never read as part of the log (and is removed when the log opens).
pub const SEGMENT_PREPARED_NAME: &str = "next-segment.tmp";

/// Width of the zero-padded first index in a segment's file name (`{first_index:020}.wal`).
pub const SEGMENT_NAME_DIGITS: usize = 20;

/// Extension of segment files; anything else in the log directory is ignored.
pub const SEGMENT_EXTENSION: &str = "wal";

/// Commands waiting for the sequencer (the producers' bounded queue).
pub const QUEUE_COMMANDS_MAX: usize = 64 * 1024;

/// Commands the sequencer takes into one batch, i.e. into one write and one fdatasync.
pub const BATCH_COMMANDS_MAX: usize = 4 * 1024;

/// Durable batches waiting for the engine thread: two lets the journal write batch N+1
/// while the engine applies batch N, without letting the journal run far ahead.
pub const QUEUE_BATCHES_MAX: usize = 2;

/// Read-only queries waiting for the engine thread.
pub const QUEUE_QUERIES_MAX: usize = 1024;

/// Event subscribers one pipeline publishes to.
pub const SUBSCRIBERS_MAX: usize = 1024;

/// Published event batches the engine thread keeps a hold on, so that it can take back their
/// buffers once every subscriber has dropped them. A subscriber that holds more than this
/// many batches only costs fresh buffers, never events.
pub const EVENT_BUFFERS_WATCHED_MAX: usize = 8;

/// Snapshots kept; older ones are removed after a newer one is durable.
pub const SNAPSHOTS_KEPT: usize = 2;

/// Snapshots taken but not yet saved: one in flight is enough, the next waits its turn.
pub const QUEUE_SNAPSHOTS_MAX: usize = 1;

/// Journal control messages (truncation requests, shutdown) waiting for the journal thread.
pub const QUEUE_JOURNAL_CONTROL_MAX: usize = 16;

/// Size of a snapshot header: `[magic u32][version u32][index u64][term u64][len u64][crc32c u32]`.
pub const SNAPSHOT_HEADER_SIZE_BYTES: usize = 36;

/// Largest snapshot body a save accepts.
pub const SNAPSHOT_SIZE_MAX_BYTES: u64 = 16 * 1024 * 1024 * 1024;
