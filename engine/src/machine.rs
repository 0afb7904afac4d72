//! `wal::StateMachine` for the engine: how the pipeline journals, applies and snapshots it.

use std::cell::RefCell;

use crate::command::{ArchivedCommand, Command};
use crate::engine::Stamp;
use crate::event::{CommandResult, Events};
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

/// An archive's bytes must be aligned: each thread encodes and decodes commands in one buffer
/// of its own, reused, rather than allocating one per command.
fn with_scratch<T>(f: impl FnOnce(&mut AlignedVec) -> T) -> T {
    thread_local! {
        static SCRATCH: RefCell<AlignedVec> = RefCell::new(AlignedVec::new());
    }
    SCRATCH.with(|scratch| {
        // Taken out, so that a nested call (none today) gets a buffer of its own.
        let mut buffer = scratch.take();
        buffer.clear();
        let result = f(&mut buffer);
        if buffer.capacity() <= SCRATCH_KEPT_BYTES_MAX {
            scratch.replace(buffer);
        }
        result
    })
}

/// A scratch buffer larger than this (a rare huge command) is freed after use, not kept.
const SCRATCH_KEPT_BYTES_MAX: usize = 64 * 1024;

type AlignedVec = rkyv::util::AlignedVec<16>;

impl wal::EventBuffer for Events {
    fn clear(&mut self) {
        Events::clear(self);
    }
}

impl wal::StateMachine for Engine {
    type Command = Command;
    type Reply = CommandResult;
    type Events = Events;
    type DecodeError = DecodeError;

    fn encode_command(command: &Command, out: &mut Vec<u8>) {
        with_scratch(|scratch| {
            match rkyv::api::high::to_bytes_in::<_, rkyv::rancor::Error>(command, scratch) {
                Ok(bytes) => out.extend_from_slice(bytes),
                Err(e) => panic!("command serialisation failed: {e}"),
            }
        });
    }

    fn decode_command(bytes: &[u8]) -> Result<Command, DecodeError> {
        let decode = |aligned: &[u8]| {
            rkyv::from_bytes::<Command, rkyv::rancor::Error>(aligned)
                .map_err(|e| DecodeError::Command(e.to_string()))
        };
        // A log record's payload starts 8-aligned in its segment, as the archive needs: read in
        // place, without the copy (half of the decoding time in a restart).
        if bytes.as_ptr().align_offset(std::mem::align_of::<ArchivedCommand>()) == 0 {
            return decode(bytes);
        }
        with_scratch(|aligned| {
            aligned.extend_from_slice(bytes);
            decode(aligned)
        })
    }

    fn apply(&mut self, meta: wal::Meta, command: Command, events: &mut Events) -> CommandResult {
        Engine::apply(self, Stamp { index: meta.index, time_ms: meta.time_ms }, command, events)
    }

    fn snapshot(&self) -> Vec<u8> {
        self.snapshot_bytes()
    }

    fn freeze(&self) -> wal::Frozen {
        let frozen = self.frozen();
        Box::new(move || frozen.bytes())
    }

    fn freeze_for_audit(&self) -> wal::FrozenAudit {
        let frozen = self.frozen();
        Box::new(move || (frozen.bytes(), frozen.check_invariants()))
    }

    fn restore(bytes: &[u8]) -> Result<Self, DecodeError> {
        Ok(Engine::restore(bytes)?)
    }

    fn restore_within<'scope, 'env>(
        bytes: &'env [u8],
        scope: &'scope std::thread::Scope<'scope, 'env>,
    ) -> Result<(Self, Option<wal::RestoreRest<'scope, Self>>), DecodeError> {
        // Replay goes on beside the users' thread, and comes first.
        let (engine, lookups) = Engine::restore_within(bytes, scope, wal::yield_to_replay)?;
        let rest = lookups.map(|lookups| -> wal::RestoreRest<'scope, Self> {
            Box::new(move |engine: &mut Engine| Ok(engine.complete_restore(lookups)?))
        });
        Ok((engine, rest))
    }

    fn needs_whole_restore(command: &Command) -> bool {
        Engine::needs_users(command)
    }

    fn applied_index(&self) -> u64 {
        self.applied_index
    }

    fn snapshot_hash(bytes: &[u8]) -> u64 {
        crate::snapshot::snapshot_hash(bytes)
    }

    fn check_invariants(&self) -> Result<(), String> {
        Engine::check_invariants(self)
    }

    fn prefetch(&self, meta: wal::Meta, command: &Command) {
        Engine::prefetch(self, meta.time_ms, command);
    }

    fn set_replaying(&mut self, replaying: bool) {
        self.set_quiet(replaying);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{AccountKind, Direction, Symbol, UserId};
    use wal::StateMachine;

    /// A command decodes to itself from bytes at every offset: in place where the archive's
    /// alignment allows, through the aligned scratch buffer elsewhere.
    #[test]
    fn commands_decode_from_bytes_at_any_alignment() {
        let order = Command::PlaceOrder(crate::command::PlaceOrder {
            user: UserId(7),
            account: AccountKind::Real,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            direction: Direction::Up,
            stake: rust_decimal::Decimal::new(1_234, 2),
            duration_secs: 60,
        });
        let mut encoded = Vec::new();
        <Engine as StateMachine>::encode_command(&order, &mut encoded);
        let mut buffer = rkyv::util::AlignedVec::<16>::new();
        for offset in 0..16 {
            buffer.clear();
            buffer.extend_from_slice(&[0; 16][..offset]);
            buffer.extend_from_slice(&encoded);
            let decoded = <Engine as StateMachine>::decode_command(&buffer[offset..]).unwrap();
            assert_eq!(decoded, order, "at offset {offset}");
        }
        let cut = &encoded[..encoded.len() - 1];
        assert!(<Engine as StateMachine>::decode_command(cut).is_err());
    }
}
