//! What the `crash-node` child and `tests/crash.rs` share.
//!
//! # How an acknowledged command is found again after a crash
//!
//! The engine's reply does not carry the command's log index, so the child cannot say
//! "index 1234 was acknowledged". Instead every command is *attributable*:
//!
//! - the first [`setup_commands`]`().len()` records of the log are the setup, always: the
//!   child submits the producers' commands only once the setup is complete, and on restart
//!   it submits the missing tail of the setup (the recovered applied index says how much of
//!   it the log holds). Setup record `i` sits at index `i + 1`;
//! - after the setup, each producer thread `p` is the only one to send commands naming its
//!   own users ([`producer_user`]) as actor, its own admin ([`producer_admin`]), its own
//!   product ([`producer_symbol`]); `Timer` belongs to producer 0. [`stream_of`] reads the
//!   producer back from a decoded record.
//!
//! A producer submits one command at a time (`submit_blocking`), so its commands reach the
//! log in the order it sent them, and at most one is in flight when the process dies. Each
//! acknowledgement line carries the producer, its sequence number within the run and a
//! digest of the command's journal bytes ([`digest`] of [`encode`]). After a crash the
//! records a producer left in the log during a run must therefore be *exactly* its
//! acknowledged commands, in order, plus at most one more (the one in flight, durable but
//! not acknowledged). Fewer means an acknowledged command was lost; a different one means
//! the log holds something nobody sent; an unattributable record means the same.
//!
//! A run is one life of the child. It prints `RUN <applied index after recovery>` before
//! anything else, so a run owns the log range `(its start, next run's start]`; the last run
//! owns everything after its start.
//!
//! Segments behind a durable snapshot may be deleted. A run whose records were all deleted
//! was checked by an earlier `verify`; for a run whose start was deleted, each producer's
//! surviving records must be a suffix of its acknowledged ones (plus at most the one in
//! flight).

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use engine::command::{AdminAction, Command, Register, RequestDeposit};
use engine::types::{
    AdminId, Category, MarketHours, OrderId, PayMethod, Role, Rule, Symbol, UserId,
};
use engine::{invite_code_for, Engine};
use rust_decimal::Decimal;

/// Producer threads of the child.
pub const PRODUCERS: u32 = 4;
/// Users each producer owns.
pub const USERS_PER_PRODUCER: u32 = 3;
/// The bootstrap admin, used only by the setup.
pub const SETUP_ADMIN: AdminId = AdminId(1);
/// Duration of the short rule the setup adds, so contracts settle within the test.
pub const SHORT_DURATION_SECS: u32 = 5;
/// Small segments so that the log rolls (and a kill can land around a roll).
pub const SEGMENT_SIZE_MAX_BYTES: u64 = 128 * 1024;
/// Frequent snapshots so that recovery goes through sled and the log gets truncated.
pub const SNAPSHOT_EVERY_COMMANDS: u64 = 300;

/// The pipeline configuration of both modes of the child.
pub fn config(data_dir: &Path) -> wal::Config {
    let mut config = wal::Config::new(data_dir);
    config.segment_size_max_bytes = SEGMENT_SIZE_MAX_BYTES;
    config.snapshot_every_commands = SNAPSHOT_EVERY_COMMANDS;
    config
}

/// The stream of the setup commands in ack lines.
pub const SETUP_STREAM: u32 = 0;

/// The stream of producer `p` in ack lines.
pub fn producer_stream(p: u32) -> u32 {
    p + 1
}

/// The admin producer `p` acts as (an operator created by the setup).
pub fn producer_admin(p: u32) -> AdminId {
    AdminId(p + 2)
}

/// User `j` of producer `p`.
pub fn producer_user(p: u32, j: u32) -> UserId {
    UserId(1 + p * USERS_PER_PRODUCER + j)
}

/// The product only producer `p` ticks and trades.
pub fn producer_symbol(p: u32) -> Symbol {
    Symbol::new(&format!("CRASH{p}")).expect("valid code")
}

/// The world, as a fixed list of commands: admin, house capital, a short rule, one product
/// and one operator per producer, users (the second and third invited by the first, so
/// referral rewards move money too), each funded by an approved deposit. Deterministic, so
/// a restart can submit exactly the part the log does not hold yet.
pub fn setup_commands() -> Vec<Command> {
    let admin = |action| Command::Admin { admin: SETUP_ADMIN, action: Box::new(action) };
    let mut setup = vec![
        Command::BootstrapAdmin { username: "root".into(), password_hash: "hash".into() },
        admin(AdminAction::FundHouse { amount: Decimal::from(10_000_000) }),
        admin(AdminAction::SetRule(Rule {
            duration_secs: SHORT_DURATION_SECS,
            payout_rate: Decimal::new(85, 2),
            stake_min: Decimal::ONE,
            stake_max: Decimal::from(5_000),
            fee_rate: Decimal::new(1, 3),
            enabled: true,
        })),
    ];
    for p in 0..PRODUCERS {
        setup.push(admin(AdminAction::UpsertProduct {
            symbol: producer_symbol(p),
            name: format!("Crash {p}"),
            category: Category::Crypto,
            precision: 2,
            enabled: true,
            hours: MarketHours::Always,
        }));
        setup.push(admin(AdminAction::CreateAdmin {
            username: format!("operator{p}"),
            password_hash: "hash".into(),
            role: Role::Operations,
        }));
    }
    let users = (0..PRODUCERS).flat_map(|p| (0..USERS_PER_PRODUCER).map(move |j| (p, j)));
    for (p, j) in users.clone() {
        let name = format!("user{p}x{j}");
        setup.push(Command::Register(Box::new(Register {
            email: Some(format!("{name}@example.com")),
            username: name,
            password_hash: Some("hash".into()),
            wallet: None,
            invite_code: (j > 0).then(|| invite_code_for(producer_user(p, 0))),
            email_verified: true,
        })));
    }
    // Order ids are handed out from 1 in sequence, and the setup is the start of the log.
    for (order, (p, j)) in (1..).zip(users) {
        setup.push(Command::RequestDeposit(Box::new(RequestDeposit {
            user: producer_user(p, j),
            amount: Decimal::from(10_000),
            method: PayMethod::UsdtTrc20,
            account_name: "crash".into(),
            account_number: "TXYZ".into(),
            bank_name: String::new(),
            receipt: "r.png".into(),
        })));
        setup.push(admin(AdminAction::ApproveDeposit { order: OrderId(order) }));
    }
    setup
}

/// The producer stream that sent `command` after the setup, or `None` if no producer
/// sends such a command.
pub fn stream_of(command: &Command) -> Option<u32> {
    let of_user = |user: UserId| {
        let p = user.0.checked_sub(1)? / USERS_PER_PRODUCER;
        (p < PRODUCERS).then(|| producer_stream(p))
    };
    match command {
        Command::Admin { admin, .. } => {
            let p = admin.0.checked_sub(producer_admin(0).into())?;
            (p < PRODUCERS).then(|| producer_stream(p))
        }
        Command::PlaceOrder(order) => of_user(order.user),
        Command::RequestDeposit(deposit) => of_user(deposit.user),
        Command::RequestWithdrawal { user, .. } => of_user(*user),
        Command::Transfer { from, .. } => of_user(*from),
        Command::Tick { symbol, .. } => {
            (0..PRODUCERS).find(|&p| producer_symbol(p) == *symbol).map(producer_stream)
        }
        Command::Timer => Some(producer_stream(0)),
        _ => None,
    }
}

/// The journal form of `command`: exactly the payload the log stores for it.
pub fn encode(command: &Command) -> Vec<u8> {
    let mut out = Vec::new();
    <Engine as wal::StateMachine>::encode_command(command, &mut out);
    out
}

/// FNV-1a over `bytes`: stable across processes and builds.
pub fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// One acknowledged command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ack {
    /// [`SETUP_STREAM`] or [`producer_stream`].
    pub stream: u32,
    /// Position in the setup, or the producer's sequence number within the run (from 0).
    pub seq: u64,
    /// [`digest`] of the command's journal bytes.
    pub digest: u64,
    /// The engine refused it (refused commands are journaled all the same).
    pub refused: bool,
}

/// One line of the child's standard output in `load` mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// A run started; the log held this many applied records after recovery.
    Run {
        /// Applied index after recovery.
        start_index: u64,
    },
    /// A command's reply arrived, so it is durable.
    Ack(Ack),
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Line::Run { start_index } => write!(f, "RUN {start_index}"),
            Line::Ack(Ack { stream, seq, digest, refused }) => {
                let outcome = if *refused { "refused" } else { "ok" };
                write!(f, "ACK {stream} {seq} {digest:016x} {outcome}")
            }
        }
    }
}

impl Line {
    /// Reads one line as printed by `Display` (without its newline).
    pub fn parse(line: &str) -> Result<Line, String> {
        let bad = || format!("malformed line {line:?}");
        let fields: Vec<&str> = line.split(' ').collect();
        match fields.as_slice() {
            ["RUN", start] => Ok(Line::Run { start_index: start.parse().map_err(|_| bad())? }),
            ["ACK", stream, seq, digest, outcome] => Ok(Line::Ack(Ack {
                stream: stream.parse().map_err(|_| bad())?,
                seq: seq.parse().map_err(|_| bad())?,
                digest: u64::from_str_radix(digest, 16).map_err(|_| bad())?,
                refused: match *outcome {
                    "ok" => false,
                    "refused" => true,
                    _ => return Err(bad()),
                },
            })),
            _ => Err(bad()),
        }
    }
}

/// One life of the child and what it acknowledged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Run {
    /// Applied index after recovery: the run's records come after it.
    pub start_index: u64,
    /// Acknowledgements in the order they were printed.
    pub acks: Vec<Ack>,
}

/// Splits the concatenated output of every run into runs. Every line must be complete.
pub fn parse_runs(text: &str) -> Result<Vec<Run>, String> {
    let mut runs: Vec<Run> = Vec::new();
    for line in text.lines().filter(|line| !line.is_empty()) {
        match Line::parse(line)? {
            Line::Run { start_index } => runs.push(Run { start_index, acks: Vec::new() }),
            Line::Ack(ack) => {
                let run = runs.last_mut().ok_or("an ACK line before any RUN line")?;
                run.acks.push(ack);
            }
        }
    }
    Ok(runs)
}

/// One record read back from the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord {
    /// Its index.
    pub index: u64,
    /// [`digest`] of its payload.
    pub digest: u64,
    /// [`stream_of`] its decoded command.
    pub stream: Option<u32>,
}

/// What [`check`] covered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checked {
    /// Runs whose whole range the log still holds: checked exactly.
    pub runs_whole: usize,
    /// Runs whose start was truncated behind a snapshot: checked as suffixes.
    pub runs_partial: usize,
    /// Runs entirely behind the log's first index (checked by an earlier verify).
    pub runs_truncated: usize,
    /// Acknowledgements checked.
    pub acks: usize,
    /// Of them, refused by the engine.
    pub refused: usize,
    /// Records in the log that were durable but never acknowledged (in flight at the kill).
    pub unacknowledged: usize,
}

/// Checks the log against the setup and every run's acknowledgements; see the module doc.
/// `log` holds every record from `first_index` to `last_index`.
pub fn check(
    log: &[LogRecord],
    first_index: u64,
    last_index: u64,
    setup: &[u64],
    runs: &[Run],
) -> Result<Checked, String> {
    for (position, record) in log.iter().enumerate() {
        if record.index != first_index + position as u64 {
            return Err(format!(
                "log is not contiguous: position {position} holds index {} (first index {first_index})",
                record.index
            ));
        }
    }
    if first_index + log.len() as u64 != last_index + 1 {
        return Err(format!(
            "log holds {} records from {first_index}, but its last index is {last_index}",
            log.len()
        ));
    }
    let setup_len = setup.len() as u64;
    for record in log {
        if record.index <= setup_len {
            if record.digest != setup[(record.index - 1) as usize] {
                return Err(format!(
                    "index {} is not setup command {}: the setup was not resumed where the log left it",
                    record.index,
                    record.index - 1
                ));
            }
        } else if record.stream.is_none() {
            return Err(format!("index {} holds a command no producer sends", record.index));
        }
    }
    let mut previous_start = 0;
    for (r, run) in runs.iter().enumerate() {
        if run.start_index < previous_start || run.start_index > last_index {
            return Err(format!(
                "run {r} started after index {} but the previous run started after {previous_start} \
                 and the log ends at {last_index}: recovered records were lost",
                run.start_index
            ));
        }
        previous_start = run.start_index;
    }
    let mut checked = Checked::default();
    for (r, run) in runs.iter().enumerate() {
        let end = runs.get(r + 1).map_or(last_index, |next| next.start_index);
        check_run(r, run, end, log, first_index, last_index, setup, &mut checked)?;
    }
    Ok(checked)
}

/// Checks one run, which owns the log range `(run.start_index, end]`.
#[allow(clippy::too_many_arguments)]
fn check_run(
    r: usize,
    run: &Run,
    end: u64,
    log: &[LogRecord],
    first_index: u64,
    last_index: u64,
    setup: &[u64],
    checked: &mut Checked,
) -> Result<(), String> {
    let mut acked: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for ack in &run.acks {
        checked.acks += 1;
        checked.refused += usize::from(ack.refused);
        if ack.stream == SETUP_STREAM {
            let index = ack.seq + 1;
            let expected = setup.get(ack.seq as usize);
            if expected != Some(&ack.digest) || index <= run.start_index || index > end {
                return Err(format!(
                    "run {r}: acknowledged setup command {} does not sit at index {index} in \
                     ({}, {end}] (log ends at {last_index}): lost or misplaced",
                    ack.seq, run.start_index
                ));
            }
            continue;
        }
        let list = acked.entry(ack.stream).or_default();
        if ack.seq != list.len() as u64 {
            return Err(format!("run {r}: stream {} acks out of order at {}", ack.stream, ack.seq));
        }
        list.push(ack.digest);
    }
    if end < first_index || end <= run.start_index {
        checked.runs_truncated += usize::from(end < first_index);
        return Ok(());
    }
    let whole = run.start_index + 1 >= first_index;
    let from = (run.start_index + 1).max(first_index);
    let range = &log[(from - first_index) as usize..=(end - first_index) as usize];
    let mut seen: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for record in range.iter().filter(|record| record.index > setup.len() as u64) {
        let stream = record.stream.expect("checked by the caller");
        seen.entry(stream).or_default().push(record.digest);
    }
    let streams: std::collections::BTreeSet<u32> =
        acked.keys().chain(seen.keys()).copied().collect();
    for stream in streams {
        let acks = acked.get(&stream).map_or(&[][..], Vec::as_slice);
        let found = seen.get(&stream).map_or(&[][..], Vec::as_slice);
        let extra = match_stream(acks, found, whole)
            .ok_or_else(|| describe_mismatch(r, stream, acks, found, whole, from, end))?;
        checked.unacknowledged += extra;
    }
    if whole {
        checked.runs_whole += 1;
    } else {
        checked.runs_partial += 1;
    }
    Ok(())
}

/// How many unacknowledged records follow the acknowledged ones (0 or 1), if `found` is
/// `acks` (or, when the run's start was truncated, a suffix of it) plus at most one more.
fn match_stream(acks: &[u64], found: &[u64], whole: bool) -> Option<usize> {
    (0..=1usize).find(|&extra| {
        let Some(matched) = found.len().checked_sub(extra) else { return false };
        if matched > acks.len() || (whole && matched != acks.len()) {
            return false;
        }
        found[..matched] == acks[acks.len() - matched..]
    })
}

fn describe_mismatch(
    r: usize,
    stream: u32,
    acks: &[u64],
    found: &[u64],
    whole: bool,
    from: u64,
    end: u64,
) -> String {
    let what = if found.len() > acks.len() + 1 {
        "more unacknowledged records than the one command in flight"
    } else if whole && found.len() < acks.len() && found == &acks[..found.len()] {
        "its last acknowledged commands are missing"
    } else {
        "its records are not its acknowledged commands plus at most one in flight \
         (an acknowledged command was lost or changed, or a foreign one appeared)"
    };
    let last_ack_found_at = acks.last().and_then(|last| found.iter().rposition(|f| f == last));
    format!(
        "run {r}, stream {stream}: {what}: {} acknowledged, {} of its records in [{from}, {end}] \
         ({}); the last acknowledged one is at position {last_ack_found_at:?} among them",
        acks.len(),
        found.len(),
        if whole { "whole run" } else { "start truncated behind a snapshot" },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(stream: u32, seq: u64, digest: u64) -> Ack {
        Ack { stream, seq, digest, refused: false }
    }

    fn record(index: u64, digest: u64, stream: u32) -> LogRecord {
        LogRecord { index, digest, stream: Some(stream) }
    }

    /// Setup of two commands (digests 100, 101), then one run of producer stream 1.
    fn world() -> (Vec<LogRecord>, Vec<u64>, Vec<Run>) {
        let setup = vec![100, 101];
        let log = vec![record(1, 100, 0), record(2, 101, 0), record(3, 7, 1), record(4, 8, 1)];
        let acks = vec![ack(0, 0, 100), ack(0, 1, 101), ack(1, 0, 7), ack(1, 1, 8)];
        (log, setup, vec![Run { start_index: 0, acks }])
    }

    #[test]
    fn a_faithful_log_passes_with_one_command_in_flight() {
        let (mut log, setup, runs) = world();
        assert!(check(&log, 1, 4, &setup, &runs).is_ok());
        log.push(record(5, 9, 1));
        assert_eq!(check(&log, 1, 5, &setup, &runs).unwrap().unacknowledged, 1);
    }

    #[test]
    fn a_lost_acknowledged_command_fails() {
        let (mut log, setup, runs) = world();
        log.pop();
        let error = check(&log, 1, 3, &setup, &runs).unwrap_err();
        assert!(error.contains("missing"), "{error}");
    }

    #[test]
    fn a_changed_or_foreign_record_fails() {
        let (mut log, setup, runs) = world();
        log[2].digest = 70;
        assert!(check(&log, 1, 4, &setup, &runs).is_err());
        let (mut log, setup, runs) = world();
        log[3].stream = None;
        assert!(check(&log, 1, 4, &setup, &runs).is_err());
        let (mut log, setup, runs) = world();
        log.extend([record(5, 9, 1), record(6, 10, 1)]);
        assert!(check(&log, 1, 6, &setup, &runs).is_err(), "two unacknowledged records");
    }

    #[test]
    fn a_lost_setup_command_or_a_shrunk_log_fails() {
        let (log, setup, mut runs) = world();
        runs[0].acks.truncate(2);
        runs.push(Run { start_index: 5, acks: vec![] });
        assert!(check(&log, 1, 4, &setup, &runs).is_err(), "run started past the log's end");
        let (log, setup, mut runs) = world();
        runs[0].acks.push(ack(0, 2, 102));
        assert!(check(&log, 1, 4, &setup, &runs).is_err(), "setup ack beyond the setup");
    }

    #[test]
    fn a_truncated_start_is_checked_as_a_suffix() {
        let (log, setup, runs) = world();
        let tail = &log[3..];
        assert_eq!(check(tail, 4, 4, &setup, &runs).unwrap().runs_partial, 1);
        // One unknown record may be the command in flight at the kill, with every
        // acknowledged one behind the truncation; two cannot.
        let wrong = [record(4, 9, 1), record(5, 8, 1)];
        assert!(check(&wrong, 4, 5, &setup, &runs).is_err());
    }

    #[test]
    fn lines_round_trip() {
        for line in [Line::Run { start_index: 42 }, Line::Ack(ack(3, 9, 0xdead_beef))] {
            assert_eq!(Line::parse(&line.to_string()), Ok(line));
        }
        assert!(Line::parse("ACK 1 2").is_err());
    }
}
