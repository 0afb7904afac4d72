//! The write-ahead log under injected faults: torn tails, flipped bits, short writes,
//! failed syncs, segment rolls and truncation.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wal::{FaultyStorage, FsStorage, Meta, Storage, Wal, WalError, WalOptions};

fn dir() -> PathBuf {
    PathBuf::from("/faulty/wal")
}

fn options(segment_size_max_bytes: u64) -> WalOptions {
    WalOptions { segment_size_max_bytes, sync: true }
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

/// A crash while a batch is written but not synced keeps a random prefix of it. Reopening
/// must cut whatever partial record the tear left and keep exactly the synced records,
/// plus any whole records of the torn batch that happened to reach the disk.
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
        let torn_len = storage.contents(&path).unwrap().len() as u64;
        drop(wal);

        let mut wal = open(&storage, 1 << 20).unwrap();
        let last = wal.last_index();
        assert!((9..14).contains(&last), "seed {seed}: last index {last}");
        assert_holds(&wal, 1, last);
        let kept_len = storage.contents(&path).unwrap().len() as u64;
        assert_eq!(wal.recovery().cut_tail_bytes, torn_len - kept_len, "seed {seed}");
        seeds_that_cut += u32::from(wal.recovery().cut_tail_bytes > 0);
        // The log goes on from where recovery left it.
        append(&mut wal, last + 1..=last + 2).unwrap();
        assert_holds(&wal, 1, last + 2);
    }
    assert!(seeds_that_cut > 100, "the tear should usually split a record: {seeds_that_cut}");
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
    append_garbage(&path, &[0xAB; 13]);
    let wal = Wal::open(Arc::clone(&storage), &dir, options(1 << 20)).unwrap();
    assert_eq!(wal.recovery().cut_tail_bytes, 13);
    assert_holds(&wal, 1, 7);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), (1..=7).map(record_len).sum::<u64>());
}

fn append_garbage(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(bytes).unwrap();
}
