//! The live adapters: each venue's public market streams over a websocket, one module per
//! venue ([`binance`], [`okx`]) beside this shared core. Connecting, subscribing again on every
//! connection, reconnecting with backoff, rotating and delivering are shared; each venue has
//! its own subscription, frames and keepalive ([`Venue`]).
//!
//! - A connection lives at most [`ExchangeConfig::connection_lifetime`] (Binance's limit is
//!   24 h): the adapter closes it then and reconnects immediately, as it does when the venue
//!   announces a shutdown.
//! - A connection silent (no frame at all, pings included) for
//!   [`ExchangeConfig::silence_timeout`] is presumed dead and replaced.
//! - Lost connections are retried with exponential backoff ("equal jitter": each delay is
//!   uniform in [d/2, d]); the backoff resets once a connection delivers market data. After
//!   [`ExchangeConfig::reconnects_max`] consecutive failures the source returns
//!   [`SourceError::ReconnectsExhausted`].
//! - A refused subscription ends the source with [`SourceError::Rejected`]: retrying a wrong
//!   stream name cannot help.
//! - Frames above [`EXCHANGE_MESSAGE_BYTES_MAX`] are refused by the websocket layer.
//!
//! (the exchange is the authority), one that fits is presented at the precision.
//!
//! Delivery: ticks are offered with `try_send`. When the consumer is full the tick is dropped
//! and counted, because blocking here would stop reading the socket, leave pings unanswered
//! and make every later price stale; the engine only ever settles on ticks it sequenced.
//!
//! Endpoints are `wss://` (TLS by rustls with the webpki root certificates, as real exchanges
//! require) or `ws://` (the local stand-in the tests use).

use std::collections::HashMap;
use std::sync::Arc;

use engine::types::Symbol;
use futures_util::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_decimal::Decimal;
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tokio_util::sync::CancellationToken;

use super::constants::{
    EXCHANGE_BACKOFF_INITIAL_MS, EXCHANGE_BACKOFF_MAX_MS, EXCHANGE_CLOSE_TIMEOUT_MS,
    EXCHANGE_CONNECTION_LIFETIME_MS, EXCHANGE_CONNECT_TIMEOUT_MS, EXCHANGE_DROPS_LOG_EVERY_COUNT,
    EXCHANGE_MESSAGE_BYTES_MAX, EXCHANGE_RECONNECTS_MAX, EXCHANGE_SILENCE_TIMEOUT_MS,
    EXCHANGE_STREAMS_MAX, OKX_ARGS_MAX, OKX_PING_AFTER_MS, OKX_SILENCE_TIMEOUT_MS,
};
pub mod binance;
pub mod okx;

use super::{Clock, PriceSource, SourceEnd, SourceError, SourceFuture};
use crate::catalogue::Instrument;
use crate::types::RawTick;

/// Which exchange's protocol an adapter speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Venue {
    /// Binance's combined market streams (the default: `exchange:URL`).
    #[default]
    Binance,
    /// OKX's public websocket, API v5 (`exchange:okx:URL`).
    Okx,
}

impl Venue {
    /// Every venue.
    pub const ALL: [Venue; 2] = [Venue::Binance, Venue::Okx];

    /// The name in `--feed exchange:NAME:URL`.
    pub fn name(self) -> &'static str {
        match self {
            Venue::Binance => "binance",
            Venue::Okx => "okx",
        }
    }

    /// The venue called `name`.
    pub fn parse(name: &str) -> Option<Venue> {
        Venue::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// Which stream to follow for every symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamKind {
    /// `<symbol>@trade`: every trade.
    Trade,
    /// `<symbol>@aggTrade`: trades aggregated per taker order.
    AggTrade,
    /// `<symbol>@bookTicker`: best bid and ask; ticks are mid prices.
    BookTicker,
    /// `<symbol>@ticker`: the rolling 24 h ticker, once a second; ticks are last prices.
    Ticker,
}

impl StreamKind {
    /// OKX's channel for this kind, if it has one (`trades`, `tickers`).
    pub fn okx_channel(self) -> Option<&'static str> {
        match self {
            StreamKind::Trade => Some("trades"),
            StreamKind::Ticker => Some("tickers"),
            StreamKind::AggTrade | StreamKind::BookTicker => None,
        }
    }
}

impl StreamKind {
    /// The stream name's suffix after `@`.
    pub fn suffix(self) -> &'static str {
        match self {
            StreamKind::Trade => "trade",
            StreamKind::AggTrade => "aggTrade",
            StreamKind::BookTicker => "bookTicker",
            StreamKind::Ticker => "ticker",
        }
    }
}

/// Everything the adapter needs: endpoint, symbols and the protocol's timings.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ExchangeConfig {
    /// Whose protocol.
    pub venue: Venue,
    /// Websocket endpoint (`ws://host:port/stream`).
    pub url: String,
    /// Our product -> (the exchange's symbol in upper case, our price precision).
    pub symbols: Vec<(Symbol, String, u8)>,
    /// The stream followed for every symbol.
    pub stream: StreamKind,
    /// First reconnect delay.
    pub backoff_initial: Duration,
    /// Longest reconnect delay.
    pub backoff_max: Duration,
    /// Consecutive failed connections before giving up.
    pub reconnects_max: u32,
    /// A connection is replaced after this long (Binance cuts it at 24 h).
    pub connection_lifetime: Duration,
    /// A connection with no frame for this long is replaced.
    pub silence_timeout: Duration,
    /// The client pings (OKX's text `ping`) after this long with no frame; `None` where the
    /// server pings (Binance).
    pub ping_after: Option<Duration>,
    /// Longest a connect plus handshake may take.
    pub connect_timeout: Duration,
}

impl ExchangeConfig {
    /// Binance trade streams for `instruments`; `mapping` renames products whose exchange
    /// symbol differs (the rest map to themselves). Timings take the documented defaults.
    pub fn binance(
        url: &str,
        instruments: &[Instrument],
        mapping: &HashMap<Symbol, String>,
    ) -> Result<ExchangeConfig, SourceError> {
        let symbols = map_symbols(instruments, mapping, |i| i.symbol.as_str().to_owned())?;
        Ok(ExchangeConfig {
            venue: Venue::Binance,
            url: url.to_owned(),
            symbols,
            stream: StreamKind::Trade,
            backoff_initial: Duration::from_millis(EXCHANGE_BACKOFF_INITIAL_MS),
            backoff_max: Duration::from_millis(EXCHANGE_BACKOFF_MAX_MS),
            reconnects_max: EXCHANGE_RECONNECTS_MAX,
            connection_lifetime: Duration::from_millis(EXCHANGE_CONNECTION_LIFETIME_MS),
            silence_timeout: Duration::from_millis(EXCHANGE_SILENCE_TIMEOUT_MS),
            ping_after: None,
            connect_timeout: Duration::from_millis(EXCHANGE_CONNECT_TIMEOUT_MS),
        })
    }

    /// OKX trade channels for `instruments`: an instrument's OKX id is its display name with a
    /// dash (`BTC/USDT` -> `BTC-USDT`) unless `mapping` names another. OKX's keepalive: the
    /// adapter pings after 20 s of quiet and gives up 30 s after the last frame.
    pub fn okx(
        url: &str,
        instruments: &[Instrument],
        mapping: &HashMap<Symbol, String>,
    ) -> Result<ExchangeConfig, SourceError> {
        let symbols = map_symbols(instruments, mapping, |i| i.name.replace('/', "-"))?;
        Ok(ExchangeConfig {
            venue: Venue::Okx,
            symbols,
            silence_timeout: Duration::from_millis(OKX_SILENCE_TIMEOUT_MS),
            ping_after: Some(Duration::from_millis(OKX_PING_AFTER_MS)),
            ..ExchangeConfig::binance(url, instruments, mapping)?
        })
    }

    /// The configuration of `venue` (see [`ExchangeConfig::binance`], [`ExchangeConfig::okx`]).
    pub fn for_venue(
        venue: Venue,
        url: &str,
        instruments: &[Instrument],
        mapping: &HashMap<Symbol, String>,
    ) -> Result<ExchangeConfig, SourceError> {
        match venue {
            Venue::Binance => ExchangeConfig::binance(url, instruments, mapping),
            Venue::Okx => ExchangeConfig::okx(url, instruments, mapping),
        }
    }

    /// The subscription request sent on every connection (`id` numbers Binance's requests).
    fn subscription(&self, id: u64) -> String {
        match self.venue {
            Venue::Binance => {
                serde_json::json!({ "method": "SUBSCRIBE", "params": self.streams(), "id": id })
                    .to_string()
            }
            Venue::Okx => {
                let channel = self.stream.okx_channel().unwrap_or("trades");
                let theirs = self.symbols.iter().map(|(_, theirs, _)| theirs.as_str());
                okx::subscription(channel, theirs)
            }
        }
    }

    /// The stream names subscribed on every connection, e.g. `btcusdt@trade`.
    pub fn streams(&self) -> Vec<String> {
        let suffix = self.stream.suffix();
        self.symbols
            .iter()
            .map(|(_, theirs, _)| format!("{}@{suffix}", theirs.to_ascii_lowercase()))
            .collect()
    }

    fn check(&self) -> Result<(), SourceError> {
        let bad = |why: String| Err(SourceError::Config(why));
        if !self.url.starts_with("wss://") && !self.url.starts_with("ws://") {
            return bad(format!("{}: the endpoint must be a wss:// or ws:// URL", self.url));
        }
        let (most, dash) = match self.venue {
            Venue::Binance => (EXCHANGE_STREAMS_MAX, false),
            Venue::Okx => (OKX_ARGS_MAX, true),
        };
        if self.symbols.is_empty() || self.symbols.len() > most {
            return bad(format!("1 to {most} streams per connection"));
        }
        if self.symbols.iter().any(|(_, theirs, _)| {
            theirs.is_empty()
                || !theirs.chars().all(|c| c.is_ascii_alphanumeric() || (dash && c == '-'))
        }) {
            let what = if dash { "letters, digits and dashes" } else { "letters and digits" };
            return bad(format!("{} symbols are {what}", self.venue.name()));
        }
        if self.venue == Venue::Okx && self.stream.okx_channel().is_none() {
            return bad(format!("OKX has no {:?} channel; follow trades or tickers", self.stream));
        }
        if self.ping_after.is_some_and(|p| p.is_zero() || p >= self.silence_timeout) {
            return bad("the client's ping must come before the silence timeout".to_owned());
        }
        let timings = [
            self.backoff_initial,
            self.backoff_max,
            self.connection_lifetime,
            self.silence_timeout,
            self.connect_timeout,
        ];
        if timings.iter().any(Duration::is_zero)
            || self.backoff_initial > self.backoff_max
            || self.reconnects_max == 0
        {
            return bad("exchange timings must be positive, initial backoff <= max".to_owned());
        }
        Ok(())
    }
}

/// Our products with their exchange symbols (upper case) and precision: `mapping` first, else
/// `default` of the instrument. A mapped product must be served.
fn map_symbols(
    instruments: &[Instrument],
    mapping: &HashMap<Symbol, String>,
    default: impl Fn(&Instrument) -> String,
) -> Result<Vec<(Symbol, String, u8)>, SourceError> {
    if let Some(extra) = mapping.keys().find(|s| !instruments.iter().any(|i| i.symbol == **s)) {
        return Err(SourceError::Config(format!("{extra} is mapped but not served")));
    }
    Ok(instruments
        .iter()
        .map(|i| {
            let theirs = mapping.get(&i.symbol).cloned().unwrap_or_else(|| default(i));
            (i.symbol, theirs.to_ascii_uppercase(), i.precision)
        })
        .collect())
}

/// Bounded exponential backoff with equal jitter: delay d doubles from the initial to the
/// maximum; each wait is uniform in [d/2, d].
#[derive(Debug)]
pub struct Backoff {
    /// First delay.
    initial: Duration,
    /// Cap of the doubling.
    max: Duration,
    /// The delay before jitter for the next wait.
    current: Duration,
    /// Jitter source.
    rng: ChaCha8Rng,
}

impl Backoff {
    /// A backoff from `initial` doubling to `max`, jittered by a stream seeded with `seed`.
    pub fn new(initial: Duration, max: Duration, seed: u64) -> Backoff {
        Backoff { initial, max, current: initial, rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// The next wait, then doubles the delay (up to the cap).
    pub fn next_delay(&mut self) -> Duration {
        let ceiling = u64::try_from(self.current.as_micros()).unwrap_or(u64::MAX);
        let wait = Duration::from_micros(self.rng.gen_range(ceiling / 2..=ceiling));
        self.current = (self.current * 2).min(self.max);
        wait
    }

    /// Back to the initial delay (after a connection that worked).
    pub fn reset(&mut self) {
        self.current = self.initial;
    }
}

/// What one text frame from the exchange means.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Incoming {
    /// A price for one of our products.
    Tick(RawTick),
    /// Several prices (OKX batches trades in one frame).
    Ticks(Vec<RawTick>),
    /// The exchange confirmed request `id`.
    Confirmed(u64),
    /// The exchange confirmed a subscription (OKX, one per channel).
    Subscribed,
    /// The answer to the client's text ping.
    Pong,
    /// The exchange refused a request.
    Refused(String),
    /// The server is about to shut down: reconnect now.
    Shutdown,
    /// Valid but not for us (another symbol, another event type).
    Ignored,
}

/// Our products by the exchange's symbol.
pub(crate) type SymbolTable = HashMap<String, (Symbol, u8)>;

/// A decimal sent as a JSON string, parsed exactly.
pub(crate) fn exact(data: &Value, field: &str) -> Result<Decimal, String> {
    let text =
        data.get(field).and_then(Value::as_str).ok_or_else(|| format!("no string {field:?}"))?;
    Decimal::from_str_exact(text).map_err(|e| format!("{field:?} = {text:?}: {e}"))
}

/// How one connection ended.
#[derive(Debug)]
enum SessionEnd {
    /// The source must end this way.
    End(SourceEnd),
    /// The exchange refused the subscription.
    Refused(String),
    /// Planned replacement (lifetime reached, server shutting down): reconnect at once.
    Rotate,
    /// The connection failed or died.
    Lost {
        /// Why, for the logs and the final error.
        reason: String,
        /// It delivered market data before dying (so the backoff starts over).
        delivered: bool,
    },
}

/// The websocket type of a plain TCP connection.
type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The live exchange source.
#[derive(Debug)]
pub struct ExchangeSource {
    /// Endpoint, symbols, timings.
    config: ExchangeConfig,
    /// Our products by the exchange's symbol.
    symbols: SymbolTable,
    /// Stamps quotes that carry no time.
    clock: Arc<dyn Clock>,
    /// Id of the next SUBSCRIBE request.
    next_id: u64,
    /// Ticks dropped because the consumer was full.
    dropped: u64,
}

impl ExchangeSource {
    /// An adapter for `config`, checked.
    pub fn new(
        config: ExchangeConfig,
        clock: Arc<dyn Clock>,
    ) -> Result<ExchangeSource, SourceError> {
        config.check()?;
        let symbols =
            config.symbols.iter().map(|(ours, theirs, p)| (theirs.clone(), (*ours, *p))).collect();
        Ok(ExchangeSource { config, symbols, clock, next_id: 1, dropped: 0 })
    }

    /// Connects, subscribes and forwards until stopped, reconnecting as the module explains.
    async fn run_connections(
        mut self,
        out: mpsc::Sender<RawTick>,
        stop: CancellationToken,
    ) -> Result<SourceEnd, SourceError> {
        let seed = self.clock.now_ms() ^ u64::from(std::process::id());
        let mut backoff = Backoff::new(self.config.backoff_initial, self.config.backoff_max, seed);
        let mut failures: u32 = 0;
        loop {
            match self.session(&out, &stop).await {
                SessionEnd::End(end) => return Ok(end),
                SessionEnd::Refused(reply) => return Err(SourceError::Rejected(reply)),
                SessionEnd::Rotate => {
                    tracing::info!(url = %self.config.url, "rotating the exchange connection");
                    failures = 0;
                    backoff.reset();
                }
                SessionEnd::Lost { reason, delivered } => {
                    if delivered {
                        failures = 0;
                        backoff.reset();
                    }
                    failures += 1;
                    if failures >= self.config.reconnects_max {
                        return Err(SourceError::ReconnectsExhausted {
                            attempts: failures,
                            last: reason,
                        });
                    }
                    let wait = backoff.next_delay();
                    tracing::warn!(url = %self.config.url, %reason, ?wait, failures, "exchange connection lost");
                    tokio::select! {
                        biased;
                        () = stop.cancelled() => return Ok(SourceEnd::Stopped),
                        () = tokio::time::sleep(wait) => {}
                    }
                }
            }
        }
    }

    /// One connection: connect, subscribe, read until it ends.
    async fn session(
        &mut self,
        out: &mpsc::Sender<RawTick>,
        stop: &CancellationToken,
    ) -> SessionEnd {
        let lost = |reason: String| SessionEnd::Lost { reason, delivered: false };
        let mut socket = tokio::select! {
            biased;
            () = stop.cancelled() => return SessionEnd::End(SourceEnd::Stopped),
            connected = tokio::time::timeout(self.config.connect_timeout, self.connect()) => match connected {
                Ok(Ok(socket)) => socket,
                Ok(Err(e)) => return lost(format!("connect: {e}")),
                Err(_) => return lost("connect timed out".to_owned()),
            },
        };
        let id = self.next_id;
        self.next_id += 1;
        let subscribe = self.config.subscription(id);
        let sent = tokio::time::timeout(
            self.config.connect_timeout,
            socket.send(Message::Text(subscribe)),
        );
        match sent.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return lost(format!("subscribe: {e}")),
            Err(_) => return lost("subscribe timed out".to_owned()),
        }
        tracing::info!(venue = self.config.venue.name(), url = %self.config.url, id, "subscribed");
        let end = self.read(&mut socket, out, stop).await;
        if matches!(end, SessionEnd::End(_) | SessionEnd::Rotate | SessionEnd::Refused(_)) {
            // Say goodbye properly; a dead peer must not hold the stop up.
            let _ = tokio::time::timeout(
                Duration::from_millis(EXCHANGE_CLOSE_TIMEOUT_MS),
                socket.close(None),
            )
            .await;
        }
        end
    }

    async fn connect(&self) -> Result<Socket, tokio_tungstenite::tungstenite::Error> {
        let config = WebSocketConfig {
            max_message_size: Some(EXCHANGE_MESSAGE_BYTES_MAX),
            max_frame_size: Some(EXCHANGE_MESSAGE_BYTES_MAX),
            ..WebSocketConfig::default()
        };
        let (socket, _response) = tokio_tungstenite::connect_async_with_config(
            self.config.url.as_str(),
            Some(config),
            true,
        )
        .await?;
        Ok(socket)
    }

    /// Reads frames until stop, lifetime, silence, an error or the server's close.
    async fn read(
        &mut self,
        socket: &mut Socket,
        out: &mpsc::Sender<RawTick>,
        stop: &CancellationToken,
    ) -> SessionEnd {
        let retire_at = Instant::now() + self.config.connection_lifetime;
        let mut delivered = false;
        let mut last_frame = Instant::now();
        let mut pinged = false;
        loop {
            // Next timer: the client's ping when quiet (OKX), else the silence timeout.
            let (deadline, ping_due) = match self.config.ping_after {
                Some(after) if !pinged => (last_frame + after, true),
                _ => (last_frame + self.config.silence_timeout, false),
            };
            let frame = tokio::select! {
                biased;
                () = stop.cancelled() => return SessionEnd::End(SourceEnd::Stopped),
                () = tokio::time::sleep_until(retire_at) => return SessionEnd::Rotate,
                () = tokio::time::sleep_until(deadline) => None,
                frame = socket.next() => Some(frame),
            };
            let message = match frame {
                None if ping_due => {
                    pinged = true;
                    let ping = socket.send(Message::Text("ping".to_owned()));
                    match tokio::time::timeout(self.config.connect_timeout, ping).await {
                        Ok(Ok(())) => continue,
                        Ok(Err(e)) => {
                            return SessionEnd::Lost { reason: format!("ping: {e}"), delivered }
                        }
                        Err(_) => {
                            return SessionEnd::Lost {
                                reason: "ping timed out".to_owned(),
                                delivered,
                            }
                        }
                    }
                }
                None => {
                    let unanswered = if pinged { "no pong, " } else { "" };
                    let reason =
                        format!("{unanswered}silent for {:?}", self.config.silence_timeout);
                    return SessionEnd::Lost { reason, delivered };
                }
                Some(None) => {
                    return SessionEnd::Lost {
                        reason: "closed by the server".to_owned(),
                        delivered,
                    }
                }
                Some(Some(Err(e))) => return SessionEnd::Lost { reason: e.to_string(), delivered },
                Some(Some(Ok(message))) => message,
            };
            last_frame = Instant::now();
            pinged = false;
            match message {
                Message::Text(text) => match self.on_text(&text, out) {
                    Ok(true) => delivered = true,
                    Ok(false) => {}
                    Err(end) => return end,
                },
                // tungstenite queued the pong when it read the ping; send it now rather than
                // at the next read, which may be up to the silence timeout away.
                Message::Ping(_) => {
                    if let Err(e) = socket.flush().await {
                        return SessionEnd::Lost { reason: format!("pong: {e}"), delivered };
                    }
                }
                Message::Close(frame) => {
                    tracing::info!(?frame, "the exchange is closing the connection")
                }
                Message::Pong(_) | Message::Binary(_) | Message::Frame(_) => {}
            }
        }
    }

    /// Handles one text frame: `Ok(true)` if it carried a tick for us.
    fn on_text(&mut self, text: &str, out: &mpsc::Sender<RawTick>) -> Result<bool, SessionEnd> {
        let parsed = match self.config.venue {
            Venue::Binance => binance::parse_frame(text, &self.symbols, self.clock.now_ms()),
            Venue::Okx => okx::parse_frame(text, &self.symbols),
        };
        match parsed {
            Ok(Incoming::Tick(tick)) => self.deliver(tick, out).map(|()| true),
            Ok(Incoming::Ticks(ticks)) => {
                for tick in ticks {
                    self.deliver(tick, out)?;
                }
                Ok(true)
            }
            Ok(Incoming::Confirmed(id)) => {
                tracing::debug!(id, "subscription confirmed");
                Ok(false)
            }
            Ok(Incoming::Subscribed) => {
                tracing::debug!("channel subscribed");
                Ok(false)
            }
            Ok(Incoming::Pong) => Ok(false),
            Ok(Incoming::Refused(reply)) => Err(SessionEnd::Refused(reply)),
            Ok(Incoming::Shutdown) => Err(SessionEnd::Rotate),
            Ok(Incoming::Ignored) => Ok(false),
            Err(why) => {
                tracing::warn!(%why, "unreadable exchange frame skipped");
                Ok(false)
            }
        }
    }
}

impl ExchangeSource {
    /// Offers one tick; drops it when the consumer is full (see the module's "Delivery").
    fn deliver(&mut self, tick: RawTick, out: &mpsc::Sender<RawTick>) -> Result<(), SessionEnd> {
        match out.try_send(tick) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.dropped += 1;
                if self.dropped % EXCHANGE_DROPS_LOG_EVERY_COUNT == 1 {
                    tracing::warn!(dropped = self.dropped, "consumer full: exchange ticks dropped");
                }
                Ok(())
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {
                Err(SessionEnd::End(SourceEnd::OutputClosed))
            }
        }
    }
}

impl PriceSource for ExchangeSource {
    fn name(&self) -> String {
        match self.config.venue {
            Venue::Binance => format!("exchange:{}", self.config.url),
            venue => format!("exchange:{}:{}", venue.name(), self.config.url),
        }
    }

    fn run(self: Box<Self>, out: mpsc::Sender<RawTick>, stop: CancellationToken) -> SourceFuture {
        Box::pin(self.run_connections(out, stop))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_its_cap_with_jitter_inside_the_band() {
        let mut b = Backoff::new(Duration::from_millis(500), Duration::from_secs(30), 1);
        let mut ceiling = Duration::from_millis(500);
        for _ in 0..12 {
            let wait = b.next_delay();
            assert!(
                wait >= ceiling / 2 && wait <= ceiling,
                "{wait:?} in [{:?}, {ceiling:?}]",
                ceiling / 2
            );
            ceiling = (ceiling * 2).min(Duration::from_secs(30));
        }
        assert_eq!(ceiling, Duration::from_secs(30), "the cap was reached");
        b.reset();
        assert!(b.next_delay() <= Duration::from_millis(500));
    }

    #[test]
    fn configuration_is_checked() {
        let instruments = crate::catalogue::catalogue();
        let none = HashMap::new();
        let clock: Arc<dyn Clock> = Arc::new(super::super::SystemClock);
        let wss = ExchangeConfig::binance(
            "wss://stream.binance.com:9443/stream",
            &instruments[..2],
            &none,
        )
        .expect("built");
        assert!(ExchangeSource::new(wss, clock.clone()).is_ok(), "TLS endpoints are accepted");
        let http = ExchangeConfig::binance("https://example.com/stream", &instruments[..2], &none)
            .expect("built");
        assert!(matches!(ExchangeSource::new(http, clock.clone()), Err(SourceError::Config(_))));
        let mut ok = ExchangeConfig::binance("ws://127.0.0.1:1/stream", &instruments[..2], &none)
            .expect("built");
        assert_eq!(ok.streams(), ["btcusdt@trade", "ethusdt@trade"]);
        ok.stream = StreamKind::AggTrade;
        assert_eq!(ok.streams()[0], "btcusdt@aggTrade");
        assert!(ExchangeSource::new(ok, clock).is_ok());
        let mut renamed = HashMap::new();
        renamed.insert(Symbol::new("EURUSD").expect("valid"), "EURUSDT".to_owned());
        assert!(
            ExchangeConfig::binance("ws://h/stream", &instruments[..2], &renamed).is_err(),
            "mapped but not served"
        );
    }
}
