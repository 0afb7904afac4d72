//! Rows projected and not yet written to redb, and the view readers see: those rows over
//! redb's last commit.
//!
//! Why: every projection step written to redb as a transaction of its own copies a page per
//! trader touched (rows are keyed by trader), so an order's five or six rows cost five or six
//! page copies. Written once a second or so, the same pages take a whole window's rows, and
//! a contract row rewritten at entry is written once (BENCHMARKS.md, "Websockets"). Readers
//! must not wait for that: they see the pending rows at once, so reading one's own writes is
//! as quick as before.
//!
//! Pending rows are immutable sorted runs, newest last, shared by the writer and readers. A
//! step adds one run; runs of similar size are merged up to [`RUN_ROWS_MAX`] rows, so a
//! window of `n` rows is held in about `n / RUN_ROWS_MAX + log2(RUN_ROWS_MAX)` runs, and each
//! row is copied (two reference counts) a dozen times at most. Runs stay small because
//! merging into fresh multi-megabyte vectors had the kernel zeroing new pages for most of the
//! projector's time.

use std::cmp::Ordering;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::ops::Bound;
use std::sync::Arc;

use bytes::Bytes;

use super::{ReadModelError, Rows, RowsTable};

/// Rows a merge may make one run of.
const RUN_ROWS_MAX: usize = 4_096;

/// A row: its key and its stored bytes.
pub(super) type Entry = (Bytes, Bytes);

/// Rows not yet in redb's last commit (projected since a flush began, or being flushed), in
/// sorted runs, newest last.
#[derive(Debug, Default)]
pub(super) struct Pending {
    runs: Vec<Arc<[Entry]>>,
    /// Rows in all runs (a key in two runs not merged yet counts twice).
    rows: usize,
}

impl Pending {
    pub(super) fn rows(&self) -> usize {
        self.rows
    }

    /// The newest version of `key`.
    pub(super) fn get(&self, key: &[u8]) -> Option<&Bytes> {
        self.runs.iter().rev().find_map(|run| {
            run.binary_search_by(|(k, _)| k.as_ref().cmp(key)).ok().map(|at| &run[at].1)
        })
    }

    /// These rows and then `run` (sorted by key, each key once), merging runs of similar
    /// size.
    pub(super) fn with(&self, run: Vec<Entry>) -> Pending {
        let mut runs = self.runs.clone();
        if !run.is_empty() {
            runs.push(run.into());
        }
        while let [.., older, newer] = runs.as_slice() {
            if older.len() > 2 * newer.len() || older.len() + newer.len() > RUN_ROWS_MAX {
                break;
            }
            let merged = merge(older, newer);
            runs.truncate(runs.len() - 2);
            runs.push(merged.into());
        }
        let rows = runs.iter().map(|r| r.len()).sum();
        Pending { runs, rows }
    }

    /// These rows and then `newer`'s, as they are (no merge).
    pub(super) fn then(&self, newer: &Pending) -> Pending {
        let runs = self.runs.iter().chain(&newer.runs).cloned().collect();
        Pending { runs, rows: self.rows + newer.rows }
    }

    /// The newest version of every key in `range`, in key order.
    pub(super) fn range(&self, range: (Bound<&[u8]>, Bound<&[u8]>)) -> VecDeque<Entry> {
        let mut newest: BTreeMap<Bytes, Bytes> = BTreeMap::new();
        for run in &self.runs {
            let start = match range.0 {
                Bound::Included(k) => run.partition_point(|(key, _)| key.as_ref() < k),
                Bound::Excluded(k) => run.partition_point(|(key, _)| key.as_ref() <= k),
                Bound::Unbounded => 0,
            };
            let end = match range.1 {
                Bound::Included(k) => run.partition_point(|(key, _)| key.as_ref() <= k),
                Bound::Excluded(k) => run.partition_point(|(key, _)| key.as_ref() < k),
                Bound::Unbounded => run.len(),
            };
            for (key, value) in &run[start..end.max(start)] {
                newest.insert(key.clone(), value.clone());
            }
        }
        newest.into_iter().collect()
    }

    /// Calls `write` with the newest version of every key, in key order.
    pub(super) fn for_each<E>(
        &self,
        mut write: impl FnMut(&[u8], &[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        // The runs' next rows by key, and for one key the newest run's first.
        let mut next: BinaryHeap<Cursor<'_>> = (self.runs.iter())
            .enumerate()
            .filter_map(|(run, rows)| {
                rows.first().map(|row| Reverse((&row.0[..], Reverse(run), 0)))
            })
            .collect();
        let mut last: Option<&[u8]> = None;
        while let Some(Reverse((key, Reverse(run), at))) = next.pop() {
            let rows = &self.runs[run];
            if last != Some(key) {
                write(key, &rows[at].1)?;
                last = Some(key);
            }
            if let Some(row) = rows.get(at + 1) {
                next.push(Reverse((&row.0[..], Reverse(run), at + 1)));
            }
        }
        Ok(())
    }
}

/// A run's next row in a merge, ordered by its key and then newest run first: the key, the
/// run (reversed) and the row's place in it.
type Cursor<'a> = Reverse<(&'a [u8], Reverse<usize>, usize)>;

/// Two sorted runs as one; `newer`'s version of a key in both wins.
fn merge(older: &[Entry], newer: &[Entry]) -> Vec<Entry> {
    let mut out = Vec::with_capacity(older.len() + newer.len());
    let (mut a, mut b) = (older.iter().peekable(), newer.iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (None, None) => break,
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (Some(x), Some(y)) => match x.0.cmp(&y.0) {
                Ordering::Less => a.next(),
                Ordering::Greater => b.next(),
                Ordering::Equal => {
                    a.next();
                    b.next()
                }
            },
        };
        out.extend(next.cloned());
    }
    out
}

/// A key or a value as a reader gets it: from redb or from the pending rows.
pub(super) enum Value {
    Stored(redb::AccessGuard<'static, &'static [u8]>),
    Pending(Bytes),
}

impl Value {
    pub(super) fn value(&self) -> &[u8] {
        match self {
            Value::Stored(guard) => guard.value(),
            Value::Pending(bytes) => bytes,
        }
    }
}

/// One consistent version of the rows: the pending ones over redb's last commit.
pub(super) struct View {
    pub(super) table: RowsTable,
    pub(super) pending: Arc<Pending>,
}

impl View {
    pub(super) fn get(&self, key: &[u8]) -> Result<Option<Value>, ReadModelError> {
        if let Some(bytes) = self.pending.get(key) {
            return Ok(Some(Value::Pending(bytes.clone())));
        }
        Ok(self.table.get(key)?.map(Value::Stored))
    }

    /// The rows in `range`, in key order (reversible).
    pub(super) fn range(
        &self,
        range: (Bound<&[u8]>, Bound<&[u8]>),
    ) -> Result<Merged, ReadModelError> {
        Ok(Merged {
            stored: self.table.range::<&[u8]>(range)?,
            pending: self.pending.range(range),
            front: None,
            back: None,
        })
    }
}

/// The rows of a range from redb and from the pending rows, in key order from either end;
/// a pending row hides redb's row of the same key.
pub(super) struct Merged {
    stored: Rows,
    pending: VecDeque<Entry>,
    /// redb's rows taken from either end and not yet given out.
    front: Option<(Value, Value)>,
    back: Option<(Value, Value)>,
}

type Item = Result<(Value, Value), ReadModelError>;

fn stored(entry: Option<Result<StoredEntry, redb::StorageError>>) -> Option<Item> {
    entry.map(|entry| {
        let (key, value) = entry?;
        Ok((Value::Stored(key), Value::Stored(value)))
    })
}

type StoredEntry =
    (redb::AccessGuard<'static, &'static [u8]>, redb::AccessGuard<'static, &'static [u8]>);

fn pending((key, value): Entry) -> Item {
    Ok((Value::Pending(key), Value::Pending(value)))
}

impl Iterator for Merged {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        if self.front.is_none() {
            // Once redb's side is used up from the front, its last row may wait at the back.
            match stored(self.stored.next()) {
                Some(Ok(row)) => self.front = Some(row),
                Some(Err(error)) => return Some(Err(error)),
                None => self.front = self.back.take(),
            }
        }
        let order = match (&self.front, self.pending.front()) {
            (None, None) => return None,
            (Some(_), None) => Ordering::Greater,
            (None, Some(_)) => Ordering::Less,
            (Some((key, _)), Some((pending_key, _))) => pending_key.as_ref().cmp(key.value()),
        };
        if order == Ordering::Greater {
            return self.front.take().map(Ok);
        }
        if order == Ordering::Equal {
            self.front = None;
        }
        self.pending.pop_front().map(pending)
    }
}

impl DoubleEndedIterator for Merged {
    fn next_back(&mut self) -> Option<Item> {
        if self.back.is_none() {
            match stored(self.stored.next_back()) {
                Some(Ok(row)) => self.back = Some(row),
                Some(Err(error)) => return Some(Err(error)),
                None => self.back = self.front.take(),
            }
        }
        let order = match (&self.back, self.pending.back()) {
            (None, None) => return None,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((key, _)), Some((pending_key, _))) => pending_key.as_ref().cmp(key.value()),
        };
        if order == Ordering::Less {
            return self.back.take().map(Ok);
        }
        if order == Ordering::Equal {
            self.back = None;
        }
        self.pending.pop_back().map(pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(rows: &[(&str, &str)]) -> Vec<Entry> {
        let mut run: Vec<Entry> = rows
            .iter()
            .map(|(k, v)| {
                (Bytes::copy_from_slice(k.as_bytes()), Bytes::copy_from_slice(v.as_bytes()))
            })
            .collect();
        run.sort();
        run
    }

    fn text(bytes: &[u8]) -> String {
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[test]
    fn the_newest_version_of_a_key_wins_however_the_runs_were_merged() {
        let mut pending = Pending::default();
        for step in 0..40u32 {
            // Each step rewrites "a" and "m", and adds a key of its own.
            let own = format!("k{step:03}");
            let value = step.to_string();
            pending = pending.with(run(&[("a", &value), ("m", &value), (&own, &value)]));
        }
        assert!(pending.runs.len() <= 8, "runs are merged: {}", pending.runs.len());
        assert_eq!(pending.get(b"a").map(|v| text(v)), Some("39".into()));
        assert_eq!(pending.get(b"k007").map(|v| text(v)), Some("7".into()));
        assert_eq!(pending.get(b"z"), None);
        let mut all = Vec::new();
        pending
            .for_each(|k, v| {
                all.push((Bytes::copy_from_slice(k), Bytes::copy_from_slice(v)));
                Ok::<_, ()>(())
            })
            .unwrap();
        assert_eq!(all.len(), 42, "each key once");
        assert!(all.iter().zip(all.iter().skip(1)).all(|(x, y)| x.0 < y.0), "in key order");
        assert_eq!(all, Vec::from(pending.range((Bound::Unbounded, Bound::Unbounded))));
        let range = pending.range((Bound::Included(&b"k010"[..]), Bound::Excluded(&b"k013"[..])));
        let keys: Vec<String> = range.iter().map(|(k, _)| text(k)).collect();
        assert_eq!(keys, ["k010", "k011", "k012"]);
        assert_eq!(text(&pending.get(b"m").unwrap()[..]), "39");
    }

    #[test]
    fn runs_stay_small_and_few_over_a_large_window() {
        let mut pending = Pending::default();
        for step in 0..100u32 {
            let rows: Vec<(String, String)> =
                (0..200).map(|i| (format!("{i:03}-{step:03}"), step.to_string())).collect();
            let rows: Vec<(&str, &str)> = rows.iter().map(|(k, v)| (&k[..], &v[..])).collect();
            pending = pending.with(run(&rows));
        }
        assert_eq!(pending.rows(), 20_000);
        assert!(pending.runs.iter().all(|r| r.len() <= RUN_ROWS_MAX));
        assert!(pending.runs.len() <= 20, "{} runs", pending.runs.len());
        let mut keys = Vec::new();
        pending
            .for_each(|k, _| {
                keys.push(text(k));
                Ok::<_, ()>(())
            })
            .unwrap();
        assert_eq!(keys.len(), 20_000);
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
    }
}
