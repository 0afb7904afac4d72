//! Candles, 24 h statistics, the candle store and backfill, through the public API.

use std::collections::BTreeMap;

use engine::types::{MarketHours, Symbol};
use market_feed::candles::{CandleAggregator, CandleUpdate, Emit};
use market_feed::catalogue::{catalogue, Instrument};
use market_feed::stats::RollingStats;
use market_feed::store::{
    backfill, synthetic_history, Backfill, CandleStore, StoreError, BACKFILL_CANDLES_MIN,
    CANDLES_QUERY_MAX,
};
use market_feed::types::{Candle, Period, SequencedTick};
use proptest::prelude::*;
use rust_decimal::Decimal;

const SECOND: u64 = 1_000;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;
const DAY: u64 = 24 * HOUR;
/// Monday 2026-11-16 00:00:00.000 UTC.
const MONDAY: u64 = 1_794_787_200_000;

fn d(s: &str) -> Decimal {
    s.parse().expect("test decimal")
}

fn sym(code: &str) -> Symbol {
    Symbol::new(code).expect("test symbol")
}

fn tick(code: &str, time_ms: u64, price: &str, quantity: &str) -> SequencedTick {
    SequencedTick { symbol: sym(code), price: d(price), quantity: d(quantity), time_ms, index: 0 }
}

fn candle(open_ms: u64, o: &str, h: &str, l: &str, c: &str, v: &str, ticks: u32) -> Candle {
    Candle { open_ms, open: d(o), high: d(h), low: d(l), close: d(c), volume: d(v), ticks }
}

/// Feeds ticks, returning every update.
fn feed(agg: &mut CandleAggregator, ticks: &[SequencedTick]) -> Vec<CandleUpdate> {
    let mut out = Vec::new();
    for t in ticks {
        agg.on_tick(t, &mut out).expect("in-order tick");
    }
    out
}

fn closed(updates: &[CandleUpdate], period: Period) -> Vec<Candle> {
    updates.iter().filter(|u| u.closed && u.period == period).map(|u| u.candle.clone()).collect()
}

fn instrument(code: &str) -> Instrument {
    catalogue().into_iter().find(|i| i.symbol.as_str() == code).expect("in the catalogue")
}

// ---------------------------------------------------------------------------------------------
// Aggregation
// ---------------------------------------------------------------------------------------------

#[test]
fn ticks_across_a_minute_boundary_give_exact_ohlcv() {
    let t0 = MONDAY + 10 * HOUR;
    let mut agg = CandleAggregator::new(Emit::ClosedOnly);
    let updates = feed(
        &mut agg,
        &[
            tick("BTCUSDT", t0 + 5 * SECOND, "100.00", "1"),
            tick("BTCUSDT", t0 + 20 * SECOND, "102.50", "2"),
            tick("BTCUSDT", t0 + 40 * SECOND, "99.25", "0.5"),
            tick("BTCUSDT", t0 + MINUTE - 1, "101.00", "1"),
            tick("BTCUSDT", t0 + MINUTE, "103.00", "0.25"),
        ],
    );
    assert_eq!(updates.len(), 1, "only the first minute closed: {updates:?}");
    assert_eq!(updates[0].period, Period::M1);
    assert_eq!(updates[0].candle, candle(t0, "100.00", "102.50", "99.25", "101.00", "4.5", 4));
    let btc = sym("BTCUSDT");
    assert_eq!(
        agg.current(btc, Period::M1),
        Some(&candle(t0 + MINUTE, "103.00", "103.00", "103.00", "103.00", "0.25", 1))
    );
    for period in [Period::M5, Period::M15, Period::M30, Period::H1] {
        let c = agg.current(btc, period).expect("open");
        assert_eq!(c, &candle(t0, "100.00", "103.00", "99.25", "103.00", "4.75", 5), "{period:?}");
    }
    assert_eq!(agg.current(btc, Period::H4).map(|c| c.open_ms), Some(MONDAY + 8 * HOUR));
    assert_eq!(agg.current(btc, Period::W1).map(|c| c.open_ms), Some(MONDAY));
    assert_eq!(agg.current(sym("ETHUSDT"), Period::M1), None);
}

#[test]
fn a_gap_of_several_minutes_produces_no_candles() {
    let t0 = MONDAY + 10 * HOUR;
    let mut agg = CandleAggregator::new(Emit::All);
    let updates = feed(
        &mut agg,
        &[
            tick("EURUSD", t0 + 10 * SECOND, "1.08450", "0"),
            tick("EURUSD", t0 + 7 * MINUTE + 30 * SECOND, "1.08470", "0"),
            tick("EURUSD", t0 + 8 * MINUTE + SECOND, "1.08460", "0"),
        ],
    );
    let minutes: Vec<u64> =
        closed(&updates, Period::M1).iter().map(|c| (c.open_ms - t0) / MINUTE).collect();
    assert_eq!(minutes, vec![0, 7], "minutes 1..=6 had no tick and have no candle");
    let fives: Vec<u64> =
        closed(&updates, Period::M5).iter().map(|c| (c.open_ms - t0) / MINUTE).collect();
    assert_eq!(fives, vec![0]);
    // The candle after the gap opens at its own first price, not at the last close.
    let m8 = agg.current(sym("EURUSD"), Period::M1).unwrap();
    assert_eq!((m8.open_ms, m8.open), (t0 + 8 * MINUTE, d("1.08460")));
    let m7 = &closed(&updates, Period::M1)[1];
    assert_eq!((m7.open, m7.close, m7.ticks), (d("1.08470"), d("1.08470"), 1));
    // Every open update reports the candle the aggregator now holds.
    let last = updates.iter().rev().find(|u| !u.closed && u.period == Period::M1).unwrap();
    assert_eq!(&last.candle, m8);
}

/// A tick just before and one exactly at `boundary`: returns the periods whose candle closed.
fn periods_closed_at(boundary: u64) -> Vec<(Period, u64)> {
    let mut agg = CandleAggregator::new(Emit::ClosedOnly);
    let updates = feed(
        &mut agg,
        &[tick("BTCUSDT", boundary - 1, "1", "1"), tick("BTCUSDT", boundary, "2", "1")],
    );
    for u in &updates {
        let next = agg.current(u.symbol, u.period).expect("a new candle opened");
        assert_eq!(next.open_ms, boundary, "{:?} reopens at the boundary", u.period);
        assert_eq!(
            u.candle.open_ms + u.period.duration_ms(),
            boundary,
            "{:?} ended at the boundary",
            u.period
        );
    }
    updates.iter().map(|u| (u.period, u.candle.open_ms)).collect()
}

#[test]
fn period_boundaries_are_utc() {
    use Period::*;
    let tue = MONDAY + DAY;
    let at = |h: u64, m: u64| tue + h * HOUR + m * MINUTE;
    assert_eq!(periods_closed_at(at(10, 1)), vec![(M1, at(10, 0))]);
    assert_eq!(periods_closed_at(at(10, 5)), vec![(M1, at(10, 4)), (M5, at(10, 0))]);
    assert_eq!(
        periods_closed_at(at(10, 15)),
        vec![(M1, at(10, 14)), (M5, at(10, 10)), (M15, at(10, 0))]
    );
    assert_eq!(
        periods_closed_at(at(10, 30)),
        vec![(M1, at(10, 29)), (M5, at(10, 25)), (M15, at(10, 15)), (M30, at(10, 0))]
    );
    let hour = periods_closed_at(at(11, 0));
    assert_eq!(hour.iter().map(|p| p.0).collect::<Vec<_>>(), vec![M1, M5, M15, M30, H1]);
    assert_eq!(hour[4], (H1, at(10, 0)));
    // 4h buckets start at 00, 04, 08, 12, 16, 20 UTC: 10:00 is not one, 12:00 is.
    assert!(!periods_closed_at(at(10, 0)).iter().any(|p| p.0 == H4));
    let four = periods_closed_at(at(12, 0));
    assert_eq!(four.last(), Some(&(H4, at(8, 0))));
    assert_eq!(four.len(), 6);
    let day = periods_closed_at(tue + DAY);
    assert_eq!(day.last(), Some(&(D1, tue)));
    assert_eq!(day.len(), 7, "midnight on a Wednesday does not close the week");
}

#[test]
fn the_week_starts_on_monday_midnight_utc() {
    let sunday_last_ms = MONDAY - 1; // Sunday 23:59:59.999
    let mut agg = CandleAggregator::new(Emit::ClosedOnly);
    let updates = feed(
        &mut agg,
        &[tick("BTCUSDT", sunday_last_ms, "10", "1"), tick("BTCUSDT", MONDAY, "11", "2")],
    );
    let weeks = closed(&updates, Period::W1);
    assert_eq!(weeks, vec![candle(MONDAY - 7 * DAY, "10", "10", "10", "10", "1", 1)]);
    assert_eq!(closed(&updates, Period::D1).len(), 1);
    let week = agg.current(sym("BTCUSDT"), Period::W1).unwrap();
    assert_eq!((week.open_ms, week.open, week.volume), (MONDAY, d("11"), d("2")));
    // Saturday, Sunday and the next Monday 00:00 minus 1 ms are all in this week.
    let updates = feed(
        &mut agg,
        &[
            tick("BTCUSDT", MONDAY + 6 * DAY, "12", "1"),
            tick("BTCUSDT", MONDAY + 7 * DAY - 1, "9", "1"),
        ],
    );
    assert!(closed(&updates, Period::W1).is_empty());
    assert_eq!(
        agg.current(sym("BTCUSDT"), Period::W1).map(|c| (c.low, c.ticks)),
        Some((d("9"), 3))
    );
}

#[test]
fn interleaved_symbols_keep_separate_candles() {
    let t0 = MONDAY + 3 * HOUR;
    let mut agg = CandleAggregator::new(Emit::ClosedOnly);
    let updates = feed(
        &mut agg,
        &[
            tick("BTCUSDT", t0, "100", "1"),
            tick("ETHUSDT", t0 + 1, "10", "5"),
            tick("EURUSD", t0 + 2, "1.1", "0"),
            tick("BTCUSDT", t0 + 3, "90", "1"),
            tick("ETHUSDT", t0 + MINUTE, "11", "1"), // closes ETH's minute only
            tick("BTCUSDT", t0 + MINUTE + 1, "95", "1"),
            tick("EURUSD", t0 + 2 * MINUTE, "1.2", "0"),
        ],
    );
    let by_symbol = |code: &str| -> Vec<Candle> {
        updates
            .iter()
            .filter(|u| u.symbol == sym(code) && u.period == Period::M1)
            .map(|u| u.candle.clone())
            .collect()
    };
    assert_eq!(by_symbol("BTCUSDT"), vec![candle(t0, "100", "100", "90", "90", "2", 2)]);
    assert_eq!(by_symbol("ETHUSDT"), vec![candle(t0, "10", "10", "10", "10", "5", 1)]);
    assert_eq!(by_symbol("EURUSD"), vec![candle(t0, "1.1", "1.1", "1.1", "1.1", "0", 1)]);
    assert_eq!(
        agg.current(sym("BTCUSDT"), Period::M5).map(|c| (c.low, c.close, c.ticks)),
        Some((d("90"), d("95"), 3))
    );
    let symbols: Vec<Symbol> = agg.symbols().collect();
    assert_eq!(symbols, vec![sym("BTCUSDT"), sym("ETHUSDT"), sym("EURUSD")]);
}

/// A naive model: group every tick by (symbol, period, bucket) and fold in order.
fn model(ticks: &[SequencedTick]) -> BTreeMap<(String, Period, u64), Candle> {
    let mut candles: BTreeMap<(String, Period, u64), Candle> = BTreeMap::new();
    for t in ticks {
        for period in Period::ALL {
            let start = period.bucket_start(t.time_ms);
            candles
                .entry((t.symbol.to_string(), period, start))
                .and_modify(|c| {
                    c.high = c.high.max(t.price);
                    c.low = c.low.min(t.price);
                    c.close = t.price;
                    c.volume += t.quantity;
                    c.ticks += 1;
                })
                .or_insert(Candle {
                    open_ms: start,
                    open: t.price,
                    high: t.price,
                    low: t.price,
                    close: t.price,
                    volume: t.quantity,
                    ticks: 1,
                });
        }
    }
    candles
}

proptest! {
    /// Closed updates plus the open candles at the end are exactly the model's candles, each
    /// once, whatever the interleaving and gaps.
    #[test]
    fn the_aggregator_matches_a_naive_model(
        steps in prop::collection::vec((0usize..4, 0u64..(3 * HOUR), 1u32..100_000, 0u32..1_000), 1..300)
    ) {
        let codes = ["BTCUSDT", "ETHUSDT", "EURUSD", "SHIBUSDT"];
        let mut time = MONDAY - 2 * DAY;
        let ticks: Vec<SequencedTick> = steps
            .iter()
            .enumerate()
            .map(|(i, &(s, dt, price, qty))| {
                // Mostly small steps, sometimes long gaps: dt is skewed towards zero.
                time += dt * dt / (3 * HOUR) ;
                SequencedTick {
                    symbol: sym(codes[s]),
                    price: Decimal::new(i64::from(price), 2),
                    quantity: Decimal::new(i64::from(qty), 1),
                    time_ms: time,
                    index: i as u64,
                }
            })
            .collect();
        let mut agg = CandleAggregator::new(Emit::ClosedOnly);
        let updates = feed(&mut agg, &ticks);
        let mut seen: BTreeMap<(String, Period, u64), Candle> = BTreeMap::new();
        for u in &updates {
            prop_assert!(u.closed);
            let previous = seen.insert((u.symbol.to_string(), u.period, u.candle.open_ms), u.candle.clone());
            prop_assert!(previous.is_none(), "closed twice: {:?}", u);
        }
        for code in codes {
            for (period, c) in agg.current_all(sym(code)) {
                let previous = seen.insert((code.to_string(), period, c.open_ms), c.clone());
                prop_assert!(previous.is_none(), "open candle was also reported closed");
            }
        }
        prop_assert_eq!(seen, model(&ticks));
    }
}

// ---------------------------------------------------------------------------------------------
// 24 h statistics fed by the aggregator
// ---------------------------------------------------------------------------------------------

#[test]
fn stats_follow_the_aggregators_minutes() {
    let mut agg = CandleAggregator::new(Emit::All);
    let mut stats = RollingStats::new();
    let t0 = MONDAY + 9 * HOUR;
    let ticks = [
        tick("ETHUSDT", t0, "3000", "1"),
        tick("ETHUSDT", t0 + 30 * SECOND, "3100", "2"),
        tick("ETHUSDT", t0 + 2 * HOUR, "2900", "1"),
        tick("ETHUSDT", t0 + DAY, "3050", "4"), // minute 0 has rolled out
    ];
    let mut seen = Vec::new();
    for t in &ticks {
        let mut out = Vec::new();
        agg.on_tick(t, &mut out).unwrap();
        stats.on_updates(&out).unwrap();
        let s = stats.get(sym("ETHUSDT")).unwrap();
        seen.push((s.open, s.high, s.low, s.close, s.volume));
    }
    assert_eq!(
        seen,
        vec![
            (d("3000"), d("3000"), d("3000"), d("3000"), d("1")),
            (d("3000"), d("3100"), d("3000"), d("3100"), d("3")),
            (d("3000"), d("3100"), d("2900"), d("2900"), d("4")),
            (d("2900"), d("3050"), d("2900"), d("3050"), d("5")),
        ]
    );
    let s = stats.get(sym("ETHUSDT")).unwrap();
    assert_eq!((s.change, s.change_percent), (d("150"), d("5.17")));
}

// ---------------------------------------------------------------------------------------------
// Store
// ---------------------------------------------------------------------------------------------

fn minutes(n: u64) -> Vec<Candle> {
    (0..n)
        .map(|i| {
            let p = Decimal::from(100 + i % 7);
            Candle {
                open_ms: MONDAY + i * MINUTE,
                open: p,
                high: p + Decimal::ONE,
                low: p,
                close: p,
                volume: Decimal::from(i + 1),
                ticks: 3,
            }
        })
        .collect()
}

#[test]
fn store_ranges_are_half_open_ascending_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let store = CandleStore::open(dir.path()).unwrap();
    let btc = sym("BTCUSDT");
    let all = minutes(2_000);
    assert_eq!(store.writes(), 0);
    assert_eq!(store.put_many(all.iter().map(|c| (btc, Period::M1, c))).unwrap(), 2_000);
    let after_many = store.writes();
    assert!(after_many > 0, "a reader's copy of a page learns that it is stale");
    // Neighbours that must not leak into BTCUSDT 1m queries.
    store.put(sym("BTCUSDTX"), Period::M1, &all[5]).unwrap();
    store.put(btc, Period::M5, &all[0]).unwrap();
    assert_eq!(store.writes(), after_many + 2);
    let _ = store.range(btc, Period::M1, 0, 10, 10).unwrap();
    assert_eq!(store.writes(), after_many + 2, "reads are not writes");

    let r = store.range(btc, Period::M1, all[10].open_ms, all[20].open_ms, 100).unwrap();
    assert_eq!(r, all[10..20].to_vec(), "from is inclusive, to exclusive");
    let r = store.range(btc, Period::M1, all[10].open_ms + 1, all[20].open_ms + 1, 100).unwrap();
    assert_eq!(r, all[11..21].to_vec());
    assert_eq!(
        store.range(btc, Period::M1, all[10].open_ms, all[900].open_ms, 5).unwrap(),
        all[10..15].to_vec()
    );
    assert_eq!(
        store.range(btc, Period::M1, 0, u64::MAX, usize::MAX).unwrap().len(),
        CANDLES_QUERY_MAX
    );
    assert!(store.range(btc, Period::M1, all[20].open_ms, all[20].open_ms, 10).unwrap().is_empty());
    assert!(store.range(btc, Period::M1, all[20].open_ms, all[10].open_ms, 10).unwrap().is_empty());

    assert_eq!(store.latest(btc, Period::M1, 3).unwrap(), all[1_997..].to_vec());
    assert_eq!(store.latest(btc, Period::M1, 10_000).unwrap(), all[500..].to_vec());
    assert!(store.latest(btc, Period::M1, 0).unwrap().is_empty());
    assert_eq!(store.latest(btc, Period::M5, 10).unwrap(), vec![all[0].clone()]);
    assert!(store.latest(btc, Period::H1, 10).unwrap().is_empty());

    assert_eq!(store.count(btc, Period::M1).unwrap(), 2_000);
    assert_eq!(store.count(sym("BTCUSDTX"), Period::M1).unwrap(), 1);
    assert!(!store.is_empty_for(btc).unwrap());
    assert!(
        store.is_empty_for(sym("BTCUSD")).unwrap(),
        "a prefix of a stored code is another symbol"
    );

    // A put replaces the candle under the same key.
    let mut changed = all[1_999].clone();
    changed.close = changed.high;
    store.put(btc, Period::M1, &changed).unwrap();
    assert_eq!(store.latest(btc, Period::M1, 1).unwrap(), vec![changed]);
    assert_eq!(store.count(btc, Period::M1).unwrap(), 2_000);
}

#[test]
fn a_reopened_store_keeps_its_candles() {
    let dir = tempfile::tempdir().unwrap();
    let eur = sym("EURUSD");
    let all = minutes(600);
    {
        let store = CandleStore::open(dir.path()).unwrap();
        store.put_many(all.iter().map(|c| (eur, Period::M1, c))).unwrap();
        store.flush().unwrap();
    }
    let store = CandleStore::open(dir.path()).unwrap();
    assert_eq!(store.count(eur, Period::M1).unwrap(), 600);
    assert_eq!(store.latest(eur, Period::M1, 500).unwrap(), all[100..].to_vec());
}

#[test]
fn record_persists_closed_and_open_candles_and_a_restart_continues_them() {
    let dir = tempfile::tempdir().unwrap();
    let t0 = MONDAY + 10 * HOUR;
    let sol = sym("SOLUSDT");
    {
        let store = CandleStore::open(dir.path()).unwrap();
        let mut agg = CandleAggregator::new(Emit::All);
        let mut out = Vec::new();
        agg.on_tick(&tick("SOLUSDT", t0, "200", "1"), &mut out).unwrap();
        assert_eq!(store.record(&out, &agg).unwrap(), 0, "open updates alone are not written");
        out.clear();
        agg.on_tick(&tick("SOLUSDT", t0 + MINUTE, "201", "1"), &mut out).unwrap();
        // The closed 1m candle, then the eight open candles of SOL.
        assert_eq!(store.record(&out, &agg).unwrap(), 9);
        out.clear();
        agg.on_tick(&tick("SOLUSDT", t0 + MINUTE + SECOND, "205", "1"), &mut out).unwrap();
        assert_eq!(
            store.record(&out, &agg).unwrap(),
            0,
            "no minute closed: nothing new is written"
        );
        store.flush().unwrap();
    }
    let store = CandleStore::open(dir.path()).unwrap();
    assert_eq!(store.count(sol, Period::M1).unwrap(), 2);
    let h1 = store.latest(sol, Period::H1, 5).unwrap();
    assert_eq!(
        h1,
        vec![candle(t0, "200", "201", "200", "201", "2", 2)],
        "as of the last minute close"
    );

    let mut agg = CandleAggregator::new(Emit::ClosedOnly);
    assert_eq!(store.restore_into(&mut agg, sol).unwrap(), 8);
    let mut out = Vec::new();
    agg.on_tick(&tick("SOLUSDT", t0 + 2 * MINUTE, "199", "3"), &mut out).unwrap();
    assert_eq!(
        closed(&out, Period::M1),
        vec![candle(t0 + MINUTE, "201", "201", "201", "201", "1", 1)]
    );
    assert_eq!(agg.current(sol, Period::H1), Some(&candle(t0, "200", "201", "199", "199", "5", 3)));
    assert!(
        agg.on_tick(&tick("SOLUSDT", t0, "1", "1"), &mut out).is_err(),
        "older than the restored candles"
    );
}

// ---------------------------------------------------------------------------------------------
// Backfill
// ---------------------------------------------------------------------------------------------

/// Wednesday 2026-11-18 13:37:12.345 UTC.
const WED: u64 = 1_795_009_032_345;

#[test]
fn backfill_writes_every_period_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = CandleStore::open(dir.path()).unwrap();
    let btc = instrument("BTCUSDT");
    let done = backfill(&store, &btc, 7, WED, BACKFILL_CANDLES_MIN).unwrap();
    assert_eq!(done, Backfill::Written { candles: 8 * BACKFILL_CANDLES_MIN });
    for period in Period::ALL {
        assert_eq!(store.count(btc.symbol, period).unwrap(), BACKFILL_CANDLES_MIN, "{period:?}");
        let latest = store.latest(btc.symbol, period, 500).unwrap();
        assert_eq!(
            latest,
            synthetic_history(&btc, period, 7, WED, 500).unwrap(),
            "{period:?} stored as generated"
        );
    }
    assert_eq!(backfill(&store, &btc, 8, WED, 600).unwrap(), Backfill::Skipped);
    assert_eq!(
        store.count(btc.symbol, Period::M1).unwrap(),
        BACKFILL_CANDLES_MIN,
        "a second backfill wrote nothing"
    );
    // Any live candle of a symbol means it has history: no synthetic candles around it.
    let eth = instrument("ETHUSDT");
    store
        .put(
            eth.symbol,
            Period::H1,
            &candle(Period::H1.bucket_start(WED), "1", "1", "1", "1", "1", 1),
        )
        .unwrap();
    assert_eq!(backfill(&store, &eth, 7, WED, 500).unwrap(), Backfill::Skipped);
    assert!(matches!(
        backfill(&store, &instrument("SOLUSDT"), 7, WED, 499),
        Err(StoreError::BackfillCount { count: 499, .. })
    ));
}

#[test]
fn synthetic_history_is_reproducible_per_seed() {
    let btc = instrument("BTCUSDT");
    for period in Period::ALL {
        let a = synthetic_history(&btc, period, 42, WED, 500).unwrap();
        assert_eq!(a, synthetic_history(&btc, period, 42, WED, 500).unwrap(), "{period:?}");
        assert_ne!(a, synthetic_history(&btc, period, 43, WED, 500).unwrap(), "{period:?}");
    }
    let eth = instrument("ETHUSDT");
    let opens = |i: &Instrument| -> Vec<Decimal> {
        synthetic_history(i, Period::H1, 42, WED, 500)
            .unwrap()
            .iter()
            .map(|c| c.open / i.start_price)
            .collect()
    };
    assert_ne!(opens(&btc), opens(&eth), "symbols walk differently under one seed");
}

#[test]
fn synthetic_candles_are_consistent_and_end_at_the_start_price() {
    for inst in catalogue() {
        for period in Period::ALL {
            let history = synthetic_history(&inst, period, 1, WED, 500).unwrap();
            assert_eq!(history.len(), 500, "{} {period:?}", inst.symbol);
            let last = history.last().unwrap();
            assert_eq!(
                last.open_ms,
                period.bucket_start(WED),
                "{} {period:?} ends at now's bucket",
                inst.symbol
            );
            assert_eq!(last.close, inst.start_price);
            let p = u32::from(inst.precision);
            for (i, c) in history.iter().enumerate() {
                let what = format!("{} {period:?} #{i}: {c:?}", inst.symbol);
                assert_eq!(period.bucket_start(c.open_ms), c.open_ms, "{what}");
                assert!(c.high >= c.open.max(c.close) && c.low <= c.open.min(c.close), "{what}");
                assert!(c.low > Decimal::ZERO && c.volume > Decimal::ZERO && c.ticks > 0, "{what}");
                assert!([c.open, c.high, c.low, c.close].iter().all(|x| x.scale() == p), "{what}");
                if let Some(next) = history.get(i + 1) {
                    assert!(next.open_ms > c.open_ms, "{what}");
                    assert_eq!(next.open, c.close, "{what}: continuous");
                }
            }
        }
    }
}

#[test]
fn synthetic_steps_scale_with_volatility_and_the_square_root_of_the_period() {
    // Mean |open - close| / close over 500 candles.
    let mean_move = |inst: &Instrument, period: Period| -> Decimal {
        let h = synthetic_history(inst, period, 3, WED, 500).unwrap();
        h.iter().map(|c| (c.open - c.close).abs() / c.close).sum::<Decimal>()
            / Decimal::from(h.len())
    };
    let btc = instrument("BTCUSDT");
    // sqrt(10080 / 1) = 100; sqrt(60 / 1) = 7.7.
    let week_to_minute = mean_move(&btc, Period::W1) / mean_move(&btc, Period::M1);
    assert!(week_to_minute > d("60") && week_to_minute < d("160"), "W1/M1 = {week_to_minute}");
    let hour_to_minute = mean_move(&btc, Period::H1) / mean_move(&btc, Period::M1);
    assert!(hour_to_minute > d("5") && hour_to_minute < d("11"), "H1/M1 = {hour_to_minute}");
    // BTC at 55 % a year moves about 11 times EUR/GBP at 5 %.
    let vol_ratio = mean_move(&btc, Period::H1) / mean_move(&instrument("EURGBP"), Period::H1);
    assert!(vol_ratio > d("7") && vol_ratio < d("16"), "BTC/EURGBP = {vol_ratio}");
    // 500 minutes back, BTC is still near its start price.
    for c in synthetic_history(&btc, Period::M1, 3, WED, 500).unwrap() {
        assert!(c.low > d("86000") && c.high < d("107000"), "{c:?}");
    }
}

#[test]
fn forex_history_skips_the_weekend_close() {
    let eur = instrument("EURUSD");
    let hours = MarketHours::forex();
    let now = MONDAY + 7 * DAY + 10 * HOUR; // Monday 10:00, two and a half days after the close
    let friday_22 = MONDAY + 4 * DAY + 22 * HOUR;
    let sunday_22 = MONDAY + 6 * DAY + 22 * HOUR;
    for period in Period::ALL {
        let history = synthetic_history(&eur, period, 5, now, 500).unwrap();
        assert_eq!(history.len(), 500);
        for c in &history {
            let end = c.open_ms + period.duration_ms() - 1;
            assert!(
                hours.is_open(c.open_ms) || hours.is_open(end),
                "{period:?} candle at {} is inside the close",
                c.open_ms
            );
        }
    }
    // 1m: the last Friday minute is 21:59, the next one Sunday 22:00.
    let m1 = synthetic_history(&eur, Period::M1, 5, MONDAY + 6 * DAY + 23 * HOUR, 500).unwrap();
    let gap = m1.windows(2).find(|w| w[1].open_ms - w[0].open_ms > MINUTE).expect("a weekend gap");
    assert_eq!((gap[0].open_ms, gap[1].open_ms), (friday_22 - MINUTE, sunday_22));
    // 1d: Saturday is skipped; Friday and Sunday (which reopens at 22:00) stay.
    let d1: Vec<u64> = synthetic_history(&eur, Period::D1, 5, now, 500)
        .unwrap()
        .iter()
        .map(|c| c.open_ms)
        .collect();
    assert!(d1.contains(&(MONDAY + 4 * DAY)) && d1.contains(&(MONDAY + 6 * DAY)));
    assert!(!d1.contains(&(MONDAY + 5 * DAY)));
    // Crypto keeps every bucket.
    let btc = synthetic_history(&instrument("BTCUSDT"), Period::H1, 5, now, 500).unwrap();
    assert!(btc.windows(2).all(|w| w[1].open_ms - w[0].open_ms == HOUR));
}
