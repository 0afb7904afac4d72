//! The core bench binary. Each mode prints one line per run and a median.
//!
//! ```text
//! cargo run --release -p benches --bin core-bench -- engine-mix    [users] [open] [commands] [runs]
//! cargo run --release -p benches --bin core-bench -- engine-mix-copy [users] [open] [commands] [runs] [leaders] [followers per leader]
//! cargo run --release -p benches --bin core-bench -- engine-mix-social [users] [open] [commands] [runs] [leaders] [followers per leader] [tournament players]
//! cargo run --release -p benches --bin core-bench -- engine-shards [shards] [users] [open] [commands] [runs]
//! cargo run --release -p benches --bin core-bench -- settle-burst  [contracts] [runs]
//! cargo run --release -p benches --bin core-bench -- snapshot      [users] [open] [runs]
//! cargo run --release -p benches --bin core-bench -- snapshot-pause [users] [open] [runs]
//! cargo run --release -p benches --bin core-bench -- fsync         [appends] [runs] [mib]
//! cargo run --release -p benches --bin core-bench -- fsync-busy    [appends] [runs] [spinners]
//! cargo run --release -p benches --bin core-bench -- pipeline-throughput [producers] [commands] [runs] [in_flight] [users]
//! cargo run --release -p benches --bin core-bench -- pipeline-latency    [rate] [seconds] [runs] [submitters] [users]
//! cargo run --release -p benches --bin core-bench -- replicated-throughput [producers] [commands] [runs] [in_flight] [users]
//! cargo run --release -p benches --bin core-bench -- replicated-latency    [rate] [seconds] [runs] [submitters] [users]
//! cargo run --release -p benches --bin core-bench -- recovery      [users] [open] [records] [runs]
//! cargo run --release -p benches --bin core-bench -- recovery-fresh [users] [open] [records] [runs]
//! ```
//!
//! The durable modes create their data directories under `$CORE_BENCH_DIR` (default: the
//! system temp dir); the fsync baseline runs in the same place, so on the same disk. They take
//! no snapshot unless `$CORE_BENCH_SNAPSHOT_EVERY` sets a period in commands. With
//! `$CORE_BENCH_KEEP` set, `recovery-fresh` keeps its prepared directory for `recover-once`.

// Rates and latencies are reported as floats; no money is computed here.
#![allow(clippy::float_arithmetic)]

/// The server's allocator (gateway's `main.rs`), so that the pipeline is measured as it runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use engine::types::UserId;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use benches::durable::{
    bench_dir, config, dir_size, fsync_appends, fsync_overwrites, fsync_throughput,
    latency_histogram, mix_commands, ms, produce, seed_snapshot, start, LocalCluster, Produced,
    SmallSyncs, WaitPolicy,
};
use benches::{apply_all, mix, symbol, World, PRODUCTS};
use engine::command::Command;
use engine::{Engine, Events, Reply, Stamp};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rust_decimal::Decimal;
use wal::{
    FsStorage, PipelineError, SnapshotStore, StateMachine, Ticket, Wal, WalError, WalOptions,
};

fn arg(args: &[String], at: usize, default: u64) -> u64 {
    args.get(at).and_then(|a| a.replace('_', "").parse().ok()).unwrap_or(default)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

/// Engine apply on the standard mix with `users` accounts and `open` open contracts.
fn engine_mix(args: &[String]) {
    mix_runs(args, None, 0);
}

/// The standard mix with copy trading set up: `leaders` traders (10 by default) each copied
/// by `followers` others (100), to compare with `engine-mix` in the same session.
fn engine_mix_copy(args: &[String]) {
    mix_runs(args, Some((arg(args, 4, 10) as u32, arg(args, 5, 100) as u32)), 0);
}

/// The standard mix with copy trading set up and tournament players seated, all waiting.
fn engine_mix_social(args: &[String]) {
    let copy = Some((arg(args, 4, 10) as u32, arg(args, 5, 100) as u32));
    mix_runs(args, copy, arg(args, 6, 1_000) as u32);
}

/// Runs the standard mix, with `copy` leaders and followers per leader if given, and
/// `players` seated in a running tournament.
fn mix_runs(args: &[String], copy: Option<(u32, u32)>, players: u32) {
    let (users, open, commands, runs) = (
        arg(args, 0, 100_000) as u32,
        arg(args, 1, 1_000_000),
        arg(args, 2, 10_000_000) as usize,
        arg(args, 3, 5),
    );
    let t = Instant::now();
    let mut world = World::new(users, open);
    if let Some((leaders, per_leader)) = copy {
        world.add_followers(leaders, per_leader);
        println!("copy: {leaders} leaders, {per_leader} followers each");
    }
    if players > 0 {
        world.add_tournament_players(players);
        println!("tournament: {players} players seated");
    }
    println!(
        "set-up: {users} users, {} open contracts in {:.1} s",
        world.engine.open_contract_count(),
        t.elapsed().as_secs_f64()
    );
    let (mut rates, mut cpu_ns) = (Vec::new(), Vec::new());
    let mut events = Events::new();
    for run in 0..runs {
        let (stream, end) = mix(world.cursor(), commands, 100 + run);
        let before = world.engine.open_contract_count();
        let cpu = process_cpu_seconds();
        let t = Instant::now();
        let refused = apply_all(&mut world.engine, stream, &mut events);
        let secs = t.elapsed().as_secs_f64();
        let cpu = process_cpu_seconds() - cpu;
        world.advance_past(end);
        let rate = commands as f64 / secs;
        println!(
            "run {run}: {commands} commands in {secs:.3} s = {:.2} M commands/s ({refused} refused; open {before} -> {})",
            rate / 1e6,
            world.engine.open_contract_count()
        );
        // One thread applies: the process's CPU time is its own, without the time other
        // programs took the core away, which the rate counts.
        let ns = us_per(cpu, commands as u64) * 1e3;
        println!("  CPU of run {run}: {cpu:.2} s, {ns:.0} ns per command");
        rates.push(rate);
        cpu_ns.push(ns);
    }
    println!("engine-mix median: {:.2} M commands/s", median(rates) / 1e6);
    println!("engine-mix CPU median: {:.0} ns per command", median(cpu_ns));
}

/// The standard mix over `shards` engines on as many threads, each holding the accounts whose
/// id is its number modulo `shards` (and their share of the open contracts): every order goes
/// to its account's shard, every tick to every shard, as a sharded engine would be fed
/// (ARCHITECTURE, "Past one core"). Reports the whole stream's commands over the wall time.
fn engine_shards(args: &[String]) {
    let (shards, users, open, commands, runs) = (
        arg(args, 0, 2).max(1) as usize,
        arg(args, 1, 100_000) as u32,
        arg(args, 2, 1_000_000),
        arg(args, 3, 10_000_000) as usize,
        arg(args, 4, 3),
    );
    let t = Instant::now();
    let per_shard = users / shards as u32;
    let mut worlds: Vec<World> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..shards)
            .map(|_| scope.spawn(move || World::new(per_shard, open / shards as u64)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("set-up")).collect()
    });
    println!(
        "set-up: {shards} shards of {per_shard} users, {} open contracts in {:.1} s",
        worlds.iter().map(|w| w.engine.open_contract_count()).sum::<usize>(),
        t.elapsed().as_secs_f64()
    );
    let mut rates = Vec::new();
    for run in 0..runs {
        let at = benches::Cursor { users: per_shard * shards as u32, ..worlds[0].cursor() };
        let (stream, end) = mix(at, commands, 100 + run);
        let mut parts: Vec<Vec<(Stamp, Command)>> = vec![Vec::new(); shards];
        for (stamp, command) in stream {
            match command {
                Command::PlaceOrder(mut o) => {
                    let shard = (o.user.get() - 1) as usize % shards;
                    o.user = UserId((o.user.get() - 1) / shards as u32 + 1);
                    parts[shard].push((stamp, Command::PlaceOrder(o)));
                }
                tick => parts.iter_mut().for_each(|p| p.push((stamp, tick.clone()))),
            }
        }
        let t = Instant::now();
        let refused: usize = std::thread::scope(|scope| {
            let handles: Vec<_> = worlds
                .iter_mut()
                .zip(parts)
                .map(|(world, part)| {
                    scope.spawn(move || {
                        let mut events = Events::new();
                        apply_all(&mut world.engine, part, &mut events)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("shard")).sum()
        });
        let secs = t.elapsed().as_secs_f64();
        worlds.iter_mut().for_each(|w| w.advance_past(end));
        let rate = commands as f64 / secs;
        println!(
            "run {run}: {commands} commands over {shards} shards in {secs:.3} s = {:.2} M commands/s ({refused} refused)",
            rate / 1e6
        );
        rates.push(rate);
    }
    println!("engine-shards median: {:.2} M commands/s", median(rates) / 1e6);
}

/// Time to settle `contracts` contracts that all expire before one tick.
fn settle_burst(args: &[String]) {
    let (contracts, runs) = (arg(args, 0, 1_000_000), arg(args, 1, 5));
    let mut times = Vec::new();
    // One buffer for every run, as the pipeline's engine thread reuses its event buffers: the
    // first run writes into fresh memory, the later ones into memory already touched.
    let mut events = Events::new();
    for run in 0..runs {
        let mut world = World::new(100_000, 0);
        let mut rng = ChaCha8Rng::seed_from_u64(run + 1);
        for n in 0..contracts {
            let user = (n % 100_000) as u32 + 1;
            world.must(benches::order(user, 0, &mut rng, 60));
        }
        world.must(Command::Tick {
            symbol: symbol(0),
            price: Decimal::new(100_000, 2),
            quantity: Decimal::ONE,
        });
        for p in 1..PRODUCTS {
            world.must(Command::Tick {
                symbol: symbol(p),
                price: Decimal::ONE,
                quantity: Decimal::ONE,
            });
        }
        world.now_ms += 59_000;
        world.must(Command::Tick {
            symbol: symbol(0),
            price: Decimal::new(100_100, 2),
            quantity: Decimal::ONE,
        });
        world.now_ms += 1_001;
        world.index += 1;
        let stamp = Stamp { index: world.index, time_ms: world.now_ms };
        events.clear();
        let t = Instant::now();
        let reply = world.engine.apply(
            stamp,
            Command::Tick { symbol: symbol(0), price: Decimal::ONE, quantity: Decimal::ONE },
            &mut events,
        );
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let settled = match reply {
            Ok(Reply::Clock { settled, .. }) => settled,
            other => panic!("{other:?}"),
        };
        assert_eq!(u64::from(settled), contracts);
        println!(
            "run {run}: settled {settled} contracts on one tick in {ms:.1} ms ({} events)",
            events.len()
        );
        times.push(ms);
    }
    println!("settle-burst median: {:.1} ms", median(times));
}

/// The disk's sync latency with the CPUs idle and with `spinners` threads spinning beside it
/// (alternated per run): 64-byte overwrites of a preallocated file, each followed by
/// `fdatasync`, the journal's pattern. Nothing of ours runs: it shows what the machine gives
/// a durable commit when its cores are busy.
fn fsync_busy(args: &[String]) {
    let (appends, runs, spinners) = (arg(args, 0, 20_000), arg(args, 1, 3), arg(args, 2, 2));
    let dir = bench_dir("fsync-busy").expect("bench dir");
    // A command that arrives during a long sync waits for it: the share of the run spent
    // in syncs over 5 ms is the share of commands that wait 5 ms or more.
    let stalled = |syncs: &SmallSyncs| {
        let long: u64 = syncs
            .latency
            .iter_recorded()
            .filter(|v| v.value_iterated_to() >= 5_000_000)
            .map(|v| v.value_iterated_to() * v.count_at_value())
            .sum();
        long as f64 / syncs.elapsed.as_nanos() as f64 * 100.0
    };
    let line = |syncs: &SmallSyncs| {
        let h = &syncs.latency;
        format!(
            "p50 {:.3} ms p99 {:.3} ms p99.9 {:.3} ms max {:.3} ms, {:.1} % of the time in syncs over 5 ms",
            ms(h.value_at_quantile(0.5)),
            ms(h.value_at_quantile(0.99)),
            ms(h.value_at_quantile(0.999)),
            ms(h.max()),
            stalled(syncs)
        )
    };
    let (mut idle, mut busy) = (vec![], vec![]);
    for run in 0..runs {
        let alone = fsync_overwrites(dir.path(), appends, 64).expect("fsync overwrites");
        let stop = std::sync::atomic::AtomicBool::new(false);
        let loaded = std::thread::scope(|s| {
            for _ in 0..spinners {
                s.spawn(|| {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                });
            }
            let loaded = fsync_overwrites(dir.path(), appends, 64);
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            loaded.expect("fsync overwrites")
        });
        println!(
            "run {run}: {appends} syncs idle: {} ({:.0}/s); with {spinners} spinning threads: {} ({:.0}/s)",
            line(&alone),
            alone.per_sec(),
            line(&loaded),
            loaded.per_sec()
        );
        idle.push(stalled(&alone));
        busy.push(stalled(&loaded));
    }
    println!(
        "fsync-busy median share of the time in syncs over 5 ms: idle {:.1} %, with {spinners} spinning threads {:.1} %",
        median(idle),
        median(busy)
    );
}

/// The raw disk baseline: 64-byte appends each followed by fdatasync (the WAL's file
/// pattern), the same into a preallocated file, and MB/s of 1 MiB synced appends.
fn fsync(args: &[String]) {
    let (appends, runs, mib) = (arg(args, 0, 10_000), arg(args, 1, 5), arg(args, 2, 256));
    let dir = bench_dir("fsync").expect("bench dir");
    println!("disk: {}", dir.path().display());
    let (mut p50, mut p99, mut p999, mut rates, mut over_p50, mut over_rates, mut mbs) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for run in 0..runs {
        let small = fsync_appends(dir.path(), appends, 64).expect("fsync appends");
        let over = fsync_overwrites(dir.path(), appends, 64).expect("fsync overwrites");
        let mb_s = fsync_throughput(dir.path(), mib, 1 << 20).expect("fsync throughput");
        let h = &small.latency;
        println!(
            "run {run}: {appends} appends of 64 B + fdatasync: p50 {:.3} ms p99 {:.3} ms p99.9 {:.3} ms max {:.3} ms, {:.0} syncs/s; \
             preallocated overwrite: p50 {:.3} ms p99 {:.3} ms, {:.0} syncs/s; {mib} x 1 MiB appends + fdatasync: {mb_s:.0} MB/s",
            ms(h.value_at_quantile(0.5)),
            ms(h.value_at_quantile(0.99)),
            ms(h.value_at_quantile(0.999)),
            ms(h.max()),
            small.per_sec(),
            ms(over.latency.value_at_quantile(0.5)),
            ms(over.latency.value_at_quantile(0.99)),
            over.per_sec(),
        );
        p50.push(ms(h.value_at_quantile(0.5)));
        p99.push(ms(h.value_at_quantile(0.99)));
        p999.push(ms(h.value_at_quantile(0.999)));
        rates.push(small.per_sec());
        over_p50.push(ms(over.latency.value_at_quantile(0.5)));
        over_rates.push(over.per_sec());
        mbs.push(mb_s);
    }
    println!(
        "fsync median: p50 {:.3} ms p99 {:.3} ms p99.9 {:.3} ms, {:.0} syncs/s; preallocated overwrite p50 {:.3} ms, {:.0} syncs/s; {:.0} MB/s",
        median(p50),
        median(p99),
        median(p999),
        median(rates),
        median(over_p50),
        median(over_rates),
        median(mbs)
    );
}

/// A world of `users` users as snapshot bytes, with where the mix continues it.
fn seeded_world(users: u32, open: u64) -> (Vec<u8>, benches::Cursor) {
    let t = Instant::now();
    let world = World::new(users, open);
    let setup = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let snapshot = world.engine.snapshot_bytes();
    println!(
        "set-up: {users} users, {} open contracts in {setup:.1} s; snapshot {:.1} MB at index {} in {:.2} s",
        world.engine.open_contract_count(),
        snapshot.len() as f64 / 1e6,
        world.index,
        t.elapsed().as_secs_f64()
    );
    (snapshot, world.cursor())
}

/// Closed-loop producers, each keeping `in_flight` commands outstanding, fdatasync on.
fn pipeline_throughput(args: &[String]) {
    let (producers, commands, runs, in_flight, users) = (
        arg(args, 0, 4) as usize,
        arg(args, 1, 10_000_000) as usize,
        arg(args, 2, 5),
        arg(args, 3, 256) as usize,
        arg(args, 4, 100_000) as u32,
    );
    assert!(
        producers * in_flight <= wal::constants::QUEUE_COMMANDS_MAX,
        "producers x in_flight must fit the pipeline queue, or commands would be shed"
    );
    let (snapshot, cursor) = seeded_world(users, 0);
    let mut rates = Vec::new();
    for run in 0..runs {
        let dir = bench_dir("throughput").expect("bench dir");
        seed_snapshot(dir.path(), cursor.index, &snapshot).expect("seed snapshot");
        let (pipeline, handle) = start(config(dir.path(), cursor.now_ms, true)).expect("start");
        let streams = mix_commands(cursor, commands, 100 + run, producers);
        let before = pipeline.stats();
        let (produced, secs) = closed_loop(&handle, streams, in_flight);
        // After shutdown: the engine thread counts a batch only after sending its replies.
        pipeline.shutdown().expect("shutdown");
        let stats = handle.stats();
        let (done, batches, fsyncs) = (
            stats.commands - before.commands,
            stats.batches - before.batches,
            stats.fsyncs - before.fsyncs,
        );
        let refused: u64 = produced.iter().map(|p| p.refused).sum();
        let shed: u64 = produced.iter().map(|p| p.shed).sum();
        let rate = done as f64 / secs;
        println!(
            "run {run}: {done} commands from {producers} producers ({in_flight} in flight each, wait {:?}) in {secs:.3} s = {:.2} M commands/s; \
             {batches} batches, {fsyncs} fsyncs ({:.0}/s), {:.0} commands/batch ({refused} refused, {shed} shed)",
            WaitPolicy::from_env(),
            rate / 1e6,
            fsyncs as f64 / secs,
            done as f64 / batches.max(1) as f64,
        );
        rates.push(rate);
    }
    println!("pipeline-throughput median: {:.2} M commands/s", median(rates) / 1e6);
}

/// CPU time this process has used so far (user + system, every thread), in seconds, from
/// `/proc/self/stat` (clock ticks of 10 ms: good to 1 % over a run of a few seconds). CPU
/// per command is steadier than throughput on a shared machine: it does not count the time
/// other programs take the cores away.
fn process_cpu_seconds() -> f64 {
    cpu_seconds("/proc/self/stat")
}

/// CPU time the calling thread has used so far, as [`process_cpu_seconds`] counts it.
fn thread_cpu_seconds() -> f64 {
    cpu_seconds("/proc/thread-self/stat")
}

/// The process's anonymous resident memory (heap, not the mapped snapshot and log), in MiB.
/// Every page of it was touched for the first time by this process, which costs the most on
/// a VM that hands freed memory back to its host.
fn anonymous_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("RssAnon:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}

fn cpu_seconds(stat: &str) -> f64 {
    let stat = std::fs::read_to_string(stat).unwrap_or_default();
    // Fields after the command name (which may hold spaces), from field 3 on.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |n: usize| fields.get(n).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    // utime and stime are fields 14 and 15: 12 and 13 here.
    (ticks(11) + ticks(12)) as f64 / 100.0
}

/// `seconds` of CPU per command, in microseconds.
fn us_per(seconds: f64, commands: u64) -> f64 {
    seconds * 1e6 / commands.max(1) as f64
}

/// Producers, one per stream, each keeping `in_flight` commands outstanding; what they saw
/// and how long it took (s).
fn closed_loop(
    handle: &wal::Handle<Engine>,
    streams: Vec<Vec<Command>>,
    in_flight: usize,
) -> (Vec<Produced>, f64) {
    let t = Instant::now();
    let produced = std::thread::scope(|s| {
        let joins: Vec<_> = streams
            .into_iter()
            .map(|stream| {
                let handle = handle.clone();
                s.spawn(move || produce(&handle, stream, in_flight))
            })
            .collect();
        joins.into_iter().map(|j| j.join().expect("producer")).collect()
    });
    (produced, t.elapsed().as_secs_f64())
}

/// Replicated (three members in this process, loopback TCP) against the single durable node,
/// alternated in each run from the same world and the same commands.
fn replicated_throughput(args: &[String]) {
    let (producers, commands, runs, in_flight, users) = (
        arg(args, 0, 4) as usize,
        arg(args, 1, 2_000_000) as usize,
        arg(args, 2, 3),
        arg(args, 3, 1024) as usize,
        arg(args, 4, 100_000) as u32,
    );
    let (snapshot, cursor) = seeded_world(users, 0);
    let (mut singles, mut clusters, mut ratios) = (vec![], vec![], vec![]);
    let (mut cpus, mut single_cpus) = (vec![], vec![]);
    for run in 0..runs {
        let dir = bench_dir("throughput").expect("bench dir");
        seed_snapshot(dir.path(), cursor.index, &snapshot).expect("seed snapshot");
        let (pipeline, handle) = start(config(dir.path(), cursor.now_ms, true)).expect("start");
        let streams = mix_commands(cursor, commands, 100 + run, producers);
        let cpu_before = process_cpu_seconds();
        let (produced, secs) = closed_loop(&handle, streams, in_flight);
        let cpu = process_cpu_seconds() - cpu_before;
        pipeline.shutdown().expect("shutdown");
        let single_done = produced.iter().map(|p| p.accepted + p.refused).sum::<u64>();
        let single = single_done as f64 / secs;
        let single_cpu = us_per(cpu, single_done);

        let cluster = LocalCluster::start(&snapshot, cursor.now_ms).expect("cluster");
        let streams = mix_commands(cursor, commands, 100 + run, producers);
        let cpu_before = process_cpu_seconds();
        let (produced, secs) = closed_loop(&cluster.leader, streams, in_flight);
        let cpu_seconds = process_cpu_seconds() - cpu_before;
        let batches = cluster.leader.stats().batches;
        cluster.shutdown().expect("cluster shutdown");
        let done = produced.iter().map(|p| p.accepted + p.refused).sum::<u64>();
        let shed: u64 = produced.iter().map(|p| p.shed).sum();
        let replicated = done as f64 / secs;
        let cpu = us_per(cpu_seconds, done);
        println!(
            "run {run}: single durable node {:.2} M commands/s ({single_cpu:.2} us CPU per command); \
             three-member cluster {:.2} M commands/s ({done} commands, {:.0} per Raft entry, \
             {shed} shed, {cpu:.2} us CPU per command); replicated / single = {:.2}",
            single / 1e6,
            replicated / 1e6,
            done as f64 / batches.max(1) as f64,
            replicated / single,
        );
        cpus.push(cpu);
        single_cpus.push(single_cpu);
        singles.push(single);
        clusters.push(replicated);
        ratios.push(replicated / single);
    }
    println!(
        "replicated-throughput median: cluster {:.2} M commands/s, single node {:.2} M commands/s, \
         ratio {:.2}; CPU per command: cluster {:.2} us, single node {:.2} us",
        median(clusters) / 1e6,
        median(singles) / 1e6,
        median(ratios),
        median(cpus),
        median(single_cpus)
    );
}

/// One submitter's and its collector's findings.
struct OpenLoop {
    /// Reply latency from the intended send time, ns.
    latency: hdrhistogram::Histogram<u64>,
    /// How late each submit was against its intended time, ns.
    send_lag: hdrhistogram::Histogram<u64>,
    /// Replies received.
    replies: u64,
    /// Engine refusals among them.
    refused: u64,
    /// Submits refused as `Overloaded`.
    shed: u64,
    /// When the last reply arrived.
    last_reply: Instant,
}

/// Sends `stream` (commands `k`, `k + every`, ... of the schedule) at their intended times
/// and collects replies on a second thread, timing each from its intended send time.
fn open_loop(
    handle: &wal::Handle<Engine>,
    stream: Vec<Command>,
    k: usize,
    every: usize,
    intended: impl Fn(u64) -> Instant + Sync,
    t0: Instant,
) -> OpenLoop {
    let (tx, rx) = std::sync::mpsc::channel::<(Instant, Ticket<Engine>)>();
    std::thread::scope(|s| {
        let collector = s.spawn(move || {
            let mut out = OpenLoop {
                latency: latency_histogram(),
                send_lag: latency_histogram(),
                replies: 0,
                refused: 0,
                shed: 0,
                last_reply: t0,
            };
            for (at, ticket) in rx {
                let reply = ticket.wait().expect("pipeline failed");
                let done = Instant::now();
                out.latency.saturating_record(done.saturating_duration_since(at).as_nanos() as u64);
                out.refused += u64::from(reply.is_err());
                out.replies += 1;
                out.last_reply = done;
            }
            out
        });
        let mut send_lag = latency_histogram();
        let mut shed = 0;
        for (j, command) in stream.into_iter().enumerate() {
            let at = intended((j * every + k) as u64);
            let now = Instant::now();
            if at > now {
                std::thread::sleep(at - now);
            }
            send_lag
                .saturating_record(Instant::now().saturating_duration_since(at).as_nanos() as u64);
            match handle.try_submit(command) {
                Ok(ticket) => tx.send((at, ticket)).expect("collector"),
                Err(PipelineError::Overloaded) => shed += 1,
                Err(error) => panic!("submit failed: {error}"),
            }
        }
        drop(tx);
        let mut out = collector.join().expect("collector");
        out.send_lag = send_lag;
        out.shed = shed;
        out
    })
}

/// What an open-loop offered load saw, every submitter's findings merged.
struct Offered {
    latency: hdrhistogram::Histogram<u64>,
    send_lag: hdrhistogram::Histogram<u64>,
    replies: u64,
    refused: u64,
    shed: u64,
    /// Replies per second, from the first intended send to the last reply.
    achieved: f64,
}

/// Offers `streams` (one submitter each) at `rate` commands/s in all, open loop.
fn offered(handle: &wal::Handle<Engine>, streams: Vec<Vec<Command>>, rate: u64) -> Offered {
    let submitters = streams.len();
    let t0 = Instant::now() + Duration::from_millis(20);
    let intended = |i: u64| {
        t0 + Duration::from_nanos((u128::from(i) * 1_000_000_000 / u128::from(rate)) as u64)
    };
    let parts: Vec<OpenLoop> = std::thread::scope(|s| {
        let joins: Vec<_> = streams
            .into_iter()
            .enumerate()
            .map(|(k, stream)| {
                let handle = handle.clone();
                let intended = &intended;
                s.spawn(move || open_loop(&handle, stream, k, submitters, intended, t0))
            })
            .collect();
        joins.into_iter().map(|j| j.join().expect("submitter")).collect()
    });
    let mut out = Offered {
        latency: latency_histogram(),
        send_lag: latency_histogram(),
        replies: 0,
        refused: 0,
        shed: 0,
        achieved: 0.0,
    };
    let mut last = t0;
    for part in &parts {
        out.latency.add(&part.latency).expect("same bounds");
        out.send_lag.add(&part.send_lag).expect("same bounds");
        out.replies += part.replies;
        out.refused += part.refused;
        out.shed += part.shed;
        last = last.max(part.last_reply);
    }
    out.achieved = out.replies as f64 / last.saturating_duration_since(t0).as_secs_f64();
    out
}

/// Reply latency at `rate` offered, replicated against the single durable node, alternated
/// in each run from the same world and the same commands.
fn replicated_latency(args: &[String]) {
    let (rate, seconds, runs, submitters, users) = (
        arg(args, 0, 100_000),
        arg(args, 1, 10),
        arg(args, 2, 3),
        arg(args, 3, 2) as usize,
        arg(args, 4, 100_000) as u32,
    );
    let (snapshot, cursor) = seeded_world(users, 0);
    let q = |h: &hdrhistogram::Histogram<u64>, q: f64| ms(h.value_at_quantile(q));
    let (mut single, mut replicated) = ((vec![], vec![]), (vec![], vec![]));
    let mut ratios = vec![];
    for run in 0..runs {
        let total = (rate * seconds) as usize;
        let dir = bench_dir("latency").expect("bench dir");
        seed_snapshot(dir.path(), cursor.index, &snapshot).expect("seed snapshot");
        let (pipeline, handle) = start(config(dir.path(), cursor.now_ms, true)).expect("start");
        let alone = offered(&handle, mix_commands(cursor, total, 200 + run, submitters), rate);
        pipeline.shutdown().expect("shutdown");

        let cluster = LocalCluster::start(&snapshot, cursor.now_ms).expect("cluster");
        let streams = mix_commands(cursor, total, 200 + run, submitters);
        let group = offered(&cluster.leader, streams, rate);
        cluster.shutdown().expect("cluster shutdown");
        println!(
            "run {run}: offered {rate}/s for {seconds} s: single node p50 {:.3} ms p99 {:.3} ms \
             ({:.0}/s achieved, {} shed); cluster p50 {:.3} ms p99 {:.3} ms p99.9 {:.3} ms max {:.3} ms \
             ({:.0}/s achieved, {} shed); cluster p99 / single p99 = {:.2}",
            q(&alone.latency, 0.5),
            q(&alone.latency, 0.99),
            alone.achieved,
            alone.shed,
            q(&group.latency, 0.5),
            q(&group.latency, 0.99),
            q(&group.latency, 0.999),
            ms(group.latency.max()),
            group.achieved,
            group.shed,
            q(&group.latency, 0.99) / q(&alone.latency, 0.99),
        );
        single.0.push(q(&alone.latency, 0.5));
        single.1.push(q(&alone.latency, 0.99));
        replicated.0.push(q(&group.latency, 0.5));
        replicated.1.push(q(&group.latency, 0.99));
        ratios.push(q(&group.latency, 0.99) / q(&alone.latency, 0.99));
    }
    println!(
        "replicated-latency median: cluster p50 {:.3} ms p99 {:.3} ms; single node p50 {:.3} ms p99 {:.3} ms; p99 ratio {:.2}",
        median(replicated.0),
        median(replicated.1),
        median(single.0),
        median(single.1),
        median(ratios)
    );
}

/// Open-loop offered load at `rate` commands/s; latency from the intended send time.
fn pipeline_latency(args: &[String]) {
    let (rate, seconds, runs, submitters, users) = (
        arg(args, 0, 100_000),
        arg(args, 1, 10),
        arg(args, 2, 5),
        arg(args, 3, 2) as usize,
        arg(args, 4, 100_000) as u32,
    );
    let (snapshot, cursor) = seeded_world(users, 0);
    let (mut p50s, mut p99s, mut p999s, mut maxes, mut achieved, mut f50s, mut f99s, mut ratios) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for run in 0..runs {
        let dir = bench_dir("latency").expect("bench dir");
        let base = fsync_appends(dir.path(), 1_000, 64).expect("fsync baseline");
        let (f50, f99) =
            (ms(base.latency.value_at_quantile(0.5)), ms(base.latency.value_at_quantile(0.99)));
        seed_snapshot(dir.path(), cursor.index, &snapshot).expect("seed snapshot");
        let (pipeline, handle) = start(config(dir.path(), cursor.now_ms, true)).expect("start");
        let total = (rate * seconds) as usize;
        let streams = mix_commands(cursor, total, 200 + run, submitters);
        let before = pipeline.stats();
        let Offered { latency, send_lag, replies, refused, shed, achieved: rate_done } =
            offered(&handle, streams, rate);
        pipeline.shutdown().expect("shutdown");
        let stats = handle.stats();
        let batches = stats.batches - before.batches;
        let q = |h: &hdrhistogram::Histogram<u64>, q: f64| ms(h.value_at_quantile(q));
        let p99 = q(&latency, 0.99);
        println!(
            "run {run}: offered {rate}/s for {seconds} s ({submitters} submitters): achieved {rate_done:.0} commands/s; \
             reply latency from intended send: p50 {:.3} ms p99 {p99:.3} ms p99.9 {:.3} ms max {:.3} ms; send lag p99 {:.3} ms; \
             {batches} batches, {:.1} commands/batch ({refused} refused, {shed} shed); fsync baseline p50 {f50:.3} ms p99 {f99:.3} ms; p99 / fsync p99 = {:.2}",
            q(&latency, 0.5),
            q(&latency, 0.999),
            ms(latency.max()),
            q(&send_lag, 0.99),
            replies as f64 / batches.max(1) as f64,
            p99 / f99,
        );
        p50s.push(q(&latency, 0.5));
        p99s.push(p99);
        p999s.push(q(&latency, 0.999));
        maxes.push(ms(latency.max()));
        achieved.push(rate_done);
        f50s.push(f50);
        f99s.push(f99);
        ratios.push(p99 / f99);
    }
    println!(
        "pipeline-latency median: p50 {:.3} ms p99 {:.3} ms p99.9 {:.3} ms max {:.3} ms at {:.0} commands/s; \
         fsync baseline p50 {:.3} ms p99 {:.3} ms; p99 / fsync p99 = {:.2}",
        median(p50s),
        median(p99s),
        median(p999s),
        median(maxes),
        median(achieved),
        median(f50s),
        median(f99s),
        median(ratios)
    );
}

/// Restart time: snapshot of `users` users and `open` contracts, then `records` mix
/// records in the log after it; from `Pipeline::start` to a ready handle.
fn recovery(args: &[String]) {
    let runs = arg(args, 3, 5);
    let (dir, hash) = prepare_recovery(args);
    let data = dir.path();
    let mut times = Vec::new();
    for run in 0..runs {
        let (process_cpu, thread_cpu) = (process_cpu_seconds(), thread_cpu_seconds());
        let t = Instant::now();
        let (pipeline, handle) = start(config(data, 0, true)).expect("restart");
        let secs = t.elapsed().as_secs_f64();
        let (process_cpu, thread_cpu) =
            (process_cpu_seconds() - process_cpu, thread_cpu_seconds() - thread_cpu);
        let recovered = pipeline.recovery().clone();
        let after = handle.query(|e: &Engine| StateMachine::state_hash(e)).expect("query");
        pipeline.shutdown().expect("shutdown");
        assert_eq!(after, hash, "recovered state hash differs from the hash before shutdown");
        println!(
            "run {run}: ready in {secs:.3} s (snapshot at {:?}, {} records replayed, {} segments, {} records scanned, {} B cut); state hash matches",
            recovered.snapshot_index,
            recovered.records_replayed,
            recovered.wal.segments,
            recovered.wal.records,
            recovered.wal.cut_tail_bytes,
        );
        times.push(secs);
        let t = recovered.timings;
        println!(
            "  phases of run {run}: snapshot load {:.3} s, restore {:.3} s, replay {:.3} s",
            t.snapshot_load.as_secs_f64(),
            t.restore.as_secs_f64(),
            t.replay.as_secs_f64()
        );
        // Restore and replay run on the starting thread; the log's reader and the users'
        // lookups on two more. Beside the wall time, whether the cores were the limit.
        println!(
            "  CPU of run {run}: {process_cpu:.2} s in all, {thread_cpu:.2} s on the restoring thread"
        );
    }
    println!("recovery median: {:.3} s to ready", median(times));
    recovery_breakdown(data);
}

/// The same restart as `recovery`, each in a process of its own, as a restarted server is:
/// `recovery` restarts inside the process that prepared the data, whose freed memory the
/// restart reuses, while a new process touches every page of its state for the first time.
fn recovery_fresh(args: &[String]) {
    let runs = arg(args, 3, 5);
    let (dir, hash) = prepare_recovery(args);
    let exe = std::env::current_exe().expect("own path");
    let mut times = Vec::new();
    for run in 0..runs {
        let output = std::process::Command::new(&exe)
            .arg("recover-once")
            .arg(dir.path())
            .arg(format!("{hash:016x}"))
            .output()
            .expect("run a restart in a child process");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "restart failed: {text}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let secs: f64 = text
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("unexpected child output: {text}"));
        println!("run {run}: ready in {secs:.3} s in a fresh process; state hash matches");
        times.push(secs);
    }
    println!("recovery-fresh median: {:.3} s to ready", median(times));
    // A prepared log takes longer to write than a restart takes to read, so a profile of
    // restarts alone keeps it: `perf record core-bench recover-once DIR HASH`.
    if std::env::var_os("CORE_BENCH_KEEP").is_some() {
        println!("kept {} (state hash {hash:016x})", dir.keep().display());
    }
}

/// One restart of the data in `args[0]`, whose state must hash to `args[1]` (hex); prints
/// `ready in S s`. The child of `recovery-fresh`.
fn recover_once(args: &[String]) {
    let data = Path::new(args.first().expect("data directory"));
    let hash = u64::from_str_radix(args.get(1).expect("state hash"), 16).expect("hex hash");
    let t = Instant::now();
    let (pipeline, handle) = start(config(data, 0, true)).expect("restart");
    let secs = t.elapsed().as_secs_f64();
    let phases = pipeline.recovery().timings;
    let anonymous = anonymous_mib();
    let after = handle.query(|e: &Engine| StateMachine::state_hash(e)).expect("query");
    pipeline.shutdown().expect("shutdown");
    assert_eq!(after, hash, "recovered state hash differs from the hash before shutdown");
    println!(
        "ready in {secs:.3} s (snapshot load {:.3} s, restore {:.3} s, replay {:.3} s; {anonymous} MiB of anonymous memory)",
        phases.snapshot_load.as_secs_f64(),
        phases.restore.as_secs_f64(),
        phases.replay.as_secs_f64()
    );
}

/// A snapshot of `users` users and `open` open contracts with `records` standard-mix records
/// after it, written through the pipeline; returns the directory and the state's hash.
fn prepare_recovery(args: &[String]) -> (tempfile::TempDir, u64) {
    let (users, open, records) = (
        arg(args, 0, 1_000_000) as u32,
        arg(args, 1, 1_000_000),
        arg(args, 2, 10_000_000) as usize,
    );
    let (snapshot, cursor) = seeded_world(users, open);
    let dir = bench_dir("recovery").expect("bench dir");
    let data = dir.path();
    let t = Instant::now();
    seed_snapshot(data, cursor.index, &snapshot).expect("seed snapshot");
    drop(snapshot);
    let seeded = t.elapsed().as_secs_f64();
    // Data preparation: the log is written through the pipeline without fdatasync.
    let t = Instant::now();
    let (pipeline, handle) = start(config(data, cursor.now_ms, false)).expect("start");
    let first_start = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let producers = 2;
    let streams = mix_commands(cursor, records, 300, producers);
    let produced: Vec<Produced> = std::thread::scope(|s| {
        let joins: Vec<_> = streams
            .into_iter()
            .map(|stream| {
                let handle = handle.clone();
                s.spawn(move || produce(&handle, stream, 4_096))
            })
            .collect();
        joins.into_iter().map(|j| j.join().expect("producer")).collect()
    });
    let written = t.elapsed().as_secs_f64();
    let refused: u64 = produced.iter().map(|p| p.refused).sum();
    let accepted: u64 = produced.iter().map(|p| p.accepted).sum();
    assert_eq!(produced.iter().map(|p| p.shed).sum::<u64>(), 0, "no command may be shed");
    let (hash, open_now) = handle
        .query(|e: &Engine| (StateMachine::state_hash(e), e.open_contract_count()))
        .expect("query");
    pipeline.shutdown().expect("shutdown");
    let (wal_bytes, segments) = dir_size(&data.join("wal")).expect("wal size");
    println!(
        "prepared: snapshot saved in {seeded:.1} s, first start {first_start:.2} s; {records} records written without fdatasync in {written:.1} s \
         ({accepted} applied, {refused} refused); log {:.0} MB in {segments} segments; {open_now} open contracts; state hash {hash:016x}",
        wal_bytes as f64 / 1e6
    );
    if refused > 0 {
        println!("warning: {refused} of the prepared records were refused by the engine");
    }
    (dir, hash)
}

/// The phases of a restart timed one by one with the crate's public API (warm page cache).
fn recovery_breakdown(data: &Path) {
    let t = Instant::now();
    let store = SnapshotStore::open(&data.join("snapshots")).expect("open snapshots");
    let snapshot = store.load_latest().expect("load").snapshot.expect("a snapshot");
    drop(store);
    let load = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut engine = Engine::restore(&snapshot.bytes).expect("restore");
    let restore = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let options = WalOptions { sync: true, ..WalOptions::default() };
    let wal = Wal::open(Arc::new(FsStorage), data.join("wal"), options).expect("open wal");
    let open = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let read = wal.replay(snapshot.index, |_, payload| -> Result<(), WalError> {
        std::hint::black_box(payload);
        Ok(())
    });
    let read_secs = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let _ = wal.replay(snapshot.index, |_, payload| -> Result<(), WalError> {
        std::hint::black_box(<Engine as StateMachine>::decode_command(payload).expect("decode"));
        Ok(())
    });
    let decode = t.elapsed().as_secs_f64() - read_secs;
    let mut events = Events::new();
    let t = Instant::now();
    let _ = wal.replay(snapshot.index, |meta, payload| -> Result<(), WalError> {
        let command = <Engine as StateMachine>::decode_command(payload).expect("decode");
        let _ = StateMachine::apply(&mut engine, meta, command, &mut events);
        events.clear();
        Ok(())
    });
    let replay = t.elapsed().as_secs_f64();
    println!(
        "breakdown: snapshot load (file) {load:.3} s ({:.0} MB), restore {restore:.3} s, log open/check {open:.3} s, \
         replay {replay:.3} s ({} records: read+CRC {read_secs:.3} s, decode {decode:.3} s, apply ~{:.3} s)",
        snapshot.bytes.len() as f64 / 1e6,
        read.map_or(0, |n| n),
        replay - read_secs - decode,
    );
}

/// Time to take a snapshot of the engine (on the engine thread) and to restore one.
fn snapshot(args: &[String]) {
    let (users, open, runs) =
        (arg(args, 0, 1_000_000) as u32, arg(args, 1, 1_000_000), arg(args, 2, 5));
    let world = World::new(users, open);
    let (mut takes, mut restores) = (Vec::new(), Vec::new());
    for run in 0..runs {
        let t = Instant::now();
        let bytes = world.engine.snapshot_bytes();
        let take = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let restored = Engine::restore(&bytes).expect("restore");
        let restore = t.elapsed().as_secs_f64();
        assert_eq!(restored.open_contract_count(), world.engine.open_contract_count());
        println!(
            "run {run}: {:.1} MB snapshot of {users} users and {open} open contracts: take {:.3} s, restore {:.3} s",
            bytes.len() as f64 / 1e6,
            take,
            restore
        );
        takes.push(take);
        restores.push(restore);
    }
    println!("snapshot median: take {:.3} s, restore {:.3} s", median(takes), median(restores));
}

/// The longest the engine stops for a snapshot, as the pipeline takes one: the state is frozen
/// on the engine thread and serialised on another while the standard mix goes on. Prints the
/// freeze itself, and the latency of single commands (p99.99, the slowest, how many over 1 ms)
/// while the serialiser ran (a command that lands in a chunk the snapshot still shares copies
/// it first) and over the same number of commands of the stream without a snapshot.
fn snapshot_pause(args: &[String]) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let (users, open, runs) =
        (arg(args, 0, 1_000_000) as u32, arg(args, 1, 1_000_000), arg(args, 2, 5));
    let mut world = World::new(users, open);
    let mut events = Events::new();
    let (mut freezes, mut during, mut without) = (Vec::new(), Vec::new(), Vec::new());
    // Single-command latencies (ns) of a stream, with a snapshot frozen before its first
    // command and serialised beside it (only the commands applied meanwhile), or without one
    // (the first `limit` commands); the freeze and the snapshot's size.
    let mut latencies = |world: &mut World, snapshot: bool, seed: u64, limit: usize| {
        let (stream, end) = mix(world.cursor(), 3_000_000, seed);
        let t = Instant::now();
        let serialiser = snapshot.then(|| {
            let frozen = world.engine.frozen();
            let freeze = t.elapsed();
            let done = Arc::new(AtomicBool::new(false));
            let flag = Arc::clone(&done);
            let thread = std::thread::spawn(move || {
                let bytes = frozen.bytes();
                drop(frozen);
                flag.store(true, Ordering::Release);
                bytes.len()
            });
            (freeze, done, thread)
        });
        let mut took = Vec::with_capacity(stream.len());
        for (stamp, command) in stream {
            let t = Instant::now();
            let _ = world.engine.apply(stamp, command, &mut events);
            let ns = t.elapsed().as_nanos() as u64;
            if events.len() > 1 << 15 {
                events.clear();
            }
            let counted = match &serialiser {
                Some((_, done, _)) => !done.load(Ordering::Acquire),
                None => took.len() < limit,
            };
            if counted {
                took.push(ns);
            }
        }
        world.advance_past(end);
        let serialised =
            serialiser.map(|(freeze, _, thread)| (freeze, thread.join().expect("serialiser")));
        took.sort_unstable();
        (took, serialised)
    };
    let summary = |took: &[u64]| {
        let at = |q: f64| took[((took.len() as f64 * q) as usize).min(took.len() - 1)] as f64 / 1e6;
        let over = took.iter().filter(|&&ns| ns > 1_000_000).count();
        (at(0.9999), at(1.0), over)
    };
    for run in 0..runs {
        let (snapshotted, serialised) = latencies(&mut world, true, 2_000 + run, 0);
        let (freeze, bytes) = serialised.expect("a snapshot was taken");
        let (plain, _) = latencies(&mut world, false, 1_000 + run, snapshotted.len());
        let (d, w) = (summary(&snapshotted), summary(&plain));
        println!(
            "run {run}: freeze {:.3} ms; {} commands while the {:.1} MB snapshot was serialised: p99.99 {:.3} ms, slowest {:.3} ms, {} over 1 ms; as many without a snapshot: p99.99 {:.3} ms, slowest {:.3} ms, {} over 1 ms",
            freeze.as_secs_f64() * 1e3,
            snapshotted.len(),
            bytes as f64 / 1e6,
            d.0, d.1, d.2, w.0, w.1, w.2,
        );
        freezes.push(freeze.as_secs_f64() * 1e3);
        during.push(d.1);
        without.push(w.1);
    }
    println!(
        "snapshot-pause median: freeze {:.3} ms, slowest command during {:.3} ms, without {:.3} ms",
        median(freezes),
        median(during),
        median(without)
    );
}

fn main() {
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    let args: Vec<String> = std::env::args().collect();
    let rest = args.get(2..).unwrap_or(&[]);
    match args.get(1).map(String::as_str) {
        Some("engine-mix") => engine_mix(rest),
        Some("engine-mix-copy") => engine_mix_copy(rest),
        Some("engine-mix-social") => engine_mix_social(rest),
        Some("engine-shards") => engine_shards(rest),
        Some("settle-burst") => settle_burst(rest),
        Some("snapshot") => snapshot(rest),
        Some("snapshot-pause") => snapshot_pause(rest),
        Some("fsync") => fsync(rest),
        Some("fsync-busy") => fsync_busy(rest),
        Some("pipeline-throughput") => pipeline_throughput(rest),
        Some("pipeline-latency") => pipeline_latency(rest),
        Some("replicated-throughput") => replicated_throughput(rest),
        Some("replicated-latency") => replicated_latency(rest),
        Some("recovery") => recovery(rest),
        Some("recovery-fresh") => recovery_fresh(rest),
        Some("recover-once") => recover_once(rest),
        _ => {
            eprintln!(
                "usage: core-bench <engine-mix|engine-mix-copy|engine-mix-social|engine-shards|settle-burst|snapshot|snapshot-pause|fsync|fsync-busy|pipeline-throughput|pipeline-latency|replicated-throughput|replicated-latency|recovery|recovery-fresh> [options]  (see the file's header)"
            );
            std::process::exit(2);
        }
    }
}
