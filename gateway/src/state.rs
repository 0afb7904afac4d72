//! The composition root: what every handler, HTTP or websocket, can reach ([`AppState`]),
//! built once by the server and cloned into each request and connection.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use engine::{Command, Engine, Reply};
use market_feed::market::MarketData;
use wal::{Handle, PipelineError};

use crate::api::idempotency::IdempotencyKey;
use crate::error::ApiResult;
use crate::forward::marks::WriteMarks;
use crate::hasher::Hasher;
use crate::i18n::Catalogues;
use crate::mail::{Codes, Mailer};
use crate::metrics::Metrics;
use crate::readmodel::ReadModel;
use crate::throttle::Throttles;
use crate::tokens::Tokens;
use crate::walletsig::Nonces;

/// How much one user may store in uploads (receipts and avatars).
#[derive(Debug, Clone, Copy)]
pub struct UploadQuota {
    /// Files one user may keep.
    pub files: u64,
    /// Bytes one user may keep, all files together.
    pub bytes: u64,
}

impl Default for UploadQuota {
    /// 100 files and 100 MiB.
    fn default() -> Self {
        UploadQuota { files: 100, bytes: 100 * 1024 * 1024 }
    }
}

/// Longest wait for the read model to catch up before answering from it anyway.
pub const HISTORY_WAIT: Duration = Duration::from_secs(2);

/// What every handler can reach. Cheap to clone.
#[derive(Clone)]
pub struct AppState(pub Arc<Shared>);

/// The state behind [`AppState`].
pub struct Shared {
    /// Commands and queries to the engine.
    pub handle: Handle<Engine>,
    /// Candles, tickers, 24 h statistics.
    pub market: MarketData,
    /// Charts' newest candles, kept encoded.
    pub charts: crate::charts::Charts,
    /// Every sequenced tick (public lookups and settlement proofs).
    pub archive: Arc<market_feed::archive::TickArchive>,
    /// History. Reads of projected rows go through [`AppState::history`], which waits for
    /// the projection; uploads (not projected) and health figures use it directly.
    pub readmodel: ReadModel,
    /// Session tokens.
    pub tokens: Tokens,
    /// argon2id pool.
    pub hasher: Hasher,
    /// Brute-force limits: attempts per account and per address.
    pub throttles: Throttles,
    /// E-mail codes outstanding.
    pub codes: Codes,
    /// E-mail delivery.
    pub mailer: Mailer,
    /// Wallet sign-in nonces outstanding.
    pub nonces: Nonces,
    /// Message catalogues.
    pub i18n: Catalogues,
    /// Where uploads are stored.
    pub uploads_dir: PathBuf,
    /// How much each user may upload.
    pub upload_quota: UploadQuota,
    /// Prometheus metrics.
    pub metrics: Metrics,
    /// Public origin for invitation links, e.g. `https://trade.example.com`, when the operator
    /// set one; otherwise the app builds them on the address its page came from.
    pub public_origin: Option<String>,
    /// Real-money orders accepted on simulated prices (the operator said so).
    pub real_money_on_simulated_prices: bool,
    /// The websocket service.
    pub ws: crate::ws::Ws,
    /// Cluster mode: where this node stands (role, term, indexes); `None` on a single node.
    pub cluster: Option<wal::pipeline::cluster::StatusSource>,
    /// Cluster mode: each member's public address (`--peer-apis`), where writes are forwarded.
    pub peer_apis: std::collections::BTreeMap<u64, String>,
    /// Cluster mode: the pooled connections over which writes are forwarded to the leader.
    pub leader: crate::forward::LeaderClient,
    /// Cluster mode: how far each caller's reads here must wait for its forwarded writes.
    pub write_marks: WriteMarks,
    /// Copy trading's public rankings, added up at most once a minute.
    pub copy_board: crate::api::copy::Board,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("uploads_dir", &self.uploads_dir).finish_non_exhaustive()
    }
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AppState")
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// Milliseconds since the epoch.
    pub fn now(&self) -> u64 {
        wal::pipeline::system_time_ms()
    }

    /// Journals `command` and waits for the engine's answer. `key` is the request's
    /// `Idempotency-Key` for the first command a request submits: in cluster mode a retry of
    /// it is answered DUPLICATE_REQUEST (with the index it was applied at), never applied twice.
    pub async fn submit(&self, key: IdempotencyKey, command: Command) -> ApiResult<Reply> {
        match self.submit_once(key, command).await? {
            Submitted::Applied(reply) => Ok(reply),
            Submitted::Duplicate { index } => Err(PipelineError::Duplicate { index }.into()),
        }
    }

    /// As [`AppState::submit`], with a retry of a request already carried out told apart, for
    /// a handler that answers it as it was answered the first time.
    pub async fn submit_once(&self, key: IdempotencyKey, command: Command) -> ApiResult<Submitted> {
        match self.handle.submit_request(command, key.0).await {
            Ok(result) => Ok(Submitted::Applied(result?)),
            Err(PipelineError::Duplicate { index }) => Ok(Submitted::Duplicate { index }),
            Err(error) => Err(error.into()),
        }
    }

    /// The read model, once it holds every command applied so far (waiting at most
    /// [`HISTORY_WAIT`]), so that a caller sees its own orders, bills and sign-ins in history
    /// right after making them. Every history read goes through here.
    pub async fn history(&self) -> ApiResult<&ReadModel> {
        let index = self.query(|engine| engine.applied_index()).await?;
        self.readmodel.caught_up(index, HISTORY_WAIT).await;
        Ok(&self.readmodel)
    }

    /// Reads engine state on the engine thread.
    pub async fn query<R: Send + 'static>(
        &self,
        read: impl FnOnce(&Engine) -> R + Send + 'static,
    ) -> ApiResult<R> {
        Ok(self.handle.query_async(read).await?)
    }
}

/// What became of a command submitted with a key.
#[derive(Debug)]
pub enum Submitted {
    /// Applied now; the engine's answer.
    Applied(Reply),
    /// A retry of a request carried out before, applied at `index`; not applied again.
    Duplicate {
        /// Where the first one went in the log.
        index: u64,
    },
}
