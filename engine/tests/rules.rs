//! The contract and money rules of decisions.md §2-§5, one scenario each.

// A scenario reads as one story from start to end: the line limit is for the product's code.
#![allow(clippy::too_many_lines)]

mod common;

use common::{btc, dec, eurusd, usdt, Harness, MONDAY_MS};
use engine::command::{AdminAction, Command};
use engine::types::{
    AccountKind::*, AdminId, BillType, ContractId, Destination, Direction::*, Outcome, Role, UserId,
};
use engine::{EngineError, Event, Reply};

fn contract_id(reply: Result<Reply, EngineError>) -> u64 {
    match reply {
        Ok(Reply::OrderAccepted { contract, .. }) => contract.into(),
        other => panic!("order refused: {other:?}"),
    }
}

#[test]
fn a_rising_price_pays_stake_times_one_plus_rate_on_an_up_contract() {
    let mut h = Harness::new();
    let alice = h.funded_user("alice", "100");
    h.tick(btc(), "50000"); // before acceptance: not the entry
    let id = contract_id(h.order(alice, Real, btc(), Up, "10", 60));
    assert_eq!(h.available(alice, Real), dec("90"));
    h.advance(1_000);
    h.tick(btc(), "50010"); // entry
    let start = h.now_ms;
    h.advance(60_000);
    h.tick(btc(), "50020"); // time == expiry: still counts as the exit
    h.advance(1);
    h.tick(btc(), "49000"); // after expiry: triggers settlement on the previous tick
    let s = h.settlements()[0];
    assert_eq!(s.contract.id, ContractId(id));
    assert_eq!(s.outcome, Outcome::Win);
    assert_eq!(s.contract.entry.unwrap().price, dec("50010"));
    assert_eq!(s.contract.entry.unwrap().time_ms, start);
    assert_eq!(s.contract.expiry_ms, start + 60_000);
    assert_eq!(s.exit.unwrap().price, dec("50020"));
    assert_eq!(s.credited, usdt("18.50"));
    assert_eq!(h.available(alice, Real), dec("108.50"));
    h.check();
}

#[test]
fn a_wrong_direction_loses_the_stake_to_the_house() {
    let mut h = Harness::new();
    let bob = h.funded_user("bob", "100");
    let house = h.engine.ledger().house;
    contract_id(h.order(bob, Real, btc(), Down, "25", 60));
    h.tick(btc(), "100");
    h.advance(58_000);
    h.tick(btc(), "101");
    h.advance(3_000);
    h.tick(btc(), "90");
    assert_eq!(h.settlements()[0].outcome, Outcome::Loss);
    assert_eq!(h.available(bob, Real), dec("75"));
    assert_eq!(h.engine.ledger().house, house + usdt("25"));
    h.check();
}

#[test]
fn a_tie_returns_the_stake_and_keeps_the_fee() {
    let mut h = Harness::new();
    h.set_rule(60, "0.85", "0.01");
    let carol = h.funded_user("carol", "100");
    let reply = h.order(carol, Real, btc(), Up, "10", 60).unwrap();
    assert_eq!(reply, Reply::OrderAccepted { contract: ContractId(1), fee: usdt("0.10") });
    assert_eq!(h.available(carol, Real), dec("89.90"));
    h.tick(btc(), "100");
    h.advance(57_000);
    h.tick(btc(), "100");
    h.advance(4_000);
    h.tick(btc(), "105");
    assert_eq!(h.settlements()[0].outcome, Outcome::Tie);
    assert_eq!(h.available(carol, Real), dec("99.90"));
    h.check();
}

#[test]
fn payouts_round_half_to_even_cents() {
    let mut h = Harness::new();
    let dave = h.funded_user("dave", "100");
    contract_id(h.order(dave, Real, btc(), Up, "3.30", 60)); // 3.30 x 1.85 = 6.105 -> 6.10
    h.tick(btc(), "1");
    h.advance(59_000);
    h.tick(btc(), "2");
    h.advance(2_000);
    h.tick(btc(), "2");
    assert_eq!(h.settlements()[0].credited, usdt("6.10"));
    h.check();
}

#[test]
fn the_timer_settles_after_expiry_plus_grace_with_the_last_tick() {
    let mut h = Harness::new();
    let erin = h.funded_user("erin", "100");
    contract_id(h.order(erin, Real, btc(), Up, "10", 60));
    h.tick(btc(), "100");
    h.advance(57_000);
    h.tick(btc(), "101");
    h.advance(3_000 + 1_999); // expiry + 1.999 s: not yet
    assert_eq!(h.ok(Command::Timer), Reply::Clock { entered: 0, settled: 0 });
    h.advance(1);
    assert_eq!(h.ok(Command::Timer), Reply::Clock { entered: 0, settled: 1 });
    let s = h.settlements()[0];
    assert_eq!((s.outcome, s.exit.unwrap().price), (Outcome::Win, dec("101")));
    h.check();
}

#[test]
fn no_entry_tick_within_five_seconds_voids_and_refunds_stake_and_fee() {
    let mut h = Harness::new();
    h.set_rule(60, "0.85", "0.02");
    let fay = h.funded_user("fay", "100");
    contract_id(h.order(fay, Real, btc(), Up, "10", 60));
    h.advance(5_000);
    assert_eq!(h.ok(Command::Timer), Reply::Clock { entered: 0, settled: 0 });
    h.advance(1);
    h.ok(Command::Timer);
    assert_eq!(h.settlements()[0].outcome, Outcome::VoidNoEntry);
    assert_eq!(h.available(fay, Real), dec("100"));
    // A late tick does not enter a voided contract, and a late first tick voids too.
    contract_id(h.order(fay, Real, btc(), Up, "10", 60));
    h.advance(6_000);
    h.tick(btc(), "100");
    assert_eq!(h.settlements()[1].outcome, Outcome::VoidNoEntry);
    assert_eq!(h.available(fay, Real), dec("100"));
    h.check();
}

#[test]
fn a_stale_feed_before_expiry_voids() {
    let mut h = Harness::new();
    let gus = h.funded_user("gus", "100");
    contract_id(h.order(gus, Real, btc(), Up, "10", 60));
    h.tick(btc(), "100");
    h.advance(54_000);
    h.tick(btc(), "120"); // 6 s before expiry: too old to be the exit
    h.advance(8_000);
    h.ok(Command::Timer);
    assert_eq!(h.settlements()[0].outcome, Outcome::VoidStaleFeed);
    assert_eq!(h.available(gus, Real), dec("100"));
    h.check();
}

#[test]
fn forex_refuses_orders_at_the_weekend_and_voids_contracts_that_cross_the_close() {
    let friday_2159 = MONDAY_MS + (4 * 24 + 21) * 3_600_000 + 59 * 60_000;
    let mut h = Harness::at(friday_2159);
    let hal = h.funded_user("hal", "100");
    contract_id(h.order(hal, Real, eurusd(), Up, "10", 300));
    h.tick(eurusd(), "1.1");
    h.advance(61_000); // 22:00:01, closed
    assert_eq!(h.order(hal, Real, eurusd(), Up, "10", 60), Err(EngineError::MarketClosed));
    for _ in 0..60 {
        h.advance(4_000);
        h.tick(eurusd(), "1.2");
    }
    assert_eq!(h.settlements()[0].outcome, Outcome::VoidMarketClosed);
    assert_eq!(h.available(hal, Real), dec("100"));
    h.check();
}

#[test]
fn three_generations_of_inviters_earn_rewards_on_real_contracts_only() {
    let mut h = Harness::new();
    let g3 = h.register("grand3", None);
    let code = |h: &Harness, u| h.engine.user(u).unwrap().invite_code.clone();
    let g2 = h.register("grand2", Some(code(&h, g3)));
    let g1 = h.register("parent", Some(code(&h, g2)));
    let trader = h.register("trader", Some(code(&h, g1)));
    h.deposit(trader, "1000");
    for account in [Real, Demo] {
        contract_id(h.order(trader, account, btc(), Up, "1000", 60));
    }
    h.tick(btc(), "10");
    h.advance(59_000);
    h.tick(btc(), "9");
    h.advance(2_000);
    h.tick(btc(), "9");
    assert_eq!(h.settlements().len(), 2);
    assert_eq!(h.available(g1, Real), dec("5.00"));
    assert_eq!(h.available(g2, Real), dec("3.00"));
    assert_eq!(h.available(g3, Real), dec("2.00"));
    let rewards = h
        .events
        .iter()
        .filter(|e| matches!(e, Event::Wallet(w) if w.bill == Some(BillType::Reward)))
        .count();
    assert_eq!(rewards, 3);
    assert_eq!(h.engine.team(g3), [vec![g2], vec![g1], vec![trader]]);
    h.check();
}

#[test]
fn a_settlement_is_its_owners_wallet_change_with_the_bill_of_its_outcome() {
    let mut h = Harness::new();
    let ann = h.funded_user("ann", "100");
    contract_id(h.order(ann, Real, btc(), Up, "10", 60));
    contract_id(h.order(ann, Real, btc(), Down, "20", 60));
    contract_id(h.order(ann, Real, btc(), Up, "30", 300));
    h.tick(btc(), "10");
    h.advance(60_000);
    h.tick(btc(), "11");
    h.advance(1_000);
    h.tick(btc(), "11");
    let settled = h.settlements();
    assert_eq!(settled.len(), 2);
    let win = settled.iter().find(|s| s.outcome == Outcome::Win).unwrap().wallet_change();
    let loss = settled.iter().find(|s| s.outcome == Outcome::Loss).unwrap().wallet_change();
    assert_eq!((win.bill, win.amount), (Some(BillType::Profit), usdt("8.50")));
    assert_eq!((loss.bill, loss.amount), (Some(BillType::Loss), usdt("-20")));
    // The second settled last: its wallet is the account's now, with the third still staked.
    let last = settled[1].wallet_change();
    assert_eq!(&last.wallet, h.engine.account(ann).unwrap().wallet(Real));
    assert_eq!(last.wallet.in_position, usdt("30"));
    assert_eq!((last.user, last.account), (ann, Real));
    assert_eq!(last.reference, settled[1].contract.id.get());
    assert!(!h.events.iter().any(|e| matches!(e, Event::Wallet(w) if w.bill == Some(BillType::Profit) || w.bill == Some(BillType::Loss))));
    h.check();
}

#[test]
fn a_tie_earns_the_inviters_no_reward() {
    let mut h = Harness::new();
    let inviter = h.register("inviter", None);
    let code = h.engine.user(inviter).unwrap().invite_code.clone();
    let trader = h.register("trader", Some(code));
    h.deposit(trader, "100");
    contract_id(h.order(trader, Real, btc(), Up, "100", 60));
    h.tick(btc(), "10");
    h.advance(59_000);
    h.tick(btc(), "10");
    h.advance(2_000);
    h.tick(btc(), "11");
    assert_eq!(h.settlements()[0].outcome, Outcome::Tie);
    assert_eq!(h.available(inviter, Real), dec("0"));
    assert_eq!(h.available(trader, Real), dec("100"));
    h.check();
}

/// decisions §5: payout rate + reward rates must never let a matched Up and Down pair gain.
#[test]
fn rules_and_reward_rates_under_which_a_matched_pair_gains_are_refused() {
    let mut h = Harness::new();
    let rule = |payout: &str, fee: &str, stake_min: &str| engine::types::Rule {
        duration_secs: 60,
        payout_rate: dec(payout),
        stake_min: dec(stake_min),
        stake_max: dec("5000"),
        fee_rate: dec(fee),
        enabled: true,
    };
    let set = |h: &mut Harness, r| {
        h.run(Command::Admin { admin: AdminId(1), action: Box::new(AdminAction::SetRule(r)) })
    };
    let before = h.engine.rules().to_vec();
    // The case: payout 1 with 1 % of rewards. A pair stakes 2 s, gets back 2 s and
    // earns 2 × 1 % of s in rewards.
    let refused = set(&mut h, rule("1", "0", "1")).unwrap_err();
    assert_eq!(refused.code(), "PAIR_COULD_GAIN");
    assert!(matches!(refused, EngineError::PairCouldGain { duration_secs: 60, .. }));
    // Close to the edge: 97 % + 2 × 1 % leaves 1 cent a unit, less than rounding can add at a
    // stake of 1; at a smallest stake of 10 the pair surely loses.
    assert!(set(&mut h, rule("0.97", "0", "1")).is_err());
    assert!(set(&mut h, rule("0.97", "0", "10")).is_ok());
    // A fee counts for the house: 1 + 2 × 1 % fee covers a payout of 98 % at a stake of 5.
    assert!(set(&mut h, rule("0.98", "0.01", "5")).is_ok());
    h.set_rule(60, "0.85", "0");
    assert_eq!(h.engine.rules().len(), before.len());
    // Raising reward rates is checked against every rule.
    let mut settings = h.engine.settings().clone();
    settings.reward_rates = vec![dec("0.05"), dec("0.03"), dec("0.02")];
    let refused = h.run(Command::Admin {
        admin: AdminId(1),
        action: Box::new(AdminAction::UpdateSettings(Box::new(settings))),
    });
    assert_eq!(refused.unwrap_err().code(), "PAIR_COULD_GAIN");
    h.check();
}

#[test]
fn acceptance_checks_refuse_and_change_nothing() {
    let mut h = Harness::new();
    let ivy = h.funded_user("ivy", "50");
    let before = h.engine.content_hash();
    let refused = [
        (h.order(ivy, Real, btc(), Up, "0.5", 60), "STAKE_OUT_OF_RANGE"),
        (h.order(ivy, Real, btc(), Up, "5001", 60), "STAKE_OUT_OF_RANGE"),
        (h.order(ivy, Real, btc(), Up, "1.001", 60), "VALIDATION"),
        (h.order(ivy, Real, btc(), Up, "60", 60), "INSUFFICIENT_BALANCE"),
        (h.order(ivy, Real, btc(), Up, "10", 61), "DURATION_NOT_ALLOWED"),
        (
            h.order(ivy, Real, engine::types::Symbol::new("XXXUSDT").unwrap(), Up, "10", 60),
            "PRODUCT_NOT_FOUND",
        ),
        (h.order(UserId(99), Real, btc(), Up, "10", 60), "USER_NOT_FOUND"),
    ];
    for (result, code) in refused {
        assert_eq!(result.unwrap_err().code(), code);
    }
    // Refusals leave the state exactly as it was.
    assert_eq!(h.engine.content_hash(), before);
    assert_eq!(h.available(ivy, Real), dec("50"));
    h.check();
}

#[test]
fn the_open_contract_cap_and_the_house_reserve_hold() {
    let mut h = Harness::new();
    let mut settings = h.engine.settings().clone();
    settings.open_contracts_per_user_max = 2;
    h.admin(AdminAction::UpdateSettings(Box::new(settings)));
    let jo = h.funded_user("joe", "100");
    contract_id(h.order(jo, Real, btc(), Up, "1", 60));
    contract_id(h.order(jo, Real, btc(), Up, "1", 60));
    assert_eq!(h.order(jo, Real, btc(), Up, "1", 60), Err(EngineError::TooManyOpenContracts));

    // A house with less than one contract's worst case refuses it.
    let mut small = Harness::at(MONDAY_MS);
    let rich = small.register("rich", None);
    small.admin(AdminAction::AdjustBalance {
        user: rich,
        delta: dec("999990"),
        reason: "test".into(),
    });
    assert_eq!(
        small.order(rich, Real, btc(), Up, "5000", 60),
        Err(EngineError::HouseExposureLimit)
    );
    small.check();
    h.check();
}

#[test]
fn withdrawals_freeze_then_pay_or_release_and_wait_24h_after_a_password_change() {
    let mut h = Harness::new();
    let kim = h.funded_user("kim", "500");
    let to =
        || Destination::Wallet { chain: engine::types::Chain::Tron, address: "TAbc123".into() };
    let order = match h.ok(Command::RequestWithdrawal {
        user: kim,
        amount: dec("100"),
        destination: Box::new(to()),
    }) {
        Reply::OrderCreated { order } => order,
        other => panic!("{other:?}"),
    };
    let w = h.engine.account(kim).unwrap().real.clone();
    assert_eq!((w.available, w.frozen), (usdt("400"), usdt("100")));
    // Approved: processing, the money still frozen until the payout is marked.
    h.admin(AdminAction::ApproveWithdrawal { order });
    assert_eq!(h.engine.account(kim).unwrap().real.frozen, usdt("100"));
    let reject = AdminAction::RejectWithdrawal { order, remark: "late".into() };
    assert_eq!(
        h.run(Command::Admin { admin: AdminId(1), action: Box::new(reject) }),
        Err(EngineError::OrderWrongState)
    );
    let again = AdminAction::ApproveWithdrawal { order };
    assert_eq!(
        h.run(Command::Admin { admin: AdminId(1), action: Box::new(again) }),
        Err(EngineError::OrderWrongState)
    );
    h.admin(AdminAction::CompleteWithdrawal { order });
    assert_eq!(h.engine.account(kim).unwrap().real.frozen, usdt("0"));
    assert_eq!(h.engine.ledger().withdrawals_paid, usdt("98.00")); // 1 % + 1 USDT fee
    let twice = AdminAction::CompleteWithdrawal { order };
    assert_eq!(
        h.run(Command::Admin { admin: AdminId(1), action: Box::new(twice) }),
        Err(EngineError::OrderNotFound)
    );
    h.check();

    // A payout that fails returns the money; a pending order cannot be marked paid or failed.
    let order = match h.ok(Command::RequestWithdrawal {
        user: kim,
        amount: dec("40"),
        destination: Box::new(to()),
    }) {
        Reply::OrderCreated { order } => order,
        other => panic!("{other:?}"),
    };
    let early = AdminAction::CompleteWithdrawal { order };
    assert_eq!(
        h.run(Command::Admin { admin: AdminId(1), action: Box::new(early) }),
        Err(EngineError::OrderWrongState)
    );
    let early = AdminAction::FailWithdrawal { order, remark: "x".into() };
    assert_eq!(
        h.run(Command::Admin { admin: AdminId(1), action: Box::new(early) }),
        Err(EngineError::OrderWrongState)
    );
    h.admin(AdminAction::ApproveWithdrawal { order });
    assert_eq!(h.available(kim, Real), dec("360"));
    h.admin(AdminAction::FailWithdrawal { order, remark: "bank refused".into() });
    let w = h.engine.account(kim).unwrap().real.clone();
    assert_eq!((w.available, w.frozen), (usdt("400"), usdt("0")));
    assert_eq!(h.engine.ledger().withdrawals_paid, usdt("98.00"));
    h.check();

    let order = match h.ok(Command::RequestWithdrawal {
        user: kim,
        amount: dec("50"),
        destination: Box::new(to()),
    }) {
        Reply::OrderCreated { order } => order,
        other => panic!("{other:?}"),
    };
    h.admin(AdminAction::RejectWithdrawal { order, remark: "wrong address".into() });
    assert_eq!(h.available(kim, Real), dec("400"));

    h.ok(Command::SetPassword { user: kim, password_hash: "new".into(), keep_session: None });
    let blocked = h.run(Command::RequestWithdrawal {
        user: kim,
        amount: dec("50"),
        destination: Box::new(to()),
    });
    assert_eq!(blocked, Err(EngineError::WithdrawalBlocked));
    h.advance(24 * 3_600_000);
    assert!(h
        .run(Command::RequestWithdrawal {
            user: kim,
            amount: dec("50"),
            destination: Box::new(to())
        })
        .is_ok());
    h.check();
}

#[test]
fn admin_actions_are_audited_and_permission_checked() {
    let mut h = Harness::new();
    let lee = h.funded_user("lee", "10");
    let op = match h.admin(AdminAction::CreateAdmin {
        username: "finance".into(),
        password_hash: "h".into(),
        role: Role::Finance,
    }) {
        Reply::AdminCreated { admin } => admin,
        other => panic!("{other:?}"),
    };
    let refused = h.run(Command::Admin {
        admin: op,
        action: Box::new(AdminAction::SetUserFrozen {
            user: lee,
            frozen: true,
            reason: "x".into(),
        }),
    });
    assert_eq!(refused, Err(EngineError::Forbidden));
    h.admin(AdminAction::AdjustBalance {
        user: lee,
        delta: dec("-5"),
        reason: "chargeback".into(),
    });
    assert_eq!(h.available(lee, Real), dec("5"));
    let audits: Vec<_> = h
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Audit(a) => Some(a),
            _ => None,
        })
        .collect();
    let admin_commands = h.log.iter().filter(|(_, c)| matches!(c, Command::Admin { .. })).count();
    assert_eq!(audits.len(), admin_commands);
    assert!(audits.iter().any(|a| a.admin == op && a.refused == Some("FORBIDDEN")));
    assert!(audits.iter().all(|a| !a.detail.contains("hash") && !a.detail.contains("\"h\"")));
    h.check();
}

#[test]
fn transfers_move_available_balance_between_users() {
    let mut h = Harness::new();
    let a = h.funded_user("amy", "100");
    let b = h.register("ben", None);
    h.ok(Command::Transfer { from: a, to: b, amount: dec("40") });
    assert_eq!((h.available(a, Real), h.available(b, Real)), (dec("60"), dec("40")));
    assert_eq!(
        h.run(Command::Transfer { from: a, to: a, amount: dec("1") }),
        Err(EngineError::SelfTransfer)
    );
    assert_eq!(
        h.run(Command::Transfer { from: a, to: b, amount: dec("61") }),
        Err(EngineError::InsufficientBalance)
    );
    // For 24 h after a password change no money leaves: a transfer is refused like a
    // withdrawal, and changes nothing.
    h.ok(Command::SetPassword { user: a, password_hash: "new".into(), keep_session: None });
    let before = h.engine.content_hash();
    assert_eq!(
        h.run(Command::Transfer { from: a, to: b, amount: dec("1") }),
        Err(EngineError::TransferBlocked)
    );
    assert_eq!(h.engine.content_hash(), before);
    h.advance(24 * 3_600_000);
    h.ok(Command::Transfer { from: a, to: b, amount: dec("1") });
    h.check();
}

#[test]
fn sign_up_enforces_unique_names_emails_and_valid_invite_codes() {
    let mut h = Harness::new();
    h.register("mia", None);
    let again = |name: &str, email: &str, code: Option<&str>| {
        Command::Register(Box::new(engine::Register {
            username: name.into(),
            email: Some(email.into()),
            password_hash: Some("h".into()),
            wallet: None,
            invite_code: code.map(Into::into),
            email_verified: false,
        }))
    };
    assert_eq!(h.run(again("MIA", "x@example.com", None)), Err(EngineError::UsernameExists));
    assert_eq!(h.run(again("nia", "MIA@example.com", None)), Err(EngineError::EmailExists));
    assert_eq!(
        h.run(again("nia", "n@example.com", Some("ABCDEFGH"))),
        Err(EngineError::InvalidInviteCode)
    );
    assert_eq!(
        h.run(again("nia", "n@example.com", Some("SHORT"))),
        Err(EngineError::InvalidInviteCode)
    );
    let mut settings = h.engine.settings().clone();
    settings.invite_code_required = true;
    h.admin(AdminAction::UpdateSettings(Box::new(settings)));
    assert_eq!(h.run(again("nia", "n@example.com", None)), Err(EngineError::InviteCodeRequired));
    assert_eq!(h.engine.user_count(), 1);
    h.check();
}

#[test]
fn a_restored_engine_finds_users_by_name_email_and_invite_code_as_before() {
    let mut h = Harness::new();
    let mia = h.register("Mia", None);
    let ned = h.register("ned", None);
    let code = h.engine.user(mia).unwrap().invite_code.clone();
    let wallet = engine::types::WalletBinding {
        chain: engine::types::Chain::Eth,
        address: "0x52908400098527886e0f7030069857d2e4169ee7".into(),
    };
    let walt = match h.ok(Command::Register(Box::new(engine::Register {
        username: "walt".into(),
        email: None,
        password_hash: None,
        wallet: Some(wallet.clone()),
        invite_code: None,
        email_verified: false,
    }))) {
        Reply::Registered { user, .. } => user,
        other => panic!("unexpected {other:?}"),
    };
    // Ned's e-mail changes before the snapshot, the restored engine has his old one on file.
    h.ok(Command::SetVerifiedEmail { user: ned, email: "Ned@Elsewhere.example".into() });
    let mut restored = h.restored();
    for h in [&mut h, &mut restored] {
        let e = &h.engine;
        assert_eq!(e.user_by_username("MIA").map(|u| u.id), Some(mia));
        assert_eq!(e.user_by_email("mia@EXAMPLE.com").map(|u| u.id), Some(mia));
        assert_eq!(e.user_by_invite_code(&code).map(|u| u.id), Some(mia));
        assert_eq!(e.user_by_email("ned@elsewhere.example").map(|u| u.id), Some(ned));
        assert!(e.user_by_email("ned@example.com").is_none(), "an e-mail given up is free");
        assert!(e.user_by_username("nobody").is_none());
        assert_eq!(e.user_by_wallet(wallet.chain, &wallet.address).map(|u| u.id), Some(walt));
        let register = |name: &str, email: &str| {
            Command::Register(Box::new(engine::Register {
                username: name.into(),
                email: Some(email.into()),
                password_hash: Some("h".into()),
                wallet: None,
                invite_code: Some(code.clone()),
                email_verified: false,
            }))
        };
        assert_eq!(h.run(register("mIa", "x@example.com")), Err(EngineError::UsernameExists));
        let mut same_wallet = register("wes", "wes@example.com");
        if let Command::Register(r) = &mut same_wallet {
            r.wallet = Some(wallet.clone());
        }
        assert_eq!(h.run(same_wallet), Err(EngineError::WalletExists));
        assert_eq!(h.run(register("zoe", "MIA@example.com")), Err(EngineError::EmailExists));
        // Ned's old address is free again, and a new user's keys are found at once.
        let zoe = match h.ok(register("zoe", "ned@example.com")) {
            Reply::Registered { user, .. } => user,
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(h.engine.user_by_username("ZOE").map(|u| u.id), Some(zoe));
        assert_eq!(h.engine.user_by_email("NED@example.com").map(|u| u.id), Some(zoe));
        assert!(h.engine.user(mia).unwrap().invitees.contains(&zoe), "invited by Mia");
        // Taking over Mia's address is refused; giving hers up frees it.
        let taken = Command::SetVerifiedEmail { user: zoe, email: "mia@example.com".into() };
        assert_eq!(h.run(taken), Err(EngineError::EmailExists));
        h.ok(Command::SetVerifiedEmail { user: mia, email: "mia@new.example".into() });
        assert!(h.engine.user_by_email("mia@example.com").is_none());
        assert_eq!(h.engine.user_by_email("MIA@new.example").map(|u| u.id), Some(mia));
        h.check();
    }
    assert_eq!(h.engine.content_hash(), restored.engine.content_hash());
}

#[test]
fn demo_contracts_never_touch_real_money_and_the_demo_wallet_resets() {
    let mut h = Harness::new();
    let ned = h.register("ned", None);
    let house = h.engine.ledger().house;
    contract_id(h.order(ned, Demo, btc(), Up, "100", 60));
    assert_eq!(h.run(Command::ResetDemo { user: ned }), Err(EngineError::DemoHasOpenContracts));
    h.tick(btc(), "1");
    h.advance(59_000);
    h.tick(btc(), "2");
    h.advance(2_000);
    h.tick(btc(), "2");
    assert_eq!(h.available(ned, Demo), dec("10085.00"));
    assert_eq!(h.engine.ledger().house, house);
    h.ok(Command::ResetDemo { user: ned });
    assert_eq!(h.available(ned, Demo), dec("10000"));
    // A frozen account cannot reset it either.
    contract_id(h.order(ned, Demo, btc(), Up, "100", 60));
    h.tick(btc(), "3");
    h.advance(59_000);
    h.tick(btc(), "4");
    h.advance(2_000);
    h.tick(btc(), "4");
    let before = h.available(ned, Demo);
    assert_ne!(before, dec("10000"));
    h.admin(AdminAction::SetUserFrozen { user: ned, frozen: true, reason: "review".into() });
    assert_eq!(h.run(Command::ResetDemo { user: ned }), Err(EngineError::AccountFrozen));
    assert_eq!(h.available(ned, Demo), before);
    h.check();
}

#[test]
fn snapshot_restore_gives_the_same_state_and_the_same_future() {
    let mut h = Harness::new();
    let a = h.funded_user("olga", "1000");
    for i in 0..20 {
        contract_id(h.order(a, if i % 2 == 0 { Real } else { Demo }, btc(), Up, "3", 60));
        h.tick(btc(), &format!("{}", 100 + i));
        h.advance(1_500);
    }
    let bytes = h.engine.snapshot_bytes();
    let mut restored = engine::Engine::restore(&bytes).unwrap();
    assert_eq!(restored.state_hash(), h.engine.state_hash());
    let mut events = engine::Events::new();
    for _ in 0..60 {
        h.advance(1_000);
        let stamp = engine::Stamp { index: h.index + 1, time_ms: h.now_ms };
        restored
            .apply(
                stamp,
                Command::Tick { symbol: btc(), price: dec("105"), quantity: dec("1") },
                &mut events,
            )
            .unwrap();
        h.tick(btc(), "105");
    }
    assert_eq!(restored.open_contract_count(), 0);
    assert_eq!(restored.state_hash(), h.engine.state_hash());
    assert!(engine::Engine::restore(&bytes[..bytes.len() / 2]).is_err());
}

#[test]
fn raised_reward_rates_are_paid_from_free_house_capital_only() {
    let mut h = Harness::new();
    let parent = h.register("parent", None);
    let code = h.engine.user(parent).unwrap().invite_code.clone();
    let child = h.register("child", Some(code));
    h.deposit(child, "1000");
    // Leave the house 870: enough for the contract's reserve (1000 x 0.86 + 0.03 = 860.03).
    let drain = h.register("drain", None);
    let free = h.engine.ledger().house - usdt("870");
    h.admin(AdminAction::AdjustBalance {
        user: drain,
        delta: free.to_decimal(),
        reason: "thin house".into(),
    });
    contract_id(h.order(child, Real, btc(), Up, "1000", 60));
    // Raise generation 1's reward from 0.5 % to 4 % while the contract is open.
    let mut settings = h.engine.settings().clone();
    settings.reward_rates[0] = dec("0.04");
    h.admin(AdminAction::UpdateSettings(Box::new(settings)));
    h.tick(btc(), "10");
    h.advance(59_000);
    h.tick(btc(), "11");
    h.advance(2_000);
    h.tick(btc(), "11");
    assert_eq!(h.settlements()[0].outcome, Outcome::Win);
    // The win cost the house 850, leaving 20: the 40 reward is cut to the 20 it has.
    assert_eq!(h.available(parent, Real), dec("20.00"));
    assert_eq!(h.engine.ledger().house, usdt("0.00"));
    h.check();
}

#[test]
fn market_hours_cannot_change_under_open_contracts() {
    let mut h = Harness::new();
    let ann = h.funded_user("ann", "100");
    contract_id(h.order(ann, Real, btc(), Up, "10", 60));
    let closed_now = engine::types::MarketHours::WeeklyClosed(vec![(0, 10_079)]);
    let upsert = |hours| AdminAction::UpsertProduct {
        symbol: btc(),
        name: "BTC/USDT".into(),
        category: engine::types::Category::Crypto,
        precision: 2,
        enabled: true,
        hours,
    };
    let refused =
        h.run(Command::Admin { admin: AdminId(1), action: Box::new(upsert(closed_now.clone())) });
    assert_eq!(refused, Err(EngineError::ProductHasOpenContracts));
    // Disabling the product is allowed: open contracts still settle by the published rules.
    let mut disable = upsert(engine::types::MarketHours::Always);
    if let AdminAction::UpsertProduct { enabled, .. } = &mut disable {
        *enabled = false;
    }
    h.admin(disable);
    h.tick(btc(), "1");
    h.advance(59_000);
    h.tick(btc(), "2");
    h.advance(2_000);
    h.tick(btc(), "2");
    assert_eq!(h.settlements()[0].outcome, Outcome::Win);
    // With nothing open, the hours can change.
    h.admin(upsert(closed_now));
    h.check();
}

#[test]
fn responsible_trading_limits_tighten_at_once_loosen_after_24h_and_exclusion_only_grows() {
    use engine::types::TradingLimits;
    let mut h = Harness::new();
    let ann = h.funded_user("ann", "1000");
    let set = |h: &mut Harness, limits: TradingLimits| {
        h.run(Command::SetTradingLimits { user: ann, limits: Box::new(limits) })
    };
    let loss = |v: &str| TradingLimits { daily_loss: Some(dec(v)), ..TradingLimits::default() };

    // A loss limit of 25: open stakes count as lost, so 10 + 10 pass and a third 10 does not.
    set(&mut h, loss("25")).unwrap();
    contract_id(h.order(ann, Real, btc(), Up, "10", 60));
    contract_id(h.order(ann, Real, btc(), Up, "10", 60));
    let before = h.engine.content_hash();
    assert_eq!(h.order(ann, Real, btc(), Up, "10", 60), Err(EngineError::DailyLossLimit));
    // Demo money is not limited by it.
    contract_id(h.order(ann, Demo, btc(), Up, "10", 60));
    assert_ne!(h.engine.content_hash(), before);

    // Loosening waits 24 hours; tightening is at once.
    set(&mut h, loss("500")).unwrap();
    let state = h.engine.trading_limits(ann, h.now_ms).unwrap();
    assert_eq!((state.current.daily_loss, state.pending_from_ms > 0), (Some(dec("25")), true));
    assert_eq!(h.order(ann, Real, btc(), Up, "10", 60), Err(EngineError::DailyLossLimit));
    set(&mut h, TradingLimits { open_contracts: Some(2), ..loss("500") }).unwrap();
    assert_eq!(h.engine.trading_limits(ann, h.now_ms).unwrap().current.open_contracts, Some(2));
    h.advance(24 * 3_600_000);
    // A new day and the loosening in force: 500 of loss, but at most 2 open contracts (both
    // from yesterday are still open: the feed has not moved).
    assert_eq!(
        h.engine.trading_limits(ann, h.now_ms).unwrap().current.daily_loss,
        Some(dec("500"))
    );
    assert_eq!(h.order(ann, Real, btc(), Up, "10", 60), Err(EngineError::OpenContractsLimit));
    set(&mut h, TradingLimits { daily_turnover: Some(dec("15")), ..TradingLimits::default() })
        .unwrap();
    // Dropping the open-contracts limit is a loosening; the turnover limit binds now.
    h.advance(24 * 3_600_000);
    contract_id(h.order(ann, Real, btc(), Up, "10", 60));
    assert_eq!(h.order(ann, Real, btc(), Up, "10", 60), Err(EngineError::DailyTurnoverLimit));

    // Self-exclusion stops all trading, cannot be shortened, and survives a restart.
    let until = h.now_ms + 7 * 24 * 3_600_000;
    set(&mut h, TradingLimits { excluded_until_ms: until, ..TradingLimits::default() }).unwrap();
    assert_eq!(
        h.order(ann, Demo, btc(), Up, "10", 60),
        Err(EngineError::SelfExcluded { until_ms: until })
    );
    set(&mut h, TradingLimits::default()).unwrap();
    h.advance(2 * 24 * 3_600_000);
    assert_eq!(h.engine.trading_limits(ann, h.now_ms).unwrap().current.excluded_until_ms, until);
    let restored = engine::Engine::restore(&h.engine.snapshot_bytes()).unwrap();
    assert_eq!(restored.trading_limits(ann, h.now_ms).unwrap().current.excluded_until_ms, until);
    assert_eq!(restored.content_hash(), h.engine.content_hash());
    h.advance(6 * 24 * 3_600_000);
    contract_id(h.order(ann, Demo, btc(), Up, "10", 60));
    // Nonsense limits are refused and change nothing.
    let before = h.engine.content_hash();
    assert_eq!(set(&mut h, loss("-5")), Err(EngineError::Invalid("limits")));
    let forever = TradingLimits {
        excluded_until_ms: h.now_ms + 6 * 365 * 86_400_000,
        ..TradingLimits::default()
    };
    assert_eq!(set(&mut h, forever), Err(EngineError::Invalid("limits")), "at most five years");
    assert_eq!(h.engine.content_hash(), before);
    h.check();
}

#[test]
fn a_price_alert_fires_once_when_a_tick_crosses_it_and_survives_a_snapshot() {
    let mut h = Harness::new();
    let ann = h.register("ann", None);
    let set = |h: &mut Harness, price: &str| {
        h.run(Command::SetPriceAlert { user: ann, symbol: btc(), price: dec(price) })
    };
    // No price yet: nothing to compare with.
    assert_eq!(set(&mut h, "110"), Err(EngineError::PriceNotAvailable));
    h.tick(btc(), "100");
    let before = h.engine.content_hash();
    for refused in ["100", "100.00", "0", "-5", "100.001"] {
        assert_eq!(set(&mut h, refused), Err(EngineError::Invalid("price")), "{refused}");
    }
    assert_eq!(h.engine.content_hash(), before, "a refused alert changes nothing");
    let up = match set(&mut h, "110").unwrap() {
        Reply::AlertCreated { alert } => alert.id,
        other => panic!("{other:?}"),
    };
    set(&mut h, "90").unwrap();
    let alerts = h.engine.price_alerts(ann);
    assert_eq!(alerts.iter().map(|a| a.rising).collect::<Vec<_>>(), [true, false]);

    // It survives a snapshot with its indexes: the restored engine fires it the same way.
    let mut restored = engine::Engine::restore(&h.engine.snapshot_bytes()).unwrap();
    assert_eq!(restored.price_alerts(ann), alerts);

    let fired = |events: &[Event]| -> Vec<u64> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::PriceAlertFired { alert, .. } => Some(alert.id),
                _ => None,
            })
            .collect()
    };
    h.events.clear();
    h.tick(btc(), "109.99");
    assert!(fired(&h.events).is_empty(), "below the rising alert: nothing");
    h.tick(btc(), "110.5");
    assert_eq!(fired(&h.events), [up], "crossing upwards fires the rising one only");
    let at = h.events.iter().find_map(|e| match e {
        Event::PriceAlertFired { tick, .. } => Some(tick.price),
        _ => None,
    });
    assert_eq!(at, Some(dec("110.5")));
    h.events.clear();
    h.tick(btc(), "111");
    h.tick(btc(), "105");
    assert!(fired(&h.events).is_empty(), "fired once, then gone");
    h.tick(btc(), "90");
    assert_eq!(fired(&h.events).len(), 1, "the falling one fires at its price");
    assert!(h.engine.price_alerts(ann).is_empty());

    let mut events = engine::Events::new();
    for price in ["109.99", "110.5", "111", "105", "90"] {
        let stamp = engine::Stamp { index: restored.applied_index() + 1, time_ms: h.now_ms };
        let tick = Command::Tick { symbol: btc(), price: dec(price), quantity: dec("1") };
        restored.apply(stamp, tick, &mut events).unwrap();
    }
    assert_eq!(fired(&events).len(), 2);
    assert!(restored.price_alerts(ann).is_empty());
}

#[test]
fn price_alerts_are_bounded_per_user_and_only_the_owner_cancels_one() {
    use engine::constants::PRICE_ALERTS_PER_USER_MAX;
    let mut h = Harness::new();
    let (ann, bob) = (h.register("ann", None), h.register("bob", None));
    h.tick(btc(), "100");
    let mut ids = Vec::new();
    for i in 0..PRICE_ALERTS_PER_USER_MAX {
        let price = dec(&format!("{}", 101 + i));
        match h.run(Command::SetPriceAlert { user: ann, symbol: btc(), price }) {
            Ok(Reply::AlertCreated { alert }) => ids.push(alert.id),
            other => panic!("{other:?}"),
        }
    }
    let more = Command::SetPriceAlert { user: ann, symbol: btc(), price: dec("99") };
    assert_eq!(h.run(more.clone()), Err(EngineError::TooManyPriceAlerts));
    let unknown = Command::SetPriceAlert { user: ann, symbol: eurusd(), price: dec("1.1") };
    assert_eq!(h.run(unknown), Err(EngineError::PriceNotAvailable));
    // Bob cannot remove Ann's alert; Ann can, and then has room for one more.
    let cancel = |user, alert| Command::CancelPriceAlert { user, alert };
    assert_eq!(h.run(cancel(bob, ids[0])), Err(EngineError::PriceAlertNotFound));
    h.ok(cancel(ann, ids[0]));
    assert_eq!(h.run(cancel(ann, ids[0])), Err(EngineError::PriceAlertNotFound));
    h.ok(more);
    assert_eq!(h.engine.price_alert_count(), PRICE_ALERTS_PER_USER_MAX);
    // A jump through every level fires all of those it crosses, in one tick.
    h.events.clear();
    h.tick(btc(), "500");
    let fired = h.events.iter().filter(|e| matches!(e, Event::PriceAlertFired { .. })).count();
    assert_eq!(fired, PRICE_ALERTS_PER_USER_MAX - 1);
    assert_eq!(h.engine.price_alert_count(), 1);
}

#[test]
fn roles_open_only_their_areas_and_the_engine_refuses_the_rest() {
    use engine::types::{Access::*, Area};
    let mut h = Harness::new();
    let lee = h.funded_user("lee", "10");
    let mut ids = Vec::new();
    for (name, role) in
        [("ops", Role::Operations), ("money", Role::Finance), ("help", Role::Support)]
    {
        match h.admin(AdminAction::CreateAdmin {
            username: name.into(),
            password_hash: "h".into(),
            role,
        }) {
            Reply::AdminCreated { admin } => ids.push(admin),
            other => panic!("{other:?}"),
        }
    }
    let (ops, finance, support) = (ids[0], ids[1], ids[2]);
    // A finance admin cannot read or change the game rules; operations can.
    assert!(!Role::Finance.can(Area::Rules, Read));
    assert!(Role::Operations.can(Area::Rules, Write));
    assert!(Role::Support.can(Area::Users, Write) && !Role::Support.can(Area::Money, Write));
    assert!(Area::ALL.iter().all(|&a| Role::Super.can(a, Write)));
    let rule = h.engine.rules()[0].clone();
    let as_admin = |admin, action| Command::Admin { admin, action: Box::new(action) };
    assert_eq!(
        h.run(as_admin(finance, AdminAction::SetRule(rule.clone()))),
        Err(EngineError::Forbidden)
    );
    assert!(h.run(as_admin(ops, AdminAction::SetRule(rule))).is_ok());
    let adjust =
        AdminAction::AdjustBalance { user: lee, delta: dec("1"), reason: "goodwill".into() };
    assert_eq!(h.run(as_admin(support, adjust.clone())), Err(EngineError::Forbidden));
    assert!(h.run(as_admin(finance, adjust)).is_ok());
    // Only a super admin manages admins.
    let disable = AdminAction::SetAdminDisabled { admin: support, disabled: true };
    assert_eq!(h.run(as_admin(ops, disable.clone())), Err(EngineError::Forbidden));
    h.admin(disable);
    assert!(h.engine.admin(support).unwrap().disabled);
    assert_eq!(
        h.run(as_admin(
            support,
            AdminAction::BroadcastNotice {
                title: "t".into(),
                body: "b".into(),
                lang: String::new()
            }
        )),
        Err(EngineError::AdminNotFound),
        "a disabled admin cannot act"
    );
    h.check();
}

#[test]
fn an_admin_keeps_a_super_admin_changes_its_own_password_and_sets_two_factor() {
    use engine::command::SessionInfo;
    let mut h = Harness::new();
    // No admin disables itself: a super admin can only be disabled by another one, so one
    // always stays.
    let me = AdminAction::SetAdminDisabled { admin: AdminId(1), disabled: true };
    assert_eq!(
        h.run(Command::Admin { admin: AdminId(1), action: Box::new(me) }),
        Err(EngineError::AdminKept)
    );
    let info = || SessionInfo { ttl_ms: 60_000, device: "d".into(), ip: "i".into() };
    let session = |r| match r {
        Reply::SessionCreated { session, .. } => session,
        other => panic!("{other:?}"),
    };
    let first = session(h.ok(Command::CreateAdminSession { admin: AdminId(1), session: info() }));
    let second = session(h.ok(Command::CreateAdminSession { admin: AdminId(1), session: info() }));
    h.admin(AdminAction::ChangeOwnPassword { password_hash: "new".into(), keep_session: second });
    let admin = h.engine.admin(AdminId(1)).unwrap();
    assert_eq!(admin.password_hash, "new");
    assert_eq!(admin.password_changed_ms, h.now_ms);
    assert!(admin.sessions.iter().all(|s| s.id != first), "the other session ended");
    assert!(admin.sessions.iter().any(|s| s.id == second), "the changing session stays");
    assert_eq!(
        h.run(Command::Admin {
            admin: AdminId(1),
            action: Box::new(AdminAction::SetOwnTotp { secret: Some("short".into()) })
        }),
        Err(EngineError::Invalid("secret"))
    );
    h.admin(AdminAction::SetOwnTotp { secret: Some("JBSWY3DPEHPK3PXPJBSWY3DP".into()) });
    assert!(h.engine.admin(AdminId(1)).unwrap().totp_secret.is_some());
    // Snapshot and restore keep it.
    let restored = engine::Engine::restore(&h.engine.snapshot_bytes()).unwrap();
    assert_eq!(
        restored.admin(AdminId(1)).unwrap().totp_secret,
        h.engine.admin(AdminId(1)).unwrap().totp_secret
    );
    let audits = h
        .events
        .iter()
        .filter(|e| matches!(e, Event::Audit(a) if a.action == "change_own_password"));
    assert!(audits.count() == 1);
    assert!(h.events.iter().all(
        |e| !matches!(e, Event::Audit(a) if a.detail.contains("new") || a.detail.contains("JBSW"))
    ));
}

#[test]
fn contracts_expiring_at_one_time_settle_in_entry_order_across_durations_and_after_a_restore() {
    let mut h = Harness::new();
    h.set_rule(30, "0.85", "0");
    let alice = h.funded_user("alice", "100");
    let bob = h.funded_user("bob", "100");
    let first = contract_id(h.order(alice, Real, btc(), Up, "10", 60));
    h.tick(btc(), "100"); // alice's entry
    h.advance(30_000);
    let second = contract_id(h.order(bob, Real, btc(), Down, "10", 30));
    h.tick(btc(), "101"); // bob's entry: both expire 60 s after alice's
    let mut restored = h.restored();
    for h in [&mut h, &mut restored] {
        h.events.clear();
        h.advance(30_001);
        h.tick(btc(), "99");
        let order: Vec<u64> = h.settlements().iter().map(|s| s.contract.id.get()).collect();
        assert_eq!(order, [first, second], "the 60 s contract entered first");
        h.check();
    }
    assert_eq!(h.engine.content_hash(), restored.engine.content_hash());
}
