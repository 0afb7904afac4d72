//! [`Shutdown`]: whether the pipeline still takes commands, and if not, why.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::PipelineError;

/// Shared by every handle and pipeline thread: once closed, new commands are refused
/// with the recorded reason (a clean stop, or the journal's failure), so no producer
/// waits for a reply that cannot come.
#[derive(Debug, Default)]
pub(crate) struct Shutdown {
    /// Fast check on the submit path: set once, never cleared.
    closed: AtomicBool,
    /// Why it closed: `None` for a clean stop, else the first failure.
    failure: Mutex<Option<PipelineError>>,
}

impl Shutdown {
    /// Whether commands are refused.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// A clean stop: refuse new commands with [`PipelineError::ShutDown`].
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
    }

    /// A failure: refuse new commands with `error`. The first failure wins.
    pub(crate) fn fail(&self, error: PipelineError) {
        let mut failure = self.failure.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        failure.get_or_insert(error);
        self.close();
    }

    /// The error a refused or abandoned command gets.
    pub(crate) fn error(&self) -> PipelineError {
        let failure = self.failure.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        failure.clone().unwrap_or(PipelineError::ShutDown)
    }
}
