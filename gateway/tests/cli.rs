//! The `trading-server` binary as an operator runs it: its log written to a pipe.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const SERVER: &str = env!("CARGO_BIN_EXE_trading-server");

/// Starts the server with `args`, reads its log (standard error, a pipe) up to the line that
/// says it is serving, stops it, and answers the lines read.
fn log_until_serving(args: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(SERVER)
        .args(["--listen", "127.0.0.1:0", "--metrics-listen", "none"])
        .args(["--admin-password", "cli-admin-pass-1", "--data-dir"])
        .arg(dir.path())
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = Vec::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        let serving = line.contains("serving");
        lines.push(line);
        if serving {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        lines.iter().any(|l| l.contains("serving")),
        "the server never said it serves: {lines:?}"
    );
    lines
}

/// A log read through a pipe has no terminal colour codes.
#[test]
fn a_piped_text_log_has_no_colour_codes() {
    let lines = log_until_serving(&[]);
    assert!(lines.len() >= 3, "{lines:?}");
    for line in &lines {
        assert!(!line.contains('\u{1b}'), "escape code in {line:?}");
    }
}

/// `--log-format json` writes one JSON object a line, with the level and the message.
#[test]
fn the_json_log_is_one_object_a_line() {
    let lines = log_until_serving(&["--log-format", "json"]);
    for line in &lines {
        let value: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert!(value["level"].is_string() && value["fields"]["message"].is_string(), "{line}");
    }
    let status = Command::new(SERVER).args(["--log-format", "xml"]).output().unwrap();
    assert_eq!(status.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&status.stderr).contains("use text or json"));
}

/// A taken HTTP port stops the start at once, with the address in the message, before the
/// core has recovered or written anything.
#[test]
fn a_taken_port_fails_the_start_and_names_the_address() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(SERVER)
        .args(["--listen", &address, "--metrics-listen", "none"])
        .args(["--admin-password", "cli-admin-pass-1", "--data-dir"])
        .arg(dir.path())
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(log.contains(&format!("cannot listen on {address}")), "{log}");
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "the data directory was written"
    );
}
