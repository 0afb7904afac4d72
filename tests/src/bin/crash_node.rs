//! The child process of `tests/crash.rs`, which explains what the test catches; how an
//! acknowledged command is identified without its log index is in `tests::crash`.
//!
//! - `crash-node load <data_dir> [seed]`: recovers the pipeline, prints `RUN <applied
//!   index>`, submits whatever part of the setup the log does not hold yet, then runs
//!   [`PRODUCERS`] threads that submit orders, ticks, timers, deposits and their approvals,
//!   withdrawals and theirs, transfers and balance adjustments with `submit_blocking`.
//!   After every reply (accepted or refused: both are journaled) it prints one `ACK` line
//!   and flushes it before going on, so an acknowledgement is out of the process before a
//!   kill can land after it. Runs until killed.
//! - `crash-node verify <data_dir> <acks_file>`: recovers the pipeline, checks the
//!   engine's invariants, reads the log back record by record, replays it from scratch
//!   when it still starts at index 1 (checking the invariants after every record and the
//!   final state hash against the recovered one; once the log is truncated, it recovers a
//!   copy with the newest snapshot damaged instead, so from the older one, and compares
//!   that state hash), and checks every acknowledgement in
//!   `acks_file` against the log with `tests::crash::check`. Prints `VERIFIED ...` and
//!   exits 0, or prints the first violation and exits 1.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use engine::command::{AdminAction, Command, PlaceOrder, RequestDeposit};
use engine::types::{AccountKind, Destination, Direction, OrderId, OrderStatus, PayMethod, UserId};
use engine::{Engine, Reply, Stamp};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_decimal::Decimal;
use tests::crash::{
    check, config, digest, encode, parse_runs, producer_admin, producer_stream, producer_symbol,
    producer_user, setup_commands, stream_of, Ack, Line, LogRecord, PRODUCERS, SETUP_STREAM,
    SHORT_DURATION_SECS, USERS_PER_PRODUCER,
};
use wal::{FsStorage, Handle, Pipeline, SnapshotStore, StateMachine, Wal, WalError, WalOptions};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let arg = |n: usize| args.get(n).map(String::as_str);
    let result = match (arg(1), arg(2), arg(3)) {
        (Some("load"), Some(dir), seed) => match seed.map_or(Ok(1), str::parse) {
            Ok(seed) => load(Path::new(dir), seed),
            Err(_) => Err("the seed must be a number".to_owned()),
        },
        (Some("verify"), Some(dir), Some(acks)) => verify(Path::new(dir), Path::new(acks)),
        (Some("damage-newest-snapshot"), Some(dir), None) => damage_newest_snapshot(Path::new(dir)),
        _ => Err("usage: crash-node load <data_dir> [seed] | verify <data_dir> <acks_file>".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            println!("FAILED {message}");
            eprintln!("crash-node: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Prints one line and flushes it, so it leaves the process before the next command.
fn emit(line: Line) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
        // Nobody reads the acknowledgements any more (the test is gone): stop for good.
        std::process::exit(3);
    }
}

fn load(dir: &Path, seed: u64) -> Result<(), String> {
    let (pipeline, handle) = Pipeline::start(config(dir), Engine::new)
        .map_err(|error| format!("recovery failed: {error}"))?;
    let start_index = handle.query(|engine: &Engine| engine.applied_index()).map_err(text)?;
    emit(Line::Run { start_index });
    // The log holds exactly the first `start_index` setup commands if it holds fewer than
    // all of them: producers start only after the setup (verify checks this).
    for (seq, command) in setup_commands().into_iter().enumerate().skip(start_index as usize) {
        let digest = digest(&encode(&command));
        let reply = handle.submit_blocking(command).map_err(text)?;
        reply.map_err(|refusal| format!("setup command {seq} refused: {refusal:?}"))?;
        let ack = Ack { stream: SETUP_STREAM, seq: seq as u64, digest, refused: false };
        emit(Line::Ack(ack));
    }
    let producers: Vec<_> = (0..PRODUCERS)
        .map(|p| {
            let handle = handle.clone();
            let seed = seed.wrapping_mul(31).wrapping_add(u64::from(p) + 1);
            std::thread::spawn(move || Producer::new(p, handle, seed)?.run())
        })
        .collect();
    for producer in producers {
        producer.join().map_err(|_| "a producer panicked".to_owned())??;
    }
    pipeline.shutdown().map_err(text)
}

fn text(error: impl std::fmt::Display) -> String {
    error.to_string()
}

/// Which order a command creates, so its id can be decided on later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Creates {
    Nothing,
    Deposit,
    Withdrawal,
    /// An approved withdrawal, now processing until it is paid out or fails.
    Payout(OrderId),
}

/// One producer thread: its own users, admin and product (see `tests::crash`).
struct Producer {
    /// Which producer.
    p: u32,
    /// Into the pipeline.
    handle: Handle<Engine>,
    /// Chooses the commands.
    rng: ChaCha8Rng,
    /// Sequence number of the next acknowledgement in this run.
    seq: u64,
    /// Pending deposit orders of this producer's users.
    deposits: Vec<OrderId>,
    /// Pending withdrawal orders of this producer's users.
    withdrawals: Vec<OrderId>,
    /// Approved withdrawals being paid out.
    payouts: Vec<OrderId>,
    /// Price of this producer's product, in cents.
    price_cents: i64,
}

impl Producer {
    /// Picks up the orders earlier runs left pending.
    fn new(p: u32, handle: Handle<Engine>, seed: u64) -> Result<Producer, String> {
        let owned = move |user: UserId| (user.get() - 1) / USERS_PER_PRODUCER == p;
        let (deposits, (withdrawals, payouts)) = handle
            .query(move |engine: &Engine| {
                let deposits = engine.pending_deposits().filter(|d| owned(d.user));
                let withdrawals = engine.open_withdrawals().filter(|w| owned(w.user));
                let (pending, processing): (Vec<_>, Vec<_>) =
                    withdrawals.partition(|w| w.status == OrderStatus::Pending);
                (
                    deposits.map(|d| d.id).collect(),
                    (
                        pending.iter().map(|w| w.id).collect(),
                        processing.iter().map(|w| w.id).collect(),
                    ),
                )
            })
            .map_err(text)?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let price_cents = 100_000 + rng.gen_range(0..10_000) as i64;
        Ok(Producer { p, handle, rng, seq: 0, deposits, withdrawals, payouts, price_cents })
    }

    fn run(mut self) -> Result<(), String> {
        loop {
            let (command, creates) = self.next_command();
            let digest = digest(&encode(&command));
            let reply = self.handle.submit_blocking(command).map_err(text)?;
            match (&reply, creates) {
                (Ok(Reply::OrderCreated { order }), Creates::Deposit) => self.deposits.push(*order),
                (Ok(Reply::OrderCreated { order }), Creates::Withdrawal) => {
                    self.withdrawals.push(*order)
                }
                (Ok(_), Creates::Payout(order)) => self.payouts.push(order),
                _ => {}
            }
            let stream = producer_stream(self.p);
            emit(Line::Ack(Ack { stream, seq: self.seq, digest, refused: reply.is_err() }));
            self.seq += 1;
        }
    }

    fn user(&mut self) -> UserId {
        producer_user(self.p, self.rng.gen_range(0..u64::from(USERS_PER_PRODUCER)) as u32)
    }

    fn admin(&self, action: AdminAction) -> Command {
        Command::Admin { admin: producer_admin(self.p), action: Box::new(action) }
    }

    fn cents(&mut self, min: i64, max: i64) -> Decimal {
        Decimal::new(min + self.rng.gen_range(0..(max - min + 1) as u64) as i64, 2)
    }

    /// The mix: orders and ticks mostly, then money moving in and out and between users.
    fn next_command(&mut self) -> (Command, Creates) {
        match self.rng.gen_range(0..100) {
            0..=34 => (self.order(), Creates::Nothing),
            60..=65 if self.p == 0 => (Command::Timer, Creates::Nothing),
            35..=65 => (self.tick(), Creates::Nothing),
            66..=72 => (self.deposit(), Creates::Deposit),
            73..=79 if !self.deposits.is_empty() => (self.decide_deposit(), Creates::Nothing),
            73..=89 => (self.transfer(), Creates::Nothing),
            90..=94 => (self.withdrawal(), Creates::Withdrawal),
            95..=97 if !self.withdrawals.is_empty() => self.decide_withdrawal(),
            _ if !self.payouts.is_empty() => (self.settle_payout(), Creates::Nothing),
            _ => (self.adjust(), Creates::Nothing),
        }
    }

    fn order(&mut self) -> Command {
        let user = self.user();
        let account =
            if self.rng.gen_range(0..10) == 0 { AccountKind::Demo } else { AccountKind::Real };
        let direction = if self.rng.gen_range(0..2) == 0 { Direction::Up } else { Direction::Down };
        let stake = self.cents(100, 5_000);
        let duration_secs = if self.rng.gen_range(0..5) == 0 { 60 } else { SHORT_DURATION_SECS };
        let symbol = producer_symbol(self.p);
        Command::PlaceOrder(PlaceOrder { user, account, symbol, direction, stake, duration_secs })
    }

    fn tick(&mut self) -> Command {
        self.price_cents = (self.price_cents + self.rng.gen_range(0..201) as i64 - 100).max(1_000);
        Command::Tick {
            symbol: producer_symbol(self.p),
            price: Decimal::new(self.price_cents, 2),
            quantity: Decimal::ONE,
        }
    }

    fn deposit(&mut self) -> Command {
        Command::RequestDeposit(Box::new(RequestDeposit {
            user: self.user(),
            amount: self.cents(1_000, 50_000),
            method: PayMethod::BankTransfer,
            account_name: format!("producer {}", self.p),
            account_number: "6222".into(),
            bank_name: "Crash Bank".into(),
            receipt: "receipt.png".into(),
        }))
    }

    fn take(rng: &mut ChaCha8Rng, orders: &mut Vec<OrderId>) -> OrderId {
        orders.swap_remove(rng.gen_range(0..orders.len() as u64) as usize)
    }

    fn decide_deposit(&mut self) -> Command {
        let order = Self::take(&mut self.rng, &mut self.deposits);
        if self.rng.gen_range(0..4) == 0 {
            self.admin(AdminAction::RejectDeposit { order, remark: "no receipt".into() })
        } else {
            self.admin(AdminAction::ApproveDeposit { order })
        }
    }

    fn transfer(&mut self) -> Command {
        let from = self.user();
        let to = UserId(1 + self.rng.gen_range(0..PRODUCERS * USERS_PER_PRODUCER));
        Command::Transfer { from, to, amount: self.cents(1, 2_000) }
    }

    fn withdrawal(&mut self) -> Command {
        Command::RequestWithdrawal {
            user: self.user(),
            amount: self.cents(1_000, 10_000),
            destination: Box::new(Destination::Bank {
                name: format!("producer {}", self.p),
                number: "6222".into(),
                bank: "Crash Bank".into(),
            }),
        }
    }

    fn decide_withdrawal(&mut self) -> (Command, Creates) {
        let order = Self::take(&mut self.rng, &mut self.withdrawals);
        if self.rng.gen_range(0..3) == 0 {
            let remark = "check".into();
            (self.admin(AdminAction::RejectWithdrawal { order, remark }), Creates::Nothing)
        } else {
            (self.admin(AdminAction::ApproveWithdrawal { order }), Creates::Payout(order))
        }
    }

    fn settle_payout(&mut self) -> Command {
        let order = Self::take(&mut self.rng, &mut self.payouts);
        if self.rng.gen_range(0..4) == 0 {
            self.admin(AdminAction::FailWithdrawal { order, remark: "bank refused".into() })
        } else {
            self.admin(AdminAction::CompleteWithdrawal { order })
        }
    }

    fn adjust(&mut self) -> Command {
        let user = self.user();
        let mut delta = self.cents(1, 500);
        if self.rng.gen_range(0..2) == 0 {
            delta = -delta;
        }
        self.admin(AdminAction::AdjustBalance { user, delta, reason: "crash test".into() })
    }
}

/// A verification failure, or a log error met while reading the log back.
struct Failure(String);

impl From<WalError> for Failure {
    fn from(error: WalError) -> Self {
        Failure(format!("reading the log back: {error}"))
    }
}

fn verify(dir: &Path, acks: &Path) -> Result<(), String> {
    let text_of_acks = std::fs::read_to_string(acks)
        .map_err(|error| format!("cannot read {}: {error}", acks.display()))?;
    let runs = parse_runs(&text_of_acks)?;
    let (pipeline, handle) = Pipeline::start(config(dir), Engine::new)
        .map_err(|error| format!("recovery failed: {error}"))?;
    let recovery = pipeline.recovery().clone();
    let (applied, recovered_hash, invariants) = handle
        .query(|e: &Engine| (e.applied_index(), e.state_hash(), e.check_invariants()))
        .map_err(text)?;
    pipeline.shutdown().map_err(text)?;
    invariants
        .map_err(|error| format!("invariant broken after recovery ({recovery:?}): {error}"))?;

    let options = WalOptions::default();
    let wal = Wal::open(Arc::new(FsStorage), dir.join("wal"), options).map_err(text)?;
    let (first_index, last_index) = (wal.first_index(), wal.last_index());
    if applied != last_index {
        return Err(format!(
            "recovered engine is at index {applied}, the log ends at {last_index}"
        ));
    }
    // Only a log that still starts at 1 can be replayed without a snapshot.
    let mut replica = (first_index == 1).then(Engine::new);
    let mut log = Vec::new();
    let mut events = engine::Events::new();
    wal.replay(first_index - 1, |meta, payload| {
        let command = <Engine as StateMachine>::decode_command(payload)
            .map_err(|error| Failure(format!("index {}: {error}", meta.index)))?;
        let stream = stream_of(&command);
        log.push(LogRecord { index: meta.index, digest: digest(payload), stream });
        if let Some(engine) = replica.as_mut() {
            let stamp = Stamp { index: meta.index, time_ms: meta.time_ms };
            let _reply = engine.apply(stamp, command, &mut events);
            events.clear();
            engine.check_invariants().map_err(|error| {
                Failure(format!(
                    "replaying the log from scratch, after index {}: {error}",
                    meta.index
                ))
            })?;
        }
        Ok::<(), Failure>(())
    })
    .map_err(|Failure(message)| message)?;
    let fallback = match &replica {
        Some(engine) if engine.state_hash() != recovered_hash => {
            return Err(format!(
                "the recovered state ({recovery:?}) differs from a replay of the whole log"
            ));
        }
        Some(_) => None,
        None => recover_from_older_snapshot(dir, recovered_hash)?,
    };
    let setup: Vec<u64> = setup_commands().iter().map(|command| digest(&encode(command))).collect();
    let checked = check(&log, first_index, last_index, &setup, &runs)?;
    println!(
        "VERIFIED log=[{first_index}, {last_index}] snapshot={:?} replayed={} cut_tail_bytes={} \
         full_replay={} older_snapshot={fallback:?} runs(whole/partial/truncated)={}/{}/{} \
         acks={} refused={} unacknowledged={}",
        recovery.snapshot_index,
        recovery.records_replayed,
        recovery.wal.cut_tail_bytes,
        replica.is_some(),
        checked.runs_whole,
        checked.runs_partial,
        checked.runs_truncated,
        checked.acks,
        checked.refused,
        checked.unacknowledged,
    );
    Ok(())
}

/// When the log no longer starts at 1, the other way to the same state: on a copy of the
/// data directory, damage the newest snapshot so that recovery falls back to the older
/// one and replays a longer tail, and compare the state hashes. Returns the index of the
/// snapshot used, or `None` if there is no older snapshot to fall back to.
fn recover_from_older_snapshot(dir: &Path, recovered_hash: u64) -> Result<Option<u64>, String> {
    let copy = dir.with_extension("fallback");
    let _ = std::fs::remove_dir_all(&copy);
    copy_dir(dir, &copy).map_err(|error| format!("copying {}: {error}", dir.display()))?;
    // In a child process: sled releases its lock on the database only once its background
    // thread has stopped, which a drop does not wait for; an exit does.
    let damage = std::process::Command::new(std::env::current_exe().map_err(text)?)
        .arg("damage-newest-snapshot")
        .arg(&copy)
        .output()
        .map_err(text)?;
    let answer = String::from_utf8_lossy(&damage.stdout);
    if !damage.status.success() {
        return Err(format!("damaging the newest snapshot failed: {answer}"));
    }
    let Some((older, newest)) = answer.trim().split_once(' ') else {
        let _ = std::fs::remove_dir_all(&copy);
        return Ok(None); // fewer than two snapshots
    };
    let (older, newest): (u64, u64) = (older.parse().map_err(text)?, newest.parse().map_err(text)?);
    let (pipeline, handle) = Pipeline::start(config(&copy), Engine::new).map_err(|error| {
        format!("recovery with snapshot {newest} damaged (so from {older}) failed: {error}")
    })?;
    let recovery = pipeline.recovery().clone();
    let hash = handle.query(|engine: &Engine| engine.state_hash()).map_err(text)?;
    pipeline.shutdown().map_err(text)?;
    let _ = std::fs::remove_dir_all(&copy);
    if recovery.snapshot_index != Some(older) || hash != recovered_hash {
        return Err(format!(
            "recovery from the older snapshot ({recovery:?}) reaches a different state than \
             recovery from the newest ({newest})"
        ));
    }
    Ok(Some(older))
}

/// `damage-newest-snapshot <data_dir>`: flips a bit in the newest snapshot if there is an
/// older one, and prints `<older index> <newest index>`, or `none`.
fn damage_newest_snapshot(dir: &Path) -> Result<(), String> {
    let store = SnapshotStore::open(&dir.join("snapshots")).map_err(text)?;
    let indexes = store.indexes().map_err(text)?;
    match indexes[..] {
        [.., older, newest] => {
            store.corrupt_for_test(newest).map_err(text)?;
            println!("{older} {newest}");
        }
        _ => println!("none"),
    }
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}
