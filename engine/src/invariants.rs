//! Invariants that must hold after every command. Tests call `check_invariants` after each
//! step; it walks everything, so it is for tests and audits, not for the hot path.

use rustc_hash::FxHashMap;

use crate::cow::CowVec;
use crate::engine::{Ledger, Pending};
use crate::money::Money;
use crate::snapshot::Frozen;
use crate::types::{Account, AccountKind, Contract, DepositOrder, UserId, WithdrawOrder};
use crate::Engine;

impl Engine {
    /// Checks conservation of money, non-negative balances and the consistency of every
    /// counter with the open contracts and pending orders. Returns the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        Books {
            accounts: &self.accounts,
            contracts: self.contracts.iter(),
            withdrawals: self.withdrawals.values(),
            deposits: self.deposits.values(),
            pending: Some(&self.idx.pending),
            ledger: &self.ledger,
        }
        .check()?;
        self.check_copy_book()?;
        self.check_tournament_book()
    }

    /// Copy trading's book agrees with itself: a leader's flag is set exactly when someone
    /// copies them, the index of whom each follower copies matches the leaders' lists, and
    /// every mark is on an open contract.
    fn check_copy_book(&self) -> Result<(), String> {
        let mut following: FxHashMap<UserId, Vec<UserId>> = FxHashMap::default();
        for leader in self.copy.leaders.values() {
            for f in &leader.followers {
                following.entry(f.follower).or_default().push(leader.user);
            }
        }
        for (slot, account) in self.accounts.iter().enumerate() {
            let user = UserId::from_slot(slot);
            let followed = self.copy.leaders.get(&user).is_some_and(|l| !l.followers.is_empty());
            if account.leads != followed {
                return Err(format!(
                    "user {user}: leads {} but followed {followed}",
                    account.leads
                ));
            }
            let mut indexed = self.copy.following.get(&user).cloned().unwrap_or_default();
            let mut listed = following.remove(&user).unwrap_or_default();
            indexed.sort_unstable();
            listed.sort_unstable();
            if indexed != listed {
                return Err(format!("user {user} copies {listed:?}, indexed as {indexed:?}"));
            }
        }
        let open: std::collections::HashSet<_> = self.contracts.iter().map(|c| c.id).collect();
        match self.copy.marks.keys().find(|id| !open.contains(id)) {
            Some(id) => Err(format!("copy mark on contract {id}, which is not open")),
            None => Ok(()),
        }
    }
}

impl Frozen {
    /// [`Engine::check_invariants`] of the frozen state, so that an audit can check them away
    /// from the engine thread.
    pub fn check_invariants(&self) -> Result<(), String> {
        Books {
            accounts: &self.accounts,
            contracts: self.contracts.iter().flatten(),
            withdrawals: self.withdrawals.iter(),
            deposits: self.deposits.iter(),
            pending: None,
            ledger: &self.ledger,
        }
        .check()
    }
}

/// What the invariants read, from the live engine or from a frozen state.
struct Books<'a, C, W, D> {
    accounts: &'a CowVec<Account>,
    contracts: C,
    withdrawals: W,
    deposits: D,
    /// The engine's counts of pending orders per user, to check against the orders (a frozen
    /// state has none: its snapshot counts them from the orders).
    pending: Option<&'a FxHashMap<UserId, Pending>>,
    ledger: &'a Ledger,
}

impl<'a, C, W, D> Books<'a, C, W, D>
where
    C: Iterator<Item = &'a Contract>,
    W: Iterator<Item = &'a WithdrawOrder>,
    D: Iterator<Item = &'a DepositOrder>,
{
    fn check(self) -> Result<(), String> {
        let zero = Money::ZERO;
        let mut real_total = zero;
        let mut demo_total = zero;
        for (i, a) in self.accounts.iter().enumerate() {
            for (kind, w) in [(AccountKind::Real, &a.real), (AccountKind::Demo, &a.demo)] {
                if w.available < zero || w.frozen < zero || w.in_position < zero {
                    return Err(format!("user {} has a negative {kind:?} balance: {w:?}", i + 1));
                }
            }
            real_total += a.real.total();
            demo_total += a.demo.total();
        }
        let l = &self.ledger;
        if real_total + l.house != l.real_supply() {
            return Err(format!(
                "real money not conserved: users {real_total} + house {} != deposits {} - withdrawals {} + seed {}",
                l.house, l.deposits_approved, l.withdrawals_paid, l.seed_capital
            ));
        }
        if demo_total + l.demo_house != l.demo_minted {
            return Err(format!(
                "demo money not conserved: {demo_total} + {} != {}",
                l.demo_house, l.demo_minted
            ));
        }
        if l.house < l.house_reserved || l.house_reserved < zero {
            return Err(format!("house {} below its reserve {}", l.house, l.house_reserved));
        }
        self.check_counters()
    }

    fn check_counters(self) -> Result<(), String> {
        type PerUser = FxHashMap<(UserId, AccountKind), (Money, u32)>;
        let mut open: PerUser = FxHashMap::default();
        let mut reserved = Money::ZERO;
        for c in self.contracts {
            if c.account == AccountKind::Tournament {
                // Held in seats, checked with the tournaments.
                continue;
            }
            let e = open.entry((c.user, c.account)).or_default();
            e.0 += c.stake;
            e.1 += 1;
            reserved += c.reserved;
        }
        if reserved != self.ledger.house_reserved {
            return Err(format!(
                "reserve {} != sum over contracts {reserved}",
                self.ledger.house_reserved
            ));
        }
        let mut frozen: FxHashMap<UserId, (Money, u32)> = FxHashMap::default();
        for w in self.withdrawals {
            let e = frozen.entry(w.user).or_default();
            e.0 += w.amount;
            e.1 += 1;
        }
        let mut deposits: FxHashMap<UserId, u32> = FxHashMap::default();
        for d in self.deposits {
            *deposits.entry(d.user).or_default() += 1;
        }
        for (i, a) in self.accounts.iter().enumerate() {
            let user = UserId::from_slot(i);
            for (kind, w, n) in [
                (AccountKind::Real, &a.real, a.open_real),
                (AccountKind::Demo, &a.demo, a.open_demo),
            ] {
                let (stakes, count) = open.get(&(user, kind)).copied().unwrap_or_default();
                if w.in_position != stakes || n != count {
                    return Err(format!("user {user} {kind:?}: in position {} / {n} open, contracts say {stakes} / {count}", w.in_position));
                }
            }
            let (amount, count) = frozen.get(&user).copied().unwrap_or_default();
            if a.real.frozen != amount || !a.demo.frozen.is_zero() {
                return Err(format!(
                    "user {user}: frozen {}, its {count} withdrawal orders say {amount}",
                    a.real.frozen
                ));
            }
        }
        if let Some(pending) = self.pending {
            let mut counted: FxHashMap<UserId, Pending> = FxHashMap::default();
            for (&user, &(_, withdrawals)) in &frozen {
                counted.entry(user).or_default().withdrawals = withdrawals;
            }
            for (&user, &n) in &deposits {
                counted.entry(user).or_default().deposits = n;
            }
            if *pending != counted {
                return Err(format!(
                    "pending order counts {pending:?}, the orders say {counted:?}"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::command::{AdminAction, Command};
    use crate::types::AdminId;
    use crate::{Engine, Stamp};

    /// A frozen state's invariants are the live engine's at the moment it was frozen.
    #[test]
    fn a_frozen_state_is_checked_as_the_engine_it_was_taken_from() {
        let mut engine = Engine::new();
        let run = |engine: &mut Engine, index: u64, command: Command| {
            engine.apply(
                Stamp { index, time_ms: 1_000 * index },
                command,
                &mut crate::Events::new(),
            )
        };
        run(
            &mut engine,
            1,
            Command::BootstrapAdmin { username: "root".into(), password_hash: "h".into() },
        )
        .unwrap();
        let fund = AdminAction::FundHouse { amount: rust_decimal::Decimal::from(1_000) };
        run(&mut engine, 2, Command::Admin { admin: AdminId(1), action: Box::new(fund) }).unwrap();
        let sound = engine.frozen();
        engine.ledger.house += crate::money::Money::from_usdt(1);
        let broken = engine.frozen();
        assert_eq!(sound.check_invariants(), Ok(()));
        let violation = engine.check_invariants();
        assert!(violation.as_ref().is_err_and(|e| e.contains("not conserved")), "{violation:?}");
        assert_eq!(broken.check_invariants(), violation);
    }
}
