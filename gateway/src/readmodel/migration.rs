//! A read model written by an older version (sled) moved into redb, once.

use std::path::Path;

use super::*;

/// Moves a read model written by an older version (a sled database in `dir`) into the redb
/// file at `path`: copied into a temporary file that is renamed into place when complete,
/// so that an interrupted move starts again; sled's files are removed afterwards.
pub(super) fn migrate_from_sled(dir: &Path, path: &Path) -> Result<(), ReadModelError> {
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
