//! The core bench binary. Each mode prints one line per run and a median.
//!
//! ```text
//! cargo run --release -p benches --bin core-bench -- engine-mix    [users] [open] [commands] [runs]
//! cargo run --release -p benches --bin core-bench -- settle-burst  [contracts] [runs]
//! ```

use std::time::Instant;

use benches::{apply_all, mix, symbol, Rng, World, PRODUCTS};
use engine::command::Command;
use engine::{Reply, Stamp};
use rust_decimal::Decimal;

fn arg(args: &[String], at: usize, default: u64) -> u64 {
    args.get(at).and_then(|a| a.replace('_', "").parse().ok()).unwrap_or(default)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

/// Engine apply on the standard mix with `users` accounts and `open` open contracts.
fn engine_mix(args: &[String]) {
    let (users, open, commands, runs) =
        (arg(args, 0, 100_000) as u32, arg(args, 1, 1_000_000), arg(args, 2, 10_000_000) as usize, arg(args, 3, 5));
    let t = Instant::now();
    let mut world = World::new(users, open);
    println!("set-up: {users} users, {} open contracts in {:.1} s", world.engine.open_contract_count(), t.elapsed().as_secs_f64());
    let mut rates = Vec::new();
    let mut events = Vec::with_capacity(1 << 16);
    for run in 0..runs {
        let (stream, end) = mix(world.cursor(), commands, 100 + run);
        let before = world.engine.open_contract_count();
        let t = Instant::now();
        let refused = apply_all(&mut world.engine, stream, &mut events);
        let secs = t.elapsed().as_secs_f64();
        world.advance_past(end);
        let rate = commands as f64 / secs;
        println!(
            "run {run}: {commands} commands in {secs:.3} s = {:.2} M commands/s ({refused} refused; open {before} -> {})",
            rate / 1e6,
            world.engine.open_contract_count()
        );
        rates.push(rate);
    }
    println!("engine-mix median: {:.2} M commands/s", median(rates) / 1e6);
}

/// Time to settle `contracts` contracts that all expire before one tick.
fn settle_burst(args: &[String]) {
    let (contracts, runs) = (arg(args, 0, 1_000_000), arg(args, 1, 5));
    let mut times = Vec::new();
    for run in 0..runs {
        let mut world = World::new(100_000, 0);
        let mut rng = Rng::new(run + 1);
        for n in 0..contracts {
            let user = (n % 100_000) as u32 + 1;
            world.must(benches::order(user, 0, &mut rng, 60));
        }
        world.must(Command::Tick { symbol: symbol(0), price: Decimal::new(100_000, 2) });
        for p in 1..PRODUCTS {
            world.must(Command::Tick { symbol: symbol(p), price: Decimal::ONE });
        }
        world.now_ms += 59_000;
        world.must(Command::Tick { symbol: symbol(0), price: Decimal::new(100_100, 2) });
        world.now_ms += 1_001;
        world.index += 1;
        let stamp = Stamp { index: world.index, time_ms: world.now_ms };
        let mut events = Vec::with_capacity(4 * contracts as usize);
        let t = Instant::now();
        let reply = world.engine.apply(stamp, Command::Tick { symbol: symbol(0), price: Decimal::ONE }, &mut events);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let settled = match reply {
            Ok(Reply::Clock { settled, .. }) => settled,
            other => panic!("{other:?}"),
        };
        assert_eq!(u64::from(settled), contracts);
        println!("run {run}: settled {settled} contracts on one tick in {ms:.1} ms ({} events)", events.len());
        times.push(ms);
    }
    println!("settle-burst median: {:.1} ms", median(times));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rest = args.get(2..).unwrap_or(&[]);
    match args.get(1).map(String::as_str) {
        Some("engine-mix") => engine_mix(rest),
        Some("settle-burst") => settle_burst(rest),
        _ => {
            eprintln!("usage: core-bench <engine-mix|settle-burst> [options]  (see the file's header)");
            std::process::exit(2);
        }
    }
}
