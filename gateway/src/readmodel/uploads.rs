//! The upload index (who may see a file) and each user's upload quota. Written by the
//! gateway, not by events: files are not engine state.

use super::rows::UploadRow;
use super::*;

impl ReadModel {
    /// Records an upload (written by the gateway, not by events: files are not engine state).
    pub fn put_upload(&self, name: &str, row: &UploadRow) -> Result<(), ReadModelError> {
        let mut k = vec![UPLOAD];
        k.extend_from_slice(name.as_bytes());
        let txn = self.begin_durable()?; // the file is already on disk
        txn.open_table(ROWS)?.insert(k.as_slice(), encode_row(row)?.as_slice())?;
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
