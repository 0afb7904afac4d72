//! Open contracts in a slab: dense slots in fixed-size chunks, with a LIFO free list.
//!
//! Why not a hash map by id: with a million long-lived contracts, a hash map scatters the few
//! thousand short contracts that are actually being opened and settled across hundreds of MB,
//! and every order and settlement misses the cache. Here a freed slot is reused by the next
//! order while it is still hot, and books refer to contracts by slot, so settling needs no
//! lookup at all. A reference is `(slot, id)`: the id guards against a slot reused since.
//!
//! Why chunks: one vector of slots doubles as the slab grows, and each doubling copied every
//! open contract into fresh memory on the engine thread (hundreds of MB at a million
//! contracts: a pause of many milliseconds in the middle of a batch, and a fifth of the
//! engine's time in a replicated-throughput profile). A full chunk never moves, and chunks
//! are copy-on-write ([`crate::cow`]), so a snapshot shares them instead of copying.

use crate::cow::{CowVec, ReadyChunks};
use crate::types::{Contract, ContractId};

/// Where an open contract lives, and which contract that was.
pub(crate) type SlotRef = (u32, ContractId);

/// The open contracts.
#[derive(Debug, Default, Clone)]
pub(crate) struct Slab {
    /// Contracts by slot, in copy-on-write chunks (a snapshot shares them); `None` for a free
    /// slot.
    slots: CowVec<Option<Contract>>,
    /// Free slots, most recently freed last.
    free: Vec<u32>,
}

impl Slab {
    /// Stores a contract and returns its reference.
    pub(crate) fn insert(&mut self, contract: Contract) -> SlotRef {
        if let Some(slot) = self.free.pop() {
            let free = self.slots.get_mut(slot as usize).expect("a freed slot exists");
            debug_assert!(free.is_none());
            let id = contract.id;
            *free = Some(contract);
            return (slot, id);
        }
        self.push_new(contract, None)
    }

    /// Stores a contract in the next new slot, its chunk's buffer from `ready` when it has
    /// one (a restore's slab has no free slot, so a restore calls this directly). Inlined into
    /// `insert`, so that placing an order makes one call, into the chunked vector.
    #[inline]
    pub(crate) fn push_new(
        &mut self,
        contract: Contract,
        ready: Option<&ReadyChunks<Option<Contract>>>,
    ) -> SlotRef {
        let id = contract.id;
        let slot = u32::try_from(self.slots.len()).expect("fewer than 2^32 open contracts");
        self.slots.push_ready(Some(contract), ready);
        (slot, id)
    }

    /// The contract behind a reference, if it is still open.
    pub(crate) fn get(&self, (slot, id): SlotRef) -> Option<&Contract> {
        self.slots.get(slot as usize)?.as_ref().filter(|c| c.id == id)
    }

    /// Brings the slot of a reference into cache ahead of its use.
    #[inline]
    pub(crate) fn prefetch(&self, (slot, _): SlotRef) {
        self.slots.prefetch(slot as usize);
    }

    /// The contract behind a reference, to change.
    pub(crate) fn get_mut(&mut self, (slot, id): SlotRef) -> Option<&mut Contract> {
        self.slots.get_mut(slot as usize)?.as_mut().filter(|c| c.id == id)
    }

    /// Takes the contract out and frees its slot.
    pub(crate) fn remove(&mut self, at: SlotRef) -> Option<Contract> {
        self.get(at)?;
        let contract = self.slots.get_mut(at.0 as usize)?.take();
        self.free.push(at.0);
        contract
    }

    /// Every open contract, in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Contract> {
        self.slots.iter().flatten()
    }

    /// The open contracts as they are now, shared until either side changes (cheap).
    pub(crate) fn frozen(&self) -> CowVec<Option<Contract>> {
        self.slots.clone()
    }

    /// Open contracts.
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Room for `n` more chunks' worth of contracts in the chunk index (a restore knows how
    /// many contracts it brings).
    pub(crate) fn reserve(&mut self, n: usize) {
        self.slots.reserve(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::UserId;

    use crate::money::{Money, Rate};
    use crate::types::{AccountKind, Direction};

    fn contract(id: u64) -> Contract {
        Contract {
            id: ContractId(id),
            user: UserId(1),
            account: AccountKind::Demo,
            product: 0,
            direction: Direction::Up,
            stake: Money::from_usdt(1),
            fee: Money::ZERO,
            payout_rate: Rate::ONE,
            reserved: Money::from_usdt(1),
            duration_ms: 60_000,
            accepted_ms: 0,
            accepted_index: id,
            entry: None,
            expiry_ms: 0,
        }
    }

    #[test]
    fn slots_span_chunks_are_reused_last_freed_first_and_refuse_a_stale_reference() {
        let mut slab = Slab::default();
        let count = crate::cow::CHUNK as u64 * 2 + 3;
        let refs: Vec<SlotRef> = (0..count).map(|id| slab.insert(contract(id))).collect();

        assert_eq!(slab.len(), count as usize);
        for (n, at) in refs.iter().enumerate() {
            assert_eq!(at.0 as usize, n);
            assert_eq!(slab.get(*at).map(|c| c.id), Some(at.1));
        }
        let (first, late) = (refs[5], refs[crate::cow::CHUNK + 7]);
        assert_eq!(slab.remove(first).map(|c| c.id), Some(first.1));
        assert_eq!(slab.remove(late).map(|c| c.id), Some(late.1));
        assert!(slab.remove(late).is_none(), "a slot is freed once");
        assert_eq!(slab.len(), count as usize - 2);
        // The last freed slot is the first reused; the old reference no longer reaches it.
        let reused = slab.insert(contract(1_000_000));
        assert_eq!(reused.0, late.0);
        assert!(slab.get(late).is_none());
        assert_eq!(slab.get_mut(reused).map(|c| c.id.get()), Some(1_000_000));
        assert_eq!(slab.insert(contract(1_000_001)).0, first.0);
        assert_eq!(slab.insert(contract(1_000_002)).0, count as u32, "then a new slot");
        let ids: Vec<u64> = slab.iter().map(|c| c.id.get()).collect();
        assert_eq!(ids.len(), slab.len());
        assert_eq!(ids[5], 1_000_001, "slot order");
    }
}
