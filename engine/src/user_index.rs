//! Users by a key of theirs: a lower-case username or e-mail, a bound wallet, or an invite
//! code's number.
//!
//! A restore finds a million users at once. Inserting each key into a hash map was most of
//! the restore's CPU (three to four million inserts at random over a hundred megabytes, one
//! string allocated per key), and it ran beside replay on the second core. So the users a
//! restore found are kept as one array of (digest of the key, user) sorted once, and only the
//! keys given since go into a map. A digest may be shared, and a user's key may have changed
//! since the restore, so a candidate from the array counts only if the caller confirms that
//! the user still has that key.

use std::borrow::Borrow;
use std::hash::{BuildHasher, Hash};

use rustc_hash::FxHashMap;

use crate::types::{Chain, UserId};

/// A key an index can be searched by.
pub(crate) trait Key: Hash + Eq {
    /// The key as the index keeps it.
    type Owned: Hash + Eq + Borrow<Self> + Clone;
    /// The key's digest under `seed`.
    fn digest(&self, seed: u64) -> u64;
}

impl Key for str {
    type Owned = String;
    fn digest(&self, seed: u64) -> u64 {
        xxhash_rust::xxh3::xxh3_64_with_seed(self.as_bytes(), seed)
    }
}

/// A bound wallet: the same address on two chains is two keys.
impl Key for (Chain, String) {
    type Owned = (Chain, String);
    fn digest(&self, seed: u64) -> u64 {
        wallet_digest(self.0, &self.1, seed)
    }
}

/// The digest of a wallet key, without building one.
pub(crate) fn wallet_digest(chain: Chain, address: &str, seed: u64) -> u64 {
    let chain_seed = (chain as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    xxhash_rust::xxh3::xxh3_64_with_seed(address.as_bytes(), seed ^ chain_seed)
}

/// An invite code's number is its own digest: codes are unique.
impl Key for u64 {
    type Owned = u64;
    fn digest(&self, _seed: u64) -> u64 {
        *self
    }
}

/// Users by key: those a restore found, and those given a key since.
pub(crate) struct UserIndex<Q: Key + ?Sized> {
    /// The users a restore found, by the digest of their key, sorted.
    restored: Vec<(u64, UserId)>,
    /// Keys given since the restore (every key, in an engine never restored).
    added: FxHashMap<Q::Owned, UserId>,
    /// Chosen at random per process: nobody can pick names whose digests collide in bulk to
    /// slow the lookups down.
    seed: u64,
}

// By hand: derived, they would ask `str` to be `Clone` and `Sized`.
impl<Q: Key + ?Sized> Clone for UserIndex<Q> {
    fn clone(&self) -> Self {
        let (restored, added) = (self.restored.clone(), self.added.clone());
        UserIndex { restored, added, seed: self.seed }
    }
}

impl<Q: Key + ?Sized> std::fmt::Debug for UserIndex<Q> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (f.debug_struct("UserIndex"))
            .field("restored", &self.restored.len())
            .field("added", &self.added.len())
            .finish()
    }
}

impl<Q: Key + ?Sized> Default for UserIndex<Q> {
    fn default() -> Self {
        UserIndex::restored(Vec::new(), random_seed())
    }
}

/// A seed for [`UserIndex::restored`], different in every process.
pub(crate) fn random_seed() -> u64 {
    std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64)
}

impl<Q: Key + ?Sized> UserIndex<Q> {
    /// The index of a restore's users, given as (digest of the key under `seed`, user).
    pub(crate) fn restored(mut entries: Vec<(u64, UserId)>, seed: u64) -> Self {
        entries.sort_unstable_by_key(|&(digest, _)| digest);
        UserIndex { restored: entries, added: FxHashMap::default(), seed }
    }

    /// The digest `key` is filed under.
    pub(crate) fn digest(&self, key: &Q) -> u64 {
        key.digest(self.seed)
    }

    /// The user with `key`. `has_key` tells whether a user still has it.
    pub(crate) fn get(&self, key: &Q, has_key: impl Fn(UserId) -> bool) -> Option<UserId> {
        if let Some(&user) = self.added.get(key) {
            return Some(user);
        }
        let digest = self.digest(key);
        let from = self.restored.partition_point(|&(d, _)| d < digest);
        let same = self.restored[from..].iter().take_while(|&&(d, _)| d == digest);
        same.map(|&(_, user)| user).find(|&user| has_key(user))
    }

    /// Files `user` under `key`, which no user may have.
    pub(crate) fn insert(&mut self, key: Q::Owned, user: UserId) {
        self.added.insert(key, user);
    }

    /// Forgets `key`, which its user no longer has (an entry from the restore is left: the
    /// user no longer confirms it).
    pub(crate) fn remove(&mut self, key: &Q) {
        self.added.remove(key);
    }
}

/// `text` in lower case, written into `into` (cleared first): what `str::to_lowercase` gives,
/// without allocating for ASCII.
pub(crate) fn lower_into(text: &str, into: &mut String) {
    into.clear();
    if text.is_ascii() {
        into.extend(text.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        into.push_str(&text.to_lowercase());
    }
}

/// Whether `text` in lower case is `lower`.
pub(crate) fn lowers_to(text: &str, lower: &str) -> bool {
    if text.is_ascii() {
        text.len() == lower.len()
            && text.bytes().zip(lower.bytes()).all(|(a, b)| a.to_ascii_lowercase() == b)
    } else {
        text.to_lowercase() == lower
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Users 1.. named by `names`, and an index over them as a restore builds it.
    fn restored(names: &[&str], seed: u64) -> UserIndex<str> {
        let mut lower = String::new();
        let entries = (names.iter().enumerate())
            .map(|(at, name)| {
                lower_into(name, &mut lower);
                (lower.as_str().digest(seed), UserId::from_slot(at))
            })
            .collect();
        UserIndex::restored(entries, seed)
    }

    fn has<'a>(names: &'a [&'a str], key: &'a str) -> impl Fn(UserId) -> bool + 'a {
        move |user: UserId| names.get(user.index()).is_some_and(|name| lowers_to(name, key))
    }

    #[test]
    fn finds_restored_and_added_users_by_lower_case_key() {
        let names = ["Alice", "bob", "ÇAĞRI", "Σίσυφος"];
        let index = restored(&names, random_seed());
        for (at, name) in names.iter().enumerate() {
            let key = name.to_lowercase();
            assert_eq!(index.get(&key, has(&names, &key)), Some(UserId::from_slot(at)));
        }
        assert_eq!(index.get("carol", has(&names, "carol")), None);
        let mut index = index;
        index.insert("carol".into(), UserId::from_slot(4));
        assert_eq!(index.get("carol", |_| false), Some(UserId::from_slot(4)));
        index.remove("carol");
        assert_eq!(index.get("carol", |_| true), None);
    }

    #[test]
    fn a_restored_entry_counts_only_while_its_user_confirms_it() {
        let names = ["alice", "bob"];
        let index = restored(&names, 7);
        // Alice's key changed since: her entry from the restore no longer finds her.
        let renamed = ["alicia", "bob"];
        assert_eq!(index.get("alice", has(&renamed, "alice")), None);
        assert_eq!(index.get("bob", has(&renamed, "bob")), Some(UserId::from_slot(1)));
    }

    #[test]
    fn users_whose_keys_share_a_digest_are_told_apart() {
        // Every key under one digest: only the confirmation tells the users apart.
        let entries = (0..5).map(|at| (42, UserId::from_slot(at))).collect();
        let index = UserIndex::<u64>::restored(entries, 0);
        for at in 0..5 {
            assert_eq!(index.get(&42, |user| user.index() == at), Some(UserId::from_slot(at)));
        }
        assert_eq!(index.get(&42, |_| false), None);
        assert_eq!(index.get(&41, |_| true), None);
    }

    #[test]
    fn lower_case_agrees_with_the_standard_library() {
        let mut lower = String::new();
        for text in ["ABC_def9", "ÇAĞRI", "ΟΔΟΣ", "straße", "İstanbul", ""] {
            lower_into(text, &mut lower);
            assert_eq!(lower, text.to_lowercase());
            assert!(lowers_to(text, &text.to_lowercase()));
            assert!(!lowers_to(text, "x"));
        }
    }
}
