//! A read model written by an older version (sled, then redb) moved into the store, once.

use std::path::Path;

use redb::{ReadableDatabase, ReadableTable};

use super::*;

/// Moves a read model written by an older version into the store at `path`: the rows of a
/// sled database in `dir`, or of the redb file `dir/history.redb`, are copied into a
/// temporary directory that is renamed into place when complete, so that an interrupted move
/// starts again; the old files are removed afterwards.
pub(super) fn migrate(dir: &Path, path: &Path) -> Result<(), ReadModelError> {
    // sled's database: a `conf` and a `db` file (and `blobs/`, `snap.*`).
    let sled = dir.join("conf").exists() && dir.join("db").exists();
    let redb_file = dir.join(REDB_FILE);
    if !path.exists() {
        if sled {
            let sled_db = wal::open_db(dir, 64 << 20)?;
            let tree = sled_db.open_tree(SLED_TREE)?;
            let rows = tree.iter().map(|row| {
                let (key, value) = row?;
                Ok((key.to_vec(), value.to_vec()))
            });
            copy_into(dir, path, rows, "sled")?;
        } else if redb_file.exists() {
            let db = redb::Database::open(&redb_file)?;
            let txn = db.begin_read()?;
            let table = txn.open_table(REDB_ROWS)?;
            let rows = table.iter()?.map(|row| {
                let (key, value) = row?;
                Ok((key.value().to_vec(), value.value().to_vec()))
            });
            copy_into(dir, path, rows, "redb")?;
        }
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == "conf" || name == "db" || name.starts_with("snap.") || name == REDB_FILE {
            std::fs::remove_file(entry.path())?;
        } else if name == "blobs" {
            std::fs::remove_dir_all(entry.path())?;
        }
    }
    Ok(())
}

/// Copies `rows` into a new store renamed to `path` when complete.
fn copy_into(
    dir: &Path,
    path: &Path,
    rows: impl Iterator<Item = Result<(Vec<u8>, Vec<u8>), ReadModelError>>,
    from: &str,
) -> Result<(), ReadModelError> {
    let partial = dir.join(format!("{STORE}.partial"));
    if partial.exists() {
        std::fs::remove_dir_all(&partial)?;
    }
    let db = open_store(&partial)?;
    let keyspace = open_rows(&db)?;
    let mut rows = rows.peekable();
    let mut copied = 0usize;
    while rows.peek().is_some() {
        let mut batch = db.batch();
        for row in rows.by_ref().take(MIGRATE_CHUNK_ROWS) {
            let (key, value) = row?;
            batch.insert(&keyspace, key, value);
            copied += 1;
        }
        batch.commit()?;
    }
    db.persist(fjall::PersistMode::SyncAll)?;
    drop(keyspace);
    drop(db);
    std::fs::rename(&partial, path)?;
    tracing::info!(rows = copied, from, "read model moved over to the store");
    Ok(())
}
