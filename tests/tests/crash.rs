//! Crash consistency of the durable core: `kill -9` under load, restart, check.
//!
//! A child process (`crash-node load`) runs the real pipeline (queue → journal with group
//! commit and fdatasync → engine, with snapshots in sled and small log segments) on a data
//! directory, four producer threads submitting a mix of orders, ticks, timers, deposits,
//! withdrawals, approvals, transfers and adjustments. It prints one line per reply. This
//! test waits until a random number of replies has come out (or, sometimes, kills it right
//! after start, during recovery or setup), sends SIGKILL, and runs `crash-node verify` on
//! the same directory, which must succeed. The directory is kept across iterations, so
//! every start recovers what a killed start or a killed recovery left.
//!
//! The bug classes it catches:
//! - lost acknowledged commands: a reply sent before the batch was written (a batch handed
//!   to the engine before `append` returned, a reply from the journal thread), a recovery
//!   that cuts whole valid records, a segment roll or a truncation behind a snapshot that
//!   drops records, a restart that appends over the old tail or restarts the indexes, a
//!   resumed start that re-submits or skips commands;
//! - torn tails: a kill in the middle of a write leaves a partial record; since SIGKILL
//!   rarely tears a small write on Linux, one round in [`TORN_TAIL_ONE_IN`] also appends a
//!   torn write to the newest segment after the kill (zeros, or a cut-short record), which
//!   recovery must cut rather than refuse to start or mistake for a record; recovery of a
//!   recovery must work too;
//! - commands appearing that nobody sent or acknowledged beyond the one in flight per
//!   producer, and indexes that are not contiguous;
//! - money not conserved after recovery: `check_invariants` (users + house = approved
//!   deposits - paid withdrawals + seed capital, no negative balance, counters match open
//!   contracts and orders) on the recovered state and, while the log still starts at
//!   index 1, after every record of a replay from scratch;
//! - a recovered state (newest sled snapshot + log tail) that differs from that replay or,
//!   once segments were truncated behind snapshots, from a recovery of a copy whose newest
//!   snapshot is damaged (older snapshot + longer tail): a snapshot that does not match
//!   the index it was saved under, a tail replayed twice or skipped, a truncation past the
//!   oldest kept snapshot.
//!
//! What it cannot catch: a missing or misplaced `fdatasync`. The page cache outlives a
//! killed process, so only a power loss shows that; `wal`'s own tests cover it with
//! `FaultyStorage`.
//!
//! How acknowledged commands are identified without their log index is explained in
//! `tests/src/crash.rs`. Set `CRASH_SEED` to replay the same kill points and command mix
//! (the timing of a kill still varies), `CRASH_ITERATIONS` for more rounds (default 20).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The child binary, built by cargo for this test.
const CHILD: &str = env!("CARGO_BIN_EXE_crash-node");
/// Rounds unless `CRASH_ITERATIONS` says otherwise.
const ITERATIONS_DEFAULT: u64 = 20;
/// Most replies to wait for before a kill.
const KILL_AFTER_ACKS_MAX: u64 = 800;
/// One round in this many kills at a random moment right after the start instead.
const EARLY_KILL_ONE_IN: u64 = 8;
/// Longest random delay of an early kill.
const EARLY_KILL_DELAY_MAX_MICROS: u64 = 30_000;
/// Longest random delay between the awaited reply and the kill.
const LATE_KILL_DELAY_MAX_MICROS: u64 = 1_000;
/// A child that prints nothing for this long is stuck: fail rather than hang.
const PROGRESS_TIMEOUT: Duration = Duration::from_secs(60);
/// One round in this many appends a torn write to the log after the kill.
const TORN_TAIL_ONE_IN: u64 = 4;
/// Longest torn write appended, in bytes.
const TORN_TAIL_MAX_BYTES: u64 = 4_096;

#[test]
fn kill_nine_under_load_loses_no_acknowledged_command() {
    let iterations = env_u64("CRASH_ITERATIONS").unwrap_or(ITERATIONS_DEFAULT);
    let seed = env_u64("CRASH_SEED").unwrap_or_else(fresh_seed);
    eprintln!("crash test: CRASH_SEED={seed} CRASH_ITERATIONS={iterations}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let temp = tempfile::tempdir().expect("temp dir");
    let data = temp.path().join("data");
    let acks_path = temp.path().join("acks.log");
    let mut acks_file = std::fs::File::create(&acks_path).expect("acks file");
    let started = Instant::now();
    let mut acks_total = 0;
    let mut torn_total = 0;
    for iteration in 0..iterations {
        let kill = KillPoint::draw(&mut rng);
        let lines = run_until_killed(&data, &kill, rng.next_u64());
        acks_total += lines.iter().filter(|line| line.starts_with("ACK ")).count();
        for line in &lines {
            writeln!(acks_file, "{line}").expect("write acks");
        }
        acks_file.flush().expect("flush acks");
        let torn =
            if rng.gen_range(0..TORN_TAIL_ONE_IN) == 0 { tear_tail(&data, &mut rng) } else { 0 };
        let verdict = verify(&data, &acks_path);
        eprintln!("#{iteration} {kill:?} torn={torn}: {} lines; {verdict}", lines.len());
        let cut = field(&verdict, "cut_tail_bytes=");
        assert!(cut >= torn, "recovery cut {cut} bytes, less than the {torn} torn ones appended");
        torn_total += u64::from(torn > 0);
    }
    eprintln!(
        "crash test: {acks_total} acks over {iterations} kills, {torn_total} torn tails, in {:?}",
        started.elapsed()
    );
    assert!(iterations == 0 || acks_total > 0, "the child never acknowledged anything");
}

/// Appends what a write cut short leaves to the newest segment: zeros (the file grew but the
/// data never reached it) or a strict prefix of a framed record. Returns the bytes appended
/// (0 if the log has no segment yet).
fn tear_tail(data: &Path, rng: &mut ChaCha8Rng) -> u64 {
    let dir = data.join("wal");
    let Ok(entries) = std::fs::read_dir(&dir) else { return 0 };
    let segments = entries.filter_map(|entry| Some(entry.ok()?.path()));
    let newest = segments.filter(|path| path.extension().is_some_and(|ext| ext == "wal")).max();
    let Some(newest) = newest else { return 0 };
    let torn = if rng.gen_range(0..2) == 0 {
        vec![0; 1 + rng.gen_range(0..TORN_TAIL_MAX_BYTES) as usize]
    } else {
        let payload: Vec<u8> =
            (0..1 + rng.gen_range(0..200)).map(|_| rng.next_u64() as u8).collect();
        let meta = wal::Meta { term: 1, index: rng.next_u64() >> 1, time_ms: 0 };
        let mut framed = Vec::new();
        wal::record::encode(meta, &payload, &mut framed).expect("small record");
        framed.truncate(1 + rng.gen_range(0..framed.len() as u64 - 1) as usize);
        framed
    };
    let mut file = std::fs::OpenOptions::new().append(true).open(&newest).expect("open segment");
    file.write_all(&torn).expect("append torn write");
    torn.len() as u64
}

/// The number after `key` in a `VERIFIED` summary.
fn field(summary: &str, key: &str) -> u64 {
    let at = summary.find(key).unwrap_or_else(|| panic!("no {key} in {summary:?}")) + key.len();
    let digits: String = summary[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or_else(|_| panic!("bad {key} in {summary:?}"))
}

/// When to kill the child.
#[derive(Debug)]
enum KillPoint {
    /// This long after the start, whatever it is doing (recovery, setup, load).
    Early { delay_micros: u64 },
    /// This long after it printed this many acknowledgements.
    AfterAcks { acks: u64, delay_micros: u64 },
}

impl KillPoint {
    fn draw(rng: &mut ChaCha8Rng) -> KillPoint {
        if rng.gen_range(0..EARLY_KILL_ONE_IN) == 0 {
            KillPoint::Early { delay_micros: rng.gen_range(0..EARLY_KILL_DELAY_MAX_MICROS) }
        } else {
            let acks = 1 + rng.gen_range(0..KILL_AFTER_ACKS_MAX);
            KillPoint::AfterAcks {
                acks,
                delay_micros: rng.gen_range(0..LATE_KILL_DELAY_MAX_MICROS),
            }
        }
    }
}

/// Starts `load`, kills it at `kill`, and returns every complete line it printed.
fn run_until_killed(data: &Path, kill: &KillPoint, child_seed: u64) -> Vec<String> {
    let mut child = Command::new(CHILD)
        .arg("load")
        .arg(data)
        .arg(child_seed.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn crash-node load");
    let lines = read_lines(&mut child);
    let mut collected = Vec::new();
    match *kill {
        KillPoint::Early { delay_micros } => {
            std::thread::sleep(Duration::from_micros(delay_micros));
        }
        KillPoint::AfterAcks { acks, delay_micros } => {
            let mut seen = 0;
            while seen < acks {
                let line = match lines.recv_timeout(PROGRESS_TIMEOUT) {
                    Ok(line) => line,
                    Err(error) => {
                        let _ = child.kill();
                        let status = child.wait();
                        panic!("load stopped before {acks} acks ({error:?}, {status:?}); output: {collected:?}")
                    }
                };
                seen += u64::from(line.starts_with("ACK "));
                collected.push(line);
            }
            std::thread::sleep(Duration::from_micros(delay_micros));
        }
    }
    child.kill().expect("SIGKILL the child");
    let status = child.wait().expect("reap the child");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "the child must die of the kill, not before: {status:?}; output: {collected:?}"
    );
    // The pipe keeps what the child wrote before it died; its end is the end of the output.
    collected.extend(lines.iter());
    collected
}

/// Forwards the child's complete stdout lines; a partial last line (cut by the kill in the
/// middle of a write) is dropped: it was never a whole acknowledgement.
fn read_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let stdout = child.stdout.take().expect("piped stdout");
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        while reader.read_line(&mut line).is_ok_and(|read| read > 0) {
            if let Some(complete) = line.strip_suffix('\n') {
                if sender.send(complete.to_owned()).is_err() {
                    return;
                }
            }
            line.clear();
        }
    });
    receiver
}

/// Runs `verify`, asserts it passed, and returns its summary line.
fn verify(data: &Path, acks: &Path) -> String {
    let output = Command::new(CHILD)
        .arg("verify")
        .arg(data)
        .arg(acks)
        .output()
        .expect("run crash-node verify");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "verify failed ({}):\n{stdout}{stderr}\nacks: {}",
        output.status,
        std::fs::read_to_string(acks).map(|text| tail(&text)).unwrap_or_default()
    );
    stdout.trim().to_owned()
}

/// The last lines of the acks file, for a failure message.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

fn env_u64(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(value.parse().unwrap_or_else(|_| panic!("{name} must be a number, not {value:?}")))
}

/// A seed that differs from run to run (printed, so a failure can be replayed).
fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.subsec_nanos());
    u64::from(nanos) ^ (u64::from(std::process::id()) << 32)
}
