//! `trading-server`: runs the platform on its data directory.
//!
//! Options (flag, then environment variable, then default):
//! - `--data-dir DIR` / `TRADING_DATA_DIR` / `./data`
//! - `--admin-username NAME` / `TRADING_ADMIN_USERNAME` / `admin`
//! - `--admin-password PASS` / `TRADING_ADMIN_PASSWORD` / generated and printed once

use std::path::PathBuf;
use std::process::ExitCode;

use gateway::node::{Node, NodeConfig};
use tracing_subscriber::EnvFilter;

const HELP: &str = "trading-server: the trading platform's server

USAGE: trading-server [OPTIONS]

OPTIONS (flag, environment variable, default):
  --data-dir DIR          TRADING_DATA_DIR         ./data
  --admin-username NAME   TRADING_ADMIN_USERNAME   admin
  --admin-password PASS   TRADING_ADMIN_PASSWORD   generated at first start and printed once
  -h, --help              print this help

Logs go to standard error; set RUST_LOG (e.g. RUST_LOG=debug) to change the level.";

fn option(args: &[String], flag: &str, env: &str) -> Result<Option<String>, String> {
    if let Some(at) = args.iter().position(|a| a == flag) {
        return args.get(at + 1).cloned().map(Some).ok_or_else(|| format!("{flag} needs a value"));
    }
    Ok(std::env::var(env).ok().filter(|v| !v.is_empty()))
}

fn config(args: &[String]) -> Result<NodeConfig, String> {
    let known = ["--data-dir", "--admin-username", "--admin-password"];
    let mut i = 0;
    while i < args.len() {
        if !known.contains(&args[i].as_str()) {
            return Err(format!("unknown option {}", args[i]));
        }
        i += 2;
    }
    Ok(NodeConfig {
        data_dir: PathBuf::from(
            option(args, "--data-dir", "TRADING_DATA_DIR")?.unwrap_or_else(|| "data".into()),
        ),
        admin_username: option(args, "--admin-username", "TRADING_ADMIN_USERNAME")?
            .unwrap_or_else(|| "admin".into()),
        admin_password: option(args, "--admin-password", "TRADING_ADMIN_PASSWORD")?,
    })
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
    tracing::info!(data_dir = %config.data_dir.display(), "starting");
    let (node, startup) = match Node::start(config.clone()) {
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
            "first admin created: username `{}` password `{password}` (shown once; change it)",
            config.admin_username
        );
    }
    let stats = node
        .handle()
        .query(|e: &engine::Engine| (e.user_count(), e.open_contract_count(), e.applied_index()));
    if let Ok((users, open, index)) = stats {
        tracing::info!(
            users,
            open_contracts = open,
            log_index = index,
            "serving; press Ctrl-C to stop"
        );
    }
    let _ = stop_rx.recv();
    tracing::info!("shutting down: draining the queue and syncing the log");
    match node.shutdown() {
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
