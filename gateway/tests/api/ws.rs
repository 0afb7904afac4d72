//! The websocket protocol through the real server: a real TCP connection, the HTTP upgrade,
//! fastwebsockets frames both ways, the engine and the market feed behind them.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use fastwebsockets::{Frame, OpCode, Payload, WebSocket};
use gateway::api::IdempotencyKey;
use gateway::ws::{
    WsConfig, CLOSE_HEARTBEAT_TIMEOUT, CLOSE_POLICY, CLOSE_PROTOCOL_ERROR, CLOSE_RESYNC,
    CLOSE_SESSION_ENDED, CLOSE_TOO_BIG,
};
use http_body_util::Empty;
use hyper::upgrade::Upgraded;
use hyper_util::rt::TokioIo;

use super::*;

/// Longest wait for any one expected frame (a 5 s contract settles well within it).
const FRAME_WAIT: Duration = Duration::from_secs(30);

struct SpawnExecutor;

impl<F> hyper::rt::Executor<F> for SpawnExecutor
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, future: F) {
        tokio::spawn(future);
    }
}

/// What the server sent.
#[derive(Debug)]
enum Msg {
    Json(Value),
    Ping,
    Close(u16, String),
}

struct Client {
    ws: WebSocket<TokioIo<Upgraded>>,
}

impl Client {
    /// Connects to `path`; `receive_buffer` shrinks the socket's receive buffer (a slow reader).
    async fn connect_with(addr: SocketAddr, path: &str, receive_buffer: Option<u32>) -> Client {
        Client::try_connect_with(addr, path, receive_buffer).await.unwrap()
    }

    /// The handshake's error, such as the status of a refused upgrade, instead of a panic.
    async fn try_connect_with(
        addr: SocketAddr,
        path: &str,
        receive_buffer: Option<u32>,
    ) -> Result<Client, fastwebsockets::WebSocketError> {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        if let Some(size) = receive_buffer {
            socket.set_recv_buffer_size(size).unwrap();
        }
        let stream = socket.connect(addr).await.unwrap();
        let request = hyper::Request::builder()
            .method("GET")
            .uri(format!("http://{addr}{path}"))
            .header("Host", addr.to_string())
            .header(hyper::header::UPGRADE, "websocket")
            .header(hyper::header::CONNECTION, "upgrade")
            .header("Sec-WebSocket-Key", fastwebsockets::handshake::generate_key())
            .header("Sec-WebSocket-Version", "13")
            .body(Empty::<Bytes>::new())
            .unwrap();
        let (ws, _) = fastwebsockets::handshake::client(&SpawnExecutor, request, stream).await?;
        Ok(Client { ws })
    }

    async fn connect(addr: SocketAddr) -> Client {
        Client::connect_with(addr, "/ws", None).await
    }

    async fn send(&mut self, value: Value) {
        let text = serde_json::to_vec(&value).unwrap();
        self.send_raw(OpCode::Text, &text).await;
    }

    async fn send_raw(&mut self, opcode: OpCode, bytes: &[u8]) {
        assert!(self.try_send_raw(opcode, bytes).await, "the server closed the socket");
    }

    /// False if the server has closed the socket.
    async fn try_send_raw(&mut self, opcode: OpCode, bytes: &[u8]) -> bool {
        let frame = Frame::new(true, opcode, None, Payload::Borrowed(bytes));
        self.ws.write_frame(frame).await.is_ok()
    }

    async fn next(&mut self) -> Msg {
        loop {
            let frame = tokio::time::timeout(FRAME_WAIT, self.ws.read_frame())
                .await
                .expect("a frame in time")
                .expect("a readable frame");
            match frame.opcode {
                OpCode::Text => return Msg::Json(serde_json::from_slice(&frame.payload).unwrap()),
                OpCode::Ping => return Msg::Ping,
                OpCode::Close => {
                    let code = u16::from_be_bytes([frame.payload[0], frame.payload[1]]);
                    let reason = String::from_utf8_lossy(&frame.payload[2..]).into_owned();
                    return Msg::Close(code, reason);
                }
                _ => {}
            }
        }
    }

    /// The next frame of type `kind`, skipping others (market data keeps flowing).
    async fn until(&mut self, kind: &str) -> Value {
        loop {
            match self.next().await {
                Msg::Json(v) if v["type"] == kind => return v,
                Msg::Json(_) | Msg::Ping => {}
                Msg::Close(code, reason) => {
                    panic!("closed ({code} {reason}) while waiting for {kind}")
                }
            }
        }
    }

    /// The close code, skipping everything before it.
    async fn closed(&mut self) -> u16 {
        loop {
            if let Msg::Close(code, _) = self.next().await {
                return code;
            }
        }
    }
}

fn run<F: Future>(h: &Harness, future: F) -> F::Output {
    h.server.runtime().block_on(future)
}

fn metric(h: &Harness, name: &str) -> u64 {
    let text = run(h, async {
        let request = Request::get("/metrics").body(Body::empty()).unwrap();
        let response = gateway::api::metrics_app(h.state.clone()).oneshot(request).await.unwrap();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    });
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("trading_{name} ")))
        .unwrap_or_else(|| panic!("metric {name} in {text}"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// Polls `/metrics` until `name` satisfies `wanted` (bounded), for conditions inside the
/// server that no frame reports.
fn await_metric(h: &Harness, name: &str, what: &str, wanted: impl Fn(u64) -> bool) {
    for _ in 0..400 {
        if wanted(metric(h, name)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("{name} never became {what}: {}", metric(h, name));
}

#[test]
fn connections_are_capped_per_address_and_a_closed_one_frees_its_place() {
    let h = start_full(None, WsConfig { connections_per_ip_max: 2, ..WsConfig::default() });
    let addr = h.server.http_addr().unwrap();
    let (mut first, second) = run(&h, async {
        let first = Client::connect(addr).await;
        let second = Client::connect(addr).await;
        let third = Client::try_connect_with(addr, "/ws", None).await;
        assert!(
            matches!(third, Err(fastwebsockets::WebSocketError::InvalidStatusCode(429))),
            "a third from the same address is refused: {:?}",
            third.err()
        );
        (first, second)
    });
    // The refused attempt holds no place: the two admitted are all that is open.
    assert_eq!(metric(&h, "ws_connections"), 2);
    run(&h, async {
        first.send_raw(OpCode::Close, &1000u16.to_be_bytes()).await;
        assert_eq!(first.closed().await, 1000);
    });
    drop(first);
    // The server lets go of the closed one's place once its task ends.
    await_metric(&h, "ws_connections", "below 2", |n| n < 2);
    run(&h, async {
        let mut again = Client::connect(addr).await;
        again.send(json!({"op": "ping", "id": 1})).await;
        assert_eq!(again.until("pong").await["id"], 1);
    });
    drop(second);
}

/// A product fed by a recording that plays three ticks and ends: nothing about it changes
/// afterwards, so whatever candle a new subscriber gets is the snapshot, not a live update.
#[test]
fn a_candle_subscription_starts_with_the_forming_candle() {
    let dir = tempfile::tempdir().unwrap();
    let recording = dir.path().join("sol.csv");
    std::fs::write(
        &recording,
        "time_ms,symbol,price,quantity\n1000,SOLUSDT,238.10,1\n2000,SOLUSDT,238.40,2\n3000,SOLUSDT,238.25,1\n",
    )
    .unwrap();
    let mut feeds = gateway::feeds::parse(&[], Some(42)).unwrap();
    let source =
        market_feed::source::SourceConfig::replay(recording, rust_decimal::Decimal::ZERO, false);
    feeds.assignments.push((source, vec![engine::types::Symbol::new("SOLUSDT").unwrap()]));
    let h = start_custom(None, WsConfig::default(), feeds, dir);
    let addr = h.server.http_addr().unwrap();
    run(&h, async {
        let mut c = Client::connect(addr).await;
        // The last recorded tick, as the ticks snapshot or live.
        c.send(json!({"op": "subscribe", "channel": "ticks", "symbol": "SOLUSDT"})).await;
        while c.until("tick").await["data"]["price"] != "238.25" {}

        c.send(json!({"op": "subscribe", "channel": "candles", "symbol": "SOLUSDT", "period": "1w", "id": 3}))
            .await;
        let ack = c.until("subscribed").await;
        assert_eq!(ack["id"], 3);
        let candle = c.until("candle").await["data"].clone();
        assert_eq!(
            (candle["symbol"].as_str(), candle["period"].as_str(), candle["closed"].as_bool()),
            (Some("SOLUSDT"), Some("1w"), Some(false))
        );
        assert_eq!(candle["close"], "238.25", "the candle as the last tick left it");
        let (high, low): (f64, f64) = (
            candle["high"].as_str().unwrap().parse().unwrap(),
            candle["low"].as_str().unwrap().parse().unwrap(),
        );
        assert!(high >= 238.40 && low <= 238.10, "every recorded tick is in it: {candle}");
        let week_ms = 7 * 86_400_000;
        let now = wal::pipeline::system_time_ms();
        assert!(now - candle["time"].as_u64().unwrap() < week_ms, "this week's bucket");
    });
}

#[test]
fn public_channels_send_snapshots_then_live_ticks_and_candles() {
    let h = start();
    let addr = h.server.http_addr().unwrap();
    let clients = run(&h, async {
        let mut c = Client::connect(addr).await;
        c.send(json!({"op": "subscribe", "channel": "tickers", "id": 1})).await;
        let ack = c.until("subscribed").await;
        assert_eq!(ack["id"], 1);
        assert_eq!(ack["data"]["channel"], "tickers");
        let snapshot = c.until("tickers").await;
        let items = snapshot["data"].as_array().unwrap();
        assert!(items.len() >= 30, "every product: {}", items.len());
        assert!(items.iter().any(|i| i["symbol"] == "EURUSD"));
        let ticker = c.until("ticker").await;
        assert!(ticker["data"]["price"].as_str().unwrap().parse::<f64>().unwrap() > 0.0);

        c.send(json!({"op": "subscribe", "channel": "ticks", "symbol": "btc/usdt", "id": "t"}))
            .await;
        let ack = c.until("subscribed").await;
        assert_eq!(
            (ack["id"].as_str(), ack["data"]["symbol"].as_str()),
            (Some("t"), Some("BTCUSDT"))
        );
        let first = c.until("tick").await;
        let second = loop {
            let tick = c.until("tick").await;
            if tick["data"]["symbol"] == "BTCUSDT"
                && tick["data"]["index"] != first["data"]["index"]
            {
                break tick;
            }
        };
        assert_eq!(first["data"]["symbol"], "BTCUSDT");
        assert!(
            second["data"]["index"].as_u64() > first["data"]["index"].as_u64(),
            "live and in order"
        );
        let now = wal::pipeline::system_time_ms();
        assert!(now.abs_diff(second["data"]["time"].as_u64().unwrap()) < 10_000, "sequencer time");

        c.send(
            json!({"op": "subscribe", "channel": "candles", "symbol": "ETHUSDT", "period": "1m"}),
        )
        .await;
        c.until("subscribed").await;
        let candle = c.until("candle").await;
        assert_eq!(
            (candle["data"]["symbol"].as_str(), candle["data"]["period"].as_str()),
            (Some("ETHUSDT"), Some("1m"))
        );
        assert_eq!(candle["data"]["time"].as_u64().unwrap() % 60_000, 0, "a minute bucket");

        c.send(json!({"op": "unsubscribe", "channel": "ticks", "symbol": "BTCUSDT", "id": 9}))
            .await;
        let ack = c.until("unsubscribed").await;
        assert_eq!((ack["id"].as_u64(), ack["data"]["channel"].as_str()), (Some(9), Some("ticks")));

        // The alias answers the same protocol.
        let mut alias = Client::connect_with(addr, "/trade", None).await;
        alias.send(json!({"op": "ping", "id": "p"})).await;
        let pong = alias.until("pong").await;
        assert_eq!(pong["id"], "p");
        (c, alias)
    });
    assert_eq!(metric(&h, "ws_connections"), 2);
    drop(clients);
    // A plain GET is told to use a websocket.
    h.get("/ws", None).fails(StatusCode::UPGRADE_REQUIRED, "UPGRADE_REQUIRED");
}

#[test]
fn bad_messages_get_clear_localised_errors_and_change_nothing() {
    let h = start();
    let addr = h.server.http_addr().unwrap();
    run(&h, async {
        let mut c = Client::connect_with(addr, "/ws?language=fr-FR", None).await;
        let error = |v: &Value| {
            (
                v["data"]["code"].as_str().unwrap().to_owned(),
                v["data"]["field"].as_str().map(String::from),
            )
        };
        c.send_raw(OpCode::Text, b"{not json").await;
        let e = c.until("error").await;
        assert_eq!(error(&e), ("BAD_MESSAGE".into(), None));
        assert!(e["data"]["message"].as_str().unwrap().contains("Le message"), "French: {e}");

        let cases = [
            (json!({"op": "dance", "id": 1}), "BAD_MESSAGE", None),
            (json!({"op": "subscribe", "channel": "news", "id": 2}), "UNKNOWN_CHANNEL", None),
            (
                json!({"op": "subscribe", "channel": "ticks", "symbol": "!!", "id": 3}),
                "VALIDATION",
                Some("symbol"),
            ),
            (
                json!({"op": "subscribe", "channel": "ticks", "symbol": "NOPEUSDT", "id": 4}),
                "PRODUCT_NOT_FOUND",
                None,
            ),
            (
                json!({"op": "subscribe", "channel": "candles", "symbol": "BTCUSDT", "period": "7m", "id": 5}),
                "VALIDATION",
                Some("period"),
            ),
            (
                json!({"op": "order", "symbol": "BTCUSDT", "direction": "up", "amount": "10", "duration": 60, "id": 6}),
                "UNAUTHORIZED",
                None,
            ),
            (json!({"op": "auth", "token": "forged", "id": 7}), "UNAUTHORIZED", None),
        ];
        for (message, code, field) in cases {
            let id = message["id"].clone();
            c.send(message).await;
            let e = c.until("error").await;
            assert_eq!(e["id"], id, "the request id is echoed");
            assert_eq!(error(&e), (code.to_owned(), field.map(String::from)), "for request {id}");
        }
        c.send_raw(OpCode::Binary, b"\x01\x02").await;
        assert_eq!(error(&c.until("error").await).0, "BAD_MESSAGE");

        // The subscription limit.
        let symbols = [
            "BTCUSDT", "ETHUSDT", "BNBUSDT", "SOLUSDT", "XRPUSDT", "DOGEUSDT", "ADAUSDT",
            "TRXUSDT", "TONUSDT",
        ];
        let periods = ["1m", "5m", "15m", "30m", "1h", "4h", "1d", "1w"];
        let mut refused = None;
        'outer: for symbol in symbols {
            for period in periods {
                c.send(json!({"op": "subscribe", "channel": "candles", "symbol": symbol, "period": period})).await;
                // The answer, past the candles the subscriptions so far deliver.
                let answer = loop {
                    match c.next().await {
                        Msg::Json(v) if v["type"] == "candle" => {}
                        Msg::Ping => {}
                        other => break other,
                    }
                };
                match answer {
                    Msg::Json(v) if v["type"] == "subscribed" => {}
                    Msg::Json(v) if v["type"] == "error" => {
                        refused = Some(v);
                        break 'outer;
                    }
                    other => panic!("unexpected {other:?}"),
                }
            }
        }
        let refused = refused.expect("refused past the limit");
        assert_eq!(refused["data"]["code"], "TOO_MANY_SUBSCRIPTIONS");
        assert!(refused["data"]["message"].as_str().unwrap().contains("64"));

        // Still usable after all that.
        c.send(json!({"op": "ping", "id": "alive"})).await;
        assert_eq!(c.until("pong").await["id"], "alive");

        // A message of exactly the documented limit is read; one byte more closes with 1009;
        // a fragment with 1002.
        let limit = gateway::ws::WsConfig::default().message_bytes_max;
        let ping = br#"{"op":"ping","id":"big"}"#;
        let mut exact = ping.to_vec();
        exact.resize(limit, b' ');
        c.send_raw(OpCode::Text, &exact).await;
        assert_eq!(c.until("pong").await["id"], "big");
        exact.push(b' ');
        c.send_raw(OpCode::Text, &exact).await;
        assert_eq!(c.closed().await, CLOSE_TOO_BIG);
        let mut f = Client::connect(addr).await;
        f.ws.write_frame(Frame::new(false, OpCode::Text, None, Payload::Borrowed(b"{\"op\"")))
            .await
            .unwrap();
        assert_eq!(f.closed().await, CLOSE_PROTOCOL_ERROR);
        // A frame the client did not mask is closed with 1002 (RFC 6455 §5.1), not answered.
        let mut bare = Client::connect(addr).await;
        bare.ws.set_auto_apply_mask(false);
        bare.send_raw(OpCode::Text, br#"{"op":"ping","id":"bare"}"#).await;
        match bare.next().await {
            Msg::Close(code, _) => assert_eq!(code, CLOSE_PROTOCOL_ERROR),
            other => panic!("an unmasked frame was answered: {other:?}"),
        }
    });
}

#[test]
fn the_private_stream_carries_orders_entries_settlements_balances_and_notices() {
    let h = start();
    let addr = h.server.http_addr().unwrap();
    let admin = h.admin();
    let rule = json!({"duration": 5, "payoutRate": "0.8", "minAmount": "1", "maxAmount": "100", "feeRate": "0.01", "enabled": true});
    h.call(Method::PUT, "/api/admin/rules", Some(&admin), Some(rule)).ok();
    let (uid, token) = h.user("walt");
    let after = run(&h, async {
        let mut c = Client::connect(addr).await;
        c.send(json!({"op": "auth", "token": token, "id": "a"})).await;
        let auth = c.until("authenticated").await;
        assert_eq!(
            (auth["id"].as_str(), auth["data"]["user"].as_u64()),
            (Some("a"), Some(u64::from(uid)))
        );

        let bad = json!({"op": "order", "id": "bad", "symbol": "BTCUSDT", "direction": "up", "amount": "ten", "duration": 5, "account": "demo"});
        c.send(bad).await;
        let e = c.until("error").await;
        assert_eq!((e["id"].as_str(), e["data"]["field"].as_str()), (Some("bad"), Some("amount")));
        // A field of the wrong type: the id still comes back, with the field named.
        let typed = json!({"op": "order", "id": "typed", "symbol": "BTCUSDT", "direction": "up", "amount": "10", "duration": "5", "account": "demo"});
        c.send(typed).await;
        let e = c.until("error").await;
        assert_eq!(
            (e["id"].as_str(), e["data"]["field"].as_str(), e["data"]["code"].as_str()),
            (Some("typed"), Some("duration"), Some("VALIDATION"))
        );
        assert_eq!(e["data"]["message"], "The value of \"duration\" is not valid");

        let order = json!({"op": "order", "id": "o-1", "symbol": "BTCUSDT", "direction": "up", "amount": "10", "duration": 5, "account": "demo"});
        c.send(order).await;
        let mut seen = std::collections::HashMap::new();
        // The reply, then the private events of the contract's whole life, in any interleaving
        // of the reply and the stream, up to the settlement. The engine emits a settlement's
        // wallet change before the settlement itself, so its balance frame is in by then.
        while !seen.contains_key("order.settled") {
            if let Msg::Json(v) = c.next().await {
                let kind = v["type"].as_str().unwrap().to_owned();
                seen.entry(kind).or_insert_with(Vec::new).push(v);
            }
        }
        let reply = &seen["order"][0];
        assert_eq!(reply["id"], "o-1");
        let contract = reply["data"]["contractId"].as_u64().unwrap();
        assert_eq!(reply["data"]["fee"], "0.10");
        let accepted = &seen["order.accepted"][0]["data"];
        assert_eq!(
            (
                accepted["contractId"].as_u64(),
                accepted["amount"].as_str(),
                accepted["account"].as_str()
            ),
            (Some(contract), Some("10.00"), Some("demo"))
        );
        let entered = &seen["order.entered"][0]["data"];
        assert_eq!(entered["contractId"].as_u64(), Some(contract));
        assert_eq!(
            entered["expiresAt"].as_u64().unwrap() - entered["entryTime"].as_u64().unwrap(),
            5_000
        );
        let settled = &seen["order.settled"][0]["data"];
        assert_eq!(settled["contractId"].as_u64(), Some(contract));
        let profit: f64 = settled["profit"].as_str().unwrap().parse().unwrap();
        let expected_result = if profit > 0.0 {
            "profit"
        } else if profit < 0.0 {
            "loss"
        } else {
            "even"
        };
        assert_eq!(settled["result"], expected_result);
        assert_eq!(settled["amount"].as_str().unwrap().parse::<f64>().unwrap(), profit.abs());
        let fee =
            seen["balance"].iter().find(|b| b["data"]["bill"] == "fee").expect("the fee bill");
        assert_eq!(
            (fee["data"]["change"].as_str(), fee["data"]["amount"].as_str()),
            (Some("decrease"), Some("0.10"))
        );
        assert_eq!(fee["data"]["account"], "demo");

        // The settlement's wallet change: its direction follows the outcome, and its new
        // balance is the wallet's.
        let last = &seen["balance"].last().unwrap()["data"];
        assert_eq!(last["reference"].as_u64(), Some(contract));
        let expected = match settled["outcome"].as_str().unwrap() {
            "win" => ("increase", Some("profit")),
            "loss" => ("decrease", Some("loss")),
            other => {
                assert_eq!(other, "tie", "a 5 s contract on a live feed is not void");
                ("unchanged", None)
            }
        };
        assert_eq!(
            (last["change"].as_str(), last["bill"].as_str()),
            (Some(expected.0), expected.1)
        );
        last["available"].clone()
    });
    let wallet = h.get("/api/wallet/balance?account=demo", Some(&token));
    assert_eq!(after, wallet.ok()["available"], "the new balance is the wallet's");
    // An order from another device (HTTP) shows on the socket too.
    let mut c = run(&h, async {
        let mut c = Client::connect(addr).await;
        c.send(json!({"op": "auth", "token": token})).await;
        c.until("authenticated").await;
        c
    });
    let order = json!({"symbol": "ETHUSDT", "direction": "down", "amount": "3", "duration": 5, "account": "demo"});
    let placed = h.post("/api/trade/orders", Some(&token), order).ok()["contractId"].as_u64();
    h.post(
        "/api/admin/notices",
        Some(&admin),
        json!({"title": "Maintenance", "body": "Tonight at 22:00"}),
    )
    .ok();
    run(&h, async {
        let accepted = c.until("order.accepted").await;
        assert_eq!(
            (accepted["data"]["contractId"].as_u64(), accepted["data"]["symbol"].as_str()),
            (placed, Some("ETHUSDT"))
        );
        let notice = c.until("notice").await;
        assert_eq!(
            (notice["data"]["title"].as_str(), notice["data"]["body"].as_str()),
            (Some("Maintenance"), Some("Tonight at 22:00"))
        );
    });
    // Signing out ends the session: the socket is closed with its code.
    h.post("/api/login/logout", Some(&token), json!({})).ok();
    run(&h, async {
        assert_eq!(c.closed().await, CLOSE_SESSION_ENDED);
    });
}

#[test]
fn a_slow_consumer_gets_the_latest_ticks_and_stays_connected() {
    let ws = WsConfig { socket_send_buffer_bytes: Some(4_096), ..WsConfig::default() };
    let h = start_full(None, ws);
    let addr = h.server.http_addr().unwrap();
    let mut c = run(&h, async {
        let mut c = Client::connect_with(addr, "/ws", Some(1_024)).await;
        c.send(json!({"op": "subscribe", "channel": "tickers"})).await;
        for symbol in ["BTCUSDT", "ETHUSDT", "SOLUSDT", "BNBUSDT", "XRPUSDT"] {
            c.send(json!({"op": "subscribe", "channel": "ticks", "symbol": symbol})).await;
        }
        c
    });
    // Not reading: the socket's buffers fill, then the server coalesces what waits.
    await_metric(&h, "ws_coalesced", "at least 20", |n| n >= 20);
    run(&h, async {
        let mut last = std::collections::HashMap::new();
        for _ in 0..400 {
            let tick = c.until("tick").await;
            let (symbol, index) = (
                tick["data"]["symbol"].as_str().unwrap().to_owned(),
                tick["data"]["index"].as_u64().unwrap(),
            );
            let previous = last.insert(symbol.clone(), index);
            assert!(
                previous.is_none_or(|p| p < index),
                "{symbol}: {previous:?} then {index}: never stale, never twice"
            );
        }
    });
    assert_eq!(metric(&h, "ws_resync_closes"), 0, "market data never closes a socket");
    assert_eq!(metric(&h, "ws_connections"), 1);
}

#[test]
fn a_private_stream_that_overflows_is_closed_for_resync_not_dropped() {
    let ws = WsConfig {
        send_queue_max: 4,
        socket_send_buffer_bytes: Some(4_096),
        ..WsConfig::default()
    };
    let h = start_full(None, ws);
    let addr = h.server.http_addr().unwrap();
    let admin = h.admin();
    let (_, token) = h.user("slow");
    let mut c = run(&h, async {
        let mut c = Client::connect_with(addr, "/ws", Some(1_024)).await;
        c.send(json!({"op": "auth", "token": token})).await;
        c.until("authenticated").await;
        c
    });
    // Large notices until the kernel's buffers and the 4-frame queue are full.
    let body = "x".repeat(2_000);
    let mut sent = 0;
    while metric(&h, "ws_resync_closes") == 0 {
        assert!(sent < 2_000, "the queue never overflowed");
        h.post(
            "/api/admin/notices",
            Some(&admin),
            json!({"title": format!("n{sent}"), "body": body}),
        )
        .ok();
        sent += 1;
    }
    run(&h, async {
        // Every notice that was delivered came in order and without a gap, then the close.
        let mut expected = 0;
        loop {
            match c.next().await {
                Msg::Json(v) if v["type"] == "notice" => {
                    assert_eq!(v["data"]["title"], format!("n{expected}"));
                    expected += 1;
                }
                Msg::Json(_) | Msg::Ping => {}
                Msg::Close(code, reason) => {
                    assert_eq!((code, reason.as_str()), (CLOSE_RESYNC, "resync"));
                    break;
                }
            }
        }
        assert!(expected < sent, "the overflow was announced, not hidden: {expected} of {sent}");
    });
}

#[test]
fn the_heartbeat_closes_a_silent_client_and_keeps_a_live_one() {
    let ws = WsConfig {
        ping_interval: Duration::from_millis(100),
        idle_timeout: Duration::from_millis(1_000),
        ..WsConfig::default()
    };
    let h = start_full(None, ws);
    let addr = h.server.http_addr().unwrap();
    run(&h, async {
        let mut silent = Client::connect(addr).await;
        silent.ws.set_auto_pong(false);
        let mut live = Client::connect(addr).await;
        live.ws.set_auto_pong(false);
        // The live client answers every ping; the silent one never does.
        let mut pings = 0;
        while pings < 12 {
            match live.next().await {
                Msg::Ping => {
                    pings += 1;
                    live.send_raw(OpCode::Pong, b"").await;
                }
                Msg::Close(code, _) => panic!("a live client was closed: {code}"),
                Msg::Json(_) => {}
            }
        }
        let mut silent_pings = 0;
        let code = loop {
            match silent.next().await {
                Msg::Ping => silent_pings += 1,
                Msg::Close(code, _) => break code,
                Msg::Json(_) => {}
            }
        };
        assert!(silent_pings >= 1, "it was pinged first");
        assert_eq!(code, CLOSE_HEARTBEAT_TIMEOUT);
    });
}

#[test]
fn the_message_rate_limit_refuses_then_closes() {
    let h = start();
    let addr = h.server.http_addr().unwrap();
    run(&h, async {
        let mut c = Client::connect(addr).await;
        for _ in 0..400 {
            if !c.try_send_raw(OpCode::Text, br#"{"op":"ping"}"#).await {
                break; // closed for the rate: what it sent before is still answered
            }
        }
        let (mut pongs, mut limited) = (0, 0);
        let code = loop {
            match c.next().await {
                Msg::Json(v) if v["type"] == "pong" => pongs += 1,
                Msg::Json(v) if v["data"]["code"] == "RATE_LIMITED" => limited += 1,
                Msg::Json(v) => panic!("unexpected {v}"),
                Msg::Ping => {}
                Msg::Close(code, _) => break code,
            }
        };
        // The burst (100) is served, plus what the bucket refilled (50/s) while sending.
        assert!((100..400).contains(&pongs), "the burst is served, not everything: {pongs}");
        assert!(limited >= 1, "then refused with a reason");
        assert_eq!(code, CLOSE_POLICY);
    });
}

#[test]
fn a_price_alert_fires_once_live_and_is_kept_in_the_fired_list() {
    use engine::{Command, Reply};
    use rust_decimal::Decimal;
    let h = start();
    let addr = h.server.http_addr().unwrap();
    let (_, token) = h.user("paula");
    let btc = btc();
    let last = btc_last(&h);
    let set = |price: String| {
        h.post(
            "/api/user/price-alerts",
            Some(&token),
            json!({"symbol": "btc/usdt", "price": price}),
        )
    };
    // Bad input is refused with the field named, and sets nothing.
    set("abc".into()).fails(StatusCode::BAD_REQUEST, "VALIDATION");
    set("0".into()).fails(StatusCode::BAD_REQUEST, "VALIDATION");
    set("1.001".into()).fails(StatusCode::BAD_REQUEST, "VALIDATION");
    let unknown =
        h.post("/api/user/price-alerts", Some(&token), json!({"symbol": "NOPE1", "price": "1"}));
    unknown.fails(StatusCode::NOT_FOUND, "PRODUCT_NOT_FOUND");
    assert_eq!(h.get("/api/user/price-alerts", Some(&token)).ok()["waiting"], json!([]));

    // Far above the simulated market: only the tick this test sequences reaches it.
    let level = (last * Decimal::from(3)).round_dp(2);
    let alert = set(level.to_string());
    assert_eq!(alert.ok()["direction"], "above");
    let id = alert.ok()["id"].as_u64().unwrap();
    let listed = h.get("/api/user/price-alerts", Some(&token));
    assert_eq!(
        (listed.ok()["waiting"][0]["id"].as_u64(), listed.ok()["max"].as_u64()),
        (Some(id), Some(20))
    );
    let doomed =
        set((last * Decimal::from(4)).round_dp(2).to_string()).ok()["id"].as_u64().unwrap();
    h.call(Method::DELETE, &format!("/api/user/price-alerts/{doomed}"), Some(&token), None).ok();
    h.call(Method::DELETE, &format!("/api/user/price-alerts/{doomed}"), Some(&token), None)
        .fails(StatusCode::NOT_FOUND, "PRICE_ALERT_NOT_FOUND");

    let above = (last * Decimal::from(5)).round_dp(2);
    let frame = run(&h, async {
        let mut c = Client::connect(addr).await;
        c.send(json!({"op": "auth", "token": token})).await;
        c.until("authenticated").await;
        let tick = Command::Tick { symbol: btc, price: above, quantity: Decimal::ZERO };
        assert!(matches!(
            h.state.submit(IdempotencyKey::NONE, tick).await,
            Ok(Reply::Clock { .. })
        ));
        c.until("priceAlert").await
    });
    assert_eq!(frame["data"]["id"].as_u64(), Some(id));
    assert_eq!(frame["data"]["symbol"], "BTCUSDT");
    assert_eq!(frame["data"]["firedPrice"], above.to_string());
    assert_eq!(frame["data"]["price"], level.to_string());
    assert!(frame["data"]["firedSequence"].as_u64().is_some());

    // Gone from the waiting list, kept once in the fired list (the notification centre's
    // catch-up), even after the simulated feed crosses the level again on its way down.
    assert_eq!(h.get("/api/user/price-alerts", Some(&token)).ok()["waiting"], json!([]));
    let fired = h.get("/api/user/price-alerts/fired", Some(&token));
    assert_eq!(fired.ok()["total"].as_u64(), Some(1), "{:?}", fired.body);
    assert_eq!(fired.ok()["items"][0]["firedPrice"], above.to_string());
    h.get("/api/user/price-alerts", None).fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

#[test]
fn the_back_office_stream_carries_every_contract_and_ends_with_the_admin_session() {
    let h = start();
    let addr = h.server.http_addr().unwrap();
    let admin = h.admin();
    let rule = json!({"duration": 5, "payoutRate": "0.8", "minAmount": "1", "maxAmount": "100", "feeRate": "0", "enabled": true});
    h.call(Method::PUT, "/api/admin/rules", Some(&admin), Some(rule)).ok();
    h.post(
        "/api/admin/admins",
        Some(&admin),
        json!({"username": "ops9", "password": "admin-pass", "role": "operations"}),
    )
    .ok();
    let (uid, token) = h.user("tess");
    let mut watcher = run(&h, async {
        let mut c = Client::connect(addr).await;
        // A user's token is not an admin's.
        c.send(json!({"op": "adminAuth", "token": token, "id": "u"})).await;
        let refused = c.until("error").await;
        assert_eq!(
            (refused["id"].as_str(), refused["data"]["code"].as_str()),
            (Some("u"), Some("UNAUTHORIZED"))
        );
        c.send(json!({"op": "adminAuth", "token": admin, "id": "a"})).await;
        let ok = c.until("adminAuthenticated").await;
        assert_eq!(ok["id"], "a");
        c
    });
    let order = json!({"symbol": "BTCUSDT", "direction": "up", "amount": "7", "duration": 5, "account": "demo"});
    let placed = h.post("/api/trade/orders", Some(&token), order).ok()["contractId"].as_u64();
    run(&h, async {
        let mut kinds = Vec::new();
        while kinds.last().map(String::as_str) != Some("settled") {
            let frame = watcher.until("adminTrade").await;
            let data = &frame["data"];
            let kind = data["kind"].as_str().unwrap().to_owned();
            match kind.as_str() {
                "opened" | "settled" => {
                    assert_eq!(data["contract"]["id"].as_u64(), placed);
                    assert_eq!(data["contract"]["user"].as_u64(), Some(u64::from(uid)));
                    assert_eq!(data["contract"]["stake"], "7.00");
                }
                _ => assert_eq!(data["entered"]["id"].as_u64(), placed),
            }
            kinds.push(kind);
        }
        assert_eq!(kinds, ["opened", "entered", "settled"]);
    });
    // Signing the admin out closes its stream.
    h.post("/api/admin/logout", Some(&admin), json!({})).ok();
    run(&h, async {
        assert_eq!(watcher.closed().await, CLOSE_SESSION_ENDED);
    });
}

#[test]
fn a_withdrawn_notice_is_announced_to_open_apps() {
    let h = start();
    let addr = h.server.http_addr().unwrap();
    let admin = h.admin();
    let (_, token) = h.user("nina");
    let mut c = run(&h, async {
        let mut c = Client::connect(addr).await;
        c.send(json!({"op": "auth", "token": token})).await;
        c.until("authenticated").await;
        c
    });
    h.post(
        "/api/admin/notices",
        Some(&admin),
        json!({"title": "Hola", "body": "b", "lang": "es-ES"}),
    )
    .ok();
    let id = run(&h, async {
        let notice = c.until("notice").await;
        assert_eq!(
            (notice["data"]["title"].as_str(), notice["data"]["lang"].as_str()),
            (Some("Hola"), Some("es-ES"))
        );
        notice["data"]["id"].as_u64().unwrap()
    });
    h.call(Method::DELETE, &format!("/api/admin/notices/{id}"), Some(&admin), None).ok();
    run(&h, async {
        let withdrawn = c.until("noticeWithdrawn").await;
        assert_eq!(withdrawn["data"]["id"].as_u64(), Some(id));
    });
}

/// Early close's live offer: an entered contract of a signed-in trader gets an `order.offer`
/// frame at its product's ticks, with the offer the engine would pay then; once sold, the
/// settlement says so.
#[test]
fn an_entered_contract_receives_its_live_offer_at_each_tick() {
    use engine::{Command, Reply};
    use rust_decimal::Decimal;
    let h = start();
    let addr = h.server.http_addr().unwrap();
    let (uid, token) = h.user("quinn");
    let last = warm_up_btc(&h);
    let tick = |price| btc_tick(&h, price);
    let body = json!({"symbol": "BTCUSDT", "direction": "down", "amount": "10", "duration": 60, "account": "demo"});
    let id = h.post("/api/trade/orders", Some(&token), body).ok()["contractId"].as_u64().unwrap();
    tick(last);
    let (offer, settled) = run(&h, async {
        let mut c = Client::connect(addr).await;
        c.send(json!({"op": "auth", "token": token})).await;
        c.until("authenticated").await;
        tick(last);
        let offer = loop {
            let frame = c.until("order.offer").await;
            if frame["data"]["contractId"].as_u64() == Some(id)
                && frame["data"]["offer"].is_string()
            {
                break frame;
            }
        };
        let seen: Decimal = offer["data"]["offer"].as_str().unwrap().parse().unwrap();
        let contract = engine::types::ContractId(id);
        let expiry_ms =
            h.state.handle.query_async(move |e| e.contract(contract).map(|c| c.expiry_ms));
        let expiry_ms = expiry_ms.await.unwrap().unwrap();
        // Sold at the offer of now if it is still at least a cent.
        let sale = engine::command::SellContract {
            user: engine::types::UserId(uid),
            contract,
            symbol: btc(),
            expiry_ms,
            seen: seen.min(Decimal::new(1, 2)),
        };
        let sold = h.state.submit(IdempotencyKey::NONE, Command::SellContract(sale)).await;
        assert!(matches!(sold, Ok(Reply::Sold { .. })), "{sold:?}");
        (offer, c.until("order.settled").await)
    });
    assert!(offer["data"]["tickIndex"].as_u64().is_some());
    assert_eq!(offer["data"]["reason"], Value::Null);
    assert_eq!(settled["data"]["contractId"].as_u64(), Some(id));
    assert_eq!(settled["data"]["outcome"], "sold");
}
