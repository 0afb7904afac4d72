//! The contract between the pipeline and the state machine it drives.
//!
//! The pipeline knows commands only as bytes: it asks the machine to encode a
//! command before journaling it and to decode it again on recovery. Everything
//! else (what a command means, what it replies) belongs to the machine.

use std::fmt::Debug;

/// Where a command sits in the log and when the sequencer stamped it.
///
/// Both are chosen by the sequencer, never by the producer, so that replaying
/// the log reproduces exactly the inputs the engine saw the first time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Meta {
    /// Election term of the leader that sequenced the record (1 on a single node).
    pub term: u64,
    /// Position in the log: 1 for the first record ever written, then +1 per record.
    pub index: u64,
    /// Milliseconds since the Unix epoch, non-decreasing along the log.
    pub time_ms: u64,
}

/// A machine's state frozen at one moment ([`StateMachine::freeze`]): call it for the bytes.
pub type Frozen = Box<dyn FnOnce() -> Vec<u8> + Send + Sync>;

/// The rest of a restore begun by [`StateMachine::restore_within`]: called, it waits for the
/// thread doing that rest and completes the machine with what the thread built.
pub type RestoreRest<'scope, M> =
    Box<dyn FnOnce(&mut M) -> Result<(), <M as StateMachine>::DecodeError> + 'scope>;

/// A state frozen for an audit: called later, on another thread, it gives the state's bytes
/// (for its hash) and its [`StateMachine::check_invariants`].
pub type FrozenAudit = Box<dyn FnOnce() -> (Vec<u8>, Result<(), String>) + Send + Sync>;

/// Where a machine writes one batch's events. The pipeline keeps these buffers and hands
/// them back emptied, so a batch's events reuse memory an earlier batch already touched
/// (a tick that settles a million contracts writes tens of megabytes).
pub trait EventBuffer: Default + Send + Sync + Debug + 'static {
    /// Drops every event, keeping the memory.
    fn clear(&mut self);
}

impl<T: Send + Sync + Debug + 'static> EventBuffer for Vec<T> {
    fn clear(&mut self) {
        Vec::clear(self);
    }
}

/// A deterministic state machine that the pipeline journals and drives.
///
/// `apply` must depend only on `self`, `meta` and `command`: no clock, no I/O,
/// no randomness. Given the same snapshot and the same log it must reach the
/// same `state_hash` on every run and every node.
pub trait StateMachine: Send + 'static {
    /// An input, owned. Travels producer -> sequencer -> engine thread.
    type Command: Send + Debug + 'static;
    /// The answer to one command, delivered to its producer once durable.
    type Reply: Send + Debug + 'static;
    /// What changed, published to event subscribers after each batch.
    type Events: EventBuffer;
    /// Why bytes could not become a command or a snapshot could not be read.
    type DecodeError: std::error::Error + Send + Sync + 'static;

    /// Appends the journal form of `command` to `out` (bytes only; framing is the log's job).
    fn encode_command(command: &Self::Command, out: &mut Vec<u8>);
    /// Reads a command back from exactly the bytes `encode_command` produced.
    fn decode_command(bytes: &[u8]) -> Result<Self::Command, Self::DecodeError>;

    /// Applies one command, appending whatever changed to `events`.
    fn apply(
        &mut self,
        meta: Meta,
        command: Self::Command,
        events: &mut Self::Events,
    ) -> Self::Reply;

    /// The whole state as bytes, with the index of the last applied command inside.
    fn snapshot(&self) -> Vec<u8>;
    /// The state now, serialised later by whoever calls the result: the bytes
    /// [`StateMachine::snapshot`] gives now. The pipeline freezes on the engine thread and
    /// serialises on the snapshotter's, so a machine that can freeze its state cheaply (sharing
    /// it copy-on-write) never stops applying for a snapshot. By default it serialises at once.
    fn freeze(&self) -> Frozen {
        let bytes = self.snapshot();
        Box::new(move || bytes)
    }
    /// Rebuilds a machine from `snapshot` bytes.
    fn restore(bytes: &[u8]) -> Result<Self, Self::DecodeError>
    where
        Self: Sized;
    /// [`StateMachine::restore`], leaving to a thread of `scope` what the first commands of
    /// a replay can do without: the caller calls the returned rest before the first command
    /// for which [`StateMachine::needs_whole_restore`] says so, and before anyone reads the
    /// machine. By default the whole restore is done here.
    #[allow(clippy::type_complexity)]
    fn restore_within<'scope, 'env>(
        bytes: &'env [u8],
        _scope: &'scope std::thread::Scope<'scope, 'env>,
    ) -> Result<(Self, Option<RestoreRest<'scope, Self>>), Self::DecodeError>
    where
        Self: Sized,
    {
        Self::restore(bytes).map(|machine| (machine, None))
    }
    /// Whether `command` must wait for the rest of a restore begun by
    /// [`StateMachine::restore_within`]. Every command does, unless the machine says
    /// otherwise.
    fn needs_whole_restore(_command: &Self::Command) -> bool {
        true
    }
    /// Index of the last command applied (0 for a fresh machine).
    fn applied_index(&self) -> u64;
    /// A digest of the whole state: equal states give equal hashes.
    fn state_hash(&self) -> u64
    where
        Self: Sized,
    {
        Self::snapshot_hash(&self.snapshot())
    }
    /// The [`StateMachine::state_hash`] of the state whose snapshot (or frozen state) is
    /// `bytes`: lets an audit hash the state away from the engine thread.
    fn snapshot_hash(bytes: &[u8]) -> u64
    where
        Self: Sized;

    /// Checks the machine's own invariants (money conserved, say); the first violation.
    /// Walks everything: for audits, not for the hot path.
    fn check_invariants(&self) -> Result<(), String> {
        Ok(())
    }

    /// The state now, for an audit made later by whoever calls the result. By default the
    /// invariants are checked at once and the state is frozen with [`StateMachine::freeze`];
    /// a machine that can check them on its frozen state does so there, off the engine thread.
    fn freeze_for_audit(&self) -> FrozenAudit {
        let invariants = self.check_invariants();
        let frozen = self.freeze();
        Box::new(move || (frozen(), invariants))
    }

    /// Time of the last command applied (ms; 0 if unknown): in cluster mode a new leader never
    /// stamps a batch earlier than this, after a snapshot install too.
    fn applied_time_ms(&self) -> u64 {
        0
    }

    /// Brings what `command`, to be applied at `meta`, will touch into cache; the pipeline
    /// calls it a few commands ahead of `apply` within a batch. A hint: it must change nothing.
    fn prefetch(&self, _meta: Meta, _command: &Self::Command) {}

    /// Told `true` before start-up replay and `false` after it. Replay discards every event,
    /// so a machine may skip building them meanwhile; its state must not depend on this.
    fn set_replaying(&mut self, _replaying: bool) {}
}
