//! A user's own history as CSV files: the money movements (the transaction history's bills)
//! and the contract records, each with the filters of its screen. Rows go out oldest first,
//! read from the read model a batch at a time (one short read transaction each, off the
//! async threads) and sent as they are written, so a year of heavy trading streams in
//! constant memory and no row limit applies.
//!
//! Columns have stable English names and values are machine-readable (decimal strings with a
//! point, times in RFC 3339 UTC, the API's wire names), so that spreadsheets and bookkeeping
//! tools read them the same in every language.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use engine::types::AccountKind;
use tokio::sync::OwnedSemaphorePermit;

use super::{ApiError, AppState};
use crate::names::WireName;
use crate::readmodel::{BillRow, ContractRow, ContractState, ReadModel, ReadModelError};

/// Rows read and written per step of an export.
pub const EXPORT_BATCH_ROWS: usize = 1_000;

/// What an export does with a row, in id order (which is time order).
pub(super) enum Take {
    Row,
    Skip,
    /// This row and every later one are past the range.
    Stop,
}

/// One kind of exported row.
pub(super) trait Exported: Sized + Send + 'static {
    /// The column names.
    const HEADER: &'static [&'static str];
    /// The file's name starts with this.
    const NAME: &'static str;
    fn id(&self) -> u64;
    /// Up to `limit` of `user`'s rows after `after`, oldest first.
    fn read(
        model: &ReadModel,
        user: u32,
        after: u64,
        limit: usize,
    ) -> Result<Vec<Self>, ReadModelError>;
    fn record(&self) -> Vec<String>;
}

/// Admits one export for `user`: a few per minute per account, and a bound on exports at
/// once for the whole server (the permit lives as long as the download).
pub(super) fn admit(state: &AppState, user: u32) -> Result<OwnedSemaphorePermit, ApiError> {
    state.throttles.export_user.take(&user.to_string())?;
    state.throttles.exports.clone().try_acquire_owned().map_err(|_| ApiError::busy())
}

/// The download: `user`'s rows that `take` keeps, as a CSV body written batch by batch.
pub(super) fn csv_download<T: Exported>(
    model: ReadModel,
    user: u32,
    account: Option<AccountKind>,
    permit: OwnedSemaphorePermit,
    take: impl Fn(&T) -> Take + Send + Sync + 'static,
) -> Response {
    let take = Arc::new(take);
    let start = Cursor { after: 0, header: true, done: false, _permit: permit };
    let chunks = futures_util::stream::try_unfold(start, move |cursor| {
        let (model, take) = (model.clone(), take.clone());
        async move {
            if cursor.done {
                return Ok(None);
            }
            let (after, header) = (cursor.after, cursor.header);
            let step = tokio::task::spawn_blocking(move || {
                batch::<T>(&model, user, after, header, &*take)
            })
            .await
            .map_err(std::io::Error::other)?;
            let (bytes, last, done) = step.inspect_err(|error| {
                tracing::error!(%error, user, "an export stopped: the read model failed");
            })?;
            Ok::<_, ExportError>(Some((
                bytes,
                Cursor { after: last, header: false, done, ..cursor },
            )))
        }
    });
    let file = match account {
        Some(account) => format!("{}-{}.csv", T::NAME, account.wire_name()),
        None => format!("{}.csv", T::NAME),
    };
    let disposition = format!("attachment; filename=\"{file}\"");
    let mut response = Body::from_stream(chunks).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/csv; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

type ExportError = Box<dyn std::error::Error + Send + Sync>;

/// Where an export stands: the last id sent, and the download's admission.
struct Cursor {
    after: u64,
    header: bool,
    done: bool,
    _permit: OwnedSemaphorePermit,
}

/// One batch of rows as CSV bytes, the last id read, and whether the export is complete.
fn batch<T: Exported>(
    model: &ReadModel,
    user: u32,
    after: u64,
    header: bool,
    take: &(impl Fn(&T) -> Take + ?Sized),
) -> Result<(Bytes, u64, bool), ExportError> {
    let rows = T::read(model, user, after, EXPORT_BATCH_ROWS)?;
    let mut done = rows.len() < EXPORT_BATCH_ROWS;
    let mut out = csv::Writer::from_writer(Vec::with_capacity(rows.len() * 128 + 256));
    if header {
        out.write_record(T::HEADER)?;
    }
    let mut last = after;
    for row in &rows {
        last = row.id();
        match take(row) {
            Take::Row => out.write_record(row.record())?,
            Take::Skip => {}
            Take::Stop => {
                done = true;
                break;
            }
        }
    }
    Ok((Bytes::from(out.into_inner().map_err(|error| error.into_error())?), last, done))
}

/// A time in ms since the epoch as RFC 3339 UTC with milliseconds.
fn iso(ms: u64) -> String {
    let nanos = i128::from(ms) * 1_000_000;
    time::OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok())
        .unwrap_or_default()
}

/// The UTC day of a time in ms since the epoch, `YYYY-MM-DD`.
pub(super) fn day(ms: u64) -> String {
    iso(ms).get(..10).unwrap_or_default().to_owned()
}

/// The UTC minute of a time in ms since the epoch, `YYYY-MM-DD HH:MM`.
pub(super) fn minute(ms: u64) -> String {
    iso(ms).get(..16).unwrap_or_default().replace('T', " ")
}

fn text<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

impl Exported for BillRow {
    const HEADER: &'static [&'static str] = &[
        "id",
        "time",
        "account",
        "type",
        "amount",
        "balance_after",
        "available_after",
        "reference",
    ];
    const NAME: &'static str = "transactions";

    fn id(&self) -> u64 {
        self.id
    }

    fn read(
        model: &ReadModel,
        user: u32,
        after: u64,
        limit: usize,
    ) -> Result<Vec<Self>, ReadModelError> {
        model.bills_after(user, after, limit)
    }

    fn record(&self) -> Vec<String> {
        vec![
            self.id.to_string(),
            iso(self.time),
            self.account.wire_name().to_owned(),
            self.bill_type.wire_name().to_owned(),
            self.amount.to_string(),
            text(self.total),
            self.balance.to_string(),
            self.reference.to_string(),
        ]
    }
}

impl Exported for ContractRow {
    const HEADER: &'static [&'static str] = &[
        "id",
        "account",
        "symbol",
        "direction",
        "stake",
        "fee",
        "payout_rate",
        "duration_s",
        "accepted_at",
        "entry_price",
        "entry_time",
        "expiry_at",
        "exit_price",
        "exit_time",
        "status",
        "outcome",
        "credited",
        "profit",
        "settled_at",
    ];
    const NAME: &'static str = "contracts";

    fn id(&self) -> u64 {
        self.id
    }

    fn read(
        model: &ReadModel,
        user: u32,
        after: u64,
        limit: usize,
    ) -> Result<Vec<Self>, ReadModelError> {
        model.user_contracts_after(user, after, limit)
    }

    fn record(&self) -> Vec<String> {
        let status = match self.status {
            ContractState::WaitingEntry => "waiting_entry",
            ContractState::Open => "open",
            ContractState::Settled => "settled",
            ContractState::Void => "void",
        };
        vec![
            self.id.to_string(),
            self.account.wire_name().to_owned(),
            self.symbol.clone(),
            self.direction.wire_name().to_owned(),
            self.stake.to_string(),
            self.fee.to_string(),
            self.payout_rate.to_string(),
            self.duration.to_string(),
            iso(self.accepted_at),
            text(self.entry.map(|t| t.price)),
            self.entry.map(|t| iso(t.time)).unwrap_or_default(),
            self.expiry_at.map(iso).unwrap_or_default(),
            text(self.exit.map(|t| t.price)),
            self.exit.map(|t| iso(t.time)).unwrap_or_default(),
            status.to_owned(),
            self.outcome.map(|o| o.wire_name().to_owned()).unwrap_or_default(),
            text(self.credited),
            text(self.profit),
            self.settled_at.map(iso).unwrap_or_default(),
        ]
    }
}
