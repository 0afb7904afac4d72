//! The running market-data service and the read API the gateway uses.
//!
//! ```text
//!  sources (tokio tasks) ──RawTick──► pump: assignment check, staleness, try_submit(Tick)
//!                                       │ tickets (bounded) ──► reply drain: counts refusals
//!  engine events (sequenced ticks) ──► candle thread: aggregator ─► store (sled), 24h stats,
//!                                       live state, broadcast of ticks and candle updates
//!  staleness monitor (1 s) ──► stale flags, logs
//! ```
//!
//! Candles and statistics come from the ticks the engine sequenced (its events), so a chart
//! shows exactly the prices settlement used, stamped with the engine's time.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::RecvTimeoutError;
use engine::types::Symbol;
use engine::{Engine, Event, Events};
use rust_decimal::Decimal;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;
use wal::{EventBatch, Handle, PipelineError, Ticket};

use crate::candles::{CandleAggregator, CandleUpdate, Emit};
use crate::catalogue::Instrument;
use crate::feed::{tick_command, Freshness, StalenessTracker};
use crate::source::{SourceConfig, SystemClock};
use crate::stats::RollingStats;
use crate::store::{backfill, Backfill, CandleStore, BACKFILL_CANDLES_MIN};
use crate::types::{Candle, Period, RawTick, SequencedTick, Stats24h};

/// Raw ticks waiting for the pump.
const RAW_TICKS_QUEUE_MAX: usize = 4_096;
/// Submitted ticks whose replies are not yet counted.
const TICKETS_IN_FLIGHT_MAX: usize = 4_096;
/// Event batches the candle thread may lag behind the engine before it is dropped.
const EVENT_BATCHES_QUEUE_MAX: usize = 65_536;
/// Tick updates buffered per websocket-side subscriber (lagging ones skip ahead).
const TICK_BROADCAST_MAX: usize = 8_192;
/// Candle updates buffered per subscriber.
const CANDLE_BROADCAST_MAX: usize = 65_536;
/// Candles of quiet symbols close this long after their bucket ended (engine events arrive
/// a few milliseconds after the sequencer stamps them).
const CLOSE_LAG_MS: u64 = 2_000;

/// Which source feeds which products.
#[derive(Debug, Clone)]
pub struct MarketConfig {
    /// Holds the candle history (`market/` inside the node's data directory).
    pub data_dir: PathBuf,
    /// Source assignments; products not named in any assignment use `default_source`.
    pub assignments: Vec<(SourceConfig, Vec<Symbol>)>,
    /// The source of every other product (the seeded simulator by default).
    pub default_source: SourceConfig,
    /// Seed of the synthetic history written at first start for simulated products.
    pub backfill_seed: u64,
    /// Candles per period in that history.
    pub backfill_candles: usize,
    /// Every tick the engine sequenced: at start the candles are brought up to date from it
    /// (the ticks after each symbol's stored position). None: they continue from the store.
    pub archive: Option<Arc<crate::archive::TickArchive>>,
    /// The history's seed and end come from the engine (`Command::SetChartHistory`, the same
    /// on every cluster member), waiting for them if need be; otherwise `backfill_seed` and
    /// the time of the start.
    pub history_from_engine: bool,
}

impl MarketConfig {
    /// Every product on the simulator with `seed`, history backfilled.
    pub fn simulated(data_dir: PathBuf, seed: u64) -> MarketConfig {
        MarketConfig {
            data_dir,
            assignments: Vec::new(),
            default_source: SourceConfig::simulated(seed),
            backfill_seed: seed,
            backfill_candles: BACKFILL_CANDLES_MIN,
            archive: None,
            history_from_engine: false,
        }
    }
}

/// Why the market service could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MarketError {
    /// A source could not be built (bad file, bad URL...).
    #[error("price source: {0}")]
    Source(#[from] crate::source::SourceError),
    /// The candle store failed.
    #[error("candle store: {0}")]
    Store(#[from] crate::store::StoreError),
    /// An assignment names a product that is not in the catalogue, or names one twice.
    #[error("source assignment: {0}")]
    Assignment(String),
    /// The engine pipeline failed.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// The tick archive could not be read to bring the candles up to date.
    #[error(transparent)]
    Archive(#[from] crate::archive::ArchiveError),
    /// A tick from the archive did not fold into the restored candles.
    #[error("rebuilding candles: {0}")]
    Candle(#[from] crate::candles::CandleError),
}

/// A sequenced tick as subscribers receive it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TickUpdate {
    pub symbol: Symbol,
    pub price: Decimal,
    pub quantity: Decimal,
    /// Sequencer time (ms).
    pub time_ms: u64,
    /// Log index.
    pub index: u64,
}

/// A product as the market list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductView {
    /// The catalogue entry.
    pub instrument: Instrument,
    /// Latest sequenced tick.
    pub last: Option<TickUpdate>,
    /// Rolling 24 h statistics (zero until the first tick).
    pub stats: Stats24h,
    /// Its source has been silent too long while the market is open.
    pub stale: bool,
    /// The market is open now.
    pub open: bool,
    /// Priced by the simulator, not by a market.
    pub simulated: bool,
    /// Where its prices come from ([`SourceConfig::label`]).
    pub source: String,
}

/// Counters for logs and metrics.
#[derive(Debug, Default)]
pub struct MarketCounters {
    /// Raw ticks from sources.
    pub received: AtomicU64,
    /// Ticks from a source not assigned to that product, ignored.
    pub unassigned: AtomicU64,
    /// Ticks of catalogue products not listed (yet), not journaled.
    pub unlisted: AtomicU64,
    /// Ticks not journaled because this cluster member does not lead.
    pub not_leader: AtomicU64,
    /// Ticks dropped because the engine queue was full.
    pub overloaded: AtomicU64,
    /// Ticks the engine refused (e.g. a disabled product is still accepted; an invalid price is not).
    pub refused: AtomicU64,
    /// Ticks sequenced and aggregated into candles.
    pub sequenced: AtomicU64,
    /// Set while this member leads, its sources deliver, and no tick has been sequenced for
    /// [`PRICING_STALL`]: every product is going stale (see [`MarketData::pricing_stalled`]).
    pub pricing_stalled: std::sync::atomic::AtomicBool,
}

/// How long a leader may receive prices and sequence none before it says so.
pub const PRICING_STALL: Duration = Duration::from_secs(10);

/// Shared by the service's tasks and every reader.
#[derive(Debug)]
struct Shared {
    /// The catalogue.
    instruments: Vec<Instrument>,
    /// Position of each product in `instruments`.
    positions: HashMap<Symbol, usize>,
    /// Products priced by the simulator (not a market).
    simulated: std::collections::HashSet<Symbol>,
    /// Each product's source, as people read it.
    sources: HashMap<Symbol, String>,
    /// The catalogue's products the engine lists: only these are shown and journaled.
    listed: RwLock<std::collections::HashSet<Symbol>>,
    /// Candle history.
    store: CandleStore,
    /// Latest tick, open candles and stats, written by the candle thread.
    live: RwLock<Live>,
    /// Stale flags, written by the staleness monitor.
    stale: Mutex<StalenessTracker>,
    /// Sequenced ticks for subscribers.
    ticks: broadcast::Sender<TickUpdate>,
    /// Candle updates (open and closed) for subscribers.
    candles: broadcast::Sender<CandleUpdate>,
    counters: MarketCounters,
}

/// What the candle thread knows now.
#[derive(Debug, Default)]
struct Live {
    /// Latest tick per product.
    last: HashMap<Symbol, TickUpdate>,
    /// Open candle per product and period.
    open_candles: HashMap<(Symbol, Period), Candle>,
    /// 24 h statistics.
    stats: RollingStats,
}

/// The read side: cheap to clone, safe to use from any thread or task.
#[derive(Debug, Clone)]
pub struct MarketData {
    /// Shared state.
    shared: Arc<Shared>,
}

impl MarketData {
    /// True while this member leads and sequences none of the prices it receives (see
    /// [`MarketCounters::pricing_stalled`]).
    pub fn pricing_stalled(&self) -> bool {
        self.shared.counters.pricing_stalled.load(Ordering::Relaxed)
    }

    /// Every listed product with its live price, 24 h statistics and freshness, catalogue
    /// order.
    pub fn products(&self, now_ms: u64) -> Vec<ProductView> {
        let listed = self.shared.listed.read().unwrap_or_else(|p| p.into_inner());
        let instruments: Vec<Instrument> = self
            .shared
            .instruments
            .iter()
            .filter(|i| listed.contains(&i.symbol))
            .cloned()
            .collect();
        drop(listed);
        self.views(&instruments, now_ms)
    }

    /// One listed product, as in [`MarketData::products`].
    pub fn product(&self, symbol: Symbol, now_ms: u64) -> Option<ProductView> {
        if !self.is_listed(symbol) {
            return None;
        }
        let at = *self.shared.positions.get(&symbol)?;
        self.views(&self.shared.instruments[at..=at], now_ms).pop()
    }

    /// The catalogue's products not listed yet, with where their prices would come from.
    pub fn unlisted(&self, now_ms: u64) -> Vec<ProductView> {
        let listed = self.shared.listed.read().unwrap_or_else(|p| p.into_inner());
        let instruments: Vec<Instrument> = self
            .shared
            .instruments
            .iter()
            .filter(|i| !listed.contains(&i.symbol))
            .cloned()
            .collect();
        drop(listed);
        self.views(&instruments, now_ms)
    }

    /// True if the engine lists `symbol` (so its ticks are journaled and it is shown).
    pub fn is_listed(&self, symbol: Symbol) -> bool {
        self.shared.listed.read().unwrap_or_else(|p| p.into_inner()).contains(&symbol)
    }

    /// `symbol` was listed in the engine: show it and journal its ticks from now on.
    pub fn list(&self, symbol: Symbol) {
        if self.shared.positions.contains_key(&symbol) {
            self.shared.listed.write().unwrap_or_else(|p| p.into_inner()).insert(symbol);
        }
    }

    fn views(&self, instruments: &[Instrument], now_ms: u64) -> Vec<ProductView> {
        let live = self.shared.live.read().unwrap_or_else(|p| p.into_inner());
        let stale = self.shared.stale.lock().unwrap_or_else(|p| p.into_inner());
        instruments
            .iter()
            .map(|i| ProductView {
                instrument: i.clone(),
                last: live.last.get(&i.symbol).cloned(),
                stats: live.stats.get(i.symbol).unwrap_or_default(),
                stale: stale.is_stale(i.symbol),
                open: i.hours().is_open(now_ms),
                simulated: self.shared.simulated.contains(&i.symbol),
                source: self.shared.sources.get(&i.symbol).cloned().unwrap_or_default(),
            })
            .collect()
    }

    /// True if the simulator prices `symbol` (its prices are not a market's).
    pub fn is_simulated(&self, symbol: Symbol) -> bool {
        self.shared.simulated.contains(&symbol)
    }

    /// Candles with `from_ms <= open_ms < to_ms`, ascending, at most `limit`; the open candle
    /// is included when it falls in the range, so a chart is current to the last tick.
    pub fn candles(
        &self,
        symbol: Symbol,
        period: Period,
        from_ms: u64,
        to_ms: u64,
        limit: usize,
    ) -> Result<Vec<Candle>, crate::store::StoreError> {
        let mut candles = self.shared.store.range(symbol, period, from_ms, to_ms, limit)?;
        self.merge_open(
            symbol,
            period,
            &mut candles,
            |c| c.open_ms >= from_ms && c.open_ms < to_ms,
            limit,
        );
        Ok(candles)
    }

    /// The newest `limit` candles, ascending, the open one included.
    pub fn latest_candles(
        &self,
        symbol: Symbol,
        period: Period,
        limit: usize,
    ) -> Result<Vec<Candle>, crate::store::StoreError> {
        let mut candles = self.shared.store.latest(symbol, period, limit)?;
        // The forming candle goes on top even when the stored ones fill the page.
        self.merge_open(symbol, period, &mut candles, |_| true, limit + 1);
        if candles.len() > limit {
            candles.remove(0);
        }
        Ok(candles)
    }

    /// The `limit` newest candles of the store alone (closed ones, and the forming candles
    /// of longer periods as last persisted), oldest first, with the store's write count
    /// before the read: while [`MarketData::candle_writes`] still gives that count, they are
    /// what the store holds.
    pub fn stored_candles(
        &self,
        symbol: Symbol,
        period: Period,
        limit: usize,
    ) -> Result<(u64, Vec<Candle>), crate::store::StoreError> {
        let writes = self.shared.store.writes();
        Ok((writes, self.shared.store.latest(symbol, period, limit)?))
    }

    /// How many times the candle store was written so far.
    pub fn candle_writes(&self) -> u64 {
        self.shared.store.writes()
    }

    fn merge_open(
        &self,
        symbol: Symbol,
        period: Period,
        candles: &mut Vec<Candle>,
        wanted: impl Fn(&Candle) -> bool,
        limit: usize,
    ) {
        if limit == 0 {
            return;
        }
        let live = self.shared.live.read().unwrap_or_else(|p| p.into_inner());
        let Some(open) = live.open_candles.get(&(symbol, period)).filter(|c| wanted(c)) else {
            return;
        };
        match candles.last() {
            Some(last) if last.open_ms == open.open_ms => {
                *candles.last_mut().expect("non-empty") = open.clone()
            }
            Some(last) if last.open_ms > open.open_ms => {}
            _ if candles.len() < limit => candles.push(open.clone()),
            _ => {}
        }
    }

    /// The open (still forming) candle of a product and period, if it has ticked in it.
    pub fn open_candle(&self, symbol: Symbol, period: Period) -> Option<Candle> {
        let live = self.shared.live.read().unwrap_or_else(|p| p.into_inner());
        live.open_candles.get(&(symbol, period)).cloned()
    }

    /// The latest sequenced tick of a product.
    pub fn latest_tick(&self, symbol: Symbol) -> Option<TickUpdate> {
        self.shared.live.read().unwrap_or_else(|p| p.into_inner()).last.get(&symbol).cloned()
    }

    /// Every sequenced tick from now on. A subscriber that falls behind skips ahead
    /// (`RecvError::Lagged`): for prices only the latest matters.
    pub fn subscribe_ticks(&self) -> broadcast::Receiver<TickUpdate> {
        self.shared.ticks.subscribe()
    }

    /// Every candle update (open candles after each tick, closed candles once).
    pub fn subscribe_candles(&self) -> broadcast::Receiver<CandleUpdate> {
        self.shared.candles.subscribe()
    }

    /// The catalogue.
    pub fn instruments(&self) -> &[Instrument] {
        &self.shared.instruments
    }

    /// Counters since start.
    pub fn counters(&self) -> &MarketCounters {
        &self.shared.counters
    }
}

/// Sources built, each with its products.
type Built = Vec<(Box<dyn crate::source::PriceSource>, Vec<Symbol>)>;

/// Sources built by `start`, each with its products, and the engine they will feed.
struct Pending(Built, Handle<Engine>);

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self.0.iter().map(|(s, _)| s.name()).collect();
        f.debug_tuple("Pending").field(&names).finish()
    }
}

/// The running service; dropping it or calling `shutdown` stops every task and thread.
#[derive(Debug)]
pub struct MarketService {
    /// Cancels the sources, the pump and the monitor.
    stop: CancellationToken,
    /// Tells the candle thread to stop.
    stop_candles: Arc<std::sync::atomic::AtomicBool>,
    /// The candle thread.
    candle_thread: Option<JoinHandle<()>>,
    /// Sources built at start, waiting for `start_sources`, and the engine they feed.
    pending: Mutex<Option<Pending>>,
    /// Shared with readers.
    data: MarketData,
}

impl MarketService {
    /// Opens the candle store, backfills simulated products' history at first start, restores
    /// the open candles and starts the candle thread. Prices start flowing only with
    /// [`MarketService::start_sources`], so readers can subscribe first and miss nothing.
    pub fn start(
        engine: Handle<Engine>,
        instruments: Vec<Instrument>,
        config: MarketConfig,
    ) -> Result<MarketService, MarketError> {
        let groups = assign(&instruments, &config)?;
        let store = CandleStore::open(&config.data_dir)?;
        let now = wal::pipeline::system_time_ms();
        let backfill_later = backfill_history(&engine, &store, &groups, &config, now)?;
        let built = build_sources(&engine, &instruments, &groups)?;
        let positions = instruments.iter().enumerate().map(|(at, i)| (i.symbol, at)).collect();
        let hours = instruments.iter().map(|i| (i.symbol, i.hours()));
        let simulated = groups
            .iter()
            .filter(|(source, _)| matches!(source, SourceConfig::Simulated { .. }))
            .flat_map(|(_, members)| members.iter().map(|i| i.symbol))
            .collect();
        let listed = engine.query(|e: &Engine| e.products().iter().map(|p| p.symbol).collect())?;
        let sources = groups
            .iter()
            .flat_map(|(source, members)| members.iter().map(|i| (i.symbol, source.label())))
            .collect();
        let shared = Arc::new(Shared {
            stale: Mutex::new(StalenessTracker::new(hours, now)),
            instruments,
            positions,
            simulated,
            sources,
            listed: RwLock::new(listed),
            store,
            live: RwLock::new(Live::default()),
            ticks: broadcast::channel(TICK_BROADCAST_MAX).0,
            candles: broadcast::channel(CANDLE_BROADCAST_MAX).0,
            counters: MarketCounters::default(),
        });
        let stop_candles = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let archive = config.archive.clone();
        let candle_thread = Some(spawn_candle_thread(
            engine.clone(),
            shared.clone(),
            stop_candles.clone(),
            archive,
            backfill_later,
        )?);
        Ok(MarketService {
            stop: CancellationToken::new(),
            stop_candles,
            candle_thread,
            pending: Mutex::new(Some(Pending(built, engine))),
            data: MarketData { shared },
        })
    }

    /// Starts the sources, the pump and the staleness monitor on `runtime`. Only the first call
    /// does anything.
    pub fn start_sources(&self, runtime: &tokio::runtime::Handle) {
        let Some(Pending(built, engine)) =
            self.pending.lock().unwrap_or_else(|p| p.into_inner()).take()
        else {
            return;
        };
        let shared = self.data.shared.clone();
        let stop = self.stop.clone();
        let (raw_tx, raw_rx) = mpsc::channel(RAW_TICKS_QUEUE_MAX);
        let mut owner = HashMap::new();
        for (n, (source, symbols)) in built.into_iter().enumerate() {
            for symbol in symbols {
                owner.insert(symbol, n);
            }
            let (tx, mut rx) = mpsc::channel::<RawTick>(RAW_TICKS_QUEUE_MAX);
            let name = source.name();
            runtime.spawn(run_source(source, tx, stop.clone()));
            // Tag each source's ticks with its group so the pump can check the assignment.
            let raw_tx = raw_tx.clone();
            runtime.spawn(async move {
                while let Some(tick) = rx.recv().await {
                    if raw_tx.send((n, tick)).await.is_err() {
                        break;
                    }
                }
                tracing::debug!(source = %name, "source output closed");
            });
        }
        drop(raw_tx);
        let (ticket_tx, ticket_rx) = mpsc::channel(TICKETS_IN_FLIGHT_MAX);
        let engine_for_monitor = engine.clone();
        runtime.spawn(pump(raw_rx, owner, engine, shared.clone(), ticket_tx, stop.clone()));
        runtime.spawn(drain_replies(ticket_rx, shared.clone()));
        runtime.spawn(monitor(shared, engine_for_monitor, stop));
    }

    /// The read API.
    pub fn data(&self) -> MarketData {
        self.data.clone()
    }

    /// Stops the sources and tasks, then the candle thread, and flushes the candle store.
    pub fn shutdown(mut self) {
        self.stop_all();
    }

    fn stop_all(&mut self) {
        self.stop.cancel();
        self.stop_candles.store(true, Ordering::Release);
        if let Some(thread) = self.candle_thread.take() {
            let _ = thread.join();
        }
        if let Err(e) = self.data.shared.store.flush() {
            tracing::warn!(error = %e, "candle store flush failed");
        }
    }
}

impl Drop for MarketService {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// Groups the catalogue by source: explicit assignments first, the default for the rest.
fn assign(
    instruments: &[Instrument],
    config: &MarketConfig,
) -> Result<Vec<(SourceConfig, Vec<Instrument>)>, MarketError> {
    let mut taken: HashMap<Symbol, ()> = HashMap::new();
    let mut groups = Vec::new();
    for (source, symbols) in &config.assignments {
        let mut members = Vec::new();
        for symbol in symbols {
            let instrument = instruments.iter().find(|i| i.symbol == *symbol).ok_or_else(|| {
                MarketError::Assignment(format!("{symbol} is not in the catalogue"))
            })?;
            if taken.insert(*symbol, ()).is_some() {
                return Err(MarketError::Assignment(format!("{symbol} is assigned twice")));
            }
            members.push(instrument.clone());
        }
        if !members.is_empty() {
            groups.push((source.clone(), members));
        }
    }
    let rest: Vec<Instrument> =
        instruments.iter().filter(|i| !taken.contains_key(&i.symbol)).cloned().collect();
    if !rest.is_empty() {
        groups.push((config.default_source.clone(), rest));
    }
    Ok(groups)
}

async fn run_source(
    source: Box<dyn crate::source::PriceSource>,
    out: mpsc::Sender<RawTick>,
    stop: CancellationToken,
) {
    let name = source.name();
    tracing::info!(source = %name, "price source started");
    match source.run(out, stop).await {
        Ok(end) => tracing::info!(source = %name, ?end, "price source ended"),
        Err(e) => tracing::error!(source = %name, error = %e, "price source failed"),
    }
}

/// Submits raw ticks to the engine without waiting for each reply (tickets go to the drain),
/// so one slow fsync does not hold up every other product's price.
async fn pump(
    mut raw: mpsc::Receiver<(usize, RawTick)>,
    owner: HashMap<Symbol, usize>,
    engine: Handle<Engine>,
    shared: Arc<Shared>,
    tickets: mpsc::Sender<Ticket<Engine>>,
    stop: CancellationToken,
) {
    loop {
        let (group, tick) = tokio::select! {
            _ = stop.cancelled() => break,
            next = raw.recv() => match next { Some(t) => t, None => break },
        };
        let counters = &shared.counters;
        counters.received.fetch_add(1, Ordering::Relaxed);
        if owner.get(&tick.symbol) != Some(&group) {
            counters.unassigned.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        let now = wal::pipeline::system_time_ms();
        let recovered =
            shared.stale.lock().unwrap_or_else(|p| p.into_inner()).on_tick(tick.symbol, now);
        if let Some(Freshness::Recovered(symbol)) = recovered {
            tracing::info!(%symbol, "price feed recovered");
        }
        if !shared.listed.read().unwrap_or_else(|p| p.into_inner()).contains(&tick.symbol) {
            counters.unlisted.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        if !engine.is_leader() {
            // A cluster follower: the leader's sources price the products.
            counters.not_leader.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        match engine.try_submit(tick_command(&tick)) {
            Ok(ticket) => {
                if tickets.send(ticket).await.is_err() {
                    break;
                }
            }
            Err(PipelineError::Overloaded) => {
                counters.overloaded.fetch_add(1, Ordering::Relaxed);
            }
            // Leadership moved between the check and the submit: the next leader prices.
            Err(PipelineError::NotLeader { .. }) => {
                counters.not_leader.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                tracing::error!(error = %e, "engine pipeline stopped; price pump ends");
                break;
            }
        }
    }
}

/// A tick the pipeline did not journal because leadership moved (refused before it was
/// proposed, or proposed and lost with the leadership): the pump goes on, and prices resume
/// on whichever member leads next, this one again included. Anything else means the core
/// stopped.
fn lost_to_a_leadership_change(error: &PipelineError) -> bool {
    matches!(error, PipelineError::NotLeader { .. } | PipelineError::OutcomeUnknown)
}

/// Waits for tick replies in order and counts refusals.
async fn drain_replies(mut tickets: mpsc::Receiver<Ticket<Engine>>, shared: Arc<Shared>) {
    while let Some(ticket) = tickets.recv().await {
        match ticket.await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                let n = shared.counters.refused.fetch_add(1, Ordering::Relaxed);
                if n.is_multiple_of(1_000) {
                    tracing::warn!(error = %e, refused = n + 1, "engine refused a tick");
                }
            }
            Err(e) if lost_to_a_leadership_change(&e) => {
                shared.counters.not_leader.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                tracing::error!(error = %e, "tick not journaled; the core stopped");
                break;
            }
        }
    }
}

/// Checks freshness every second, and that a leader that receives prices sequences them.
async fn monitor(shared: Arc<Shared>, engine: Handle<Engine>, stop: CancellationToken) {
    let mut every = tokio::time::interval(Duration::from_secs(1));
    let counters = &shared.counters;
    // (received, sequenced) when sequencing last moved, or this member last stopped leading.
    let mut moved = (0, 0, std::time::Instant::now());
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = every.tick() => {}
        }
        let now = wal::pipeline::system_time_ms();
        let changes = shared.stale.lock().unwrap_or_else(|p| p.into_inner()).check(now);
        for change in changes {
            if let Freshness::BecameStale(symbol) = change {
                tracing::warn!(%symbol, "price feed stale: no tick for 10 s while the market is open; open contracts will void by the published rules");
            }
        }
        let received = counters.received.load(Ordering::Relaxed);
        let sequenced = counters.sequenced.load(Ordering::Relaxed);
        let stalled = engine.is_leader()
            && received > moved.0
            && sequenced == moved.1
            && moved.2.elapsed() >= PRICING_STALL;
        if !engine.is_leader() || sequenced != moved.1 {
            moved = (received, sequenced, std::time::Instant::now());
        }
        let was = counters.pricing_stalled.swap(stalled, Ordering::Relaxed);
        if stalled && !was {
            tracing::error!(received = received - moved.0, "this member leads and receives prices but has sequenced none for 10 s: every product is going stale and open contracts will void");
        } else if was && !stalled {
            tracing::info!("prices are sequenced again");
        }
    }
}

/// Writes the synthetic history of `instruments` from the install's `(seed, end_ms)`.
fn write_history(
    store: &CandleStore,
    instruments: &[Instrument],
    (seed, end_ms): (u64, u64),
    count: usize,
) -> Result<(), MarketError> {
    for instrument in instruments {
        if let Backfill::Written { candles } = backfill(store, instrument, seed, end_ms, count)? {
            // No tick is in the history yet: a restart before the first minute closes folds
            // every tick from the archive onto it, as the running members did.
            store.set_position(instrument.symbol, 0)?;
            tracing::info!(symbol = %instrument.symbol, candles, "backfilled history");
        }
    }
    Ok(())
}

/// Longest a cluster member waits at first start for its group's chart history to be drawn.
const HISTORY_WAIT: Duration = Duration::from_secs(120);

/// Writes the chart history of simulated products that have none yet (their first start).
/// Returns what is left for the candle thread to write, when the history comes from the
/// engine and a cluster member's group has not drawn it yet.
fn backfill_history(
    engine: &Handle<Engine>,
    store: &CandleStore,
    groups: &[(SourceConfig, Vec<Instrument>)],
    config: &MarketConfig,
    now: u64,
) -> Result<Option<(Vec<Instrument>, usize)>, MarketError> {
    let mut to_backfill = Vec::new();
    for (source, members) in groups {
        if matches!(source, SourceConfig::Simulated { .. }) {
            for instrument in members {
                if store.is_empty_for(instrument.symbol)? {
                    to_backfill.push(instrument.clone());
                }
            }
        }
    }
    let history = if config.history_from_engine {
        engine.query(|e: &Engine| e.chart_history())?
    } else {
        Some((config.backfill_seed, now))
    };
    Ok(match history {
        Some(history) => {
            write_history(store, &to_backfill, history, config.backfill_candles)?;
            None
        }
        // A cluster member before its group's first leader drew the history: the candle
        // thread writes it once the engine has it.
        None if to_backfill.is_empty() => None,
        None => Some((to_backfill, config.backfill_candles)),
    })
}

/// Builds every source now, so a bad replay file or URL stops the start. The simulator
/// continues from the last price the engine sequenced, so a restart does not jump the chart
/// back to the catalogue's starting price.
fn build_sources(
    engine: &Handle<Engine>,
    instruments: &[Instrument],
    groups: &[(SourceConfig, Vec<Instrument>)],
) -> Result<Built, MarketError> {
    let symbols: Vec<Symbol> = instruments.iter().map(|i| i.symbol).collect();
    let last_prices: HashMap<Symbol, Decimal> = engine.query(move |e: &Engine| {
        symbols.iter().filter_map(|&s| Some((s, e.last_tick(s)?.price))).collect()
    })?;
    let mut built = Vec::with_capacity(groups.len());
    for (source, members) in groups {
        let members: Vec<Instrument> = members
            .iter()
            .map(|i| match last_prices.get(&i.symbol) {
                Some(&price) => {
                    Instrument { start_price: price.round_dp(u32::from(i.precision)), ..i.clone() }
                }
                None => i.clone(),
            })
            .collect();
        let symbols = members.iter().map(|i| i.symbol).collect::<Vec<_>>();
        built.push((source.build(&members, Arc::new(SystemClock))?, symbols));
    }
    Ok(built)
}

/// Subscribes to the engine's events, then starts the candle thread, which writes the history
/// it still lacks (`backfill_later`), restores the stored candles and folds the ticks they
/// lack from the archive before the live ones.
fn spawn_candle_thread(
    engine: Handle<Engine>,
    shared: Arc<Shared>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    archive: Option<Arc<crate::archive::TickArchive>>,
    backfill_later: Option<(Vec<Instrument>, usize)>,
) -> Result<JoinHandle<()>, MarketError> {
    // Events from here on come live; the archive has (or soon has) every tick before them.
    let events = engine.subscribe(EVENT_BATCHES_QUEUE_MAX)?;
    let live_after = engine.query(|e: &Engine| e.applied_index())?;
    let thread = std::thread::Builder::new()
        .name("market-candles".into())
        .spawn(move || {
            if let Some((instruments, count)) = backfill_later {
                let deadline = std::time::Instant::now() + HISTORY_WAIT;
                let history = loop {
                    match engine.query(|e: &Engine| e.chart_history()) {
                        Ok(Some(history)) => break Some(history),
                        Ok(None) if std::time::Instant::now() < deadline => {
                            std::thread::sleep(Duration::from_millis(200));
                        }
                        _ => break None,
                    }
                };
                match history {
                    Some(history) => {
                        if let Err(error) = write_history(&shared.store, &instruments, history, count) {
                            tracing::error!(%error, "chart history not written");
                        }
                    }
                    None => tracing::warn!("no chart history from the cluster yet: charts start with the first ticks"),
                }
            }
            let aggregator = match prepare_candles(&shared, archive.as_deref(), live_after) {
                Ok(aggregator) => aggregator,
                Err(error) => {
                    tracing::error!(%error, "candles could not be restored; charts stop updating until a restart");
                    return;
                }
            };
            candle_loop(engine, events, aggregator, shared, stop, live_after);
        })
        .expect("spawning the candle thread");
    Ok(thread)
}

/// The aggregator as the store left it, brought up to `live_after` from the archive, and the
/// live state readers see.
fn prepare_candles(
    shared: &Shared,
    archive: Option<&crate::archive::TickArchive>,
    live_after: u64,
) -> Result<CandleAggregator, MarketError> {
    let mut aggregator = CandleAggregator::new(Emit::All);
    let mut positions = Vec::new();
    for instrument in &shared.instruments {
        shared.store.restore_into(&mut aggregator, instrument.symbol)?;
        if let Some(position) = shared.store.position(instrument.symbol)? {
            aggregator.restore_position(instrument.symbol, position)?;
            positions.push((instrument.symbol, position));
        }
    }
    if let Some(archive) = archive {
        catch_up_from_archive(archive, &positions, live_after, &mut aggregator, &shared.store)?;
    }
    let mut live = Live::default();
    for instrument in &shared.instruments {
        for (period, candle) in aggregator.current_all(instrument.symbol) {
            live.open_candles.insert((instrument.symbol, period), candle.clone());
            if period == Period::M1 {
                let _ = live.stats.on_candle(instrument.symbol, candle);
            }
        }
    }
    let mut current = shared.live.write().unwrap_or_else(|p| p.into_inner());
    live.last = std::mem::take(&mut current.last);
    *current = live;
    drop(current);
    Ok(aggregator)
}

/// Longest wait at start for the tick archive to hold every tick before the live events.
const ARCHIVE_CATCH_UP_WAIT: Duration = Duration::from_secs(30);

/// Folds the ticks each symbol's stored candles lack (after its position, up to `until`) from
/// the archive, in log order, and stores the candles they complete: after a crash, the
/// candles are what they would be had the process never stopped, the same on every member.
fn catch_up_from_archive(
    archive: &crate::archive::TickArchive,
    positions: &[(Symbol, u64)],
    until: u64,
    aggregator: &mut CandleAggregator,
    store: &CandleStore,
) -> Result<(), MarketError> {
    let Some(from) = positions.iter().map(|&(_, position)| position).min() else { return Ok(()) };
    if from >= until {
        return Ok(());
    }
    let deadline = std::time::Instant::now() + ARCHIVE_CATCH_UP_WAIT;
    while archive.processed_index() < until && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20)); // the projector fills it, in its thread
    }
    let mut ticks = Vec::new();
    for &(symbol, position) in positions.iter().filter(|(_, p)| *p < until) {
        let mut next = position + 1;
        loop {
            let page = archive.by_index(symbol, next, until, crate::archive::READ_TICKS_MAX)?;
            let Some(last) = page.last() else { break };
            next = last.index + 1;
            ticks.extend(page.into_iter().map(|t| (t, symbol)));
        }
    }
    ticks.sort_unstable_by_key(|(t, _)| t.index);
    aggregator.rewind_order_check();
    let mut updates = Vec::with_capacity(64);
    for (tick, symbol) in &ticks {
        let sequenced = SequencedTick {
            symbol: *symbol,
            price: tick.price,
            quantity: tick.quantity,
            time_ms: tick.time_ms,
            index: tick.index,
        };
        aggregator.on_tick(&sequenced, &mut updates)?;
        store.record(&updates, aggregator)?;
        updates.clear();
    }
    if !ticks.is_empty() {
        tracing::info!(
            ticks = ticks.len(),
            from,
            until,
            "candles brought up to date from the tick archive"
        );
    }
    Ok(())
}

/// Products were listed (on this node, or on the leader and replicated here): the listed
/// set follows the engine's products. Asked off the engine thread, so it may run a batch late.
fn refresh_listed(engine: &Handle<Engine>, shared: &Arc<Shared>) {
    let products =
        engine.query(|e: &Engine| e.products().iter().map(|p| p.symbol).collect::<Vec<_>>());
    if let Ok(products) = products {
        let mut listed = shared.listed.write().unwrap_or_else(|p| p.into_inner());
        listed.extend(products.into_iter().filter(|s| shared.positions.contains_key(s)));
    }
}

/// How often candles of quiet symbols are checked for closing.
const CLOSE_CHECK_PERIOD: Duration = Duration::from_millis(250);

/// Folds live ticks (those after `folded_through`, which the archive gave at start) into
/// candles. Candles of quiet symbols close by the engine's time, not this machine's: a
/// member applying ticks seconds late (catching up) closes the same candles the others did.
fn candle_loop(
    engine: Handle<Engine>,
    mut events: crossbeam_channel::Receiver<Arc<EventBatch<Events>>>,
    mut aggregator: CandleAggregator,
    shared: Arc<Shared>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    folded_through: u64,
) {
    let mut updates = Vec::with_capacity(64);
    let mut engine_time_ms: u64 = 0;
    let mut last_close_check = std::time::Instant::now();
    while !stop.load(Ordering::Acquire) {
        if last_close_check.elapsed() >= CLOSE_CHECK_PERIOD && engine_time_ms > 0 {
            aggregator.close_before(engine_time_ms.saturating_sub(CLOSE_LAG_MS), &mut updates);
            publish(&shared, &aggregator, &mut updates, None);
            let now = wal::pipeline::system_time_ms();
            shared.live.write().unwrap_or_else(|p| p.into_inner()).stats.advance_to(now);
            last_close_check = std::time::Instant::now();
        }
        match events.recv_timeout(CLOSE_CHECK_PERIOD) {
            Ok(batch) => {
                engine_time_ms = engine_time_ms.max(batch.time_ms);
                for event in &batch.events {
                    if matches!(event, Event::CatalogueChanged) {
                        refresh_listed(&engine, &shared);
                    }
                    if let Event::Tick { symbol, tick, quantity } = event {
                        if tick.index <= folded_through {
                            continue; // folded from the archive at start
                        }
                        let sequenced = SequencedTick {
                            symbol: *symbol,
                            price: tick.price,
                            quantity: *quantity,
                            time_ms: tick.time_ms,
                            index: tick.index,
                        };
                        if let Err(e) = aggregator.on_tick(&sequenced, &mut updates) {
                            tracing::warn!(error = %e, "tick not aggregated");
                            continue;
                        }
                        shared.counters.sequenced.fetch_add(1, Ordering::Relaxed);
                        publish(&shared, &aggregator, &mut updates, Some(sequenced));
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                // Dropped for lagging, or the pipeline stopped: resubscribe if it still runs.
                match engine.subscribe(EVENT_BATCHES_QUEUE_MAX) {
                    Ok(fresh) => {
                        tracing::warn!("candle thread fell behind the engine and resubscribed; ticks in between are missing from candles");
                        events = fresh;
                    }
                    Err(_) => break,
                }
            }
        }
    }
}

/// Stores, applies to the live state and broadcasts one tick's updates.
fn publish(
    shared: &Shared,
    aggregator: &CandleAggregator,
    updates: &mut Vec<CandleUpdate>,
    tick: Option<SequencedTick>,
) {
    if let Err(e) = shared.store.record(updates, aggregator) {
        tracing::warn!(error = %e, "candles not stored");
    }
    {
        let mut live = shared.live.write().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = live.stats.on_updates(updates) {
            tracing::warn!(error = %e, "24h statistics not updated");
        }
        for update in updates.iter() {
            if update.closed {
                live.open_candles.remove(&(update.symbol, update.period));
            } else {
                live.open_candles.insert((update.symbol, update.period), update.candle.clone());
            }
        }
        if let Some(t) = &tick {
            let view = TickUpdate {
                symbol: t.symbol,
                price: t.price,
                quantity: t.quantity,
                time_ms: t.time_ms,
                index: t.index,
            };
            live.last.insert(t.symbol, view.clone());
            let _ = shared.ticks.send(view);
        }
    }
    for update in updates.drain(..) {
        let _ = shared.candles.send(update);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{ArchivedTick, TickArchive};

    /// Ticks of two products over five minutes, 4 a second each, with quantities.
    fn ticks() -> Vec<(Symbol, ArchivedTick)> {
        let start = 1_795_305_600_000; // a minute boundary
        let (btc, eth) = (Symbol::new("BTCUSDT").unwrap(), Symbol::new("ETHUSDT").unwrap());
        (0..2_400u64)
            .map(|i| {
                let symbol = if i % 2 == 0 { btc } else { eth };
                let price = Decimal::new(9_650_000 + i64::try_from(i * 37 % 501).unwrap(), 2);
                let quantity = Decimal::new(i64::try_from(i % 97 + 1).unwrap(), 3);
                let tick =
                    ArchivedTick { index: 10 + i * 3, time_ms: start + i * 125, price, quantity };
                (symbol, tick)
            })
            .collect()
    }

    fn fold(
        aggregator: &mut CandleAggregator,
        store: &CandleStore,
        symbol: Symbol,
        t: &ArchivedTick,
    ) {
        let tick = SequencedTick {
            symbol,
            price: t.price,
            quantity: t.quantity,
            time_ms: t.time_ms,
            index: t.index,
        };
        let mut updates = Vec::new();
        aggregator.on_tick(&tick, &mut updates).unwrap();
        store.record(&updates, aggregator).unwrap();
    }

    fn chart(store: &CandleStore, symbol: Symbol) -> Vec<Vec<Candle>> {
        Period::ALL.iter().map(|p| store.range(symbol, *p, 0, u64::MAX, 1_500).unwrap()).collect()
    }

    /// A member killed mid-minute restarts with the candles it would have had running on: the
    /// open candles saved with their position, then the archive's ticks after it, volumes too.
    #[test]
    fn candles_rebuilt_after_a_crash_equal_the_uninterrupted_ones() {
        let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
        let (running, crashed) = (
            CandleStore::open(dirs[0].path()).unwrap(),
            CandleStore::open(dirs[1].path()).unwrap(),
        );
        let archive_dir = tempfile::tempdir().unwrap();
        let archive = TickArchive::open(archive_dir.path()).unwrap();
        let ticks = ticks();
        let mut uninterrupted = CandleAggregator::new(Emit::All);
        let mut before_crash = CandleAggregator::new(Emit::All);
        let crash_at = ticks.len() * 2 / 3 + 5; // well inside a minute
        for (n, (symbol, tick)) in ticks.iter().enumerate() {
            archive.append(*symbol, *tick).unwrap();
            fold(&mut uninterrupted, &running, *symbol, tick);
            if n < crash_at {
                fold(&mut before_crash, &crashed, *symbol, tick);
            }
        }
        archive.processed(ticks.last().unwrap().1.index);
        drop(before_crash); // what it had not stored is gone
        let mut restarted = CandleAggregator::new(Emit::All);
        let mut positions = Vec::new();
        for symbol in ["BTCUSDT", "ETHUSDT"].map(|s| Symbol::new(s).unwrap()) {
            crashed.restore_into(&mut restarted, symbol).unwrap();
            let position = crashed.position(symbol).unwrap().expect("a stored position");
            restarted.restore_position(symbol, position).unwrap();
            positions.push((symbol, position));
        }
        let until = ticks.last().unwrap().1.index;
        catch_up_from_archive(&archive, &positions, until, &mut restarted, &crashed).unwrap();
        for symbol in ["BTCUSDT", "ETHUSDT"].map(|s| Symbol::new(s).unwrap()) {
            assert_eq!(chart(&crashed, symbol), chart(&running, symbol), "{symbol}");
            let open: Vec<_> = restarted.current_all(symbol).collect();
            assert_eq!(open, uninterrupted.current_all(symbol).collect::<Vec<_>>(), "{symbol}");
        }
    }
}
