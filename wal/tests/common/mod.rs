//! A tiny key-value state machine whose commands are byte strings `key=value`, and a
//! minimal executor to drive the async API without a runtime.

#![allow(dead_code)] // each test binary uses a different part

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

use wal::{Meta, StateMachine};

/// Keys to values, plus a running digest of every input ever applied.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Kv {
    /// Current values.
    pub map: BTreeMap<Vec<u8>, Vec<u8>>,
    /// Index of the last applied command.
    pub applied: u64,
    /// FNV-1a over every (meta, command) applied, so equal hashes mean equal histories.
    pub digest: u64,
}

/// What one command answers: where it landed, and the value it replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KvReply {
    /// The command's place in the log.
    pub meta: Meta,
    /// The value the key had before.
    pub previous: Option<Vec<u8>>,
}

/// Bytes that are not a snapshot.
#[derive(Debug)]
pub struct KvDecodeError;

impl std::fmt::Display for KvDecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a kv snapshot")
    }
}

impl std::error::Error for KvDecodeError {}

/// FNV-1a's starting value.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x100_0000_01b3);
    }
    hash
}

pub fn set(key: &str, value: &str) -> Vec<u8> {
    format!("{key}={value}").into_bytes()
}

impl StateMachine for Kv {
    type Command = Vec<u8>;
    type Reply = KvReply;
    type Events = Vec<u64>;
    type DecodeError = KvDecodeError;

    fn encode_command(command: &Vec<u8>, out: &mut Vec<u8>) {
        out.extend_from_slice(command);
    }

    fn decode_command(bytes: &[u8]) -> Result<Vec<u8>, KvDecodeError> {
        Ok(bytes.to_vec())
    }

    fn apply(&mut self, meta: Meta, command: Vec<u8>, events: &mut Vec<u64>) -> KvReply {
        assert_eq!(meta.index, self.applied + 1, "commands arrive in log order");
        self.applied = meta.index;
        let mut digest = fnv(self.digest, &meta.term.to_le_bytes());
        digest = fnv(digest, &meta.index.to_le_bytes());
        digest = fnv(digest, &meta.time_ms.to_le_bytes());
        self.digest = fnv(digest, &command);
        let split = command.iter().position(|&b| b == b'=').unwrap_or(command.len());
        let key = command[..split].to_vec();
        let value = command.get(split + 1..).unwrap_or_default().to_vec();
        events.push(meta.index);
        KvReply { meta, previous: self.map.insert(key, value) }
    }

    fn snapshot(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&self.applied.to_le_bytes());
        out.extend_from_slice(&self.digest.to_le_bytes());
        for (key, value) in &self.map {
            for part in [key, value] {
                out.extend_from_slice(&(part.len() as u32).to_le_bytes());
                out.extend_from_slice(part);
            }
        }
        out
    }

    fn restore(bytes: &[u8]) -> Result<Self, KvDecodeError> {
        let take = |bytes: &mut &[u8], n: usize| -> Result<Vec<u8>, KvDecodeError> {
            let (head, tail) = bytes.split_at_checked(n).ok_or(KvDecodeError)?;
            *bytes = tail;
            Ok(head.to_vec())
        };
        let mut rest = bytes;
        let u64_of = |v: Vec<u8>| u64::from_le_bytes(v.try_into().expect("8 bytes"));
        let applied = u64_of(take(&mut rest, 8)?);
        let digest = u64_of(take(&mut rest, 8)?);
        let mut map = BTreeMap::new();
        while !rest.is_empty() {
            let mut part = || -> Result<Vec<u8>, KvDecodeError> {
                let len = u32::from_le_bytes(take(&mut rest, 4)?.try_into().expect("4 bytes"));
                take(&mut rest, len as usize)
            };
            let key = part()?;
            let value = part()?;
            map.insert(key, value);
        }
        Ok(Kv { map, applied, digest })
    }

    fn applied_index(&self) -> u64 {
        self.applied
    }

    // The snapshot holds the digest of every input, so equal hashes still mean equal histories.
    fn snapshot_hash(bytes: &[u8]) -> u64 {
        fnv(FNV_OFFSET, bytes)
    }
}

/// Wakes the thread that waits in `block_on`.
struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a future to completion on this thread (enough for runtime-agnostic futures).
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::park();
    }
}
