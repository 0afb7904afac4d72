//! Property tests over random command streams (DESIGN §5). After every command:
//! - money is conserved and no balance is negative (`check_invariants`);
//! - every settlement is re-derived from the recorded ticks by an independent model of
//!   decisions §2 and must match: entry, exit, outcome and amount;
//! - no contract settles twice, and at the end every contract has settled exactly once;
//! - replaying the log onto a snapshot taken mid-stream, or onto a fresh engine, gives the
//!   same state hash;
//! - the state frozen for that snapshot still gives the snapshot's bytes at the end, however
//!   much the engine changed after it;
//! - a price alert fires once, on a tick that reaches it, and no waiting alert is reached by
//!   its product's last tick.

// A scenario reads as one story from start to end: the line limit is for the product's code.
#![allow(clippy::too_many_lines)]

mod common;

use std::collections::{HashMap, HashSet};

use common::{btc, dec, eurusd, Harness, MONDAY_MS};
use engine::command::{AdminAction, Command, PlaceOrder, RequestDeposit};
use engine::money::Money;
use engine::types::{
    AccountKind, AdminId, Chain, ContractId, Destination, Direction, Outcome, PayMethod, Symbol,
    TickRef, UserId,
};
use engine::{Engine, EngineError, Event, Events, Reply, Settled, Stamp};
use proptest::prelude::*;
use rust_decimal::Decimal;

const USERS: u32 = 5;
const DURATIONS: [u32; 3] = [5, 10, 60];

#[derive(Debug, Clone)]
enum Op {
    Advance(u64),
    Tick {
        forex: bool,
        step: i64,
    },
    Order {
        user: u32,
        demo: bool,
        up: bool,
        cents: i64,
        duration: usize,
        forex: bool,
    },
    Timer,
    Deposit {
        user: u32,
        cents: i64,
    },
    DecideDeposit {
        nth: usize,
        approve: bool,
    },
    Withdraw {
        user: u32,
        cents: i64,
    },
    /// Approve, reject, mark paid or mark failed (0..4) an open withdrawal, whatever its
    /// state: the wrong state is refused and changes nothing.
    DecideWithdrawal {
        nth: usize,
        decision: u8,
    },
    Transfer {
        from: u32,
        to: u32,
        cents: i64,
    },
    Adjust {
        user: u32,
        cents: i64,
    },
    ResetDemo {
        user: u32,
    },
    SetPassword {
        user: u32,
    },
    /// Reward rates per mille for generations 1-3, changed while contracts are open.
    SetRewardRates([i64; 3]),
    /// Responsible-trading limits: a daily loss limit (cents), an open-contract limit, and a
    /// self-exclusion of some hours.
    SetLimits {
        user: u32,
        loss_cents: Option<i64>,
        open: Option<u32>,
        exclude_hours: u64,
    },
    /// A price alert `offset` cents from the price of now (0: at it, refused).
    SetAlert {
        user: u32,
        forex: bool,
        offset: i64,
    },
    /// Remove the user's `nth` waiting alert (or an unknown one).
    CancelAlert {
        user: u32,
        nth: usize,
    },
    /// Sell the user's `nth` open contract at the offer of now, or a cent above it (refused).
    Sell {
        user: u32,
        nth: usize,
        above: bool,
    },
    Snapshot,
    /// Start (or stop) sharing one's trades.
    SetCopyable {
        user: u32,
        copyable: bool,
    },
    /// Copy a leader: percent of the stake, bounds in cents, a stop in cents, demo or real.
    Follow {
        follower: u32,
        leader: u32,
        percent: u16,
        min_cents: i64,
        max_cents: i64,
        stop_cents: i64,
        demo: bool,
    },
    /// End a copy, by the follower (or the leader).
    EndCopy {
        follower: u32,
        leader: u32,
        by_leader: bool,
    },
    /// Create a tournament starting `start_in_ms` from now for `length_ms`, with an entry
    /// fee, a guaranteed pool and two paid places, and publish it (or leave it a draft).
    CreateTournament {
        start_in_ms: u64,
        length_ms: u64,
        fee_cents: i64,
        pool_min_cents: i64,
        publish: bool,
    },
    /// Enter, rebuy in, or (admin) cancel the `nth` tournament kept.
    JoinTournament {
        user: u32,
        nth: usize,
    },
    Rebuy {
        user: u32,
        nth: usize,
    },
    CancelTournament {
        nth: usize,
    },
    /// An order on the tournament balance.
    TournamentOrder {
        user: u32,
        up: bool,
        cents: i64,
        duration: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let user = 1..=USERS;
    prop_oneof![
        6 => (0u64..7_000).prop_map(Op::Advance),
        6 => (any::<bool>(), -3i64..=3).prop_map(|(forex, step)| Op::Tick { forex, step }),
        8 => (user.clone(), any::<bool>(), any::<bool>(), 50i64..30_000, 0..DURATIONS.len(), prop::bool::weighted(0.2))
            .prop_map(|(user, demo, up, cents, duration, forex)| Op::Order { user, demo, up, cents, duration, forex }),
        2 => Just(Op::Timer),
        1 => (user.clone(), 1_000i64..200_000).prop_map(|(user, cents)| Op::Deposit { user, cents }),
        1 => (0usize..4, any::<bool>()).prop_map(|(nth, approve)| Op::DecideDeposit { nth, approve }),
        1 => (user.clone(), 1_000i64..100_000).prop_map(|(user, cents)| Op::Withdraw { user, cents }),
        2 => (0usize..4, 0u8..4).prop_map(|(nth, decision)| Op::DecideWithdrawal { nth, decision }),
        1 => (user.clone(), user.clone(), 1i64..50_000).prop_map(|(from, to, cents)| Op::Transfer { from, to, cents }),
        1 => (user.clone(), -20_000i64..20_000).prop_map(|(user, cents)| Op::Adjust { user, cents }),
        1 => user.clone().prop_map(|user| Op::ResetDemo { user }),
        1 => user.clone().prop_map(|user| Op::SetPassword { user }),
        1 => prop::array::uniform3(0i64..=100).prop_map(Op::SetRewardRates),
        1 => (user.clone(), prop::option::of(100i64..20_000), prop::option::of(1u32..4), prop_oneof![3 => Just(0u64), 1 => 1u64..48])
            .prop_map(|(user, loss_cents, open, exclude_hours)| Op::SetLimits { user, loss_cents, open, exclude_hours }),
        2 => (user.clone(), prop::bool::weighted(0.2), -40i64..=40).prop_map(|(user, forex, offset)| Op::SetAlert { user, forex, offset }),
        1 => (user.clone(), 0usize..3).prop_map(|(user, nth)| Op::CancelAlert { user, nth }),
        1 => Just(Op::Snapshot),
        3 => (user.clone(), 0usize..3, prop::bool::weighted(0.2)).prop_map(|(user, nth, above)| Op::Sell { user, nth, above }),
        1 => (user.clone(), prop::bool::weighted(0.8)).prop_map(|(user, copyable)| Op::SetCopyable { user, copyable }),
        2 => (user.clone(), user.clone(), 0u16..=300, 0i64..2_000, 0i64..40_000, prop_oneof![2 => Just(0i64), 1 => 0i64..200_000], any::<bool>())
            .prop_map(|(follower, leader, percent, min_cents, max_cents, stop_cents, demo)| Op::Follow { follower, leader, percent, min_cents, max_cents, stop_cents, demo }),
        1 => (user.clone(), user.clone(), any::<bool>()).prop_map(|(follower, leader, by_leader)| Op::EndCopy { follower, leader, by_leader }),
        1 => (0u64..20_000, 5_000u64..120_000, 0i64..3_000, 0i64..5_000, prop::bool::weighted(0.9))
            .prop_map(|(start_in_ms, length_ms, fee_cents, pool_min_cents, publish)| Op::CreateTournament { start_in_ms, length_ms, fee_cents, pool_min_cents, publish }),
        2 => (user.clone(), 0usize..3).prop_map(|(user, nth)| Op::JoinTournament { user, nth }),
        1 => (user.clone(), 0usize..3).prop_map(|(user, nth)| Op::Rebuy { user, nth }),
        1 => (0usize..3).prop_map(|nth| Op::CancelTournament { nth }),
        3 => (user.clone(), any::<bool>(), 1i64..60_000, 0usize..3)
            .prop_map(|(user, up, cents, duration)| Op::TournamentOrder { user, up, cents, duration }),
    ]
}

fn cents(c: i64) -> Decimal {
    Decimal::new(c, 2)
}

/// The model: every tick per symbol, and what is open or settled.
#[derive(Default)]
struct Model {
    ticks: HashMap<Symbol, Vec<TickRef>>,
    opened: HashMap<ContractId, Symbol>,
    settled: HashSet<u64>,
    prices: HashMap<Symbol, i64>,
    alerts_fired: HashSet<u64>,
    /// Sales announced, not yet settled.
    sold: HashMap<ContractId, engine::sale::Quote>,
    /// The newest contract opened by an order of its own (not a copy).
    last_order: Option<(ContractId, engine::types::Contract)>,
    /// Copies opened, and their leaders.
    copies: HashMap<ContractId, UserId>,
}

impl Model {
    /// Re-derives one settlement from the ticks alone and compares.
    fn check_settlement(&mut self, s: &Settled<'_>, hours: &engine::types::MarketHours) {
        let c = &s.contract;
        assert_eq!(self.opened.get(&c.id), Some(&s.symbol), "settled a contract never opened");
        assert!(self.settled.insert(c.id.into()), "contract {} settled twice", c.id);
        let ticks = self.ticks.get(&s.symbol).map(Vec::as_slice).unwrap_or(&[]);
        if let Some(quote) = self.sold.remove(&c.id) {
            // Sold before expiry at the offer announced, after entering on the next tick.
            assert_eq!(s.outcome, Outcome::Sold);
            let entry = ticks.iter().find(|t| t.index > c.accepted_index).copied();
            assert_eq!(c.entry, entry, "entry must be the next tick");
            assert!(s.settled_ms < c.expiry_ms, "sold at or after expiry");
            assert_eq!(s.exit, Some(quote.tick));
            assert_eq!(ticks.last(), Some(&quote.tick), "a sale is priced at the latest tick");
            assert!(quote.offer.is_positive() && quote.offer <= quote.win_credit);
            assert_eq!(s.credited, quote.offer);
            return;
        }
        assert_ne!(s.outcome, Outcome::Sold, "a sale without its quote");
        let first_after = ticks.iter().find(|t| t.index > c.accepted_index).copied();
        let expected = match first_after {
            Some(t) if t.time_ms - c.accepted_ms <= 5_000 => {
                assert_eq!(c.entry, Some(t), "entry must be the next tick");
                assert_eq!(c.expiry_ms, t.time_ms + c.duration_ms);
                assert!(s.settled_ms > c.expiry_ms, "settled before expiry");
                let exit = ticks.iter().rev().find(|x| x.time_ms <= c.expiry_ms).copied();
                assert_eq!(s.exit, exit, "exit must be the last tick at or before expiry");
                let exit = exit.expect("the entry tick itself is at or before expiry");
                if hours.closed_between(c.accepted_ms, c.expiry_ms) {
                    Outcome::VoidMarketClosed
                } else if exit.time_ms + 5_000 < c.expiry_ms {
                    Outcome::VoidStaleFeed
                } else {
                    let entry = t.price;
                    match (exit.price.cmp(&entry), c.direction) {
                        (std::cmp::Ordering::Equal, _) => Outcome::Tie,
                        (std::cmp::Ordering::Greater, Direction::Up)
                        | (std::cmp::Ordering::Less, Direction::Down) => Outcome::Win,
                        _ => Outcome::Loss,
                    }
                }
            }
            _ => {
                assert_eq!(c.entry, None);
                assert!(s.settled_ms - c.accepted_ms > 5_000, "voided before the entry wait ended");
                Outcome::VoidNoEntry
            }
        };
        assert_eq!(s.outcome, expected, "outcome of contract {}", c.id);
        // The engine computes in integer cents and millionths; the model in `Decimal`, from
        // the rules as the admin wrote them. Both round half to even to the cent.
        let half_even = |v: Decimal| {
            v.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointNearestEven)
        };
        let (payout_rate, fee_rate) = match c.duration_ms / 1_000 {
            5 => (dec("0.9"), dec("0")),
            10 => (dec("0.8"), dec("0.01")),
            _ => (dec("0.85"), dec("0.005")),
        };
        let stake = c.stake.to_decimal();
        assert_eq!(c.payout_rate.to_decimal(), payout_rate);
        assert_eq!(c.fee.to_decimal(), half_even(stake * fee_rate), "fee of contract {}", c.id);
        let credited = match expected {
            Outcome::Win => half_even(stake * (Decimal::ONE + payout_rate)),
            Outcome::Loss => Decimal::ZERO,
            Outcome::Tie => stake,
            _ => stake + c.fee.to_decimal(),
        };
        assert_eq!(s.credited.to_decimal(), credited, "credit of contract {}", c.id);
        assert_eq!(s.profit().to_decimal(), credited - stake - c.fee.to_decimal());
    }
}

struct Run {
    h: Harness,
    model: Model,
    /// A snapshot taken mid-stream, where in the log, and the state frozen at that moment.
    snapshot: Option<(Vec<u8>, usize, engine::snapshot::Frozen)>,
}

impl Run {
    fn new(friday_evening: bool, thin_house: bool) -> Run {
        let start = if friday_evening {
            MONDAY_MS + (4 * 24 + 21) * 3_600_000 + 50 * 60_000
        } else {
            MONDAY_MS + 9 * 3_600_000
        };
        let mut h = Harness::at(start);
        h.set_rule(5, "0.9", "0");
        h.set_rule(10, "0.8", "0.01");
        h.set_rule(60, "0.85", "0.005");
        let mut code = None;
        for i in 1..=USERS {
            let user = h.register(&format!("user{i}"), code.take());
            code = Some(h.engine.user(user).unwrap().invite_code.clone());
            h.deposit(user, "500");
        }
        if thin_house {
            // Take almost all of the harness's house capital back out, so the reserve binds.
            let user = h.register("drain", None);
            let free = h.engine.ledger().house.to_decimal() - Decimal::from(300);
            h.admin(AdminAction::AdjustBalance { user, delta: free, reason: "thin house".into() });
        }
        let mut run = Run { h, model: Model::default(), snapshot: None };
        run.observe(0);
        // Enough price changes of BTCUSDT for early close to make offers from the start.
        for n in 0..=engine::sale::WINDOW_RETURNS_MIN {
            run.h.advance(250);
            run.step(&Op::Tick { forex: false, step: if n % 2 == 0 { 2 } else { -2 } });
        }
        run
    }

    fn price_of(model: &mut Model, symbol: Symbol, step: i64) -> Decimal {
        let p = model.prices.entry(symbol).or_insert(10_000);
        *p = (*p + step).max(1);
        Decimal::new(*p, 2)
    }

    fn step(&mut self, op: &Op) {
        let events_before = self.h.events.len();
        let h = &mut self.h;
        let command = match *op {
            Op::Advance(ms) => {
                h.advance(ms);
                return;
            }
            Op::Sell { user, nth, above } => {
                let user = UserId(user);
                let mut open: Vec<_> = h
                    .engine
                    .open_contracts()
                    .filter(|c| c.user == user && c.entry.is_some())
                    .cloned()
                    .collect();
                open.sort_by_key(|c| c.id);
                let Some(c) = open.get(nth) else { return };
                let seen = match h.engine.offer_for(c.id) {
                    Some(Ok(q)) if above => q.offer.to_decimal() + Decimal::new(1, 2),
                    Some(Ok(q)) => q.offer.to_decimal(),
                    _ => Decimal::ZERO,
                };
                let symbol = h.engine.products()[usize::from(c.product)].symbol;
                Command::SellContract(engine::command::SellContract {
                    user,
                    contract: c.id,
                    symbol,
                    expiry_ms: c.expiry_ms,
                    seen,
                })
            }
            Op::Snapshot => {
                self.snapshot = Some((h.engine.snapshot_bytes(), h.log.len(), h.engine.frozen()));
                return;
            }
            Op::Tick { forex, step } => {
                let symbol = if forex { eurusd() } else { btc() };
                let price = Run::price_of(&mut self.model, symbol, step);
                Command::Tick { symbol, price, quantity: Decimal::ONE }
            }
            Op::Order { user, demo, up, cents: c, duration, forex } => {
                Command::PlaceOrder(PlaceOrder {
                    user: UserId(user),
                    account: if demo { AccountKind::Demo } else { AccountKind::Real },
                    symbol: if forex { eurusd() } else { btc() },
                    direction: if up { Direction::Up } else { Direction::Down },
                    stake: cents(c),
                    duration_secs: DURATIONS[duration],
                })
            }
            Op::Timer => Command::Timer,
            Op::SetCopyable { user, copyable } => {
                Command::SetCopyable { user: UserId(user), copyable }
            }
            Op::Follow { follower, leader, percent, min_cents, max_cents, stop_cents, demo } => {
                Command::Follow {
                    follower: UserId(follower),
                    leader: UserId(leader),
                    settings: Box::new(engine::copy::CopySettings {
                        account: if demo { AccountKind::Demo } else { AccountKind::Real },
                        percent,
                        min_stake: Money::from_cents(min_cents),
                        max_stake: Money::from_cents(max_cents),
                        stop_below: Money::from_cents(stop_cents),
                    }),
                }
            }
            Op::CreateTournament { start_in_ms, length_ms, fee_cents, pool_min_cents, publish } => {
                let start_ms = h.now_ms + start_in_ms;
                let rules = engine::tournament::TournamentRules {
                    title: "property".into(),
                    symbols: Vec::new(),
                    durations: Vec::new(),
                    start_ms,
                    end_ms: start_ms + length_ms,
                    entry_fee: Money::from_cents(fee_cents),
                    start_balance: Money::from_usdt(1_000),
                    rebuys_max: 2,
                    rebuy_fee: Money::from_cents(fee_cents / 2),
                    rebuy_below: Money::from_usdt(900),
                    pool_share_bp: 7_500,
                    pool_min: Money::from_cents(pool_min_cents),
                    prizes_bp: vec![7_000, 3_000],
                };
                let created = h.run(Command::Admin {
                    admin: AdminId(1),
                    action: Box::new(AdminAction::CreateTournament(Box::new(rules))),
                });
                if let (Ok(Reply::TournamentCreated { tournament }), true) = (created, publish) {
                    Command::Admin {
                        admin: AdminId(1),
                        action: Box::new(AdminAction::PublishTournament { tournament }),
                    }
                } else {
                    self.observe(events_before);
                    return;
                }
            }
            Op::JoinTournament { user, nth } | Op::Rebuy { user, nth } => {
                let Some(t) = h.engine.tournaments().nth(nth) else { return };
                let (user, tournament) = (UserId(user), t.id);
                if matches!(op, Op::Rebuy { .. }) {
                    Command::Rebuy { user, tournament }
                } else {
                    Command::JoinTournament { user, tournament }
                }
            }
            Op::CancelTournament { nth } => {
                let Some(t) = h.engine.tournaments().nth(nth) else { return };
                Command::Admin {
                    admin: AdminId(1),
                    action: Box::new(AdminAction::CancelTournament { tournament: t.id }),
                }
            }
            Op::TournamentOrder { user, up, cents: c, duration } => {
                Command::PlaceOrder(PlaceOrder {
                    user: UserId(user),
                    account: AccountKind::Tournament,
                    symbol: btc(),
                    direction: if up { Direction::Up } else { Direction::Down },
                    stake: cents(c),
                    duration_secs: DURATIONS[duration],
                })
            }
            Op::EndCopy { follower, leader, by_leader } => Command::EndCopy {
                by: UserId(if by_leader { leader } else { follower }),
                follower: UserId(follower),
                leader: UserId(leader),
            },
            Op::SetAlert { user, forex, offset } => {
                let symbol = if forex { eurusd() } else { btc() };
                let now = self.model.prices.get(&symbol).copied().unwrap_or(10_000);
                Command::SetPriceAlert {
                    user: UserId(user),
                    symbol,
                    price: cents((now + offset).max(1)),
                }
            }
            Op::CancelAlert { user, nth } => {
                let alert = h.engine.price_alerts(UserId(user)).get(nth).map_or(u64::MAX, |a| a.id);
                Command::CancelPriceAlert { user: UserId(user), alert }
            }
            Op::Deposit { user, cents: c } => Command::RequestDeposit(Box::new(RequestDeposit {
                user: UserId(user),
                amount: cents(c),
                method: PayMethod::BankTransfer,
                account_name: "Name".into(),
                account_number: "123".into(),
                bank_name: "Bank".into(),
                receipt: "r.png".into(),
            })),
            Op::DecideDeposit { nth, approve } => {
                let Some(order) = h.engine.pending_deposits().nth(nth).map(|d| d.id) else {
                    return;
                };
                let action = if approve {
                    AdminAction::ApproveDeposit { order }
                } else {
                    AdminAction::RejectDeposit { order, remark: "no".into() }
                };
                Command::Admin { admin: AdminId(1), action: Box::new(action) }
            }
            Op::Withdraw { user, cents: c } => Command::RequestWithdrawal {
                user: UserId(user),
                amount: cents(c),
                destination: Box::new(Destination::Wallet {
                    chain: Chain::Eth,
                    address: "0xabc".into(),
                }),
            },
            Op::DecideWithdrawal { nth, decision } => {
                let Some(order) = h.engine.open_withdrawals().nth(nth).map(|w| w.id) else {
                    return;
                };
                let action = match decision {
                    0 => AdminAction::ApproveWithdrawal { order },
                    1 => AdminAction::RejectWithdrawal { order, remark: "no".into() },
                    2 => AdminAction::CompleteWithdrawal { order },
                    _ => AdminAction::FailWithdrawal { order, remark: "bank refused".into() },
                };
                Command::Admin { admin: AdminId(1), action: Box::new(action) }
            }
            Op::Transfer { from, to, cents: c } => {
                Command::Transfer { from: UserId(from), to: UserId(to), amount: cents(c) }
            }
            Op::Adjust { user, cents: c } => Command::Admin {
                admin: AdminId(1),
                action: Box::new(AdminAction::AdjustBalance {
                    user: UserId(user),
                    delta: cents(c),
                    reason: "test".into(),
                }),
            },
            Op::ResetDemo { user } => Command::ResetDemo { user: UserId(user) },
            Op::SetPassword { user } => Command::SetPassword {
                user: UserId(user),
                password_hash: "h2".into(),
                keep_session: None,
            },
            Op::SetLimits { user, loss_cents, open, exclude_hours } => Command::SetTradingLimits {
                user: UserId(user),
                limits: Box::new(engine::types::TradingLimits {
                    daily_loss: loss_cents.map(cents),
                    open_contracts: open,
                    excluded_until_ms: if exclude_hours == 0 {
                        0
                    } else {
                        h.now_ms + exclude_hours * 3_600_000
                    },
                    ..Default::default()
                }),
            },
            Op::SetRewardRates(per_mille) => {
                let mut settings = h.engine.settings().clone();
                settings.reward_rates = per_mille.iter().map(|&r| Decimal::new(r, 3)).collect();
                Command::Admin {
                    admin: AdminId(1),
                    action: Box::new(AdminAction::UpdateSettings(Box::new(settings))),
                }
            }
        };
        // Money may not leave within 24 h of a password change (withdrawals and transfers).
        let money_out_from = match &command {
            Command::Transfer { from, .. } => Some(*from),
            Command::RequestWithdrawal { user, .. } => Some(*user),
            _ => None,
        };
        let blocked = money_out_from.and_then(|u| h.engine.user(u)).is_some_and(|u| {
            u.password_changed_ms != 0
                && h.now_ms
                    < u.password_changed_ms
                        + engine::constants::WITHDRAW_BLOCK_AFTER_PASSWORD_CHANGE_MS
        });
        // A real order, whose money the limits count (self-exclusion stops demo orders too).
        let order_of = match &command {
            Command::PlaceOrder(o) => Some((o.user, o.account == AccountKind::Real)),
            _ => None,
        };
        let before = h.engine.content_hash();
        let result = h.run(command);
        if blocked {
            assert!(
                matches!(
                    result,
                    Err(EngineError::TransferBlocked | EngineError::WithdrawalBlocked)
                ),
                "money left within 24 h of a password change: {op:?} gave {result:?}"
            );
        }
        let refused = result.is_err();
        // An accepted order never takes the day past the user's own limits.
        if let (Ok(Reply::OrderAccepted { .. }), Some((user, real))) = (&result, order_of) {
            if let Some(state) = h.engine.trading_limits(user, h.now_ms) {
                let l = &state.current;
                assert!(h.now_ms >= l.excluded_until_ms, "traded while self-excluded: {op:?}");
                if let (true, Some(max)) = (real, l.daily_loss) {
                    assert!(
                        state.day_loss.to_decimal() <= max,
                        "loss limit passed: {op:?} {state:?}"
                    );
                }
            }
        }
        if refused {
            assert_eq!(h.engine.content_hash(), before, "a refused command changed the state");
        }
        h.engine.check_invariants().unwrap_or_else(|e| panic!("after {op:?}: {e}"));
        for user in 1..=USERS {
            for a in h.engine.price_alerts(UserId(user)) {
                let last = h.engine.last_tick(a.symbol).expect("an alert needs a price").price;
                let waits = if a.rising { a.price > last } else { a.price < last };
                assert!(waits, "alert {a:?} is reached by the last tick {last} after {op:?}");
            }
        }
        self.observe(events_before);
    }

    /// Feeds new events to the model and checks every settlement.
    fn observe(&mut self, from: usize) {
        for event in &self.h.events[from..] {
            match event {
                Event::Tick { symbol, tick, .. } => {
                    self.model.ticks.entry(*symbol).or_default().push(*tick)
                }
                Event::ContractOpened { contract: c, symbol, leader, .. } => {
                    let c = self.h.events.opened(*c);
                    assert_eq!(self.h.engine.products()[usize::from(c.product)].symbol, *symbol);
                    self.model.opened.insert(c.id, *symbol);
                    // A copy opens in its leader's command, right after the leader's
                    // contract, on the same product, direction and duration.
                    if let Some(leader) = leader {
                        let (id, original) =
                            self.model.last_order.as_ref().expect("a copy follows an order");
                        assert_eq!(original.user, *leader, "a copy of someone else's order");
                        assert!(c.id > *id && c.user != *leader);
                        assert_eq!(
                            (c.product, c.direction, c.duration_ms, c.accepted_index),
                            (
                                original.product,
                                original.direction,
                                original.duration_ms,
                                original.accepted_index
                            )
                        );
                        self.model.copies.insert(c.id, *leader);
                    } else {
                        self.model.last_order = Some((c.id, c.clone()));
                    }
                }
                Event::PriceAlertFired { alert, tick } => {
                    assert!(
                        self.model.alerts_fired.insert(alert.id),
                        "alert fired twice: {alert:?}"
                    );
                    let reached = if alert.rising {
                        tick.price >= alert.price
                    } else {
                        tick.price <= alert.price
                    };
                    assert!(reached, "{alert:?} fired on {tick:?}, which does not reach it");
                }
                Event::ContractSold { contract, quote, .. } => {
                    assert!(self.model.sold.insert(*contract, (**quote).clone()).is_none());
                }
                Event::ContractSettled(s) => {
                    let s = self.h.events.settlement(s);
                    assert_eq!(
                        s.leader(),
                        self.model.copies.get(&s.contract.id).copied(),
                        "a settled copy names its leader, and only a copy does"
                    );
                    let hours = self.h.engine.product(s.symbol).unwrap().hours.clone();
                    self.model.check_settlement(&s, &hours);
                }
                _ => {}
            }
        }
    }

    fn finish(mut self) {
        // Run out the clock: everything open must settle, each exactly once.
        for _ in 0..3 {
            self.h.advance(3_600_000);
            let from = self.h.events.len();
            self.h.ok(Command::Timer);
            self.observe(from);
        }
        assert_eq!(self.h.engine.open_contract_count(), 0);
        assert_eq!(self.model.opened.len(), self.model.settled.len());
        self.h.check();

        let end = self.h.engine.state_hash();
        let replay = |mut engine: Engine, log: &[(Stamp, Command)]| {
            let mut sink = Events::new();
            for (stamp, command) in log {
                let _ = engine.apply(*stamp, command.clone(), &mut sink);
                sink.clear();
            }
            engine.state_hash()
        };
        assert_eq!(replay(Engine::new(), &self.h.log), end, "replay from genesis diverged");
        let mut quiet = Engine::new();
        quiet.set_quiet(true);
        assert_eq!(replay(quiet, &self.h.log), end, "replay without events reached another state");
        if let Some((bytes, at, frozen)) = &self.snapshot {
            assert!(frozen.bytes() == *bytes, "the frozen state changed with the engine");
            let restored = Engine::restore(bytes).unwrap();
            assert_eq!(
                replay(restored, &self.h.log[*at..]),
                end,
                "replay onto the snapshot diverged"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    #[test]
    fn random_command_streams_keep_every_invariant(
        friday in prop::bool::weighted(0.3),
        thin_house in prop::bool::weighted(0.4),
        ops in prop::collection::vec(op(), 1..400),
    ) {
        let mut run = Run::new(friday, thin_house);
        for op in &ops {
            run.step(op);
        }
        run.finish();
    }
}

#[test]
fn a_long_stream_settles_many_contracts() {
    // A fixed, busy stream so the test also proves that settlement paths are exercised.
    let mut run = Run::new(false, false);
    for i in 0..3_000i64 {
        run.step(&Op::Order {
            user: (i % 5) as u32 + 1,
            demo: i % 3 == 0,
            up: i % 2 == 0,
            cents: 100 + i,
            duration: (i % 3) as usize,
            forex: false,
        });
        run.step(&Op::Tick { forex: false, step: (i * i * 7919 + i / 3) % 7 - 3 });
        run.step(&Op::Advance(1_000));
        if i % 7 == 0 {
            run.step(&Op::Timer);
        }
    }
    let settled = run.model.settled.len();
    let outcomes: HashSet<_> = run.h.settlements().iter().map(|s| s.outcome).collect();
    assert!(settled > 1_000, "only {settled} settled");
    assert!(
        outcomes.contains(&Outcome::Win)
            && outcomes.contains(&Outcome::Loss)
            && outcomes.contains(&Outcome::Tie),
        "{outcomes:?}"
    );
    assert!(matches!(run.h.ok(Command::Timer), Reply::Clock { .. }));
    run.finish();
}

#[test]
fn a_tournament_stream_settles_on_seats_and_finishes() {
    // A fixed stream through the tournament operations, so that the test also proves they
    // are exercised: contracts on seats settle by the same rules, and tournaments finish.
    let mut run = Run::new(false, false);
    let create = |start_in_ms| Op::CreateTournament {
        start_in_ms,
        length_ms: 90_000,
        fee_cents: 500,
        pool_min_cents: 1_000,
        publish: true,
    };
    run.step(&create(1_000));
    for user in 1..=USERS {
        run.step(&Op::JoinTournament { user, nth: 0 });
    }
    run.step(&Op::Advance(1_000));
    for i in 0..200i64 {
        run.step(&Op::TournamentOrder {
            user: (i % 5) as u32 + 1,
            up: i % 2 == 0,
            cents: 10_000 + 100 * i,
            duration: (i % 2) as usize,
        });
        run.step(&Op::Tick { forex: false, step: (i * i * 7919 + i / 3) % 7 - 3 });
        run.step(&Op::Advance(400));
        if i % 10 == 0 {
            run.step(&Op::Rebuy { user: (i % 5) as u32 + 1, nth: 0 });
            run.step(&Op::Timer);
        }
    }
    let on_seats = (run.h.settlements().iter())
        .filter(|s| s.contract.account == AccountKind::Tournament)
        .count();
    assert!(on_seats > 50, "only {on_seats} tournament contracts settled");
    run.step(&Op::Advance(120_000));
    run.step(&Op::Timer);
    let finished: Vec<_> = (run.h.events.iter())
        .filter_map(|e| match e {
            Event::TournamentFinished { table, .. } => Some(table.len()),
            _ => None,
        })
        .collect();
    assert_eq!(finished, [USERS as usize]);
    run.finish();
}
