//! Open contracts in a slab: a dense vector of slots with a LIFO free list.
//!
//! Why not a hash map by id: with a million long-lived contracts, a hash map scatters the few
//! thousand short contracts that are actually being opened and settled across hundreds of MB,
//! and every order and settlement misses the cache. Here a freed slot is reused by the next
//! order while it is still hot, and books refer to contracts by slot, so settling needs no
//! lookup at all. A reference is `(slot, id)`: the id guards against a slot reused since.

use crate::types::{Contract, ContractId};

/// Where an open contract lives, and which contract that was.
pub(crate) type SlotRef = (u32, ContractId);

/// The open contracts.
#[derive(Debug, Default, Clone)]
pub(crate) struct Slab {
    /// Contracts by slot; `None` for a free slot.
    slots: Vec<Option<Contract>>,
    /// Free slots, most recently freed last.
    free: Vec<u32>,
}

impl Slab {
    /// Stores a contract and returns its reference.
    pub(crate) fn insert(&mut self, contract: Contract) -> SlotRef {
        let id = contract.id;
        match self.free.pop() {
            Some(slot) => {
                debug_assert!(self.slots[slot as usize].is_none());
                self.slots[slot as usize] = Some(contract);
                (slot, id)
            }
            None => {
                let slot = u32::try_from(self.slots.len()).expect("fewer than 2^32 open contracts");
                self.slots.push(Some(contract));
                (slot, id)
            }
        }
    }

    /// The contract behind a reference, if it is still open.
    pub(crate) fn get(&self, (slot, id): SlotRef) -> Option<&Contract> {
        self.slots.get(slot as usize)?.as_ref().filter(|c| c.id == id)
    }

    /// The contract behind a reference, to change.
    pub(crate) fn get_mut(&mut self, (slot, id): SlotRef) -> Option<&mut Contract> {
        self.slots.get_mut(slot as usize)?.as_mut().filter(|c| c.id == id)
    }

    /// Takes the contract out and frees its slot.
    pub(crate) fn remove(&mut self, at: SlotRef) -> Option<Contract> {
        self.get(at)?;
        let contract = self.slots[at.0 as usize].take();
        self.free.push(at.0);
        contract
    }

    /// Every open contract, in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Contract> {
        self.slots.iter().flatten()
    }

    /// Open contracts.
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Room for `n` more without reallocating.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.slots.reserve(n);
    }
}
