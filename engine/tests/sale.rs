//! Early close (decisions §11): the offer rule, when there is none, and what a sale does to
//! the money.

mod common;

use common::{btc, dec, usdt, Harness};
use engine::command::{AdminAction, Command, SellContract};
use engine::sale::{self, NoOffer, SaleTerms, WINDOW_RETURNS_MIN};
use engine::types::{AccountKind::Real, BillType, ContractId, Direction, Outcome, TickRef, UserId};
use engine::{EngineError, Event, Reply};
use rust_decimal::Decimal;

/// Ticks of BTCUSDT every 250 ms, alternating 100.00 and 100.10: a known volatility.
fn warm_up(h: &mut Harness, returns: u16) {
    for n in 0..=returns {
        h.advance(250);
        h.tick(btc(), if n % 2 == 0 { "100.00" } else { "100.10" });
    }
}

/// A funded trader with a 60 s up contract of 10 entered at 100.00.
fn entered(h: &mut Harness, direction: Direction) -> (UserId, ContractId) {
    h.set_rule(60, "0.85", "0");
    let ann = h.funded_user("ann", "100");
    warm_up(h, WINDOW_RETURNS_MIN + 10);
    let id = match h.order(ann, Real, btc(), direction, "10", 60) {
        Ok(Reply::OrderAccepted { contract, .. }) => contract,
        other => panic!("{other:?}"),
    };
    h.advance(250);
    h.tick(btc(), "100.00");
    (ann, id)
}

fn sell(
    h: &mut Harness,
    user: UserId,
    id: ContractId,
    seen: Decimal,
) -> Result<Reply, EngineError> {
    let c = h.engine.contract(id).expect("open").clone();
    h.run(Command::SellContract(SellContract {
        user,
        contract: id,
        symbol: btc(),
        expiry_ms: c.expiry_ms,
        seen,
    }))
}

fn offer(h: &Harness, id: ContractId) -> Result<sale::Quote, NoOffer> {
    h.engine.offer_for(id).expect("open")
}

#[test]
fn the_offer_grows_with_the_distance_in_the_money_and_stays_within_zero_and_the_payout() {
    let mut h = Harness::new();
    let (_, id) = entered(&mut h, Direction::Up);
    let contract = h.engine.contract(id).unwrap().clone();
    let entry = contract.entry.unwrap();
    // One window (about 0.1 % per quarter second), every price from 95 to 105.
    let mut window = sale::Volatility::default();
    for n in 1..100 {
        let tick = |n: u64, price: i64| TickRef {
            price: Decimal::new(price, 2),
            time_ms: n * 250,
            index: n,
        };
        let (from, to) = if n % 2 == 0 { (10_010, 10_000) } else { (10_000, 10_010) };
        window.record(&tick(n - 1, from), &tick(n, to));
    }
    let spread = engine::money::Rate::from_decimal(dec("0.05")).unwrap();
    let at = |cents: i64, left_ms: u64| {
        let tick = TickRef { price: Decimal::new(cents, 2), ..entry };
        sale::price(&contract, entry.price, tick, left_ms, &window, spread)
    };
    for left_ms in [5_000, 30_000, 55_000] {
        let mut last = at(9_500, left_ms);
        for cents in 9_501..=10_500 {
            let quote = at(cents, left_ms);
            assert!(quote.offer >= last.offer, "the offer fell as the price rose to {cents}");
            assert!(quote.probability >= last.probability);
            assert!(quote.offer <= quote.win_credit && !quote.offer.is_negative());
            last = quote;
        }
        // Far above the entry: all but the spread of the win; far below: nothing.
        assert!(last.probability > 999_000, "{last:?}");
        assert_eq!(last.win_credit, usdt("18.50"));
        // At most 18.50 less 5 % (17.575, rounded down).
        assert!(last.offer >= usdt("17.54") && last.offer <= usdt("17.57"), "{last:?}");
        assert_eq!(at(9_500, left_ms).offer, usdt("0"));
    }
    // With less time left the same distance is surer: a higher offer in the money.
    assert!(at(10_020, 5_000).offer > at(10_020, 55_000).offer);
}

#[test]
fn at_the_entry_price_the_offer_is_half_the_payout_less_the_spread() {
    let mut h = Harness::new();
    let (_, id) = entered(&mut h, Direction::Down);
    let quote = offer(&h, id).unwrap();
    assert_eq!((quote.distance, quote.z, quote.probability), (0, 0, 500_000));
    assert_eq!(quote.fair, usdt("9.25"));
    assert_eq!(quote.offer, usdt("8.78"), "9.25 × 0.95 = 8.7875, rounded down");
    assert_eq!(quote.spread.to_decimal(), dec("0.05"));
    assert_eq!(quote.returns as usize, usize::from(WINDOW_RETURNS_MIN) + 11);
    // The figures the verifier re-derives: the window's sums and its first tick.
    assert!(quote.sum_sq > 0 && quote.sum_gap_ms == 250 * u64::from(quote.returns));
    assert!(quote.window_from < quote.tick.index);
}

#[test]
fn no_offer_before_entry_with_few_ticks_near_expiry_on_a_stale_feed_or_when_turned_off() {
    let mut h = Harness::new();
    h.set_rule(60, "0.85", "0");
    let ann = h.funded_user("ann", "100");
    warm_up(&mut h, 5);
    let Ok(Reply::OrderAccepted { contract: id, .. }) =
        h.order(ann, Real, btc(), Direction::Up, "10", 60)
    else {
        panic!("order refused")
    };
    assert_eq!(offer(&h, id), Err(NoOffer::NotEntered));
    h.advance(250);
    h.tick(btc(), "100");
    assert_eq!(offer(&h, id), Err(NoOffer::FewTicks));
    warm_up(&mut h, WINDOW_RETURNS_MIN);
    assert!(offer(&h, id).is_ok());
    h.advance(6_000);
    h.ok(Command::Timer);
    assert_eq!(offer(&h, id), Err(NoOffer::StaleMarket), "the last tick is 6 s old");
    h.tick(btc(), "100");
    let mut terms = SaleTerms::default();
    terms.products.push(sale::ProductSale { symbol: btc(), enabled: false, spread: Decimal::ZERO });
    h.admin(AdminAction::SetSaleTerms(Box::new(terms)));
    assert_eq!(offer(&h, id), Err(NoOffer::Unavailable));
    h.admin(AdminAction::SetSaleTerms(Box::default()));
    let expiry = h.engine.contract(id).unwrap().expiry_ms;
    h.now_ms = expiry - 4_999;
    h.tick(btc(), "100");
    assert_eq!(offer(&h, id), Err(NoOffer::NearExpiry), "the last 5 s");
    assert_eq!(
        sell(&mut h, ann, id, Decimal::ZERO),
        Err(EngineError::SaleUnavailable(NoOffer::NearExpiry))
    );
}

#[test]
fn no_offer_for_a_frozen_account() {
    let mut h = Harness::new();
    let (ann, id) = entered(&mut h, Direction::Up);
    h.admin(AdminAction::SetUserFrozen { user: ann, frozen: true, reason: "review".into() });
    assert_eq!(offer(&h, id), Err(NoOffer::AccountFrozen));
}

#[test]
fn a_sale_pays_the_current_offer_and_closes_the_contract_once() {
    let mut h = Harness::new();
    let (ann, id) = entered(&mut h, Direction::Up);
    h.advance(250);
    h.tick(btc(), "100.05");
    let quote = offer(&h, id).unwrap();
    let expiry_ms = h.engine.contract(id).unwrap().expiry_ms;
    let house = h.engine.ledger().house;
    let before = h.engine.account(ann).unwrap().real.clone();
    // Seen a cent more than the offer: refused with the offer of now, nothing changes.
    let hash = h.engine.content_hash();
    let above = quote.offer.to_decimal() + dec("0.01");
    assert_eq!(
        sell(&mut h, ann, id, above),
        Err(EngineError::OfferChanged { offer: quote.offer.to_decimal() })
    );
    assert_eq!(h.engine.content_hash(), hash);
    // Seen less: sold at the (better) offer of now.
    let reply = sell(&mut h, ann, id, quote.offer.to_decimal() - dec("0.50")).unwrap();
    assert_eq!(reply, Reply::Sold { contract: id, credited: quote.offer });
    let after = h.engine.account(ann).unwrap().real.clone();
    assert_eq!(after.available, before.available + quote.offer);
    assert_eq!(after.in_position, before.in_position - usdt("10"));
    assert_eq!(h.engine.ledger().house, house + usdt("10") - quote.offer);
    assert_eq!(h.engine.ledger().house_reserved, usdt("0"));
    assert!(h.engine.contract(id).is_none());
    // The quote is recorded just before the settlement, which is the owner's Sale bill.
    let sold = h
        .events
        .iter()
        .position(|e| matches!(e, Event::ContractSold { contract, .. } if *contract == id));
    let settled = h.settlements();
    let s = settled.last().unwrap();
    assert_eq!((s.outcome, s.credited, s.exit), (Outcome::Sold, quote.offer, Some(quote.tick)));
    let bill = s.wallet_change();
    assert_eq!((bill.bill, bill.amount), (Some(BillType::Sale), quote.offer - usdt("10")));
    assert!(
        matches!(&h.events[sold.unwrap()], Event::ContractSold { quote: q, .. } if **q == quote)
    );
    // Expiry later settles nothing more.
    let count = h.settlements().len();
    h.advance(61_000);
    h.tick(btc(), "100.05");
    assert_eq!(h.settlements().len(), count);
    let again =
        SellContract { user: ann, contract: id, symbol: btc(), expiry_ms, seen: Decimal::ZERO };
    assert_eq!(h.run(Command::SellContract(again)), Err(EngineError::ContractNotFound));
    h.check();
}

#[test]
fn only_the_owner_sells_and_only_what_the_house_kept_earns_rewards() {
    let mut h = Harness::new();
    h.set_rule(60, "0.85", "0");
    let inviter = h.register("inviter", None);
    let code = h.engine.user(inviter).unwrap().invite_code.clone();
    let trader = h.register("trader", Some(code));
    h.deposit(trader, "100");
    let bob = h.funded_user("bob", "100");
    warm_up(&mut h, WINDOW_RETURNS_MIN + 10);
    let Ok(Reply::OrderAccepted { contract: id, .. }) =
        h.order(trader, Real, btc(), Direction::Up, "10", 60)
    else {
        panic!("order refused")
    };
    h.advance(250);
    h.tick(btc(), "100.00");
    let expiry = h.engine.contract(id).unwrap().expiry_ms;
    let by_bob = h.run(Command::SellContract(SellContract {
        user: bob,
        contract: id,
        symbol: btc(),
        expiry_ms: expiry,
        seen: Decimal::ZERO,
    }));
    assert_eq!(by_bob, Err(EngineError::ContractNotFound));
    let quote = offer(&h, id).unwrap();
    sell(&mut h, trader, id, Decimal::ZERO).unwrap();
    // The house kept 10 − 8.78 = 1.22: generation 1 earns its rate on that, not on the stake.
    let kept = usdt("10") - quote.offer;
    let rate = h.engine.settings().reward_rates[0];
    let reward = h.available(inviter, Real);
    assert_eq!(reward, engine::money::round_cents(kept.to_decimal() * rate));
    h.check();
}

#[test]
fn the_published_table_is_the_normal_distribution() {
    // Φ(z) = (1 + erf(z / √2)) / 2, rounded half to even to millionths.
    for (at, &value) in sale::PHI.iter().enumerate() {
        let z = at as f64 / 100.0;
        let phi = 0.5 * libm::erfc(-z / std::f64::consts::SQRT_2) * 1e6;
        let rounded = phi.round_ties_even() as u32;
        assert_eq!(value, rounded, "Φ({z})");
    }
}

#[test]
fn a_snapshot_keeps_the_windows_and_the_terms() {
    let mut h = Harness::new();
    let (_, id) = entered(&mut h, Direction::Up);
    let mut terms = SaleTerms { cutoff_secs: 7, ..SaleTerms::default() };
    terms.durations.push(sale::DurationSpread { duration_secs: 60, spread: dec("0.02") });
    h.admin(AdminAction::SetSaleTerms(Box::new(terms.clone())));
    let restored = engine::Engine::restore(&h.engine.snapshot_bytes()).unwrap();
    assert_eq!(restored.state_hash(), h.engine.state_hash());
    assert_eq!(restored.sale_terms(), &terms);
    assert_eq!(restored.offer_for(id), h.engine.offer_for(id));
    assert_eq!(offer(&h, id).unwrap().spread.to_decimal(), dec("0.02"));
}
