//! The projector: one thread writes rows from engine events, flushes, and tells the pipeline
//! how far the durable projection reaches.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use engine::types::{
    AccountKind, Contract, DepositOrder, OrderId, OrderStatus, Principal, SessionId, Symbol,
    UserId, WithdrawOrder,
};
use engine::{AuditRecord, Engine, Event, Events, Settled, WalletChange};
use market_feed::archive::TickArchive;
use rust_decimal::Decimal;
use serde::{de::DeserializeOwned, Serialize};
use wal::{EventBatch, Handle};

use super::rows::{
    AlertRow, AuditRow, BillRow, ContractRow, CopyNoteRow, DayRow, HourRow, LoginRow, NoticeRow,
    OrderKind, OrderRow, SecurityRow, Totals,
};
use super::search::{gram_key, user_key, UserSearchRow};
use super::*;

impl ReadModel {
    /// Projects one batch atomically: rows and the index it reaches.
    pub fn apply(&self, batch: &EventBatch<Events>) -> Result<(), ReadModelError> {
        self.apply_many(&[batch])
    }

    /// Projects several batches, in order, as one step that readers see whole: under load
    /// the per-step costs (the meta rows, publishing the rows) are paid once for many.
    pub fn apply_many<B: std::borrow::Borrow<EventBatch<Events>>>(
        &self,
        batches: &[B],
    ) -> Result<(), ReadModelError> {
        let mut writing = lock(&self.writing);
        let applied = self.applied_index();
        let mut fresh = batches
            .iter()
            .map(std::borrow::Borrow::borrow)
            .filter(|b| b.last_index > applied)
            .peekable();
        let Some(first) = fresh.peek() else {
            return Ok(()); // already projected (never happens with a well-behaved pipeline)
        };
        let mut last_index = applied;
        // Taken for the step: a step that fails leaves it empty, and rows are read instead.
        let waiting = std::mem::take(&mut *writing);
        let mut writer = Writer::new(self.rows()?, first.time_ms, waiting)?;
        for batch in fresh {
            writer.time_ms = batch.time_ms;
            for event in &batch.events {
                writer.event(&batch.events, event)?;
            }
            last_index = batch.last_index;
        }
        let waiting = std::mem::take(&mut writer.waiting);
        let run = writer.finish(last_index)?;
        *writing = waiting;
        // Not in redb yet: `flush` writes the pending rows there, durably.
        let pending = self.pending_rows().with(run);
        let full = pending.rows() >= PENDING_ROWS_MAX;
        lock(&self.unflushed).pending = Arc::new(pending);
        self.applied.store(last_index, Ordering::Release);
        self.progress.send_replace(last_index);
        drop(writing); // a flush takes it to freeze the rows
        if full {
            self.flush()?;
        }
        Ok(())
    }
}

/// Rows of accepted contracts waiting for their entry tick, by contract, so that the entry
/// (a tick or so later) rewrites the row without reading it back and decoding it. Bounded: a
/// contract past the bound, or accepted before a restart, has its row read instead.
#[derive(Debug, Default)]
pub(super) struct Waiting(rustc_hash::FxHashMap<u64, ContractRow>);

/// Most rows [`Waiting`] keeps: at 20 k orders a second, several seconds' worth.
const WAITING_ROWS_MAX: usize = 65_536;

/// Writes one projection step over the rows as they were before it; reads see its own
/// earlier writes.
struct Writer {
    view: View,
    /// The step's rows, newest version of each key.
    step: std::collections::BTreeMap<Vec<u8>, Bytes>,
    time_ms: u64,
    seq: u64,
    totals: Totals,
    /// The day being counted, written when the day changes and at the end.
    today: Option<DayRow>,
    /// Traders' real results by (user, hour), added up over the step and written at its end:
    /// one row per trader and hour, however many of their contracts settled in it.
    hours: rustc_hash::FxHashMap<(u32, u64), HourRow>,
    /// The owners of the step's contracts from the first id of the run (4 bytes each),
    /// written as one index row when the run ends.
    owners: Option<(u64, Vec<u8>)>,
    waiting: Waiting,
    /// Where rows are encoded before they are kept.
    scratch: Vec<u8>,
}

impl Writer {
    fn new(view: View, time_ms: u64, waiting: Waiting) -> Result<Self, ReadModelError> {
        let seq = view.get(META_SEQ)?.map_or(0, |v| u64_of(v.value()));
        let totals = get_row(&view, META_TOTALS)?.unwrap_or_default();
        let (step, today, hours, owners, scratch) = Default::default();
        Ok(Writer { view, step, time_ms, seq, totals, today, hours, owners, waiting, scratch })
    }

    /// The figures of the day of the event being projected.
    fn day(&mut self) -> Result<&mut DayRow, ReadModelError> {
        let start = self.time_ms / DAY_MS * DAY_MS;
        if self.today.as_ref().is_some_and(|d| d.day != start) {
            self.write_day()?;
        }
        if self.today.is_none() {
            let stored = self.get::<DayRow>(&day_key(start / DAY_MS))?;
            self.today = Some(stored.unwrap_or(DayRow { day: start, ..DayRow::default() }));
        }
        Ok(self.today.get_or_insert_with(DayRow::default))
    }

    fn write_day(&mut self) -> Result<(), ReadModelError> {
        if let Some(day) = self.today.take() {
            self.put(&day_key(day.day / DAY_MS), &day)?;
        }
        Ok(())
    }

    fn put<T: Serialize>(&mut self, key: &[u8], row: &T) -> Result<(), ReadModelError> {
        // Encoded into one buffer and kept in an allocation of the row's size: a row encoded
        // into a fresh vector grew it past its size (a contract row of 335 bytes kept 512),
        // and pending rows hold their allocation until the flush.
        self.scratch.clear();
        encode_row_into(row, &mut self.scratch)?;
        self.step.insert(key.to_vec(), Bytes::copy_from_slice(&self.scratch));
        Ok(())
    }

    fn put_raw(&mut self, key: &[u8], value: &[u8]) -> Result<(), ReadModelError> {
        self.step.insert(key.to_vec(), Bytes::copy_from_slice(value));
        Ok(())
    }

    fn get<T: DeserializeOwned>(&self, key: &[u8]) -> Result<Option<T>, ReadModelError> {
        match self.step.get(key) {
            Some(bytes) => Ok(Some(decode_row(bytes)?)),
            None => get_row(&self.view, key),
        }
    }

    fn update<T: Serialize + DeserializeOwned>(
        &mut self,
        key: &[u8],
        change: impl FnOnce(&mut T),
    ) -> Result<(), ReadModelError> {
        if let Some(mut row) = self.get::<T>(key)? {
            change(&mut row);
            self.put(key, &row)?;
        }
        Ok(())
    }

    /// Projects one event of `events`.
    fn event(&mut self, events: &Events, event: &Event) -> Result<(), ReadModelError> {
        let now = self.time_ms;
        match event {
            Event::Wallet(change) => self.bill(change)?,
            Event::ContractOpened { contract, symbol, leader, tournament } => {
                self.opened(events.opened(*contract), *symbol, *leader, *tournament)?;
            }
            Event::ContractEntered { contract, user, entry, expiry_ms } => {
                let at = key(CONTRACT, (*user).into(), (*contract).into());
                match self.waiting.0.remove(&(*contract).into()) {
                    Some(mut row) => {
                        row.entered(*entry, *expiry_ms);
                        self.put(&at, &row)?;
                    }
                    None => self.update(&at, |row: &mut ContractRow| {
                        row.entered(*entry, *expiry_ms);
                    })?,
                }
            }
            Event::ContractSold { contract, user, quote } => {
                self.waiting.0.remove(&(*contract).into());
                self.update(
                    &key(CONTRACT, (*user).into(), (*contract).into()),
                    |row: &mut ContractRow| row.sale = Some((&**quote).into()),
                )?;
            }
            Event::ContractSettled(settlement) => {
                let settlement = events.settlement(settlement);
                self.bill(&settlement.wallet_change())?;
                self.settled(&settlement)?;
            }
            Event::DepositRequested(order) => self.deposit_requested(order)?,
            Event::WithdrawalRequested(order) => self.withdrawal_requested(order)?,
            Event::OrderResolved { order, user, status, remark, withdrawal } => {
                self.order_resolved(*order, *user, *status, remark, *withdrawal)?;
            }
            Event::SessionStarted { user, session, device, ip } => {
                self.session_started(*user, *session, device, ip)?;
            }
            Event::SessionEnded { user, session } => {
                self.update(&key(LOGIN, (*user).into(), *session), |row: &mut LoginRow| {
                    row.ended_at = Some(now);
                })?;
            }
            Event::UserRegistered { user, username, email, .. } => {
                self.user_registered(*user, username, email.as_deref())?;
            }
            Event::PriceAlertFired { alert, tick } => {
                self.put(&key(ALERT, alert.user.into(), alert.id), &AlertRow::fired(alert, *tick))?;
            }
            Event::TwoFactorLocked { who: Principal::User(user), until_ms, failures } => {
                let row = SecurityRow::two_factor_locked(now, *until_ms, *failures);
                self.put(&key(SECURITY, (*user).into(), *until_ms), &row)?;
            }
            // An admin's pause is in the audit log (the engine's audit record).
            Event::TwoFactorLocked { who: Principal::Admin(_), .. } => {}
            Event::Notice { id, title, body, lang } => self.notice(*id, title, body, lang)?,
            Event::NoticeWithdrawn { notice } => {
                self.update(&global_key(NOTICE, *notice), |row: &mut NoticeRow| {
                    row.withdrawn_at.get_or_insert(now);
                })?;
            }
            Event::Audit(record) => self.audit(record)?,
            Event::CopyChanged { .. } | Event::CopyRefused { .. } => {
                for (to, note) in CopyNoteRow::of(event, now) {
                    self.copy_note(to, &note)?;
                }
            }
            // Kept by the engine (a password, a profile, the catalogue, who shares trades, the
            // tournaments and their tables; their contracts are rows like any other), by
            // the candle archive (ticks), or in the audit log (an admin's sessions): no history
            // row of their own.
            Event::CopyableChanged { .. }
            | Event::TournamentChanged { .. }
            | Event::TournamentFinished { .. }
            | Event::TournamentBalance { .. }
            | Event::PasswordChanged { .. }
            | Event::UserUpdated { .. }
            | Event::Tick { .. }
            | Event::AdminSessionsEnded { .. }
            | Event::CatalogueChanged => {}
        }
        Ok(())
    }

    /// Something copy trading told `user`.
    fn copy_note(&mut self, user: UserId, note: &CopyNoteRow) -> Result<(), ReadModelError> {
        self.seq += 1;
        self.put(&key(COPY_NOTE, user.into(), self.seq), note)
    }

    /// A bill line for a wallet change that moved the total.
    fn bill(&mut self, change: &WalletChange) -> Result<(), ReadModelError> {
        let now = self.time_ms;
        // Tournament play money has no bills: its fees and prizes are real-money bills.
        let Some(bill) = change.bill.filter(|_| change.account != AccountKind::Tournament) else {
            return Ok(());
        };
        self.seq += 1;
        let row = BillRow {
            id: self.seq,
            account: change.account,
            bill_type: bill,
            amount: change.amount.to_decimal(),
            balance: change.wallet.available.to_decimal(),
            total: Some(change.wallet.total().to_decimal()),
            reference: change.reference,
            status: "completed".into(),
            time: now,
        };
        self.put(&key(BILL, change.user.into(), self.seq), &row)?;
        Ok(())
    }

    /// A new contract's record, and the day's real-money figures.
    fn opened(
        &mut self,
        c: &Contract,
        symbol: Symbol,
        leader: Option<UserId>,
        tournament: Option<engine::tournament::TournamentId>,
    ) -> Result<(), ReadModelError> {
        if c.account == AccountKind::Real {
            self.totals.contracts += 1;
            self.totals.volume += c.stake.to_decimal();
            let day = self.day()?;
            day.contracts += 1;
            day.turnover += c.stake.to_decimal();
            day.fees += c.fee.to_decimal();
            day.house_result += c.fee.to_decimal();
        }
        let row = ContractRow::opened(c, symbol, leader, tournament);
        self.put(&key(CONTRACT, c.user.into(), c.id.into()), &row)?;
        self.own(c.id.into(), c.user.0);
        if self.waiting.0.len() < WAITING_ROWS_MAX {
            self.waiting.0.insert(c.id.into(), row);
        }
        Ok(())
    }

    /// A deposit order's record, linked to its receipt.
    fn deposit_requested(&mut self, order: &DepositOrder) -> Result<(), ReadModelError> {
        let receipt = [&[UPLOAD][..], order.receipt.as_bytes()].concat();
        self.update(&receipt, |row: &mut UploadRow| row.deposit = Some(order.id.into()))?;
        let details = serde_json::json!({
            "accountName": order.account_name,
            "accountNumber": order.account_number,
            "bankName": order.bank_name,
        });
        let row = OrderRow {
            id: order.id.into(),
            user: order.user.into(),
            kind: OrderKind::Deposit,
            amount: order.amount.to_decimal(),
            fee: Decimal::ZERO,
            actual: order.amount.to_decimal(),
            method: crate::names::pay_method_name(order.method).into(),
            details,
            receipt: Some(order.receipt.clone()),
            status: OrderStatus::Pending,
            remark: String::new(),
            created_at: order.created_ms,
            completed_at: None,
        };
        self.order(row)?;
        Ok(())
    }

    /// A withdrawal order's record.
    fn withdrawal_requested(&mut self, order: &WithdrawOrder) -> Result<(), ReadModelError> {
        let (method, details) = crate::names::destination_json(&order.destination);
        let row = OrderRow {
            id: order.id.into(),
            user: order.user.into(),
            kind: OrderKind::Withdraw,
            amount: order.amount.to_decimal(),
            fee: order.fee.to_decimal(),
            actual: order.actual.to_decimal(),
            method: method.into(),
            details,
            receipt: None,
            status: OrderStatus::Pending,
            remark: String::new(),
            created_at: order.created_ms,
            completed_at: None,
        };
        self.order(row)?;
        Ok(())
    }

    /// An order's new status, and a completed one counted in the day's figures.
    fn order_resolved(
        &mut self,
        order: OrderId,
        user: UserId,
        status: OrderStatus,
        remark: &str,
        withdrawal: bool,
    ) -> Result<(), ReadModelError> {
        let now = self.time_ms;
        if status == OrderStatus::Completed {
            let amount =
                self.get::<OrderRow>(&key(ORDER, user.into(), order.into()))?.map(|o| o.amount);
            let day = self.day()?;
            let amount = amount.unwrap_or_default();
            if withdrawal {
                day.withdrawals += 1;
                day.withdrawal_amount += amount;
            } else {
                day.deposits += 1;
                day.deposit_amount += amount;
            }
        }
        self.update(&key(ORDER, user.into(), order.into()), |row: &mut OrderRow| {
            row.status = status;
            remark.clone_into(&mut row.remark);
            if status != OrderStatus::Processing {
                row.completed_at = Some(now);
            }
        })?;
        Ok(())
    }

    /// A sign-in's record, and the day's count.
    fn session_started(
        &mut self,
        user: UserId,
        session: SessionId,
        device: &str,
        ip: &str,
    ) -> Result<(), ReadModelError> {
        let now = self.time_ms;
        self.totals.logins += 1;
        self.day()?.logins += 1;
        let row = LoginRow {
            session,
            device: device.to_owned(),
            ip: ip.to_owned(),
            started_at: now,
            ended_at: None,
        };
        self.put(&key(LOGIN, user.into(), session), &row)?;
        Ok(())
    }

    /// A new user's search row (and its trigrams), and the day's count.
    fn user_registered(
        &mut self,
        user: UserId,
        username: &str,
        email: Option<&str>,
    ) -> Result<(), ReadModelError> {
        let row = UserSearchRow::new(username, email);
        for gram in row.grams() {
            self.put_raw(&gram_key(gram, user.into()), &[])?;
        }
        self.put(&user_key(user.into()), &row)?;
        self.totals.registrations += 1;
        self.day()?.registrations += 1;
        Ok(())
    }

    /// A notice's record.
    fn notice(
        &mut self,
        id: u64,
        title: &str,
        body: &str,
        lang: &str,
    ) -> Result<(), ReadModelError> {
        let now = self.time_ms;
        let row = NoticeRow {
            id,
            title: title.to_owned(),
            body: body.to_owned(),
            time: now,
            lang: lang.to_owned(),
            withdrawn_at: None,
        };
        self.put(&global_key(NOTICE, id), &row)?;
        Ok(())
    }

    /// An admin action's audit row.
    fn audit(&mut self, record: &AuditRecord) -> Result<(), ReadModelError> {
        let row = AuditRow {
            index: record.index,
            admin: record.admin.into(),
            action: record.action.into(),
            detail: record.detail.clone(),
            refused: record.refused.map(String::from),
            time: record.time_ms,
        };
        self.seq += 1;
        self.put(&global_key(AUDIT, self.seq), &row)?;
        Ok(())
    }

    fn settled(&mut self, s: &Settled<'_>) -> Result<(), ReadModelError> {
        let c = &s.contract;
        self.waiting.0.remove(&c.id.into()); // voided without an entry
        if c.account == AccountKind::Real && !s.outcome.is_void() {
            self.totals.settled += 1;
            self.totals.users_net += (s.credited - c.stake).to_decimal();
            let day = self.day()?;
            day.settled += 1;
            day.house_result += (c.stake - s.credited).to_decimal();
            let profit = s.profit().cents();
            let hour = HourRow { settled: 1, wins: u32::from(profit > 0), profit_cents: profit };
            let slot = self.hours.entry((c.user.into(), s.settled_ms / HOUR_MS)).or_default();
            *slot = slot.plus(hour);
        }
        let at = key(CONTRACT, c.user.into(), c.id.into());
        match ContractRow::closed(s) {
            Some(row) => self.put(&at, &row),
            None => self.update(&at, |row: &mut ContractRow| row.settled(s)),
        }
    }

    /// Adds `user` as the owner of contract `id` to the step's run of owners. A step's
    /// contracts have consecutive ids (every id the engine hands out opens a contract, and
    /// the projector sees every event after its index); a run ends at its bound, or at an
    /// id that does not follow, which starts a run of its own.
    fn own(&mut self, id: u64, user: u32) {
        if let Some((first, owners)) = &mut self.owners {
            let next = *first + (owners.len() / 4) as u64;
            if id == next && id - *first < OWNER_RUN_MAX {
                owners.extend_from_slice(&user.to_be_bytes());
                return;
            }
        }
        self.write_owners();
        self.owners = Some((id, user.to_be_bytes().to_vec()));
    }

    fn write_owners(&mut self) {
        if let Some((first, owners)) = self.owners.take() {
            self.step.insert(global_key(CONTRACT_OWNER, first).to_vec(), owners.into());
        }
    }

    fn order(&mut self, row: OrderRow) -> Result<(), ReadModelError> {
        self.put_raw(&global_key(ORDER_OWNER, row.id), &row.user.to_be_bytes())?;
        self.put(&key(ORDER, row.user, row.id), &row)
    }

    /// Ends the step: its rows, in key order.
    fn finish(mut self, last_index: u64) -> Result<Vec<pending::Entry>, ReadModelError> {
        self.write_day()?;
        self.write_owners();
        for ((user, hour), added) in std::mem::take(&mut self.hours) {
            let at = key(TRADER_HOUR, user, hour);
            let stored = self.get::<HourRow>(&at)?.unwrap_or_default();
            self.put(&at, &stored.plus(added))?;
        }
        self.put_raw(META_SEQ, &self.seq.to_be_bytes())?;
        self.put_raw(META_APPLIED, &last_index.to_be_bytes())?;
        let totals = encode_row(&self.totals)?;
        self.put_raw(META_TOTALS, &totals)?;
        Ok(self.step.into_iter().map(|(key, value)| (Bytes::from(key), value)).collect())
    }
}

/// How often archived days past the retention are removed.
const ARCHIVE_PRUNE_PERIOD: Duration = Duration::from_secs(3_600);

/// Most event batches projected as one step.
const PROJECT_BATCHES_MAX: usize = 256;
/// Events past which a step takes no further batch. A step's rows are seen when it ends, so
/// its length is how long history stands still: under load the engine's batches are large,
/// and 256 of them were a second's orders, so readers saw history move in steps of a second
/// (BENCHMARKS.md, "The projector alone").
const PROJECT_EVENTS_MAX: usize = 16_384;

/// Runs the projector thread, which applies live batches, and beside it the flusher, which
/// flushes every [`FLUSH_PERIOD`] and tells the pipeline how far the durable projection
/// reaches. Returns when the pipeline stops.
pub fn spawn_projector(
    model: ReadModel,
    archive: Arc<TickArchive>,
    archive_days: u64,
    handle: Handle<Engine>,
    live: crossbeam_channel::Receiver<Arc<EventBatch<Events>>>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    // Dropped by the projector when it stops: the flusher then stops too.
    let (stop, stopped) = crossbeam_channel::bounded::<()>(0);
    let flusher =
        spawn_flusher(model.clone(), Arc::clone(&archive), archive_days, handle.clone(), stopped)?;
    std::thread::Builder::new().name("readmodel".into()).spawn(move || {
        while let Ok(batch) = live.recv() {
            let mut events = batch.events.len();
            let mut batches = vec![batch];
            while batches.len() < PROJECT_BATCHES_MAX && events < PROJECT_EVENTS_MAX {
                let Ok(batch) = live.try_recv() else { break };
                events += batch.events.len();
                batches.push(batch);
            }
            let archived = batches.iter().try_for_each(|b| archive.record(b));
            if let Err(error) = archived {
                tracing::error!(%error, "tick archive: cannot archive a batch; history stops until restart");
                model.stalled.store(true, Ordering::Release);
                return;
            }
            if let Err(error) = model.apply_many(&batches) {
                tracing::error!(%error, "read model: cannot project a batch; history stops until restart");
                model.stalled.store(true, Ordering::Release);
                return;
            }
        }
        // Stopped with the pipeline, or dropped for falling behind.
        if !handle.is_closed() {
            tracing::error!("read model fell behind and was dropped; history resumes after a restart");
            model.stalled.store(true, Ordering::Release);
        }
        drop(stop);
        let _ = flusher.join();
        let _ = model.flush();
        if let Err(error) = archive.flush() {
            tracing::error!(%error, "tick archive: final flush failed; the log keeps the ticks");
        }
    })
}

/// The flusher thread: every [`FLUSH_PERIOD`] (or at once when a flush took longer), flushes
/// the read model and the tick archive and reports the lower durable position (the log is
/// kept after it); prunes the archive's old days now and then. Returns when `stopped`
/// disconnects.
///
/// Why the period counts from a flush's start: under load a flush takes about a second of
/// the machine, and the rows projected meanwhile then filled the pending rows' bound, so the
/// projector flushed them itself and history stood still while it did.
fn spawn_flusher(
    model: ReadModel,
    archive: Arc<TickArchive>,
    archive_days: u64,
    handle: Handle<Engine>,
    stopped: crossbeam_channel::Receiver<()>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new().name("readmodel-flush".into()).spawn(move || {
        let mut last_prune: Option<Instant> = None;
        let mut next = Instant::now() + FLUSH_PERIOD;
        while let Err(crossbeam_channel::RecvTimeoutError::Timeout) = stopped.recv_deadline(next) {
            next = Instant::now() + FLUSH_PERIOD;
            let now = wal::pipeline::system_time_ms();
            match (model.flush(), archive.flush_if_due(now)) {
                (Ok(durable), Ok(archived)) => handle.set_followed(durable.min(archived)),
                (Err(error), _) => tracing::error!(%error, "read model flush failed"),
                (_, Err(error)) => tracing::error!(%error, "tick archive flush failed"),
            }
            if last_prune.is_none_or(|at| at.elapsed() >= ARCHIVE_PRUNE_PERIOD) {
                match archive.prune(now, archive_days) {
                    Ok(0) => {}
                    Ok(removed) => {
                        tracing::info!(removed, archive_days, "tick archive: old days removed")
                    }
                    Err(error) => tracing::error!(%error, "tick archive: pruning failed"),
                }
                last_prune = Some(Instant::now());
            }
        }
    })
}
