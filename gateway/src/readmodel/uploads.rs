//! The upload index (who may see a file) and each user's upload quota. Written by the
//! gateway, not by events: files are not engine state.

use super::rows::UploadRow;
use super::*;

impl ReadModel {
    /// Records an upload (written by the gateway, not by events: files are not engine state).
    pub fn put_upload(&self, name: &str, row: &UploadRow) -> Result<(), ReadModelError> {
        let mut k = vec![UPLOAD];
        k.extend_from_slice(name.as_bytes());
        self.rows.insert(k, serde_json::to_vec(row)?)?;
        // The file is already on disk: its index entry is made durable with it.
        self.db.persist(fjall::PersistMode::SyncData)?;
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

    /// Reads and changes `owner`'s upload usage (files, bytes) while holding the usage lock
    /// (writers take turns, so two uploads cannot both take the last place); `change` returns
    /// the new usage, or `None` to leave it. True if changed. Made durable with the next flush.
    fn change_upload_usage(
        &self,
        owner: u32,
        change: impl FnOnce(u64, u64) -> Option<(u64, u64)>,
    ) -> Result<bool, ReadModelError> {
        let key = [&[UPLOAD_USAGE][..], &owner.to_be_bytes()].concat();
        let _turn = self.usage.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let old = self.rows.get(&key)?;
        let (files, used) = old.as_deref().map_or((0, 0), |v| (u64_of(&v[..8]), u64_of(&v[8..])));
        Ok(match change(files, used) {
            Some((files, used)) => {
                self.rows.insert(key, [files.to_be_bytes(), used.to_be_bytes()].concat())?;
                true
            }
            None => false,
        })
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
