//! The market service end to end: a real pipeline, sources feeding it, candles and statistics
//! built from what the engine sequenced.

// A scenario reads as one story from start to end: the line limit is for the product's code.
#![allow(clippy::too_many_lines)]

use std::path::PathBuf;
use std::time::Duration;

use engine::command::Command;
use engine::types::{AdminId, Symbol};
use engine::{Engine, Reply};
use market_feed::catalogue::catalogue;
use market_feed::feed::sync_catalogue;
use market_feed::market::{MarketConfig, MarketService};
use market_feed::source::SourceConfig;
use market_feed::types::Period;
use rust_decimal::Decimal;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn dec(s: &str) -> Decimal {
    s.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replayed_ticks_are_journaled_sequenced_and_aggregated() {
    let dir = tempfile::tempdir().unwrap();
    let (pipeline, handle) =
        wal::Pipeline::start(wal::Config::new(dir.path().join("core")), Engine::new).unwrap();
    let admin = Command::BootstrapAdmin { username: "root".into(), password_hash: "h".into() };
    assert!(matches!(
        handle.submit(admin).await.unwrap(),
        Ok(Reply::AdminCreated { admin: AdminId(1) })
    ));
    let instruments: Vec<_> = catalogue()
        .into_iter()
        .filter(|i| ["BTCUSDT", "ETHUSDT", "SOLUSDT"].contains(&i.symbol.as_str()))
        .collect();
    let blocking = handle.clone();
    let list = instruments.clone();
    let added = tokio::task::spawn_blocking(move || sync_catalogue(&blocking, AdminId(1), &list))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(added, 3);

    let btc = Symbol::new("BTCUSDT").unwrap();
    let mut config = MarketConfig::simulated(dir.path().join("market"), 7);
    config.assignments = vec![(
        SourceConfig::replay(fixture("ticks.csv"), Decimal::ZERO, false),
        vec![btc, Symbol::new("ETHUSDT").unwrap()],
    )];
    let service = MarketService::start(handle.clone(), instruments, config).unwrap();
    let market = service.data();
    let mut ticks = market.subscribe_ticks();
    service.start_sources(&tokio::runtime::Handle::current());

    // The replay file holds 5 BTCUSDT ticks; wait until all of them were sequenced.
    let collect = async {
        let mut btc_prices = Vec::new();
        while btc_prices.len() < 5 {
            let tick = ticks.recv().await.expect("no tick lost: the subscriber keeps up");
            if tick.symbol == btc {
                btc_prices.push(tick.price);
            }
        }
        btc_prices
    };
    let btc_prices =
        tokio::time::timeout(Duration::from_secs(20), collect).await.expect("ticks flow");
    let expected: Vec<Decimal> = ["96500.10", "96500.50", "96499.80", "96501.00", "96502.25"]
        .iter()
        .map(|p| dec(p))
        .collect();
    assert_eq!(btc_prices, expected, "the file's prices, in order");

    // The engine holds the same last price, journaled at a log index.
    let last = market.latest_tick(btc).unwrap();
    let engine_last = handle.query(move |e: &Engine| e.last_tick(btc)).unwrap().unwrap();
    assert_eq!((last.price, last.index), (engine_last.price, engine_last.index));

    // Candles come from the sequenced ticks: one open 1m candle (the replay ran in well under a minute
    // of engine time unless a minute boundary fell inside it).
    let candles = market.latest_candles(btc, Period::M1, 10).unwrap();
    let total_ticks: u32 = candles.iter().map(|c| c.ticks).sum();
    assert_eq!(total_ticks, 5);
    assert_eq!(candles.last().unwrap().close, dec("96502.25"));
    assert_eq!(candles.iter().map(|c| c.high).max().unwrap(), dec("96502.25"));
    assert_eq!(candles.iter().map(|c| c.low).min().unwrap(), dec("96499.80"));
    let volume: Decimal = candles.iter().map(|c| c.volume).sum();
    assert_eq!(volume, dec("0.41742"), "0.002 + 0.015 + 0.1 + 0.00042 + 0.3");

    let view = market.product(btc, wal::pipeline::system_time_ms()).unwrap();
    assert_eq!(view.stats.close, dec("96502.25"));
    assert_eq!(view.stats.high, dec("96502.25"));
    assert_eq!(view.stats.low, dec("96499.80"));
    assert!(view.open && !view.stale);

    // The simulated product got its history at first start: 500 candles of every period.
    let sol = Symbol::new("SOLUSDT").unwrap();
    for period in Period::ALL {
        assert!(market.latest_candles(sol, period, 500).unwrap().len() >= 500, "{period:?}");
    }
    // A replayed product got none: its history is what the file played.
    assert!(market.latest_candles(btc, Period::W1, 500).unwrap().len() <= 1);

    service.shutdown();
    pipeline.shutdown().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_simulator_continues_from_the_last_sequenced_price_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (pipeline, handle) =
        wal::Pipeline::start(wal::Config::new(dir.path().join("core")), Engine::new).unwrap();
    let admin = Command::BootstrapAdmin { username: "root".into(), password_hash: "h".into() };
    handle.submit(admin).await.unwrap().unwrap();
    let instruments: Vec<_> =
        catalogue().into_iter().filter(|i| i.symbol.as_str() == "BTCUSDT").collect();
    let (blocking, list) = (handle.clone(), instruments.clone());
    tokio::task::spawn_blocking(move || sync_catalogue(&blocking, AdminId(1), &list))
        .await
        .unwrap()
        .unwrap();
    // The last price the engine sequenced before the "restart" is far from the catalogue's 96500.
    let btc = Symbol::new("BTCUSDT").unwrap();
    let tick = Command::Tick { symbol: btc, price: dec("200000.00"), quantity: dec("1") };
    handle.submit(tick).await.unwrap().unwrap();

    let config = MarketConfig::simulated(dir.path().join("market"), 7);
    let service = MarketService::start(handle.clone(), instruments, config).unwrap();
    let mut ticks = service.data().subscribe_ticks();
    service.start_sources(&tokio::runtime::Handle::current());
    let first = tokio::time::timeout(Duration::from_secs(20), ticks.recv())
        .await
        .expect("ticks flow")
        .unwrap();
    let drift = (first.price - dec("200000")).abs() / dec("200000");
    assert!(drift < dec("0.01"), "the walk continued from 200000, got {}", first.price);
    service.shutdown();
    pipeline.shutdown().unwrap();
}

/// Unix ms of a UTC date and hour (from the civil calendar, independently of the replay code).
fn utc_ms(y: i64, m: i64, d: i64, h: u64) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    (u64::try_from(days).unwrap() * 24 + h) * 3_600_000
}

/// An hourly OHLCV file (pandas' shape, float noise and all) replayed through the pipeline the
/// gateway runs (replay source -> journaled tick commands -> engine events -> candle thread ->
/// candle store -> read API) gives back, as the product's 1h and 1d candles, the file's own
/// values at the product's precision.
///
/// The engine stamps every tick with its clock. Here that clock reads the recorded time of the
/// tick being sequenced: the test takes each tick the replay source plays and sets the clock to
/// it before submitting it, so the product's candles can be compared with the file's hours (in
/// production the clock is the wall clock and the candles are of the replay's time). The file
/// lies in 2100 because the candle thread closes idle candles by the wall clock, which must not
/// overtake the engine's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_hourly_file_replayed_gives_back_its_own_1h_and_1d_candles() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    use market_feed::feed::tick_command;
    use market_feed::source::{SourceEnd, SystemClock};
    use market_feed::types::Candle;
    use rust_decimal::RoundingStrategy;

    let path = fixture("formats/pandas_eurusd_h1_2100.csv");
    let start_ms = utc_ms(2100, 3, 3, 0);
    let dir = tempfile::tempdir().unwrap();
    let now = Arc::new(AtomicU64::new(start_ms - 3_600_000));
    let mut core = wal::Config::new(dir.path().join("core"));
    let clock = now.clone();
    core.clock = Arc::new(move || clock.load(Ordering::SeqCst));
    let (pipeline, handle) = wal::Pipeline::start(core, Engine::new).unwrap();
    let admin = Command::BootstrapAdmin { username: "root".into(), password_hash: "h".into() };
    handle.submit(admin).await.unwrap().unwrap();
    let instruments: Vec<_> =
        catalogue().into_iter().filter(|i| i.symbol.as_str() == "EURUSD").collect();
    let (blocking, list) = (handle.clone(), instruments.clone());
    tokio::task::spawn_blocking(move || sync_catalogue(&blocking, AdminId(1), &list))
        .await
        .unwrap()
        .unwrap();

    let eur = Symbol::new("EURUSD").unwrap();
    let source = SourceConfig::replay(path.clone(), Decimal::ZERO, false);
    let mut config = MarketConfig::simulated(dir.path().join("market"), 7);
    config.assignments = vec![(source.clone(), vec![eur])];
    let service = MarketService::start(handle.clone(), instruments.clone(), config).unwrap();
    let market = service.data();
    let mut sequenced = market.subscribe_ticks();

    let replay = source.build(&instruments, Arc::new(SystemClock)).unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    let task = tokio::spawn(replay.run(tx, tokio_util::sync::CancellationToken::new()));
    let mut played = 0;
    while let Some(tick) = rx.recv().await {
        now.store(tick.source_ms, Ordering::SeqCst);
        handle.submit(tick_command(&tick)).await.unwrap().unwrap();
        played += 1;
    }
    assert_eq!(task.await.unwrap().unwrap(), SourceEnd::Finished);
    assert_eq!(played, 48 * 4);
    for _ in 0..played {
        let tick = tokio::time::timeout(Duration::from_secs(20), sequenced.recv())
            .await
            .expect("aggregated in time")
            .expect("the subscriber keeps up");
        assert_eq!(tick.symbol, eur);
    }

    // The file's hours, read here from its text: rounded half-even to EURUSD's 5 decimals.
    let text = std::fs::read_to_string(&path).unwrap();
    let hours: Vec<Candle> = text
        .lines()
        .skip(1)
        .enumerate()
        .map(|(k, line)| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f[0], format!("2100-03-{:02} {:02}:00:00", 3 + k / 24, k % 24));
            let price =
                |s: &str| dec(s).round_dp_with_strategy(5, RoundingStrategy::MidpointNearestEven);
            Candle {
                open_ms: start_ms + k as u64 * 3_600_000,
                open: price(f[1]),
                high: price(f[2]),
                low: price(f[3]),
                close: price(f[4]),
                volume: dec(f[5]),
                ticks: 4,
            }
        })
        .collect();
    assert_eq!(hours.len(), 48);
    let days: Vec<Candle> = hours
        .chunks(24)
        .map(|day| Candle {
            open_ms: day[0].open_ms,
            open: day[0].open,
            high: day.iter().map(|c| c.high).max().unwrap(),
            low: day.iter().map(|c| c.low).min().unwrap(),
            close: day[23].close,
            volume: day.iter().map(|c| c.volume).sum(),
            ticks: 96,
        })
        .collect();

    let end_ms = start_ms + 48 * 3_600_000;
    let served_hours = market.candles(eur, Period::H1, start_ms, end_ms, 100).unwrap();
    assert_eq!(served_hours, hours, "1h candles are the file's rows");
    let served_days = market.candles(eur, Period::D1, start_ms, end_ms, 10).unwrap();
    assert_eq!(served_days, days, "1d candles aggregate the file's hours of each day");
    // The last hour and day are still forming (no later tick closed them); the rest are stored.
    assert_eq!(market.open_candle(eur, Period::H1).unwrap(), hours[47]);

    service.shutdown();
    pipeline.shutdown().unwrap();
}
