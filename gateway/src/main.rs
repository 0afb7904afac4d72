//! `trading-server`: runs the platform on its data directory.
//!
//! Options (flag, then environment variable, then default):
//! - `--data-dir DIR` / `TRADING_DATA_DIR` / `./data`
//! - `--admin-username NAME` / `TRADING_ADMIN_USERNAME` / `admin`
//! - `--admin-password PASS` / `TRADING_ADMIN_PASSWORD` / generated and printed once
//! - `--feed SPEC` (repeatable) / `TRADING_FEEDS` (`;`-separated) / every product simulated

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use gateway::feeds;
use gateway::node::NodeConfig;
use gateway::server::{Server, ServerConfig};
use tracing_subscriber::EnvFilter;

const HELP: &str = "trading-server: the trading platform's server

USAGE: trading-server [OPTIONS]

OPTIONS (flag, environment variable, default):
  --data-dir DIR          TRADING_DATA_DIR               ./data
  --admin-username NAME   TRADING_ADMIN_USERNAME         admin
  --admin-password PASS   TRADING_ADMIN_PASSWORD         generated at first start, printed once
  --feed SPEC             TRADING_FEEDS (;-separated)    simulated (seed 42) for every product
  -h, --help              print this help

FEED SPECS (repeat --feed; products not named keep the default source):
  simulated[:SEED]              the seeded simulator, for every product not named elsewhere
  replay:PATH[@SPEED]=SYM,...   a recorded tick or OHLCV CSV file (SPEED 1 = real time, 0 = fast)
  exchange:URL=SYM,...          Binance-compatible trade streams, e.g.
                                exchange:wss://stream.binance.com:9443/stream=BTCUSDT,ETHUSDT

Logs go to standard error; set RUST_LOG (e.g. RUST_LOG=debug) to change the level.";

/// How often the server logs its status.
const STATUS_PERIOD: Duration = Duration::from_secs(30);

fn option(args: &[String], flag: &str, env: &str) -> Result<Option<String>, String> {
    if let Some(at) = args.iter().position(|a| a == flag) {
        return args.get(at + 1).cloned().map(Some).ok_or_else(|| format!("{flag} needs a value"));
    }
    Ok(std::env::var(env).ok().filter(|v| !v.is_empty()))
}

fn config(args: &[String]) -> Result<ServerConfig, String> {
    let known = ["--data-dir", "--admin-username", "--admin-password", "--feed"];
    let mut i = 0;
    while i < args.len() {
        if !known.contains(&args[i].as_str()) {
            return Err(format!("unknown option {}", args[i]));
        }
        if i + 1 >= args.len() {
            return Err(format!("{} needs a value", args[i]));
        }
        i += 2;
    }
    let mut feed_specs: Vec<String> =
        args.chunks(2).filter(|w| w[0] == "--feed").map(|w| w[1].clone()).collect();
    if feed_specs.is_empty() {
        if let Ok(env) = std::env::var("TRADING_FEEDS") {
            feed_specs =
                env.split(';').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
        }
    }
    let data_dir = option(args, "--data-dir", "TRADING_DATA_DIR")?.unwrap_or_else(|| "data".into());
    let admin_username = option(args, "--admin-username", "TRADING_ADMIN_USERNAME")?
        .unwrap_or_else(|| "admin".into());
    Ok(ServerConfig {
        node: NodeConfig {
            data_dir: PathBuf::from(data_dir),
            admin_username,
            admin_password: option(args, "--admin-password", "TRADING_ADMIN_PASSWORD")?,
        },
        feeds: feeds::parse(&feed_specs)?,
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

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{HELP}");
        return ExitCode::SUCCESS;
    }
    let config = match config(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}\n\n{HELP}");
            return ExitCode::from(2);
        }
    };
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
    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stop_rx.recv_timeout(STATUS_PERIOD)
    {
        log_status(&server);
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
