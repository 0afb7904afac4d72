//! The engine thread: apply durable batches, reply, publish events, take snapshots, answer queries.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, select, Receiver, Sender, TrySendError};

use super::journal::DurableBatch;
use super::snapshotter::Job;
use super::{
    spawn_named, Audit, EngineControl, EventBatch, PipelineError, Query, Shared,
    AUDITS_HASHING_QUEUED_MAX, AUDITS_WAITING_MAX, PREFETCH_AHEAD,
};
use crate::constants::EVENT_BUFFERS_WATCHED_MAX;
use crate::machine::{EventBuffer, FrozenAudit, Meta, StateMachine};

/// The engine thread's state. It alone owns the machine.
pub(super) struct Engine<M: StateMachine> {
    /// The state machine.
    pub(super) machine: M,
    /// Durable batches from the journal; disconnects when the journal stops.
    pub(super) batches: Receiver<DurableBatch<M>>,
    /// Reads from other threads.
    pub(super) queries: Receiver<Query<M>>,
    /// Snapshot requests.
    pub(super) control: Receiver<EngineControl<M>>,
    /// Emptied batches back to the journal for reuse.
    pub(super) recycle: Sender<DurableBatch<M>>,
    /// Snapshots for the snapshotter.
    pub(super) snapshots: Sender<Job>,
    /// Events of the batch being applied.
    pub(super) events: M::Events,
    /// Batches published, oldest first, whose buffers come back for reuse once every
    /// subscriber has dropped them: a buffer's memory, once touched, stays touched.
    pub(super) published: VecDeque<Arc<EventBatch<M::Events>>>,
    /// Commands applied since the last snapshot was handed over.
    pub(super) since_snapshot: u64,
    /// Index of the newest snapshot handed over (or found at start).
    pub(super) newest_snapshot: u64,
    /// Term of the last applied command, stored in snapshot headers.
    pub(super) last_term: u64,
    /// Snapshot period in commands; 0 = only on demand.
    pub(super) snapshot_every_commands: u64,
    /// Audits waiting for a batch to reach their index (at most [`AUDITS_WAITING_MAX`]).
    pub(super) audits: Vec<(u64, oneshot::Sender<Audit>)>,
    /// Hashes and checks audited states beside the engine.
    pub(super) auditor: Auditor,
    /// Subscribers and counters.
    pub(super) shared: Arc<Shared<M>>,
}

impl<M: StateMachine> Engine<M> {
    /// Runs until the journal stops and every durable batch is applied.
    pub(super) fn run(mut self) {
        loop {
            select! {
                recv(self.batches) -> batch => match batch {
                    Ok(batch) => self.apply_batch(batch),
                    Err(_) => return,
                },
                recv(self.queries) -> query => {
                    if let Ok(query) = query {
                        query(&self.machine);
                    }
                },
                recv(self.control) -> control => match control {
                    Ok(EngineControl::SnapshotNow(done)) => self.snapshot_now(done),
                    Ok(EngineControl::Freeze(answer)) => {
                        let _ = answer.send((self.machine.applied_index(), self.machine.freeze()));
                    }
                    Ok(EngineControl::Replace(machine, done)) => {
                        self.machine = *machine;
                        let _ = done.send(());
                        self.answer_audits();
                    }
                    Ok(EngineControl::AuditAt(index, answer)) => {
                        self.audits.push((index, answer));
                        if self.audits.len() > AUDITS_WAITING_MAX {
                            let (_, oldest) = self.audits.remove(0);
                            self.audit(vec![oldest]);
                        }
                        self.answer_audits();
                    }
                    Err(_) => {}
                },
            }
        }
    }

    fn apply_batch(&mut self, mut batch: DurableBatch<M>) {
        let (Some(&first), Some(&last)) = (batch.metas.first(), batch.metas.last()) else {
            unreachable!("the journal never hands over an empty batch");
        };
        // Counted before any reply leaves, so a producer that reads the stats after its reply
        // never sees its own command missing.
        let count = batch.metas.len() as u64;
        self.shared.count(|c| &c.commands, count);
        {
            let mut commands = batch.commands.drain(..);
            for (meta, reply) in batch.metas.iter().zip(batch.replies.drain(..)) {
                // What a command a few places ahead will touch comes into cache meanwhile.
                if let Some(ahead) = commands.as_slice().get(PREFETCH_AHEAD) {
                    let ahead_meta =
                        batch.metas[batch.metas.len() - commands.len() + PREFETCH_AHEAD];
                    self.machine.prefetch(ahead_meta, ahead);
                }
                let command = commands.next().expect("a command per meta");
                let result = self.machine.apply(*meta, command, &mut self.events);
                // The producer may have stopped waiting; the command is applied all the same.
                if let Some(reply) = reply {
                    let _ = reply.send(Ok(result));
                }
            }
        }
        assert_eq!(
            self.machine.applied_index(),
            last.index,
            "the machine must record each applied index"
        );
        self.last_term = last.term;
        self.publish(first.index, last);
        if let Some(done) = batch.done.take() {
            let _ = done.send(());
        }
        if !self.audits.is_empty() {
            self.answer_audits();
        }
        batch.metas.clear();
        let _ = self.recycle.try_send(batch);
        self.since_snapshot += count;
        if self.snapshot_every_commands > 0 && self.since_snapshot >= self.snapshot_every_commands {
            self.snapshot_periodic(last);
        }
    }

    /// Audits the machine as it is now for `answers`: the state is frozen here, and hashed
    /// and checked by the auditor, so that an audit does not stop the engine for a walk and
    /// a serialisation of the whole state.
    fn audit(&mut self, answers: Vec<oneshot::Sender<Audit>>) {
        let job = AuditJob {
            index: self.machine.applied_index(),
            state: self.machine.freeze_for_audit(),
            answers,
        };
        self.auditor.submit::<M>(job);
    }

    /// Answers the audits whose index the machine has reached.
    fn answer_audits(&mut self) {
        let applied = self.machine.applied_index();
        if !self.audits.iter().any(|(index, _)| *index <= applied) {
            return;
        }
        let (due, waiting) = std::mem::take(&mut self.audits)
            .into_iter()
            .partition::<Vec<_>, _>(|(index, _)| *index <= applied);
        self.audits = waiting;
        self.audit(due.into_iter().map(|(_, answer)| answer).collect());
    }

    /// Publishes the batch's events to every subscriber, dropping the ones that are full.
    fn publish(&mut self, first_index: u64, last: Meta) {
        let shared = Arc::clone(&self.shared);
        let mut subscribers = shared.subscribers.lock().unwrap_or_else(|p| p.into_inner());
        if subscribers.is_empty() {
            self.events.clear();
            return;
        }
        let next = self.reclaim_events();
        let events = std::mem::replace(&mut self.events, next);
        let (last_index, time_ms) = (last.index, last.time_ms);
        let batch = Arc::new(EventBatch { first_index, last_index, time_ms, events });
        self.published.push_back(Arc::clone(&batch));
        let before = subscribers.len();
        subscribers.retain(|subscriber| subscriber.try_send(Arc::clone(&batch)).is_ok());
        let dropped = (before - subscribers.len()) as u64;
        drop(subscribers);
        self.shared.count(|c| &c.subscribers_dropped, dropped);
    }

    /// The emptied buffer of the oldest published batch if every subscriber is done with it,
    /// or a new one. Subscribers read batches in order, so the oldest is the first let go.
    fn reclaim_events(&mut self) -> M::Events {
        while self.published.len() > EVENT_BUFFERS_WATCHED_MAX {
            self.published.pop_front();
        }
        if self.published.front().is_some_and(|oldest| Arc::strong_count(oldest) == 1) {
            if let Some(Ok(batch)) = self.published.pop_front().map(Arc::try_unwrap) {
                let mut events = batch.events;
                events.clear();
                return events;
            }
        }
        M::Events::default()
    }

    /// Hands a snapshot to the snapshotter if it is free; if it is still saving the
    /// previous one, tries again after the next batch rather than wait.
    fn snapshot_periodic(&mut self, last: Meta) {
        if self.snapshots.is_full() {
            return;
        }
        // A follower must keep a snapshot at or before its position: wait until it has
        // passed the newest one, so that the one before stays behind it.
        if self.newest_snapshot > self.shared.followed.load(Ordering::Acquire) {
            return;
        }
        let job =
            Job { index: last.index, term: last.term, state: self.machine.freeze(), done: None };
        match self.snapshots.try_send(job) {
            Ok(()) => {
                self.since_snapshot = 0;
                self.newest_snapshot = last.index;
            }
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {}
        }
    }

    /// Takes a snapshot on demand and waits for room at the snapshotter.
    fn snapshot_now(&mut self, done: oneshot::Sender<Result<u64, PipelineError>>) {
        let index = self.machine.applied_index();
        let term = self.last_term;
        let job = Job { index, term, state: self.machine.freeze(), done: Some(done) };
        if let Err(lost) = self.snapshots.send(job) {
            let done = lost.0.done.expect("set above");
            let _ = done.send(Err(PipelineError::ShutDown));
            return;
        }
        self.since_snapshot = 0;
        self.newest_snapshot = index;
    }
}

/// An audit frozen on the engine thread, its answer still to be computed.
pub(super) struct AuditJob {
    index: u64,
    /// The state at `index`, serialised and checked by whoever answers.
    state: FrozenAudit,
    answers: Vec<oneshot::Sender<Audit>>,
}

impl AuditJob {
    fn answer(self, hash: fn(&[u8]) -> u64) {
        let (bytes, invariants) = (self.state)();
        let audit = Audit { index: self.index, state_hash: hash(&bytes), invariants };
        for answer in self.answers {
            // The asker may have given up waiting.
            let _ = answer.send(audit.clone());
        }
    }
}

/// Answers audits (state hash and invariants) on a thread of its own, started with the first
/// audit. At most [`AUDITS_HASHING_QUEUED_MAX`] wait behind the one being answered (each holds
/// a frozen state); past that the engine answers in place, a pause as long as a walk and a
/// serialisation of the state.
#[derive(Default)]
pub(super) struct Auditor {
    jobs: Option<Sender<AuditJob>>,
    thread: Option<JoinHandle<()>>,
}

impl Auditor {
    fn submit<M: StateMachine>(&mut self, job: AuditJob) {
        if self.jobs.is_none() {
            let (jobs, queue) = bounded::<AuditJob>(AUDITS_HASHING_QUEUED_MAX);
            let hashing = spawn_named("wal-auditor", move || {
                for job in queue {
                    job.answer(M::snapshot_hash);
                }
            });
            // No thread to spare now: this audit is answered in place, the next tries again.
            if let Ok(thread) = hashing {
                (self.jobs, self.thread) = (Some(jobs), Some(thread));
            }
        }
        let job = match &self.jobs {
            Some(jobs) => match jobs.try_send(job) {
                Ok(()) => return,
                Err(TrySendError::Full(job) | TrySendError::Disconnected(job)) => job,
            },
            None => job,
        };
        job.answer(M::snapshot_hash);
    }
}

impl Drop for Auditor {
    /// Lets the audits queued so far be answered, then stops the thread.
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
