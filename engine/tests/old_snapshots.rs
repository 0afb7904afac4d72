//! A snapshot written by the engine before money became integer cents still restores: the
//! archived layout of every amount is the `Decimal` encoding it always was. The fixture was
//! written by that engine (commit 4a295a6) after these commands: an admin funds the house with
//! 1 000 000 and lists BTCUSDT; alice and bob sign up and each deposit 500; alice buys up 12.34
//! for 60 s, a tick at 100 enters it, and a second later bob buys up 7.77. The default rules
//! and settings, with reserves kept at more decimals than cents.

mod common;

use common::{btc, usdt, Harness};
use engine::types::AccountKind::Real;
use engine::types::UserId;
use engine::{Engine, Events};

#[test]
fn a_snapshot_from_before_integer_money_restores_and_trades_on() {
    let bytes = include_bytes!("fixtures/decimal-money.snapshot");
    let engine = Engine::restore(bytes).expect("the old layout loads");
    engine.check_invariants().expect("restored state is consistent");
    // 60 s at 85 % and 0.5 + 0.3 + 0.2 % of referral rewards, no fee: the reserves were
    // 12.34 x 0.86 + 0.03 = 10.6424 and 7.77 x 0.86 + 0.03 = 6.7122, 17.3546 in all; each is
    // now rounded up to the cent.
    assert_eq!(engine.ledger().house_reserved, usdt("10.65") + usdt("6.72"));
    let alice = engine.account(UserId(1)).unwrap();
    assert_eq!((alice.real.available, alice.real.in_position), (usdt("487.66"), usdt("12.34")));
    let index = engine.applied_index();
    let mut h = Harness { engine, index, now_ms: 0, events: Events::new(), log: Vec::new() };
    h.now_ms = h.engine.now_ms() + 1_000;
    h.tick(btc(), "101"); // bob's entry
    h.advance(57_000);
    h.tick(btc(), "102"); // alice's exit: the last tick before her expiry
    h.advance(2_000);
    h.tick(btc(), "103"); // past alice's expiry, and bob's exit
    h.advance(1_500);
    h.tick(btc(), "104"); // past bob's expiry: both won
    let credits: Vec<_> = h.settlements().iter().map(|s| (s.contract.user, s.credited)).collect();
    assert_eq!(credits, [(UserId(1), usdt("22.83")), (UserId(2), usdt("14.37"))]);
    let alices = h.settlements()[0].wallet_change();
    assert_eq!((alices.user, alices.wallet.available), (UserId(1), usdt("510.49")));
    assert_eq!(h.available(UserId(1), Real), usdt("510.49").to_decimal());
    assert_eq!(h.engine.ledger().house_reserved, usdt("0"));
    h.check();
}

/// The snapshot's bytes, and so the state hash every member and build compares, do not move
/// when the engine's memory layout does: this state touches every field of an account
/// (wallets, open contracts, an inviter, pending deposit and withdrawal orders and the money
/// they freeze) and its hash is the one the engine before the one-line account gave. A
/// layout change that alters it must bump the snapshot version and keep old snapshots loading
/// (version 6 added early close's terms and volatility windows: 12 291 314 822 722 620 967
/// before it; version 7 copy trading's leaders and marks: 187 226 354 554 008 428 before it;
/// version 8 tournaments: 7 487 574 017 874 329 425 before it).
#[test]
fn the_state_hash_of_a_fixed_history_is_stable_across_builds() {
    use engine::command::{Command, RequestDeposit};
    use engine::types::{Chain, Destination, Direction, PayMethod};

    let mut h = Harness::new();
    let alice = h.funded_user("alice", "500");
    let code = h.engine.user(alice).unwrap().invite_code.clone();
    let bob = h.register("bob", Some(code));
    h.deposit(bob, "300");
    h.order(bob, Real, btc(), Direction::Up, "12.34", 60).unwrap();
    h.order(alice, engine::types::AccountKind::Demo, btc(), Direction::Down, "5", 60).unwrap();
    h.ok(Command::RequestDeposit(Box::new(RequestDeposit {
        user: bob,
        amount: common::dec("40"),
        method: PayMethod::UsdtTrc20,
        account_name: "Bob".into(),
        account_number: "TXYZ".into(),
        bank_name: String::new(),
        receipt: "second.png".into(),
    })));
    h.ok(Command::RequestWithdrawal {
        user: alice,
        amount: common::dec("25"),
        destination: Box::new(Destination::Wallet {
            chain: Chain::Tron,
            address: "TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz".into(),
        }),
    });
    h.check();
    assert_eq!(h.engine.account(bob).unwrap().inviter(), Some(alice));
    let restored = Engine::restore(&h.engine.snapshot_bytes()).expect("restores");
    restored.check_invariants().expect("restored state is consistent");
    assert_eq!(restored.state_hash(), h.engine.state_hash());
    assert_eq!(h.engine.state_hash(), 7_419_758_747_666_320_545);
}

/// A snapshot of version 6, from before copy trading, restores with nobody sharing or copying,
/// its open contracts settle, and copying then works. The fixture was written by that engine
/// (commit 61699c2) after these commands: alice and bob sign up with 500 and 300; bob buys up
/// 12.34 and alice buys down 5, both real, for 60 s, with no tick yet.
#[test]
fn a_snapshot_from_before_copy_trading_restores_and_copies_after() {
    use engine::command::Command;
    use engine::types::Direction;

    let bytes = include_bytes!("fixtures/before-copy.snapshot");
    let engine = Engine::restore(bytes).expect("version 6 loads");
    engine.check_invariants().expect("restored state is consistent");
    assert!(engine.copy_leaders().is_empty());
    let (alice, bob) = (UserId(1), UserId(2));
    assert_eq!(engine.open_contract_count(), 2);
    let index = engine.applied_index();
    let mut h = Harness { engine, index, now_ms: 0, events: Events::new(), log: Vec::new() };
    h.now_ms = h.engine.now_ms() + 1_000;
    h.ok(Command::SetCopyable { user: alice, copyable: true });
    h.ok(Command::Follow {
        follower: bob,
        leader: alice,
        settings: Box::new(engine::copy::CopySettings {
            account: Real,
            percent: 100,
            min_stake: usdt("1"),
            max_stake: usdt("50"),
            stop_below: usdt("0"),
        }),
    });
    h.tick(btc(), "100"); // both old contracts enter
    h.order(alice, Real, btc(), Direction::Up, "7", 60).unwrap();
    assert_eq!(h.engine.open_contract_count(), 4, "alice's order and bob's copy");
    h.advance(120_000);
    h.tick(btc(), "101");
    h.advance(2_000);
    h.tick(btc(), "102");
    assert_eq!(h.engine.open_contract_count(), 0);
    let copies = h.settlements().iter().filter(|s| s.leader() == Some(alice)).count();
    assert_eq!(copies, 1);
    h.check();
}

/// A snapshot of version 7, from before tournaments, restores with none, its open contracts
/// (a leader's and its copy) settle, and a tournament can then be played. The fixture was
/// written by that engine (commit da52350) after these commands: alice and bob sign up with
/// 500 and 300; alice shares her trades and bob copies them at 100 % (1 to 50 USDT); alice
/// buys up 7 real for 60 s, copied to bob, with no tick yet.
#[test]
fn a_snapshot_from_before_tournaments_restores_and_plays_one_after() {
    use engine::command::{AdminAction, Command};
    use engine::tournament::{TournamentRules, TournamentStatus};
    use engine::types::Direction;

    let bytes = include_bytes!("fixtures/before-tournaments.snapshot");
    let engine = Engine::restore(bytes).expect("version 7 loads");
    engine.check_invariants().expect("restored state is consistent");
    assert_eq!(engine.tournaments().count(), 0);
    let (alice, bob) = (UserId(1), UserId(2));
    assert_eq!(engine.open_contract_count(), 2);
    assert_eq!(engine.copy_leaders().len(), 1);
    let index = engine.applied_index();
    let mut h = Harness { engine, index, now_ms: 0, events: Events::new(), log: Vec::new() };
    h.now_ms = h.engine.now_ms() + 1_000;
    let start_ms = h.now_ms + 1_000;
    let rules = TournamentRules {
        title: "After the upgrade".into(),
        symbols: Vec::new(),
        durations: Vec::new(),
        start_ms,
        end_ms: start_ms + 600_000,
        entry_fee: usdt("5"),
        start_balance: usdt("100"),
        rebuys_max: 0,
        rebuy_fee: usdt("0"),
        rebuy_below: usdt("0"),
        pool_share_bp: 10_000,
        pool_min: usdt("0"),
        prizes_bp: vec![10_000],
    };
    h.admin(AdminAction::CreateTournament(Box::new(rules)));
    h.admin(AdminAction::PublishTournament { tournament: 1 });
    h.ok(Command::JoinTournament { user: bob, tournament: 1 });
    h.tick(btc(), "100"); // the old contracts enter
    h.advance(1_000);
    h.order(bob, engine::types::AccountKind::Tournament, btc(), Direction::Up, "10", 60).unwrap();
    h.advance(1_000);
    h.tick(btc(), "100"); // the tournament contract enters
    h.advance(57_000);
    h.tick(btc(), "101"); // the old contracts' exit
    h.advance(2_000);
    h.tick(btc(), "101"); // the tournament contract's exit
    h.advance(2_000);
    h.tick(btc(), "102");
    assert_eq!(h.engine.open_contract_count(), 0);
    assert_eq!(h.engine.tournament(1).unwrap().seats[0].wallet.available, usdt("108.50"));
    h.now_ms = start_ms + 600_000;
    h.ok(Command::Timer);
    assert_eq!(h.engine.open_contract_count(), 0);
    let t = h.engine.tournament(1).unwrap();
    assert_eq!(
        (t.status, t.table[0].user, t.table[0].prize),
        (TournamentStatus::Finished, bob, usdt("5"))
    );
    assert!(h.settlements().iter().any(|s| s.contract.user == alice));
    h.check();
}
