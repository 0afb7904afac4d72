//! The websocket load generator.
//!
//! Opens N websocket clients from several loopback source addresses (127.0.0.1, .2, ...: one
//! address has only ~28k ephemeral ports), then, by `--mode`:
//!
//! - `orders`: each client authenticates as one of `--users` demo traders and places orders
//!   at a fixed, open-loop rate (`--rate` in all). Each order's id is its *intended* send time,
//!   so latency is measured from when it should have been sent: a stalled server cannot hide
//!   its stall by slowing the generator down (coordinated omission). Reports replies/s and
//!   latency percentiles (hdrhistogram).
//! - `ticks`: each client subscribes to one symbol's ticks; reports deliveries/s and tick
//!   delivery latency (now minus the tick's sequencer time, ms).
//! - `idle`: clients connect and stay quiet; with `--server-pid`, reports the server's memory
//!   per connection.
//!
//! With `--server-pid` in the other modes, the server's CPU time (user + system, from
//! `/proc`) over the measured window is reported per answer, and by thread name. With
//! `--metrics` (the server's `--metrics-listen` address), the history's lag behind the engine
//! (commands applied minus the read model's index) is sampled every half second over the
//! window, and the time it takes to catch up once the load stops is reported.
//!
//! With `--echo` the server is the plain fastwebsockets echo baseline (`ws-echo`): no set-up,
//! no auth, the order frame itself comes back as the reply.
//!
//! ```text
//! cargo run --release -p benches --bin loadgen -- --mode orders --clients 100 --rate 20000 \
//!     --admin-password PW [--server 127.0.0.1:8080] [--seconds 10] [--warmup 3]
//! ```

// Rates and latencies are reported as floats; no money is computed here.
#![allow(clippy::float_arithmetic)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use clap::{Parser, ValueEnum};
use fastwebsockets::{Frame, OpCode, Payload, WebSocket};
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Empty, Full};
use hyper::upgrade::Upgraded;
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::Semaphore;

/// Handshakes in flight at once while connecting (the listener's backlog is finite).
const CONNECTS_IN_FLIGHT_MAX: usize = 256;
/// How long replies are still awaited after the last order is sent.
const DRAIN: Duration = Duration::from_secs(3);
/// Highest latency the histograms hold (µs).
const LATENCY_MAX_US: u64 = 120_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    Orders,
    Ticks,
    Idle,
}

#[derive(Debug, Parser)]
#[command(name = "loadgen", about = "Websocket load generator for the trading server.")]
struct Args {
    /// What the clients do.
    #[arg(long, value_enum, default_value = "orders")]
    mode: Mode,
    /// The server's address.
    #[arg(long, default_value = "127.0.0.1:8080")]
    server: SocketAddr,
    /// The websocket's path.
    #[arg(long, default_value = "/ws")]
    path: String,
    /// Websocket clients.
    #[arg(long, default_value_t = 100)]
    clients: usize,
    /// Loopback source addresses to spread the clients over (127.0.0.1 upwards).
    #[arg(long, default_value_t = 4)]
    sources: u8,
    /// Orders per second offered, all clients together (orders mode).
    #[arg(long, default_value_t = 20_000)]
    rate: u64,
    /// Measured seconds.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Seconds of load before measuring.
    #[arg(long, default_value_t = 3)]
    warmup: u64,
    /// Traders to register (orders mode); each holds at most 200 open contracts.
    #[arg(long, default_value_t = 200)]
    users: usize,
    /// Contract length in seconds; a rule of this length is added (5 keeps few contracts open).
    #[arg(long, default_value_t = 5)]
    duration: u32,
    /// First admin's name (to add the rule).
    #[arg(long, default_value = "admin")]
    admin_username: String,
    /// First admin's password (orders mode, unless --echo).
    #[arg(long)]
    admin_password: Option<String>,
    /// The server is the plain echo baseline.
    #[arg(long)]
    echo: bool,
    /// Symbols for orders and tick subscriptions, comma-separated.
    #[arg(long, default_value = "BTCUSDT,ETHUSDT,SOLUSDT,BNBUSDT")]
    symbols: String,
    /// The server's process id, to report its memory per connection or its CPU per answer.
    #[arg(long)]
    server_pid: Option<u32>,
    /// The server's metrics address, to report how far history lags behind the engine.
    #[arg(long)]
    metrics: Option<SocketAddr>,
    /// Runtime worker threads of the generator.
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

type Ws = WebSocket<TokioIo<Upgraded>>;

struct SpawnExecutor;

impl<F> hyper::rt::Executor<F> for SpawnExecutor
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, future: F) {
        tokio::spawn(future);
    }
}

/// What every client adds to.
#[derive(Default)]
struct Counters {
    sent: AtomicU64,
    /// Answers received in the window: accepted orders (or echoes) and ticks.
    ok: AtomicU64,
    /// Error answers in the window.
    refused: AtomicU64,
    /// Private events in the window.
    events: AtomicU64,
    /// Connections closed by the server early.
    closed: AtomicU64,
    /// The first error answer, to say why orders were refused.
    first_refusal: std::sync::Mutex<Option<String>>,
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// User + system CPU time of each of a process's threads (clock ticks), summed by thread name.
fn cpu_ticks_by_thread(pid: u32) -> std::collections::BTreeMap<String, u64> {
    let mut by_name = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return by_name };
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else { continue };
        // The name is in parentheses and may hold spaces; the fields after it are fixed.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let field = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
        // utime and stime are the 14th and 15th fields; the 3rd is the first after the name.
        *by_name.entry(stat[open + 1..close].to_owned()).or_insert(0) += field(11) + field(12);
    }
    by_name
}

/// The server's CPU over the window: the total per answer, and the threads that spent it.
fn report_cpu(
    before: &std::collections::BTreeMap<String, u64>,
    after: &std::collections::BTreeMap<String, u64>,
    answers: u64,
    seconds: f64,
) {
    // Linux's USER_HZ (the unit of /proc's times) is 100 on x86 and arm.
    const TICK_US: f64 = 10_000.0;
    let mut spent: Vec<(&str, u64)> = after
        .iter()
        .map(|(name, &t)| (name.as_str(), t.saturating_sub(before.get(name).copied().unwrap_or(0))))
        .filter(|&(_, t)| t > 0)
        .collect();
    spent.sort_by_key(|&(_, t)| std::cmp::Reverse(t));
    let total: u64 = spent.iter().map(|&(_, t)| t).sum();
    let threads: Vec<String> = spent
        .iter()
        .map(|&(name, t)| format!("{name} {:.2}", t as f64 * TICK_US / 1e6 / seconds))
        .collect();
    println!(
        "server CPU: {:.1} µs per answer ({:.2} cores; by thread, cores: {})",
        total as f64 * TICK_US / answers.max(1) as f64,
        total as f64 * TICK_US / 1e6 / seconds,
        threads.join(", ")
    );
}

/// How often the history's lag is sampled, and how long it is awaited after the load.
const LAG_SAMPLE: Duration = Duration::from_millis(500);
const CATCH_UP_MAX: Duration = Duration::from_secs(120);

/// Commands the engine has applied and the index the history has projected, from the
/// server's Prometheus text.
async fn history_position(metrics: SocketAddr) -> Result<(u64, u64), String> {
    let stream = tokio::net::TcpStream::connect(metrics).await.map_err(|e| e.to_string())?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let request = hyper::Request::builder()
        .uri("/metrics")
        .header("host", metrics.to_string())
        .body(Empty::<Bytes>::new())
        .map_err(|e| e.to_string())?;
    let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
    let bytes = response.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    let text = String::from_utf8_lossy(&bytes);
    let value = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse::<u64>().ok())
            .ok_or_else(|| format!("no {name} in the server's metrics"))
    };
    Ok((value("trading_engine_commands")?, value("trading_readmodel_index")?))
}

/// The history's largest lag over the window, and how long after it the history caught up.
async fn history_lag(metrics: SocketAddr, window: Window) -> Result<HistoryLag, String> {
    tokio::time::sleep_until((window.start + Duration::from_micros(window.from_us)).into()).await;
    let end = window.start + Duration::from_micros(window.to_us);
    let (first, began) = (history_position(metrics).await?.0, Instant::now());
    let (mut largest, mut last) = (0, first);
    while Instant::now() < end {
        let (commands, projected) = history_position(metrics).await?;
        largest = largest.max(commands.saturating_sub(projected));
        last = commands;
        tokio::time::sleep(LAG_SAMPLE).await;
    }
    let stopped = Instant::now();
    let rate = (last - first) as f64 / (stopped - began).as_secs_f64().max(1e-3);
    let lag =
        HistoryLag { largest, seconds: largest as f64 / rate.max(1.0), rate, caught_up: None };
    // The load stops at the window's end (replies are still drained): from there the engine
    // applies little, and the history is caught up once it reaches what the engine applied.
    while stopped.elapsed() < CATCH_UP_MAX {
        let (commands, projected) = history_position(metrics).await?;
        if projected >= commands {
            return Ok(HistoryLag { caught_up: Some(stopped.elapsed()), ..lag });
        }
        tokio::time::sleep(LAG_SAMPLE / 5).await;
    }
    Ok(lag)
}

/// How far the history fell behind the engine over a run.
struct HistoryLag {
    /// Largest lag sampled, in commands.
    largest: u64,
    /// The same in seconds of the engine's rate over the window.
    seconds: f64,
    /// Commands the engine applied per second over the window.
    rate: f64,
    /// How long after the window the history had projected everything (none: not within
    /// [`CATCH_UP_MAX`]).
    caught_up: Option<Duration>,
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// One HTTP/1.1 call with a JSON body; answers the envelope's `data`.
async fn http(
    server: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Value,
) -> Result<Value, String> {
    let stream = tokio::net::TcpStream::connect(server).await.map_err(|e| e.to_string())?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let mut request = hyper::Request::builder()
        .method(method)
        .uri(path)
        .header("host", server.to_string())
        .header("content-type", "application/json");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let request =
        request.body(Full::new(Bytes::from(body.to_string()))).map_err(|e| e.to_string())?;
    let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
    let bytes = response.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    let envelope: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    if envelope["success"] != true {
        return Err(format!("{method} {path}: {envelope}"));
    }
    Ok(envelope["data"].clone())
}

/// Adds the contract rule and registers the traders; returns their tokens.
async fn set_up(args: &Args) -> Result<Vec<String>, String> {
    let password = args.admin_password.as_deref().ok_or("orders mode needs --admin-password")?;
    let admin = http(
        args.server,
        "POST",
        "/api/admin/login",
        None,
        json!({"username": args.admin_username, "password": password}),
    )
    .await?;
    let admin = admin["token"].as_str().ok_or("no admin token")?.to_owned();
    let rule = json!({"duration": args.duration, "payoutRate": "0.8", "minAmount": "1", "maxAmount": "1000", "feeRate": "0.01", "enabled": true});
    http(args.server, "PUT", "/api/admin/rules", Some(&admin), rule).await?;
    let run = now_ms() % 1_000_000;
    let started = Instant::now();
    let mut tokens = Vec::with_capacity(args.users);
    let mut pending = tokio::task::JoinSet::new();
    for i in 0..args.users {
        let server = args.server;
        pending.spawn(async move {
            let name = format!("lg{run}u{i}");
            let body = json!({"username": name, "email": format!("{name}@example.com"), "password": "secret1"});
            http(server, "POST", "/api/login/register", None, body).await?;
            let login = json!({"username": name, "password": "secret1"});
            let data = http(server, "POST", "/api/login/login", None, login).await?;
            data["token"].as_str().map(String::from).ok_or_else(|| "no token".to_owned())
        });
        if pending.len() >= 8 {
            tokens.push(pending.join_next().await.expect("a task").map_err(|e| e.to_string())??);
        }
    }
    while let Some(token) = pending.join_next().await {
        tokens.push(token.map_err(|e| e.to_string())??);
    }
    eprintln!("set-up: {} traders in {:.1} s", tokens.len(), started.elapsed().as_secs_f64());
    Ok(tokens)
}

/// Opens one websocket from `source`.
async fn connect(server: SocketAddr, path: &str, source: Ipv4Addr) -> Result<Ws, String> {
    let socket = tokio::net::TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket.bind(SocketAddr::new(IpAddr::V4(source), 0)).map_err(|e| e.to_string())?;
    let stream = socket.connect(server).await.map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let request = hyper::Request::builder()
        .method("GET")
        .uri(format!("http://{server}{path}"))
        .header("host", server.to_string())
        .header(hyper::header::UPGRADE, "websocket")
        .header(hyper::header::CONNECTION, "upgrade")
        .header("sec-websocket-key", fastwebsockets::handshake::generate_key())
        .header("sec-websocket-version", "13")
        .body(Empty::<Bytes>::new())
        .map_err(|e| e.to_string())?;
    let (ws, _) = fastwebsockets::handshake::client(&SpawnExecutor, request, stream)
        .await
        .map_err(|e| e.to_string())?;
    Ok(ws)
}

async fn send(ws: &mut Ws, text: &str) -> Result<(), String> {
    ws.write_frame(Frame::text(Payload::Borrowed(text.as_bytes()))).await.map_err(|e| e.to_string())
}

/// Reads until a frame of `kind`.
async fn await_type(ws: &mut Ws, kind: &str) -> Result<(), String> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(30), ws.read_frame())
            .await
            .map_err(|_| format!("no {kind} in 30 s"))?
            .map_err(|e| e.to_string())?;
        if frame.opcode == OpCode::Text {
            let value: Value = serde_json::from_slice(&frame.payload).map_err(|e| e.to_string())?;
            if value["type"] == kind {
                return Ok(());
            }
            if value["type"] == "error" {
                return Err(format!("refused: {value}"));
            }
        }
    }
}

/// The fields a reply is recognised by.
#[derive(Deserialize)]
struct Reply<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<&'a str>,
    id: Option<u64>,
    data: Option<ReplyData>,
}

#[derive(Deserialize)]
struct ReplyData {
    time: Option<u64>,
}

/// The run's clock: the window in µs since `start`.
#[derive(Clone, Copy)]
struct Window {
    start: Instant,
    from_us: u64,
    to_us: u64,
}

impl Window {
    fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }
    fn contains(&self, us: u64) -> bool {
        (self.from_us..self.to_us).contains(&us)
    }
}

/// One trader: sends orders on schedule from one task, reads replies in another.
async fn order_client(
    ws: Ws,
    interval_us: u64,
    phase_us: u64,
    order: String,
    window: Window,
    counters: Arc<Counters>,
    echo: bool,
) -> Histogram<u64> {
    let (mut read, mut write) = ws.split(tokio::io::split);
    let sender = tokio::spawn({
        let counters = Arc::clone(&counters);
        async move {
            let mut k = 0u64;
            loop {
                let intended = phase_us + k * interval_us;
                if intended >= window.to_us {
                    break;
                }
                let wait = intended.saturating_sub(window.now_us());
                if wait > 0 {
                    tokio::time::sleep(Duration::from_micros(wait)).await;
                }
                let text = order.replacen("{ID}", &intended.to_string(), 1);
                if write.write_frame(Frame::text(Payload::Owned(text.into_bytes()))).await.is_err()
                {
                    break;
                }
                counters.sent.fetch_add(1, Ordering::Relaxed);
                k += 1;
            }
            write
        }
    });
    let mut histogram = Histogram::<u64>::new_with_max(LATENCY_MAX_US, 3).expect("bounds");
    let deadline = window.start + Duration::from_micros(window.to_us) + DRAIN;
    let mut ignore = |_: Frame<'_>| std::future::ready(Ok::<(), std::io::Error>(()));
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(frame) = tokio::time::timeout(left, read.read_frame(&mut ignore)).await else {
            break;
        };
        let Ok(frame) = frame else {
            counters.closed.fetch_add(1, Ordering::Relaxed);
            break;
        };
        if frame.opcode == OpCode::Close {
            counters.closed.fetch_add(1, Ordering::Relaxed);
            break;
        }
        if frame.opcode != OpCode::Text {
            continue;
        }
        let Ok(reply) = serde_json::from_slice::<Reply<'_>>(&frame.payload) else { continue };
        let now = window.now_us();
        match (reply.kind, reply.id) {
            (Some("order"), Some(intended)) | (None, Some(intended))
                if echo || reply.kind.is_some() =>
            {
                if window.contains(intended) {
                    let _ = histogram.record(now.saturating_sub(intended).max(1));
                }
                if window.contains(now) {
                    counters.ok.fetch_add(1, Ordering::Relaxed);
                }
            }
            (Some("error"), _) => {
                if window.contains(now) {
                    counters.refused.fetch_add(1, Ordering::Relaxed);
                }
                if counters.first_refusal.lock().map(|f| f.is_none()).unwrap_or(false) {
                    let text = String::from_utf8_lossy(&frame.payload).into_owned();
                    if let Ok(mut first) = counters.first_refusal.lock() {
                        first.get_or_insert(text);
                    }
                }
            }
            _ => {
                if window.contains(now) {
                    counters.events.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
    let _ = sender.await;
    histogram
}

/// One viewer: counts ticks and their delivery latency (ms, as µs in the histogram).
async fn tick_client(mut ws: Ws, window: Window, counters: Arc<Counters>) -> Histogram<u64> {
    let mut histogram = Histogram::<u64>::new_with_max(LATENCY_MAX_US, 3).expect("bounds");
    let deadline = window.start + Duration::from_micros(window.to_us);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(frame) = tokio::time::timeout(left, ws.read_frame()).await else { break };
        let Ok(frame) = frame else {
            counters.closed.fetch_add(1, Ordering::Relaxed);
            break;
        };
        if frame.opcode != OpCode::Text {
            continue;
        }
        let Ok(reply) = serde_json::from_slice::<Reply<'_>>(&frame.payload) else { continue };
        if reply.kind != Some("tick") || !window.contains(window.now_us()) {
            continue;
        }
        if let Some(time) = reply.data.and_then(|d| d.time) {
            let _ = histogram.record(now_ms().saturating_sub(time).max(1) * 1_000);
            counters.ok.fetch_add(1, Ordering::Relaxed);
        }
    }
    histogram
}

fn report(name: &str, histogram: &Histogram<u64>) {
    let ms = |q: f64| histogram.value_at_quantile(q) as f64 / 1_000.0;
    println!(
        "{name}: samples {} | p50 {:.3} ms | p99 {:.3} ms | p99.9 {:.3} ms | max {:.3} ms",
        histogram.len(),
        ms(0.5),
        ms(0.99),
        ms(0.999),
        histogram.max() as f64 / 1_000.0
    );
}

async fn run(args: Args) -> Result<(), String> {
    let symbols: Vec<String> = args.symbols.split(',').map(|s| s.trim().to_owned()).collect();
    let tokens =
        if args.mode == Mode::Orders && !args.echo { set_up(&args).await? } else { Vec::new() };
    let rss_before = args.server_pid.and_then(rss_kib);
    let started = Instant::now();
    let sockets = connect_all(&args, &symbols, &tokens).await?;
    println!(
        "connected {} clients from {} source addresses in {:.1} s",
        sockets.len(),
        args.sources,
        started.elapsed().as_secs_f64()
    );
    if let (Mode::Idle, Some(pid), Some(before)) = (args.mode, args.server_pid, rss_before) {
        tokio::time::sleep(Duration::from_secs(2)).await; // let allocations settle
        if let Some(after) = rss_kib(pid) {
            let per = (after.saturating_sub(before) as f64 * 1_024.0) / sockets.len() as f64;
            println!(
                "server memory: {before} KiB before, {after} KiB with {} connections: {:.0} bytes ({:.2} KiB) per connection",
                sockets.len(),
                per,
                per / 1_024.0
            );
        }
    }
    if args.mode == Mode::Idle {
        return Ok(());
    }
    let clients = sockets.len() as u64;
    let (histogram, counters, cpu) = drive(&args, &symbols, sockets).await?;
    let seconds = args.seconds as f64;
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed) as f64 / seconds;
    match args.mode {
        Mode::Orders => {
            println!(
                "orders: offered {} /s | sent {:.0} /s | answered {:.0} /s ok + {:.0} /s refused | private events {:.0} /s | closed early {}",
                args.rate,
                counters.sent.load(Ordering::Relaxed) as f64 / (args.warmup + args.seconds) as f64,
                load(&counters.ok),
                load(&counters.refused),
                load(&counters.events),
                counters.closed.load(Ordering::Relaxed)
            );
            if let Ok(Some(first)) = counters.first_refusal.lock().map(|f| f.clone()) {
                println!("first refusal: {first}");
            }
            report("order latency (from intended send)", &histogram);
        }
        Mode::Ticks => {
            println!(
                "ticks: {:.0} deliveries/s to {} clients | closed early {}",
                load(&counters.ok),
                clients,
                counters.closed.load(Ordering::Relaxed)
            );
            report("tick delivery latency (ms resolution)", &histogram);
        }
        Mode::Idle => {}
    }
    if let Some((before, after)) = cpu {
        report_cpu(&before, &after, counters.ok.load(Ordering::Relaxed), seconds);
    }
    Ok(())
}

/// Opens every client's connection (a bounded number at a time), signed in for orders and
/// subscribed for ticks; in client order.
async fn connect_all(
    args: &Args,
    symbols: &[String],
    tokens: &[String],
) -> Result<Vec<(usize, Ws)>, String> {
    let gate = Arc::new(Semaphore::new(CONNECTS_IN_FLIGHT_MAX));
    let mut connecting = tokio::task::JoinSet::new();
    for i in 0..args.clients {
        let source = Ipv4Addr::new(127, 0, 0, 1 + (i % usize::from(args.sources.max(1))) as u8);
        let (gate, path, server) = (Arc::clone(&gate), args.path.clone(), args.server);
        let token = (!tokens.is_empty()).then(|| tokens[i % tokens.len()].clone());
        let subscribe = (args.mode == Mode::Ticks).then(|| symbols[i % symbols.len()].clone());
        connecting.spawn(async move {
            let _permit = gate.acquire().await.map_err(|e| e.to_string())?;
            let mut ws = connect(server, &path, source).await?;
            if let Some(token) = token {
                send(&mut ws, &json!({"op": "auth", "token": token}).to_string()).await?;
                await_type(&mut ws, "authenticated").await?;
            }
            if let Some(symbol) = subscribe {
                let message = json!({"op": "subscribe", "channel": "ticks", "symbol": symbol});
                send(&mut ws, &message.to_string()).await?;
                await_type(&mut ws, "subscribed").await?;
            }
            Ok::<_, String>((i, ws))
        });
    }
    let mut sockets = Vec::with_capacity(args.clients);
    while let Some(done) = connecting.join_next().await {
        sockets.push(done.map_err(|e| e.to_string())??);
    }
    sockets.sort_by_key(|(i, _)| *i);
    Ok(sockets)
}

/// The server's CPU time by thread at the start and at the end of the measured window.
type CpuWindow = (std::collections::BTreeMap<String, u64>, std::collections::BTreeMap<String, u64>);

/// Runs every client over the warm-up and the measured window; returns the latencies and the
/// counts.
async fn drive(
    args: &Args,
    symbols: &[String],
    sockets: Vec<(usize, Ws)>,
) -> Result<(Histogram<u64>, Arc<Counters>, Option<CpuWindow>), String> {
    let counters = Arc::new(Counters::default());
    let window = Window {
        start: Instant::now(),
        from_us: args.warmup * 1_000_000,
        to_us: (args.warmup + args.seconds) * 1_000_000,
    };
    let cpu = args.server_pid.map(|pid| {
        tokio::spawn(async move {
            tokio::time::sleep_until((window.start + Duration::from_micros(window.from_us)).into())
                .await;
            let before = cpu_ticks_by_thread(pid);
            tokio::time::sleep_until((window.start + Duration::from_micros(window.to_us)).into())
                .await;
            (before, cpu_ticks_by_thread(pid))
        })
    });
    let lag = args.metrics.map(|metrics| tokio::spawn(history_lag(metrics, window)));
    let mut running = tokio::task::JoinSet::new();
    let clients = sockets.len() as u64;
    for (i, ws) in sockets {
        let counters = Arc::clone(&counters);
        match args.mode {
            Mode::Orders => {
                let interval_us = (clients * 1_000_000 / args.rate.max(1)).max(1);
                let phase_us = (i as u64 * interval_us) / clients;
                let symbol = &symbols[i % symbols.len()];
                let order = format!(
                    r#"{{"op":"order","id":{{ID}},"symbol":"{symbol}","direction":"{}","amount":"1","duration":{},"account":"demo"}}"#,
                    if i % 2 == 0 { "up" } else { "down" },
                    args.duration
                );
                running.spawn(order_client(
                    ws,
                    interval_us,
                    phase_us,
                    order,
                    window,
                    counters,
                    args.echo,
                ));
            }
            Mode::Ticks => {
                running.spawn(tick_client(ws, window, counters));
            }
            Mode::Idle => unreachable!("idle clients are not driven"),
        }
    }
    let mut histogram = Histogram::<u64>::new_with_max(LATENCY_MAX_US, 3).expect("bounds");
    while let Some(done) = running.join_next().await {
        histogram.add(done.map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    }
    let cpu = match cpu {
        Some(sampling) => Some(sampling.await.map_err(|e| e.to_string())?),
        None => None,
    };
    if let Some(lag) = lag {
        // A metrics failure is reported beside the run's figures rather than losing them.
        let lag = match lag.await.map_err(|e| e.to_string())? {
            Ok(lag) => lag,
            Err(error) => {
                println!("history: not measured ({error})");
                return Ok((histogram, counters, cpu));
            }
        };
        let caught_up = lag.caught_up.map_or_else(
            || format!("not caught up {} s after it", CATCH_UP_MAX.as_secs()),
            |after| format!("caught up {:.1} s after it", after.as_secs_f64()),
        );
        println!(
            "history: largest lag {} commands ({:.2} s of the engine's {:.0} commands/s) over the window; {caught_up}",
            lag.largest, lag.seconds, lag.rate
        );
    }
    Ok((histogram, counters, cpu))
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads.max(1))
        .enable_all()
        .build()
        .expect("a runtime");
    match runtime.block_on(run(args)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("loadgen: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
