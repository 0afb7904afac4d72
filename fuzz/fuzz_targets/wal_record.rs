//! The WAL's readers on damaged or hostile bytes: `record::decode`, `record::verify_all`,
//! `segment::scan` (the check recovery runs over each segment), and, for half of the inputs,
//! the whole recovery: `Wal::open_and_replay` over an in-memory directory holding the bytes as
//! segment files, with each replayed payload decoded as the engine does on recovery
//! (`<Engine as StateMachine>::decode_command`).
//!
//! Input: `[flags u8][first_index u64 LE][segment bytes...]`.
//! - flags bit 0: also run the whole recovery (slower);
//! - flags bit 1: pre-written (zero-filled, `sync` on) segments, else growing files;
//! - flags bit 2: split the bytes into two segments (the second named by flags bits 3..8).
//!
//! Besides "no panic", it checks what recovery promises: the scan's cut point is a record
//! boundary inside the bytes, every record it accepted decodes alone and re-encodes to the
//! same bytes, and a log that opened can take one more record and reopen cleanly with it.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use wal::constants::{RECORD_ALIGNMENT_BYTES, RECORD_PAYLOAD_MAX_BYTES};
use wal::record::{self, RecordError};
use wal::segment::{self, ScanStop};
use wal::{FaultyStorage, Meta, StateMachine, Storage, Wal, WalOptions};

/// Segment size used for the recovery runs: small, so a zero fill costs little per input.
const SEGMENT_SIZE_BYTES: u64 = 8 * 1024;

fn check_decode(bytes: &[u8]) {
    match record::decode(bytes) {
        Ok(rec) => {
            assert!(rec.framed_len <= bytes.len());
            assert_eq!(rec.framed_len % RECORD_ALIGNMENT_BYTES, 0);
            assert!(rec.payload.len() <= RECORD_PAYLOAD_MAX_BYTES);
            assert_eq!(rec.framed_len, record::framed_len(rec.payload.len()));
            // What was read is exactly what the writer would write for it.
            let mut again = Vec::new();
            record::encode(rec.meta, rec.payload, &mut again).expect("payload within bounds");
            assert_eq!(&again[..], &bytes[..rec.framed_len], "decode/encode disagree");
        }
        Err(RecordError::DataAfterEnd { .. }) => panic!("decode never reports DataAfterEnd"),
        Err(_) => {}
    }
}

fn check_scan(bytes: &[u8], first_index: u64) {
    let mut visited = 0u64;
    let mut offsets = Vec::new();
    let result = segment::scan(bytes, first_index, |rec| {
        visited += 1;
        offsets.push(rec.framed_len);
        Ok::<(), ()>(())
    });
    match result {
        Ok(scan) => {
            assert_eq!(scan.records, visited);
            let valid_len = usize::try_from(scan.valid_len).expect("fits");
            assert!(valid_len <= bytes.len(), "cut point beyond the data");
            assert_eq!(valid_len % RECORD_ALIGNMENT_BYTES, 0, "cut point not aligned");
            assert_eq!(offsets.iter().sum::<usize>(), valid_len);
            assert_eq!(record::verify_all(&bytes[..valid_len]).ok(), Some(visited as usize));
            match scan.last_meta {
                Some(meta) => assert_eq!(meta.index, first_index.wrapping_add(visited).wrapping_sub(1)),
                None => assert_eq!(visited, 0),
            }
            if let Some(damage) = &scan.damage {
                assert_eq!(damage.offset, scan.valid_len);
                assert_eq!(damage.expected_index, first_index.wrapping_add(visited));
            } else {
                assert!(segment::is_end_mark(&bytes[valid_len..]));
                assert_eq!(segment::nonzero_end(&bytes[valid_len..]), 0);
            }
        }
        Err(ScanStop::Gap(gap)) => {
            assert_ne!(gap.found_index, gap.expected_index);
            assert!((gap.offset as usize) < bytes.len());
        }
        Err(ScanStop::Visit(())) => unreachable!("the visitor never fails"),
    }
}

fn decode_payload(payload: &[u8]) {
    // Recovery hands every replayed payload to the engine; garbage must be an error.
    let _ = <engine::Engine as StateMachine>::decode_command(payload);
}

fn recover(flags: u8, first_index: u64, bytes: &[u8]) {
    let dir = Path::new("/fuzz/wal");
    let storage = FaultyStorage::new(1);
    let options = WalOptions { segment_size_max_bytes: SEGMENT_SIZE_BYTES, sync: flags & 2 != 0 };
    let mut files: Vec<(PathBuf, &[u8])> = Vec::new();
    if flags & 4 != 0 && bytes.len() >= 2 * RECORD_ALIGNMENT_BYTES {
        let split = (bytes.len() / 2).next_multiple_of(RECORD_ALIGNMENT_BYTES);
        let second_index = first_index.wrapping_add(u64::from(flags >> 3));
        files.push((dir.join(segment::segment_name(first_index)), &bytes[..split]));
        files.push((dir.join(segment::segment_name(second_index)), &bytes[split..]));
    } else {
        files.push((dir.join(segment::segment_name(first_index)), bytes));
    }
    for (path, content) in &files {
        storage.put_file(path, content);
    }
    let shared: Arc<dyn Storage> = Arc::new(storage.clone());
    let mut replayed = 0u64;
    let opened = Wal::open_and_replay(shared, dir, options, 0, |_meta: Meta, payload: &[u8]| {
        replayed += 1;
        decode_payload(payload);
        Ok::<(), wal::WalError>(())
    });
    let Ok((mut wal, visited)) = opened else { return };
    assert_eq!(visited, replayed);
    let records = wal.recovery().records;
    // What the pipeline asks first after opening the log.
    let last_index = wal.last_index();
    match wal.last_meta() {
        Some(last) => assert_eq!(last.index, last_index),
        None => assert_eq!(last_index.wrapping_add(1), wal.first_index()),
    }
    let next = match wal.last_meta() {
        Some(last) => last.index.checked_add(1),
        None => Some(wal.first_index()),
    };
    // Index u64::MAX is never written (nothing could follow it): no append to check there.
    let Some(next) = next.filter(|&next| next < u64::MAX) else { return };
    // The recovered log must take the next record and reopen cleanly with it.
    let last = wal.last_meta().unwrap_or(Meta { term: 1, index: 0, time_ms: 0 });
    let meta = Meta { term: last.term, index: next, time_ms: last.time_ms };
    wal.append_batch(&[(meta, b"fuzz")]).expect("append after recovery");
    drop(wal);
    let shared: Arc<dyn Storage> = Arc::new(storage);
    let reopened = Wal::open(shared, dir, options).expect("reopen after recovery and append");
    assert_eq!(reopened.recovery().records, records + 1, "the appended record is lost");
    assert_eq!(reopened.recovery().cut_tail_bytes, 0, "recovery left a tail to cut");
    assert_eq!(reopened.last_meta(), Some(meta));
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 9 {
        check_decode(data);
        return;
    }
    let flags = data[0];
    let first_index = u64::from_le_bytes(data[1..9].try_into().expect("8 bytes"));
    let bytes = &data[9..];
    check_decode(bytes);
    let _ = record::verify_all(bytes);
    check_scan(bytes, first_index);
    if let Ok(rec) = record::decode(bytes) {
        decode_payload(rec.payload);
    }
    if flags & 1 != 0 {
        recover(flags, first_index, bytes);
    }
});
