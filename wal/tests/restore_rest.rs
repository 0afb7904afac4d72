//! A machine that leaves part of its restore to another thread: start-up applies the commands
//! that do not need that part meanwhile, completes the machine before the first command that
//! does, and in any case before it hands the machine over.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{set, Kv, KvDecodeError, KvReply};
use wal::{Config, Handle, Meta, Pipeline, RestoreRest, StateMachine};

/// [`Kv`], whose restore leaves the map to a thread; commands starting with `read` need it.
#[derive(Debug, Default)]
struct Split {
    kv: Kv,
    /// The map is still being restored on its thread.
    pending: bool,
    /// Commands applied while the map was pending.
    applied_while_pending: u64,
    /// Of those, commands that needed the map (the pipeline must let none through).
    needing_while_pending: u64,
}

impl StateMachine for Split {
    type Command = Vec<u8>;
    type Reply = KvReply;
    type Events = Vec<u64>;
    type DecodeError = KvDecodeError;

    fn encode_command(command: &Vec<u8>, out: &mut Vec<u8>) {
        Kv::encode_command(command, out);
    }

    fn decode_command(bytes: &[u8]) -> Result<Vec<u8>, KvDecodeError> {
        Kv::decode_command(bytes)
    }

    fn apply(&mut self, meta: Meta, command: Vec<u8>, events: &mut Vec<u64>) -> KvReply {
        if self.pending {
            self.applied_while_pending += 1;
            self.needing_while_pending += u64::from(Self::needs_whole_restore(&command));
        }
        self.kv.apply(meta, command, events)
    }

    fn snapshot(&self) -> Vec<u8> {
        self.kv.snapshot()
    }

    fn restore(bytes: &[u8]) -> Result<Self, KvDecodeError> {
        Ok(Split { kv: Kv::restore(bytes)?, ..Split::default() })
    }

    fn restore_within<'scope, 'env>(
        bytes: &'env [u8],
        scope: &'scope std::thread::Scope<'scope, 'env>,
    ) -> Result<(Self, Option<RestoreRest<'scope, Self>>), KvDecodeError> {
        let Kv { applied, digest, .. } = Kv::restore(bytes)?;
        let map = scope.spawn(|| Kv::restore(bytes).map(|kv| kv.map));
        let kv = Kv { map: Default::default(), applied, digest };
        let rest: RestoreRest<'scope, Self> = Box::new(move |split: &mut Split| {
            let restored = map.join().expect("restoring the map does not panic")?;
            // Keys set meanwhile are newer than the snapshot's.
            let newer = std::mem::replace(&mut split.kv.map, restored);
            split.kv.map.extend(newer);
            split.pending = false;
            Ok(())
        });
        Ok((Split { kv, pending: true, ..Split::default() }, Some(rest)))
    }

    fn needs_whole_restore(command: &Vec<u8>) -> bool {
        command.starts_with(b"read")
    }

    fn applied_index(&self) -> u64 {
        self.kv.applied
    }

    fn snapshot_hash(bytes: &[u8]) -> u64 {
        Kv::snapshot_hash(bytes)
    }
}

fn config(dir: &Path) -> Config {
    let mut config = Config::new(dir);
    config.clock = Arc::new(|| 1_700_000_000_000);
    config
}

fn start(dir: &Path) -> (Pipeline<Split>, Handle<Split>) {
    Pipeline::start(config(dir), Split::default).expect("start")
}

fn submit(handle: &Handle<Split>, commands: impl IntoIterator<Item = Vec<u8>>) {
    for command in commands {
        handle.submit_blocking(command).unwrap();
    }
}

/// (state hash, pending, applied while pending, needing while pending, values in the map).
fn look(handle: &Handle<Split>) -> (u64, bool, u64, u64, usize) {
    handle
        .query(|s: &Split| {
            let hash = StateMachine::state_hash(s);
            (hash, s.pending, s.applied_while_pending, s.needing_while_pending, s.kv.map.len())
        })
        .unwrap()
}

/// Snapshots 100 keys, then logs `after`; restarts and returns what the machine says.
fn restart_after(after: Vec<Vec<u8>>) -> (u64, (u64, bool, u64, u64, usize)) {
    let temp = tempfile::tempdir().unwrap();
    let (pipeline, handle) = start(temp.path());
    submit(&handle, (0..100).map(|i| set(&format!("k{i}"), "v")));
    handle.snapshot_now().unwrap();
    submit(&handle, after);
    let before = look(&handle).0;
    pipeline.shutdown().unwrap();
    let (pipeline, handle) = start(temp.path());
    let after = look(&handle);
    pipeline.shutdown().unwrap();
    (before, after)
}

#[test]
fn the_rest_of_a_restore_comes_before_the_first_command_that_needs_it() {
    let trades = |from: u32| (from..from + 20).map(|i| set(&format!("t{i}"), "v"));
    let log = trades(0).chain([set("read", "x")]).chain(trades(20)).collect();
    let (before, (hash, pending, applied, needing, keys)) = restart_after(log);
    assert_eq!(hash, before);
    assert!(!pending);
    assert_eq!((applied, needing), (20, 0), "the 20 before the read went on meanwhile");
    assert_eq!(keys, 100 + 40 + 1);
}

#[test]
fn the_rest_of_a_restore_is_in_before_start_up_returns() {
    let log = (0..30).map(|i| set(&format!("t{i}"), "v")).collect();
    let (before, (hash, pending, applied, needing, keys)) = restart_after(log);
    assert_eq!(hash, before);
    assert!(!pending, "completed at the end of replay");
    assert_eq!((applied, needing), (30, 0));
    assert_eq!(keys, 130);
}
