//! Criterion micro-benchmarks of market data: ticks/s through the candle aggregator for 30
//! symbols, and candle query latency from a populated sled store.
//!
//! `baseline_decimal_fold` does the least work any aggregator must (one Decimal add and two
//! compares per tick, one symbol) over the same ticks; quote the aggregator as a ratio to it.
//!
//! Run: `cargo bench -p benches --bench candles -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use engine::types::Symbol;
use market_feed::candles::{CandleAggregator, CandleUpdate, Emit};
use market_feed::catalogue::catalogue;
use market_feed::store::{backfill, CandleStore};
use market_feed::types::{Period, SequencedTick};
use rust_decimal::Decimal;

/// Symbols in the aggregator bench (the catalogue's first 30).
const SYMBOLS: usize = 30;
/// Ticks per measured batch.
const TICKS: usize = 100_000;
/// Wednesday 2026-11-18 13:37:12.345 UTC.
const NOW_MS: u64 = 1_795_009_032_345;
/// Candles per period in the store bench (every catalogue symbol is backfilled).
const STORE_CANDLES: usize = 1_500;

/// A tiny xorshift so the tick stream is reproducible without a rand dependency.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// 30 symbols in random order, about 1 ms apart (so each symbol's minute rolls every ~2000
/// of its ticks), prices walking in whole cents, quantities 0.001-1.000.
fn ticks() -> Vec<SequencedTick> {
    let symbols: Vec<Symbol> = catalogue().into_iter().take(SYMBOLS).map(|i| i.symbol).collect();
    let mut prices = vec![1_000_000_i64; SYMBOLS];
    let mut state = 0x9e37_79b9_7f4a_7c15;
    let mut time = NOW_MS;
    (0..TICKS)
        .map(|index| {
            let r = next(&mut state);
            let s = (r % SYMBOLS as u64) as usize;
            prices[s] += (r >> 8) as i64 % 21 - 10;
            time += (r >> 16) % 3;
            SequencedTick {
                symbol: symbols[s],
                price: Decimal::new(prices[s], 2),
                quantity: Decimal::new(1 + ((r >> 24) % 1_000) as i64, 3),
                time_ms: time,
                index: index as u64,
            }
        })
        .collect()
}

fn aggregator(c: &mut Criterion) {
    let stream = ticks();
    let mut group = c.benchmark_group("candles");
    group.throughput(Throughput::Elements(TICKS as u64));
    group.bench_function("baseline_decimal_fold", |b| {
        b.iter(|| {
            let (mut high, mut low, mut volume) = (Decimal::MIN, Decimal::MAX, Decimal::ZERO);
            for t in &stream {
                high = high.max(t.price);
                low = low.min(t.price);
                volume += t.quantity;
            }
            black_box((high, low, volume))
        });
    });
    for (name, emit) in [
        ("aggregate_30_symbols_closed_only", Emit::ClosedOnly),
        ("aggregate_30_symbols_emit_all", Emit::All),
    ] {
        let mut out: Vec<CandleUpdate> = Vec::with_capacity(64);
        group.bench_function(name, |b| {
            b.iter_batched_ref(
                || CandleAggregator::new(emit),
                |agg| {
                    for t in &stream {
                        agg.on_tick(t, &mut out).expect("in-order ticks");
                        out.clear();
                    }
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

fn store_queries(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = CandleStore::open(dir.path()).expect("open store");
    let all = catalogue();
    for (seed, instrument) in all.iter().enumerate() {
        backfill(&store, instrument, seed as u64, NOW_MS, STORE_CANDLES).expect("backfill");
    }
    let btc = all[0].symbol;
    let h1 = store.latest(btc, Period::H1, STORE_CANDLES).expect("history");
    let (from, to) = (h1[500].open_ms, h1[1_000].open_ms);
    let mut group = c.benchmark_group("candle_store");
    group.bench_function("latest_500_m1", |b| {
        b.iter(|| {
            let candles = store.latest(btc, Period::M1, 500).expect("query");
            assert_eq!(candles.len(), 500);
            candles
        });
    });
    group.bench_function("range_500_h1", |b| {
        b.iter(|| {
            let candles = store.range(btc, Period::H1, from, to, 1_500).expect("query");
            assert_eq!(candles.len(), 500);
            candles
        });
    });
    group.finish();
}

criterion_group!(benches, aggregator, store_queries);
criterion_main!(benches);
