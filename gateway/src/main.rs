//! `trading-server`: runs the platform on its data directory. `--help` lists the options
//! (flag, then environment variable, then `--config` TOML file, then embedded default).

/// mimalloc rather than glibc's malloc: the replicated pipeline's CPU per command 0.87x,
/// its throughput 1.18x in the same session (BENCHMARKS.md, "Replicated log").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::Parser;
use gateway::config::{Args, Config, LogFormat};
use gateway::durable::CoreConfig;
use gateway::feeds;
use gateway::server::{HttpConfig, Server, ServerConfig};
use tracing_subscriber::EnvFilter;

/// How often the server logs its status.
const STATUS_PERIOD: Duration = Duration::from_secs(30);
/// How often the main thread checks that the core still runs.
const FAILURE_CHECK: Duration = Duration::from_secs(1);

fn server_config(config: Config) -> Result<ServerConfig, String> {
    Ok(ServerConfig {
        core: CoreConfig {
            admin_username: config.admin_username,
            admin_password: config.admin_password,
            tick_archive_days: config.tick_archive_days,
            cluster: config.cluster,
            ..CoreConfig::new(config.data_dir)
        },
        feeds: feeds::parse(&config.feeds, config.sim_seed)?,
        http: Some(HttpConfig {
            listen: config.listen,
            public_origin: config.public_origin,
            hash_threads: config.hash_threads,
            smtp: config.smtp,
            rate_limits: config.rate_limits,
            ws: config.ws,
            real_money_on_simulated_prices: config.real_money_on_simulated_prices,
            metrics_listen: config.metrics_listen,
            upload_quota: config.upload_quota,
            listen_limits: config.listen_limits,
        }),
        runtime_workers: config.runtime_workers,
    })
}

fn log_status(server: &Server) {
    let market = server.market();
    let c = market.counters();
    let now = wal::pipeline::system_time_ms();
    let stale = market.products(now).iter().filter(|p| p.stale).count();
    let core = server
        .core()
        .handle()
        .query(|e: &engine::Engine| (e.applied_index(), e.open_contract_count()));
    let (index, open) = core.unwrap_or_default();
    tracing::info!(
        log_index = index,
        open_contracts = open,
        ticks_received = c.received.load(Ordering::Relaxed),
        ticks_sequenced = c.sequenced.load(Ordering::Relaxed),
        ticks_dropped_overloaded = c.overloaded.load(Ordering::Relaxed),
        stale_products = stale,
        "status"
    );
}

/// What is logged without `RUST_LOG`: our info, and only openraft's errors (its info is
/// state dumps, its warnings repeat every 50 ms for a down peer; our network layer says that
/// once in a while instead).
const DEFAULT_LOG_FILTER: &str = "info,openraft=error";

/// Logs to standard error: colours only on a terminal (and never with `NO_COLOR`), so a log
/// written to a file or a pipe carries no escape codes. A cluster member's text lines start
/// with `node=N`, so that members sharing a terminal can be told apart (a JSON line has it as
/// the `node` field's span).
fn init_logging(format: LogFormat, node: Option<u64>) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_LOG_FILTER));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        LogFormat::Json => builder.json().init(),
        LogFormat::Text => {
            let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            let prefix = node.map(|id| format!("node={id} ")).unwrap_or_default();
            builder
                .with_ansi(colour)
                .event_format(gateway::logging::Prefixed::new(prefix, colour))
                .init();
        }
    }
}

/// Warns when a secret is one the README prints as an example, or too short to resist
/// guessing: a newcomer copies the example, and nothing else would tell them.
fn warn_about_example_secrets(config: &ServerConfig) {
    const EXAMPLES: [&str; 3] = ["change-this-long-secret", "change-me-admin", "change-me"];
    if let Some(cluster) = &config.core.cluster {
        if EXAMPLES.contains(&cluster.secret.as_str()) || cluster.secret.chars().count() < 24 {
            tracing::warn!("the cluster secret is the README's example or shorter than 24 characters: anyone who knows it can join or drive this cluster; set TRADING_CLUSTER_SECRET to a long random value");
        }
    }
    if let Some(password) = &config.core.admin_password {
        if EXAMPLES.contains(&password.as_str()) || password.chars().count() < 12 {
            tracing::warn!(username = %config.core.admin_username, "the first admin's password is the README's example or shorter than 12 characters: change it at the first sign-in");
        }
    }
}

fn main() -> ExitCode {
    let config = Config::resolve(Args::parse());
    let node = config.as_ref().ok().and_then(|c| c.cluster.as_ref()).map(|c| c.node_id);
    init_logging(config.as_ref().map_or(LogFormat::Text, |c| c.log_format), node);
    let mut config = match config.and_then(server_config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let descriptors = gateway::http::raise_descriptor_limit();
    if let Some(http) = config.http.as_mut() {
        http.listen_limits.sockets_max = gateway::http::sockets_max_for(descriptors);
    }
    let (stop_tx, stop_rx) = std::sync::mpsc::sync_channel::<()>(1);
    if let Err(e) = ctrlc::set_handler(move || {
        let _ = stop_tx.try_send(());
    }) {
        tracing::error!(error = %e, "cannot install the signal handler");
        return ExitCode::FAILURE;
    }
    tracing::info!(data_dir = %config.core.data_dir.display(), "starting");
    warn_about_example_secrets(&config);
    let admin_username = config.core.admin_username.clone();
    let (server, startup) = match Server::start(config) {
        Ok(started) => started,
        Err(e) => {
            tracing::error!(error = %e, "start-up failed");
            return ExitCode::FAILURE;
        }
    };
    // Where the engine stands now: a cluster member replays through Raft, not by itself, so
    // the log index says more than the records it replayed.
    let applied = server.core().handle().query(|e: &engine::Engine| e.applied_index());
    tracing::info!(
        snapshot = ?startup.snapshot_index,
        replayed = startup.records_replayed,
        log_index = applied.unwrap_or(0),
        cut_tail_bytes = startup.cut_tail_bytes,
        snapshot_load_ms = startup.timings.snapshot_load.as_millis() as u64,
        restore_ms = startup.timings.restore.as_millis() as u64,
        replay_ms = startup.timings.replay.as_millis() as u64,
        "recovered"
    );
    if let Some(password) = &startup.generated_admin_password {
        // Printed once, on the start that created the admin; only its hash is stored.
        println!(
            "first admin created: username `{admin_username}` password `{password}` (shown once; change it)"
        );
    }
    let stats = server
        .core()
        .handle()
        .query(|e: &engine::Engine| (e.user_count(), e.products().len(), e.applied_index()));
    if let Ok((users, products, index)) = stats {
        tracing::info!(users, products, log_index = index, "serving; press Ctrl-C to stop");
    }
    let mut last_status = std::time::Instant::now();
    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stop_rx.recv_timeout(FAILURE_CHECK)
    {
        if let Some(error) = server.core().handle().closed_because() {
            // The core failed (the disk, or a cluster member's Raft): stop, so that whatever
            // supervises this process restarts it from its disk.
            tracing::error!(%error, "the core stopped: exiting");
            let _ = server.shutdown();
            return ExitCode::FAILURE;
        }
        if last_status.elapsed() >= STATUS_PERIOD {
            log_status(&server);
            last_status = std::time::Instant::now();
        }
    }
    tracing::info!("shutting down: stopping market data, draining the queue and syncing the log");
    match server.shutdown() {
        Ok(()) => {
            tracing::info!("stopped cleanly");
            ExitCode::SUCCESS
        }
        Err(e) => {
            tracing::error!(error = %e, "shutdown failed");
            ExitCode::FAILURE
        }
    }
}
