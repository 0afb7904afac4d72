//! The command pipeline end to end, with real files and with the fault-injecting storage.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use common::{block_on, set, Kv};
use wal::{Config, FaultyStorage, Handle, Pipeline, PipelineError, SnapshotStore};

fn config(dir: &Path) -> Config {
    let mut config = Config::new(dir);
    config.clock = Arc::new(|| 1_700_000_000_000);
    config
}

fn start(config: &Config) -> (Pipeline<Kv>, Handle<Kv>) {
    Pipeline::start(config.clone(), Kv::default).expect("start")
}

fn state_hash(handle: &Handle<Kv>) -> u64 {
    handle.query(|kv: &Kv| wal::StateMachine::state_hash(kv)).unwrap()
}

fn submit_many(handle: &Handle<Kv>, prefix: &str, count: u64) {
    for i in 0..count {
        handle.submit_blocking(set(&format!("{prefix}{i}"), &i.to_string())).unwrap();
    }
}

#[test]
fn replies_arrive_in_order_with_contiguous_indexes() {
    let temp = tempfile::tempdir().unwrap();
    let (pipeline, handle) = start(&config(temp.path()));
    let producers: Vec<_> = (0..4)
        .map(|p| {
            let handle = handle.clone();
            std::thread::spawn(move || {
                (0..500)
                    .map(|i| {
                        handle.submit_blocking(set(&format!("p{p}-{i}"), "v")).unwrap().meta.index
                    })
                    .collect::<Vec<u64>>()
            })
        })
        .collect();
    let mut all = BTreeSet::new();
    for producer in producers {
        let indexes = producer.join().unwrap();
        assert!(indexes.windows(2).all(|w| w[0] < w[1]), "one producer's replies in order");
        all.extend(indexes);
    }
    assert_eq!(all, (1..=2000).collect::<BTreeSet<u64>>());
    let stats = pipeline.stats();
    assert_eq!(stats.commands, 2000);
    assert!(stats.batches <= 2000 && stats.batches > 0);
    assert_eq!(stats.fsyncs, stats.batches, "one fdatasync per batch");
    pipeline.shutdown().unwrap();
}

#[test]
fn time_never_goes_back_even_when_the_clock_does() {
    let temp = tempfile::tempdir().unwrap();
    let mut config = config(temp.path());
    let now = Arc::new(AtomicU64::new(10_000));
    let clock = Arc::clone(&now);
    config.clock = Arc::new(move || clock.fetch_sub(7, Ordering::Relaxed));
    let (pipeline, handle) = start(&config);
    let times: Vec<u64> = (0..20)
        .map(|i| handle.submit_blocking(set("k", &i.to_string())).unwrap().meta.time_ms)
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    assert_eq!(times[0], 10_000);
    pipeline.shutdown().unwrap();
}

#[test]
fn restart_replays_to_the_same_state_hash() {
    let temp = tempfile::tempdir().unwrap();
    let config = config(temp.path());
    let (pipeline, handle) = start(&config);
    submit_many(&handle, "k", 300);
    let before = state_hash(&handle);
    pipeline.shutdown().unwrap();

    let (pipeline, handle) = start(&config);
    assert_eq!(state_hash(&handle), before);
    assert_eq!(handle.recovery().records_replayed, 300);
    assert_eq!(handle.recovery().snapshot_index, None);
    assert_eq!(handle.stats().recovered_records, 300);
    // The log goes on after the replayed records.
    assert_eq!(handle.submit_blocking(set("k0", "again")).unwrap().meta.index, 301);
    pipeline.shutdown().unwrap();
}

/// The durability promise: a producer that got a reply has a durable command. Producers
/// keep submitting while the storage crashes (with a torn tail); after the restart every
/// acknowledged command is in the state, and nothing the producers did not send is.
#[test]
fn a_crash_after_acknowledged_commands_loses_none_of_them() {
    for seed in 0..5 {
        let temp = tempfile::tempdir().unwrap();
        let storage = FaultyStorage::new(seed);
        let mut config = config(temp.path());
        config.storage = Arc::new(storage.clone());
        let (pipeline, handle) = start(&config);
        let (acks, acked) = crossbeam_channel::unbounded::<Vec<u8>>();
        let producers: Vec<_> = (0..3)
            .map(|p| {
                let (handle, acks) = (handle.clone(), acks.clone());
                std::thread::spawn(move || {
                    for i in 0.. {
                        let command = set(&format!("p{p}-{i}"), "v");
                        match handle.submit_blocking(command.clone()) {
                            Ok(_) => acks.send(command).unwrap(),
                            Err(PipelineError::JournalFailed(_)) => return,
                            Err(other) => panic!("unexpected {other:?}"),
                        }
                    }
                })
            })
            .collect();
        drop(acks);
        let mut acknowledged: Vec<Vec<u8>> = acked.iter().take(300).collect();
        storage.crash_torn();
        for producer in producers {
            producer.join().unwrap();
        }
        acknowledged.extend(acked.iter());
        assert!(matches!(pipeline.shutdown(), Err(PipelineError::JournalFailed(_))));

        storage.restart();
        let (pipeline, handle) = start(&config);
        let map = handle.query(|kv: &Kv| kv.map.clone()).unwrap();
        for command in &acknowledged {
            let key = &command[..command.iter().position(|&b| b == b'=').unwrap()];
            assert!(map.contains_key(key), "seed {seed}: acknowledged {key:?} lost");
        }
        assert!(map.keys().all(|key| key.starts_with(b"p")), "nothing else appeared");
        assert!(map.len() >= acknowledged.len());
        pipeline.shutdown().unwrap();
    }
}

#[test]
fn a_journal_failure_fails_the_waiting_and_later_commands() {
    let temp = tempfile::tempdir().unwrap();
    let storage = FaultyStorage::new(1);
    let mut config = config(temp.path());
    config.storage = Arc::new(storage.clone());
    let (pipeline, handle) = start(&config);
    submit_many(&handle, "ok", 10);
    storage.fail_syncs(1);
    let failed = handle.submit_blocking(set("lost", "1"));
    assert!(matches!(failed, Err(PipelineError::JournalFailed(_))), "{failed:?}");
    let later = handle.submit_blocking(set("later", "1"));
    assert!(matches!(later, Err(PipelineError::JournalFailed(_))), "{later:?}");
    assert!(matches!(handle.try_submit(set("later", "2")), Err(PipelineError::JournalFailed(_))));
    assert!(pipeline.shutdown().is_err());

    let (pipeline, handle) = start(&config);
    let map = handle.query(|kv: &Kv| kv.map.clone()).unwrap();
    assert_eq!(map.len(), 10, "the failed batch was rolled back: {map:?}");
    pipeline.shutdown().unwrap();
}

#[test]
fn snapshot_truncate_and_restart_give_the_same_state() {
    let temp = tempfile::tempdir().unwrap();
    let mut config = config(temp.path());
    config.segment_size_max_bytes = 2048;
    let (pipeline, handle) = start(&config);
    submit_many(&handle, "a", 300);
    assert_eq!(handle.snapshot_now().unwrap(), 300);
    submit_many(&handle, "b", 300);
    assert_eq!(handle.snapshot_now().unwrap(), 600);
    submit_many(&handle, "c", 100);
    let before = state_hash(&handle);
    let stats = handle.stats();
    assert_eq!(stats.snapshots, 2);
    assert!(stats.segments_truncated > 0, "{stats:?}");
    pipeline.shutdown().unwrap();

    let (pipeline, handle) = start(&config);
    assert_eq!(handle.recovery().snapshot_index, Some(600));
    assert_eq!(handle.recovery().records_replayed, 100);
    assert_eq!(state_hash(&handle), before);
    pipeline.shutdown().unwrap();
}

#[test]
fn periodic_snapshots_are_taken() {
    let temp = tempfile::tempdir().unwrap();
    let mut config = config(temp.path());
    config.snapshot_every_commands = 50;
    let (pipeline, handle) = start(&config);
    submit_many(&handle, "k", 400);
    let before = state_hash(&handle);
    pipeline.shutdown().unwrap();
    let (pipeline, handle) = start(&config);
    assert!(handle.recovery().snapshot_index.is_some_and(|index| index >= 50));
    assert_eq!(state_hash(&handle), before);
    pipeline.shutdown().unwrap();
}

/// The nice value in a thread's `/proc/.../stat` line.
#[cfg(target_os = "linux")]
fn nice_in_stat(stat: &str) -> i64 {
    // Fields after the command's closing parenthesis start at the third; nice is the 19th.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    fields[19 - 3].parse().unwrap()
}

/// The nice value of each of this process's threads named `name` (Linux's is per thread).
#[cfg(target_os = "linux")]
fn nice_of_threads(name: &str) -> Vec<i64> {
    let mut nice = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let Ok(comm) = std::fs::read_to_string(task.path().join("comm")) else { continue };
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else { continue };
        if comm.trim_end() == name {
            nice.push(nice_in_stat(&stat));
        }
    }
    nice
}

/// Snapshots are serialised beside trading on the same cores: their thread gives way to the
/// engine's (whose every delay a caller waits for), never the other way round.
#[cfg(target_os = "linux")]
#[test]
fn snapshots_are_written_at_a_lower_priority_than_the_engine() {
    let temp = tempfile::tempdir().unwrap();
    let (pipeline, handle) = start(&config(temp.path()));
    submit_many(&handle, "k", 10);
    // Answered once the snapshotter has saved it, so its thread has set its priority.
    handle.snapshot_now().unwrap();
    let snapshotters = nice_of_threads("wal-snapshotter");
    assert!(snapshotters.contains(&10), "snapshotters' nice values: {snapshotters:?}");
    // The engine keeps the priority it was started with, whatever the test run's own is.
    let own = nice_in_stat(&std::fs::read_to_string("/proc/thread-self/stat").unwrap());
    let engines = nice_of_threads("wal-engine");
    assert!(!engines.is_empty() && engines.iter().all(|n| *n == own), "engines: {engines:?}");
    pipeline.shutdown().unwrap();
}

/// Truncation stays behind the older kept snapshot, so losing the newest one to damage
/// still leaves a snapshot plus the whole log after it.
#[test]
fn a_damaged_newest_snapshot_falls_back_to_the_previous_one() {
    let temp = tempfile::tempdir().unwrap();
    let mut config = config(temp.path());
    config.segment_size_max_bytes = 2048;
    let (pipeline, handle) = start(&config);
    submit_many(&handle, "a", 200);
    handle.snapshot_now().unwrap();
    submit_many(&handle, "b", 200);
    handle.snapshot_now().unwrap();
    submit_many(&handle, "c", 200);
    let third = handle.snapshot_now().unwrap();
    submit_many(&handle, "d", 50);
    let before = state_hash(&handle);
    pipeline.shutdown().unwrap();
    assert_eq!(third, 600);

    SnapshotStore::open(&temp.path().join("snapshots")).unwrap().corrupt_for_test(600).unwrap();
    let (pipeline, handle) = start(&config);
    assert_eq!(handle.recovery().snapshot_index, Some(400));
    assert_eq!(handle.recovery().skipped_damaged_snapshots, vec![600]);
    assert_eq!(handle.recovery().records_replayed, 250);
    assert_eq!(state_hash(&handle), before);
    pipeline.shutdown().unwrap();
}

/// A pipeline in `dir` whose log rolls every kilobyte, after three rounds of 150 commands
/// and a snapshot each (at 150, 300 and 450; the newest two kept, the log truncated behind
/// the older).
fn three_snapshots_in_small_segments(dir: &Path) -> (Config, Pipeline<Kv>, Handle<Kv>) {
    let mut config = config(dir);
    config.segment_size_max_bytes = 1024;
    let (pipeline, handle) = start(&config);
    for round in 0..3 {
        submit_many(&handle, &format!("r{round}-"), 150);
        handle.snapshot_now().unwrap();
    }
    (config, pipeline, handle)
}

/// A data directory of a build that kept snapshots as values in sled (the same header and
/// bytes, keyed by the index big-endian, in the tree `snapshots`) restarts from them.
#[test]
fn a_restart_reads_the_snapshots_an_older_build_kept_in_sled() {
    let temp = tempfile::tempdir().unwrap();
    let (config, pipeline, handle) = three_snapshots_in_small_segments(temp.path());
    submit_many(&handle, "after", 20);
    let before = state_hash(&handle);
    pipeline.shutdown().unwrap();

    // As the older build left them: each file's header and bytes (past its 28-byte
    // preamble) a value in sled, and no file.
    let dir = temp.path().join("snapshots");
    let indexes = SnapshotStore::open(&dir).unwrap().indexes().unwrap();
    assert_eq!(indexes, vec![300, 450]);
    let db = wal::open_db(&dir, 1 << 20).unwrap();
    let tree = db.open_tree("snapshots").unwrap();
    for index in &indexes {
        let file = dir.join(format!("{index:020}.snapshot"));
        tree.insert(index.to_be_bytes(), &std::fs::read(&file).unwrap()[28..]).unwrap();
        std::fs::remove_file(file).unwrap();
    }
    db.flush().unwrap();
    drop((tree, db));

    let (pipeline, handle) = start(&config);
    assert_eq!(handle.recovery().snapshot_index, Some(450));
    assert_eq!(handle.recovery().records_replayed, 20);
    assert_eq!(state_hash(&handle), before);
    pipeline.shutdown().unwrap();
    assert!(!dir.join("db").exists(), "the older build's database is gone once moved");
    assert_eq!(SnapshotStore::open(&dir).unwrap().indexes().unwrap(), indexes);
}

/// Decision: with every snapshot damaged, starting from scratch is right only if the log
/// still holds every record from index 1; if it was truncated, refuse to start.
#[test]
fn all_snapshots_damaged_refuses_if_the_log_was_truncated() {
    let temp = tempfile::tempdir().unwrap();
    let (config, pipeline, _) = three_snapshots_in_small_segments(temp.path());
    pipeline.shutdown().unwrap();
    let store = SnapshotStore::open(&temp.path().join("snapshots")).unwrap();
    for index in store.indexes().unwrap() {
        store.corrupt_for_test(index).unwrap();
    }
    drop(store);
    let error = Pipeline::start(config.clone(), Kv::default).unwrap_err();
    let PipelineError::SnapshotMissing { log_first_index, snapshot_index, skipped_damaged } = error
    else {
        panic!("expected SnapshotMissing, got {error:?}");
    };
    assert!(log_first_index > 1);
    assert_eq!((snapshot_index, skipped_damaged), (0, vec![450, 300]));
}

#[test]
fn all_snapshots_damaged_replays_the_whole_log_if_it_is_whole() {
    let temp = tempfile::tempdir().unwrap();
    let config = config(temp.path());
    let (pipeline, handle) = start(&config);
    submit_many(&handle, "k", 100);
    handle.snapshot_now().unwrap();
    submit_many(&handle, "j", 10);
    let before = state_hash(&handle);
    pipeline.shutdown().unwrap();
    SnapshotStore::open(&temp.path().join("snapshots")).unwrap().corrupt_for_test(100).unwrap();
    let (pipeline, handle) = start(&config);
    assert_eq!(handle.recovery().snapshot_index, None);
    assert_eq!(handle.recovery().records_replayed, 110);
    assert_eq!(state_hash(&handle), before);
    pipeline.shutdown().unwrap();
}

#[test]
fn shutdown_drains_what_is_queued_and_refuses_what_comes_after() {
    let temp = tempfile::tempdir().unwrap();
    let (pipeline, handle) = start(&config(temp.path()));
    let tickets: Vec<_> =
        (0..1000).map(|i| handle.try_submit(set(&format!("k{i}"), "v")).unwrap()).collect();
    pipeline.shutdown().unwrap();
    let indexes: Vec<u64> =
        tickets.into_iter().map(|ticket| ticket.wait().unwrap().meta.index).collect();
    assert_eq!(indexes, (1..=1000).collect::<Vec<u64>>());
    assert!(matches!(handle.submit_blocking(set("late", "1")), Err(PipelineError::ShutDown)));
    assert!(matches!(block_on(handle.submit(set("late", "2"))), Err(PipelineError::ShutDown)));
    assert!(handle.query(|kv: &Kv| kv.applied).is_err());
}

#[test]
fn queries_read_the_applied_state() {
    let temp = tempfile::tempdir().unwrap();
    let (pipeline, handle) = start(&config(temp.path()));
    let reply = handle.submit_blocking(set("color", "red")).unwrap();
    assert_eq!(reply.previous, None);
    let reply = handle.submit_blocking(set("color", "blue")).unwrap();
    assert_eq!(reply.previous, Some(b"red".to_vec()));
    let value = handle.query(|kv: &Kv| kv.map.get(&b"color"[..]).cloned()).unwrap();
    assert_eq!(value, Some(b"blue".to_vec()));
    let applied = block_on(handle.query_async(|kv: &Kv| kv.applied)).unwrap();
    assert_eq!(applied, 2);
    pipeline.shutdown().unwrap();
}

#[test]
fn async_submit_replies_and_sheds_load_when_full() {
    let temp = tempfile::tempdir().unwrap();
    let mut config = config(temp.path());
    config.queue_commands_max = 1;
    config.batch_commands_max = 1;
    let (pipeline, handle) = start(&config);
    let reply = block_on(handle.submit(set("a", "1"))).unwrap();
    assert_eq!(reply.meta.index, 1);

    // Hold the engine inside a query so the journal backs up and the queue fills.
    let (release, held) = crossbeam_channel::bounded::<()>(0);
    let (entered, engine_busy) = crossbeam_channel::bounded::<()>(0);
    let blocker = {
        let handle = handle.clone();
        std::thread::spawn(move || {
            handle.query(move |_: &Kv| {
                entered.send(()).unwrap();
                held.recv().unwrap();
            })
        })
    };
    engine_busy.recv().unwrap();
    let mut tickets = Vec::new();
    let overloaded = (0..100).find_map(|i| match handle.try_submit(set("b", &i.to_string())) {
        Ok(ticket) => {
            tickets.push(ticket);
            None
        }
        Err(error) => Some(error),
    });
    assert!(matches!(overloaded, Some(PipelineError::Overloaded)), "{overloaded:?}");
    assert!(matches!(block_on(handle.submit(set("c", "1"))), Err(PipelineError::Overloaded)));
    release.send(()).unwrap();
    blocker.join().unwrap().unwrap();
    for ticket in tickets {
        block_on(ticket).unwrap();
    }
    pipeline.shutdown().unwrap();
}

#[test]
fn event_buffers_come_back_emptied_once_every_subscriber_let_go() {
    let temp = tempfile::tempdir().unwrap();
    let (pipeline, handle) = start(&config(temp.path()));
    let events = handle.subscribe(64).unwrap();
    // Each batch is dropped before the next command is sent.
    let next = |value: &str| {
        handle.submit_blocking(set("k", value)).unwrap();
        let batch = events.recv().unwrap();
        assert_eq!(batch.events, vec![batch.first_index], "only this batch's events");
        batch.events.as_ptr()
    };
    // Batch 2 went into a new buffer while batch 1 was read; batch 1's, let go, holds batch 3.
    let first = next("1");
    let second = next("2");
    let third = next("3");
    assert_ne!(second, first);
    assert_eq!(third, first, "batch 1's buffer reused");
    // A batch still held is never reused under its reader.
    handle.submit_blocking(set("k", "4")).unwrap();
    let fourth = events.recv().unwrap();
    handle.submit_blocking(set("k", "5")).unwrap();
    handle.submit_blocking(set("k", "6")).unwrap();
    let later: Vec<_> = events.try_iter().collect();
    assert_eq!(*fourth.events, [4], "a held batch keeps its events");
    assert!(later.iter().all(|b| b.events.as_ptr() != fourth.events.as_ptr()));
    pipeline.shutdown().unwrap();
}

#[test]
fn a_slow_subscriber_is_dropped_without_stalling_the_engine() {
    let temp = tempfile::tempdir().unwrap();
    let (pipeline, handle) = start(&config(temp.path()));
    let slow = handle.subscribe(1).unwrap();
    let fast = handle.subscribe(64).unwrap();
    for i in 0..5 {
        handle.submit_blocking(set("k", &i.to_string())).unwrap();
    }
    // Batch 1 filled the slow channel, batch 2 found it full: dropped, never waited for.
    let seen: Vec<_> = slow.iter().collect();
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].first_index, seen[0].last_index, seen[0].events.clone()), (1, 1, vec![1]));
    let mut next = 1;
    while next <= 5 {
        let batch = fast.recv().unwrap();
        assert_eq!(batch.first_index, next, "contiguous, nothing missed");
        assert_eq!(batch.events, (batch.first_index..=batch.last_index).collect::<Vec<u64>>());
        next = batch.last_index + 1;
    }
    assert_eq!(handle.stats().subscribers_dropped, 1);
    pipeline.shutdown().unwrap();
}

#[test]
fn a_command_too_large_is_refused_and_the_pipeline_goes_on() {
    let temp = tempfile::tempdir().unwrap();
    let (pipeline, handle) = start(&config(temp.path()));
    let big = vec![b'x'; wal::constants::RECORD_PAYLOAD_MAX_BYTES + 1];
    let refused = handle.submit_blocking(big);
    assert!(matches!(refused, Err(PipelineError::CommandTooLarge { .. })), "{refused:?}");
    assert_eq!(handle.submit_blocking(set("k", "v")).unwrap().meta.index, 1);
    pipeline.shutdown().unwrap();
}

#[test]
fn handles_are_clone_send_sync() {
    fn assert_traits<T: Clone + Send + Sync>() {}
    assert_traits::<Handle<Kv>>();
}

/// A lost (empty) log behind a valid snapshot restarts at the snapshot's next index,
/// rather than at 1, which would break index continuity with the snapshot.
#[test]
fn an_empty_log_behind_a_snapshot_continues_after_it() {
    let temp = tempfile::tempdir().unwrap();
    let config = config(temp.path());
    let (pipeline, handle) = start(&config);
    submit_many(&handle, "k", 40);
    assert_eq!(handle.snapshot_now().unwrap(), 40);
    let before = state_hash(&handle);
    pipeline.shutdown().unwrap();
    std::fs::remove_dir_all(temp.path().join("wal")).unwrap();

    let (pipeline, handle) = start(&config);
    assert_eq!(handle.recovery().snapshot_index, Some(40));
    assert_eq!(state_hash(&handle), before);
    assert_eq!(handle.submit_blocking(set("k", "next")).unwrap().meta.index, 41);
    pipeline.shutdown().unwrap();
    let (pipeline, handle) = start(&config);
    assert_eq!(handle.recovery().records_replayed, 1);
    pipeline.shutdown().unwrap();
}

/// A follower that recorded events only up to some index gets exactly the later ones at
/// restart: none lost (the read model would miss history), none twice (bills doubled).
#[test]
fn a_follower_gets_every_event_exactly_once_across_a_restart() {
    use std::sync::Mutex;
    use wal::Follower;
    let temp = tempfile::tempdir().unwrap();
    let mut config = config(temp.path());
    config.snapshot_every_commands = 50;
    let replayed = Arc::new(Mutex::new(Vec::<u64>::new()));
    let follower = |applied_index: u64| {
        let replayed = Arc::clone(&replayed);
        Follower {
            applied_index,
            sink: Box::new(move |batch: wal::EventBatch<Vec<u64>>| {
                replayed.lock().unwrap().extend(batch.events);
                Ok(())
            }),
            capacity: 1_024,
            boundary: None,
        }
    };
    let (pipeline, handle, live) =
        Pipeline::start_following(config.clone(), Kv::default, follower(0)).unwrap();
    submit_many(&handle, "k", 300);
    let mut seen = Vec::new();
    while seen.last() != Some(&300) {
        let batch = live.recv().unwrap();
        seen.extend(batch.events.iter().copied());
        // The follower made only the first 120 durable before the "crash".
        handle.set_followed(batch.last_index.min(120));
    }
    assert_eq!(seen, (1..=300).collect::<Vec<_>>());
    let before = state_hash(&handle);
    drop(live);
    pipeline.shutdown().unwrap();
    assert!(replayed.lock().unwrap().is_empty(), "a new follower has nothing to catch up");

    let (pipeline, handle, _live) =
        Pipeline::start_following(config.clone(), Kv::default, follower(120)).unwrap();
    assert_eq!(*replayed.lock().unwrap(), (121..=300).collect::<Vec<_>>());
    assert!(handle.recovery().snapshot_index.is_some_and(|index| index <= 120));
    assert_eq!(state_hash(&handle), before);
    pipeline.shutdown().unwrap();
}

/// Periodic snapshots wait for the follower, so the log behind it is never truncated.
#[test]
fn snapshots_wait_for_a_lagging_follower() {
    let temp = tempfile::tempdir().unwrap();
    let mut config = config(temp.path());
    config.snapshot_every_commands = 20;
    let follower = wal::Follower {
        applied_index: 0,
        sink: Box::new(|_| Ok(())),
        capacity: 1_024,
        boundary: None,
    };
    let (pipeline, handle, _live) =
        Pipeline::start_following(config.clone(), Kv::default, follower).unwrap();
    submit_many(&handle, "k", 200);
    // Only one snapshot could be taken: the follower never moved past index 0.
    assert_eq!(handle.stats().snapshots, 1);
    handle.set_followed(200);
    submit_many(&handle, "m", 40);
    assert!(handle.stats().snapshots >= 2);
    pipeline.shutdown().unwrap();
}

#[test]
fn a_follower_behind_a_truncated_log_is_refused() {
    let temp = tempfile::tempdir().unwrap();
    let (config, pipeline, _) = three_snapshots_in_small_segments(temp.path());
    pipeline.shutdown().unwrap();
    let follower = wal::Follower {
        applied_index: 10,
        sink: Box::new(|_| Ok(())),
        capacity: 8,
        boundary: None,
    };
    let error = Pipeline::start_following(config, Kv::default, follower).map(|_| ()).unwrap_err();
    assert!(
        matches!(error, PipelineError::FollowerBehindLog { follower_index: 10, .. }),
        "{error}"
    );
}

/// Two projections durable up to different indexes share one follower: the replay starts at
/// the lower one and a batch ends exactly at the higher one, so that projection can skip
/// whole batches without applying anything twice.
#[test]
fn a_catch_up_batch_ends_at_the_boundary() {
    use std::sync::Mutex;
    let temp = tempfile::tempdir().unwrap();
    let config = config(temp.path());
    let (pipeline, handle) = start(&config);
    submit_many(&handle, "k", 300);
    pipeline.shutdown().unwrap();

    let ranges = Arc::new(Mutex::new(Vec::<(u64, u64)>::new()));
    let seen = Arc::clone(&ranges);
    let follower = wal::Follower {
        applied_index: 100,
        sink: Box::new(move |batch: wal::EventBatch<Vec<u64>>| {
            seen.lock().unwrap().push((batch.first_index, batch.last_index));
            Ok(())
        }),
        capacity: 8,
        boundary: Some(150),
    };
    let (pipeline, _handle, _live) =
        Pipeline::start_following(config, Kv::default, follower).unwrap();
    let ranges = ranges.lock().unwrap().clone();
    assert_eq!(ranges.first().map(|r| r.0), Some(101));
    assert_eq!(ranges.last().map(|r| r.1), Some(300));
    assert!(ranges.windows(2).all(|w| w[0].1 + 1 == w[1].0), "contiguous: {ranges:?}");
    assert!(ranges.iter().any(|r| r.1 == 150), "a batch ends at the boundary: {ranges:?}");
    assert!(!ranges.iter().any(|r| r.0 <= 150 && r.1 > 150), "none straddles it: {ranges:?}");
    pipeline.shutdown().unwrap();
}

/// A [`Kv`] whose snapshots finish serialising only when the test lets them.
struct Gated {
    kv: Kv,
    gate: Option<Gate>,
}

#[derive(Clone)]
struct Gate {
    /// Told the frozen state's index when a serialisation starts.
    started: crossbeam_channel::Sender<u64>,
    /// Waited on before the bytes are handed back.
    release: crossbeam_channel::Receiver<()>,
}

impl wal::StateMachine for Gated {
    type Command = Vec<u8>;
    type Reply = common::KvReply;
    type Events = Vec<u64>;
    type DecodeError = common::KvDecodeError;

    fn encode_command(command: &Vec<u8>, out: &mut Vec<u8>) {
        Kv::encode_command(command, out);
    }

    fn decode_command(bytes: &[u8]) -> Result<Vec<u8>, Self::DecodeError> {
        Kv::decode_command(bytes)
    }

    fn apply(&mut self, meta: wal::Meta, command: Vec<u8>, events: &mut Vec<u64>) -> Self::Reply {
        self.kv.apply(meta, command, events)
    }

    fn snapshot(&self) -> Vec<u8> {
        self.kv.snapshot()
    }

    fn freeze(&self) -> wal::Frozen {
        let (bytes, index, gate) = (self.kv.snapshot(), self.kv.applied, self.gate.clone());
        Box::new(move || {
            if let Some(gate) = gate {
                gate.started.send(index).expect("the test listens");
                gate.release.recv().expect("the test releases the serialiser");
            }
            bytes
        })
    }

    fn restore(bytes: &[u8]) -> Result<Self, Self::DecodeError> {
        Ok(Gated { kv: Kv::restore(bytes)?, gate: None })
    }

    fn applied_index(&self) -> u64 {
        self.kv.applied
    }

    fn snapshot_hash(bytes: &[u8]) -> u64 {
        Kv::snapshot_hash(bytes)
    }
}

/// How long a test waits for what a working pipeline does at once, before it fails.
const MINUTE: std::time::Duration = std::time::Duration::from_secs(60);

/// A pipeline over a [`Gated`] machine; the frozen state's index arrives on the receiver when
/// a serialisation starts, which then waits for the sender. The sender comes last, so that a
/// caller binding the four in order drops it first: if a test fails, the serialiser is let go
/// and the pipeline's shutdown does not wait for it forever.
#[allow(clippy::type_complexity)]
fn start_gated(
    config: &Config,
) -> (Pipeline<Gated>, Handle<Gated>, crossbeam_channel::Receiver<u64>, crossbeam_channel::Sender<()>)
{
    let (started, frozen_at) = crossbeam_channel::bounded(1);
    let (release, released) = crossbeam_channel::bounded(1);
    let gate = Gate { started, release: released };
    let (pipeline, handle) =
        Pipeline::start(config.clone(), || Gated { kv: Kv::default(), gate: Some(gate) })
            .expect("start");
    (pipeline, handle, frozen_at, release)
}

/// Submits `count` commands from a thread of its own and returns their indexes. A pipeline that
/// waited for a serialiser held by the test would never answer: the test gives up after a
/// minute.
fn answered_meanwhile(handle: &Handle<Gated>, count: u64) -> Vec<u64> {
    let (answered, answers) = crossbeam_channel::bounded(1);
    let submitter = handle.clone();
    std::thread::spawn(move || {
        let indexes: Vec<u64> = (0..count)
            .map(|i| submitter.submit_blocking(set(&format!("during{i}"), "1")).unwrap().meta.index)
            .collect();
        let _ = answered.send(indexes);
    });
    answers
        .recv_timeout(MINUTE)
        .expect("commands are answered while a frozen state is being serialised")
}

/// A snapshot is serialised beside the engine, from the state frozen when it was asked for:
/// commands that arrive meanwhile are applied and answered without waiting for it, and are
/// not in it.
#[test]
fn commands_are_applied_and_answered_while_a_snapshot_is_serialised() {
    use wal::StateMachine;
    let temp = tempfile::tempdir().unwrap();
    let config = config(temp.path());
    let (pipeline, handle, frozen_at, release) = start_gated(&config);
    for i in 0..10 {
        handle.submit_blocking(set(&format!("before{i}"), "1")).unwrap();
    }
    let snapshotting = {
        let handle = handle.clone();
        std::thread::spawn(move || handle.snapshot_now())
    };
    assert_eq!(frozen_at.recv_timeout(MINUTE).unwrap(), 10, "frozen at the index asked at");
    assert_eq!(answered_meanwhile(&handle, 100), (11..=110).collect::<Vec<u64>>());
    assert!(!snapshotting.is_finished(), "the snapshot was still being serialised");
    release.send(()).unwrap();
    assert_eq!(snapshotting.join().unwrap().unwrap(), 10);
    let before = handle.query(|machine: &Gated| machine.state_hash()).unwrap();
    pipeline.shutdown().unwrap();

    let (pipeline, handle) =
        Pipeline::start(config, || Gated { kv: Kv::default(), gate: None }).expect("restart");
    assert_eq!(handle.recovery().snapshot_index, Some(10));
    assert_eq!(handle.recovery().records_replayed, 100);
    assert_eq!(handle.query(|machine: &Gated| machine.state_hash()).unwrap(), before);
    pipeline.shutdown().unwrap();
}

/// An audit hashes the state frozen at its index beside the engine: commands that arrive
/// meanwhile are answered, and the hash is the state's at that index.
#[test]
fn commands_are_answered_while_an_audit_hashes_the_state() {
    use wal::StateMachine;
    let temp = tempfile::tempdir().unwrap();
    let (pipeline, handle, frozen_at, release) = start_gated(&config(temp.path()));
    for i in 0..10 {
        handle.submit_blocking(set(&format!("before{i}"), "1")).unwrap();
    }
    let at_10 = handle.query(|machine: &Gated| machine.state_hash()).unwrap();
    let auditing = {
        let handle = handle.clone();
        std::thread::spawn(move || block_on(handle.audit_at(0)))
    };
    assert_eq!(frozen_at.recv_timeout(MINUTE).unwrap(), 10, "frozen where the audit was asked");
    assert_eq!(answered_meanwhile(&handle, 100), (11..=110).collect::<Vec<u64>>());
    assert!(!auditing.is_finished(), "the audit was still being hashed");
    release.send(()).unwrap();
    let audit = auditing.join().unwrap().unwrap();
    assert_eq!((audit.index, audit.state_hash), (10, at_10));
    assert_eq!(audit.invariants, Ok(()));
    pipeline.shutdown().unwrap();
}
