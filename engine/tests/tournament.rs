//! Tournaments (decisions §11): entry fees and rebuys are real money with bills, the
//! tournament balance is a third kind of account, and the engine ranks the final balances and
//! pays the prizes from the log alone.

mod common;

use common::{btc, eurusd, usdt, Harness};
use engine::command::{AdminAction, Command};
use engine::money::Money;
use engine::tournament::{TournamentId, TournamentRules, TournamentStatus};
use engine::types::AccountKind::{Real, Tournament};
use engine::types::{BillType, Direction, TradingLimits, UserId};
use engine::{EngineError, Event, Reply};

const MINUTE_MS: u64 = 60_000;

/// 10 USDT to enter for 1 000 to play, one rebuy of 10 below 500, 80 % of the fees in the
/// pool with 50 guaranteed, paid 60 / 30 / 10 %; BTCUSDT over 60 s, for ten minutes from a
/// minute after `now`.
fn rules(now_ms: u64) -> TournamentRules {
    let start_ms = now_ms + MINUTE_MS;
    TournamentRules {
        title: "Friday sprint".into(),
        symbols: vec![btc()],
        durations: vec![60],
        start_ms,
        end_ms: start_ms + 10 * MINUTE_MS,
        entry_fee: usdt("10"),
        start_balance: usdt("1000"),
        rebuys_max: 1,
        rebuy_fee: usdt("10"),
        rebuy_below: usdt("500"),
        pool_share_bp: 8_000,
        pool_min: usdt("50"),
        prizes_bp: vec![6_000, 3_000, 1_000],
    }
}

fn create(h: &mut Harness, rules: TournamentRules) -> TournamentId {
    match h.admin(AdminAction::CreateTournament(Box::new(rules))) {
        Reply::TournamentCreated { tournament } => tournament,
        other => panic!("unexpected {other:?}"),
    }
}

fn published(h: &mut Harness, rules: TournamentRules) -> TournamentId {
    let id = create(h, rules);
    h.admin(AdminAction::PublishTournament { tournament: id });
    id
}

fn join(h: &mut Harness, user: UserId, tournament: TournamentId) -> Result<Reply, EngineError> {
    h.run(Command::JoinTournament { user, tournament })
}

fn play(
    h: &mut Harness,
    user: UserId,
    direction: Direction,
    stake: &str,
) -> Result<Reply, EngineError> {
    h.order(user, Tournament, btc(), direction, stake, 60)
}

fn seat_balance(h: &Harness, tournament: TournamentId, user: UserId) -> Money {
    let t = h.engine.tournament(tournament).unwrap();
    t.seats.iter().find(|s| s.user == user).unwrap().wallet.total()
}

/// Real-money bills of one type since event `from`: (user, amount).
fn bills(h: &Harness, from: usize, kind: BillType) -> Vec<(UserId, Money)> {
    h.events[from..]
        .iter()
        .filter_map(|e| match e {
            Event::Wallet(w) if w.bill == Some(kind) && w.account == Real => {
                Some((w.user, w.amount))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_tournament_from_publish_to_prizes_with_a_rebuy_and_a_tie() {
    let mut h = Harness::new();
    let house = h.engine.ledger().house;
    let players: Vec<UserId> =
        ["alice", "bob", "carol", "dave", "eve"].iter().map(|n| h.funded_user(n, "100")).collect();
    let [alice, bob, carol, dave, eve] = players[..] else { unreachable!() };
    let from = h.events.len();
    let id = {
        let r = rules(h.now_ms);
        published(&mut h, r)
    };
    assert_eq!(h.engine.tournament_reserve(), usdt("50"), "the guaranteed pool is held aside");
    for &p in &players {
        join(&mut h, p, id).unwrap();
    }
    assert_eq!(bills(&h, from, BillType::TournamentFee).len(), 5);
    assert_eq!(h.engine.account(alice).unwrap().real.available, usdt("90"));
    assert_eq!(
        play(&mut h, alice, Direction::Up, "600"),
        Err(EngineError::NoTournamentBalance),
        "no trading before the start"
    );
    h.advance(MINUTE_MS);
    play(&mut h, alice, Direction::Up, "600").unwrap();
    play(&mut h, bob, Direction::Down, "600").unwrap();
    play(&mut h, carol, Direction::Up, "100").unwrap();
    assert_eq!(
        h.order(dave, Tournament, eurusd(), Direction::Up, "10", 60),
        Err(EngineError::NotTournamentProduct)
    );
    assert_eq!(
        h.run(Command::Rebuy { user: bob, tournament: id }),
        Err(EngineError::RebuyUnavailable),
        "400 available is below 500, but 600 more is in position: the total is not"
    );
    assert_eq!(h.engine.account(alice).unwrap().real.available, usdt("90"), "real untouched");
    h.advance(1_000);
    h.tick(btc(), "100");
    h.advance(60_000);
    h.tick(btc(), "101");
    h.advance(1_000);
    h.tick(btc(), "102");
    // 85 % payout over 60 s, no fee.
    assert_eq!(seat_balance(&h, id, alice), usdt("1510"));
    assert_eq!(seat_balance(&h, id, bob), usdt("400"));
    assert_eq!(seat_balance(&h, id, carol), usdt("1085"));
    h.ok(Command::Rebuy { user: bob, tournament: id });
    assert_eq!(seat_balance(&h, id, bob), usdt("1400"));
    // Every fee is held aside until the end (refunds and the pool come from them).
    assert_eq!(h.engine.tournament_reserve(), usdt("60"));
    let again = h.run(Command::Rebuy { user: bob, tournament: id });
    assert_eq!(again, Err(EngineError::RebuyUnavailable), "one rebuy allowed");
    h.check();
    // The last minute: an order that would expire after the end is refused.
    h.now_ms = h.engine.tournament(id).unwrap().rules.end_ms - 30_000;
    assert_eq!(play(&mut h, alice, Direction::Up, "5"), Err(EngineError::TournamentClosed));
    h.now_ms += 30_000;
    h.ok(Command::Timer);
    let t = h.engine.tournament(id).unwrap();
    assert_eq!(t.status, TournamentStatus::Finished);
    // Fees 6 x 10 = 60, 80 % is 48, below the guaranteed 50: 30 / 15 / 5.
    let table: Vec<_> = t.table.iter().map(|p| (p.user, p.balance, p.prize)).collect();
    assert_eq!(
        table,
        [
            (alice, usdt("1510"), usdt("30")),
            (bob, usdt("1400"), usdt("15")),
            (carol, usdt("1085"), usdt("5")),
            // Equal balances: dave's was reached first (he entered first).
            (dave, usdt("1000"), usdt("0")),
            (eve, usdt("1000"), usdt("0")),
        ]
    );
    assert_eq!(
        bills(&h, from, BillType::TournamentPrize),
        [(alice, usdt("30")), (bob, usdt("15")), (carol, usdt("5"))]
    );
    assert_eq!(h.engine.account(alice).unwrap().real.available, usdt("120"));
    assert_eq!(h.engine.account(bob).unwrap().real.available, usdt("95"));
    assert_eq!(h.engine.ledger().house, house + usdt("60") - usdt("50"));
    assert_eq!(h.engine.tournament_reserve(), Money::ZERO);
    assert!(h.engine.entered_tournaments(alice).is_empty());
    assert_eq!(play(&mut h, alice, Direction::Up, "5"), Err(EngineError::NoTournamentBalance));
    h.check();
}

#[test]
fn the_pool_grows_with_the_fees_past_its_minimum() {
    let mut h = Harness::new();
    let mut r = rules(h.now_ms);
    r.entry_fee = usdt("25");
    r.prizes_bp = vec![10_000];
    let id = published(&mut h, r);
    let players: Vec<UserId> =
        ["ann", "ben", "cat"].iter().map(|n| h.funded_user(n, "100")).collect();
    for &p in &players {
        join(&mut h, p, id).unwrap();
    }
    h.now_ms = h.engine.tournament(id).unwrap().rules.end_ms;
    h.ok(Command::Timer);
    let t = h.engine.tournament(id).unwrap();
    // 75 in fees, 80 % = 60 > 50; everyone at 1 000: the first to enter wins.
    assert_eq!((t.pool, t.table[0].user, t.table[0].prize), (usdt("60"), players[0], usdt("60")));
    h.check();
}

#[test]
fn a_contract_open_at_the_end_settles_before_the_ranking() {
    let mut h = Harness::new();
    let alice = h.funded_user("alice", "100");
    let id = {
        let r = rules(h.now_ms);
        published(&mut h, r)
    };
    join(&mut h, alice, id).unwrap();
    let end = h.engine.tournament(id).unwrap().rules.end_ms;
    h.now_ms = end - 60_000;
    play(&mut h, alice, Direction::Down, "100").unwrap();
    h.advance(2_000);
    h.tick(btc(), "100"); // entry two seconds late: expiry a second after the end
    h.now_ms = end;
    h.ok(Command::Timer);
    assert_eq!(h.engine.tournament(id).unwrap().status, TournamentStatus::Published);
    h.advance(1_500);
    h.tick(btc(), "99"); // the exit
    h.advance(1_000);
    h.tick(btc(), "98"); // past expiry: settles
    h.ok(Command::Timer);
    let t = h.engine.tournament(id).unwrap();
    assert_eq!(t.status, TournamentStatus::Finished);
    assert_eq!(t.table[0].balance, usdt("1085"));
    h.check();
}

#[test]
fn a_cancelled_tournament_refunds_every_fee() {
    let mut h = Harness::new();
    let house = h.engine.ledger().house;
    let (ann, ben) = (h.funded_user("ann", "100"), h.funded_user("ben", "100"));
    let id = {
        let r = rules(h.now_ms);
        published(&mut h, r)
    };
    join(&mut h, ann, id).unwrap();
    join(&mut h, ben, id).unwrap();
    let from = h.events.len();
    h.admin(AdminAction::CancelTournament { tournament: id });
    assert_eq!(bills(&h, from, BillType::TournamentRefund), [(ann, usdt("10")), (ben, usdt("10"))]);
    assert_eq!(h.engine.account(ann).unwrap().real.available, usdt("100"));
    assert_eq!(h.engine.ledger().house, house);
    assert_eq!(h.engine.tournament_reserve(), Money::ZERO);
    assert_eq!(h.engine.tournament(id).unwrap().status, TournamentStatus::Cancelled);
    assert_eq!(join(&mut h, ann, id), Err(EngineError::TournamentClosed));
    h.check();

    let running = {
        let r = rules(h.now_ms);
        published(&mut h, r)
    };
    h.advance(MINUTE_MS);
    let refused = h.run(Command::Admin {
        admin: engine::types::AdminId(1),
        action: Box::new(AdminAction::CancelTournament { tournament: running }),
    });
    assert_eq!(refused, Err(EngineError::TournamentClosed), "not once it has started");
    h.check();
}

#[test]
fn rules_are_checked_and_fixed_once_published() {
    let mut h = Harness::new();
    let admin = |action: AdminAction| Command::Admin {
        admin: engine::types::AdminId(1),
        action: Box::new(action),
    };
    let bad = [
        (TournamentRules { prizes_bp: vec![5_000, 4_000], ..rules(h.now_ms) }, "prizes"),
        (TournamentRules { prizes_bp: vec![4_000, 6_000], ..rules(h.now_ms) }, "prizes"),
        (TournamentRules { end_ms: h.now_ms - 1, ..rules(h.now_ms) }, "endMs"),
        (TournamentRules { title: " ".into(), ..rules(h.now_ms) }, "title"),
        (TournamentRules { durations: vec![7], ..rules(h.now_ms) }, "durations"),
        (TournamentRules { rebuy_below: usdt("2000"), ..rules(h.now_ms) }, "rebuyBelow"),
        (TournamentRules { pool_share_bp: 10_001, ..rules(h.now_ms) }, "poolShare"),
    ];
    for (r, field) in bad {
        let refused = h.run(admin(AdminAction::CreateTournament(Box::new(r))));
        assert_eq!(refused, Err(EngineError::Invalid(field)));
    }
    let id = {
        let r = rules(h.now_ms);
        create(&mut h, r)
    };
    let r = TournamentRules { title: "Renamed".into(), ..rules(h.now_ms) };
    h.admin(AdminAction::UpdateTournament { tournament: id, rules: Box::new(r.clone()) });
    assert_eq!(h.engine.tournament(id).unwrap().rules.title, "Renamed");
    let ann = h.funded_user("ann", "100");
    assert_eq!(join(&mut h, ann, id), Err(EngineError::TournamentClosed), "a draft takes nobody");
    h.admin(AdminAction::PublishTournament { tournament: id });
    let update = admin(AdminAction::UpdateTournament { tournament: id, rules: Box::new(r) });
    assert_eq!(h.run(update), Err(EngineError::TournamentClosed));
    h.check();
}

#[test]
fn entries_are_bounded_by_time_balance_and_limits() {
    let mut h = Harness::new();
    let ann = h.funded_user("ann", "100");
    let poor = h.funded_user("poor", "10");
    let first = {
        let r = rules(h.now_ms);
        published(&mut h, r)
    };
    join(&mut h, ann, first).unwrap();
    let fees = h.events.len();
    join(&mut h, ann, first).unwrap();
    assert!(bills(&h, fees, BillType::TournamentFee).is_empty(), "entering twice charges once");
    let overlapping = {
        let r = rules(h.now_ms + 5 * MINUTE_MS);
        published(&mut h, r)
    };
    assert_eq!(join(&mut h, ann, overlapping), Err(EngineError::TournamentOverlap));
    let later = {
        let r = rules(h.now_ms + 20 * MINUTE_MS);
        published(&mut h, r)
    };
    join(&mut h, ann, later).unwrap();
    join(&mut h, poor, later).unwrap();
    assert_eq!(join(&mut h, poor, first), Err(EngineError::InsufficientBalance));
    let limited = h.funded_user("limited", "100");
    h.ok(Command::SetTradingLimits {
        user: limited,
        limits: Box::new(TradingLimits {
            daily_loss: Some(common::dec("5")),
            ..Default::default()
        }),
    });
    assert_eq!(join(&mut h, limited, first), Err(EngineError::DailyLossLimit));
    // Entries close when the shortest allowed contract no longer fits before the end.
    h.now_ms = h.engine.tournament(first).unwrap().rules.end_ms - 59_000;
    let late = h.funded_user("late", "100");
    assert_eq!(join(&mut h, late, first), Err(EngineError::TournamentClosed));
    h.check();
}

#[test]
fn tournament_orders_are_not_copied_and_survive_a_snapshot() {
    let mut h = Harness::new();
    let (leader, follower) = (h.funded_user("leader", "100"), h.funded_user("follower", "100"));
    h.ok(Command::SetCopyable { user: leader, copyable: true });
    h.ok(Command::Follow {
        follower,
        leader,
        settings: Box::new(engine::copy::CopySettings {
            account: Real,
            percent: 100,
            min_stake: usdt("1"),
            max_stake: usdt("50"),
            stop_below: usdt("0"),
        }),
    });
    let id = {
        let r = rules(h.now_ms);
        published(&mut h, r)
    };
    join(&mut h, leader, id).unwrap();
    h.advance(MINUTE_MS);
    play(&mut h, leader, Direction::Up, "20").unwrap();
    assert_eq!(h.engine.open_contract_count(), 1, "no copy of a tournament order");
    h.check();
    let restored = engine::Engine::restore(&h.engine.snapshot_bytes()).expect("restores");
    restored.check_invariants().unwrap();
    assert_eq!(restored.state_hash(), h.engine.state_hash());
    assert_eq!(restored.entered_tournaments(leader), [id]);
    h.engine = restored;
    h.advance(1_000);
    h.tick(btc(), "100");
    h.advance(59_000);
    h.tick(btc(), "101"); // the exit
    h.advance(2_000);
    h.tick(btc(), "101");
    assert_eq!(seat_balance(&h, id, leader), usdt("1017"));
    h.check();
}
