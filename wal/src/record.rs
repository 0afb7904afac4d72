//! Framing of one log record on disk.
//!
//! ```text
//! [payload_len u32 LE][crc32c u32 LE][term u64 LE][index u64 LE][time_ms u64 LE][payload][zero padding to 8]
//! ```
//!
//! The CRC32C covers term, index, time_ms and the payload: everything after the
//! checksum field except the padding. The padding must be zero, so that every bit
//! of a record on disk is checked by something.

use crate::constants::{
    RECORD_ALIGNMENT_BYTES, RECORD_HEADER_SIZE_BYTES, RECORD_PAYLOAD_MAX_BYTES,
};
use crate::machine::Meta;

/// Why bytes at some offset are not a valid record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// Fewer bytes than a header remain: a torn write at the tail, or a cut file.
    #[error(
        "incomplete header: {available} bytes left, a header needs {RECORD_HEADER_SIZE_BYTES}"
    )]
    HeaderIncomplete {
        /// Bytes left from the record's offset to the end of the data.
        available: usize,
    },
    /// The header claims a payload larger than any record may carry.
    #[error("payload length {len} exceeds the maximum {RECORD_PAYLOAD_MAX_BYTES}")]
    PayloadTooLarge {
        /// The claimed (or offered) payload length in bytes.
        len: usize,
    },
    /// The record (payload and padding) runs past the end of the data.
    #[error("record needs {needed} bytes, only {available} left")]
    PayloadIncomplete {
        /// Bytes the whole framed record needs.
        needed: usize,
        /// Bytes left from the record's offset to the end of the data.
        available: usize,
    },
    /// The stored checksum does not match the header fields and payload.
    #[error("checksum mismatch: stored {stored:#010x}, computed {computed:#010x}")]
    Checksum {
        /// Checksum read from the header.
        stored: u32,
        /// Checksum computed over what was read.
        computed: u32,
    },
    /// A padding byte after the payload is not zero.
    #[error("non-zero padding byte")]
    Padding,
    /// A record with the largest index, which no index can follow: the log never writes it.
    /// Found by the segment scan, never by [`decode`].
    #[error("index {index} has no successor, so no log holds it")]
    IndexTooLarge {
        /// The index the record carries.
        index: u64,
    },
    /// An all-zero header, which marks the end of the data in a pre-written segment, with
    /// non-zero bytes after it. Found by the segment scan, never by [`decode`].
    #[error("zeros mark the end of the data, but non-zero bytes follow at byte {at}")]
    DataAfterEnd {
        /// Byte offset in the segment of the first non-zero byte after the mark.
        at: u64,
    },
}

/// A record read back from bytes, borrowing its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// Term, index and time stamped by the sequencer.
    pub meta: Meta,
    /// The command's journal bytes, exactly as encoded.
    pub payload: &'a [u8],
    /// Bytes the framed record occupies on disk, padding included: the next record starts here.
    pub framed_len: usize,
}

/// Bytes a record with `payload_len` bytes of payload occupies on disk.
pub fn framed_len(payload_len: usize) -> usize {
    let unpadded = RECORD_HEADER_SIZE_BYTES + payload_len;
    unpadded.next_multiple_of(RECORD_ALIGNMENT_BYTES)
}

/// Appends one framed record to `out`.
pub fn encode(meta: Meta, payload: &[u8], out: &mut Vec<u8>) -> Result<(), RecordError> {
    encode_with(meta, out, |buffer| buffer.extend_from_slice(payload))
}

/// Appends one framed record to `out`, letting `write_payload` append the payload in
/// place so a command is encoded straight into the batch buffer, without a copy.
///
/// On error `out` is left as it was.
pub fn encode_with(
    meta: Meta,
    out: &mut Vec<u8>,
    write_payload: impl FnOnce(&mut Vec<u8>),
) -> Result<(), RecordError> {
    let start = out.len();
    out.resize(start + RECORD_HEADER_SIZE_BYTES, 0);
    write_payload(out);
    let payload_len = out.len() - start - RECORD_HEADER_SIZE_BYTES;
    if payload_len > RECORD_PAYLOAD_MAX_BYTES {
        out.truncate(start);
        return Err(RecordError::PayloadTooLarge { len: payload_len });
    }
    let header = &mut out[start..start + RECORD_HEADER_SIZE_BYTES];
    header[0..4].copy_from_slice(&u32::try_from(payload_len).expect("bounded above").to_le_bytes());
    header[8..16].copy_from_slice(&meta.term.to_le_bytes());
    header[16..24].copy_from_slice(&meta.index.to_le_bytes());
    header[24..32].copy_from_slice(&meta.time_ms.to_le_bytes());
    let checksum = crc32c::crc32c(&out[start + 8..]);
    out[start + 4..start + 8].copy_from_slice(&checksum.to_le_bytes());
    out.resize(start + framed_len(payload_len), 0);
    Ok(())
}

/// Reads the record that starts at the beginning of `bytes`, checking its checksum and padding.
pub fn decode(bytes: &[u8]) -> Result<Record<'_>, RecordError> {
    if bytes.len() < RECORD_HEADER_SIZE_BYTES {
        return Err(RecordError::HeaderIncomplete { available: bytes.len() });
    }
    let payload_len = usize::try_from(read_u32(bytes, 0)).expect("u32 fits in usize");
    if payload_len > RECORD_PAYLOAD_MAX_BYTES {
        return Err(RecordError::PayloadTooLarge { len: payload_len });
    }
    let needed = framed_len(payload_len);
    if bytes.len() < needed {
        return Err(RecordError::PayloadIncomplete { needed, available: bytes.len() });
    }
    let covered_end = RECORD_HEADER_SIZE_BYTES + payload_len;
    let stored = read_u32(bytes, 4);
    let computed = crc32c::crc32c(&bytes[8..covered_end]);
    if stored != computed {
        return Err(RecordError::Checksum { stored, computed });
    }
    if bytes[covered_end..needed].iter().any(|&byte| byte != 0) {
        return Err(RecordError::Padding);
    }
    let meta =
        Meta { term: read_u64(bytes, 8), index: read_u64(bytes, 16), time_ms: read_u64(bytes, 24) };
    Ok(Record { meta, payload: &bytes[RECORD_HEADER_SIZE_BYTES..covered_end], framed_len: needed })
}

/// Checks that `bytes` is a whole sequence of valid records: the pair check made right
/// before a batch is written (debug builds), so that a framing bug never reaches disk.
pub fn verify_all(mut bytes: &[u8]) -> Result<usize, RecordError> {
    let mut count = 0;
    while !bytes.is_empty() {
        let record = decode(bytes)?;
        bytes = &bytes[record.framed_len..];
        count += 1;
    }
    Ok(count)
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("slice of 4"))
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("slice of 8"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn meta(index: u64) -> Meta {
        Meta { term: 3, index, time_ms: 1_700_000_000_000 + index }
    }

    #[test]
    fn round_trip_with_padding() {
        for len in 0..20 {
            let payload: Vec<u8> = (0..len).map(|i| i as u8 ^ 0x5a).collect();
            let mut out = vec![];
            encode(meta(7), &payload, &mut out).unwrap();
            assert_eq!(out.len() % RECORD_ALIGNMENT_BYTES, 0);
            assert_eq!(out.len(), framed_len(len));
            let record = decode(&out).unwrap();
            assert_eq!(record.meta, meta(7));
            assert_eq!(record.payload, &payload[..]);
            assert_eq!(record.framed_len, out.len());
        }
    }

    #[test]
    fn too_large_payload_is_a_value_and_leaves_the_buffer_alone() {
        let mut out = vec![1, 2, 3];
        let big = vec![0u8; RECORD_PAYLOAD_MAX_BYTES + 1];
        let error = encode(meta(1), &big, &mut out).unwrap_err();
        assert_eq!(error, RecordError::PayloadTooLarge { len: big.len() });
        assert_eq!(out, vec![1, 2, 3]);
    }

    #[test]
    fn huge_length_on_disk_is_rejected_without_allocating() {
        let mut out = vec![];
        encode(meta(1), b"abc", &mut out).unwrap();
        out[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(&out), Err(RecordError::PayloadTooLarge { len: u32::MAX as usize }));
    }

    #[test]
    fn truncated_records_are_incomplete() {
        let mut out = vec![];
        encode(meta(1), b"hello world", &mut out).unwrap();
        for cut in 0..out.len() {
            let error = decode(&out[..cut]).unwrap_err();
            assert!(matches!(
                error,
                RecordError::HeaderIncomplete { .. } | RecordError::PayloadIncomplete { .. }
            ));
        }
    }

    proptest! {
        #[test]
        fn round_trip(term: u64, index: u64, time_ms: u64, payload in proptest::collection::vec(any::<u8>(), 0..300)) {
            let meta = Meta { term, index, time_ms };
            let mut out = vec![];
            encode(meta, &payload, &mut out).unwrap();
            let record = decode(&out).unwrap();
            prop_assert_eq!(record.meta, meta);
            prop_assert_eq!(record.payload, &payload[..]);
            prop_assert_eq!(verify_all(&out).unwrap(), 1);
        }

        #[test]
        fn every_single_bit_flip_is_detected(
            term: u64, index: u64, time_ms: u64,
            payload in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let mut out = vec![];
            encode(Meta { term, index, time_ms }, &payload, &mut out).unwrap();
            for bit in 0..out.len() * 8 {
                let mut damaged = out.clone();
                damaged[bit / 8] ^= 1 << (bit % 8);
                prop_assert!(decode(&damaged).is_err(), "flip of bit {} went unnoticed", bit);
            }
        }
    }
}
