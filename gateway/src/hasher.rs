//! argon2id on a bounded pool of threads (decisions §6): a login storm queues here, up to a
//! bound, instead of starving the async workers or the engine; beyond the bound callers get
//! `Busy` at once.

use crossbeam_channel::{bounded, Sender, TrySendError};

use crate::password;

/// Hash jobs waiting for a thread before new ones are refused.
pub const HASH_QUEUE_MAX: usize = 256;

enum Job {
    Hash { password: String, done: oneshot::Sender<String> },
    Verify { password: String, hash: String, done: oneshot::Sender<bool> },
}

/// The pool is full (or stopped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the password hashing pool is busy")]
pub struct Busy;

/// Cheap to clone; the threads stop when the last clone is dropped.
#[derive(Clone, Debug)]
pub struct Hasher {
    /// Jobs for the pool.
    jobs: Sender<Job>,
    /// A hash of a random password with the production parameters, checked when there is
    /// no real hash so that unknown accounts cost the same time.
    dummy: std::sync::Arc<str>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job") // never print passwords
    }
}

impl Hasher {
    /// Starts `threads` hashing threads.
    pub fn start(threads: usize) -> std::io::Result<Hasher> {
        let (jobs, receiver) = bounded::<Job>(HASH_QUEUE_MAX);
        for n in 0..threads.max(1) {
            let receiver = receiver.clone();
            std::thread::Builder::new().name(format!("argon2-{n}")).spawn(move || {
                for job in receiver {
                    match job {
                        Job::Hash { password, done } => {
                            let _ = done.send(password::hash(&password));
                        }
                        Job::Verify { password, hash, done } => {
                            let _ = done.send(password::verify(&password, &hash));
                        }
                    }
                }
            })?;
        }
        let dummy = password::hash(&password::generate()).into();
        Ok(Hasher { jobs, dummy })
    }

    fn submit(&self, job: Job) -> Result<(), Busy> {
        match self.jobs.try_send(job) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => Err(Busy),
        }
    }

    /// A new argon2id hash of `password`.
    pub async fn hash(&self, password: String) -> Result<String, Busy> {
        let (done, result) = oneshot::channel();
        self.submit(Job::Hash { password, done })?;
        result.await.map_err(|_| Busy)
    }

    /// Whether `password` matches `hash`. With no hash (unknown user, wallet-only account)
    /// a dummy hash is checked, so the answer takes as long either way.
    pub async fn verify(&self, password: String, hash: Option<String>) -> Result<bool, Busy> {
        let known = hash.is_some();
        let hash = hash.unwrap_or_else(|| self.dummy.to_string());
        let (done, result) = oneshot::channel();
        self.submit(Job::Verify { password, hash, done })?;
        Ok(result.await.map_err(|_| Busy)? && known)
    }
}
