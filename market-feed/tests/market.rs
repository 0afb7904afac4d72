//! The market service end to end: a real pipeline, sources feeding it, candles and statistics
//! built from what the engine sequenced.

use std::path::PathBuf;
use std::time::Duration;

use engine::command::Command;
use engine::types::Symbol;
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
    assert!(matches!(handle.submit(admin).await.unwrap(), Ok(Reply::AdminCreated { admin: 1 })));
    let instruments: Vec<_> = catalogue()
        .into_iter()
        .filter(|i| ["BTCUSDT", "ETHUSDT", "SOLUSDT"].contains(&i.symbol.as_str()))
        .collect();
    let blocking = handle.clone();
    let list = instruments.clone();
    let added = tokio::task::spawn_blocking(move || sync_catalogue(&blocking, 1, &list))
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
    tokio::task::spawn_blocking(move || sync_catalogue(&blocking, 1, &list))
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
