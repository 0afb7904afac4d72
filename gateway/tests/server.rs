//! The server as an operator runs it: start on an empty directory, prices flow, stop, restart.

use engine::Engine;
use gateway::durable::CoreConfig;
use gateway::feeds;
use gateway::server::{Server, ServerConfig};
use market_feed::types::Period;

fn config(dir: &std::path::Path) -> ServerConfig {
    ServerConfig {
        core: CoreConfig { admin_password: Some("a-long-password".into()), ..CoreConfig::new(dir) },
        feeds: feeds::parse(&[], Some(42)).unwrap(),
        http: None,
        runtime_workers: 2,
    }
}

#[test]
fn a_fresh_server_trades_prices_and_restarts_without_duplicating_its_catalogue() {
    let dir = tempfile::tempdir().unwrap();
    let (server, startup) = Server::start(config(dir.path())).unwrap();
    assert_eq!(startup.records_replayed, 0);
    let market = server.market();
    let mut ticks = market.subscribe_ticks();
    let tick = ticks.blocking_recv().expect("the simulator's ticks are sequenced");
    let engine_price =
        server.core().handle().query(move |e: &Engine| e.last_tick(tick.symbol)).unwrap();
    assert!(engine_price.is_some(), "the tick went through the engine");
    let products = server.core().handle().query(|e: &Engine| e.products().len()).unwrap();
    let listed = market.instruments().iter().filter(|i| i.listed_by_default).count();
    assert_eq!(products, listed);
    let sol = engine::types::Symbol::new("SOLUSDT").unwrap();
    assert!(
        market.latest_candles(sol, Period::H1, 500).unwrap().len() >= 500,
        "history is backfilled"
    );
    // Readers hold the candle store open; they go before the server restarts on the same directory.
    drop((ticks, market));
    server.shutdown().unwrap();

    let (server, startup) = Server::start(config(dir.path())).unwrap();
    assert!(startup.records_replayed > products as u64, "the catalogue and ticks were replayed");
    assert_eq!(startup.generated_admin_password, None);
    let again =
        server.core().handle().query(|e: &Engine| (e.products().len(), e.admin_count())).unwrap();
    assert_eq!(again, (products, 1));
    server.shutdown().unwrap();
}
