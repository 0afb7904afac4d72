//! One segment file: its name and the scan that checks its records.
//!
//! A segment is named after the index of its first record, `{first_index:020}.wal`,
//! so that sorting names sorts the log and a missing segment shows up as a gap.
//!
//! A segment is filled with zeros before its first record is written (see [`crate::log`]),
//! so its data ends at the first all-zero header; segments written before that (growing
//! files) end at the end of the file. The scan accepts both.

use crate::constants::{
    RECORD_ALIGNMENT_BYTES, RECORD_HEADER_SIZE_BYTES, SEGMENT_EXTENSION, SEGMENT_NAME_DIGITS,
};
use crate::machine::Meta;
use crate::record::{self, Record, RecordError};

/// The file name of the segment whose first record has `first_index`.
pub fn segment_name(first_index: u64) -> String {
    format!("{first_index:0width$}.{SEGMENT_EXTENSION}", width = SEGMENT_NAME_DIGITS)
}

/// The first index encoded in a segment's file name, or `None` for any other file.
pub fn parse_segment_name(name: &str) -> Option<u64> {
    let stem = name.strip_suffix(SEGMENT_EXTENSION)?.strip_suffix('.')?;
    if stem.len() != SEGMENT_NAME_DIGITS || !stem.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok()
}

/// What a scan of one segment's bytes found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    /// Valid, contiguous records from the start of the segment.
    pub records: u64,
    /// Meta of the last valid record, if any.
    pub last_meta: Option<Meta>,
    /// Bytes from the start up to the end of the last valid record: where the data ends
    /// and the next record goes.
    pub valid_len: u64,
    /// The first invalid record, if anything but zeros follows the valid records.
    pub damage: Option<Damage>,
}

/// The first bytes of a segment that are not a valid record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// Byte offset of the bad record in the segment.
    pub offset: u64,
    /// The index the bad record should have had.
    pub expected_index: u64,
    /// Why the bytes are not a record.
    pub error: RecordError,
    /// Whether a valid record with a later index follows the damage: then this is not a
    /// torn tail but damage in the middle of the log.
    pub valid_after: bool,
}

/// A record that is valid on its own but does not continue the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discontinuity {
    /// Byte offset of the record in the segment.
    pub offset: u64,
    /// The index the log needed here.
    pub expected_index: u64,
    /// The index the record carries.
    pub found_index: u64,
}

/// Why a scan stopped before the end of the data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanStop<E> {
    /// A valid record does not continue the log.
    Gap(Discontinuity),
    /// The visitor returned an error.
    Visit(E),
}

/// Checks every record of a segment whose first record must have `first_index`, calling
/// `visit` with each valid one in order (a visitor's error stops the scan).
///
/// The data ends at the end of the bytes (a segment written by appending) or at an
/// all-zero header (a segment pre-written with zeros, then overwritten record by record:
/// no valid record is all zeros, its index being at least 1). Anything but zeros after
/// the end of the data is damage: a torn write if no valid record follows it.
pub fn scan<E>(
    bytes: &[u8],
    first_index: u64,
    mut visit: impl FnMut(&Record<'_>) -> Result<(), E>,
) -> Result<Scan, ScanStop<E>> {
    let mut offset = 0usize;
    let mut expected_index = first_index;
    let mut last_meta = None;
    let mut error = None;
    while offset < bytes.len() {
        let record = match record::decode(&bytes[offset..]) {
            Ok(record) => record,
            Err(decode_error) => {
                error = Some(decode_error);
                break;
            }
        };
        if record.meta.index != expected_index {
            let found_index = record.meta.index;
            let gap = Discontinuity { offset: offset as u64, expected_index, found_index };
            return Err(ScanStop::Gap(gap));
        }
        if record.meta.index == u64::MAX {
            error = Some(RecordError::IndexTooLarge { index: record.meta.index });
            break;
        }
        visit(&record).map_err(ScanStop::Visit)?;
        last_meta = Some(record.meta);
        offset += record.framed_len;
        expected_index += 1;
    }
    let records = expected_index - first_index;
    let rest = &bytes[offset..];
    let damage = (nonzero_end(rest) > 0).then(|| {
        let error = if is_end_mark(rest) {
            // An end-of-data mark (all-zero header), yet data after it.
            let first_nonzero = rest.iter().position(|&byte| byte != 0).unwrap_or(0);
            RecordError::DataAfterEnd { at: (offset + first_nonzero) as u64 }
        } else {
            error.expect("the loop stops before the end only on an invalid record")
        };
        let valid_after = valid_record_after(bytes, offset, expected_index);
        Damage { offset: offset as u64, expected_index, error, valid_after }
    });
    Ok(Scan { records, last_meta, valid_len: offset as u64, damage })
}

/// Whether `bytes` start with an end-of-data mark: a header's worth of zeros, or zeros up
/// to the end if fewer bytes remain.
pub fn is_end_mark(bytes: &[u8]) -> bool {
    let header = &bytes[..bytes.len().min(RECORD_HEADER_SIZE_BYTES)];
    header.iter().all(|&byte| byte == 0)
}

/// Offset just past the last non-zero byte of `bytes` (0 if every byte is zero).
pub fn nonzero_end(bytes: &[u8]) -> usize {
    const CHUNK_BYTES: usize = 4096;
    let mut end = bytes.len();
    while end > 0 {
        let start = end.saturating_sub(CHUNK_BYTES);
        let chunk = &bytes[start..end];
        // An OR over the chunk vectorizes; most of a pre-written segment is zeros.
        if chunk.iter().fold(0u8, |acc, &byte| acc | byte) != 0 {
            let last = chunk.iter().rposition(|&byte| byte != 0).expect("a non-zero byte");
            return start + last + 1;
        }
        end = start;
    }
    0
}

/// Whether any aligned offset after `damaged_at` holds a valid record at or beyond
/// `expected_index`. A torn write leaves only garbage or zeros after the tear; a valid
/// later record means the damage sits in the middle of the log.
fn valid_record_after(bytes: &[u8], damaged_at: usize, expected_index: u64) -> bool {
    let start = damaged_at + RECORD_ALIGNMENT_BYTES;
    // No valid record starts at or after the last non-zero byte: its index is not zero.
    let end = damaged_at + nonzero_end(&bytes[damaged_at..]);
    (start..end).step_by(RECORD_ALIGNMENT_BYTES).any(|offset| {
        // Cheap pre-check: a record's index field (bytes 16..24 of its header) is not zero.
        let has_index = bytes.get(offset + 16..offset + 24).is_some_and(|f| f != [0; 8]);
        has_index
            && record::decode(&bytes[offset..])
                .is_ok_and(|record| record.meta.index >= expected_index)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sort() {
        assert_eq!(segment_name(1), "00000000000000000001.wal");
        assert_eq!(parse_segment_name(&segment_name(42)), Some(42));
        assert_eq!(parse_segment_name(&segment_name(u64::MAX)), Some(u64::MAX));
        assert_eq!(parse_segment_name("00000000000000000001.tmp"), None);
        assert_eq!(parse_segment_name("1.wal"), None);
        assert_eq!(parse_segment_name("0000000000000000000x.wal"), None);
        assert!(segment_name(9) < segment_name(10));
    }

    fn check(bytes: &[u8], first_index: u64) -> Result<Scan, ScanStop<()>> {
        scan(bytes, first_index, |_| Ok(()))
    }

    fn records(first: u64, count: u64) -> Vec<u8> {
        let mut out = vec![];
        for index in first..first + count {
            let meta = Meta { term: 1, index, time_ms: index };
            record::encode(meta, &index.to_le_bytes(), &mut out).unwrap();
        }
        out
    }

    #[test]
    fn scan_reports_damage_and_whether_valid_records_follow() {
        let bytes = records(5, 4);
        let clean = check(&bytes, 5).unwrap();
        assert_eq!((clean.records, clean.damage.clone()), (4, None));

        let mut middle = bytes.clone();
        middle[35] ^= 1; // payload of the first record (header is 32 bytes)
        let damage = check(&middle, 5).unwrap().damage.unwrap();
        assert_eq!((damage.offset, damage.expected_index, damage.valid_after), (0, 5, true));

        let last = bytes.len() - 8;
        let mut tail = bytes.clone();
        tail[last] ^= 1;
        let outcome = check(&tail, 5).unwrap();
        assert_eq!(outcome.records, 3);
        assert!(!outcome.damage.unwrap().valid_after);
    }

    #[test]
    fn scan_refuses_an_index_that_does_not_continue() {
        let bytes = records(5, 2);
        let error = check(&bytes, 4).unwrap_err();
        let gap = Discontinuity { offset: 0, expected_index: 4, found_index: 5 };
        assert_eq!(error, ScanStop::Gap(gap));
    }

    #[test]
    fn zeros_after_the_data_are_the_end() {
        let data = records(1, 3);
        let mut bytes = data.clone();
        bytes.resize(4096, 0);
        let outcome = check(&bytes, 1).unwrap();
        assert_eq!((outcome.records, outcome.valid_len), (3, data.len() as u64));
        assert_eq!(outcome.damage, None);
        // Fewer zeros than a header at the very end are the end too.
        let mut short = data.clone();
        short.extend_from_slice(&[0; 12]);
        assert_eq!(check(&short, 1).unwrap().damage, None);
        // An all-zero segment is an empty one.
        assert_eq!(check(&[0; 256], 7).unwrap().records, 0);
    }

    #[test]
    fn garbage_after_the_zeros_is_damage_and_a_later_record_makes_it_mid_log() {
        let data = records(1, 3);
        let mut bytes = data.clone();
        bytes.resize(4096, 0);
        bytes[3000] = 0x40;
        let damage = check(&bytes, 1).unwrap().damage.unwrap();
        assert_eq!(damage.offset, data.len() as u64);
        assert_eq!(damage.error, RecordError::DataAfterEnd { at: 3000 });
        assert!(!damage.valid_after);

        let mut later = data.clone();
        later.resize(2048, 0);
        later.extend_from_slice(&records(9, 1));
        later.resize(4096, 0);
        let damage = check(&later, 1).unwrap().damage.unwrap();
        assert!(damage.valid_after, "a valid record after zeros is not a torn tail");
    }

    #[test]
    fn a_torn_record_followed_by_zeros_is_a_torn_tail() {
        let data = records(1, 4);
        // Record 4's payload is `4u64` little-endian: the tear loses its only non-zero
        // byte. (A tear that loses only zero bytes leaves the record whole, and valid.)
        let cut = data.len() - 8;
        let mut bytes = data[..cut].to_vec();
        bytes.resize(4096, 0);
        let outcome = check(&bytes, 1).unwrap();
        assert_eq!(outcome.records, 3);
        let damage = outcome.damage.unwrap();
        assert!(!damage.valid_after);
        assert!(matches!(damage.error, RecordError::Checksum { .. }), "{:?}", damage.error);
    }

    #[test]
    fn nonzero_end_finds_the_last_non_zero_byte() {
        assert_eq!(nonzero_end(&[]), 0);
        assert_eq!(nonzero_end(&[0; 10_000]), 0);
        let mut bytes = vec![0; 10_000];
        bytes[1] = 1;
        assert_eq!(nonzero_end(&bytes), 2);
        bytes[9_999] = 1;
        assert_eq!(nonzero_end(&bytes), 10_000);
        bytes[9_999] = 0;
        bytes[5_000] = 3;
        assert_eq!(nonzero_end(&bytes), 5_001);
    }

    /// Found with the fuzz target `fuzz/fuzz_targets/wal_record.rs` (a crafted input): a record
    /// with index `u64::MAX` overflowed the index the scan expects next.
    #[test]
    fn the_largest_index_is_damage_not_an_overflow() {
        let mut bytes = vec![];
        record::encode(Meta { term: 1, index: u64::MAX - 1, time_ms: 1 }, b"a", &mut bytes)
            .unwrap();
        let valid_len = bytes.len() as u64;
        record::encode(Meta { term: 1, index: u64::MAX, time_ms: 1 }, b"b", &mut bytes).unwrap();
        let outcome = check(&bytes, u64::MAX - 1).unwrap();
        assert_eq!((outcome.records, outcome.valid_len), (1, valid_len));
        let damage = outcome.damage.unwrap();
        assert_eq!(damage.error, RecordError::IndexTooLarge { index: u64::MAX });
        assert!(!damage.valid_after);
        assert_eq!(check(&bytes[valid_len as usize..], u64::MAX).unwrap().records, 0);
    }

    #[test]
    fn a_visitor_error_stops_the_scan() {
        let bytes = records(1, 5);
        let mut seen = 0;
        let stop = scan(&bytes, 1, |record| {
            seen += 1;
            if record.meta.index == 3 {
                Err("enough")
            } else {
                Ok(())
            }
        });
        assert_eq!((stop, seen), (Err(ScanStop::Visit("enough")), 3));
    }
}
