//! `trading-verify`: re-derives every settled contract's result from the archived ticks by
//! the published rule and reports every mismatch (exit status 1 if any).
//!
//! ```text
//! trading-verify --data-dir ./data                 the server's data directory (server stopped)
//! trading-verify --api http://127.0.0.1:8080       a running server's public API
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use gateway::verify::{verify_api, verify_data_dir};

#[derive(Debug, Parser)]
#[command(about = "Re-derives every settled contract's result from the archived ticks.")]
struct Args {
    /// A data directory (the server must be stopped: its read model is opened).
    #[arg(long, conflicts_with = "api")]
    data_dir: Option<PathBuf>,
    /// A server's base URL, e.g. http://127.0.0.1:8080.
    #[arg(long)]
    api: Option<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let report = match (&args.data_dir, &args.api) {
        (Some(dir), None) => verify_data_dir(dir),
        (None, Some(api)) => verify_api(api),
        _ => Err("give --data-dir DIR or --api URL".into()),
    };
    match report {
        Ok(report) => {
            println!("{report}");
            if report.clean() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("trading-verify: {error}");
            ExitCode::from(2)
        }
    }
}
