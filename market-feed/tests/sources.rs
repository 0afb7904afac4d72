//! Price sources end to end: the simulator's determinism, volatility and market hours; replays
//! of the fixture files with their pacing; the exchange adapter against a local stand-in
//! Binance server (tests have no internet).
//!
//! Pacing tests run on tokio's paused clock. The exchange tests use real sockets, so they run
//! on real time with short timeouts; every wait is on an event, guarded by a generous timeout
//! that only fires when the test is failing.

// Realised volatility is a statistic computed in floating point; only the tests do it.
#![allow(clippy::float_arithmetic)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use engine::types::Symbol;
use market_feed::catalogue::{catalogue, Instrument};
use market_feed::source::{
    Clock, ExchangeConfig, ExchangeSource, PriceSource, SimulatedSource, SimulatedWalk,
    SourceConfig, SourceEnd, SourceError, SystemClock, TokioClock, Venue,
};
use market_feed::types::RawTick;
use rust_decimal::Decimal;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Friday 2026-11-20 00:00 UTC.
const FRIDAY_MS: u64 = 1_795_132_800_000;
/// Milliseconds in an hour.
const HOUR_MS: u64 = 3_600_000;
/// Guard on every awaited event: reached only by a failing test.
const EVENT_TIMEOUT: Duration = Duration::from_secs(10);

fn instruments(codes: &[&str]) -> Vec<Instrument> {
    let all = catalogue();
    codes
        .iter()
        .map(|c| all.iter().find(|i| i.symbol.as_str() == *c).expect("in catalogue").clone())
        .collect()
}

fn symbol(code: &str) -> Symbol {
    Symbol::new(code).expect("valid code")
}

fn dec(text: &str) -> Decimal {
    Decimal::from_str_exact(text).expect("decimal")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// Runs a source on its own task with a channel of `capacity`.
fn start(
    source: Box<dyn PriceSource>,
    capacity: usize,
) -> (mpsc::Receiver<RawTick>, CancellationToken, JoinHandle<Result<SourceEnd, SourceError>>) {
    let (tx, rx) = mpsc::channel(capacity);
    let stop = CancellationToken::new();
    let task = tokio::spawn(source.run(tx, stop.clone()));
    (rx, stop, task)
}

async fn recv(rx: &mut mpsc::Receiver<RawTick>) -> RawTick {
    recv_within(rx, EVENT_TIMEOUT).await
}

/// On paused time the guard must outlast the longest legitimate gap (a forex weekend).
async fn recv_within(rx: &mut mpsc::Receiver<RawTick>, guard: Duration) -> RawTick {
    tokio::time::timeout(guard, rx.recv()).await.expect("a tick in time").expect("source alive")
}

async fn finish(
    task: JoinHandle<Result<SourceEnd, SourceError>>,
) -> Result<SourceEnd, SourceError> {
    tokio::time::timeout(EVENT_TIMEOUT, task)
        .await
        .expect("source ended in time")
        .expect("no panic")
}

// ---------------------------------------------------------------------------------------------
// Simulator

/// Drives a walk without time: each tick at the previous one plus the walk's own interval.
fn drive(walk: &mut SimulatedWalk, from_ms: u64, count: usize) -> Vec<RawTick> {
    let mut t = from_ms;
    let mut ticks = Vec::with_capacity(count);
    while ticks.len() < count {
        ticks.push(walk.next_tick(t).expect("crypto is always open"));
        t += walk.interval_ms();
    }
    ticks
}

#[test]
fn same_seed_gives_the_same_10k_ticks_and_another_seed_does_not() {
    let btc = &instruments(&["BTCUSDT"])[0];
    let a = drive(&mut SimulatedWalk::new(btc, 42, 4).expect("walk"), FRIDAY_MS, 10_000);
    let b = drive(&mut SimulatedWalk::new(btc, 42, 4).expect("walk"), FRIDAY_MS, 10_000);
    assert_eq!(a, b);
    let c = drive(&mut SimulatedWalk::new(btc, 43, 4).expect("walk"), FRIDAY_MS, 10_000);
    let same_prices = a.iter().zip(&c).filter(|(x, y)| x.price == y.price).count();
    assert!(same_prices < 1_000, "{same_prices} of 10000 prices equal across seeds");
    let same_times = a.iter().zip(&c).filter(|(x, y)| x.source_ms == y.source_ms).count();
    assert!(same_times < 5_000, "jitter differs too: {same_times} equal times");
}

#[test]
fn a_symbol_stream_does_not_depend_on_the_other_symbols() {
    let pair = instruments(&["BTCUSDT", "ETHUSDT"]);
    let alone = drive(&mut SimulatedWalk::new(&pair[1], 7, 4).expect("walk"), 0, 500);
    let with_btc = {
        let mut btc = SimulatedWalk::new(&pair[0], 7, 4).expect("walk");
        drive(&mut btc, 0, 500);
        drive(&mut SimulatedWalk::new(&pair[1], 7, 4).expect("walk"), 0, 500)
    };
    assert_eq!(alone, with_btc);
}

#[test]
fn every_price_is_positive_and_at_the_instruments_precision() {
    for inst in catalogue() {
        let mut walk = SimulatedWalk::new(&inst, 1, 4).expect("walk");
        // Monday 00:00 UTC: forex is open for the whole run.
        let monday = FRIDAY_MS + 3 * 24 * HOUR_MS;
        for tick in drive(&mut walk, monday, 2_000) {
            assert!(tick.price > Decimal::ZERO, "{}", inst.symbol);
            assert_eq!(
                tick.price.scale(),
                u32::from(inst.precision),
                "{} {}",
                inst.symbol,
                tick.price
            );
            assert!(tick.quantity > Decimal::ZERO);
            assert_eq!(tick.symbol, inst.symbol);
        }
    }
}

/// Annualised volatility realised by the walk, from log returns over blocks of `block` ticks
/// (blocks of ten seconds make the rounding to the precision negligible).
fn realised_volatility(ticks: &[RawTick], block: usize) -> f64 {
    let points: Vec<(f64, f64)> = ticks
        .iter()
        .step_by(block)
        .map(|t| (t.source_ms as f64, t.price.to_string().parse::<f64>().expect("price").ln()))
        .collect();
    let returns: Vec<f64> = points.windows(2).map(|w| w[1].1 - w[0].1).collect();
    let n = returns.len() as f64;
    let mean = returns.iter().sum::<f64>() / n;
    let variance = returns.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let span_ms = (points[points.len() - 1].0 - points[0].0) / n;
    let year_ms = 365.0 * 24.0 * HOUR_MS as f64;
    (variance * year_ms / span_ms).sqrt()
}

#[test]
fn realised_volatility_matches_the_configured_one() {
    let monday = FRIDAY_MS + 3 * 24 * HOUR_MS;
    for code in ["BTCUSDT", "EURUSD", "SHIBUSDT"] {
        let inst = &instruments(&[code])[0];
        let ticks = drive(&mut SimulatedWalk::new(inst, 5, 4).expect("walk"), monday, 200_000);
        let realised = realised_volatility(&ticks, 40);
        let configured = f64::from(inst.volatility_percent) / 100.0;
        let ratio = realised / configured;
        assert!(
            (0.85..1.15).contains(&ratio),
            "{code}: realised {realised:.4}, configured {configured}"
        );
    }
}

#[test]
fn forex_is_silent_over_the_weekend_and_resumes_sunday_22_utc() {
    let eur = &instruments(&["EURUSD"])[0];
    let mut walk = SimulatedWalk::new(eur, 11, 4).expect("walk");
    let friday_22 = FRIDAY_MS + 22 * HOUR_MS;
    let sunday_22 = friday_22 + 48 * HOUR_MS;
    assert!(walk.next_tick(friday_22 - 1).is_some(), "open until Friday 22:00");
    let before = walk.clone();
    for minute in 0..48 * 60 {
        let t = friday_22 + minute * 60_000 + 123;
        assert_eq!(walk.next_tick(t), None, "closed at {t}");
    }
    assert_eq!(walk.next_tick(sunday_22 - 1), None);
    assert_eq!(walk.next_open_ms(friday_22), Some(sunday_22));
    // The closure drew nothing: the walk resumes exactly as if the weekend had not happened.
    let mut twin = before;
    let resumed = walk.next_tick(sunday_22).expect("open at Sunday 22:00");
    assert_eq!(Some(resumed.clone()), twin.next_tick(sunday_22));
    assert_eq!(resumed.source_ms, sunday_22);
}

#[tokio::test(start_paused = true)]
async fn the_async_simulator_paces_the_walk_in_tokio_time() {
    let btc = instruments(&["BTCUSDT"]);
    let clock: Arc<dyn Clock> = Arc::new(TokioClock::starting_at(FRIDAY_MS));
    let source = SimulatedSource::new(&btc, 42, 4, clock).expect("source");
    assert_eq!(source.name(), "simulated(seed=42)");
    let started = tokio::time::Instant::now();
    let (mut rx, stop, task) = start(Box::new(source), 64);
    let mut ticks = Vec::new();
    while ticks.len() < 240 {
        ticks.push(recv(&mut rx).await);
    }
    let elapsed = started.elapsed();
    // Same ticks as the pure core driven by hand from the same start: pacing adds nothing.
    let expected = drive(&mut SimulatedWalk::new(&btc[0], 42, 4).expect("walk"), FRIDAY_MS, 240);
    assert_eq!(ticks, expected);
    // 239 intervals of 200-300 ms each.
    assert!(
        elapsed >= Duration::from_millis(239 * 200) && elapsed <= Duration::from_millis(239 * 300),
        "{elapsed:?}"
    );
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
}

#[tokio::test(start_paused = true)]
async fn the_async_simulator_sleeps_through_the_forex_weekend() {
    let eur = instruments(&["EURUSD"]);
    let friday_22 = FRIDAY_MS + 22 * HOUR_MS;
    let sunday_22 = friday_22 + 48 * HOUR_MS;
    let clock: Arc<dyn Clock> = Arc::new(TokioClock::starting_at(friday_22 - 60_000));
    let source = SourceConfig::simulated(3).build(&eur, clock).expect("source");
    let (mut rx, stop, task) = start(source, 64);
    let mut before_close = 0;
    let first_after = loop {
        let tick = recv_within(&mut rx, Duration::from_millis(49 * HOUR_MS)).await;
        assert!(
            tick.source_ms < friday_22 || tick.source_ms >= sunday_22,
            "tick at {} while closed",
            tick.source_ms
        );
        if tick.source_ms >= sunday_22 {
            break tick;
        }
        before_close += 1;
    };
    assert!((200..=300).contains(&before_close), "{before_close} ticks in the last open minute");
    assert_eq!(first_after.source_ms, sunday_22, "resumes on the dot");
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
}

#[tokio::test(start_paused = true)]
async fn a_source_ends_when_nobody_listens() {
    let clock: Arc<dyn Clock> = Arc::new(TokioClock::starting_at(FRIDAY_MS));
    let source =
        SourceConfig::simulated(1).build(&instruments(&["BTCUSDT"]), clock).expect("source");
    let (rx, _stop, task) = start(source, 4);
    drop(rx);
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::OutputClosed);
}

// ---------------------------------------------------------------------------------------------
// Replay

/// The fixture's rows as the test reads them, independently of the replay code.
fn fixture_ticks() -> Vec<RawTick> {
    let text = std::fs::read_to_string(fixture("ticks.csv")).expect("fixture");
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            RawTick {
                symbol: symbol(f[1]),
                price: dec(f[2]),
                quantity: dec(f[3]),
                source_ms: f[0].parse().expect("ms"),
            }
        })
        .collect()
}

/// The products the fixtures hold (a replay refuses to serve a product its file never prices).
const FIXTURE_SYMBOLS: [&str; 3] = ["BTCUSDT", "ETHUSDT", "EURUSD"];

fn replay(path: PathBuf, speed: u32, loop_forever: bool) -> Box<dyn PriceSource> {
    let served =
        if path.ends_with("candles.csv") { &FIXTURE_SYMBOLS[..2] } else { &FIXTURE_SYMBOLS };
    SourceConfig::replay(path, Decimal::from(speed), loop_forever)
        .build(&instruments(served), Arc::new(SystemClock))
        .expect("valid replay")
}

#[tokio::test]
async fn a_tick_file_replays_exactly_in_order() {
    let source = replay(fixture("ticks.csv"), 0, false);
    assert_eq!(source.name(), "replay:ticks.csv");
    let (mut rx, _stop, task) = start(source, 4);
    let mut got = Vec::new();
    while let Some(tick) = rx.recv().await {
        got.push(tick);
    }
    let expected = fixture_ticks();
    assert_eq!(expected.len(), 10);
    assert_eq!(got, expected);
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Finished);
}

#[tokio::test(start_paused = true)]
async fn speed_10_plays_ten_times_faster_in_tokio_time() {
    let started = tokio::time::Instant::now();
    let (mut rx, _stop, task) = start(replay(fixture("ticks.csv"), 10, false), 16);
    let expected = fixture_ticks();
    for want in &expected {
        let tick = recv(&mut rx).await;
        assert_eq!(&tick, want);
        let due_ms = (want.source_ms - expected[0].source_ms).div_ceil(10);
        let at_ms = started.elapsed().as_millis() as u64;
        assert!(
            at_ms == due_ms || at_ms == due_ms + 1,
            "{} played at {at_ms} ms, due at {due_ms} ms",
            want.source_ms
        );
    }
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Finished);
    assert_eq!(started.elapsed().as_millis(), 500, "5 s of recording in 0.5 s");
}

#[tokio::test]
async fn a_candle_file_replays_four_ticks_per_candle() {
    let (mut rx, _stop, task) = start(replay(fixture("candles.csv"), 0, false), 4);
    let mut got = Vec::new();
    while let Some(tick) = rx.recv().await {
        got.push(tick);
    }
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Finished);
    assert_eq!(got.len(), 20);
    let t0 = 1_732_000_020_000;
    let view: Vec<(&str, u64, String, String)> = got[..8]
        .iter()
        .map(|t| (t.symbol.as_str(), t.source_ms - t0, t.price.to_string(), t.quantity.to_string()))
        .collect();
    let row = |s, ms, p: &str, q: &str| (s, ms, p.to_owned(), q.to_owned());
    assert_eq!(
        view,
        [
            // BTC rises: open, low, high, close; ETH falls: open, high, low, close.
            row("BTCUSDT", 0, "96500.00", "3.125"),
            row("ETHUSDT", 0, "3420.00", "35"),
            row("BTCUSDT", 15_000, "96480.00", "3.125"),
            row("ETHUSDT", 15_000, "3425.00", "35"),
            row("BTCUSDT", 30_000, "96560.00", "3.125"),
            row("ETHUSDT", 30_000, "3410.00", "35"),
            row("BTCUSDT", 45_000, "96550.00", "3.125"),
            row("ETHUSDT", 45_000, "3412.50", "35"),
        ]
    );
    let eth_second: Decimal = got
        .iter()
        .filter(|t| t.symbol.as_str() == "ETHUSDT" && t.source_ms >= t0 + 60_000)
        .map(|t| t.quantity)
        .sum();
    assert_eq!(eth_second, dec("95.3"), "the volume split adds up exactly");
    assert!(got.windows(2).all(|w| w[0].source_ms <= w[1].source_ms), "time order across symbols");
}

#[tokio::test]
async fn a_looping_replay_starts_again_with_later_times() {
    let (mut rx, stop, task) = start(replay(fixture("ticks.csv"), 0, true), 4);
    let expected = fixture_ticks();
    let span = expected[9].source_ms - expected[0].source_ms;
    for lap in 0..3u64 {
        for want in &expected {
            let tick = recv(&mut rx).await;
            assert_eq!(
                (tick.symbol, tick.price, tick.quantity),
                (want.symbol, want.price, want.quantity)
            );
            assert_eq!(tick.source_ms, want.source_ms + lap * (span + 1_000));
        }
    }
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
}

#[test]
fn a_bad_row_refuses_the_file_with_its_line_number() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        ("time_ms,symbol,price,quantity\n1,BTCUSDT,1.00,1\n2,ETHUSDT,2.00,1\n3,BTCUSDT,x,1\n", 4, "exact decimal"),
        ("time_ms,symbol,price,quantity\n5,BTCUSDT,1.00,1\n4,BTCUSDT,1.00,1\n", 3, "before the previous"),
        ("open_ms,symbol,open,high,low,close,volume\n0,BTCUSDT,1.00,2.00,0.50,1.50,1\n60000,BTCUSDT,1.00,0.90,0.50,0.80,1\n", 3, "do not bound"),
    ];
    for (k, (text, line, why)) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("bad{k}.csv"));
        std::fs::write(&path, text).expect("write");
        let config = SourceConfig::replay(path.clone(), Decimal::ONE, false);
        match config.build(&catalogue(), Arc::new(SystemClock)) {
            Err(SourceError::BadRow { path: p, line: l, reason }) => {
                assert_eq!((p, l), (path, line));
                assert!(reason.contains(why), "{reason}");
            }
            Err(other) => panic!("expected a bad row at line {line}, got {other}"),
            Ok(source) => panic!("expected a bad row at line {line}, got {}", source.name()),
        }
    }
    let missing = SourceConfig::replay(dir.path().join("none.csv"), Decimal::ONE, false);
    assert!(matches!(
        missing.build(&catalogue(), Arc::new(SystemClock)),
        Err(SourceError::Io { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Exchange adapter against a stand-in Binance server

mod standin {
    //! A local stand-in for Binance's market-stream server: accepts websocket connections one
    //! at a time, answers SUBSCRIBE, replays recorded frames of the subscribed streams, pings
    //! on command, records pongs, and drops the connection on command.

    use futures_util::{SinkExt, StreamExt};
    use serde_json::Value;
    use tokio::net::{TcpListener, TcpStream};
    use tokio::sync::mpsc;
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::WebSocketStream;

    /// What the stand-in saw.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum Event {
        /// A SUBSCRIBE request on connection `connection` (1-based).
        Subscribed { connection: u32, streams: Vec<String>, id: u64 },
        /// A pong, with its payload.
        Pong { connection: u32, payload: Vec<u8> },
        /// The connection ended; `by_client` is false when the stand-in dropped it.
        Closed { connection: u32, by_client: bool },
    }

    /// What the test tells the stand-in to do on the current connection.
    #[derive(Debug)]
    pub enum Command {
        /// Send a ping with this payload.
        Ping(Vec<u8>),
        /// Drop the TCP connection without a close frame.
        Drop,
    }

    /// How the stand-in answers a SUBSCRIBE.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Mode {
        /// Confirm, then replay the recorded frames of the subscribed streams.
        Replay,
        /// Say nothing at all (a dead connection that stays open).
        Silent,
        /// Answer with an error, as Binance does for a bad request.
        Refuse,
    }

    /// A running stand-in.
    pub struct StandIn {
        /// `ws://127.0.0.1:port/stream`.
        pub url: String,
        /// What it saw.
        pub events: mpsc::Receiver<Event>,
        /// What it should do.
        pub commands: mpsc::Sender<Command>,
    }

    impl StandIn {
        pub async fn start(mode: Mode) -> StandIn {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let url = format!("ws://{}/stream", listener.local_addr().expect("addr"));
            let frames: Vec<String> =
                std::fs::read_to_string(super::fixture("binance_trades.jsonl"))
                    .expect("fixture")
                    .lines()
                    .map(str::to_owned)
                    .collect();
            let (event_tx, events) = mpsc::channel(64);
            let (commands, mut command_rx) = mpsc::channel(8);
            tokio::spawn(async move {
                for connection in 1.. {
                    let Ok((tcp, _)) = listener.accept().await else { return };
                    let Ok(ws) = tokio_tungstenite::accept_async(tcp).await else { continue };
                    let alive =
                        serve(ws, connection, mode, &frames, &event_tx, &mut command_rx).await;
                    if !alive {
                        return;
                    }
                }
            });
            StandIn { url, events, commands }
        }

        /// The next event (the test fails if none comes in time).
        pub async fn next(&mut self) -> Event {
            tokio::time::timeout(super::EVENT_TIMEOUT, self.events.recv())
                .await
                .expect("stand-in event in time")
                .expect("stand-in alive")
        }
    }

    /// Serves one connection; false when the test has gone away.
    async fn serve(
        mut ws: WebSocketStream<TcpStream>,
        connection: u32,
        mode: Mode,
        frames: &[String],
        events: &mpsc::Sender<Event>,
        commands: &mut mpsc::Receiver<Command>,
    ) -> bool {
        loop {
            tokio::select! {
                message = ws.next() => match message {
                    Some(Ok(Message::Text(text))) => {
                        let request: Value = serde_json::from_str(&text).expect("client sends JSON");
                        if request["method"] != "SUBSCRIBE" {
                            continue;
                        }
                        let streams: Vec<String> = request["params"].as_array().expect("params").iter().map(|s| s.as_str().expect("name").to_owned()).collect();
                        let id = request["id"].as_u64().expect("id");
                        if events.send(Event::Subscribed { connection, streams: streams.clone(), id }).await.is_err() {
                            return false;
                        }
                        let replies: Vec<String> = match mode {
                            Mode::Silent => Vec::new(),
                            Mode::Refuse => vec![format!(r#"{{"code":2,"msg":"Invalid request: unknown stream","id":{id}}}"#)],
                            Mode::Replay => std::iter::once(format!(r#"{{"result":null,"id":{id}}}"#))
                                .chain(frames.iter().filter(|f| {
                                    let v: Value = serde_json::from_str(f).expect("fixture JSON");
                                    streams.iter().any(|s| v["stream"] == s.as_str())
                                }).cloned())
                                .collect(),
                        };
                        for reply in replies {
                            if ws.send(Message::Text(reply)).await.is_err() {
                                break;
                            }
                        }
                    }
                    Some(Ok(Message::Pong(payload))) => {
                        if events.send(Event::Pong { connection, payload }).await.is_err() {
                            return false;
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => {
                        return events.send(Event::Closed { connection, by_client: true }).await.is_ok();
                    }
                },
                command = commands.recv() => match command {
                    Some(Command::Ping(payload)) => {
                        let _ = ws.send(Message::Ping(payload)).await;
                    }
                    Some(Command::Drop) => {
                        drop(ws);
                        return events.send(Event::Closed { connection, by_client: false }).await.is_ok();
                    }
                    None => return false,
                },
            }
        }
    }
}

use standin::{Command, Event, Mode, StandIn};

/// The adapter for BTC and ETH with test-sized timings.
fn exchange(url: &str, tune: impl FnOnce(&mut ExchangeConfig)) -> Box<dyn PriceSource> {
    let mut config =
        ExchangeConfig::binance(url, &instruments(&["BTCUSDT", "ETHUSDT"]), &HashMap::new())
            .expect("config");
    config.backoff_initial = Duration::from_millis(20);
    config.backoff_max = Duration::from_millis(200);
    config.silence_timeout = Duration::from_secs(5);
    config.connect_timeout = Duration::from_secs(2);
    tune(&mut config);
    Box::new(ExchangeSource::new(config, Arc::new(SystemClock)).expect("source"))
}

/// The ticks the fixture holds for BTC and ETH, written out by hand.
fn recorded_trades() -> Vec<RawTick> {
    let t = |s: &str, p: &str, q: &str, ms: u64| RawTick {
        symbol: symbol(s),
        price: dec(p),
        quantity: dec(q),
        source_ms: ms,
    };
    vec![
        t("BTCUSDT", "96500.10", "0.002", 1_732_000_000_100),
        t("ETHUSDT", "3420.55", "0.8", 1_732_000_000_140),
        t("BTCUSDT", "96500.11", "0.0153", 1_732_000_000_211),
        t("BTCUSDT", "96500.11", "0.00008", 1_732_000_000_211),
        t("ETHUSDT", "3420.54", "1.25", 1_732_000_000_379),
        t("BTCUSDT", "96499.99", "0.11", 1_732_000_000_532),
        t("ETHUSDT", "3420.60", "0.0031", 1_732_000_000_901),
        t("BTCUSDT", "96501.00", "0.3", 1_732_000_001_076),
    ]
}

async fn expect_recorded_trades(rx: &mut mpsc::Receiver<RawTick>) {
    for want in recorded_trades() {
        let got = recv(rx).await;
        assert_eq!(got, want);
        assert_eq!(got.price.scale(), 2, "presented at the instrument's precision");
    }
}

fn subscribed(connection: u32, id: u64) -> Event {
    Event::Subscribed {
        connection,
        streams: vec!["btcusdt@trade".into(), "ethusdt@trade".into()],
        id,
    }
}

#[tokio::test]
async fn the_exchange_adapter_delivers_the_recorded_trades_exactly() {
    let mut server = StandIn::start(Mode::Replay).await;
    let source = exchange(&server.url, |_| {});
    assert_eq!(source.name(), format!("exchange:{}", server.url));
    let (mut rx, stop, task) = start(source, 64);
    assert_eq!(server.next().await, subscribed(1, 1));
    expect_recorded_trades(&mut rx).await;
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
    assert_eq!(server.next().await, Event::Closed { connection: 1, by_client: true });
}

#[tokio::test]
async fn the_exchange_adapter_answers_pings_with_their_payload() {
    let mut server = StandIn::start(Mode::Replay).await;
    let (mut rx, stop, task) = start(exchange(&server.url, |_| {}), 64);
    assert_eq!(server.next().await, subscribed(1, 1));
    expect_recorded_trades(&mut rx).await;
    for k in 0..3u8 {
        let payload = vec![b'p', k];
        server.commands.send(Command::Ping(payload.clone())).await.expect("stand-in");
        assert_eq!(server.next().await, Event::Pong { connection: 1, payload });
    }
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
}

#[tokio::test]
async fn a_dropped_connection_is_followed_by_a_reconnect_and_a_resubscribe() {
    let mut server = StandIn::start(Mode::Replay).await;
    let (mut rx, stop, task) = start(exchange(&server.url, |_| {}), 64);
    assert_eq!(server.next().await, subscribed(1, 1));
    expect_recorded_trades(&mut rx).await;
    server.commands.send(Command::Drop).await.expect("stand-in");
    assert_eq!(server.next().await, Event::Closed { connection: 1, by_client: false });
    assert_eq!(server.next().await, subscribed(2, 2), "same streams again, a new request id");
    expect_recorded_trades(&mut rx).await;
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
}

#[tokio::test]
async fn a_silent_server_is_replaced_after_the_silence_timeout() {
    let mut server = StandIn::start(Mode::Silent).await;
    let silence = Duration::from_millis(300);
    let (_rx, stop, task) = start(exchange(&server.url, |c| c.silence_timeout = silence), 4);
    assert_eq!(server.next().await, subscribed(1, 1));
    let first = tokio::time::Instant::now();
    assert_eq!(server.next().await, Event::Closed { connection: 1, by_client: true });
    assert!(first.elapsed() >= silence, "gave up after {:?}", first.elapsed());
    assert_eq!(server.next().await, subscribed(2, 2));
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
}

#[tokio::test]
async fn a_connection_is_rotated_before_its_lifetime_ends() {
    let mut server = StandIn::start(Mode::Replay).await;
    let lifetime = Duration::from_millis(400);
    let (mut rx, stop, task) =
        start(exchange(&server.url, |c| c.connection_lifetime = lifetime), 64);
    assert_eq!(server.next().await, subscribed(1, 1));
    let first = tokio::time::Instant::now();
    expect_recorded_trades(&mut rx).await;
    assert_eq!(server.next().await, Event::Closed { connection: 1, by_client: true });
    assert!(
        first.elapsed() >= lifetime - Duration::from_millis(50),
        "rotated after {:?}",
        first.elapsed()
    );
    assert_eq!(server.next().await, subscribed(2, 2));
    expect_recorded_trades(&mut rx).await;
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
}

#[tokio::test]
async fn a_refused_subscription_ends_the_source_with_the_reply() {
    let mut server = StandIn::start(Mode::Refuse).await;
    let (_rx, _stop, task) = start(exchange(&server.url, |_| {}), 4);
    assert_eq!(server.next().await, subscribed(1, 1));
    match finish(task).await {
        Err(SourceError::Rejected(reply)) => assert!(reply.contains("Invalid request"), "{reply}"),
        other => panic!("expected a rejection, got {other:?}"),
    }
}

/// A local port with nothing listening.
async fn closed_port_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    format!("ws://{addr}/stream")
}

#[tokio::test]
async fn an_unreachable_exchange_is_retried_a_bounded_number_of_times() {
    let url = closed_port_url().await;
    let source = exchange(&url, |c| {
        c.backoff_initial = Duration::from_millis(1);
        c.backoff_max = Duration::from_millis(4);
        c.reconnects_max = 5;
    });
    let (_rx, _stop, task) = start(source, 4);
    match finish(task).await {
        Err(SourceError::ReconnectsExhausted { attempts, last }) => {
            assert_eq!(attempts, 5);
            assert!(last.contains("connect"), "{last}");
        }
        other => panic!("expected to give up, got {other:?}"),
    }
}

/// Cancels `stop` and checks the source ends with `Stopped` well within a second.
async fn stop_promptly(stop: CancellationToken, task: JoinHandle<Result<SourceEnd, SourceError>>) {
    let asked = tokio::time::Instant::now();
    stop.cancel();
    let end = tokio::time::timeout(Duration::from_secs(1), task)
        .await
        .expect("stopped within 1 s")
        .expect("no panic");
    assert_eq!(end.expect("ok"), SourceEnd::Stopped);
    assert!(asked.elapsed() < Duration::from_millis(500), "took {:?}", asked.elapsed());
}

#[tokio::test]
async fn stop_cancels_promptly_while_reading_and_while_reconnecting() {
    // Reading a silent connection with every timer far away: only the stop can end it.
    let mut server = StandIn::start(Mode::Silent).await;
    let slow = |c: &mut ExchangeConfig| {
        c.silence_timeout = Duration::from_secs(60);
        c.backoff_initial = Duration::from_secs(30);
        c.backoff_max = Duration::from_secs(30);
    };
    let (_rx, stop, task) = start(exchange(&server.url, slow), 4);
    assert_eq!(server.next().await, subscribed(1, 1));
    stop_promptly(stop, task).await;
    assert_eq!(
        server.next().await,
        Event::Closed { connection: 1, by_client: true },
        "closed, not abandoned"
    );
    // Connecting to nothing, then waiting out a 30 s backoff: the stop cuts either short.
    let (_rx, stop, task) = start(exchange(&closed_port_url().await, slow), 4);
    tokio::task::yield_now().await;
    stop_promptly(stop, task).await;
}

#[tokio::test]
async fn every_kind_of_source_fits_one_runner_list() {
    let server = StandIn::start(Mode::Replay).await;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let btc = instruments(&["BTCUSDT"]);
    let configs = [
        SourceConfig::simulated(1),
        SourceConfig::replay(fixture("ticks.csv"), Decimal::ZERO, false),
        SourceConfig::Exchange {
            venue: Venue::Binance,
            url: server.url.clone(),
            symbols: HashMap::new(),
        },
    ];
    let sources: Vec<Box<dyn PriceSource>> =
        configs.iter().map(|c| c.build(&btc, clock.clone()).expect("valid")).collect();
    let names: Vec<String> = sources.iter().map(|s| s.name()).collect();
    assert_eq!(
        names,
        [
            "simulated(seed=1)".to_owned(),
            "replay:ticks.csv".to_owned(),
            format!("exchange:{}", server.url)
        ]
    );
    let bad_pace = SourceConfig::Simulated { seed: 1, ticks_per_second: 0 };
    assert!(matches!(bad_pace.build(&btc, clock.clone()), Err(SourceError::Config(_))));
    assert!(matches!(SourceConfig::simulated(1).build(&[], clock), Err(SourceError::Config(_))));
}
