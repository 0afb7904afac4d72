//! The read model's projector alone, without the network, the runtime or the load generator
//! beside it. The engine applies the stream of the websocket bench (`loadgen`): 1 000 traders,
//! 20 k orders a second of 1 USDT demo contracts of 5 s, on 4 symbols ticking 4 times a second,
//! in batches of 1 ms of simulated time. Each batch's events are projected and the rows flushed
//! once a simulated second, as the server's `readmodel` thread does. Only the projection and
//! the flushes are timed.
//!
//! On two shared cores the server's figures at 20 k orders/s swing by 10 % between runs of one
//! binary, more than most changes to the projector; this measures the projector's own CPU per
//! order with nothing else running, so that such a change can be judged A/B.
//!
//! `cargo bench -p gateway --bench projector -- [traders] [orders/s] [seconds] [rounds]
//! [flush period, simulated ms]` (the period defaults to the server's).

// A bench reports its figures in floating point.
#![allow(clippy::float_arithmetic)]

use std::time::{Duration, Instant};

use engine::command::{AdminAction, Command, PlaceOrder};
use engine::types::{AccountKind, Direction, Rule, UserId};
use engine::{Events, Stamp};
use gateway::readmodel::ReadModel;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_decimal::Decimal;
use wal::EventBatch;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Symbols that trade, of the bench catalogue's products.
const SYMBOLS: usize = 4;
/// Each symbol ticks every this many ms (staggered).
const TICK_EVERY_MS: u64 = 250;
/// Contract length.
const DURATION_SECS: u32 = 5;
/// Simulated time before the measured window: the first contracts settle after 5 s.
const WARM_MS: u64 = 6_000;
/// Flushed as often as the server's projector flushes, in simulated ms, unless told.
const FLUSH_EVERY_MS: u64 = gateway::readmodel::FLUSH_PERIOD.as_millis() as u64;

fn main() {
    // `cargo bench` passes `--bench`; the figures are the numbers after it.
    let args: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let arg = |n: usize, default: u64| args.get(n).copied().unwrap_or(default);
    let (traders, rate, seconds, rounds) = (arg(0, 1_000), arg(1, 20_000), arg(2, 10), arg(3, 3));
    let flush_every_ms = arg(4, FLUSH_EVERY_MS).max(1);
    let traders = u32::try_from(traders).expect("traders fit in u32");
    let mut figures = Vec::new();
    for round in 0..rounds {
        let run = run(traders, rate, seconds, round, flush_every_ms);
        println!(
            "round {round}: {:.2} µs of projection per order ({} orders)",
            run.per_order(run.spent),
            run.orders,
        );
        figures.push(run.per_order(run.spent));
    }
    figures.sort_by(f64::total_cmp);
    println!("projector median: {:.2} µs per order", figures[figures.len() / 2]);
}

/// What one run measured over its window: the orders, and the time spent projecting their
/// batches and flushing the rows (a projection step flushes too once enough rows wait, so
/// the two are not told apart).
struct Run {
    orders: u64,
    spent: Duration,
}

impl Run {
    fn per_order(&self, spent: Duration) -> f64 {
        spent.as_secs_f64() * 1e6 / self.orders.max(1) as f64
    }
}

fn run(traders: u32, rate: u64, seconds: u64, seed: u64, flush_every_ms: u64) -> Run {
    let mut world = benches::World::new(traders, 0);
    world.admin(AdminAction::SetRule(Rule {
        duration_secs: DURATION_SECS,
        payout_rate: Decimal::new(85, 2),
        stake_min: Decimal::ONE,
        stake_max: Decimal::from(5_000),
        fee_rate: Decimal::new(1, 3),
        enabled: true,
    }));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let model = ReadModel::open(dir.path()).expect("the read model opens");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut prices = [100_000i64; SYMBOLS];
    let mut run = Run { orders: 0, spent: Duration::ZERO };
    for ms in 0..WARM_MS + seconds * 1_000 {
        world.now_ms += 1;
        let first_index = world.index + 1;
        let mut refused = 0u64;
        let mut events = Events::new();
        let mut apply = |world: &mut benches::World, command: Command| {
            world.index += 1;
            let stamp = Stamp { index: world.index, time_ms: world.now_ms };
            if world.engine.apply(stamp, command, &mut events).is_err() {
                refused += 1;
            }
        };
        for (p, price) in prices.iter_mut().enumerate() {
            if (ms + p as u64 * TICK_EVERY_MS / SYMBOLS as u64).is_multiple_of(TICK_EVERY_MS) {
                *price = (*price + rng.gen_range(-10..=10)).max(1);
                let tick = Command::Tick {
                    symbol: benches::symbol(p),
                    price: Decimal::new(*price, 2),
                    quantity: Decimal::ONE,
                };
                apply(&mut world, tick);
            }
        }
        let orders = (ms + 1) * rate / 1_000 - ms * rate / 1_000;
        for _ in 0..orders {
            let order = PlaceOrder {
                user: UserId(rng.gen_range(1..=traders)),
                account: AccountKind::Demo,
                symbol: benches::symbol(rng.gen_range(0..SYMBOLS)),
                direction: if rng.gen_bool(0.5) { Direction::Up } else { Direction::Down },
                stake: Decimal::ONE,
                duration_secs: DURATION_SECS,
            };
            apply(&mut world, Command::PlaceOrder(order));
        }
        let batch =
            EventBatch { first_index, last_index: world.index, time_ms: world.now_ms, events };
        assert_eq!(refused, 0, "the bench's orders and ticks are all accepted");
        let started = Instant::now();
        model.apply(&batch).expect("a batch projects");
        if ms % flush_every_ms == flush_every_ms - 1 {
            model.flush().expect("a flush");
        }
        if ms >= WARM_MS {
            run.orders += orders;
            run.spent += started.elapsed();
        }
    }
    run
}
