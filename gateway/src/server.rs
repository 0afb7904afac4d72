//! The whole server: the async runtime, the durable core and market data, started in order and
//! stopped in reverse.

use engine::types::AdminId;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use market_feed::catalogue::catalogue;
use market_feed::feed::sync_catalogue;
use market_feed::market::{MarketConfig, MarketData, MarketService};

use crate::api;
use crate::durable::{CoreConfig, CoreError, DurableCore, Startup};
use crate::feeds::Feeds;
use crate::hasher::Hasher;
use crate::mail::{Mailer, SmtpConfig};
use crate::state::{AppState, Shared};
use crate::throttle::Throttles;

/// What the websocket hub is asked (subscriptions, connections), from the handlers.
type HubRequests = tokio::sync::mpsc::Receiver<crate::ws::control::Control>;

/// How often idle rate-limit keys are forgotten.
const LIMITS_PURGE_PERIOD: Duration = Duration::from_secs(60);

/// The HTTP API's options.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Listen address (port 0 picks a free one).
    pub listen: SocketAddr,
    /// Origin for invitation links, when the operator set one (otherwise the app uses the
    /// address its page came from).
    pub public_origin: Option<String>,
    /// argon2id threads.
    pub hash_threads: usize,
    /// SMTP, else the outbox.
    pub smtp: Option<SmtpConfig>,
    /// Brute-force limits on.
    pub rate_limits: bool,
    /// Websocket limits.
    pub ws: crate::ws::WsConfig,
    /// Accept real-money orders on simulated prices (off: a demo platform).
    pub real_money_on_simulated_prices: bool,
    /// Where `/metrics` is served (never on the public address); none serves no metrics.
    pub metrics_listen: Option<SocketAddr>,
    /// How much each user may upload.
    pub upload_quota: crate::state::UploadQuota,
    /// The listener's limits: request-head timeout, connections per address, sockets in all.
    pub listen_limits: crate::http::ListenConfig,
}

/// Worker threads of the async runtime by default: every core but one each for the engine
/// thread and the read model's projector, whose delays every trader sees (in each reply, in
/// history); the journal mostly waits on the disk. Never fewer than 2: on two cores one
/// worker doubled the tail and more than two cost more per answer (BENCHMARKS, "Threads and
/// cores").
pub fn default_runtime_workers() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    cores.saturating_sub(2).max(2)
}
/// The admin whose audited actions add the catalogue at install time: the first one.
const INSTALL_ADMIN: u32 = 1;

/// Everything the server needs to start.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The durable core.
    pub core: CoreConfig,
    /// Which source feeds which product.
    pub feeds: Feeds,
    /// The HTTP API; none runs the core and market data only.
    pub http: Option<HttpConfig>,
    /// Worker threads of the async runtime.
    pub runtime_workers: usize,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The durable core failed to start.
    #[error(transparent)]
    Core(#[from] CoreError),
    /// The catalogue could not be added to the engine.
    #[error("catalogue: {0}")]
    Catalogue(#[from] market_feed::feed::SyncError),
    /// Market data failed to start.
    #[error("market data: {0}")]
    Market(#[from] market_feed::market::MarketError),
    /// The HTTP API's or the metrics' address cannot be listened on (it is taken, say).
    #[error("cannot listen on {address}: {error}")]
    Listen {
        /// The configured address.
        address: SocketAddr,
        /// What the operating system answered.
        error: std::io::Error,
    },
    /// The async runtime, a thread, the listener or a directory could not be set up.
    #[error("io: {0}")]
    Runtime(#[from] std::io::Error),
    /// The mailer could not be configured.
    #[error("mail: {0}")]
    Mail(#[from] crate::mail::MailError),
}

/// A running server.
#[derive(Debug)]
pub struct Server {
    /// The HTTP server: its address, stop signal and task; stopped first.
    http: Option<(SocketAddr, tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<()>)>,
    /// The metrics listener's address and task, if it runs.
    metrics: Option<(SocketAddr, tokio::task::JoinHandle<()>)>,
    /// What handlers share (for tests and tools).
    state: Option<AppState>,
    /// Market data; stopped before the core.
    market: Option<MarketService>,
    /// The durable core.
    core: Option<DurableCore>,
    /// Cluster mode: the thread that does the leader's work; ends with the node.
    leader_duties: Option<std::thread::JoinHandle<()>>,
    /// The async runtime; dropped last.
    runtime: Option<tokio::runtime::Runtime>,
}

impl Server {
    /// Recovers the core, adds missing catalogue products, and starts market data.
    pub fn start(mut config: ServerConfig) -> Result<(Server, Startup), ServerError> {
        // Listening first: a taken port fails the start at once, before the core recovers or
        // joins its cluster.
        let http = match config.http {
            Some(http) => {
                let listeners =
                    (listen(http.listen)?, http.metrics_listen.map(listen).transpose()?);
                Some((http, listeners))
            }
            None => None,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(config.runtime_workers)
            .thread_name("gateway-rt")
            .enable_all()
            .build()?;
        let data_dir: PathBuf = config.core.data_dir.clone();
        // The simulator's seed is the history's: with `--sim-seed` both are reproducible.
        config.core.chart_history_seed = config.feeds.seed;
        let node_config = config.core.clone();
        let (node, startup) = DurableCore::start_on(config.core, Some(runtime.handle()))?;
        let instruments = catalogue();
        if node_config.cluster.is_none() {
            let added = sync_catalogue(node.handle(), AdminId(INSTALL_ADMIN), &instruments)?;
            if added > 0 {
                tracing::info!(added, "catalogue products added to the engine");
            }
        }
        // In a cluster the leader adds the catalogue (and the first admin) when it leads.
        let listing = instruments.clone();
        let leader_duties = node.spawn_leader_duties(&node_config, move |handle| {
            match sync_catalogue(handle, AdminId(INSTALL_ADMIN), &listing) {
                Ok(0) => {}
                Ok(added) => tracing::info!(added, "catalogue products added to the engine"),
                Err(error) => tracing::warn!(%error, "the catalogue could not be added yet"),
            }
        });
        let market_config = MarketConfig {
            assignments: config.feeds.assignments,
            default_source: config.feeds.default_source,
            backfill_seed: config.feeds.seed,
            archive: Some(Arc::clone(node.archive())),
            history_from_engine: true,
            ..MarketConfig::simulated(data_dir.join("market"), config.feeds.seed)
        };
        let market = MarketService::start(node.handle().clone(), instruments, market_config)?;
        market.start_sources(runtime.handle());
        let mut server = Server {
            http: None,
            metrics: None,
            state: None,
            market: Some(market),
            core: Some(node),
            leader_duties,
            runtime: Some(runtime),
        };
        if let Some((http, listeners)) = http {
            server.start_http(&data_dir, http, listeners, node_config.cluster.as_ref())?;
        }
        Ok((server, startup))
    }

    fn start_http(
        &mut self,
        data_dir: &std::path::Path,
        config: HttpConfig,
        (listener, metrics_listener): (std::net::TcpListener, Option<std::net::TcpListener>),
        cluster: Option<&crate::durable::ClusterOptions>,
    ) -> Result<(), ServerError> {
        let listen = config.listen_limits;
        let (state, hub_requests) = self.app_state(data_dir, config, cluster)?;
        {
            let _entered = self.runtime.as_ref().expect("running").enter();
            crate::ws::hub::spawn(state.clone(), hub_requests)?;
        }
        self.serve_api(&state, listener, listen)?;
        if let Some(listener) = metrics_listener {
            self.serve_metrics(&state, listener)?;
        }
        self.state = Some(state);
        Ok(())
    }

    /// What every handler shares: the durable core's handles, the market, the stores and the
    /// limits, built from the HTTP configuration; and the websocket hub's requests, for the hub.
    fn app_state(
        &self,
        data_dir: &std::path::Path,
        config: HttpConfig,
        cluster: Option<&crate::durable::ClusterOptions>,
    ) -> Result<(AppState, HubRequests), ServerError> {
        let node = self.core.as_ref().expect("running");
        let now = wal::pipeline::system_time_ms();
        let simulated = self.market().products(now).iter().filter(|p| p.simulated).count();
        if simulated > 0 && !config.real_money_on_simulated_prices {
            tracing::info!(simulated, "a demo platform: these products are priced by the simulator, and real-money orders on them are refused (--allow-real-money-on-simulated-prices changes that)");
        } else if simulated > 0 {
            tracing::warn!(simulated, "real-money orders are accepted on simulated prices (--allow-real-money-on-simulated-prices)");
        }
        let uploads_dir = data_dir.join("uploads");
        std::fs::create_dir_all(&uploads_dir)?;
        let (ws, hub_requests) = crate::ws::Ws::new(config.ws);
        let shared = Shared {
            handle: node.handle().clone(),
            market: self.market(),
            charts: Default::default(),
            readmodel: node.readmodel().clone(),
            archive: Arc::clone(node.archive()),
            // Members share the cluster secret: a session token from one is valid on all.
            tokens: match cluster {
                Some(cluster) => crate::tokens::Tokens::for_cluster(&cluster.secret),
                None => crate::tokens::Tokens::from_file(&data_dir.join("jwt-secret"))?,
            },
            hasher: Hasher::start(config.hash_threads)?,
            throttles: if config.rate_limits {
                Throttles::standard()
            } else {
                Throttles::unlimited()
            },
            codes: Default::default(),
            mailer: Mailer::new(config.smtp.as_ref(), data_dir.join("outbox"))?,
            nonces: Default::default(),
            i18n: crate::i18n::Catalogues::load(),
            uploads_dir,
            upload_quota: config.upload_quota,
            metrics: Default::default(),
            public_origin: config.public_origin,
            real_money_on_simulated_prices: config.real_money_on_simulated_prices,
            ws,
            cluster: node.cluster_status_source(),
            peer_apis: cluster.map(|c| c.peer_apis.clone()).unwrap_or_default(),
            leader: crate::forward::LeaderClient::new(config.listen_limits.head_timeout),
            write_marks: crate::forward::marks::WriteMarks::default(),
            copy_board: Default::default(),
        };
        Ok((AppState(Arc::new(shared)), hub_requests))
    }

    /// Serves the API on `listener` until the server stops.
    fn serve_api(
        &mut self,
        state: &AppState,
        listener: std::net::TcpListener,
        listen: crate::http::ListenConfig,
    ) -> Result<(), ServerError> {
        let app = api::app(state.clone());
        let runtime = self.runtime.as_ref().expect("running");
        let address = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let limits = state.throttles.clone();
        let send_buffer = state.ws.config.socket_send_buffer_bytes;
        let task = runtime.spawn(async move {
            let listener = match tokio::net::TcpListener::from_std(listener) {
                Ok(listener) => listener,
                Err(error) => return tracing::error!(%error, "cannot listen"),
            };
            let purge = tokio::spawn(async move {
                let mut every = tokio::time::interval(LIMITS_PURGE_PERIOD);
                loop {
                    every.tick().await;
                    limits.purge();
                }
            });
            let tap = move |tcp: &tokio::net::TcpStream| {
                // Small frames go out at once (websocket ticks and answers).
                let _ = tcp.set_nodelay(true);
                if let Some(bytes) = send_buffer {
                    let _ = socket2::SockRef::from(tcp).set_send_buffer_size(bytes);
                }
            };
            let shutdown = async move {
                let _ = stopped.await;
            };
            crate::http::serve(listener, app, listen, tap, shutdown).await;
            purge.abort();
        });
        tracing::info!(%address, "HTTP API listening");
        self.http = Some((address, stop, task));
        Ok(())
    }

    /// Serves `/metrics` on its own listener.
    fn serve_metrics(
        &mut self,
        state: &AppState,
        listener: std::net::TcpListener,
    ) -> Result<(), ServerError> {
        let runtime = self.runtime.as_ref().expect("running");
        let metrics_address = listener.local_addr()?;
        let metrics = api::metrics_app(state.clone());
        let task = runtime.spawn(async move {
            match tokio::net::TcpListener::from_std(listener) {
                Ok(listener) => {
                    if let Err(error) = axum::serve(listener, metrics).await {
                        tracing::error!(%error, "metrics server failed");
                    }
                }
                Err(error) => tracing::error!(%error, "cannot listen for metrics"),
            }
        });
        tracing::info!(address = %metrics_address, "metrics listening");
        self.metrics = Some((metrics_address, task));
        Ok(())
    }

    /// Where `/metrics` is served, if it is.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics.as_ref().map(|(address, _)| *address)
    }

    /// Where the HTTP API listens, if it runs.
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.http.as_ref().map(|(address, _, _)| *address)
    }

    /// What the handlers share, if the HTTP API runs.
    pub fn state(&self) -> Option<&AppState> {
        self.state.as_ref()
    }

    /// The async runtime.
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime.as_ref().expect("running")
    }

    /// The durable core.
    pub fn core(&self) -> &DurableCore {
        self.core.as_ref().expect("running")
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
        if let Some((_, task)) = self.metrics.take() {
            task.abort();
        }
        if let (Some((_, stop, task)), Some(runtime)) = (self.http.take(), self.runtime.as_ref()) {
            // Close the websockets, stop accepting, let in-flight requests finish (bounded),
            // then stop the rest.
            if let Some(state) = &self.state {
                state.ws.shutdown();
            }
            let _ = stop.send(());
            // The listener drains for at most `http::DRAIN_TIMEOUT` itself; the margin covers
            // the task's own end.
            let bound = crate::http::DRAIN_TIMEOUT + Duration::from_secs(1);
            let _ = runtime.block_on(async { tokio::time::timeout(bound, task).await });
        }
        self.state = None;
        if let Some(market) = self.market.take() {
            market.shutdown();
        }
        let result = match self.core.take() {
            Some(node) => node.shutdown(),
            None => Ok(()),
        };
        if let Some(duties) = self.leader_duties.take() {
            let _ = duties.join();
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(std::time::Duration::from_secs(5));
        }
        result
    }
}

/// A non-blocking listener on `address`.
fn listen(address: SocketAddr) -> Result<std::net::TcpListener, ServerError> {
    let listener = std::net::TcpListener::bind(address)
        .map_err(|error| ServerError::Listen { address, error })?;
    listener.set_nonblocking(true)?;
    Ok(listener)
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.stop_all();
    }
}
