//! Copy trading (decisions §11): copies placed in the leader's own command, each checked
//! against the follower's balance, limits and the rules, never refusing the leader.

mod common;

use common::{btc, usdt, Harness};
use engine::command::Command;
use engine::copy::{CopySettings, FOLLOWERS_PER_LEADER_MAX};
use engine::money::Money;
use engine::types::AccountKind::{Demo, Real};
use engine::types::{AccountKind, Direction, UserId};
use engine::{CopyChange, CopyEnd, EngineError, Event, Reply};

fn settings(percent: u16, min: &str, max: &str, stop: &str) -> CopySettings {
    CopySettings {
        account: Real,
        percent,
        min_stake: usdt(min),
        max_stake: usdt(max),
        stop_below: usdt(stop),
    }
}

fn share(h: &mut Harness, user: UserId) {
    h.ok(Command::SetCopyable { user, copyable: true });
}

fn follow(
    h: &mut Harness,
    follower: UserId,
    leader: UserId,
    s: CopySettings,
) -> Result<Reply, EngineError> {
    h.run(Command::Follow { follower, leader, settings: Box::new(s) })
}

/// Contracts opened since event `from`: (owner, stake, leader).
fn opened(h: &Harness, from: usize) -> Vec<(UserId, Money, Option<UserId>)> {
    h.events[from..]
        .iter()
        .filter_map(|e| match e {
            Event::ContractOpened { contract, leader, .. } => {
                let contract = h.events.opened(*contract);
                Some((contract.user, contract.stake, *leader))
            }
            _ => None,
        })
        .collect()
}

fn copy_changes(h: &Harness, from: usize) -> Vec<(UserId, UserId, CopyChange)> {
    h.events[from..]
        .iter()
        .filter_map(|e| match e {
            Event::CopyChanged { follower, leader, change } => Some((*follower, *leader, *change)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_leaders_order_places_each_followers_copy_in_the_same_command_and_both_settle_alike() {
    let mut h = Harness::new();
    h.set_rule(60, "0.85", "0");
    let (leader, ann, ben) =
        (h.funded_user("lea", "1000"), h.funded_user("ann", "500"), h.funded_user("ben", "500"));
    share(&mut h, leader);
    follow(&mut h, ann, leader, settings(60, "1", "100", "0")).unwrap();
    // Ben copies on demo, at double the stake but never more than 15.
    let mut on_demo = settings(200, "1", "15", "0");
    on_demo.account = Demo;
    follow(&mut h, ben, leader, on_demo).unwrap();
    h.tick(btc(), "100");
    let from = h.events.len();
    let index = h.index + 1;
    h.order(leader, Real, btc(), Direction::Up, "10", 60).unwrap();
    assert_eq!(
        opened(&h, from),
        [
            (leader, usdt("10"), None),
            (ann, usdt("6"), Some(leader)),
            (ben, usdt("15"), Some(leader)),
        ]
    );
    for c in h.engine.open_contracts() {
        assert_eq!(c.accepted_index, index, "every copy is accepted in the leader's command");
    }
    assert_eq!(h.available(ann, Real), common::dec("494"));
    assert_eq!(h.available(ben, Demo) + common::dec("15"), demo_start(&h, ben));

    h.advance(500);
    h.tick(btc(), "101"); // every entry, on the same tick
    h.advance(59_000);
    h.tick(btc(), "102"); // every exit: the last tick before expiry
    h.advance(2_000);
    h.tick(btc(), "103");
    let settled: Vec<_> =
        h.settlements().iter().map(|s| (s.contract.user, s.outcome, s.leader())).collect();
    use engine::types::Outcome::Win;
    assert_eq!(settled, [(leader, Win, None), (ann, Win, Some(leader)), (ben, Win, Some(leader))]);
    assert_eq!(h.available(ann, Real), common::dec("505.10"));
    h.check();
}

fn demo_start(h: &Harness, _user: UserId) -> rust_decimal::Decimal {
    h.engine.settings().demo_balance
}

#[test]
fn a_copy_the_follower_cannot_afford_is_refused_to_them_and_the_leader_is_not() {
    let mut h = Harness::new();
    h.set_rule(60, "0.85", "0");
    let (leader, poor) = (h.funded_user("lea", "1000"), h.funded_user("poor", "10"));
    share(&mut h, leader);
    follow(&mut h, poor, leader, settings(100, "1", "100", "0")).unwrap();
    h.tick(btc(), "100");
    let from = h.events.len();
    let reply = h.order(leader, Real, btc(), Direction::Down, "20", 60).unwrap();
    let Reply::OrderAccepted { contract, .. } = reply else { panic!("{reply:?}") };
    assert_eq!(opened(&h, from), [(leader, usdt("20"), None)]);
    let refused: Vec<_> = h.events[from..]
        .iter()
        .filter_map(|e| match e {
            Event::CopyRefused { follower, leader, contract, code } => {
                Some((*follower, *leader, *contract, *code))
            }
            _ => None,
        })
        .collect();
    assert_eq!(refused, [(poor, leader, contract, "INSUFFICIENT_BALANCE")]);
    assert_eq!(h.available(poor, Real), common::dec("10"), "nothing taken from the follower");
    // The copy stays: a later, smaller order is copied.
    assert_eq!(h.engine.copy_view(poor).following.len(), 1);
    let from = h.events.len();
    h.order(leader, Real, btc(), Direction::Down, "5", 60).unwrap();
    assert_eq!(opened(&h, from).len(), 2);
    h.check();
}

#[test]
fn copying_ends_when_a_leaders_order_finds_the_follower_below_their_stop() {
    let mut h = Harness::new();
    h.set_rule(60, "0.85", "0");
    let (leader, ann) = (h.funded_user("lea", "1000"), h.funded_user("ann", "30"));
    share(&mut h, leader);
    follow(&mut h, ann, leader, settings(100, "1", "100", "15")).unwrap();
    h.tick(btc(), "100");
    h.order(leader, Real, btc(), Direction::Up, "10", 60).unwrap(); // ann 30 -> 20
    h.order(leader, Real, btc(), Direction::Up, "10", 60).unwrap(); // 20 >= 15: 20 -> 10
    let from = h.events.len();
    h.order(leader, Real, btc(), Direction::Up, "10", 60).unwrap(); // 10 < 15: stop
    assert_eq!(opened(&h, from), [(leader, usdt("10"), None)]);
    assert_eq!(copy_changes(&h, from), [(ann, leader, CopyChange::Ended(CopyEnd::StopReached))]);
    assert!(h.engine.copy_view(ann).following.is_empty());
    assert!(h.engine.copy_view(leader).followers.is_empty());
    assert!(!h.engine.account(leader).unwrap().leads);
    assert_eq!(h.available(ann, Real), common::dec("10"));
    h.check();
}

#[test]
fn a_leader_has_a_bounded_number_of_followers() {
    let mut h = Harness::new();
    let leader = h.funded_user("lea", "1000");
    share(&mut h, leader);
    for n in 0..FOLLOWERS_PER_LEADER_MAX {
        let f = h.register(&format!("follower{n}"), None);
        follow(&mut h, f, leader, settings(100, "1", "10", "0")).unwrap();
    }
    let late = h.register("late", None);
    let before = h.engine.content_hash();
    assert_eq!(
        follow(&mut h, late, leader, settings(100, "1", "10", "0")),
        Err(EngineError::FollowersFull)
    );
    assert_eq!(h.engine.content_hash(), before, "a refused follow changes nothing");
    assert_eq!(h.engine.copy_leaders()[0].followers, FOLLOWERS_PER_LEADER_MAX as u32);
    h.check();
}

#[test]
fn following_is_refused_for_bad_settings_oneself_and_traders_who_do_not_share() {
    let mut h = Harness::new();
    let (leader, ann) = (h.funded_user("lea", "100"), h.funded_user("ann", "100"));
    let ok = settings(100, "1", "10", "0");
    assert_eq!(follow(&mut h, ann, leader, ok.clone()), Err(EngineError::NotCopyable));
    // Nobody by that number: the same answer, which does not say who exists.
    assert_eq!(follow(&mut h, ann, UserId(999), ok.clone()), Err(EngineError::NotCopyable));
    share(&mut h, leader);
    assert_eq!(follow(&mut h, leader, leader, ok.clone()), Err(EngineError::Invalid("leader")));
    let cases = [
        (settings(0, "1", "10", "0"), "percent"),
        (settings(1_001, "1", "10", "0"), "percent"),
        (settings(100, "0", "10", "0"), "minStake"),
        (settings(100, "5", "4", "0"), "maxStake"),
        (settings(100, "1", "10", "-1"), "stopBelow"),
    ];
    for (bad, field) in cases {
        assert_eq!(follow(&mut h, ann, leader, bad), Err(EngineError::Invalid(field)));
    }
    assert_eq!(
        h.run(Command::EndCopy { by: ann, follower: ann, leader }),
        Err(EngineError::CopyNotFound)
    );
    follow(&mut h, ann, leader, ok).unwrap();
    h.check();
}

#[test]
fn either_side_ends_a_copy_and_a_leader_who_stops_sharing_ends_them_all() {
    let mut h = Harness::new();
    let (leader, ann, ben, eve) = (
        h.funded_user("lea", "100"),
        h.funded_user("ann", "100"),
        h.funded_user("ben", "100"),
        h.funded_user("eve", "100"),
    );
    share(&mut h, leader);
    for f in [ann, ben, eve] {
        follow(&mut h, f, leader, settings(100, "1", "10", "0")).unwrap();
    }
    // A third party cannot end someone else's copy.
    assert_eq!(
        h.run(Command::EndCopy { by: eve, follower: ann, leader }),
        Err(EngineError::CopyNotFound)
    );
    let from = h.events.len();
    h.ok(Command::EndCopy { by: ann, follower: ann, leader });
    h.ok(Command::EndCopy { by: leader, follower: ben, leader });
    h.ok(Command::SetCopyable { user: leader, copyable: false });
    assert_eq!(
        copy_changes(&h, from),
        [
            (ann, leader, CopyChange::Ended(CopyEnd::ByFollower)),
            (ben, leader, CopyChange::Ended(CopyEnd::ByLeader)),
            (eve, leader, CopyChange::Ended(CopyEnd::LeaderStopped)),
        ]
    );
    assert!(h.engine.copy_leaders().is_empty());
    assert!(!h.engine.account(leader).unwrap().leads);
    h.check();
}

#[test]
fn a_leaders_demo_orders_are_copied_onto_demo_wallets_only() {
    let mut h = Harness::new();
    h.set_rule(60, "0.85", "0");
    let (leader, real, demo) =
        (h.funded_user("lea", "100"), h.funded_user("ann", "100"), h.funded_user("ben", "100"));
    share(&mut h, leader);
    follow(&mut h, real, leader, settings(100, "1", "10", "0")).unwrap();
    let mut on_demo = settings(100, "1", "10", "0");
    on_demo.account = Demo;
    follow(&mut h, demo, leader, on_demo).unwrap();
    h.tick(btc(), "100");
    let from = h.events.len();
    h.order(leader, AccountKind::Demo, btc(), Direction::Up, "10", 60).unwrap();
    assert_eq!(opened(&h, from), [(leader, usdt("10"), None), (demo, usdt("10"), Some(leader))]);
    let copy = h.engine.open_contracts().find(|c| c.user == demo).unwrap();
    assert_eq!(copy.account, Demo);
    h.check();
}

#[test]
fn copies_and_follows_survive_a_snapshot() {
    let mut h = Harness::new();
    h.set_rule(60, "0.85", "0");
    let (leader, ann) = (h.funded_user("lea", "100"), h.funded_user("ann", "100"));
    share(&mut h, leader);
    follow(&mut h, ann, leader, settings(50, "1", "10", "0")).unwrap();
    h.tick(btc(), "100");
    h.order(leader, Real, btc(), Direction::Up, "10", 60).unwrap();
    let restored = engine::Engine::restore(&h.engine.snapshot_bytes()).unwrap();
    restored.check_invariants().unwrap();
    assert_eq!(restored.state_hash(), h.engine.state_hash());
    assert_eq!(restored.copy_view(ann), h.engine.copy_view(ann));
    assert!(restored.account(leader).unwrap().leads);
    let copy = h.engine.open_contracts().find(|c| c.user == ann).unwrap().id;
    assert_eq!(restored.copied_from(copy), Some(leader));
}

#[test]
fn a_copys_stake_is_the_share_rounded_half_to_even_within_the_bounds() {
    let s = settings(50, "1", "100", "0");
    assert_eq!(s.stake_for(usdt("10.01")), usdt("5.00")); // 5.005 -> 5.00 (even)
    assert_eq!(s.stake_for(usdt("10.03")), usdt("5.02")); // 5.015 -> 5.02 (even)
    assert_eq!(s.stake_for(usdt("1")), usdt("1")); // 0.50 raised to the minimum
    assert_eq!(s.stake_for(usdt("500")), usdt("100")); // 250 cut to the maximum
}

#[test]
fn the_number_of_traders_sharing_is_bounded() {
    let mut h = Harness::new();
    for n in 0..engine::copy::LEADERS_MAX {
        let user = h.register(&format!("leader{n}"), None);
        share(&mut h, user);
    }
    let late = h.register("latecomer", None);
    let refused = h.run(Command::SetCopyable { user: late, copyable: true });
    assert_eq!(refused, Err(EngineError::SharingFull));
    // Sharing again, or stopping, is always possible.
    share(&mut h, UserId(1));
    h.ok(Command::SetCopyable { user: UserId(1), copyable: false });
    share(&mut h, late);
    h.check();
}

#[test]
fn a_removed_follower_cannot_follow_again_and_a_frozen_leader_gains_none() {
    let mut h = Harness::new();
    let (leader, ann, ben) =
        (h.funded_user("lea", "100"), h.funded_user("ann", "100"), h.funded_user("ben", "100"));
    share(&mut h, leader);
    follow(&mut h, ann, leader, settings(100, "1", "10", "0")).unwrap();
    h.ok(Command::EndCopy { by: leader, follower: ann, leader });
    assert_eq!(
        follow(&mut h, ann, leader, settings(100, "1", "10", "0")),
        Err(EngineError::NotCopyable)
    );
    h.admin(engine::command::AdminAction::SetUserFrozen {
        user: leader,
        frozen: true,
        reason: "review".into(),
    });
    assert_eq!(
        follow(&mut h, ben, leader, settings(100, "1", "10", "0")),
        Err(EngineError::NotCopyable)
    );
    h.check();
}

#[test]
fn a_self_excluded_trader_cannot_start_copying_and_is_not_told_of_each_order_meanwhile() {
    let mut h = Harness::new();
    h.set_rule(60, "0.85", "0");
    let (leader, ann) = (h.funded_user("lea", "100"), h.funded_user("ann", "100"));
    share(&mut h, leader);
    follow(&mut h, ann, leader, settings(100, "1", "10", "0")).unwrap();
    let until_ms = h.now_ms + 3_600_000;
    h.ok(Command::SetTradingLimits {
        user: ann,
        limits: Box::new(engine::types::TradingLimits {
            excluded_until_ms: until_ms,
            ..Default::default()
        }),
    });
    h.tick(btc(), "100");
    let from = h.events.len();
    h.order(leader, Real, btc(), Direction::Up, "10", 60).unwrap();
    assert_eq!(opened(&h, from).len(), 1, "no copy while excluded");
    let told = h.events[from..].iter().any(|e| matches!(e, Event::CopyRefused { .. }));
    assert!(!told, "no refusal per order while excluded");
    let (other, ben) = (h.funded_user("otto", "100"), h.funded_user("ben", "100"));
    share(&mut h, other);
    assert_eq!(
        follow(&mut h, ann, other, settings(100, "1", "10", "0")),
        Err(EngineError::SelfExcluded { until_ms })
    );
    follow(&mut h, ben, other, settings(100, "1", "10", "0")).unwrap();
    h.check();
}
