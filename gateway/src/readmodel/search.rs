//! The back-office's user search: every three consecutive bytes of a user's lower-cased name
//! and e-mail index the user, so that a part of either finds them.

use serde::{Deserialize, Serialize};

use super::*;

impl ReadModel {
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
}

/// What the user search matches on, lower-cased.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct UserSearchRow {
    username: String,
    email: String,
}

impl UserSearchRow {
    /// The row of a user called `username`, with `email` if they gave one.
    pub(super) fn new(username: &str, email: Option<&str>) -> UserSearchRow {
        UserSearchRow {
            username: username.to_lowercase(),
            email: email.unwrap_or("").to_lowercase(),
        }
    }

    /// Every distinct three bytes of the name and the e-mail.
    pub(super) fn grams(&self) -> std::collections::BTreeSet<[u8; 3]> {
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

pub(super) fn user_key(uid: u32) -> [u8; 5] {
    let mut key = [0u8; 5];
    key[0] = USER;
    key[1..].copy_from_slice(&uid.to_be_bytes());
    key
}

pub(super) fn gram_key(gram: [u8; 3], uid: u32) -> [u8; 8] {
    let mut key = [0u8; 8];
    key[0] = USER_GRAM;
    key[1..4].copy_from_slice(&gram);
    key[4..].copy_from_slice(&uid.to_be_bytes());
    key
}

/// The UIDs under the rarest three bytes of `needle`, newest first (at most
/// [`SCAN_ROWS_MAX`]). Each gram is counted only as far as the rarest so far, so a common one
/// ("com" of every e-mail) costs no more than the answer.
fn rarest_gram(table: &View, needle: &[u8]) -> Result<Vec<u32>, ReadModelError> {
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
