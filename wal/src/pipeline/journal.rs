//! The sequencer/journal thread: stamp, batch, append with one fdatasync, hand over.

use std::sync::Arc;

use crossbeam_channel::{select, Receiver, Sender};

use super::{PipelineError, ReplySender, Shared, Submission};
use crate::log::{Batch, Wal};
use crate::machine::{Meta, StateMachine};
use crate::record::RecordError;

/// Requests to the journal thread besides commands.
pub(super) enum Control {
    /// Delete log segments whose every record is below `before` (the oldest kept
    /// snapshot covers `before - 1`); then answer `done` with `snapshot_index`.
    Truncate {
        /// First index that must stay in the log.
        before: u64,
        /// Index of the snapshot whose saving led to this request.
        snapshot_index: u64,
        /// Who waits for the truncation, if anyone.
        done: Option<oneshot::Sender<Result<u64, PipelineError>>>,
    },
    /// Journal what is queued, then stop.
    Shutdown,
}

/// A durable batch on its way to the engine thread.
pub(super) struct DurableBatch<M: StateMachine> {
    /// Term, index and time of each command, as journaled.
    pub(super) metas: Vec<Meta>,
    /// The commands, in log order.
    pub(super) commands: Vec<M::Command>,
    /// Where each command's reply goes, if anyone waits for it here.
    pub(super) replies: Vec<Option<ReplySender<M>>>,
    /// Told once the engine has applied the batch (cluster mode waits for it).
    pub(super) done: Option<oneshot::Sender<()>>,
}

impl<M: StateMachine> DurableBatch<M> {
    pub(super) fn new() -> Self {
        Self::with_capacity(0)
    }

    /// An empty batch with room for `n` commands.
    pub(super) fn with_capacity(n: usize) -> Self {
        Self {
            metas: Vec::with_capacity(n),
            commands: Vec::with_capacity(n),
            replies: Vec::with_capacity(n),
            done: None,
        }
    }

    /// Answers every command of a batch that will not be applied.
    pub(super) fn fail(self, error: &PipelineError) {
        for reply in self.replies.into_iter().flatten() {
            let _ = reply.send(Err(error.clone()));
        }
    }
}

/// The journal thread's state. It alone owns the log.
pub(super) struct Journal<M: StateMachine> {
    /// The log, appended to once per batch.
    pub(super) wal: Wal,
    /// The producers' queue.
    pub(super) commands: Receiver<Submission<M>>,
    /// Truncation and shutdown requests.
    pub(super) control: Receiver<Control>,
    /// Durable batches for the engine (bounded: the journal runs at most a batch or two ahead).
    pub(super) to_engine: Sender<DurableBatch<M>>,
    /// Batches the engine emptied, so their vectors are reused rather than reallocated.
    pub(super) recycled: Receiver<DurableBatch<M>>,
    /// The framed records of the batch being built, reused across batches.
    pub(super) batch: Batch,
    /// Term stamped on every record.
    pub(super) term: u64,
    /// Wall clock in milliseconds.
    pub(super) clock: Arc<dyn Fn() -> u64 + Send + Sync>,
    /// Commands per batch.
    pub(super) batch_commands_max: usize,
    /// Counters and the shutdown state.
    pub(super) shared: Arc<Shared<M>>,
}

impl<M: StateMachine> Journal<M> {
    /// Runs until shutdown or a log failure, which it returns after failing every waiter.
    pub(super) fn run(mut self) -> Result<(), PipelineError> {
        let result = self.serve();
        if let Err(error) = &result {
            self.shared.shutdown.fail(error.clone());
            // Nobody queued behind the failure gets a reply for a command that is not durable.
            while let Ok(submission) = self.commands.try_recv() {
                let _ = submission.reply.send(Err(error.clone()));
            }
        }
        result
    }

    fn serve(&mut self) -> Result<(), PipelineError> {
        loop {
            select! {
                recv(self.commands) -> submission => match submission {
                    Ok(first) => self.journal_batch(first)?,
                    Err(_) => return Ok(()),
                },
                recv(self.control) -> control => match control {
                    Ok(Control::Truncate { before, snapshot_index, done }) => {
                        self.truncate(before, snapshot_index, done);
                    }
                    Ok(Control::Shutdown) | Err(_) => return self.drain(),
                },
            }
        }
    }

    /// Journals everything still queued. Producers see the closed flag first, so the
    /// queue only shrinks; a submit that races past it finds the queue gone and errs.
    fn drain(&mut self) -> Result<(), PipelineError> {
        while let Ok(first) = self.commands.try_recv() {
            self.journal_batch(first)?;
        }
        Ok(())
    }

    /// Takes `first` and whatever else is queued (up to the batch bound, without waiting),
    /// makes them durable with one write and one sync, and hands them to the engine.
    fn journal_batch(&mut self, first: Submission<M>) -> Result<(), PipelineError> {
        let mut durable = self.recycled.try_recv().unwrap_or_else(|_| DurableBatch::new());
        self.batch.clear();
        self.stamp(first, &mut durable);
        while durable.commands.len() < self.batch_commands_max {
            let Ok(submission) = self.commands.try_recv() else { break };
            self.stamp(submission, &mut durable);
        }
        if durable.commands.is_empty() {
            return Ok(()); // every command was refused (too large)
        }
        if let Err(error) = self.wal.append(&self.batch) {
            let error = PipelineError::JournalFailed(Arc::new(error));
            durable.fail(&error);
            return Err(error);
        }
        self.shared.count(|c| &c.batches, 1);
        self.shared.count(|c| &c.fsyncs, u64::from(self.wal.is_syncing()));
        // The order that makes replies safe: the engine only ever receives durable batches.
        self.to_engine.send(durable).map_err(|lost| {
            lost.0.fail(&PipelineError::EngineStopped);
            PipelineError::EngineStopped
        })
    }

    /// Gives a command its place in the log and frames it into the batch buffer.
    fn stamp(&mut self, submission: Submission<M>, durable: &mut DurableBatch<M>) {
        let previous = self.batch.last_meta().or(self.wal.last_meta());
        let index = previous.map_or(self.wal.last_index(), |meta| meta.index) + 1;
        let time_floor = previous.map_or(0, |meta| meta.time_ms);
        let meta = Meta { term: self.term, index, time_ms: (self.clock)().max(time_floor) };
        let Submission { command, reply, .. } = submission;
        match self.batch.push_with(meta, |out| M::encode_command(&command, out)) {
            Ok(()) => {
                durable.metas.push(meta);
                durable.commands.push(command);
                durable.replies.push(Some(reply));
            }
            Err(RecordError::PayloadTooLarge { len }) => {
                let _ = reply.send(Err(PipelineError::CommandTooLarge { len }));
            }
            Err(other) => unreachable!("encoding fails only on size: {other}"),
        }
    }

    /// Deletes segments behind a durable snapshot. A failure to delete is not fatal: the
    /// log stays longer than needed and the next snapshot tries again.
    fn truncate(
        &mut self,
        before: u64,
        snapshot_index: u64,
        done: Option<oneshot::Sender<Result<u64, PipelineError>>>,
    ) {
        let result = self.wal.truncate_before(before);
        if let Ok(removed) = &result {
            self.shared.count(|c| &c.segments_truncated, *removed as u64);
        }
        if let Some(done) = done {
            let _ = done.send(result.map(|_| snapshot_index).map_err(PipelineError::from));
        }
    }
}
