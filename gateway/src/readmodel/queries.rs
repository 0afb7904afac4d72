//! What the API reads: lists (newest first, filtered, paged within a bounded scan) and
//! lookups.

use rust_decimal::Decimal;

use super::rows::{
    AlertRow, AuditRow, BillRow, ContractRow, CopyNoteRow, DayRow, HourRow, LoginRow, NoticeRow,
    OrderRow, SecurityRow, Totals,
};
use super::*;
use crate::names::WireName;
use engine::types::{AccountKind, BillType};

impl ReadModel {
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

    /// One account's statement over a range of times (either end open): the balance before
    /// the range and at its end, and the count and sums per type of the bills within it. One
    /// scan, newest first, that stops at the first bill before the range; no row bound.
    pub fn statement(
        &self,
        user: u32,
        account: AccountKind,
        start: Option<u64>,
        end: Option<u64>,
    ) -> Result<Statement, ReadModelError> {
        let before = |row: &BillRow| row.total.map(|total| total - row.amount);
        let mut statement = Statement { opening: None, closing: None, count: 0, sums: bill_sums() };
        // The oldest bill seen so far after the range, and in it: their balances before them
        // are the balances at the range's end and start when nothing older is found.
        let (mut after_end, mut oldest_within): (Option<BillRow>, Option<BillRow>) = (None, None);
        let mut closed = false;
        for row in self.user_scan(BILL, user)?.rev() {
            let row: BillRow = decode_row(row?.1.value())?;
            if row.account != account {
                continue;
            }
            if end.is_some_and(|e| row.time > e) {
                after_end = Some(row);
                continue;
            }
            if !closed {
                statement.closing = row.total;
                closed = true;
            }
            if start.is_some_and(|s| row.time < s) {
                statement.opening = row.total;
                return Ok(statement);
            }
            statement.count += 1;
            add_to_sums(&mut statement.sums, &row);
            oldest_within = Some(row);
        }
        if !closed {
            statement.closing = after_end.as_ref().and_then(before);
        }
        statement.opening = oldest_within.or(after_end).as_ref().and_then(before);
        Ok(statement)
    }

    /// A user's bills with an id above `after`, oldest first, at most `limit`: an export
    /// reads a whole history this way, one short read transaction per batch.
    pub fn bills_after(
        &self,
        user: u32,
        after: u64,
        limit: usize,
    ) -> Result<Vec<BillRow>, ReadModelError> {
        self.user_rows_after(BILL, user, after, limit)
    }

    /// A user's contracts with an id above `after`, oldest first, at most `limit` (exports).
    pub fn user_contracts_after(
        &self,
        user: u32,
        after: u64,
        limit: usize,
    ) -> Result<Vec<ContractRow>, ReadModelError> {
        self.user_rows_after(CONTRACT, user, after, limit)
    }

    fn user_rows_after<T: serde::de::DeserializeOwned>(
        &self,
        prefix: u8,
        user: u32,
        after: u64,
        limit: usize,
    ) -> Result<Vec<T>, ReadModelError> {
        let Some(first) = after.checked_add(1) else { return Ok(Vec::new()) };
        let (start, end) = (key(prefix, user, first), key(prefix, user, u64::MAX));
        let table = self.rows()?;
        let rows =
            table.range((Bound::Included(&start[..]), Bound::Included(&end[..])))?.take(limit);
        rows.map(|entry| decode_row(entry?.1.value())).collect()
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
        let Some(owner) = contract_owner(&table, id)? else { return Ok(None) };
        get_row(&table, &key(CONTRACT, owner, id))
    }

    /// Contracts with an id above `after_id` that `keep` accepts, oldest first, at most `limit`
    /// (looking at most at [`SCAN_ROWS_MAX`] contracts): settled contracts for public proofs.
    pub fn contracts_after(
        &self,
        after_id: u64,
        limit: usize,
        keep: impl Fn(&ContractRow) -> bool,
    ) -> Result<Vec<ContractRow>, ReadModelError> {
        let Some(first) = after_id.checked_add(1) else { return Ok(Vec::new()) };
        // From the run that may hold `first`: a run covers at most OWNER_RUN_MAX ids.
        let start = global_key(CONTRACT_OWNER, first.saturating_sub(OWNER_RUN_MAX - 1));
        let end = global_key(CONTRACT_OWNER, u64::MAX);
        let table = self.rows()?;
        let (mut rows, mut looked) = (Vec::new(), 0);
        for entry in table.range((Bound::Included(&start[..]), Bound::Included(&end[..])))? {
            let (run, owners) = entry?;
            for (id, owner) in owned(run.value(), owners.value()) {
                if id < first {
                    continue;
                }
                if looked >= SCAN_ROWS_MAX || rows.len() >= limit {
                    return Ok(rows);
                }
                looked += 1;
                if let Some(row) = get_row::<ContractRow>(&table, &key(CONTRACT, owner, id))? {
                    if keep(&row) {
                        rows.push(row);
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

    /// What copy trading told a user, newest first.
    pub fn copy_notes(&self, user: u32, page: Paging) -> Result<Page<CopyNoteRow>, ReadModelError> {
        self.list(self.user_scan(COPY_NOTE, user)?, |_| true, page)
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

    /// A trader's real results settled in each of `windows` (ms since the epoch, from
    /// inclusive, to exclusive), counted by whole hours: an hour is in a window when it
    /// starts inside it. One scan over the trader's hours from the earliest window's start.
    pub fn trader_results(
        &self,
        user: u32,
        windows: &[(u64, u64)],
    ) -> Result<Vec<HourRow>, ReadModelError> {
        let mut sums = vec![HourRow::default(); windows.len()];
        let Some(from) = windows.iter().map(|w| w.0).min() else { return Ok(sums) };
        let first_hour = from.div_ceil(HOUR_MS);
        let (start, end) = (key(TRADER_HOUR, user, first_hour), key(TRADER_HOUR, user, u64::MAX));
        for entry in self.rows()?.range((Bound::Included(&start[..]), Bound::Included(&end[..])))? {
            let (k, v) = entry?;
            let hour_ms = u64_of(&k.value()[5..]) * HOUR_MS;
            let row: HourRow = decode_row(v.value())?;
            for (sum, (from, to)) in sums.iter_mut().zip(windows) {
                if (*from..*to).contains(&hour_ms) {
                    *sum = sum.plus(row);
                }
            }
        }
        Ok(sums)
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
}

/// The sum of bills per type, every type listed.
pub type BillSums = Vec<(BillType, Decimal)>;

/// One account's statement over a range ([`ReadModel::statement`]). Balances are none when
/// the account has no bill at all (the wallet's balance then holds for every time) or the
/// bill they come from was kept without its balance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The balance just before the range.
    pub opening: Option<Decimal>,
    /// The balance at the range's end.
    pub closing: Option<Decimal>,
    /// Bills within the range.
    pub count: u64,
    /// Their sum per type.
    pub sums: BillSums,
}

/// A zero sum for every bill type.
fn bill_sums() -> BillSums {
    BillType::ALL.iter().map(|t| (*t, Decimal::ZERO)).collect()
}

fn add_to_sums(sums: &mut [(BillType, Decimal)], row: &BillRow) {
    if let Some(sum) = sums.iter_mut().find(|(t, _)| *t == row.bill_type) {
        sum.1 += row.amount;
    }
}
