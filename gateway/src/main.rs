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
use gateway::feeds;
use gateway::node::NodeConfig;
use gateway::server::{HttpConfig, Server, ServerConfig};
use tracing_subscriber::EnvFilter;

/// How often the server logs its status.
const STATUS_PERIOD: Duration = Duration::from_secs(30);
/// How often the main thread checks that the core still runs.
const FAILURE_CHECK: Duration = Duration::from_secs(1);

fn server_config(config: Config) -> Result<ServerConfig, String> {
    Ok(ServerConfig {
        node: NodeConfig {
            admin_username: config.admin_username,
            admin_password: config.admin_password,
            tick_archive_days: config.tick_archive_days,
            cluster: config.cluster,
            ..NodeConfig::new(config.data_dir)
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
    })
}

fn log_status(server: &Server) {
    let market = server.market();
    let c = market.counters();
    let now = wal::pipeline::system_time_ms();
    let stale = market.products(now).iter().filter(|p| p.stale).count();
    let core = server
        .node()
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

/// Logs to standard error: colours only on a terminal (and never with `NO_COLOR`), so a log
/// written to a file or a pipe carries no escape codes.
fn init_logging(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        LogFormat::Json => builder.json().init(),
        LogFormat::Text => {
            let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            builder.with_ansi(colour).init();
        }
    }
}

fn main() -> ExitCode {
    let config = Config::resolve(Args::parse());
    init_logging(config.as_ref().map_or(LogFormat::Text, |c| c.log_format));
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
    tracing::info!(data_dir = %config.node.data_dir.display(), "starting");
    let admin_username = config.node.admin_username.clone();
    let (server, startup) = match Server::start(config) {
        Ok(started) => started,
        Err(e) => {
            tracing::error!(error = %e, "start-up failed");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(
        snapshot = ?startup.snapshot_index,
        replayed = startup.records_replayed,
        cut_tail_bytes = startup.cut_tail_bytes,
        "recovered"
    );
    if let Some(password) = &startup.generated_admin_password {
        // Printed once, on the start that created the admin; only its hash is stored.
        println!(
            "first admin created: username `{admin_username}` password `{password}` (shown once; change it)"
        );
    }
    let stats = server
        .node()
        .handle()
        .query(|e: &engine::Engine| (e.user_count(), e.products().len(), e.applied_index()));
    if let Ok((users, products, index)) = stats {
        tracing::info!(users, products, log_index = index, "serving; press Ctrl-C to stop");
    }
    let mut last_status = std::time::Instant::now();
    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stop_rx.recv_timeout(FAILURE_CHECK)
    {
        if let Some(error) = server.node().handle().closed_because() {
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
