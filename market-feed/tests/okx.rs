//! The OKX adapter against a local stand-in for OKX's public websocket (tests have no
//! internet): subscription, recorded trade pushes (one frame may carry several trades), the
//! client's text ping and the server's `pong`, a missing pong, the upgrade notice, a refused
//! subscription and a dropped connection.
//!
//! The exchange tests use real sockets, so they run on real time with short timings; every
//! wait is on an event, guarded by a generous timeout that only fires when the test is failing.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use engine::types::Symbol;
use market_feed::catalogue::{catalogue, Instrument};
use market_feed::source::{
    ExchangeConfig, ExchangeSource, PriceSource, SourceConfig, SourceEnd, SourceError, SystemClock,
    Venue,
};
use market_feed::types::RawTick;
use rust_decimal::Decimal;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Guard on every awaited event: reached only by a failing test.
const EVENT_TIMEOUT: Duration = Duration::from_secs(10);

fn instruments(codes: &[&str]) -> Vec<Instrument> {
    let all = catalogue();
    codes
        .iter()
        .map(|c| all.iter().find(|i| i.symbol.as_str() == *c).expect("in catalogue").clone())
        .collect()
}

mod standin {
    //! A local stand-in for OKX's public websocket: accepts connections one at a time, answers
    //! `subscribe` per argument, replays recorded pushes of the subscribed instruments, answers
    //! the text `ping` with `pong` (unless silent), and drops the connection or sends the
    //! upgrade notice on command.

    use futures_util::{SinkExt, StreamExt};
    use serde_json::Value;
    use tokio::net::{TcpListener, TcpStream};
    use tokio::sync::mpsc;
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::WebSocketStream;

    /// What the stand-in saw.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum Event {
        /// A subscription on connection `connection` (1-based): channel and instrument ids.
        Subscribed { connection: u32, channel: String, instruments: Vec<String> },
        /// The client's text ping.
        Ping { connection: u32 },
        /// The connection ended; `by_client` is false when the stand-in dropped it.
        Closed { connection: u32, by_client: bool },
    }

    /// What the test tells the stand-in to do on the current connection.
    #[derive(Debug)]
    pub enum Command {
        /// Send OKX's upgrade notice (and keep the connection open).
        Notice,
        /// Drop the TCP connection without a close frame.
        Drop,
    }

    /// How the stand-in behaves.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Mode {
        /// Confirm, replay the recorded pushes, answer pings.
        Replay,
        /// Confirm, then never say anything again, pongs included (a dead connection).
        Silent,
        /// Refuse the subscription as OKX does for an unknown instrument.
        Refuse,
    }

    /// A running stand-in.
    pub struct StandIn {
        /// `ws://127.0.0.1:port/ws/v5/public`.
        pub url: String,
        /// What it saw.
        pub events: mpsc::Receiver<Event>,
        /// What it should do.
        pub commands: mpsc::Sender<Command>,
    }

    impl StandIn {
        pub async fn start(mode: Mode) -> StandIn {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let url = format!("ws://{}/ws/v5/public", listener.local_addr().expect("addr"));
            let path = super::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/okx_trades.jsonl");
            let frames: Vec<String> = std::fs::read_to_string(path)
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
                    Some(Ok(Message::Text(text))) if text == "ping" => {
                        if events.send(Event::Ping { connection }).await.is_err() {
                            return false;
                        }
                        if mode != Mode::Silent && ws.send(Message::Text("pong".into())).await.is_err() {
                            continue;
                        }
                    }
                    Some(Ok(Message::Text(text))) => {
                        let request: Value = serde_json::from_str(&text).expect("client sends JSON");
                        if request["op"] != "subscribe" {
                            continue;
                        }
                        let args = request["args"].as_array().expect("args").clone();
                        let channel = args[0]["channel"].as_str().expect("channel").to_owned();
                        let instruments: Vec<String> = args.iter().map(|a| a["instId"].as_str().expect("instId").to_owned()).collect();
                        let seen = Event::Subscribed { connection, channel, instruments: instruments.clone() };
                        if events.send(seen).await.is_err() {
                            return false;
                        }
                        let replies: Vec<String> = match mode {
                            Mode::Refuse => vec![r#"{"event":"error","code":"60018","msg":"Wrong URL or channel:trades,instId:BTC-USDT doesn't exist.","connId":"a4d3ae55"}"#.to_owned()],
                            Mode::Silent | Mode::Replay => {
                                let confirms = args.iter().map(|a| format!(r#"{{"event":"subscribe","arg":{a},"connId":"a4d3ae55"}}"#));
                                let pushes = frames.iter().filter(|f| {
                                    let v: Value = serde_json::from_str(f).expect("fixture JSON");
                                    mode == Mode::Replay && instruments.iter().any(|i| v["arg"]["instId"] == i.as_str())
                                }).cloned();
                                confirms.chain(pushes).collect()
                            }
                        };
                        for reply in replies {
                            if ws.send(Message::Text(reply)).await.is_err() {
                                break;
                            }
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => {
                        return events.send(Event::Closed { connection, by_client: true }).await.is_ok();
                    }
                },
                command = commands.recv() => match command {
                    Some(Command::Notice) => {
                        let notice = r#"{"event":"notice","code":"64008","msg":"The connection will soon be closed for a service upgrade. Please reconnect.","connId":"a4d3ae55"}"#;
                        let _ = ws.send(Message::Text(notice.into())).await;
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

/// The OKX adapter for BTC and ETH with test-sized timings.
fn okx(url: &str, tune: impl FnOnce(&mut ExchangeConfig)) -> Box<dyn PriceSource> {
    let mut config =
        ExchangeConfig::okx(url, &instruments(&["BTCUSDT", "ETHUSDT"]), &HashMap::new())
            .expect("config");
    config.backoff_initial = Duration::from_millis(20);
    config.backoff_max = Duration::from_millis(200);
    config.ping_after = Some(Duration::from_secs(4));
    config.silence_timeout = Duration::from_secs(5);
    config.connect_timeout = Duration::from_secs(2);
    tune(&mut config);
    Box::new(ExchangeSource::new(config, Arc::new(SystemClock)).expect("source"))
}

/// Runs a source on its own task.
fn start(
    source: Box<dyn PriceSource>,
    capacity: usize,
) -> (mpsc::Receiver<RawTick>, CancellationToken, JoinHandle<Result<SourceEnd, SourceError>>) {
    let (tx, rx) = mpsc::channel(capacity);
    let stop = CancellationToken::new();
    let task = tokio::spawn(source.run(tx, stop.clone()));
    (rx, stop, task)
}

async fn finish(
    task: JoinHandle<Result<SourceEnd, SourceError>>,
) -> Result<SourceEnd, SourceError> {
    tokio::time::timeout(EVENT_TIMEOUT, task)
        .await
        .expect("source ended in time")
        .expect("no panic")
}

fn subscribed(connection: u32) -> Event {
    Event::Subscribed {
        connection,
        channel: "trades".into(),
        instruments: vec!["BTC-USDT".into(), "ETH-USDT".into()],
    }
}

/// The fixture's trades of BTC and ETH, written out by hand: the frame of two BTC trades gives
/// two ticks; SOL is not subscribed.
fn recorded_trades() -> Vec<RawTick> {
    let t = |s: &str, p: &str, q: &str, ms: u64| RawTick {
        symbol: Symbol::new(s).expect("code"),
        price: Decimal::from_str_exact(p).expect("price"),
        quantity: Decimal::from_str_exact(q).expect("quantity"),
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
        let got =
            tokio::time::timeout(EVENT_TIMEOUT, rx.recv()).await.expect("a tick").expect("alive");
        assert_eq!(got, want);
        assert_eq!(got.price.scale(), 2, "presented at the instrument's precision");
    }
}

#[tokio::test]
async fn the_okx_adapter_subscribes_by_instrument_id_and_delivers_the_recorded_trades() {
    let mut server = StandIn::start(Mode::Replay).await;
    // Built as `--feed exchange:okx:URL=BTCUSDT,ETHUSDT` builds it: ids from the catalogue.
    let config = SourceConfig::Exchange {
        venue: Venue::Okx,
        url: server.url.clone(),
        symbols: HashMap::new(),
    };
    let source =
        config.build(&instruments(&["BTCUSDT", "ETHUSDT"]), Arc::new(SystemClock)).expect("source");
    assert_eq!(source.name(), format!("exchange:okx:{}", server.url));
    let (mut rx, stop, task) = start(source, 64);
    assert_eq!(server.next().await, subscribed(1));
    expect_recorded_trades(&mut rx).await;
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
    assert_eq!(server.next().await, Event::Closed { connection: 1, by_client: true });
}

#[tokio::test]
async fn a_quiet_connection_is_kept_alive_by_text_pings_answered_with_pong() {
    let mut server = StandIn::start(Mode::Replay).await;
    let quiet = Duration::from_millis(150);
    let source = okx(&server.url, |c| {
        c.ping_after = Some(quiet);
        c.silence_timeout = Duration::from_secs(3);
    });
    let (mut rx, stop, task) = start(source, 64);
    assert_eq!(server.next().await, subscribed(1));
    expect_recorded_trades(&mut rx).await;
    let since = tokio::time::Instant::now();
    // Each pong answers a ping, so the same connection lives on: no close, no new subscription.
    for _ in 0..4 {
        assert_eq!(server.next().await, Event::Ping { connection: 1 });
    }
    assert!(since.elapsed() >= quiet * 3, "pings only after quiet spells: {:?}", since.elapsed());
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
    assert_eq!(server.next().await, Event::Closed { connection: 1, by_client: true });
}

#[tokio::test]
async fn a_ping_without_pong_replaces_the_connection() {
    let mut server = StandIn::start(Mode::Silent).await;
    let silence = Duration::from_millis(400);
    let source = okx(&server.url, |c| {
        c.ping_after = Some(Duration::from_millis(100));
        c.silence_timeout = silence;
    });
    let (_rx, stop, task) = start(source, 4);
    assert_eq!(server.next().await, subscribed(1));
    let first = tokio::time::Instant::now();
    assert_eq!(server.next().await, Event::Ping { connection: 1 });
    assert_eq!(server.next().await, Event::Closed { connection: 1, by_client: true });
    assert!(
        first.elapsed() >= silence - Duration::from_millis(50),
        "gave up after {:?}",
        first.elapsed()
    );
    assert_eq!(server.next().await, subscribed(2), "reconnected and subscribed again");
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
}

#[tokio::test]
async fn the_upgrade_notice_and_a_dropped_connection_are_followed_by_a_resubscription() {
    let mut server = StandIn::start(Mode::Replay).await;
    let (mut rx, stop, task) = start(okx(&server.url, |_| {}), 64);
    assert_eq!(server.next().await, subscribed(1));
    expect_recorded_trades(&mut rx).await;
    server.commands.send(Command::Notice).await.expect("stand-in");
    assert_eq!(server.next().await, Event::Closed { connection: 1, by_client: true });
    assert_eq!(server.next().await, subscribed(2));
    expect_recorded_trades(&mut rx).await;
    server.commands.send(Command::Drop).await.expect("stand-in");
    assert_eq!(server.next().await, Event::Closed { connection: 2, by_client: false });
    assert_eq!(server.next().await, subscribed(3));
    expect_recorded_trades(&mut rx).await;
    stop.cancel();
    assert_eq!(finish(task).await.expect("ok"), SourceEnd::Stopped);
}

#[tokio::test]
async fn a_refused_subscription_ends_the_source_with_okxs_reply() {
    let mut server = StandIn::start(Mode::Refuse).await;
    let (_rx, _stop, task) = start(okx(&server.url, |_| {}), 4);
    assert_eq!(server.next().await, subscribed(1));
    match finish(task).await {
        Err(SourceError::Rejected(reply)) => assert!(reply.contains("60018"), "{reply}"),
        other => panic!("expected a rejection, got {other:?}"),
    }
}

#[test]
fn okx_configuration_is_checked() {
    let clock = Arc::new(SystemClock);
    let btc = instruments(&["BTCUSDT"]);
    let mut mapping = HashMap::new();
    mapping.insert(Symbol::new("BTCUSDT").expect("code"), "btc-usdt".to_owned());
    let mapped =
        ExchangeConfig::okx("wss://ws.okx.com:8443/ws/v5/public", &btc, &mapping).expect("config");
    assert_eq!(mapped.symbols[0].1, "BTC-USDT", "mapped ids are upper case");
    assert_eq!(mapped.ping_after, Some(Duration::from_secs(20)), "OKX asks for less than 30 s");
    assert!(ExchangeSource::new(mapped.clone(), clock.clone()).is_ok());
    let mut agg = mapped.clone();
    agg.stream = market_feed::source::StreamKind::AggTrade;
    assert!(
        matches!(ExchangeSource::new(agg, clock.clone()), Err(SourceError::Config(m)) if m.contains("trades or tickers"))
    );
    let mut late = mapped;
    late.ping_after = Some(late.silence_timeout);
    assert!(matches!(ExchangeSource::new(late, clock), Err(SourceError::Config(_))));
}
