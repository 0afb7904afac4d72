//! The fan-out: one task that owns every subscription and turns engine events and market
//! data into frames.
//!
//! Each event is serialised once, and only when someone is listening; its bytes are then
//! shared by every recipient's outbox. The hub never waits on a connection: pushing to an
//! outbox is a short lock, and a client that cannot keep up loses market updates to
//! coalescing or is closed for resync, never slowing the others.
//!
//! Engine events arrive through the pipeline's subscription, bridged from its thread. If the
//! hub falls so far behind that the pipeline drops it, every authenticated connection is
//! closed with [`super::CLOSE_RESYNC`]: the private stream had a gap, and saying so is
//! better than pretending otherwise.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use engine::event::{Event, Events};
use engine::sale::{NoOffer, Quote};
use engine::types::{AdminId, Contract, ContractId, Principal, SessionId, Symbol, UserId};
use engine::Engine;
use market_feed::candles::CandleUpdate;
use rustc_hash::{FxHashMap, FxHashSet};
use tokio::sync::{broadcast, mpsc};
use wal::EventBatch;

use super::control::{ConnId, Control, Topic};
use super::outbox::{Close, Outbox, Slot};
use super::protocol;
use super::{CLOSE_GOING_AWAY, CLOSE_HEARTBEAT_TIMEOUT, CLOSE_SESSION_ENDED, RESYNC};
use crate::readmodel::CopyNoteRow;
use crate::state::AppState;
use crate::trading::market_item;

/// Engine event batches the bridge holds for the hub.
const EVENT_BATCHES_QUEUE_MAX: usize = 4_096;
/// Batches the pipeline holds for the bridge before it drops it.
const EVENT_SUBSCRIPTION_BATCHES_MAX: usize = 65_536;

/// Live-offer queries to the engine waiting for an answer, at most: a tick whose offers would
/// pass this is skipped (the next tick brings new ones).
const OFFER_QUERIES_MAX: usize = 64;

/// Open contracts of one user priced at each tick, at most (the newest): a trader sees the
/// others' offers when they sell, and one user's contracts cannot fill a tick's query.
const OFFERS_PER_USER_MAX: usize = 50;

/// An open contract the hub prices for its owner while they are online.
#[derive(Debug, Clone, Copy)]
struct Held {
    contract: ContractId,
    symbol: Symbol,
    /// Once entered.
    expiry_ms: Option<u64>,
    /// In a query not answered yet: the next ticks leave it out, so that a busy engine,
    /// slower than the ticks, never prices one contract for several queries at once.
    asking: bool,
}

impl Held {
    /// An open contract not yet priced.
    fn waiting(contract: ContractId, symbol: Symbol, expiry_ms: Option<u64>) -> Held {
        Held { contract, symbol, expiry_ms, asking: false }
    }
}

/// One tick's offers, back from the engine.
#[derive(Debug)]
struct Offers {
    /// Every contract the query asked for (answered or not: settled since, or the query failed).
    asked: Vec<(UserId, ContractId)>,
    /// The offers of those still open.
    answered: Vec<(UserId, ContractId, Result<Quote, NoOffer>)>,
}

/// What the hub knows of a connection.
#[derive(Debug)]
struct Entry {
    /// Where its frames go.
    outbox: Arc<Outbox>,
    /// Its subscriptions, to clean up after it.
    topics: Vec<Topic>,
    /// Its user, session and session expiry, once authenticated.
    user: Option<(UserId, SessionId, u64)>,
    /// Its admin, session and session expiry, once authenticated as an admin.
    admin: Option<(AdminId, SessionId, u64)>,
}

/// Every subscription.
#[derive(Debug, Default)]
struct Hub {
    conns: FxHashMap<ConnId, Entry>,
    topics: FxHashMap<Topic, FxHashSet<ConnId>>,
    users: FxHashMap<UserId, Vec<ConnId>>,
    /// Connections of admins watching trades.
    admins: FxHashSet<ConnId>,
    /// Every open contract by owner that may still get an offer, in id order (newest last),
    /// kept from the engine's events, for live offers. One priced out (in its last seconds,
    /// or its market closed since acceptance) is dropped at once: its owner was told, no
    /// offer comes again, and each tick walks these lists for every user online.
    held: FxHashMap<UserId, Vec<Held>>,
    /// Where answered offer queries come back.
    offers: Option<mpsc::Sender<Offers>>,
    /// Offer queries in flight.
    offer_queries: Arc<std::sync::atomic::AtomicUsize>,
}

/// Starts the hub on the current runtime, with a thread bridging the engine's events.
pub fn spawn(state: AppState, control: mpsc::Receiver<Control>) -> std::io::Result<()> {
    let (events_in, events) = mpsc::channel(EVENT_BATCHES_QUEUE_MAX);
    let handle = state.handle.clone();
    // Subscribed before the hub reads the open contracts, so that no change falls between.
    let first = handle.subscribe(EVENT_SUBSCRIPTION_BATCHES_MAX).ok();
    std::thread::Builder::new()
        .name("ws-events".into())
        .spawn(move || bridge(&handle, &events_in, first))?;
    let ticks = state.market.subscribe_ticks();
    let candles = state.market.subscribe_candles();
    tokio::spawn(run(state, control, events, ticks, candles));
    Ok(())
}

/// An engine batch, or word that some were lost.
#[derive(Debug)]
enum Input {
    Batch(Arc<EventBatch<Events>>),
    Gap,
}

/// Forwards the pipeline's event batches to the hub until either side stops.
fn bridge(
    handle: &wal::Handle<Engine>,
    out: &mpsc::Sender<Input>,
    mut first: Option<crossbeam_channel::Receiver<Arc<EventBatch<Events>>>>,
) {
    loop {
        let subscribed = match first.take() {
            Some(batches) => Ok(batches),
            None => handle.subscribe(EVENT_SUBSCRIPTION_BATCHES_MAX),
        };
        let Ok(batches) = subscribed else { return };
        while let Ok(batch) = batches.recv() {
            if out.blocking_send(Input::Batch(batch)).is_err() {
                return; // the hub stopped
            }
        }
        if handle.is_closed() {
            return;
        }
        tracing::warn!(
            "websocket fan-out fell behind the engine: closing private streams for resync"
        );
        if out.blocking_send(Input::Gap).is_err() {
            return;
        }
    }
}

async fn run(
    state: AppState,
    mut control: mpsc::Receiver<Control>,
    mut events: mpsc::Receiver<Input>,
    mut ticks: broadcast::Receiver<market_feed::market::TickUpdate>,
    mut candles: broadcast::Receiver<CandleUpdate>,
) {
    let mut hub = Hub::default();
    let (offers_in, mut offers) = mpsc::channel::<Offers>(OFFER_QUERIES_MAX);
    hub.offers = Some(offers_in);
    hub.load_held(&state).await;
    let mut heartbeat = tokio::time::interval(state.ws.config.ping_interval);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            biased;
            request = control.recv() => match request {
                Some(Control::Shutdown) | None => break,
                Some(request) => hub.control(&state, request),
            },
            input = events.recv() => match input {
                Some(Input::Batch(batch)) => {
                    hub.events(&batch);
                    hub.ask_offers(&state, &batch);
                }
                Some(Input::Gap) => {
                    hub.close_private(RESYNC);
                    hub.load_held(&state).await;
                }
                None => break,
            },
            Some(answered) = offers.recv() => hub.push_offers(answered),
            tick = ticks.recv() => match tick {
                Ok(tick) => hub.tick(&state, &tick),
                Err(broadcast::error::RecvError::Lagged(_)) => {} // ticks coalesce anyway
                Err(broadcast::error::RecvError::Closed) => break,
            },
            candle = candles.recv() => match candle {
                Ok(candle) => hub.candle(&candle),
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            },
            _ = heartbeat.tick() => hub.heartbeat(&state),
        }
    }
    let going_away = Close { code: CLOSE_GOING_AWAY, reason: "server shutting down" };
    for entry in hub.conns.values() {
        entry.outbox.close(going_away);
    }
}

impl Hub {
    fn control(&mut self, state: &AppState, request: Control) {
        match request {
            Control::Open { conn, outbox } => {
                let entry = Entry { outbox, topics: Vec::new(), user: None, admin: None };
                self.conns.insert(conn, entry);
            }
            Control::Subscribe { conn, topic } => self.subscribe(state, conn, topic),
            Control::Unsubscribe { conn, topic } => {
                if let Some(entry) = self.conns.get_mut(&conn) {
                    entry.topics.retain(|t| *t != topic);
                    remove_from(&mut self.topics, topic, conn);
                }
            }
            Control::Auth { conn, user, session, expires_ms } => {
                let Some(entry) = self.conns.get_mut(&conn) else { return };
                if let Some((old, ..)) = entry.user.replace((user, session, expires_ms)) {
                    self.unlink_user(old, conn);
                }
                self.users.entry(user).or_default().push(conn);
            }
            Control::AdminAuth { conn, admin, session, expires_ms } => {
                let Some(entry) = self.conns.get_mut(&conn) else { return };
                entry.admin = Some((admin, session, expires_ms));
                self.admins.insert(conn);
            }
            Control::Gone { conn } => self.gone(conn),
            Control::Shutdown => {}
        }
    }

    fn subscribe(&mut self, state: &AppState, conn: ConnId, topic: Topic) {
        let Some(entry) = self.conns.get_mut(&conn) else { return };
        if entry.topics.contains(&topic) {
            return;
        }
        entry.topics.push(topic);
        self.topics.entry(topic).or_default().insert(conn);
        // The current value at once, so a screen is never blank until the next tick.
        match topic {
            Topic::Tickers => {
                let items: Vec<_> =
                    state.market.products(state.now()).iter().map(market_item).collect();
                entry.outbox.push(protocol::tickers(&items));
            }
            Topic::Ticks(symbol) => {
                if let Some(tick) = state.market.latest_tick(symbol) {
                    entry.outbox.push_latest(Slot::Tick(symbol), protocol::tick(&tick));
                }
            }
            // Standings come over HTTP first, then as they change.
            Topic::Tournament(_) => {}
            Topic::Candles(symbol, period) => {
                // The forming candle; closed ones (history) come over HTTP.
                if let Some(candle) = state.market.open_candle(symbol, period) {
                    let update = CandleUpdate { symbol, period, candle, closed: false };
                    entry.outbox.push_latest(
                        Slot::Candle(symbol, period, false),
                        protocol::candle(&update),
                    );
                }
            }
        }
    }

    fn gone(&mut self, conn: ConnId) {
        let Some(entry) = self.conns.remove(&conn) else { return };
        self.admins.remove(&conn);
        for topic in entry.topics {
            remove_from(&mut self.topics, topic, conn);
        }
        if let Some((user, ..)) = entry.user {
            self.unlink_user(user, conn);
        }
    }

    fn unlink_user(&mut self, user: UserId, conn: ConnId) {
        if let Some(list) = self.users.get_mut(&user) {
            list.retain(|c| *c != conn);
            if list.is_empty() {
                self.users.remove(&user);
            }
        }
    }

    /// The subscribers of `topic`, if any.
    fn subscribers(&self, topic: Topic) -> Option<&FxHashSet<ConnId>> {
        self.topics.get(&topic).filter(|set| !set.is_empty())
    }

    fn tick(&self, state: &AppState, tick: &market_feed::market::TickUpdate) {
        if let Some(conns) = self.subscribers(Topic::Ticks(tick.symbol)) {
            let frame = protocol::tick(tick);
            self.each(conns, |outbox| outbox.push_latest(Slot::Tick(tick.symbol), frame.clone()));
        }
        if let Some(conns) = self.subscribers(Topic::Tickers) {
            let Some(view) = state.market.product(tick.symbol, state.now()) else { return };
            let frame = protocol::ticker(&market_item(&view));
            self.each(conns, |outbox| outbox.push_latest(Slot::Ticker(tick.symbol), frame.clone()));
        }
    }

    fn candle(&self, update: &CandleUpdate) {
        let Some(conns) = self.subscribers(Topic::Candles(update.symbol, update.period)) else {
            return;
        };
        let frame = protocol::candle(update);
        let slot = Slot::Candle(update.symbol, update.period, update.closed);
        self.each(conns, |outbox| outbox.push_latest(slot, frame.clone()));
    }

    fn each(&self, conns: &FxHashSet<ConnId>, mut push: impl FnMut(&Outbox)) {
        for conn in conns {
            if let Some(entry) = self.conns.get(conn) {
                push(&entry.outbox);
            }
        }
    }

    /// Sends `frame` to every connection of `user`.
    /// A tournament's change: a player's balance to them, standings to the tournament's
    /// subscribers.
    fn tournament_event(&self, event: &Event) {
        match event {
            Event::TournamentBalance { tournament, user, wallet, rebuys } => {
                let change = engine::WalletChange {
                    user: *user,
                    account: engine::types::AccountKind::Tournament,
                    bill: None,
                    amount: engine::money::Money::ZERO,
                    wallet: wallet.clone(),
                    reference: (*tournament).into(),
                };
                self.to_user(*user, || protocol::balance(&change));
                self.to_topic(Topic::Tournament(*tournament), || {
                    protocol::tournament_standing(*tournament, *user, wallet, *rebuys)
                });
            }
            Event::TournamentChanged { tournament } => {
                self.to_topic(Topic::Tournament(*tournament), || {
                    protocol::tournament_changed("tournament.changed", *tournament)
                });
            }
            Event::TournamentFinished { tournament, .. } => {
                self.to_topic(Topic::Tournament(*tournament), || {
                    protocol::tournament_changed("tournament.finished", *tournament)
                });
            }
            _ => {}
        }
    }

    /// Sends a frame built once to every subscriber of `topic`.
    fn to_topic(&self, topic: Topic, frame: impl FnOnce() -> bytes::Bytes) {
        let Some(conns) = self.subscribers(topic) else { return };
        let frame = frame();
        for conn in conns {
            if let Some(entry) = self.conns.get(conn) {
                entry.outbox.push(frame.clone());
            }
        }
    }

    fn to_user(&self, user: UserId, frame: impl FnOnce() -> bytes::Bytes) {
        let Some(conns) = self.users.get(&user) else { return };
        let frame = frame();
        for conn in conns {
            if let Some(entry) = self.conns.get(conn) {
                entry.outbox.push(frame.clone());
            }
        }
    }

    fn events(&mut self, batch: &EventBatch<Events>) {
        for event in &batch.events {
            match event {
                Event::ContractOpened { contract, symbol, leader, .. } => {
                    self.opened(batch.events.opened(*contract), *symbol, *leader);
                }
                Event::ContractEntered { contract, user, entry, expiry_ms } => {
                    if let Some(h) = self.held_mut(*user, *contract) {
                        h.expiry_ms = Some(*expiry_ms);
                    }
                    self.to_user(*user, || {
                        protocol::order_entered((*contract).into(), entry, *expiry_ms)
                    });
                    self.to_admins(|| {
                        protocol::admin_trade_entered(
                            (*contract).into(),
                            (*user).into(),
                            *entry,
                            *expiry_ms,
                        )
                    });
                }
                Event::ContractSettled(settlement) => {
                    self.settled(&batch.events.settlement(settlement));
                }
                Event::AdminSessionsEnded { admin, sessions } => {
                    self.end_admin_sessions(*admin, sessions);
                }
                Event::Wallet(change) => self.to_user(change.user, || protocol::balance(change)),
                Event::PriceAlertFired { alert, tick } => {
                    self.to_user(alert.user, || protocol::price_alert(alert, *tick));
                }
                Event::TwoFactorLocked { who: Principal::User(user), until_ms, failures } => {
                    self.to_user(*user, || protocol::security(batch.time_ms, *until_ms, *failures));
                }
                Event::OrderResolved { order, user, withdrawal, status, remark } => {
                    self.to_user(*user, || {
                        protocol::order_resolved((*order).into(), *withdrawal, *status, remark)
                    });
                }
                Event::Notice { id, title, body, lang } if !self.users.is_empty() => {
                    self.to_every_user(&protocol::notice(*id, title, body, lang, batch.time_ms));
                }
                Event::NoticeWithdrawn { notice } if !self.users.is_empty() => {
                    self.to_every_user(&protocol::notice_withdrawn(*notice));
                }
                Event::SessionEnded { user, session } => self.end_session(*user, *session),
                Event::TournamentBalance { .. }
                | Event::TournamentChanged { .. }
                | Event::TournamentFinished { .. } => self.tournament_event(event),
                Event::CopyChanged { .. } | Event::CopyRefused { .. } => {
                    for (to, note) in CopyNoteRow::of(event, batch.time_ms) {
                        self.to_user(to, || protocol::copy_note(&note));
                    }
                }
                // Nobody to tell yet (no user online), or nothing a connection shows: ticks
                // reach clients from the market feed, the rest is read over HTTP when asked.
                Event::Notice { .. }
                | Event::NoticeWithdrawn { .. }
                | Event::Tick { .. }
                | Event::UserRegistered { .. }
                | Event::SessionStarted { .. }
                | Event::PasswordChanged { .. }
                | Event::UserUpdated { .. }
                | Event::DepositRequested(_)
                | Event::WithdrawalRequested(_)
                | Event::TwoFactorLocked { who: Principal::Admin(_), .. }
                | Event::CatalogueChanged
                | Event::ContractSold { .. }
                | Event::CopyableChanged { .. }
                | Event::Audit(_) => {}
            }
        }
    }

    /// A contract accepted: held for its live offers, told to its owner and the back-office.
    fn opened(&mut self, contract: &Contract, symbol: Symbol, leader: Option<UserId>) {
        let held = self.held.entry(contract.user).or_default();
        if let Err(at) = held.binary_search_by_key(&contract.id, |h| h.contract) {
            held.insert(at, Held::waiting(contract.id, symbol, None));
        }
        self.to_user(contract.user, || protocol::order_accepted(contract, symbol, leader));
        self.to_admins(|| protocol::admin_trade_opened(contract, symbol, leader));
    }

    /// A contract settled: no longer held, told to its owner and the back-office.
    fn settled(&mut self, settlement: &engine::Settled<'_>) {
        let user = settlement.contract.user;
        self.unhold(user, settlement.contract.id);
        self.to_user(user, || protocol::balance(&settlement.wallet_change()));
        self.to_user(user, || protocol::order_settled(settlement));
        self.to_admins(|| protocol::admin_trade_settled(settlement));
    }

    /// Reads every open contract from the engine (at start, and after a gap in its events);
    /// the events then keep the list. Events the engine had applied before the read arrive
    /// after it too, and change nothing twice: an opening already held is skipped, and
    /// entries and settlements are idempotent.
    async fn load_held(&mut self, state: &AppState) {
        let read = state.handle.query_async(|e: &Engine| {
            e.open_contracts()
                .map(|c| {
                    let symbol = e.products()[usize::from(c.product)].symbol;
                    let expiry_ms = c.entry.map(|_| c.expiry_ms);
                    (c.user, Held::waiting(c.id, symbol, expiry_ms))
                })
                .collect::<Vec<_>>()
        });
        match read.await {
            Ok(open) => {
                self.held.clear();
                for (user, held) in open {
                    self.held.entry(user).or_default().push(held);
                }
                // In id order, newest last, as the events keep them.
                self.held.values_mut().for_each(|held| held.sort_by_key(|h| h.contract));
            }
            Err(error) => tracing::warn!(%error, "live offers: open contracts not read"),
        }
    }

    /// For each product this batch ticked, asks the engine for the offers of the entered
    /// contracts of every user online (the newest [`OFFERS_PER_USER_MAX`] of each, not
    /// priced out); the answer comes back to [`Hub::push_offers`].
    fn ask_offers(&mut self, state: &AppState, batch: &EventBatch<Events>) {
        let Some(answers) = self.offers.clone() else { return };
        if self.users.is_empty() {
            return;
        }
        let mut ticked: Vec<Symbol> = Vec::new();
        for event in &batch.events {
            if let Event::Tick { symbol, .. } = event {
                if !ticked.contains(symbol) {
                    ticked.push(*symbol);
                }
            }
        }
        for symbol in ticked {
            let wanted = self.to_price(symbol);
            if wanted.is_empty() {
                continue;
            }
            let in_flight = Arc::clone(&self.offer_queries);
            if in_flight.fetch_add(1, Ordering::AcqRel) >= OFFER_QUERIES_MAX {
                in_flight.fetch_sub(1, Ordering::AcqRel);
                continue;
            }
            let asked: Vec<(UserId, ContractId)> = wanted.iter().map(|&(u, c, _)| (u, c)).collect();
            self.mark_asking(&asked, true);
            let (handle, answers) = (state.handle.clone(), answers.clone());
            tokio::spawn(async move {
                let query = handle.query_async(move |e: &Engine| e.offers(symbol, &wanted));
                let answered = query.await.unwrap_or_default();
                in_flight.fetch_sub(1, Ordering::AcqRel);
                let _ = answers.send(Offers { asked, answered }).await;
            });
        }
    }

    /// The contracts on `symbol` to price at its tick: entered, not priced out, of users
    /// online, the newest [`OFFERS_PER_USER_MAX`] of each.
    fn to_price(&self, symbol: Symbol) -> Vec<(UserId, ContractId, u64)> {
        (self.users.keys())
            .filter_map(|user| self.held.get(user).map(|held| (user, held)))
            .flat_map(|(user, held)| {
                held.iter()
                    .rev()
                    .filter(|h| h.symbol == symbol && !h.asking)
                    .filter_map(move |h| h.expiry_ms.map(|e| (*user, h.contract, e)))
                    .take(OFFERS_PER_USER_MAX)
            })
            .collect()
    }

    /// Marks contracts as in a query (or no longer).
    fn mark_asking(&mut self, contracts: &[(UserId, ContractId)], asking: bool) {
        for &(user, contract) in contracts {
            if let Some(h) = self.held_mut(user, contract) {
                h.asking = asking;
            }
        }
    }

    /// Stops pricing a contract (settled, or priced out).
    fn unhold(&mut self, user: UserId, contract: ContractId) {
        let Some(held) = self.held.get_mut(&user) else { return };
        if let Ok(at) = held.binary_search_by_key(&contract, |h| h.contract) {
            held.remove(at);
        }
        if held.is_empty() {
            self.held.remove(&user);
        }
    }

    /// A user's open contract; each user's are kept in id order, so it is a bisection.
    fn held_mut(&mut self, user: UserId, contract: ContractId) -> Option<&mut Held> {
        let held = self.held.get_mut(&user)?;
        let at = held.binary_search_by_key(&contract, |h| h.contract).ok()?;
        Some(&mut held[at])
    }

    /// Sends each offer to its owner's connections; a slow client keeps only the newest.
    fn push_offers(&mut self, offers: Offers) {
        self.mark_asking(&offers.asked, false);
        for (user, contract, quote) in offers.answered {
            if matches!(quote, Err(NoOffer::NearExpiry | NoOffer::MarketClosed)) {
                self.unhold(user, contract);
            }
            let Some(conns) = self.users.get(&user) else { continue };
            let frame = protocol::offer(contract, &quote);
            for conn in conns {
                if let Some(entry) = self.conns.get(conn) {
                    entry.outbox.push_latest(Slot::Offer(contract.into()), frame.clone());
                }
            }
        }
    }

    /// A frame (made only if someone watches) to every admin watching trades.
    fn to_admins(&self, frame: impl FnOnce() -> bytes::Bytes) {
        if self.admins.is_empty() {
            return;
        }
        let frame = frame();
        self.each(&self.admins, |outbox| {
            outbox.push(frame.clone());
        });
    }

    /// Closes the admin connections of sessions that ended.
    fn end_admin_sessions(&self, admin: AdminId, sessions: &[SessionId]) {
        let ended = Close { code: CLOSE_SESSION_ENDED, reason: "session ended" };
        for conn in &self.admins {
            let Some(entry) = self.conns.get(conn) else { continue };
            if entry.admin.is_some_and(|(a, s, _)| a == admin && sessions.contains(&s)) {
                entry.outbox.close(ended);
            }
        }
    }

    /// One frame to every authenticated connection.
    fn to_every_user(&self, frame: &bytes::Bytes) {
        for entry in self.conns.values().filter(|e| e.user.is_some()) {
            entry.outbox.push(frame.clone());
        }
    }

    fn end_session(&self, user: UserId, session: SessionId) {
        let ended = Close { code: CLOSE_SESSION_ENDED, reason: "session ended" };
        for conn in self.users.get(&user).into_iter().flatten() {
            if let Some(entry) = self.conns.get(conn) {
                if entry.user.is_some_and(|(_, s, _)| s == session) {
                    entry.outbox.close(ended);
                }
            }
        }
    }

    /// Closes every authenticated connection (the private stream had a gap).
    fn close_private(&self, close: Close) {
        for entry in self.conns.values().filter(|e| e.user.is_some()) {
            entry.outbox.close(close);
        }
    }

    /// Pings everyone; closes who has been silent too long or whose session expired.
    fn heartbeat(&self, state: &AppState) {
        let now = state.now();
        let idle_ms = u64::try_from(state.ws.config.idle_timeout.as_millis()).unwrap_or(u64::MAX);
        let silent = Close { code: CLOSE_HEARTBEAT_TIMEOUT, reason: "heartbeat timeout" };
        let expired = Close { code: CLOSE_SESSION_ENDED, reason: "session expired" };
        for entry in self.conns.values() {
            let seen = entry.outbox.last_seen_ms.load(Ordering::Relaxed);
            if now.saturating_sub(seen) > idle_ms {
                entry.outbox.close(silent);
            } else if entry.user.is_some_and(|(_, _, expires)| expires <= now)
                || entry.admin.is_some_and(|(_, _, expires)| expires <= now)
            {
                entry.outbox.close(expired);
            } else {
                entry.outbox.ping();
            }
        }
    }
}

fn remove_from(topics: &mut FxHashMap<Topic, FxHashSet<ConnId>>, topic: Topic, conn: ConnId) {
    if let Some(set) = topics.get_mut(&topic) {
        set.remove(&conn);
        if set.is_empty() {
            topics.remove(&topic);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(contract: u64, symbol: Symbol, entered: bool) -> Held {
        Held::waiting(ContractId(contract), symbol, entered.then_some(60_000 + contract))
    }

    #[test]
    fn a_tick_prices_the_newest_entered_contracts_of_users_online_until_they_are_priced_out() {
        let btc = Symbol::new("BTCUSDT").unwrap();
        let eth = Symbol::new("ETHUSDT").unwrap();
        let (online, away) = (UserId(1), UserId(2));
        let mut hub = Hub::default();
        hub.users.insert(online, vec![7]);
        let mut mine: Vec<Held> = (1..=60).map(|id| held(id, btc, true)).collect();
        mine.extend([held(61, btc, false), held(62, eth, true)]);
        hub.held.insert(online, mine);
        hub.held.insert(away, vec![held(100, btc, true)]);

        let ids = |hub: &Hub| -> Vec<u64> {
            hub.to_price(btc)
                .iter()
                .map(|(user, id, _)| {
                    assert_eq!(*user, online, "only users online are priced");
                    id.0
                })
                .collect()
        };
        // The newest 50 entered on the ticked product: not the unentered one, nor ETH's.
        assert_eq!(ids(&hub), (11..=60).rev().collect::<Vec<_>>());

        // While a query is out, the next ticks leave its contracts out.
        let asked: Vec<_> = hub.to_price(btc).iter().map(|&(user, id, _)| (user, id)).collect();
        hub.mark_asking(&asked, true);
        assert_eq!(ids(&hub), (1..=10).rev().collect::<Vec<_>>());
        hub.mark_asking(&asked[10..], false); // their query failed: asked again

        // One told it is in its last seconds, one whose market closed: never priced again;
        // one without value now may have one at the next tick.
        let no = |id, why| (online, ContractId(id), Err(why));
        let answered = vec![
            no(60, NoOffer::NearExpiry),
            no(59, NoOffer::MarketClosed),
            no(58, NoOffer::NoValue),
        ];
        hub.push_offers(Offers { asked: asked[..10].to_vec(), answered });
        let priced = ids(&hub);
        assert_eq!(priced.len(), OFFERS_PER_USER_MAX);
        assert!(!priced.contains(&60) && !priced.contains(&59));
        assert!(priced.contains(&58) && priced.contains(&10), "the next newest takes the place");
        let kept = |id| hub.held[&online].iter().any(|h| h.contract == ContractId(id));
        assert!(!kept(60) && !kept(59) && kept(58), "priced out: no longer walked at each tick");
    }
}
