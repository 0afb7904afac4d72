//! Criterion micro-benchmarks of the engine: the standard mix in batches, and one order.
//! The world is smaller than the bench binary's (criterion repeats a lot); the bench binary
//! (`core-bench engine-mix`) measures at the full 100 k accounts and 1 M open contracts.

use benches::{apply_all, mix, World};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

fn standard_mix(c: &mut Criterion) {
    run_mix(c, "standard_mix_10k", 0);
    // The same with 10 price alerts waiting per user (100 k): what checking them costs ticks.
    run_mix(c, "standard_mix_10k_100k_alerts", 10);
}

fn run_mix(c: &mut Criterion, name: &str, alerts_per_user: u32) {
    let mut world = World::new(10_000, 100_000);
    world.add_alerts(alerts_per_user);
    let mut cursor = world.cursor();
    let mut engine = world.engine;
    let batch = 10_000;
    let mut group = c.benchmark_group("engine");
    group.throughput(Throughput::Elements(batch as u64));
    let mut events = engine::Events::new();
    let mut seed = 1;
    group.bench_function(name, |b| {
        b.iter_batched(
            || {
                seed += 1;
                let (stream, end) = mix(cursor, batch, seed);
                cursor = end;
                stream
            },
            |stream| apply_all(&mut engine, stream, &mut events),
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

criterion_group!(benches, standard_mix);
criterion_main!(benches);
