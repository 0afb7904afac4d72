//! One segment file: its name and the scan that checks its records.
//!
//! A segment is named after the index of its first record, `{first_index:020}.wal`,
//! so that sorting names sorts the log and a missing segment shows up as a gap.

use crate::constants::{RECORD_ALIGNMENT_BYTES, SEGMENT_EXTENSION, SEGMENT_NAME_DIGITS};
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
    /// Bytes from the start up to the end of the last valid record.
    pub valid_len: u64,
    /// The first invalid record, if the valid records do not reach the end of the bytes.
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

/// Checks every record of a segment whose first record must have `first_index`, calling
/// `visit` with each valid one in order. Stops at the first invalid record.
pub fn scan(
    bytes: &[u8],
    first_index: u64,
    mut visit: impl FnMut(&Record<'_>),
) -> Result<Scan, Discontinuity> {
    let mut offset = 0usize;
    let mut expected_index = first_index;
    let mut last_meta = None;
    while offset < bytes.len() {
        let record = match record::decode(&bytes[offset..]) {
            Ok(record) => record,
            Err(error) => {
                let valid_after = valid_record_after(bytes, offset, expected_index);
                let damage = Damage { offset: offset as u64, expected_index, error, valid_after };
                let records = expected_index - first_index;
                return Ok(Scan {
                    records,
                    last_meta,
                    valid_len: offset as u64,
                    damage: Some(damage),
                });
            }
        };
        if record.meta.index != expected_index {
            let found_index = record.meta.index;
            return Err(Discontinuity { offset: offset as u64, expected_index, found_index });
        }
        visit(&record);
        last_meta = Some(record.meta);
        offset += record.framed_len;
        expected_index += 1;
    }
    let records = expected_index - first_index;
    Ok(Scan { records, last_meta, valid_len: offset as u64, damage: None })
}

/// Whether any aligned offset after `damaged_at` holds a valid record at or beyond
/// `expected_index`. A torn write leaves only garbage or zeros after the tear; a valid
/// later record means the damage sits in the middle of the log.
fn valid_record_after(bytes: &[u8], damaged_at: usize, expected_index: u64) -> bool {
    let start = damaged_at + RECORD_ALIGNMENT_BYTES;
    (start..bytes.len()).step_by(RECORD_ALIGNMENT_BYTES).any(|offset| {
        record::decode(&bytes[offset..]).is_ok_and(|record| record.meta.index >= expected_index)
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
        let clean = scan(&bytes, 5, |_| {}).unwrap();
        assert_eq!((clean.records, clean.damage.clone()), (4, None));

        let mut middle = bytes.clone();
        middle[35] ^= 1; // payload of the first record (header is 32 bytes)
        let damage = scan(&middle, 5, |_| {}).unwrap().damage.unwrap();
        assert_eq!((damage.offset, damage.expected_index, damage.valid_after), (0, 5, true));

        let last = bytes.len() - 8;
        let mut tail = bytes.clone();
        tail[last] ^= 1;
        let outcome = scan(&tail, 5, |_| {}).unwrap();
        assert_eq!(outcome.records, 3);
        assert!(!outcome.damage.unwrap().valid_after);
    }

    #[test]
    fn scan_refuses_an_index_that_does_not_continue() {
        let bytes = records(5, 2);
        let error = scan(&bytes, 4, |_| {}).unwrap_err();
        assert_eq!(error, Discontinuity { offset: 0, expected_index: 4, found_index: 5 });
    }
}
