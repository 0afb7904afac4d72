//! One Raft entry's commands, and the bytes an entry takes in a record of the log.
//!
//! Record payload: a kind byte, then
//! - `0` blank (a new leader's first entry): nothing;
//! - `1` commands: time (u64), proposer (u64), proposal (u64), count (u32), then each
//!   command as `len (u32) ++ bytes` (a [`CommandBatch`] holds this section as it is), then
//!   the request ids: count (u32, 0 or the commands' count) and each as u128, all
//!   little-endian;
//! - `2` membership: the membership as JSON (rare, small).
//!
//! The record header carries the entry's term and index (`index + 1`, see [`super`]).

use std::fmt;

use openraft::EntryPayload;

use super::{log_id, Entry};
use crate::machine::Meta;

const BLANK: u8 = 0;
const COMMANDS: u8 = 1;
const MEMBERSHIP: u8 = 2;

/// The commands of one Raft entry, as the leader sequenced them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CommandBatch {
    /// The leader's sequencer time (ms since the epoch), never below the previous entry's,
    /// across leader changes too: every node applies the batch at this time.
    pub time_ms: u64,
    /// The node that proposed the batch: it alone answers the batch's waiting clients.
    pub proposer: u64,
    /// The proposer's number for the batch, to find those clients.
    pub proposal: u64,
    /// Each command as the state machine encoded it, as `len (u32, LE) ++ bytes`, back to
    /// back: the record's own layout, so that logging, sending and reading an entry copies
    /// one buffer rather than allocating one per command.
    commands: Vec<u8>,
    /// How many commands `commands` holds.
    count: u32,
    /// Each command's request id (0: none), as many as the commands (or none at all).
    pub requests: Vec<u128>,
}

impl CommandBatch {
    /// A batch without commands yet.
    pub fn new(time_ms: u64, proposer: u64, proposal: u64) -> CommandBatch {
        CommandBatch { time_ms, proposer, proposal, ..CommandBatch::default() }
    }

    /// Adds the command that `encode` appends to the buffer it is given.
    pub fn push_with(&mut self, encode: impl FnOnce(&mut Vec<u8>)) {
        let at = self.commands.len();
        self.commands.extend_from_slice(&[0; 4]);
        encode(&mut self.commands);
        let len = u32::try_from(self.commands.len() - at - 4).expect("a command under 4 GiB");
        self.commands[at..at + 4].copy_from_slice(&len.to_le_bytes());
        self.count += 1;
    }

    /// Adds one encoded command.
    pub fn push(&mut self, command: &[u8]) {
        self.push_with(|out| out.extend_from_slice(command));
    }

    /// How many commands the batch holds.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether the batch holds no command.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The encoded commands, in order.
    pub fn commands(&self) -> Commands<'_> {
        Commands { rest: &self.commands, left: self.count }
    }
}

/// The encoded commands of a [`CommandBatch`], in order.
#[derive(Debug, Clone)]
pub struct Commands<'a> {
    rest: &'a [u8],
    left: u32,
}

impl<'a> Iterator for Commands<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        // The buffer was framed by `push_with` or checked by `decode`: it never ends early.
        self.left = self.left.checked_sub(1)?;
        let mut rest = self.rest;
        let len = take_u32(&mut rest).ok()? as usize;
        let (command, after) = rest.split_at_checked(len)?;
        self.rest = after;
        Some(command)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for Commands<'_> {}

impl fmt::Display for CommandBatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} commands at {} ms (proposal {}/{})",
            self.count, self.time_ms, self.proposer, self.proposal
        )
    }
}

/// Why record bytes are not an entry.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EntryDecodeError {
    /// The payload ends before what its header announced.
    #[error("entry payload is truncated")]
    Truncated,
    /// An unknown kind byte.
    #[error("unknown entry kind {0}")]
    Kind(u8),
    /// The membership is not valid JSON of a membership.
    #[error("membership: {0}")]
    Membership(#[from] serde_json::Error),
}

/// The record meta of `entry`; `previous_time_ms` keeps the log's time non-decreasing
/// through entries that carry none (blank, membership).
pub fn meta(entry: &Entry, previous_time_ms: u64) -> Meta {
    let time_ms = match &entry.payload {
        EntryPayload::Normal(batch) => previous_time_ms.max(batch.time_ms),
        EntryPayload::Blank | EntryPayload::Membership(_) => previous_time_ms,
    };
    Meta { term: entry.log_id.leader_id.term, index: entry.log_id.index + 1, time_ms }
}

/// About how many bytes `entry`'s payload takes (exact for commands), to size a buffer.
pub fn payload_len_hint(entry: &Entry) -> usize {
    match &entry.payload {
        EntryPayload::Normal(batch) => 33 + batch.commands.len() + 16 * batch.requests.len(),
        EntryPayload::Blank | EntryPayload::Membership(_) => 1,
    }
}

/// Appends `entry`'s record payload to `out`.
pub fn encode_payload(entry: &Entry, out: &mut Vec<u8>) {
    match &entry.payload {
        EntryPayload::Blank => out.push(BLANK),
        EntryPayload::Normal(batch) => {
            out.reserve(payload_len_hint(entry));
            out.push(COMMANDS);
            out.extend_from_slice(&batch.time_ms.to_le_bytes());
            out.extend_from_slice(&batch.proposer.to_le_bytes());
            out.extend_from_slice(&batch.proposal.to_le_bytes());
            out.extend_from_slice(&batch.count.to_le_bytes());
            out.extend_from_slice(&batch.commands);
            out.extend_from_slice(&(batch.requests.len() as u32).to_le_bytes());
            for request in &batch.requests {
                out.extend_from_slice(&request.to_le_bytes());
            }
        }
        EntryPayload::Membership(membership) => {
            out.push(MEMBERSHIP);
            serde_json::to_writer(&mut *out, membership).expect("a membership serialises");
        }
    }
}

/// The entry a record holds.
pub fn decode(meta: Meta, payload: &[u8]) -> Result<Entry, EntryDecodeError> {
    let log_id = log_id(meta.term, meta.index - 1);
    let (&kind, mut rest) = payload.split_first().ok_or(EntryDecodeError::Truncated)?;
    let payload = match kind {
        BLANK => EntryPayload::Blank,
        COMMANDS => {
            let time_ms = take_u64(&mut rest)?;
            let proposer = take_u64(&mut rest)?;
            let proposal = take_u64(&mut rest)?;
            let count = take_u32(&mut rest)?;
            // Each command is framed by its length: walk them to find where they end.
            let section = rest;
            for _ in 0..count {
                let len = take_u32(&mut rest)? as usize;
                rest = rest.get(len..).ok_or(EntryDecodeError::Truncated)?;
            }
            let commands = section[..section.len() - rest.len()].to_vec();
            let ids = take_u32(&mut rest)? as usize;
            if ids != 0 && ids != count as usize {
                return Err(EntryDecodeError::Truncated);
            }
            let mut requests = Vec::with_capacity(ids.min(rest.len() / 16));
            for _ in 0..ids {
                let (id, after) =
                    rest.split_first_chunk::<16>().ok_or(EntryDecodeError::Truncated)?;
                requests.push(u128::from_le_bytes(*id));
                rest = after;
            }
            let batch = CommandBatch { time_ms, proposer, proposal, commands, count, requests };
            EntryPayload::Normal(batch)
        }
        MEMBERSHIP => EntryPayload::Membership(serde_json::from_slice(rest)?),
        other => return Err(EntryDecodeError::Kind(other)),
    };
    Ok(Entry { log_id, payload })
}

fn take_u64(bytes: &mut &[u8]) -> Result<u64, EntryDecodeError> {
    let (head, rest) = bytes.split_first_chunk::<8>().ok_or(EntryDecodeError::Truncated)?;
    *bytes = rest;
    Ok(u64::from_le_bytes(*head))
}

fn take_u32(bytes: &mut &[u8]) -> Result<u32, EntryDecodeError> {
    let (head, rest) = bytes.split_first_chunk::<4>().ok_or(EntryDecodeError::Truncated)?;
    *bytes = rest;
    Ok(u32::from_le_bytes(*head))
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use openraft::impls::BasicNode;
    use openraft::Membership;

    use super::*;

    fn round_trip(entry: &Entry) -> Entry {
        let mut bytes = Vec::new();
        encode_payload(entry, &mut bytes);
        let meta = meta(entry, 5);
        assert_eq!((meta.term, meta.index), (entry.log_id.leader_id.term, entry.log_id.index + 1));
        decode(meta, &bytes).unwrap()
    }

    #[test]
    fn every_kind_of_entry_reads_back_as_written() {
        let mut batch = CommandBatch::new(9, 2, 77);
        let commands = [b"one".to_vec(), Vec::new(), vec![7; 300]];
        for command in &commands {
            batch.push(command);
        }
        batch.requests = vec![0, 42, u128::MAX];
        assert_eq!(batch.commands().collect::<Vec<_>>(), commands);
        let nodes = BTreeMap::from([(1, BasicNode::new("a:1")), (2, BasicNode::new("b:2"))]);
        let membership = Membership::new(vec![BTreeSet::from([1, 2])], nodes).unwrap();
        for payload in
            [EntryPayload::Blank, EntryPayload::Normal(batch), EntryPayload::Membership(membership)]
        {
            let entry = Entry { log_id: log_id(3, 0), payload };
            assert_eq!(round_trip(&entry), entry);
        }
    }

    #[test]
    fn a_damaged_payload_is_an_error_not_a_panic() {
        let mut batch = CommandBatch::new(1, 1, 1);
        batch.push(&[1; 10]);
        let entry = Entry { log_id: log_id(1, 4), payload: EntryPayload::Normal(batch) };
        let mut bytes = Vec::new();
        encode_payload(&entry, &mut bytes);
        let meta = meta(&entry, 0);
        for cut in 0..bytes.len() {
            assert!(decode(meta, &bytes[..cut]).is_err(), "cut at {cut}");
        }
        bytes[0] = 9;
        assert!(matches!(decode(meta, &bytes), Err(EntryDecodeError::Kind(9))));
    }
}
