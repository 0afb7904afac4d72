//! The whole server: the async runtime, the durable core and market data, started in order and
//! stopped in reverse.

use std::path::PathBuf;

use market_feed::catalogue::catalogue;
use market_feed::feed::sync_catalogue;
use market_feed::market::{MarketConfig, MarketData, MarketService};

use crate::feeds::Feeds;
use crate::node::{Node, NodeConfig, NodeError, Startup};

/// Worker threads of the async runtime (the engine and journal have their own threads).
const RUNTIME_WORKERS: usize = 2;
/// The admin whose audited actions add the catalogue at install time: the first one.
const INSTALL_ADMIN: u32 = 1;

/// Everything the server needs to start.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The durable core.
    pub node: NodeConfig,
    /// Which source feeds which product.
    pub feeds: Feeds,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The durable core failed to start.
    #[error(transparent)]
    Node(#[from] NodeError),
    /// The catalogue could not be added to the engine.
    #[error("catalogue: {0}")]
    Catalogue(#[from] market_feed::feed::SyncError),
    /// Market data failed to start.
    #[error("market data: {0}")]
    Market(#[from] market_feed::market::MarketError),
    /// The async runtime could not be built.
    #[error("runtime: {0}")]
    Runtime(#[from] std::io::Error),
}

/// A running server.
#[derive(Debug)]
pub struct Server {
    /// Market data; stopped before the core.
    market: Option<MarketService>,
    /// The durable core.
    node: Option<Node>,
    /// The async runtime; dropped last.
    runtime: Option<tokio::runtime::Runtime>,
}

impl Server {
    /// Recovers the core, adds missing catalogue products, and starts market data.
    pub fn start(config: ServerConfig) -> Result<(Server, Startup), ServerError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(RUNTIME_WORKERS)
            .thread_name("gateway-rt")
            .enable_all()
            .build()?;
        let data_dir: PathBuf = config.node.data_dir.clone();
        let (node, startup) = Node::start(config.node)?;
        let instruments = catalogue();
        let added = sync_catalogue(node.handle(), INSTALL_ADMIN, &instruments)?;
        if added > 0 {
            tracing::info!(added, "catalogue products added to the engine");
        }
        let market_config = MarketConfig {
            assignments: config.feeds.assignments,
            default_source: config.feeds.default_source,
            backfill_seed: config.feeds.seed,
            ..MarketConfig::simulated(data_dir.join("market"), config.feeds.seed)
        };
        let market = MarketService::start(node.handle().clone(), instruments, market_config)?;
        market.start_sources(runtime.handle());
        Ok((Server { market: Some(market), node: Some(node), runtime: Some(runtime) }, startup))
    }

    /// The durable core.
    pub fn node(&self) -> &Node {
        self.node.as_ref().expect("running")
    }

    /// Market data.
    pub fn market(&self) -> MarketData {
        self.market.as_ref().expect("running").data()
    }

    /// Stops market data, then the core (draining and syncing the log), then the runtime.
    pub fn shutdown(mut self) -> Result<(), wal::PipelineError> {
        self.stop_all()
    }

    fn stop_all(&mut self) -> Result<(), wal::PipelineError> {
        if let Some(market) = self.market.take() {
            market.shutdown();
        }
        let result = match self.node.take() {
            Some(node) => node.shutdown(),
            None => Ok(()),
        };
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(std::time::Duration::from_secs(5));
        }
        result
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.stop_all();
    }
}
