//! `wal::StateMachine` for the engine: how the pipeline journals, applies and snapshots it.

use crate::command::Command;
use crate::engine::Stamp;
use crate::event::{CommandResult, Event};
use crate::snapshot::SnapshotError;
use crate::Engine;

/// Why journal bytes could not be read back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// A command record is not a valid archive.
    #[error("command record is not a valid archive: {0}")]
    Command(String),
    /// A snapshot could not be restored.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
}

impl wal::StateMachine for Engine {
    type Command = Command;
    type Reply = CommandResult;
    type Event = Event;
    type DecodeError = DecodeError;

    fn encode_command(command: &Command, out: &mut Vec<u8>) {
        match rkyv::to_bytes::<rkyv::rancor::Error>(command) {
            Ok(bytes) => out.extend_from_slice(&bytes),
            Err(e) => panic!("command serialisation failed: {e}"),
        }
    }

    fn decode_command(bytes: &[u8]) -> Result<Command, DecodeError> {
        let mut aligned = rkyv::util::AlignedVec::<16>::with_capacity(bytes.len());
        aligned.extend_from_slice(bytes);
        rkyv::from_bytes::<Command, rkyv::rancor::Error>(&aligned)
            .map_err(|e| DecodeError::Command(e.to_string()))
    }

    fn apply(
        &mut self,
        meta: wal::Meta,
        command: Command,
        events: &mut Vec<Event>,
    ) -> CommandResult {
        Engine::apply(self, Stamp { index: meta.index, time_ms: meta.time_ms }, command, events)
    }

    fn snapshot(&self) -> Vec<u8> {
        self.snapshot_bytes()
    }

    fn restore(bytes: &[u8]) -> Result<Self, DecodeError> {
        Ok(Engine::restore(bytes)?)
    }

    fn applied_index(&self) -> u64 {
        self.applied_index
    }

    fn state_hash(&self) -> u64 {
        Engine::state_hash(self)
    }

    fn check_invariants(&self) -> Result<(), String> {
        Engine::check_invariants(self)
    }

    fn set_replaying(&mut self, replaying: bool) {
        self.set_quiet(replaying);
    }
}
