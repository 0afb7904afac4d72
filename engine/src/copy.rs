//! Copy trading (decisions §11): a trader shares their trades, followers copy them.
//!
//! A follower's orders are placed by the engine inside the leader's own `PlaceOrder`, right
//! after the leader's contract opens: the same entry tick, the same log index, the same
//! product, direction and duration, and a stake from the follower's settings. Each copy
//! passes every check a follower's own order would (their balance, their limits, the rules);
//! a refused copy is reported to the follower and never refuses the leader. A follower copies
//! onto the wallet they chose: real orders onto either, demo orders onto demo only (a trade
//! that risks nothing never moves real money). A leader has at most
//! [`FOLLOWERS_PER_LEADER_MAX`] followers, so one order places a bounded number more.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::command::PlaceOrder;
use crate::constants::AMOUNT_MAX_USDT;
use crate::event::{CommandResult, CopyChange, CopyEnd, Event, Events, Reply};
use crate::money::{Money, Rate, RkyvMoney};
use crate::types::{archived, AccountKind, ContractId, UserId};
use crate::{Engine, EngineError};

/// Followers one leader may have: a leader's order places at most this many copies.
pub const FOLLOWERS_PER_LEADER_MAX: usize = 100;

/// Leaders one follower may copy at once.
pub const LEADERS_PER_FOLLOWER_MAX: usize = 10;

/// Traders sharing their trades at once: the public rankings add up each one's results.
pub const LEADERS_MAX: usize = 10_000;

/// Followers a leader removed that the leader keeps blocked from following again (the oldest
/// is forgotten first).
pub const BLOCKED_PER_LEADER_MAX: usize = 1_000;

/// The largest share of the leader's stake a copy may take, in percent.
pub const COPY_PERCENT_MAX: u16 = 1_000;

archived! {
/// How a follower copies a leader.
pub struct CopySettings {
    /// The follower's wallet the copies trade from.
    pub account: AccountKind,
    /// A copy's stake as a percentage of the leader's (1 to [`COPY_PERCENT_MAX`]).
    pub percent: u16,
    /// The smallest stake of a copy: a smaller share is raised to it.
    #[rkyv(with = RkyvMoney)]
    pub min_stake: Money,
    /// The largest stake of a copy: a larger share is cut to it.
    #[rkyv(with = RkyvMoney)]
    pub max_stake: Money,
    /// Copying ends at the first of the leader's orders that finds the follower's available
    /// balance below this; zero for never.
    #[rkyv(with = RkyvMoney)]
    pub stop_below: Money,
}
}

archived! {
/// One follower of a leader.
pub struct Follow {
    pub follower: UserId,
    pub settings: CopySettings,
    /// When the copying started (ms).
    pub since_ms: u64,
}
}

archived! {
/// A trader who shares their trades, and who copies them.
pub struct Leader {
    pub user: UserId,
    /// When they started sharing (ms).
    pub since_ms: u64,
    /// Their followers, in the order they started: copies are placed in this order.
    pub followers: Vec<Follow>,
    /// Followers they removed, who cannot follow them again, oldest first.
    pub blocked: Vec<UserId>,
}
}

/// Copy trading's state: the leaders and their followers, and the leader of every open copy.
#[derive(Debug, Default, Clone)]
pub(crate) struct CopyBook {
    /// Traders who share their trades, by id.
    pub(crate) leaders: BTreeMap<UserId, Leader>,
    /// Follower -> the leaders they copy (derived from `leaders`).
    pub(crate) following: FxHashMap<UserId, Vec<UserId>>,
    /// Open copied contracts -> their leader; a copy leaves it when it settles.
    pub(crate) marks: FxHashMap<ContractId, UserId>,
}

archived! {
/// Copy trading's part of a snapshot.
pub struct CopyState {
    /// Leaders by id.
    pub leaders: Vec<Leader>,
    /// Open copies and their leader, by contract id.
    pub marks: Vec<(ContractId, UserId)>,
}
}

impl CopyBook {
    /// The state as snapshots hold it, in a canonical order.
    pub(crate) fn state(&self) -> CopyState {
        let mut marks: Vec<(ContractId, UserId)> =
            self.marks.iter().map(|(&c, &u)| (c, u)).collect();
        marks.sort_unstable();
        CopyState { leaders: self.leaders.values().cloned().collect(), marks }
    }

    /// The book a snapshot's state holds, with its derived index.
    pub(crate) fn of(state: CopyState) -> CopyBook {
        let mut book = CopyBook {
            leaders: state.leaders.into_iter().map(|l| (l.user, l)).collect(),
            following: FxHashMap::default(),
            marks: state.marks.into_iter().collect(),
        };
        for leader in book.leaders.values() {
            for f in &leader.followers {
                book.following.entry(f.follower).or_default().push(leader.user);
            }
        }
        book
    }
}

/// What a user sees of copy trading from their own side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyView {
    /// Sharing their trades since (ms), or not sharing.
    pub sharing_since_ms: Option<u64>,
    /// The leaders they copy, with how.
    pub following: Vec<(UserId, CopySettings, u64)>,
    /// Who copies them, with how.
    pub followers: Vec<Follow>,
}

/// A leader as the public list shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaderSummary {
    pub user: UserId,
    /// Sharing since (ms).
    pub since_ms: u64,
    /// How many copy them.
    pub followers: u32,
}

impl CopySettings {
    /// The settings if every figure is in range; which one is not otherwise.
    fn check(&self) -> Result<(), EngineError> {
        let most = Money::from_usdt(AMOUNT_MAX_USDT);
        // A tournament balance is its player's own play: it copies nobody.
        if self.account == AccountKind::Tournament {
            return Err(EngineError::Invalid("account"));
        }
        if !(1..=COPY_PERCENT_MAX).contains(&self.percent) {
            return Err(EngineError::Invalid("percent"));
        }
        if !self.min_stake.is_positive() || self.min_stake > most {
            return Err(EngineError::Invalid("minStake"));
        }
        if self.max_stake < self.min_stake || self.max_stake > most {
            return Err(EngineError::Invalid("maxStake"));
        }
        if self.stop_below.is_negative() || self.stop_below > most {
            return Err(EngineError::Invalid("stopBelow"));
        }
        Ok(())
    }

    /// A copy's stake for a leader's stake: the share, rounded half to even to the cent, and
    /// kept between the minimum and the maximum.
    pub fn stake_for(&self, leader_stake: Money) -> Money {
        let share = Rate::from_millionths(i64::from(self.percent) * 10_000);
        leader_stake.times(share).max(self.min_stake).min(self.max_stake)
    }
}

impl Engine {
    /// Starts or stops sharing `user`'s trades. Stopping ends every follower's copying.
    pub(crate) fn set_copyable(
        &mut self,
        user: UserId,
        copyable: bool,
        events: &mut Events,
    ) -> CommandResult {
        if copyable {
            self.active_account(user)?;
            if self.copy.leaders.contains_key(&user) {
                return Ok(Reply::Done);
            }
            if self.copy.leaders.len() >= LEADERS_MAX {
                return Err(EngineError::SharingFull);
            }
            let since_ms = self.now_ms;
            let leader = Leader { user, since_ms, followers: Vec::new(), blocked: Vec::new() };
            self.copy.leaders.insert(user, leader);
        } else {
            self.account_of(user)?;
            let Some(leader) = self.copy.leaders.get(&user) else { return Ok(Reply::Done) };
            let followers: Vec<UserId> = leader.followers.iter().map(|f| f.follower).collect();
            for follower in followers {
                self.end_follow(follower, user, CopyEnd::LeaderStopped, events);
            }
            self.copy.leaders.remove(&user);
        }
        events.push(Event::CopyableChanged { user, copyable });
        Ok(Reply::Done)
    }

    /// Starts copying `leader` with `settings`, or changes the settings of a running copy.
    pub(crate) fn follow(
        &mut self,
        follower: UserId,
        leader: UserId,
        settings: CopySettings,
        events: &mut Events,
    ) -> CommandResult {
        self.active_account(follower)?;
        if follower == leader {
            return Err(EngineError::Invalid("leader"));
        }
        // A trader who does not share, a frozen one, or one who removed this follower: the
        // same answer, which says nothing about which.
        let shares = self.copy.leaders.get(&leader).is_some_and(|l| !l.blocked.contains(&follower));
        if !shares || self.active_account(leader).is_err() {
            return Err(EngineError::NotCopyable);
        }
        settings.check()?;
        // Excluded from trading: no copying set up to start the moment the exclusion ends.
        if let Some(until_ms) = self.excluded_until(follower) {
            return Err(EngineError::SelfExcluded { until_ms });
        }
        let now = self.now_ms;
        let following = self.copy.following.get(&follower).map_or(0, Vec::len);
        let entry = self.copy.leaders.get_mut(&leader).ok_or(EngineError::NotCopyable)?;
        if let Some(f) = entry.followers.iter_mut().find(|f| f.follower == follower) {
            f.settings = settings;
            events.push(Event::CopyChanged { follower, leader, change: CopyChange::Updated });
            return Ok(Reply::Done);
        }
        if entry.followers.len() >= FOLLOWERS_PER_LEADER_MAX {
            return Err(EngineError::FollowersFull);
        }
        if following >= LEADERS_PER_FOLLOWER_MAX {
            return Err(EngineError::FollowingFull);
        }
        entry.followers.push(Follow { follower, settings, since_ms: now });
        self.copy.following.entry(follower).or_default().push(leader);
        self.account_mut(leader).leads = true;
        events.push(Event::CopyChanged { follower, leader, change: CopyChange::Started });
        Ok(Reply::Done)
    }

    /// Ends a copy, by the follower or by the leader (`by` must be one of them).
    pub(crate) fn end_copy(
        &mut self,
        by: UserId,
        follower: UserId,
        leader: UserId,
        events: &mut Events,
    ) -> CommandResult {
        self.account_of(by)?;
        let reason = if by == follower {
            CopyEnd::ByFollower
        } else if by == leader {
            CopyEnd::ByLeader
        } else {
            return Err(EngineError::CopyNotFound);
        };
        let copying = self
            .copy
            .leaders
            .get(&leader)
            .is_some_and(|l| l.followers.iter().any(|f| f.follower == follower));
        if !copying {
            return Err(EngineError::CopyNotFound);
        }
        self.end_follow(follower, leader, reason, events);
        if reason == CopyEnd::ByLeader {
            if let Some(entry) = self.copy.leaders.get_mut(&leader) {
                if entry.blocked.len() >= BLOCKED_PER_LEADER_MAX {
                    entry.blocked.remove(0);
                }
                entry.blocked.push(follower);
            }
        }
        Ok(Reply::Done)
    }

    /// Removes a running copy and says why.
    fn end_follow(
        &mut self,
        follower: UserId,
        leader: UserId,
        reason: CopyEnd,
        events: &mut Events,
    ) {
        let Some(entry) = self.copy.leaders.get_mut(&leader) else { return };
        entry.followers.retain(|f| f.follower != follower);
        let leads = !entry.followers.is_empty();
        self.account_mut(leader).leads = leads;
        if let Some(leaders) = self.copy.following.get_mut(&follower) {
            leaders.retain(|l| *l != leader);
            if leaders.is_empty() {
                self.copy.following.remove(&follower);
            }
        }
        events.push(Event::CopyChanged { follower, leader, change: CopyChange::Ended(reason) });
    }

    /// Places the followers' copies of a leader's order that just opened as `contract`.
    pub(crate) fn copy_order(
        &mut self,
        order: &PlaceOrder,
        stake: Money,
        contract: ContractId,
        events: &mut Events,
    ) {
        let leader = order.user;
        let Some(entry) = self.copy.leaders.get(&leader) else { return };
        // At most FOLLOWERS_PER_LEADER_MAX small records: copied so that placing each copy
        // can change the engine.
        let follows = entry.followers.clone();
        for f in follows {
            let s = &f.settings;
            // Demo trades risk nothing: they are copied onto demo wallets only.
            if order.account == AccountKind::Demo && s.account == AccountKind::Real {
                continue;
            }
            let available = self.accounts[f.follower.index()].wallet(s.account).available;
            if available < s.stop_below {
                self.end_follow(f.follower, leader, CopyEnd::StopReached, events);
                continue;
            }
            let copy = PlaceOrder {
                user: f.follower,
                account: s.account,
                symbol: order.symbol,
                direction: order.direction,
                stake: s.stake_for(stake).to_decimal(),
                duration_secs: order.duration_secs,
            };
            match self.check_order(&copy) {
                Ok(checked) => {
                    let id = self.open_contract(&copy, checked, Some(leader), events);
                    self.copy.marks.insert(id, leader);
                }
                // A self-excluded follower is not told of each order they could have copied.
                Err(EngineError::SelfExcluded { .. }) => {}
                Err(refusal) => {
                    if !self.quiet {
                        events.push(Event::CopyRefused {
                            follower: f.follower,
                            leader,
                            contract,
                            code: refusal.code(),
                        });
                    }
                }
            }
        }
    }

    // ---- reads -------------------------------------------------------------------------------

    /// Copy trading as `user` sees it from their side.
    pub fn copy_view(&self, user: UserId) -> CopyView {
        let sharing = self.copy.leaders.get(&user);
        let mut following: Vec<_> = (self.copy.following.get(&user).into_iter().flatten())
            .filter_map(|leader| {
                let l = self.copy.leaders.get(leader)?;
                let f = l.followers.iter().find(|f| f.follower == user)?;
                Some((*leader, f.settings.clone(), f.since_ms))
            })
            .collect();
        // By leader: the index's order differs between a live engine and a restored one.
        following.sort_unstable_by_key(|f| f.0);
        CopyView {
            sharing_since_ms: sharing.map(|l| l.since_ms),
            following,
            followers: sharing.map(|l| l.followers.clone()).unwrap_or_default(),
        }
    }

    /// Every trader who shares their trades, by id.
    pub fn copy_leaders(&self) -> Vec<LeaderSummary> {
        (self.copy.leaders.values())
            .map(|l| LeaderSummary {
                user: l.user,
                since_ms: l.since_ms,
                followers: l.followers.len() as u32,
            })
            .collect()
    }

    /// The leader a contract copies, while it is open.
    pub fn copied_from(&self, contract: ContractId) -> Option<UserId> {
        self.copy.marks.get(&contract).copied()
    }
}
