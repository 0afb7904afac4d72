//! The read model: history the engine does not keep (bills, contract records, deposit and
//! withdrawal orders, sign-ins, notices, the audit log), projected from engine events into
//! one redb file by one thread and flushed there by another.
//!
//! It is a `wal::Follower`: each event batch's rows, with the index it reaches, are kept in
//! memory and seen by readers at once ([`pending`]); a flush writes them to redb in one
//! durable transaction, and the pipeline is then told that index, so snapshots stay behind it
//! and a restart hands over exactly the events after it (none lost, none twice).
//!
//! Why redb and not sled (which keeps the snapshots and candles): sled's memory grows with the
//! size of its database (sled#1410), and history grows without end; redb's memory is its page
//! cache, bounded by [`READ_MODEL_CACHE_BYTES`] (BENCHMARKS.md, "Soak").
//!
//! - [`rows`]: the rows as stored (MessagePack) and answered.
//! - [`queries`]: the lists and lookups the API reads; [`search`]: the back-office's user
//!   search (a trigram index); [`uploads`]: the upload index and per-user quota.
//! - [`projector`]: the thread that writes rows from engine events, and the flusher.
//! - [`pending`]: rows projected and not yet in redb, and the view readers see.
//! - [`migration`]: moving a read model of an older version (sled) over.

mod migration;
mod pending;
mod projector;
pub mod queries;
pub mod rows;
mod search;
mod uploads;

use std::ops::Bound;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use redb::{Durability, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{de::DeserializeOwned, Serialize};
use utoipa::ToSchema;

pub use projector::spawn_projector;
pub use queries::{BillSums, Statement};
pub use rows::{
    AlertRow, AuditRow, BillRow, ContractRow, ContractState, CopyNoteRow, DayRow, LoginRow,
    NoticeRow, OrderKind, OrderRow, SaleRow, SecurityRow, TickRow, Totals, UploadKind, UploadRow,
};

use migration::migrate_from_sled;
use pending::{Merged, Pending, Value, View};

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
/// Who owns which contract, under `CONTRACT_OWNER ++ first id`: one owner (4 bytes) per id
/// from the first on, for the contracts of one projection step (consecutive ids), so that a
/// step writes one index row rather than one per contract. A row of one owner is a run of one
/// (the format before runs).
const CONTRACT_OWNER: u8 = b'C';
/// Most ids one owner-index row covers.
const OWNER_RUN_MAX: u64 = 256;
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
/// What copy trading told each user, by (user, sequence).
const COPY_NOTE: u8 = b'N';
/// Traders' real results per hour, by (user, hour since the epoch): copy trading's rankings.
const TRADER_HOUR: u8 = b'h';
const HOUR_MS: u64 = 3_600_000;
/// Milliseconds in a day.
const DAY_MS: u64 = 86_400_000;
const META_APPLIED: &[u8] = b"m:applied";
const META_SEQ: &[u8] = b"m:seq";
const META_TOTALS: &[u8] = b"m:totals";
/// How often the projection is flushed and its position reported to the pipeline. Each
/// flush copies a page per trader with new rows, so it pays to gather a second's rows;
/// readers see them before (see [`pending`]).
pub const FLUSH_PERIOD: Duration = Duration::from_secs(1);
/// Pending rows that make a projection step flush at once, whatever the time: bounds the
/// memory they take (a row is a few hundred bytes: some 80 MB at most, twice that while a
/// flush writes the rows before them) and a flush's length under heavy load or a long
/// catch-up at start. Room for a whole second's rows up to about
/// 50 k orders a second (about 4.5 rows each): a lower bound that cut the window short at
/// 20 k/s cost the projector a tenth more CPU (BENCHMARKS.md, "Websockets").
const PENDING_ROWS_MAX: usize = 262_144;
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
    /// A stored row did not decode (JSON, as rows were first stored).
    #[error("read model row: {0}")]
    Decode(#[from] serde_json::Error),
    /// A stored row did not decode (MessagePack).
    #[error("read model row: {0}")]
    DecodePacked(#[from] rmp_serde::decode::Error),
    /// A row could not be encoded.
    #[error("read model row: {0}")]
    Encode(#[from] rmp_serde::encode::Error),
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

/// A scan over redb's rows in key order (reversible).
type Rows = redb::Range<'static, &'static [u8], &'static [u8]>;
/// The rows table as a reader sees it (one consistent version).
type RowsTable = redb::ReadOnlyTable<&'static [u8], &'static [u8]>;

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
    /// Rows projected and not yet in redb; readers see them over redb's rows.
    unflushed: Arc<Mutex<Unflushed>>,
    /// Held by whoever projects, or takes the pending rows to flush them, so that the
    /// pending rows and `applied` move together; it keeps the rows of contracts waiting for
    /// their entry.
    writing: Arc<Mutex<projector::Waiting>>,
    /// Held by a flush throughout: one at a time.
    flush_turn: Arc<Mutex<()>>,
}

/// Rows not yet in redb: those a flush is writing, and those projected since (newer). A flush
/// writes on a thread of its own, so projection goes on meanwhile; on a full machine a flush
/// takes a second or more, and history stood still that long while the projector wrote it
/// (BENCHMARKS.md, "The projector alone").
#[derive(Debug, Default)]
struct Unflushed {
    flushing: Arc<Pending>,
    pending: Arc<Pending>,
}

impl Unflushed {
    /// All of them, newest last.
    fn all(&self) -> Arc<Pending> {
        if self.flushing.rows() == 0 {
            Arc::clone(&self.pending)
        } else if self.pending.rows() == 0 {
            Arc::clone(&self.flushing)
        } else {
            Arc::new(self.flushing.then(&self.pending))
        }
    }
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
            unflushed: Arc::default(),
            writing: Arc::default(),
            flush_turn: Arc::default(),
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

    /// Waits until everything up to log `index` is projected (or `timeout` passes): a client
    /// that just placed an order sees it in its records.
    pub async fn caught_up(&self, index: u64, timeout: Duration) -> bool {
        let mut progress = self.progress.subscribe();
        tokio::time::timeout(timeout, progress.wait_for(|applied| *applied >= index))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Makes everything projected so far durable; returns the index it covers. Projection
    /// goes on while it writes.
    pub fn flush(&self) -> Result<u64, ReadModelError> {
        let _turn = lock(&self.flush_turn);
        let (applied, rows) = self.freeze();
        // On failure the rows stay in `flushing`, and the next flush writes them too.
        self.write(&rows)?;
        self.thaw();
        Ok(applied)
    }

    /// Takes the pending rows (and any a failed flush left) to be flushed, with the index
    /// they reach.
    fn freeze(&self) -> (u64, Arc<Pending>) {
        let _writing = lock(&self.writing);
        let mut unflushed = lock(&self.unflushed);
        let rows = unflushed.all();
        unflushed.flushing = Arc::clone(&rows);
        unflushed.pending = Arc::default();
        (self.applied_index(), rows)
    }

    /// Writes `rows` to redb in one durable transaction (which also persists the upload
    /// index's non-durable commits before it).
    fn write(&self, rows: &Pending) -> Result<(), ReadModelError> {
        let txn = self.begin_durable()?;
        {
            let mut table = txn.open_table(ROWS)?;
            rows.for_each(|key, value| table.insert(key, value).map(drop))?;
        }
        txn.commit()?;
        Ok(())
    }

    /// Lets go of the rows a flush wrote: a reader that took them before the commit sees
    /// the same rows in redb's older or newer version; one that comes now finds them in redb.
    fn thaw(&self) {
        lock(&self.unflushed).flushing = Arc::default();
    }

    /// The rows projected since the last flush began.
    fn pending_rows(&self) -> Arc<Pending> {
        Arc::clone(&lock(&self.unflushed).pending)
    }

    /// A write transaction whose commit is durable and saves the allocator state, so that
    /// opening after a crash loads it instead of walking the whole file (seconds per GB).
    fn begin_durable(&self) -> Result<redb::WriteTransaction, ReadModelError> {
        let mut txn = self.db.begin_write()?;
        txn.set_quick_repair(true);
        Ok(txn)
    }

    /// The rows as they are now (one consistent version for the caller's reads).
    fn rows(&self) -> Result<View, ReadModelError> {
        // Both under the lock a flush takes to drop the rows it wrote: redb's version is then
        // the one before those rows were written or the one with them, never a later flush's
        // whose newer rows the pending ones would hide.
        let unflushed = lock(&self.unflushed);
        let table = self.db.begin_read()?.open_table(ROWS)?;
        Ok(View { table, pending: unflushed.all() })
    }

    fn get<T: DeserializeOwned>(&self, key: &[u8]) -> Result<Option<T>, ReadModelError> {
        get_row(&self.rows()?, key)
    }

    /// Decoded rows of a scan, newest first, at most [`SCAN_ROWS_MAX`].
    fn decoded<T: DeserializeOwned>(
        scan: Merged,
    ) -> impl Iterator<Item = Result<T, ReadModelError>> {
        scan.rev().take(SCAN_ROWS_MAX).map(|entry| decode_row(entry?.1.value()))
    }

    /// Rows under `prefix ++ owner`, newest first, filtered, paged.
    fn list<T: DeserializeOwned>(
        &self,
        scan: Merged,
        keep: impl Fn(&T) -> bool,
        page: Paging,
    ) -> Result<Page<T>, ReadModelError> {
        page_of(Self::decoded(scan), keep, page)
    }

    /// Every user's rows of one kind, newest first, through the `owner_prefix` index
    /// (id -> owner, in runs) that points at `row_prefix ++ owner ++ id`.
    fn list_all<T: DeserializeOwned>(
        &self,
        owner_prefix: u8,
        row_prefix: u8,
        keep: impl Fn(&T) -> bool,
        page: Paging,
    ) -> Result<Page<T>, ReadModelError> {
        let table = self.rows()?;
        let owned_newest_first = |entry: Result<(Value, Value), ReadModelError>| match entry {
            Ok((run, owners)) => {
                owned(run.value(), owners.value()).into_iter().rev().map(Ok).collect()
            }
            Err(error) => vec![Err(error)],
        };
        let rows = scan_prefix(&table, &[owner_prefix])?
            .rev()
            .flat_map(owned_newest_first)
            .take(SCAN_ROWS_MAX)
            .filter_map(|owned| {
                let lookup = || {
                    let (id, owner) = owned?;
                    get_row::<T>(&table, &key(row_prefix, owner, id))
                };
                lookup().transpose()
            });
        page_of(rows, keep, page)
    }

    fn user_scan(&self, prefix: u8, user: u32) -> Result<Merged, ReadModelError> {
        let mut start = [0u8; 5];
        start[0] = prefix;
        start[1..].copy_from_slice(&user.to_be_bytes());
        scan_prefix(&self.rows()?, &start)
    }
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

/// A row as stored: a MessagePack map, field names kept as in JSON (so that fields added or
/// left out read as they do there, and enums keep their wire names), but encoded and decoded
/// in about two thirds of the time and a quarter fewer bytes (BENCHMARKS.md, "The projector
/// alone").
fn encode_row<T: Serialize + ?Sized>(row: &T) -> Result<Vec<u8>, ReadModelError> {
    let mut bytes = Vec::with_capacity(256);
    encode_row_into(row, &mut bytes)?;
    Ok(bytes)
}

/// [`encode_row`] appending to `bytes`.
fn encode_row_into<T: Serialize + ?Sized>(
    row: &T,
    bytes: &mut Vec<u8>,
) -> Result<(), ReadModelError> {
    row.serialize(&mut rmp_serde::Serializer::new(bytes).with_struct_map())?;
    Ok(())
}

/// A row stored by [`encode_row`], or as JSON by an earlier version: a JSON object starts
/// with `{`, which is no MessagePack map's first byte.
fn decode_row<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ReadModelError> {
    if bytes.first() == Some(&b'{') {
        Ok(serde_json::from_slice(bytes)?)
    } else {
        Ok(rmp_serde::from_slice(bytes)?)
    }
}

/// A row decoded, if there is one under `key`.
fn get_row<T: DeserializeOwned>(view: &View, key: &[u8]) -> Result<Option<T>, ReadModelError> {
    match view.get(key)? {
        Some(bytes) => Ok(Some(decode_row(bytes.value())?)),
        None => Ok(None),
    }
}

/// Every row whose key starts with `prefix`, in key order.
fn scan_prefix(view: &View, prefix: &[u8]) -> Result<Merged, ReadModelError> {
    // The first key after the prefix's range: the prefix with its last byte below 0xff
    // raised by one and the rest dropped (none if it is all 0xff).
    let mut end = prefix.to_vec();
    while end.last() == Some(&0xff) {
        end.pop();
    }
    let end = match end.last_mut() {
        Some(last) => {
            *last += 1;
            Bound::Excluded(end.as_slice())
        }
        None => Bound::Unbounded,
    };
    view.range((Bound::Included(prefix), end))
}

/// A lock whose holder cannot leave its value half-changed (a panic there is a bug, and
/// the projector stops on it anyway).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
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

/// The (id, owner) pairs of an owner-index row (`prefix ++ first id` -> owners), in id order.
fn owned(run: &[u8], owners: &[u8]) -> Vec<(u64, u32)> {
    let first = u64_of(run.get(1..).unwrap_or_default());
    let owners = owners.chunks_exact(4).map(owner_of);
    (first..).zip(owners).collect()
}

/// The owner of contract `id`, from the index row whose run starts at or before it.
fn contract_owner(view: &View, id: u64) -> Result<Option<u32>, ReadModelError> {
    let start = global_key(CONTRACT_OWNER, id.saturating_sub(OWNER_RUN_MAX - 1));
    let end = global_key(CONTRACT_OWNER, id);
    let range = (Bound::Included(&start[..]), Bound::Included(&end[..]));
    let Some(entry) = view.range(range)?.next_back() else { return Ok(None) };
    let (run, owners) = entry?;
    Ok(owned(run.value(), owners.value())
        .into_iter()
        .find_map(|(at, owner)| (at == id).then_some(owner)))
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

#[cfg(test)]
mod tests {
    use engine::{Event, Events};
    use wal::EventBatch;

    use super::*;

    fn notice(index: u64, title: &str) -> EventBatch<Events> {
        let mut events = Events::new();
        events.push(Event::Notice {
            id: index,
            title: title.into(),
            body: format!("body {index}"),
            lang: String::new(),
        });
        EventBatch {
            first_index: index,
            last_index: index,
            time_ms: 1_700_000_000_000 + index,
            events,
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
    fn rows_are_read_before_they_are_flushed_over_the_flushed_ones_and_the_same_after() {
        let dir = tempfile::tempdir().unwrap();
        let model = ReadModel::open(dir.path()).unwrap();
        for index in 1..=4 {
            model.apply(&notice(index, &format!("n{index}"))).unwrap();
        }
        assert_eq!(model.flush().unwrap(), 4);
        // Pending rows among flushed ones, and a flushed row changed while pending.
        model.apply(&notice(5, "n5")).unwrap();
        let mut withdrawn = notice(6, "n6");
        withdrawn.events.push(Event::NoticeWithdrawn { notice: 2 });
        model.apply(&withdrawn).unwrap();
        let read = |model: &ReadModel| {
            let view = model.rows().unwrap();
            let forward: Vec<u64> = scan_prefix(&view, &[NOTICE])
                .unwrap()
                .map(|e| u64_of(&e.unwrap().0.value()[1..]))
                .collect();
            let mut backward: Vec<u64> = scan_prefix(&view, &[NOTICE])
                .unwrap()
                .rev()
                .map(|e| u64_of(&e.unwrap().0.value()[1..]))
                .collect();
            backward.reverse();
            assert_eq!(forward, backward, "either end gives the same rows");
            // From both ends at once, meeting in the middle.
            let mut scan = scan_prefix(&view, &[NOTICE]).unwrap();
            let mut ends = Vec::new();
            while let (Some(first), last) = (scan.next(), scan.next_back()) {
                ends.push(u64_of(&first.unwrap().0.value()[1..]));
                ends.extend(last.map(|e| u64_of(&e.unwrap().0.value()[1..])));
            }
            ends.sort_unstable();
            assert_eq!(ends, forward);
            let withdrawn = model.notice(2).unwrap().unwrap().withdrawn_at;
            (titles(model), forward, withdrawn.is_some(), model.applied_index())
        };
        let expected = (
            ["n6", "n5", "n4", "n3", "n2", "n1"].map(String::from).to_vec(),
            vec![1, 2, 3, 4, 5, 6],
            true,
            6,
        );
        assert_eq!(read(&model), expected, "pending");
        assert_eq!(model.flush().unwrap(), 6);
        assert_eq!(read(&model), expected, "flushed");
        drop(model);
        assert_eq!(read(&ReadModel::open(dir.path()).unwrap()), expected, "reopened");
    }

    #[test]
    fn rows_being_flushed_are_read_and_projection_goes_on_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let model = ReadModel::open(dir.path()).unwrap();
        model.apply(&notice(1, "one")).unwrap();
        assert_eq!(model.flush().unwrap(), 1);
        model.apply(&notice(2, "two")).unwrap();
        let (applied, rows) = model.freeze();
        assert_eq!(applied, 2, "the index the frozen rows reach");
        model.apply(&notice(3, "three")).unwrap(); // while the flush writes
        assert_eq!(model.applied_index(), 3);
        assert_eq!(titles(&model), ["three", "two", "one"], "being written");
        model.write(&rows).unwrap();
        assert_eq!(titles(&model), ["three", "two", "one"], "written, not let go");
        model.thaw();
        assert_eq!(titles(&model), ["three", "two", "one"], "written");
        drop(model);

        let model = ReadModel::open(dir.path()).unwrap();
        assert_eq!(model.applied_index(), 2, "what the flush froze, not what came after");
        assert_eq!(titles(&model), ["two", "one"]);
        model.apply(&notice(3, "three")).unwrap();
        let _ = model.freeze(); // a flush that fails leaves its rows to the next
        model.apply(&notice(4, "four")).unwrap();
        assert_eq!(model.flush().unwrap(), 4);
        drop(model);
        let model = ReadModel::open(dir.path()).unwrap();
        assert_eq!(model.applied_index(), 4);
        assert_eq!(titles(&model), ["four", "three", "two", "one"]);
    }

    #[test]
    fn rows_not_flushed_are_not_kept_and_come_again_from_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let model = ReadModel::open(dir.path()).unwrap();
        model.apply(&notice(1, "one")).unwrap();
        model.flush().unwrap();
        model.apply(&notice(2, "two")).unwrap();
        drop(model);
        let model = ReadModel::open(dir.path()).unwrap();
        assert_eq!(model.applied_index(), 1, "the pipeline hands over what follows");
        assert_eq!(titles(&model), ["one"]);
        model.apply(&notice(2, "two")).unwrap();
        assert_eq!(titles(&model), ["two", "one"]);
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
        model.flush().unwrap();
        drop(model);
        assert_eq!(titles(&ReadModel::open(dir.path()).unwrap()), ["new", "kept"]);
    }

    /// An engine whose every command's events the read model projects at once.
    struct Projected {
        engine: engine::Engine,
        model: ReadModel,
        index: u64,
        now: u64,
    }

    impl Projected {
        fn run(&mut self, command: engine::Command) -> (engine::Reply, Events) {
            let (mut replies, events) = self.run_batch(vec![command]);
            (replies.remove(0), events)
        }

        /// Applies `commands` as one batch, projected as one step.
        fn run_batch(&mut self, commands: Vec<engine::Command>) -> (Vec<engine::Reply>, Events) {
            let mut events = Events::new();
            let first_index = self.index + 1;
            let replies = commands
                .into_iter()
                .map(|command| {
                    self.index += 1;
                    let stamp = engine::Stamp { index: self.index, time_ms: self.now };
                    self.engine.apply(stamp, command, &mut events).expect("applied")
                })
                .collect();
            let (last_index, time_ms) = (self.index, self.now);
            let batch = EventBatch { first_index, last_index, time_ms, events };
            self.model.apply(&batch).unwrap();
            (replies, batch.events)
        }

        /// An admin, a funded house, BTCUSDT with a 60 s rule, and a user, on a Monday noon.
        fn market(model: ReadModel) -> (Projected, engine::types::UserId) {
            use engine::command::{AdminAction, Command};
            use engine::types::{AdminId, Category, MarketHours, Rule, Symbol};
            let mut p = Projected {
                engine: engine::Engine::new(),
                model,
                index: 0,
                now: 1_794_830_400_000,
            };
            let admin = |action| Command::Admin { admin: AdminId(1), action: Box::new(action) };
            p.run(Command::BootstrapAdmin { username: "root".into(), password_hash: "h".into() });
            p.run(admin(AdminAction::FundHouse { amount: 1_000_000.into() }));
            p.run(admin(AdminAction::UpsertProduct {
                symbol: Symbol::new("BTCUSDT").unwrap(),
                name: "Bitcoin".into(),
                category: Category::Crypto,
                precision: 2,
                enabled: true,
                hours: MarketHours::Always,
            }));
            p.run(admin(AdminAction::SetRule(Rule {
                duration_secs: 60,
                payout_rate: "0.85".parse().unwrap(),
                stake_min: 1.into(),
                stake_max: 5_000.into(),
                fee_rate: "0.01".parse().unwrap(),
                enabled: true,
            })));
            let user = p.register("alice");
            (p, user)
        }

        /// A trader named `name`, with an e-mail.
        fn register(&mut self, name: &str) -> engine::types::UserId {
            let register = engine::Command::Register(Box::new(engine::command::Register {
                username: name.into(),
                email: Some(format!("{name}@example.com")),
                password_hash: Some("h".into()),
                wallet: None,
                invite_code: None,
                email_verified: false,
            }));
            let (engine::Reply::Registered { user, .. }, _) = self.run(register) else { panic!() };
            user
        }
    }

    /// An order of 10 demo USDT on BTCUSDT going up in 60 s.
    fn demo_order(user: engine::types::UserId) -> engine::Command {
        engine::Command::PlaceOrder(engine::command::PlaceOrder {
            user,
            account: engine::types::AccountKind::Demo,
            symbol: engine::types::Symbol::new("BTCUSDT").unwrap(),
            direction: engine::types::Direction::Up,
            stake: 10.into(),
            duration_secs: 60,
        })
    }

    /// The contract an accepted order opened.
    fn accepted(reply: &engine::Reply) -> u64 {
        match reply {
            engine::Reply::OrderAccepted { contract, .. } => u64::from(*contract),
            other => panic!("not accepted: {other:?}"),
        }
    }

    /// A contract's row changes without being read back at its entry (kept since its
    /// acceptance) and at its settlement (written whole): it must be the row that reading it
    /// back and changing it would have made, and so must a row read back after a restart.
    #[test]
    fn a_contract_row_is_the_same_whether_kept_or_read_back() {
        use engine::command::Command;
        use engine::types::{Outcome, Symbol};

        let dir = tempfile::tempdir().unwrap();
        let (mut p, user) = Projected::market(ReadModel::open(dir.path()).unwrap());
        let btc = Symbol::new("BTCUSDT").unwrap();
        let tick =
            |price: u32| Command::Tick { symbol: btc, price: price.into(), quantity: 1.into() };
        p.run(tick(100));
        let order = |p: &mut Projected| accepted(&p.run(demo_order(user)).0);
        let id = order(&mut p);
        p.now += 1_000;
        p.run(tick(101));
        let entered = p.model.contract(id).unwrap().expect("row");
        assert_eq!(entered.status, ContractState::Open);

        // Accepted before a restart, entered after it: its row is read back.
        let before = order(&mut p);
        p.model.flush().unwrap();
        let Projected { engine, model, index, now } = p;
        drop(model);
        let mut p = Projected { engine, model: ReadModel::open(dir.path()).unwrap(), index, now };
        p.run(tick(101));
        let read_back = p.model.contract(before).unwrap().expect("row");
        assert_eq!(read_back.status, ContractState::Open);
        let tick_row = TickRow { price: 101.into(), time: p.now, sequence: p.index };
        assert_eq!((read_back.entry, read_back.expiry_at), (Some(tick_row), Some(p.now + 60_000)));

        p.now += 58_000;
        p.run(tick(102));
        p.now += 3_000;
        let (_, events) = p.run(tick(103));
        let settled = events.settlements().next().expect("settled at this tick");
        let mut expected = entered;
        expected.settled(&settled);
        let row = p.model.contract(id).unwrap();
        assert_eq!(row, Some(expected));
        assert_eq!(row.unwrap().outcome, Some(Outcome::Win));
    }

    /// The contracts of one step share an owner-index row; contracts of steps of their own
    /// have rows of one owner (the format before runs): both are found by id, in the
    /// back-office's list and after an id, before and after the flush.
    #[test]
    fn contracts_are_found_through_owner_rows_of_one_or_of_a_run() {
        use engine::command::Command;
        use engine::types::Symbol;

        let dir = tempfile::tempdir().unwrap();
        let (mut p, alice) = Projected::market(ReadModel::open(dir.path()).unwrap());
        let bob = p.register("bob");
        let btc = Symbol::new("BTCUSDT").unwrap();
        p.run(Command::Tick { symbol: btc, price: 100.into(), quantity: 1.into() });
        let order = demo_order;
        let mut placed = vec![(accepted(&p.run(order(alice)).0), alice)];
        let (replies, _) = p.run_batch(vec![order(alice), order(bob), order(alice)]);
        placed.extend(replies.iter().map(accepted).zip([alice, bob, alice]));
        placed.push((accepted(&p.run(order(bob)).0), bob));
        let ids: Vec<u64> = placed.iter().map(|(id, _)| *id).collect();
        assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "sequential ids: {ids:?}");

        let check = |model: &ReadModel| {
            let table = model.rows().unwrap();
            let runs = scan_prefix(&table, &[CONTRACT_OWNER]).unwrap().count();
            assert_eq!(runs, 3, "one row for the batch's three contracts, one for each other");
            for (id, user) in &placed {
                let row = model.contract(*id).unwrap().expect("found by id");
                assert_eq!((row.id, row.user), (*id, u32::from(*user)));
            }
            assert_eq!(model.contract(ids[4] + 1).unwrap(), None);
            let all = model.all_contracts(|_| true, Paging { page: 1, size: 50 }).unwrap();
            let newest_first: Vec<u64> = ids.iter().rev().copied().collect();
            assert_eq!(all.items.iter().map(|r| r.id).collect::<Vec<_>>(), newest_first);
            for after in ids[0] - 1..=ids[4] {
                let rows = model.contracts_after(after, 50, |_| true).unwrap();
                let expected: Vec<u64> = ids.iter().copied().filter(|id| *id > after).collect();
                assert_eq!(
                    rows.iter().map(|r| r.id).collect::<Vec<_>>(),
                    expected,
                    "after {after}"
                );
            }
            let two = model.contracts_after(ids[0], 2, |_| true).unwrap();
            assert_eq!(two.iter().map(|r| r.id).collect::<Vec<_>>(), ids[1..3]);
        };
        check(&p.model);
        p.model.flush().unwrap();
        check(&p.model);
    }

    #[test]
    fn an_owner_row_holds_one_owner_per_id_from_its_first() {
        let owners: Vec<u8> = [7u32, 8, 9].iter().flat_map(|o| o.to_be_bytes()).collect();
        assert_eq!(owned(&global_key(CONTRACT_OWNER, 40), &owners), [(40, 7), (41, 8), (42, 9)]);
        assert_eq!(owned(&global_key(ORDER_OWNER, 5), &3u32.to_be_bytes()), [(5, 3)]);
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
