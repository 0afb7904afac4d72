//! The snapshotter thread: save snapshots to their files, then let the journal truncate the log.

use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender};

use super::journal::Control;
use super::{PipelineError, Shared};
use crate::machine::{Frozen, StateMachine};
use crate::snapshot::SnapshotStore;

/// One snapshot to save.
pub(super) struct Job {
    /// Index of the last command the snapshot includes.
    pub(super) index: u64,
    /// Term of that command.
    pub(super) term: u64,
    /// The machine's state, frozen on the engine thread; serialised here.
    pub(super) state: Frozen,
    /// Who waits for the snapshot to be durable and the log truncated, if anyone.
    pub(super) done: Option<oneshot::Sender<Result<u64, PipelineError>>>,
}

/// The snapshotter thread's state.
pub(super) struct Snapshotter<M: StateMachine> {
    /// Where snapshots are saved.
    pub(super) store: SnapshotStore,
    /// Snapshots from the engine; disconnects when the engine stops.
    pub(super) jobs: Receiver<Job>,
    /// Where truncation requests go, once a snapshot is durable.
    pub(super) journal: Sender<Control>,
    pub(super) shared: Arc<Shared<M>>,
}

impl<M: StateMachine> Snapshotter<M> {
    /// Saves snapshots until the engine stops.
    pub(super) fn run(self) {
        super::set_own_nice(super::SNAPSHOT_NICE);
        for job in self.jobs.iter() {
            let Job { index, term, state, done } = job;
            let bytes = state();
            if let Err(error) = self.store.save(index, term, &bytes) {
                // Not fatal: the log is kept whole, and the next snapshot tries again.
                if let Some(done) = done {
                    let _ = done.send(Err(error.into()));
                }
                continue;
            }
            self.shared.count(|c| &c.snapshots, 1);
            // Truncate behind the oldest kept snapshot, not the newest: if the newest is
            // later found damaged, recovery falls back to the older one and still finds
            // every record after it in the log.
            let oldest = self.store.indexes().ok().and_then(|kept| kept.first().copied());
            self.request_truncation(oldest.unwrap_or(index).min(index), index, done);
        }
    }

    /// Only now, behind a durable snapshot, may the log lose records up to `covered`.
    /// Never blocks on the journal: if it cannot take the request, the log simply stays
    /// longer until the next snapshot.
    fn request_truncation(
        &self,
        covered: u64,
        snapshot_index: u64,
        done: Option<oneshot::Sender<Result<u64, PipelineError>>>,
    ) {
        let request = Control::Truncate { before: covered + 1, snapshot_index, done };
        if let Err(unsent) = self.journal.try_send(request) {
            if let Control::Truncate { done: Some(done), .. } = unsent.into_inner() {
                let _ = done.send(Ok(snapshot_index)); // durable, just not truncated
            }
        }
    }
}
