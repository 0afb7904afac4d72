//! The write-ahead log under injected faults: torn tails, flipped bits, short writes,
//! failed syncs, segment rolls and truncation.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wal::{FaultyStorage, FsStorage, Meta, Storage, Wal, WalError, WalOptions};

fn dir() -> PathBuf {
    PathBuf::from("/faulty/wal")
}

fn options(segment_size_max_bytes: u64) -> WalOptions {
    WalOptions { segment_size_max_bytes, sync: true, track_offsets: false }
}

fn meta(index: u64) -> Meta {
    Meta { term: 1, index, time_ms: 1_000 + index }
}

/// A payload that differs per index and in length, so misplaced bytes are noticed.
fn payload(index: u64) -> Vec<u8> {
    (0..(index % 23) + 1).map(|i| (index as u8).wrapping_add(i as u8)).collect()
}

fn append(wal: &mut Wal, indexes: std::ops::RangeInclusive<u64>) -> Result<(), WalError> {
    let payloads: Vec<(Meta, Vec<u8>)> = indexes.map(|i| (meta(i), payload(i))).collect();
    let records: Vec<(Meta, &[u8])> = payloads.iter().map(|(m, p)| (*m, &p[..])).collect();
    wal.append_batch(&records)
}

fn open(storage: &FaultyStorage, segment_size_max_bytes: u64) -> Result<Wal, WalError> {
    Wal::open(Arc::new(storage.clone()), dir(), options(segment_size_max_bytes))
}

/// Every record after `after`, as (meta, payload).
fn replay_all(wal: &Wal, after: u64) -> Vec<(Meta, Vec<u8>)> {
    let mut out = Vec::new();
    wal.replay(after, |meta, bytes| {
        out.push((meta, bytes.to_vec()));
        Ok::<(), WalError>(())
    })
    .expect("replay");
    out
}

fn assert_holds(wal: &Wal, first: u64, last: u64) {
    let records = replay_all(wal, first - 1);
    let expected: Vec<(Meta, Vec<u8>)> = (first..=last).map(|i| (meta(i), payload(i))).collect();
    assert_eq!(records, expected);
    assert_eq!(wal.last_index(), last);
}

#[test]
fn group_commit_is_one_write_and_one_sync_per_batch() {
    let storage = FaultyStorage::new(1);
    let mut wal = open(&storage, 1 << 20).unwrap();
    let before = storage.counters();
    append(&mut wal, 1..=50).unwrap();
    let after = storage.counters();
    assert_eq!((after.writes - before.writes, after.syncs - before.syncs), (1, 1));
    assert_eq!(wal.last_meta(), Some(meta(50)));
    assert_eq!(wal.syncs(), 1);
}

#[test]
fn reopens_with_every_record() {
    let storage = FaultyStorage::new(2);
    let mut wal = open(&storage, 1 << 20).unwrap();
    append(&mut wal, 1..=3).unwrap();
    append(&mut wal, 4..=4).unwrap();
    drop(wal);
    let wal = open(&storage, 1 << 20).unwrap();
    assert_holds(&wal, 1, 4);
    assert_eq!(wal.recovery().records, 4);
    assert_eq!(wal.recovery().cut_tail_bytes, 0);
}

/// A crash while a batch is written but not synced keeps a random prefix of it; the
/// rest of the pre-written segment stays zeros. Reopening must zero out whatever partial
/// record the tear left and keep exactly the synced records, plus any whole records of
/// the torn batch that happened to reach the disk.
#[test]
fn torn_tail_is_cut_and_the_log_reopens_with_the_synced_records() {
    let mut seeds_that_cut = 0;
    for seed in 0..200 {
        let storage = FaultyStorage::new(seed);
        let mut wal = open(&storage, 1 << 20).unwrap();
        append(&mut wal, 1..=3).unwrap();
        append(&mut wal, 4..=9).unwrap();
        drop(wal);
        // Without sync the batch is written and never synced: the crash lands in between.
        let unsynced = WalOptions { sync: false, ..options(1 << 20) };
        let mut wal = Wal::open(Arc::new(storage.clone()), dir(), unsynced).unwrap();
        append(&mut wal, 10..=14).unwrap();
        storage.crash_torn();
        storage.restart();
        let path = wal.segment_paths()[0].clone();
        let torn = storage.contents(&path).unwrap();
        assert_eq!(torn.len(), 1 << 20, "an overwrite inside the file does not grow it");
        drop(wal);

        let mut wal = open(&storage, 1 << 20).unwrap();
        let last = wal.last_index();
        assert!((9..14).contains(&last), "seed {seed}: last index {last}");
        assert_holds(&wal, 1, last);
        let valid = data_len(1..=last) as usize;
        assert_eq!(wal.active_data_len(), valid as u64);
        // What the tear left after the valid records, rounded up to the alignment, is zeroed.
        let garbage_end = torn[valid..]
            .iter()
            .rposition(|&b| b != 0)
            .map_or(valid, |at| (valid + at + 1).next_multiple_of(8));
        assert_eq!(wal.recovery().cut_tail_bytes, (garbage_end - valid) as u64, "seed {seed}");
        let kept = storage.durable_contents(&path).unwrap();
        assert_eq!(kept.len(), 1 << 20, "the zeros are kept for the records to come");
        assert_eq!(&kept[..valid], &torn[..valid]);
        assert!(kept[valid..].iter().all(|&b| b == 0), "seed {seed}: garbage after the data");
        seeds_that_cut += u32::from(wal.recovery().cut_tail_bytes > 0);
        // The log goes on from where recovery left it.
        append(&mut wal, last + 1..=last + 2).unwrap();
        assert_holds(&wal, 1, last + 2);
        drop(wal);
        let wal = open(&storage, 1 << 20).unwrap();
        assert_holds(&wal, 1, last + 2);
        assert_eq!(wal.recovery().cut_tail_bytes, 0);
    }
    assert!(seeds_that_cut > 100, "the tear should usually split a record: {seeds_that_cut}");
}

/// Bytes records `indexes` occupy on disk.
fn data_len(indexes: std::ops::RangeInclusive<u64>) -> u64 {
    indexes.map(record_len).sum()
}

#[test]
fn crash_without_tear_keeps_exactly_the_synced_batches() {
    let storage = FaultyStorage::new(3);
    let mut wal = open(&storage, 1 << 20).unwrap();
    append(&mut wal, 1..=5).unwrap();
    storage.fail_syncs(2); // the batch's sync, and the sync of its roll-back
    assert!(append(&mut wal, 6..=8).is_err());
    storage.crash();
    storage.restart();
    drop(wal);
    let wal = open(&storage, 1 << 20).unwrap();
    assert_holds(&wal, 1, 5);
}

#[test]
fn failed_sync_rolls_back_the_batch_when_it_can() {
    let storage = FaultyStorage::new(11);
    let mut wal = open(&storage, 1 << 20).unwrap();
    append(&mut wal, 1..=5).unwrap();
    storage.fail_syncs(1);
    assert!(matches!(append(&mut wal, 6..=8), Err(WalError::Io { .. })));
    assert!(matches!(append(&mut wal, 6..=8), Err(WalError::Poisoned)));
    drop(wal);
    // No crash: a reader sees the file as it is, without the failed batch.
    let wal = open(&storage, 1 << 20).unwrap();
    assert_holds(&wal, 1, 5);
    assert_eq!(wal.recovery().cut_tail_bytes, 0);
}

#[test]
fn flipped_bit_in_the_middle_refuses_to_open_naming_segment_offset_and_index() {
    let storage = FaultyStorage::new(4);
    let mut wal = open(&storage, 1 << 20).unwrap();
    for index in 1..=10 {
        append(&mut wal, index..=index).unwrap();
    }
    let path = wal.segment_paths()[0].clone();
    drop(wal);
    let offset_of_4: u64 = (1..4).map(record_len).sum();
    storage.flip_bit(&path, offset_of_4 + 33, 2); // in record 4's payload

    let error = open(&storage, 1 << 20).unwrap_err();
    let WalError::Corrupt { segment, offset, expected_index, .. } = &error else {
        panic!("expected Corrupt, got {error:?}");
    };
    assert_eq!((segment, *offset, *expected_index), (&path, offset_of_4, 4));
    let message = error.to_string();
    assert!(
        message.contains(&path.display().to_string()) && message.contains("expected index 4"),
        "{message}"
    );
}

/// Bytes record `index` occupies on disk (header, payload, padding).
fn record_len(index: u64) -> u64 {
    (32 + payload(index).len() as u64).next_multiple_of(8)
}

/// Policy, not a wish: a damaged last record with nothing valid after it looks exactly
/// like a torn write, so it is cut. (Its batch could not have been acknowledged if the
/// write was torn; media damage to an acknowledged last record is indistinguishable.)
#[test]
fn flipped_bit_in_the_last_record_is_cut_as_a_torn_tail() {
    let storage = FaultyStorage::new(5);
    let mut wal = open(&storage, 1 << 20).unwrap();
    append(&mut wal, 1..=4).unwrap();
    let path = wal.segment_paths()[0].clone();
    drop(wal);
    let offset_of_4: u64 = (1..4).map(record_len).sum();
    storage.flip_bit(&path, offset_of_4 + 20, 0); // record 4's index field
    let wal = open(&storage, 1 << 20).unwrap();
    assert_holds(&wal, 1, 3);
    assert_eq!(wal.recovery().cut_tail_bytes, record_len(4));
}

#[test]
fn flipped_bit_in_a_sealed_segment_refuses_to_open() {
    let storage = FaultyStorage::new(6);
    let mut wal = open(&storage, 200).unwrap();
    for index in 1..=30 {
        append(&mut wal, index..=index).unwrap();
    }
    let sealed = wal.segment_paths()[0].clone();
    assert!(wal.segment_paths().len() > 2);
    drop(wal);
    let sealed_len = storage.contents(&sealed).unwrap().len() as u64;
    storage.flip_bit(&sealed, sealed_len - 1 - 8, 7); // its last record, even so
    let error = open(&storage, 200).unwrap_err();
    assert!(matches!(&error, WalError::Corrupt { segment, .. } if *segment == sealed), "{error:?}");
}

#[test]
fn short_write_is_an_error_and_the_log_recovers_to_the_last_durable_batch() {
    for seed in 0..20 {
        let storage = FaultyStorage::new(seed);
        let mut wal = open(&storage, 1 << 20).unwrap();
        append(&mut wal, 1..=4).unwrap();
        storage.short_write_next();
        assert!(matches!(append(&mut wal, 5..=9), Err(WalError::Io { .. })));
        // Nothing more goes on top of bytes of unknown state.
        assert!(matches!(append(&mut wal, 5..=9), Err(WalError::Poisoned)));
        assert!(wal.is_poisoned());
        drop(wal);
        let wal = open(&storage, 1 << 20).unwrap();
        assert_holds(&wal, 1, 4);
    }
}

#[test]
fn segments_roll_and_recovery_spans_them() {
    let storage = FaultyStorage::new(7);
    let mut wal = open(&storage, 256).unwrap();
    let mut next = 1;
    while next <= 100 {
        let last = (next + 2).min(100);
        append(&mut wal, next..=last).unwrap();
        next = last + 1;
    }
    let paths = wal.segment_paths();
    assert!(paths.len() > 5, "{} segments", paths.len());
    drop(wal);
    let wal = open(&storage, 256).unwrap();
    assert_eq!(wal.recovery().segments, paths.len());
    assert_holds(&wal, 1, 100);
    let tail = replay_all(&wal, 50);
    assert_eq!(tail.first().map(|r| r.0.index), Some(51));
    assert_eq!(tail.len(), 50);
    // Each segment is named after its first record.
    for path in &paths {
        let name = path.file_name().unwrap().to_str().unwrap();
        let first: u64 = name.trim_end_matches(".wal").parse().unwrap();
        let bytes = storage.contents(path).unwrap();
        assert_eq!(u64::from_le_bytes(bytes[16..24].try_into().unwrap()), first);
    }
}

#[test]
fn a_missing_segment_is_a_gap() {
    let storage = FaultyStorage::new(8);
    let mut wal = open(&storage, 128).unwrap();
    for index in 1..=20 {
        append(&mut wal, index..=index).unwrap();
    }
    let paths = wal.segment_paths();
    drop(wal);
    storage.remove_file(&paths[1]).unwrap();
    let error = open(&storage, 128).unwrap_err();
    assert!(matches!(&error, WalError::Gap { segment, .. } if *segment == paths[2]), "{error:?}");
}

#[test]
fn truncate_before_keeps_the_active_segment_and_everything_from_the_index() {
    let storage = FaultyStorage::new(9);
    let mut wal = open(&storage, 256).unwrap();
    for index in 1..=100 {
        append(&mut wal, index..=index).unwrap();
    }
    let segments = wal.segment_paths().len();
    let removed = wal.truncate_before(60).unwrap();
    assert!(removed > 0 && removed < segments);
    assert!(wal.first_index() <= 60 && wal.first_index() > 1);
    let kept = replay_all(&wal, 59);
    assert_eq!(kept.first().map(|r| r.0.index), Some(60));
    assert!(matches!(replay_all_result(&wal, 0), Err(WalError::ReplayBeforeStart { .. })));

    wal.truncate_before(u64::MAX).unwrap();
    assert_eq!(wal.segment_paths().len(), 1, "the active segment stays");
    assert_eq!(wal.last_index(), 100);
    let first = wal.first_index();
    drop(wal);
    let mut wal = open(&storage, 256).unwrap();
    assert_eq!((wal.first_index(), wal.last_index()), (first, 100));
    append(&mut wal, 101..=101).unwrap();
    assert_eq!(replay_all(&wal, 100).len(), 1);
}

fn replay_all_result(wal: &Wal, after: u64) -> Result<u64, WalError> {
    wal.replay(after, |_, _| Ok::<(), WalError>(()))
}

#[test]
#[should_panic(expected = "a batch must continue the log")]
fn appending_out_of_order_is_a_broken_invariant() {
    let storage = FaultyStorage::new(10);
    let mut wal = open(&storage, 1 << 20).unwrap();
    append(&mut wal, 1..=2).unwrap();
    let _ = append(&mut wal, 4..=4);
}

#[test]
fn real_files_cut_a_torn_tail() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("wal");
    let storage: Arc<dyn Storage> = Arc::new(FsStorage);
    let mut wal = Wal::open(Arc::clone(&storage), &dir, options(1 << 20)).unwrap();
    append(&mut wal, 1..=7).unwrap();
    let path = wal.segment_paths()[0].clone();
    drop(wal);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 1 << 20, "pre-written");
    append_garbage(&path, &[0xAB; 13]);
    let wal = Wal::open(Arc::clone(&storage), &dir, options(1 << 20)).unwrap();
    assert_eq!(wal.recovery().cut_tail_bytes, 13);
    assert_holds(&wal, 1, 7);
    // Cut back to the prepared size, not to the data: the zeros stay for what comes next.
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 1 << 20);
}

fn append_garbage(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(bytes).unwrap();
}

/// With `sync` on, segments are pre-written with zeros up to the segment size and records
/// overwrite them; a clean reopen finds the end of the data at the first zero header and
/// goes on writing there, in place.
#[test]
fn reopen_after_a_clean_shutdown_continues_at_the_end_of_the_data() {
    let storage = FaultyStorage::new(20);
    let mut wal = open(&storage, 4096).unwrap();
    let path = wal.segment_paths()[0].clone();
    assert_eq!(storage.contents(&path).unwrap(), vec![0; 4096], "zeros, synced, before use");
    assert_eq!(storage.unsynced_len(&path), Some(0));
    append(&mut wal, 1..=5).unwrap();
    drop(wal);
    for round in 0..3 {
        let mut wal = open(&storage, 4096).unwrap();
        let last = 5 + round * 2;
        assert_eq!(wal.recovery().cut_tail_bytes, 0, "zeros after the data are the end");
        assert_eq!(wal.recovery().records, last);
        assert_eq!(wal.active_data_len(), data_len(1..=last));
        append(&mut wal, last + 1..=last + 2).unwrap();
        drop(wal);
        let bytes = storage.contents(&path).unwrap();
        assert_eq!(bytes.len(), 4096, "overwritten in place, never grown");
        let end = data_len(1..=last + 2) as usize;
        assert!(bytes[end..].iter().all(|&b| b == 0));
    }
    let wal = open(&storage, 4096).unwrap();
    assert_holds(&wal, 1, 11);
    assert_eq!(wal.segment_paths(), vec![path]);
}

/// A sync fails, then so does the roll-back's sync, then the power goes: a random prefix
/// of the batch and of the zeros that were to undo it reaches the disk. Recovery keeps
/// the durable records (and, maybe, whole records of the failed batch), zeroes the rest.
#[test]
fn torn_crash_inside_a_pre_written_segment_during_a_failed_batch() {
    for seed in 0..100 {
        let storage = FaultyStorage::new(100 + seed);
        let mut wal = open(&storage, 1 << 16).unwrap();
        append(&mut wal, 1..=5).unwrap();
        storage.fail_syncs(2); // the batch's sync, and the roll-back's
        assert!(append(&mut wal, 6..=20).is_err());
        let path = wal.segment_paths()[0].clone();
        storage.crash_torn();
        storage.restart();
        drop(wal);
        let torn = storage.contents(&path).unwrap();
        let mut wal = open(&storage, 1 << 16).unwrap();
        let last = wal.last_index();
        assert!((5..20).contains(&last), "seed {seed}: last index {last}");
        assert_holds(&wal, 1, last);
        let valid = data_len(1..=last) as usize;
        let kept = storage.durable_contents(&path).unwrap();
        assert_eq!(kept.len(), 1 << 16);
        assert_eq!(&kept[..valid], &torn[..valid]);
        assert!(kept[valid..].iter().all(|&b| b == 0), "seed {seed}: garbage after the data");
        append(&mut wal, last + 1..=last + 1).unwrap();
        drop(wal);
        assert_holds(&open(&storage, 1 << 16).unwrap(), 1, last + 1);
    }
}

/// Decision: garbage after the end of the data (the zeros) with no valid record after it
/// is a torn tail, zeroed out; a valid record after it is damage in the middle of the log.
#[test]
fn a_flipped_bit_in_the_zeros_after_the_data_is_a_torn_tail() {
    let storage = FaultyStorage::new(21);
    let mut wal = open(&storage, 4096).unwrap();
    append(&mut wal, 1..=4).unwrap();
    let path = wal.segment_paths()[0].clone();
    drop(wal);
    let end = data_len(1..=4);
    storage.flip_bit(&path, end + 1000, 3);
    let mut wal = open(&storage, 4096).unwrap();
    assert_holds(&wal, 1, 4);
    // Zeroed from the end of the data to the flipped byte, rounded up to the alignment.
    assert_eq!(wal.recovery().cut_tail_bytes, (end + 1001).next_multiple_of(8) - end);
    assert!(
        matches!(wal.recovery().cut_reason, Some(wal::RecordError::DataAfterEnd { at }) if at == end + 1000),
        "{:?}",
        wal.recovery().cut_reason
    );
    assert!(storage.durable_contents(&path).unwrap()[end as usize..].iter().all(|&b| b == 0));
    append(&mut wal, 5..=6).unwrap();
    drop(wal);
    let wal = open(&storage, 4096).unwrap();
    assert_holds(&wal, 1, 6);
    assert_eq!(wal.recovery().cut_tail_bytes, 0);
}

#[test]
fn a_valid_record_after_zeros_refuses_to_open() {
    let storage = FaultyStorage::new(22);
    let mut wal = open(&storage, 4096).unwrap();
    append(&mut wal, 1..=4).unwrap();
    let path = wal.segment_paths()[0].clone();
    drop(wal);
    // A record from further on in the log, 1 KiB after the end of the data.
    let mut bytes = storage.contents(&path).unwrap();
    let mut later = Vec::new();
    wal::record::encode(meta(9), &payload(9), &mut later).unwrap();
    let at = data_len(1..=4) as usize + 1024;
    bytes[at..at + later.len()].copy_from_slice(&later);
    storage.put_file(&path, &bytes);
    let error = open(&storage, 4096).unwrap_err();
    let WalError::Corrupt { segment, offset, expected_index, .. } = &error else {
        panic!("expected Corrupt, got {error:?}");
    };
    assert_eq!((segment, *offset, *expected_index), (&path, data_len(1..=4), 5));
}

/// A sealed segment may end in zeros too (e.g. prepared for a larger segment size than
/// the one it was sealed at); anything else there is damage, as anywhere in a sealed one.
#[test]
fn a_sealed_segment_ends_at_its_zeros_and_garbage_there_refuses_to_open() {
    let storage = FaultyStorage::new(23);
    let mut first = framed(1..=3);
    first.resize(4096, 0);
    let first_path = dir().join("00000000000000000001.wal");
    storage.put_file(&first_path, &first);
    let mut second = framed(4..=6);
    second.resize(4096, 0);
    storage.put_file(&dir().join("00000000000000000004.wal"), &second);
    let wal = open(&storage, 4096).unwrap();
    assert_holds(&wal, 1, 6);
    drop(wal);
    storage.flip_bit(&first_path, 4000, 0);
    let error = open(&storage, 4096).unwrap_err();
    assert!(
        matches!(&error, WalError::Corrupt { segment, offset, .. } if *segment == first_path && *offset == data_len(1..=3)),
        "{error:?}"
    );
}

/// Records `indexes`, framed back to back as a segment holds them.
fn framed(indexes: std::ops::RangeInclusive<u64>) -> Vec<u8> {
    let mut out = Vec::new();
    for index in indexes {
        wal::record::encode(meta(index), &payload(index), &mut out).unwrap();
    }
    out
}

/// Segments written before pre-writing (growing files, data up to the end of the file)
/// open as before; the last one goes on growing until it rolls, then the new one is
/// pre-written.
#[test]
fn old_style_growing_segments_still_open() {
    let storage = FaultyStorage::new(24);
    let first = dir().join("00000000000000000001.wal");
    let second = dir().join("00000000000000000011.wal");
    storage.put_file(&first, &framed(1..=10));
    let mut torn = framed(11..=14);
    torn.truncate(torn.len() - 3); // a torn tail, as an append left it
    storage.put_file(&second, &torn);

    let mut wal = open(&storage, 512).unwrap();
    assert_holds(&wal, 1, 13);
    assert_eq!(wal.recovery().cut_tail_bytes, record_len(14) - 3);
    // Zeroed like a torn tail in a pre-written segment: the zeros are the end.
    let bytes = storage.contents(&second).unwrap();
    assert_eq!(bytes.len(), torn.len());
    assert!(bytes[data_len(11..=13) as usize..].iter().all(|&b| b == 0));
    append(&mut wal, 14..=40).unwrap();
    for index in 41..=60 {
        append(&mut wal, index..=index).unwrap();
    }
    let paths = wal.segment_paths();
    assert!(paths.len() > 2, "{paths:?}");
    drop(wal);
    let wal = open(&storage, 512).unwrap();
    assert_holds(&wal, 1, 60);
    assert_eq!(wal.recovery().cut_tail_bytes, 0);
    // The old growing segment grew past its records; the new ones were pre-written.
    assert_eq!(storage.contents(&second).unwrap().len() as u64, data_len(11..=40));
    for path in &paths[2..] {
        assert!(storage.contents(path).unwrap().len() >= 512, "{path:?} was pre-written");
    }
}

/// Rolls rename a segment prepared (zero-filled and synced) ahead of time; nothing but
/// segments and at most one segment in preparation is left in the directory, and a
/// leftover half-prepared file is removed at open and never read as part of the log.
#[test]
fn rolls_use_prepared_segments_and_leftovers_are_removed() {
    let storage = FaultyStorage::new(25);
    let mut wal = open(&storage, 1024).unwrap();
    for index in 1..=200 {
        append(&mut wal, index..=index).unwrap();
        let prepared = storage.paths().iter().filter(|path| !is_segment(path)).count();
        assert!(prepared <= 1, "{:?}", storage.paths());
    }
    let paths = wal.segment_paths();
    assert!(paths.len() > 5);
    for path in &paths {
        assert!(storage.contents(path).unwrap().len() >= 1024, "{path:?}");
    }
    drop(wal);
    let leftover = dir().join(format!("{}.77.3", wal::constants::SEGMENT_PREPARED_NAME));
    storage.put_file(&leftover, &[0xEE; 100]);
    let wal = open(&storage, 1024).unwrap();
    assert_holds(&wal, 1, 200);
    assert!(!storage.paths().contains(&leftover));
}

fn is_segment(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "wal")
}

/// With `sync` off, segments are growing files (nothing is synced, so a zero fill would
/// only cost writes); they reopen like any other.
#[test]
fn without_sync_segments_grow_and_reopen() {
    let storage = FaultyStorage::new(26);
    let unsynced = WalOptions { segment_size_max_bytes: 256, sync: false, track_offsets: false };
    let mut wal = Wal::open(Arc::new(storage.clone()), dir(), unsynced).unwrap();
    for index in 1..=40 {
        append(&mut wal, index..=index).unwrap();
    }
    assert_eq!(wal.syncs(), 0);
    let paths = wal.segment_paths();
    assert!(paths.len() > 3);
    assert_eq!(storage.contents(&paths[0]).unwrap().len() as u64, wal_first_segment_len(&wal));
    drop(wal);
    let wal = Wal::open(Arc::new(storage.clone()), dir(), unsynced).unwrap();
    assert_holds(&wal, 1, 40);
}

/// Bytes of records in the first segment (named after its first index; the second's
/// name says where the first ends).
fn wal_first_segment_len(wal: &Wal) -> u64 {
    let second = wal.segment_paths()[1].clone();
    let name = second.file_name().unwrap().to_str().unwrap();
    let next: u64 = name.trim_end_matches(".wal").parse().unwrap();
    data_len(1..=next - 1)
}

/// A storage that counts reads, to check that start-up reads each segment once.
#[derive(Debug)]
struct CountingStorage {
    inner: FaultyStorage,
    reads: std::sync::Mutex<Vec<PathBuf>>,
}

impl Storage for CountingStorage {
    fn create_dir_all(&self, dir: &Path) -> std::io::Result<()> {
        self.inner.create_dir_all(dir)
    }
    fn list_files(&self, dir: &Path) -> std::io::Result<Vec<String>> {
        self.inner.list_files(dir)
    }
    fn read_file(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.reads.lock().unwrap().push(path.to_path_buf());
        self.inner.read_file(path)
    }
    fn open_write(&self, path: &Path) -> std::io::Result<Box<dyn wal::StorageFile>> {
        self.inner.open_write(path)
    }
    fn create_new(&self, path: &Path) -> std::io::Result<Box<dyn wal::StorageFile>> {
        self.inner.create_new(path)
    }
    fn create_zeroed(&self, path: &Path, len: u64) -> std::io::Result<()> {
        self.inner.create_zeroed(path, len)
    }
    fn rename(&self, from: &Path, to: &Path) -> std::io::Result<()> {
        self.inner.rename(from, to)
    }
    fn remove_file(&self, path: &Path) -> std::io::Result<()> {
        self.inner.remove_file(path)
    }
}

#[test]
fn open_and_replay_reads_each_segment_once_and_visits_what_replay_would() {
    let faulty = FaultyStorage::new(27);
    let mut wal = open(&faulty, 300).unwrap();
    for index in 1..=120 {
        append(&mut wal, index..=index).unwrap();
    }
    let segments = wal.segment_paths();
    drop(wal);
    for after in [0, 1, 57, 119, 120, 500] {
        let storage =
            Arc::new(CountingStorage { inner: faulty.clone(), reads: Default::default() });
        let mut visited = Vec::new();
        let (wal, count) =
            Wal::open_and_replay(storage.clone(), dir(), options(300), after, |meta, bytes| {
                visited.push((meta, bytes.to_vec()));
                Ok::<(), WalError>(())
            })
            .unwrap();
        assert_eq!(*storage.reads.lock().unwrap(), segments, "after {after}: one read each");
        assert_eq!(count, visited.len() as u64);
        assert_eq!(visited, replay_all(&wal, after));
        assert_eq!(wal.recovery().records, 120);
    }
    // A visitor's error stops the open.
    let result = Wal::open_and_replay(Arc::new(faulty.clone()), dir(), options(300), 0, |m, _| {
        if m.index == 50 {
            Err(WalError::Poisoned)
        } else {
            Ok(())
        }
    });
    assert!(matches!(result, Err(WalError::Poisoned)));
    // Replay from before the log's start is refused before anything is read.
    let mut wal = open(&faulty, 300).unwrap();
    wal.truncate_before(100).unwrap();
    let first = wal.first_index();
    drop(wal);
    let result =
        Wal::open_and_replay(Arc::new(faulty.clone()), dir(), options(300), 0, |_, _| Ok(()));
    assert!(
        matches!(result, Err(WalError::ReplayBeforeStart { after_index: 0, first_index }) if first_index == first),
        "{result:?}"
    );
}

/// Real files: garbage written into the zeros right after the data (a torn write that
/// reached the disk out of order) is zeroed out, the file keeps its size.
#[test]
fn real_files_zero_a_torn_write_inside_the_pre_written_segment() {
    use std::os::unix::fs::FileExt;
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("wal");
    let storage: Arc<dyn Storage> = Arc::new(FsStorage);
    let mut wal = Wal::open(Arc::clone(&storage), &dir, options(1 << 16)).unwrap();
    append(&mut wal, 1..=7).unwrap();
    let path = wal.segment_paths()[0].clone();
    drop(wal);
    let end = data_len(1..=7);
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.write_all_at(&[0x5A; 21], end).unwrap();
    drop(file);
    let mut wal = Wal::open(Arc::clone(&storage), &dir, options(1 << 16)).unwrap();
    assert_eq!(wal.recovery().cut_tail_bytes, 24);
    assert_holds(&wal, 1, 7);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 1 << 16);
    assert!(bytes[end as usize..].iter().all(|&b| b == 0));
    append(&mut wal, 8..=9).unwrap();
    drop(wal);
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert_holds(&Wal::open(Arc::clone(&storage), &dir, options(1 << 16)).unwrap(), 1, 9);
}

/// Real files: the helper thread prepares the next segment while the active one fills;
/// every segment is pre-written to the segment size, and once the log is dropped nothing
/// but segments is left in the directory.
#[test]
fn real_files_roll_into_prepared_segments_and_leave_no_temporary_file() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("wal");
    let storage: Arc<dyn Storage> = Arc::new(FsStorage);
    let size = 16 * 1024;
    let mut wal = Wal::open(Arc::clone(&storage), &dir, options(size)).unwrap();
    let mut next = 1;
    while next <= 2000 {
        append(&mut wal, next..=next + 9).unwrap();
        next += 10;
    }
    let paths = wal.segment_paths();
    assert!(paths.len() > 5, "{} segments", paths.len());
    for path in &paths {
        assert!(std::fs::metadata(path).unwrap().len() >= size, "{path:?} was pre-written");
    }
    drop(wal);
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    assert_eq!(names, paths, "only segments are left");
    let wal = Wal::open(Arc::clone(&storage), &dir, options(size)).unwrap();
    assert_holds(&wal, 1, 2000);
    assert_eq!(wal.recovery().cut_tail_bytes, 0);
}

/// Found by fuzzing (`fuzz/fuzz_targets/wal_record.rs`): a segment named 0 opened as a log
/// whose last index was `0 - 1` (a panic with overflow checks, `u64::MAX` without).
#[test]
fn a_segment_named_zero_refuses_to_open() {
    for content in [Vec::new(), framed(1..=1), vec![0; 4096]] {
        let storage = FaultyStorage::new(17);
        storage.put_file(&dir().join("00000000000000000000.wal"), &content);
        let Err(error) = open(&storage, 1 << 20) else { panic!("a segment named 0 opened") };
        assert!(
            matches!(error, WalError::Gap { expected_index: 1, found_index: 0, .. }),
            "{error:?}"
        );
    }
}

/// A log that keeps record offsets, as the Raft log does.
fn open_tracked(storage: &FaultyStorage, segment_size_max_bytes: u64) -> Result<Wal, WalError> {
    let options = WalOptions { track_offsets: true, ..options(segment_size_max_bytes) };
    Wal::open(Arc::new(storage.clone()), dir(), options)
}

fn read_all(wal: &Wal, indexes: std::ops::RangeInclusive<u64>) -> Vec<Option<(Meta, Vec<u8>)>> {
    indexes.map(|i| wal.read(i).expect("read")).collect()
}

#[test]
fn one_record_is_read_back_by_index_across_segments_and_after_reopening() {
    let storage = FaultyStorage::new(11);
    let mut wal = open_tracked(&storage, 256).unwrap();
    for batch in 0..10 {
        append(&mut wal, batch * 5 + 1..=batch * 5 + 5).unwrap();
    }
    assert!(wal.segment_paths().len() > 3, "rolled across segments");
    let expected: Vec<_> = (1..=50).map(|i| Some((meta(i), payload(i)))).collect();
    assert_eq!(read_all(&wal, 1..=50), expected);
    assert_eq!(wal.read(51).unwrap(), None);
    drop(wal);
    let wal = open_tracked(&storage, 256).unwrap();
    assert_eq!(read_all(&wal, 1..=50), expected, "offsets are rebuilt on open");
}

#[test]
fn truncate_after_cuts_the_tail_across_segments_and_the_log_goes_on_from_there() {
    let storage = FaultyStorage::new(12);
    let mut wal = open_tracked(&storage, 256).unwrap();
    for batch in 0..10 {
        append(&mut wal, batch * 5 + 1..=batch * 5 + 5).unwrap();
    }
    let segments = wal.segment_paths().len();
    wal.truncate_after(17).unwrap();
    assert!(wal.segment_paths().len() < segments, "whole segments after 17 are gone");
    assert_eq!((wal.last_index(), wal.last_meta()), (17, Some(meta(17))));
    assert_eq!(wal.read(18).unwrap(), None);
    // A conflicting entry at 18 replaces the old one.
    let other = Meta { term: 2, index: 18, time_ms: 2_000 };
    wal.append_batch(&[(other, b"new")]).unwrap();
    assert_eq!(wal.read(18).unwrap(), Some((other, b"new".to_vec())));
    drop(wal);
    let wal = open_tracked(&storage, 256).unwrap();
    assert_eq!(wal.last_meta(), Some(other));
    assert_eq!(
        read_all(&wal, 16..=17),
        vec![Some((meta(16), payload(16))), Some((meta(17), payload(17)))]
    );
    // A crash right after a truncation loses nothing it kept.
    storage.crash();
    storage.restart();
    let wal = open_tracked(&storage, 256).unwrap();
    assert_eq!(wal.last_meta(), Some(other), "the truncation and the append were durable");
}

#[test]
fn truncating_before_the_first_record_or_resetting_starts_an_empty_log_anywhere() {
    let storage = FaultyStorage::new(13);
    let mut wal = open_tracked(&storage, 1 << 20).unwrap();
    append(&mut wal, 1..=8).unwrap();
    wal.truncate_after(0).unwrap();
    assert_eq!((wal.last_meta(), wal.last_index(), wal.first_index()), (None, 0, 1));
    append(&mut wal, 1..=3).unwrap();
    wal.reset(1_000).unwrap();
    assert_eq!((wal.last_meta(), wal.first_index()), (None, 1_000));
    append(&mut wal, 1_000..=1_002).unwrap();
    drop(wal);
    let wal = open_tracked(&storage, 1 << 20).unwrap();
    assert_eq!((wal.first_index(), wal.last_index()), (1_000, 1_002));
    assert_eq!(wal.read(1_001).unwrap(), Some((meta(1_001), payload(1_001))));
}

/// A deferred append is readable at once and synced by its handle; one handle covers the
/// file, and the log syncs a segment itself before rolling away from it.
#[test]
fn deferred_appends_are_read_at_once_and_synced_by_a_handle_or_at_the_roll() {
    let temp = tempfile::tempdir().unwrap();
    let storage: Arc<dyn Storage> = Arc::new(FsStorage);
    let options = WalOptions { segment_size_max_bytes: 256, sync: true, track_offsets: true };
    let mut wal = Wal::open(Arc::clone(&storage), temp.path(), options).unwrap();
    let mut handles = Vec::new();
    for index in 1..=40 {
        let mut batch = wal::Batch::new();
        batch.push(meta(index), &payload(index)).unwrap();
        handles.push(wal.append_deferred(&batch).unwrap().expect("real files have a handle"));
        assert_eq!(wal.read(index).unwrap(), Some((meta(index), payload(index))));
    }
    // Past 256 bytes a segment rolls: the log synced the one it left (the handles' syncs
    // are not counted: they run elsewhere).
    assert!(wal.segment_paths().len() > 1, "the segments rolled");
    assert_eq!(wal.syncs(), wal.segment_paths().len() as u64 - 1);
    for handle in handles {
        handle().unwrap();
    }
    drop(wal);
    let wal = Wal::open(storage, temp.path(), options).unwrap();
    assert_holds(&wal, 1, 40);
}
