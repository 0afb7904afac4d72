//! The read model: history the engine does not keep (bills, contract records, deposit and
//! withdrawal orders, sign-ins, notices, the audit log), projected from engine events into
//! one redb file by one thread.
//!
//! It is a `wal::Follower`: each event batch is written with the index it reaches in one
//! transaction; after a flush (a durable commit) the pipeline is told that index, so snapshots
//! stay behind it and a restart hands over exactly the events after it (none lost, none twice).
//!
//! Why redb and not sled (which keeps the snapshots and candles): sled's memory grows with the
//! size of its database (sled#1410), and history grows without end; redb's memory is its page
//! cache, bounded by [`READ_MODEL_CACHE_BYTES`] (BENCHMARKS.md, "Soak").

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::types::{
    AccountKind, BillType, Contract, DepositOrder, Direction, OrderId, OrderStatus, Outcome,
    Principal, SessionId, Symbol, TickRef, UserId, WithdrawOrder,
};
use engine::{AuditRecord, Engine, Event, Settlement, WalletChange};
use market_feed::archive::TickArchive;
use redb::{Durability, ReadableDatabase, ReadableTable, TableDefinition};
use rust_decimal::Decimal;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use utoipa::ToSchema;
use wal::{EventBatch, Handle};

/// One table, rows told apart by a one-byte prefix.
const ROWS: TableDefinition<'_, &[u8], &[u8]> = TableDefinition::new("readmodel");
/// The database file inside the read model's directory.
const FILE: &str = "history.redb";
/// The name of sled's tree in a read model written before redb (moved over on open).
const SLED_TREE: &str = "readmodel";
/// redb's page cache of the read model (history, uploads index): recent rows are the hot
/// ones; the rest is read from disk. Bounded so that memory stays flat.
pub const READ_MODEL_CACHE_BYTES: usize = 128 << 20;
/// How long opening waits for a previous holder of the file in this process to let go.
const OPEN_WAIT: Duration = Duration::from_secs(5);
/// Rows copied per transaction when moving a sled read model over.
const MIGRATE_CHUNK_ROWS: usize = 10_000;
/// Rows of the same kind for one user sort by id under `prefix ++ user ++ id`.
const BILL: u8 = b'b';
const CONTRACT: u8 = b'c';
const CONTRACT_OWNER: u8 = b'C';
const ORDER: u8 = b'o';
const ORDER_OWNER: u8 = b'O';
const LOGIN: u8 = b'l';
const NOTICE: u8 = b'n';
const AUDIT: u8 = b'a';
const UPLOAD: u8 = b'u';
const ALERT: u8 = b'p';
const UPLOAD_USAGE: u8 = b'U';
/// A user's security history beyond sign-ins (two-factor pauses), by the pause's end.
const SECURITY: u8 = b'S';
/// A user's name and e-mail for the back-office's search, under `USER ++ uid`.
const USER: u8 = b'y';
/// The search index: `USER_GRAM ++ three bytes ++ uid` for every three consecutive bytes of
/// a user's lower-cased name and e-mail, so that a part of either finds the user.
const USER_GRAM: u8 = b'g';
/// Figures of one UTC day under `DAY ++ day number` (days since the epoch).
const DAY: u8 = b'D';
/// Milliseconds in a day.
const DAY_MS: u64 = 86_400_000;
const META_APPLIED: &[u8] = b"m:applied";
const META_SEQ: &[u8] = b"m:seq";
const META_TOTALS: &[u8] = b"m:totals";
/// How often the projection is flushed and its position reported to the pipeline.
const FLUSH_PERIOD: Duration = Duration::from_millis(50);
/// Live event batches the projector may fall behind before the pipeline drops it.
pub const FOLLOWER_CAPACITY_BATCHES: usize = 65_536;
/// Rows one list query may scan, whatever its filters.
pub const SCAN_ROWS_MAX: usize = 100_000;

/// Why the read model could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ReadModelError {
    /// redb failed (I/O error, corrupt file).
    #[error("read model storage: {0}")]
    Storage(#[from] redb::Error),
    /// A stored row did not decode.
    #[error("read model row: {0}")]
    Decode(#[from] serde_json::Error),
    /// The read model of an older version (sled) could not be moved over.
    #[error("read model migration from sled: {0}")]
    Migration(#[from] sled::Error),
    /// The directory could not be created or tidied.
    #[error("read model directory: {0}")]
    Io(#[from] std::io::Error),
}

/// redb reports each step's failure in its own type; all are storage errors here.
macro_rules! storage_errors {
    ($($error:ty),*) => {$(
        impl From<$error> for ReadModelError {
            fn from(error: $error) -> Self {
                ReadModelError::Storage(error.into())
            }
        }
    )*};
}
storage_errors!(
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError,
    redb::SetDurabilityError
);

/// A scan over rows in key order (reversible).
type Rows = redb::Range<'static, &'static [u8], &'static [u8]>;
/// The rows table as a reader sees it (one consistent version).
type RowsTable = redb::ReadOnlyTable<&'static [u8], &'static [u8]>;

/// A money movement with a bill type (decisions §3).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct BillRow {
    /// Order of the bill among all bills.
    pub id: u64,
    /// `real` or `demo`.
    pub account: String,
    /// deposit, withdraw, profit, loss, fee, refund, reward, transfer_in, transfer_out, adjustment.
    #[serde(rename = "type")]
    pub bill_type: String,
    /// Signed amount in USDT.
    #[schema(value_type = String)]
    pub amount: Decimal,
    /// Available balance after it.
    #[schema(value_type = String)]
    pub balance: Decimal,
    /// Contract, order or counterparty it belongs to.
    pub reference: u64,
    /// Bills are final when written.
    pub status: String,
    /// When (ms since the epoch).
    pub time: u64,
}

/// A tick that entered or ended a contract, with where it sits in the log (decisions §1).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
pub struct TickRow {
    /// Price.
    #[schema(value_type = String)]
    pub price: Decimal,
    /// Tick time (ms since the epoch).
    pub time: u64,
    /// Log index of the tick.
    pub sequence: u64,
}

impl ContractRow {
    /// A contract just accepted, waiting for its entry tick.
    pub fn opened(c: &engine::types::Contract, symbol: engine::types::Symbol) -> ContractRow {
        ContractRow {
            id: c.id,
            user: c.user,
            account: account_name(c.account).into(),
            symbol: symbol.to_string(),
            direction: direction_name(c.direction).into(),
            stake: c.stake.to_decimal(),
            fee: c.fee.to_decimal(),
            payout_rate: c.payout_rate.to_decimal(),
            duration: c.duration_ms / 1_000,
            accepted_at: c.accepted_ms,
            accepted_index: c.accepted_index,
            entry: None,
            expiry_at: None,
            exit: None,
            outcome: None,
            credited: None,
            profit: None,
            settled_at: None,
            status: "waiting_entry".into(),
        }
    }

    /// The entry tick arrived: the contract runs until `expiry_ms`.
    pub fn entered(&mut self, entry: TickRef, expiry_ms: u64) {
        self.entry = Some(entry.into());
        self.expiry_at = Some(expiry_ms);
        self.status = "open".into();
    }

    /// The contract ended as `s` says.
    pub fn settled(&mut self, s: &Settlement) {
        let c = &s.contract;
        self.entry = c.entry.map(TickRow::from);
        self.expiry_at = c.entry.map(|_| c.expiry_ms);
        self.exit = s.exit.map(TickRow::from);
        self.outcome = Some(outcome_name(s.outcome).into());
        self.credited = Some(s.credited.to_decimal());
        self.profit = Some(s.profit.to_decimal());
        self.settled_at = Some(s.settled_ms);
        self.status = if s.outcome.is_void() { "void" } else { "settled" }.into();
    }
}

impl From<TickRef> for TickRow {
    fn from(tick: TickRef) -> Self {
        TickRow { price: tick.price, time: tick.time_ms, sequence: tick.index }
    }
}

/// A contract record.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ContractRow {
    /// Order number.
    pub id: u64,
    /// Owner's UID.
    pub user: u32,
    /// `real` or `demo`.
    pub account: String,
    /// Product code.
    pub symbol: String,
    /// `up` (buy up) or `down` (buy down).
    pub direction: String,
    /// Input amount.
    #[schema(value_type = String)]
    pub stake: Decimal,
    /// Fee paid.
    #[schema(value_type = String)]
    pub fee: Decimal,
    /// Payout rate locked at acceptance.
    #[schema(value_type = String)]
    pub payout_rate: Decimal,
    /// Duration in seconds.
    pub duration: u64,
    /// Accepted at.
    pub accepted_at: u64,
    /// Log index of the acceptance: the entry is the symbol's first tick after it.
    #[serde(default)]
    pub accepted_index: u64,
    /// Entry spot, once known.
    pub entry: Option<TickRow>,
    /// Expiry (entry time + duration), once entered.
    pub expiry_at: Option<u64>,
    /// Exit spot, once settled.
    pub exit: Option<TickRow>,
    /// win, loss, tie, void_no_entry, void_stale_feed, void_market_closed.
    pub outcome: Option<String>,
    /// Paid back to the wallet at settlement.
    #[schema(value_type = Option<String>)]
    pub credited: Option<Decimal>,
    /// Profit (+) or loss (-).
    #[schema(value_type = Option<String>)]
    pub profit: Option<Decimal>,
    /// Settled at.
    pub settled_at: Option<u64>,
    /// waiting_entry, open, settled, void.
    pub status: String,
}

/// A deposit (recharge) or withdrawal order.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct OrderRow {
    /// Order id.
    pub id: u64,
    /// Owner's UID.
    pub user: u32,
    /// `deposit` or `withdraw`.
    pub kind: String,
    /// Amount (for withdrawals, including the fee).
    #[schema(value_type = String)]
    pub amount: Decimal,
    /// Fee.
    #[schema(value_type = String)]
    pub fee: Decimal,
    /// What arrives (amount - fee).
    #[schema(value_type = String)]
    pub actual: Decimal,
    /// bank_transfer, usdt_trc20, usdt_erc20 (deposits); wallet or bank (withdrawals).
    pub method: String,
    /// Account name, number and bank, or chain and address.
    pub details: serde_json::Value,
    /// Receipt upload name (deposits).
    pub receipt: Option<String>,
    /// pending, processing (a withdrawal approved, being paid out), completed, rejected or
    /// failed (a withdrawal whose payout failed; the money returned).
    pub status: String,
    /// The admin's remark on rejection.
    pub remark: String,
    /// Created at.
    pub created_at: u64,
    /// Decided at.
    pub completed_at: Option<u64>,
}

/// One sign-in.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct LoginRow {
    /// Session id.
    pub session: u64,
    /// Device (user agent, shortened).
    pub device: String,
    /// Client address.
    pub ip: String,
    /// Signed in at.
    pub started_at: u64,
    /// Ended at (sign-out, revocation), if ended.
    pub ended_at: Option<u64>,
}

/// An event of a user's security history, beside their sign-ins.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SecurityRow {
    /// `twoFactorLocked`: too many wrong authenticator codes paused two-factor actions (sign-in,
    /// turning 2FA off, transfers, withdrawals).
    pub kind: String,
    /// When it happened (ms).
    pub time: u64,
    /// When the pause ends (ms); also the event's id.
    pub until: u64,
    /// Wrong codes in a row that led to it.
    pub failures: u32,
}

impl SecurityRow {
    /// A two-factor pause of the account.
    pub fn two_factor_locked(time: u64, until: u64, failures: u32) -> SecurityRow {
        SecurityRow { kind: "twoFactorLocked".into(), time, until, failures }
    }
}

/// A system notice.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct NoticeRow {
    /// Notice id.
    pub id: u64,
    /// Title.
    pub title: String,
    /// Text.
    pub body: String,
    /// Sent at.
    pub time: u64,
    /// The language it is written in (`en-US` ... `hi-IN`); empty: every language.
    #[serde(default)]
    pub lang: String,
    /// Withdrawn by an admin at this time (ms): users no longer see it.
    #[serde(default)]
    pub withdrawn_at: Option<u64>,
}

/// A price alert: waiting (from the engine) or fired (kept here).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AlertRow {
    /// Alert number.
    pub id: u64,
    /// Product code.
    pub symbol: String,
    /// The price watched for.
    #[schema(value_type = String)]
    pub price: Decimal,
    /// `above`: fires when the price rises to it; `below`: when it falls to it.
    pub direction: String,
    /// Set at (ms since the epoch).
    pub created_at: u64,
    /// When a tick reached it; none while waiting.
    pub fired_at: Option<u64>,
    /// The price of that tick.
    #[schema(value_type = Option<String>)]
    pub fired_price: Option<Decimal>,
    /// Log index of that tick (look it up in the tick archive).
    pub fired_sequence: Option<u64>,
}

impl AlertRow {
    /// A waiting alert as the engine holds it.
    pub fn waiting(alert: &engine::types::PriceAlert) -> AlertRow {
        AlertRow {
            id: alert.id,
            symbol: alert.symbol.to_string(),
            price: alert.price,
            direction: if alert.rising { "above" } else { "below" }.to_owned(),
            created_at: alert.created_ms,
            fired_at: None,
            fired_price: None,
            fired_sequence: None,
        }
    }

    /// The alert as `tick` fired it.
    pub fn fired(alert: &engine::types::PriceAlert, tick: TickRef) -> AlertRow {
        AlertRow {
            fired_at: Some(tick.time_ms),
            fired_price: Some(tick.price),
            fired_sequence: Some(tick.index),
            ..AlertRow::waiting(alert)
        }
    }
}

/// One back-office action, refused or not (decisions §1).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AuditRow {
    /// Log index of the action.
    pub index: u64,
    /// Admin id.
    pub admin: u32,
    /// Action name.
    pub action: String,
    /// What it did.
    pub detail: String,
    /// Error code if refused.
    pub refused: Option<String>,
    /// When.
    pub time: u64,
}

/// An uploaded file and who may see it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct UploadRow {
    /// Uploader's UID.
    pub owner: u32,
    /// `avatar` (public) or `receipt` (owner and admins).
    pub kind: String,
    /// MIME type found in the content.
    pub content_type: String,
    /// The deposit order this receipt backs, once one was asked for with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deposit: Option<u64>,
}

/// Running totals for the dashboard.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Real contracts accepted.
    pub contracts: u64,
    /// Real stake accepted.
    #[schema(value_type = String)]
    pub volume: Decimal,
    /// Real contracts settled.
    pub settled: u64,
    /// Net result of users on settled real contracts (credited - stake).
    #[schema(value_type = String)]
    pub users_net: Decimal,
    /// Sign-ins.
    pub logins: u64,
    /// Registrations.
    pub registrations: u64,
}

/// One UTC day's figures for the back-office's dashboard (real money only).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct DayRow {
    /// The day's start (ms since the epoch, UTC).
    pub day: u64,
    /// Registrations.
    pub registrations: u64,
    /// Sign-ins.
    pub logins: u64,
    /// Deposits approved: how many and how much.
    pub deposits: u64,
    #[schema(value_type = String)]
    pub deposit_amount: Decimal,
    /// Withdrawals paid out: how many and how much.
    pub withdrawals: u64,
    #[schema(value_type = String)]
    pub withdrawal_amount: Decimal,
    /// Real contracts accepted.
    pub contracts: u64,
    /// Real stake accepted.
    #[schema(value_type = String)]
    pub turnover: Decimal,
    /// Fees taken on real contracts.
    #[schema(value_type = String)]
    pub fees: Decimal,
    /// Real contracts settled (not void).
    pub settled: u64,
    /// The house's result on them: stakes kept minus what was credited, plus fees taken.
    #[schema(value_type = String)]
    pub house_result: Decimal,
}

/// Read access to the projection; cheap to clone.
#[derive(Clone, Debug)]
pub struct ReadModel {
    /// The database file.
    db: Arc<redb::Database>,
    /// Last index projected (in memory, maybe not yet flushed).
    applied: Arc<AtomicU64>,
    /// Set when the pipeline dropped the projector: history stops until a restart.
    pub stalled: Arc<AtomicBool>,
    /// Publishes `applied` so readers can await a position (read-your-writes).
    progress: Arc<tokio::sync::watch::Sender<u64>>,
}

fn key(prefix: u8, owner: u32, id: u64) -> [u8; 13] {
    let mut key = [0u8; 13];
    key[0] = prefix;
    key[1..5].copy_from_slice(&owner.to_be_bytes());
    key[5..].copy_from_slice(&id.to_be_bytes());
    key
}

fn global_key(prefix: u8, id: u64) -> [u8; 9] {
    let mut key = [0u8; 9];
    key[0] = prefix;
    key[1..].copy_from_slice(&id.to_be_bytes());
    key
}

fn u64_of(bytes: &[u8]) -> u64 {
    bytes.try_into().map(u64::from_be_bytes).unwrap_or(0)
}

pub(crate) fn account_name(kind: AccountKind) -> &'static str {
    match kind {
        AccountKind::Real => "real",
        AccountKind::Demo => "demo",
    }
}

/// The API name of a bill type.
pub fn bill_name(bill: BillType) -> &'static str {
    match bill {
        BillType::Deposit => "deposit",
        BillType::Withdraw => "withdraw",
        BillType::Profit => "profit",
        BillType::Loss => "loss",
        BillType::Fee => "fee",
        BillType::Refund => "refund",
        BillType::Reward => "reward",
        BillType::TransferIn => "transfer_in",
        BillType::TransferOut => "transfer_out",
        BillType::Adjustment => "adjustment",
    }
}

/// Every bill type's API name.
pub const BILL_TYPES: [&str; 10] = [
    "deposit",
    "withdraw",
    "profit",
    "loss",
    "fee",
    "refund",
    "reward",
    "transfer_in",
    "transfer_out",
    "adjustment",
];

/// The API name of a deposit's or withdrawal's status.
pub fn order_status_name(status: OrderStatus) -> &'static str {
    match status {
        OrderStatus::Pending => "pending",
        OrderStatus::Processing => "processing",
        OrderStatus::Completed => "completed",
        OrderStatus::Rejected => "rejected",
        OrderStatus::Failed => "failed",
    }
}

pub(crate) fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win => "win",
        Outcome::Loss => "loss",
        Outcome::Tie => "tie",
        Outcome::VoidNoEntry => "void_no_entry",
        Outcome::VoidStaleFeed => "void_stale_feed",
        Outcome::VoidMarketClosed => "void_market_closed",
    }
}

pub(crate) fn direction_name(direction: Direction) -> &'static str {
    match direction {
        Direction::Up => "up",
        Direction::Down => "down",
    }
}

/// A page of rows and how many matched in all.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Page<T> {
    /// Rows of this page, newest first.
    pub items: Vec<T>,
    /// Rows matching the filters (up to the scan bound).
    pub total: u64,
}

impl ReadModel {
    /// Opens (or creates) the read model under `dir`.
    /// A read model of an older version (a sled database in `dir`) is moved over first.
    pub fn open(dir: &Path) -> Result<ReadModel, ReadModelError> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(FILE);
        migrate_from_sled(dir, &path)?;
        let db = open_file(&path)?;
        let txn = db.begin_write()?;
        txn.open_table(ROWS)?; // created on first open, so readers always find it
        txn.commit()?;
        let model = ReadModel {
            db: Arc::new(db),
            applied: Arc::new(AtomicU64::new(0)),
            stalled: Arc::new(AtomicBool::new(false)),
            progress: Arc::new(tokio::sync::watch::Sender::new(0)),
        };
        let applied = model.rows()?.get(META_APPLIED)?.map_or(0, |v| u64_of(v.value()));
        model.applied.store(applied, Ordering::Release);
        model.progress.send_replace(applied);
        Ok(model)
    }

    /// Last log index projected.
    pub fn applied_index(&self) -> u64 {
        self.applied.load(Ordering::Acquire)
    }

    /// Projects one batch atomically: rows and the index it reaches.
    pub fn apply(&self, batch: &EventBatch<Event>) -> Result<(), ReadModelError> {
        self.apply_many(&[batch])
    }

    /// Projects several batches, in order, as one atomic sled batch: under load the
    /// per-batch costs (the meta rows, sled's batch apply) are paid once for many.
    pub fn apply_many<B: std::borrow::Borrow<EventBatch<Event>>>(
        &self,
        batches: &[B],
    ) -> Result<(), ReadModelError> {
        let applied = self.applied_index();
        let mut fresh = batches
            .iter()
            .map(std::borrow::Borrow::borrow)
            .filter(|b| b.last_index > applied)
            .peekable();
        let Some(first) = fresh.peek() else {
            return Ok(()); // already projected (never happens with a well-behaved pipeline)
        };
        // Not durable yet: `flush` makes every commit so far durable at once.
        let mut txn = self.db.begin_write()?;
        txn.set_durability(Durability::None)?;
        let mut last_index = applied;
        {
            let mut rows = txn.open_table(ROWS)?;
            let mut writer = Writer::new(&mut rows, first.time_ms)?;
            for batch in fresh {
                writer.time_ms = batch.time_ms;
                for event in &batch.events {
                    writer.event(event)?;
                }
                last_index = batch.last_index;
            }
            writer.finish(last_index)?;
        }
        txn.commit()?;
        self.applied.store(last_index, Ordering::Release);
        self.progress.send_replace(last_index);
        Ok(())
    }

    /// Waits until everything up to log `index` is projected (or `timeout` passes): a client
    /// that just placed an order sees it in its records.
    pub async fn caught_up(&self, index: u64, timeout: Duration) -> bool {
        let mut progress = self.progress.subscribe();
        tokio::time::timeout(timeout, progress.wait_for(|applied| *applied >= index))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Makes everything projected so far durable; returns the index it covers.
    pub fn flush(&self) -> Result<u64, ReadModelError> {
        let applied = self.applied_index();
        // An empty durable commit persists the non-durable ones before it.
        self.begin_durable()?.commit()?;
        Ok(applied)
    }

    /// A write transaction whose commit is durable and saves the allocator state, so that
    /// opening after a crash loads it instead of walking the whole file (seconds per GB).
    fn begin_durable(&self) -> Result<redb::WriteTransaction, ReadModelError> {
        let mut txn = self.db.begin_write()?;
        txn.set_quick_repair(true);
        Ok(txn)
    }

    /// The rows as they are now (one consistent version for the caller's reads).
    fn rows(&self) -> Result<RowsTable, ReadModelError> {
        Ok(self.db.begin_read()?.open_table(ROWS)?)
    }

    fn get<T: DeserializeOwned>(&self, key: &[u8]) -> Result<Option<T>, ReadModelError> {
        get_row(&self.rows()?, key)
    }

    /// Decoded rows of a scan, newest first, at most [`SCAN_ROWS_MAX`].
    fn decoded<T: DeserializeOwned>(scan: Rows) -> impl Iterator<Item = Result<T, ReadModelError>> {
        scan.rev().take(SCAN_ROWS_MAX).map(|entry| Ok(serde_json::from_slice(entry?.1.value())?))
    }

    /// Rows under `prefix ++ owner`, newest first, filtered, paged.
    fn list<T: DeserializeOwned>(
        &self,
        scan: Rows,
        keep: impl Fn(&T) -> bool,
        page: Paging,
    ) -> Result<Page<T>, ReadModelError> {
        page_of(Self::decoded(scan), keep, page)
    }

    /// Every user's rows of one kind, newest first, through the `owner_prefix` index
    /// (id -> owner) that points at `row_prefix ++ owner ++ id`.
    fn list_all<T: DeserializeOwned>(
        &self,
        owner_prefix: u8,
        row_prefix: u8,
        keep: impl Fn(&T) -> bool,
        page: Paging,
    ) -> Result<Page<T>, ReadModelError> {
        let table = self.rows()?;
        let rows =
            scan_prefix(&table, &[owner_prefix])?.rev().take(SCAN_ROWS_MAX).filter_map(|entry| {
                let lookup = || {
                    let (owner_key, owner) = entry?;
                    let id = u64_of(&owner_key.value()[1..]);
                    get_row::<T>(&table, &key(row_prefix, owner_of(owner.value()), id))
                };
                lookup().transpose()
            });
        page_of(rows, keep, page)
    }

    fn user_scan(&self, prefix: u8, user: u32) -> Result<Rows, ReadModelError> {
        let mut start = [0u8; 5];
        start[0] = prefix;
        start[1..].copy_from_slice(&user.to_be_bytes());
        scan_prefix(&self.rows()?, &start)
    }

    /// A user's bills, newest first, and the sum per type of every bill `keep` accepts
    /// (one bounded scan for both).
    pub fn bills(
        &self,
        user: u32,
        keep: impl Fn(&BillRow) -> bool,
        page: Paging,
    ) -> Result<(Page<BillRow>, BillSums), ReadModelError> {
        let mut sums = bill_sums();
        let rows = Self::decoded::<BillRow>(self.user_scan(BILL, user)?).inspect(|row| {
            if let Ok(row) = row {
                if keep(row) {
                    add_to_sums(&mut sums, row);
                }
            }
        });
        let page = page_of(rows, &keep, page)?;
        Ok((page, sums))
    }

    /// Sum of a user's bills matching `keep`, per type (bounded scan).
    pub fn bill_totals(
        &self,
        user: u32,
        keep: impl Fn(&BillRow) -> bool,
    ) -> Result<BillSums, ReadModelError> {
        let mut sums = bill_sums();
        for row in Self::decoded::<BillRow>(self.user_scan(BILL, user)?) {
            let row = row?;
            if keep(&row) {
                add_to_sums(&mut sums, &row);
            }
        }
        Ok(sums)
    }

    /// A user's contracts, newest first.
    pub fn contracts(
        &self,
        user: u32,
        keep: impl Fn(&ContractRow) -> bool,
        page: Paging,
    ) -> Result<Page<ContractRow>, ReadModelError> {
        self.list(self.user_scan(CONTRACT, user)?, keep, page)
    }

    /// One contract by id.
    pub fn contract(&self, id: u64) -> Result<Option<ContractRow>, ReadModelError> {
        let table = self.rows()?;
        let Some(owner) = table.get(&global_key(CONTRACT_OWNER, id)[..])? else { return Ok(None) };
        get_row(&table, &key(CONTRACT, owner_of(owner.value()), id))
    }

    /// Contracts with an id above `after_id` that `keep` accepts, oldest first, at most `limit`
    /// (looking at most at [`SCAN_ROWS_MAX`] rows): settled contracts for public proofs.
    pub fn contracts_after(
        &self,
        after_id: u64,
        limit: usize,
        keep: impl Fn(&ContractRow) -> bool,
    ) -> Result<Vec<ContractRow>, ReadModelError> {
        let start = global_key(CONTRACT_OWNER, after_id.saturating_add(1));
        let end = global_key(CONTRACT_OWNER, u64::MAX);
        let table = self.rows()?;
        let mut rows = Vec::new();
        for entry in table.range::<&[u8]>(&start[..]..=&end[..])?.take(SCAN_ROWS_MAX) {
            let (owner_key, owner) = entry?;
            let id = u64_of(&owner_key.value()[1..]);
            if let Some(row) =
                get_row::<ContractRow>(&table, &key(CONTRACT, owner_of(owner.value()), id))?
            {
                if keep(&row) {
                    rows.push(row);
                    if rows.len() >= limit {
                        break;
                    }
                }
            }
        }
        Ok(rows)
    }

    /// Every user's contracts, newest first (back-office).
    pub fn all_contracts(
        &self,
        keep: impl Fn(&ContractRow) -> bool,
        page: Paging,
    ) -> Result<Page<ContractRow>, ReadModelError> {
        self.list_all(CONTRACT_OWNER, CONTRACT, keep, page)
    }

    /// A user's deposit and withdrawal orders, newest first.
    pub fn orders(
        &self,
        user: u32,
        keep: impl Fn(&OrderRow) -> bool,
        page: Paging,
    ) -> Result<Page<OrderRow>, ReadModelError> {
        self.list(self.user_scan(ORDER, user)?, keep, page)
    }

    /// Every user's orders, newest first (back-office).
    pub fn all_orders(
        &self,
        keep: impl Fn(&OrderRow) -> bool,
        page: Paging,
    ) -> Result<Page<OrderRow>, ReadModelError> {
        self.list_all(ORDER_OWNER, ORDER, keep, page)
    }

    /// A user's sign-ins, newest first.
    pub fn logins(&self, user: u32, page: Paging) -> Result<Page<LoginRow>, ReadModelError> {
        self.list(self.user_scan(LOGIN, user)?, |_| true, page)
    }

    /// A user's security events (two-factor pauses), newest first.
    pub fn security_events(
        &self,
        user: u32,
        page: Paging,
    ) -> Result<Page<SecurityRow>, ReadModelError> {
        self.list(self.user_scan(SECURITY, user)?, |_| true, page)
    }

    /// A user's fired price alerts, newest first.
    pub fn fired_alerts(&self, user: u32, page: Paging) -> Result<Page<AlertRow>, ReadModelError> {
        self.list(self.user_scan(ALERT, user)?, |_| true, page)
    }

    /// System notices, newest first, the rows `keep` accepts.
    pub fn notices(
        &self,
        keep: impl Fn(&NoticeRow) -> bool,
        page: Paging,
    ) -> Result<Page<NoticeRow>, ReadModelError> {
        self.list(scan_prefix(&self.rows()?, &[NOTICE])?, keep, page)
    }

    /// The UIDs of users whose name or e-mail contains `text` (any case), newest first, one
    /// page, with the count of every match. Three bytes or more are looked up in the search
    /// index, from its rarest gram of `text`; a shorter text looks at the newest
    /// [`SCAN_ROWS_MAX`] users.
    pub fn search_users(&self, text: &str, page: Paging) -> Result<Page<u32>, ReadModelError> {
        let needle = text.to_lowercase();
        let table = self.rows()?;
        let candidates: Vec<u32> = if needle.len() < 3 {
            scan_prefix(&table, &[USER])?
                .rev()
                .take(SCAN_ROWS_MAX)
                .map(|entry| Ok(owner_of(&entry?.0.value()[1..])))
                .collect::<Result<_, ReadModelError>>()?
        } else {
            rarest_gram(&table, needle.as_bytes())?
        };
        let matching = candidates.into_iter().filter_map(|uid| {
            let row = get_row::<UserSearchRow>(&table, &user_key(uid));
            row.map(|found| found.filter(|r| r.contains(&needle)).map(|_| uid)).transpose()
        });
        page_of(matching, |_| true, page)
    }

    /// One notice.
    pub fn notice(&self, id: u64) -> Result<Option<NoticeRow>, ReadModelError> {
        self.get(&global_key(NOTICE, id))
    }

    /// The audit log, newest first, the rows `keep` accepts.
    pub fn audit(
        &self,
        keep: impl Fn(&AuditRow) -> bool,
        page: Paging,
    ) -> Result<Page<AuditRow>, ReadModelError> {
        self.list(scan_prefix(&self.rows()?, &[AUDIT])?, keep, page)
    }

    /// Dashboard totals.
    pub fn totals(&self) -> Result<Totals, ReadModelError> {
        Ok(self.get(META_TOTALS)?.unwrap_or_default())
    }

    /// The figures of the `days` UTC days up to and including the one of `now_ms`, oldest
    /// first; a day without activity is all zeros.
    pub fn days(&self, now_ms: u64, days: u32) -> Result<Vec<DayRow>, ReadModelError> {
        let last = now_ms / DAY_MS;
        let first = last.saturating_sub(u64::from(days.max(1)) - 1);
        let table = self.rows()?;
        (first..=last)
            .map(|day| {
                let row = get_row::<DayRow>(&table, &day_key(day))?;
                Ok(row.unwrap_or(DayRow { day: day * DAY_MS, ..DayRow::default() }))
            })
            .collect()
    }

    /// Records an upload (written by the gateway, not by events: files are not engine state).
    pub fn put_upload(&self, name: &str, row: &UploadRow) -> Result<(), ReadModelError> {
        let mut k = vec![UPLOAD];
        k.extend_from_slice(name.as_bytes());
        let txn = self.begin_durable()?; // the file is already on disk
        txn.open_table(ROWS)?.insert(k.as_slice(), serde_json::to_vec(row)?.as_slice())?;
        txn.commit()?;
        Ok(())
    }

    /// Takes `bytes` of `owner`'s upload quota, atomically: false (and nothing taken) if the
    /// upload would pass `files_max` files or `bytes_max` bytes.
    pub fn reserve_upload(
        &self,
        owner: u32,
        bytes: u64,
        files_max: u64,
        bytes_max: u64,
    ) -> Result<bool, ReadModelError> {
        self.change_upload_usage(owner, |files, used| {
            (files < files_max && used + bytes <= bytes_max).then(|| (files + 1, used + bytes))
        })
    }

    /// Reads and changes `owner`'s upload usage (files, bytes) in one write transaction
    /// (writers take turns, so two uploads cannot both take the last place); `change` returns
    /// the new usage, or `None` to leave it. True if changed.
    fn change_upload_usage(
        &self,
        owner: u32,
        change: impl FnOnce(u64, u64) -> Option<(u64, u64)>,
    ) -> Result<bool, ReadModelError> {
        let key = [&[UPLOAD_USAGE][..], &owner.to_be_bytes()].concat();
        let mut txn = self.db.begin_write()?;
        txn.set_durability(Durability::None)?; // made durable with the next flush
        let changed = {
            let mut table = txn.open_table(ROWS)?;
            let old = table.get(key.as_slice())?.map(|v| v.value().to_vec());
            let (files, used) =
                old.as_deref().map_or((0, 0), |v| (u64_of(&v[..8]), u64_of(&v[8..])));
            match change(files, used) {
                Some((files, used)) => {
                    let new = [files.to_be_bytes(), used.to_be_bytes()].concat();
                    table.insert(key.as_slice(), new.as_slice())?;
                    true
                }
                None => false,
            }
        };
        txn.commit()?;
        Ok(changed)
    }

    /// Gives back what [`ReadModel::reserve_upload`] took, when the file could not be stored.
    pub fn release_upload(&self, owner: u32, bytes: u64) -> Result<(), ReadModelError> {
        self.change_upload_usage(owner, |files, used| {
            Some((files.saturating_sub(1), used.saturating_sub(bytes)))
        })?;
        Ok(())
    }

    /// An upload's owner and kind.
    pub fn upload(&self, name: &str) -> Result<Option<UploadRow>, ReadModelError> {
        let mut k = vec![UPLOAD];
        k.extend_from_slice(name.as_bytes());
        self.get(&k)
    }
}

/// What the user search matches on, lower-cased.
#[derive(Debug, Serialize, Deserialize)]
struct UserSearchRow {
    username: String,
    email: String,
}

impl UserSearchRow {
    /// Every distinct three bytes of the name and the e-mail.
    fn grams(&self) -> std::collections::BTreeSet<[u8; 3]> {
        [&self.username, &self.email]
            .iter()
            .flat_map(|text| text.as_bytes().windows(3))
            .map(|w| [w[0], w[1], w[2]])
            .collect()
    }

    fn contains(&self, needle: &str) -> bool {
        self.username.contains(needle) || self.email.contains(needle)
    }
}

fn user_key(uid: u32) -> [u8; 5] {
    let mut key = [0u8; 5];
    key[0] = USER;
    key[1..].copy_from_slice(&uid.to_be_bytes());
    key
}

fn gram_key(gram: [u8; 3], uid: u32) -> [u8; 8] {
    let mut key = [0u8; 8];
    key[0] = USER_GRAM;
    key[1..4].copy_from_slice(&gram);
    key[4..].copy_from_slice(&uid.to_be_bytes());
    key
}

/// The UIDs under the rarest three bytes of `needle`, newest first (at most
/// [`SCAN_ROWS_MAX`]). Each gram is counted only as far as the rarest so far, so a common one
/// ("com" of every e-mail) costs no more than the answer.
fn rarest_gram(table: &RowsTable, needle: &[u8]) -> Result<Vec<u32>, ReadModelError> {
    let mut best: Option<Vec<u32>> = None;
    let grams: std::collections::BTreeSet<&[u8]> = needle.windows(3).collect();
    for gram in grams {
        let limit = best.as_ref().map_or(SCAN_ROWS_MAX, Vec::len);
        let mut prefix = vec![USER_GRAM];
        prefix.extend_from_slice(gram);
        let mut uids = Vec::new();
        for entry in scan_prefix(table, &prefix)?.rev() {
            if uids.len() >= limit {
                break;
            }
            uids.push(owner_of(&entry?.0.value()[4..]));
        }
        if uids.len() < limit || best.is_none() {
            best = Some(uids);
        }
        if best.as_ref().is_some_and(Vec::is_empty) {
            break;
        }
    }
    Ok(best.unwrap_or_default())
}

/// Filters rows (newest first) and keeps one page of them, counting every match.
fn page_of<T>(
    rows: impl Iterator<Item = Result<T, ReadModelError>>,
    keep: impl Fn(&T) -> bool,
    page: Paging,
) -> Result<Page<T>, ReadModelError> {
    let mut items = Vec::new();
    let mut total = 0u64;
    for row in rows {
        let row = row?;
        if !keep(&row) {
            continue;
        }
        if total >= page.skip() && items.len() < page.size {
            items.push(row);
        }
        total += 1;
    }
    Ok(Page { items, total })
}

/// The sum of bills per type, every type listed.
pub type BillSums = Vec<(String, Decimal)>;

/// A zero sum for every bill type.
fn bill_sums() -> BillSums {
    BILL_TYPES.iter().map(|t| ((*t).to_owned(), Decimal::ZERO)).collect()
}

fn add_to_sums(sums: &mut [(String, Decimal)], row: &BillRow) {
    if let Some(sum) = sums.iter_mut().find(|(t, _)| *t == row.bill_type) {
        sum.1 += row.amount;
    }
}

/// Which page of a list.
#[derive(Debug, Clone, Copy)]
pub struct Paging {
    /// 1-based page number.
    pub page: usize,
    /// Rows per page.
    pub size: usize,
}

impl Paging {
    fn skip(&self) -> u64 {
        (self.page.saturating_sub(1) * self.size) as u64
    }
}

/// A row decoded, if there is one under `key`.
fn get_row<T: DeserializeOwned>(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    key: &[u8],
) -> Result<Option<T>, ReadModelError> {
    match table.get(key)? {
        Some(bytes) => Ok(Some(serde_json::from_slice(bytes.value())?)),
        None => Ok(None),
    }
}

/// Every row whose key starts with `prefix`, in key order.
fn scan_prefix(table: &RowsTable, prefix: &[u8]) -> Result<Rows, ReadModelError> {
    // The first key after the prefix's range: the prefix with its last byte below 0xff
    // raised by one and the rest dropped (none if it is all 0xff).
    let mut end = prefix.to_vec();
    while end.last() == Some(&0xff) {
        end.pop();
    }
    Ok(match end.last_mut() {
        Some(last) => {
            *last += 1;
            table.range::<&[u8]>(prefix..end.as_slice())?
        }
        None => table.range::<&[u8]>(prefix..)?,
    })
}

fn day_key(day: u64) -> [u8; 5] {
    let mut key = [0u8; 5];
    key[0] = DAY;
    key[1..].copy_from_slice(&u32::try_from(day).unwrap_or(u32::MAX).to_be_bytes());
    key
}

/// The user id an owner index row points at.
fn owner_of(bytes: &[u8]) -> u32 {
    u32::from_be_bytes(bytes.try_into().unwrap_or_default())
}

/// Opens (or creates) the database file, waiting a moment for a previous holder in this
/// process (a node being restarted) to close it.
fn open_file(path: &Path) -> Result<redb::Database, ReadModelError> {
    let deadline = Instant::now() + OPEN_WAIT;
    loop {
        match redb::Database::builder().set_cache_size(READ_MODEL_CACHE_BYTES).create(path) {
            Err(redb::DatabaseError::DatabaseAlreadyOpen) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            other => return Ok(other?),
        }
    }
}

/// Moves a read model written by an older version (a sled database in `dir`) into the redb
/// file at `path`: copied into a temporary file that is renamed into place when complete,
/// so that an interrupted move starts again; sled's files are removed afterwards.
fn migrate_from_sled(dir: &Path, path: &Path) -> Result<(), ReadModelError> {
    // sled's database: a `conf` and a `db` file (and `blobs/`, `snap.*`).
    if !dir.join("conf").exists() || !dir.join("db").exists() {
        return Ok(());
    }
    if !path.exists() {
        let partial = dir.join(format!("{FILE}.partial"));
        let _ = std::fs::remove_file(&partial);
        let sled_db = wal::open_db(dir, 64 << 20)?;
        let tree = sled_db.open_tree(SLED_TREE)?;
        let db = redb::Database::create(&partial)?;
        let mut rows = tree.iter().peekable();
        let mut copied = 0usize;
        while rows.peek().is_some() {
            let txn = db.begin_write()?;
            {
                let mut table = txn.open_table(ROWS)?;
                for row in rows.by_ref().take(MIGRATE_CHUNK_ROWS) {
                    let (key, value) = row?;
                    table.insert(key.as_ref(), value.as_ref())?;
                    copied += 1;
                }
            }
            txn.commit()?;
        }
        drop(db);
        drop(tree);
        drop(sled_db);
        std::fs::rename(&partial, path)?;
        tracing::info!(rows = copied, "read model moved from sled to redb");
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == "conf" || name == "db" || name.starts_with("snap.") {
            std::fs::remove_file(entry.path())?;
        } else if name == "blobs" {
            std::fs::remove_dir_all(entry.path())?;
        }
    }
    Ok(())
}

/// Writes one projection step inside a write transaction; reads see its own earlier writes.
struct Writer<'a, 't> {
    rows: &'a mut redb::Table<'t, &'static [u8], &'static [u8]>,
    time_ms: u64,
    seq: u64,
    totals: Totals,
    /// The day being counted, written when the day changes and at the end.
    today: Option<DayRow>,
}

impl<'a, 't> Writer<'a, 't> {
    fn new(
        rows: &'a mut redb::Table<'t, &'static [u8], &'static [u8]>,
        time_ms: u64,
    ) -> Result<Self, ReadModelError> {
        let seq = rows.get(META_SEQ)?.map_or(0, |v| u64_of(v.value()));
        let totals = get_row(&*rows, META_TOTALS)?.unwrap_or_default();
        Ok(Writer { rows, time_ms, seq, totals, today: None })
    }

    /// The figures of the day of the event being projected.
    fn day(&mut self) -> Result<&mut DayRow, ReadModelError> {
        let start = self.time_ms / DAY_MS * DAY_MS;
        if self.today.as_ref().is_some_and(|d| d.day != start) {
            self.write_day()?;
        }
        if self.today.is_none() {
            let stored = get_row::<DayRow>(&*self.rows, &day_key(start / DAY_MS))?;
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
        self.rows.insert(key, serde_json::to_vec(row)?.as_slice())?;
        Ok(())
    }

    fn put_raw(&mut self, key: &[u8], value: &[u8]) -> Result<(), ReadModelError> {
        self.rows.insert(key, value)?;
        Ok(())
    }

    fn get<T: DeserializeOwned>(&self, key: &[u8]) -> Result<Option<T>, ReadModelError> {
        get_row(&*self.rows, key)
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

    fn event(&mut self, event: &Event) -> Result<(), ReadModelError> {
        let now = self.time_ms;
        match event {
            Event::Wallet(change) => self.bill(change)?,
            Event::ContractOpened { contract, symbol } => self.opened(contract, *symbol)?,
            Event::ContractEntered { contract, user, entry, expiry_ms } => {
                self.update(&key(CONTRACT, *user, *contract), |row: &mut ContractRow| {
                    row.entered(*entry, *expiry_ms);
                })?;
            }
            Event::ContractSettled(settlement) => self.settled(settlement)?,
            Event::DepositRequested(order) => self.deposit_requested(order)?,
            Event::WithdrawalRequested(order) => self.withdrawal_requested(order)?,
            Event::OrderResolved { order, user, status, remark, withdrawal } => {
                self.order_resolved(*order, *user, *status, remark, *withdrawal)?;
            }
            Event::SessionStarted { user, session, device, ip } => {
                self.session_started(*user, *session, device, ip)?;
            }
            Event::SessionEnded { user, session } => {
                self.update(&key(LOGIN, *user, *session), |row: &mut LoginRow| {
                    row.ended_at = Some(now);
                })?;
            }
            Event::UserRegistered { user, username, email, .. } => {
                self.user_registered(*user, username, email.as_deref())?;
            }
            Event::PriceAlertFired { alert, tick } => {
                self.put(&key(ALERT, alert.user, alert.id), &AlertRow::fired(alert, *tick))?;
            }
            Event::TwoFactorLocked { who: Principal::User(user), until_ms, failures } => {
                let row = SecurityRow::two_factor_locked(now, *until_ms, *failures);
                self.put(&key(SECURITY, *user, *until_ms), &row)?;
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
            // Kept by the engine (a password, a profile, the catalogue), by the candle archive
            // (ticks), or in the audit log (an admin's sessions): no history row of their own.
            Event::PasswordChanged { .. }
            | Event::UserUpdated { .. }
            | Event::Tick { .. }
            | Event::AdminSessionsEnded { .. }
            | Event::CatalogueChanged => {}
        }
        Ok(())
    }

    /// A bill line for a wallet change that moved the total.
    fn bill(&mut self, change: &WalletChange) -> Result<(), ReadModelError> {
        let now = self.time_ms;
        let Some(bill) = change.bill else { return Ok(()) };
        self.seq += 1;
        let row = BillRow {
            id: self.seq,
            account: account_name(change.account).into(),
            bill_type: bill_name(bill).into(),
            amount: change.amount.to_decimal(),
            balance: change.wallet.available.to_decimal(),
            reference: change.reference,
            status: "completed".into(),
            time: now,
        };
        self.put(&key(BILL, change.user, self.seq), &row)?;
        Ok(())
    }

    /// A new contract's record, and the day's real-money figures.
    fn opened(&mut self, c: &Contract, symbol: Symbol) -> Result<(), ReadModelError> {
        if c.account == AccountKind::Real {
            self.totals.contracts += 1;
            self.totals.volume += c.stake.to_decimal();
            let day = self.day()?;
            day.contracts += 1;
            day.turnover += c.stake.to_decimal();
            day.fees += c.fee.to_decimal();
            day.house_result += c.fee.to_decimal();
        }
        let row = ContractRow::opened(c, symbol);
        self.put(&key(CONTRACT, c.user, c.id), &row)?;
        self.put_raw(&global_key(CONTRACT_OWNER, c.id), &c.user.to_be_bytes())?;
        Ok(())
    }

    /// A deposit order's record, linked to its receipt.
    fn deposit_requested(&mut self, order: &DepositOrder) -> Result<(), ReadModelError> {
        let receipt = [&[UPLOAD][..], order.receipt.as_bytes()].concat();
        self.update(&receipt, |row: &mut UploadRow| row.deposit = Some(order.id))?;
        let details = serde_json::json!({
            "accountName": order.account_name,
            "accountNumber": order.account_number,
            "bankName": order.bank_name,
        });
        let row = OrderRow {
            id: order.id,
            user: order.user,
            kind: "deposit".into(),
            amount: order.amount.to_decimal(),
            fee: Decimal::ZERO,
            actual: order.amount.to_decimal(),
            method: crate::api::dto::pay_method_name(order.method).into(),
            details,
            receipt: Some(order.receipt.clone()),
            status: "pending".into(),
            remark: String::new(),
            created_at: order.created_ms,
            completed_at: None,
        };
        self.order(row)?;
        Ok(())
    }

    /// A withdrawal order's record.
    fn withdrawal_requested(&mut self, order: &WithdrawOrder) -> Result<(), ReadModelError> {
        let (method, details) = crate::api::dto::destination_json(&order.destination);
        let row = OrderRow {
            id: order.id,
            user: order.user,
            kind: "withdraw".into(),
            amount: order.amount.to_decimal(),
            fee: order.fee.to_decimal(),
            actual: order.actual.to_decimal(),
            method: method.into(),
            details,
            receipt: None,
            status: "pending".into(),
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
            let amount = self.get::<OrderRow>(&key(ORDER, user, order))?.map(|o| o.amount);
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
        self.update(&key(ORDER, user, order), |row: &mut OrderRow| {
            row.status = order_status_name(status).into();
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
        self.put(&key(LOGIN, user, session), &row)?;
        Ok(())
    }

    /// A new user's search row (and its trigrams), and the day's count.
    fn user_registered(
        &mut self,
        user: UserId,
        username: &str,
        email: Option<&str>,
    ) -> Result<(), ReadModelError> {
        let row = UserSearchRow {
            username: username.to_lowercase(),
            email: email.unwrap_or("").to_lowercase(),
        };
        for gram in row.grams() {
            self.put_raw(&gram_key(gram, user), &[])?;
        }
        self.put(&user_key(user), &row)?;
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
            admin: record.admin,
            action: record.action.into(),
            detail: record.detail.clone(),
            refused: record.refused.map(String::from),
            time: record.time_ms,
        };
        self.seq += 1;
        self.put(&global_key(AUDIT, self.seq), &row)?;
        Ok(())
    }

    fn settled(&mut self, s: &Settlement) -> Result<(), ReadModelError> {
        let c = &s.contract;
        if c.account == AccountKind::Real && !s.outcome.is_void() {
            self.totals.settled += 1;
            self.totals.users_net += (s.credited - c.stake).to_decimal();
            let day = self.day()?;
            day.settled += 1;
            day.house_result += (c.stake - s.credited).to_decimal();
        }
        self.update(&key(CONTRACT, c.user, c.id), |row: &mut ContractRow| row.settled(s))
    }

    fn order(&mut self, row: OrderRow) -> Result<(), ReadModelError> {
        self.put_raw(&global_key(ORDER_OWNER, row.id), &row.user.to_be_bytes())?;
        self.put(&key(ORDER, row.user, row.id), &row)
    }

    fn finish(mut self, last_index: u64) -> Result<(), ReadModelError> {
        self.write_day()?;
        self.put_raw(META_SEQ, &self.seq.to_be_bytes())?;
        self.put_raw(META_APPLIED, &last_index.to_be_bytes())?;
        let totals = serde_json::to_vec(&self.totals)?;
        self.put_raw(META_TOTALS, &totals)
    }
}

/// How often archived days past the retention are removed.
const ARCHIVE_PRUNE_PERIOD: Duration = Duration::from_secs(3_600);

/// Most event batches projected as one sled batch.
const PROJECT_BATCHES_MAX: usize = 256;

/// Runs the projector thread: applies live batches, flushes every [`FLUSH_PERIOD`] and tells
/// the pipeline how far the durable projection reaches. Returns when the pipeline stops.
pub fn spawn_projector(
    model: ReadModel,
    archive: Arc<TickArchive>,
    archive_days: u64,
    handle: Handle<Engine>,
    live: crossbeam_channel::Receiver<Arc<EventBatch<Event>>>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new().name("readmodel".into()).spawn(move || {
        let mut last_flush = Instant::now();
        let mut last_prune: Option<Instant> = None;
        loop {
            match live.recv_timeout(FLUSH_PERIOD) {
                Ok(batch) => {
                    let mut batches = vec![batch];
                    batches.extend(live.try_iter().take(PROJECT_BATCHES_MAX - 1));
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
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                    // Stopped with the pipeline, or dropped for falling behind.
                    if !handle.is_closed() {
                        tracing::error!("read model fell behind and was dropped; history resumes after a restart");
                        model.stalled.store(true, Ordering::Release);
                    }
                    let _ = model.flush();
                    if let Err(error) = archive.flush() {
                        tracing::error!(%error, "tick archive: final flush failed; the log keeps the ticks");
                    }
                    return;
                }
            }
            if last_flush.elapsed() >= FLUSH_PERIOD {
                // The log is kept after the lower of the two durable positions.
                let now = wal::pipeline::system_time_ms();
                match (model.flush(), archive.flush_if_due(now)) {
                    (Ok(durable), Ok(archived)) => handle.set_followed(durable.min(archived)),
                    (Err(error), _) => tracing::error!(%error, "read model flush failed"),
                    (_, Err(error)) => tracing::error!(%error, "tick archive flush failed"),
                }
                if last_prune.is_none_or(|at| at.elapsed() >= ARCHIVE_PRUNE_PERIOD) {
                    match archive.prune(now, archive_days) {
                        Ok(0) => {}
                        Ok(removed) => tracing::info!(removed, archive_days, "tick archive: old days removed"),
                        Err(error) => tracing::error!(%error, "tick archive: pruning failed"),
                    }
                    last_prune = Some(Instant::now());
                }
                last_flush = Instant::now();
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(index: u64, title: &str) -> EventBatch<Event> {
        EventBatch {
            first_index: index,
            last_index: index,
            time_ms: 1_700_000_000_000 + index,
            events: vec![Event::Notice {
                id: index,
                title: title.into(),
                body: format!("body {index}"),
                lang: String::new(),
            }],
        }
    }

    fn titles(model: &ReadModel) -> Vec<String> {
        let page = model.notices(|_| true, Paging { page: 1, size: 50 }).unwrap();
        page.items.into_iter().map(|n| n.title).collect()
    }

    #[test]
    fn a_flushed_projection_survives_reopening_and_is_not_applied_twice() {
        let dir = tempfile::tempdir().unwrap();
        let model = ReadModel::open(dir.path()).unwrap();
        model.apply(&notice(1, "one")).unwrap();
        model.apply(&notice(2, "two")).unwrap();
        assert_eq!(model.flush().unwrap(), 2);
        drop(model);

        let model = ReadModel::open(dir.path()).unwrap();
        assert_eq!(model.applied_index(), 2);
        assert_eq!(titles(&model), ["two", "one"]);
        model.apply(&notice(2, "two again")).unwrap(); // replayed by the pipeline: skipped
        model.apply(&notice(3, "three")).unwrap();
        assert_eq!(titles(&model), ["three", "two", "one"]);
    }

    #[test]
    fn a_sled_read_model_of_an_older_version_is_moved_over_once() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = wal::open_db(dir.path(), 1 << 20).unwrap();
            let tree = db.open_tree(SLED_TREE).unwrap();
            let row = NoticeRow {
                id: 1,
                title: "kept".into(),
                body: "b".into(),
                time: 5,
                lang: String::new(),
                withdrawn_at: None,
            };
            tree.insert(global_key(NOTICE, 1), serde_json::to_vec(&row).unwrap()).unwrap();
            tree.insert(META_APPLIED, &41u64.to_be_bytes()).unwrap();
            tree.insert(META_SEQ, &1u64.to_be_bytes()).unwrap();
            db.flush().unwrap();
        }
        let model = ReadModel::open(dir.path()).unwrap();
        assert_eq!(model.applied_index(), 41);
        assert_eq!(titles(&model), ["kept"]);
        assert!(!dir.path().join("conf").exists(), "sled's files are removed");
        assert!(!dir.path().join("db").exists());
        // New rows go on after the old ones (a notice is numbered by its broadcast's index).
        model.apply(&notice(42, "new")).unwrap();
        assert_eq!(titles(&model), ["new", "kept"]);
        let ids: Vec<u64> = model
            .notices(|_| true, Paging { page: 1, size: 5 })
            .unwrap()
            .items
            .iter()
            .map(|n| n.id)
            .collect();
        assert_eq!(ids, [42, 1]);
        drop(model);
        assert_eq!(titles(&ReadModel::open(dir.path()).unwrap()), ["new", "kept"]);
    }

    #[test]
    fn a_prefix_scan_stops_at_the_prefix_whatever_its_last_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let model = ReadModel::open(dir.path()).unwrap();
        let txn = model.db.begin_write().unwrap();
        {
            let mut table = txn.open_table(ROWS).unwrap();
            for k in [&[1u8, 0xff][..], &[1, 0xff, 0], &[2], &[2, 0], &[0xff], &[0xff, 0xff, 1]] {
                table.insert(k, &b"x"[..]).unwrap();
            }
        }
        txn.commit().unwrap();
        let keys = |prefix: &[u8]| -> Vec<Vec<u8>> {
            let table = model.rows().unwrap();
            scan_prefix(&table, prefix).unwrap().map(|e| e.unwrap().0.value().to_vec()).collect()
        };
        assert_eq!(keys(&[1, 0xff]), [vec![1, 0xff], vec![1, 0xff, 0]]);
        assert_eq!(keys(&[1]), [vec![1, 0xff], vec![1, 0xff, 0]]);
        assert_eq!(keys(&[2]), [vec![2], vec![2, 0]]);
        assert_eq!(keys(&[0xff]), [vec![0xff], vec![0xff, 0xff, 1]]);
        assert_eq!(keys(&[0xff, 0xff]), [vec![0xff, 0xff, 1]]);
    }
}
