//! openraft's state machine over any [`StateMachine`]: every node applies the same committed
//! entries to its own machine (a hot standby), so a state hash at a log position is the same
//! on every node.
//!
//! A batch's commands get the next command sequence numbers (the machine's `applied_index`
//! goes on by one a command, as on a single node) and the batch's time, which the leader
//! chose. What a batch produced on this node (replies, events) goes to the `on_applied` hook:
//! the proposing node answers its waiting clients from it, every node publishes the events.

use std::fmt::Debug;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::{Stream, StreamExt};
use openraft::storage::{EntryResponder, RaftStateMachine};
use openraft::{EntryPayload, OptionalSend, RaftSnapshotBuilder};

use super::{Applied, LogId, TypeConfig};
use crate::machine::{Meta, StateMachine};

/// A snapshot's metadata.
pub type SnapshotMeta = openraft::alias::SnapshotMetaOf<TypeConfig>;
/// A snapshot: metadata and the machine's bytes.
pub type Snapshot = openraft::alias::SnapshotOf<TypeConfig, Vec<u8>>;
/// The membership as last applied.
pub type StoredMembership = openraft::alias::StoredMembershipOf<TypeConfig>;

/// What one applied batch produced on this node.
#[derive(Debug)]
pub struct AppliedBatch<M: StateMachine> {
    /// The entry.
    pub log_id: LogId,
    /// The node that proposed it, and its number there.
    pub proposer: u64,
    /// See [`super::CommandBatch::proposal`].
    pub proposal: u64,
    /// Sequence number (`Meta::index`) of the batch's first command.
    pub first_index: u64,
    /// The batch's time.
    pub time_ms: u64,
    /// One reply per command, in order.
    pub replies: Vec<M::Reply>,
    /// Everything the batch changed.
    pub events: M::Events,
}

/// Receives each applied batch, on the thread that applied it.
pub type OnApplied<M> = Box<dyn FnMut(AppliedBatch<M>) + Send>;

struct Machine<M: StateMachine> {
    /// The state.
    machine: M,
    /// The last entry applied.
    last_applied: Option<LogId>,
    /// The membership of the last membership entry applied.
    membership: StoredMembership,
    /// The newest snapshot built or installed.
    current: Option<(SnapshotMeta, Vec<u8>)>,
    /// Where applied batches go.
    on_applied: Option<OnApplied<M>>,
}

/// openraft's state machine (and, cloned, its snapshot builder) over `M`.
pub struct MachineStore<M: StateMachine> {
    inner: Arc<Mutex<Machine<M>>>,
}

impl<M: StateMachine> Clone for MachineStore<M> {
    fn clone(&self) -> Self {
        MachineStore { inner: Arc::clone(&self.inner) }
    }
}

impl<M: StateMachine> Debug for MachineStore<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MachineStore").finish_non_exhaustive()
    }
}

impl<M: StateMachine> MachineStore<M> {
    /// A store around `machine`, which has applied nothing through Raft yet.
    pub fn new(machine: M, on_applied: Option<OnApplied<M>>) -> Self {
        let inner = Machine {
            machine,
            last_applied: None,
            membership: StoredMembership::default(),
            current: None,
            on_applied,
        };
        MachineStore { inner: Arc::new(Mutex::new(inner)) }
    }

    fn lock(&self) -> MutexGuard<'_, Machine<M>> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `read` on the machine as it is now.
    pub fn read<R>(&self, read: impl FnOnce(&M) -> R) -> R {
        read(&self.lock().machine)
    }

    /// The last entry applied.
    pub fn last_applied(&self) -> Option<LogId> {
        self.lock().last_applied
    }
}

impl<M: StateMachine> Machine<M> {
    fn apply_entry(&mut self, entry: openraft::alias::EntryOf<TypeConfig>) -> io::Result<()> {
        let log_id = entry.log_id;
        match entry.payload {
            EntryPayload::Blank => {}
            EntryPayload::Membership(membership) => {
                self.membership = StoredMembership::new(Some(log_id), membership);
            }
            EntryPayload::Normal(batch) => {
                let first_index = self.machine.applied_index() + 1;
                let mut replies = Vec::with_capacity(batch.len());
                let mut events = M::Events::default();
                for (n, bytes) in batch.commands().enumerate() {
                    let command = M::decode_command(bytes).map_err(io::Error::other)?;
                    let meta = Meta {
                        term: log_id.leader_id.term,
                        index: first_index + n as u64,
                        time_ms: batch.time_ms,
                    };
                    replies.push(self.machine.apply(meta, command, &mut events));
                }
                if let Some(on_applied) = &mut self.on_applied {
                    on_applied(AppliedBatch {
                        log_id,
                        proposer: batch.proposer,
                        proposal: batch.proposal,
                        first_index,
                        time_ms: batch.time_ms,
                        replies,
                        events,
                    });
                }
            }
        }
        self.last_applied = Some(log_id);
        Ok(())
    }

    fn build(&mut self) -> Snapshot {
        let meta = SnapshotMeta {
            last_log_id: self.last_applied,
            last_membership: self.membership.clone(),
        };
        let bytes = self.machine.snapshot();
        self.current = Some((meta.clone(), bytes.clone()));
        Snapshot { meta, snapshot: bytes }
    }
}

impl<M: StateMachine> RaftSnapshotBuilder<TypeConfig> for MachineStore<M> {
    type SnapshotData = Vec<u8>;

    async fn build_snapshot(&mut self) -> Result<Snapshot, io::Error> {
        Ok(self.lock().build())
    }
}

impl<M: StateMachine> RaftStateMachine<TypeConfig> for MachineStore<M> {
    type SnapshotData = Vec<u8>;
    type SnapshotBuilder = MachineStore<M>;

    async fn applied_state(&mut self) -> Result<(Option<LogId>, StoredMembership), io::Error> {
        let inner = self.lock();
        Ok((inner.last_applied, inner.membership.clone()))
    }

    async fn apply<Strm>(&mut self, mut entries: Strm) -> Result<(), io::Error>
    where
        Strm: Stream<Item = Result<EntryResponder<TypeConfig>, io::Error>> + Unpin + OptionalSend,
    {
        while let Some(next) = entries.next().await {
            let (entry, responder) = next?;
            self.lock().apply_entry(entry)?;
            if let Some(responder) = responder {
                responder.send(Applied);
            }
        }
        Ok(())
    }

    async fn get_snapshot_builder(&mut self) -> Self::SnapshotBuilder {
        self.clone()
    }

    async fn install_snapshot(
        &mut self,
        meta: &SnapshotMeta,
        snapshot: Vec<u8>,
    ) -> Result<(), io::Error> {
        let machine = M::restore(&snapshot).map_err(io::Error::other)?;
        let mut inner = self.lock();
        inner.machine = machine;
        inner.last_applied = meta.last_log_id;
        inner.membership = meta.last_membership.clone();
        inner.current = Some((meta.clone(), snapshot));
        Ok(())
    }

    async fn get_current_snapshot(&mut self) -> Result<Option<Snapshot>, io::Error> {
        let inner = self.lock();
        Ok(inner.current.clone().map(|(meta, snapshot)| Snapshot { meta, snapshot }))
    }
}
