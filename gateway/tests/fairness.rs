//! Provable fairness: a simulated day of trading (with feed gaps, flat prices, and the forex
//! market closing at Friday 22:00 UTC) runs through the real core, read model and tick
//! archive on a simulated clock; `verify_data_dir` then re-derives every settled result from
//! the archive with its own code and finds no mismatch. A forger who rewrites one archived
//! tick (checksums made right again) is caught, and so is plain damage.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use engine::command::{AdminAction, Command, PlaceOrder, Register, SellContract};
use engine::types::{AccountKind, AdminId, Direction, Rule, Symbol, UserId};
use engine::{Engine, Reply};
use gateway::durable::{Clock, CoreConfig, DurableCore};
use gateway::verify::{verify_data_dir, Report};
use market_feed::archive::{decode_block, encode_block};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

/// Friday 27 November 2026, 00:00 UTC: forex closes at 22:00.
const FRIDAY: u64 = 1_795_737_600_000;
const SECOND: u64 = 1_000;
const DAY: u64 = 86_400 * SECOND;
const FOREX_CLOSE: u64 = FRIDAY + 22 * 3_600 * SECOND;
/// BTCUSDT's feed is silent for this minute (stale exits, entries that never come).
const GAP: (u64, u64) = (FRIDAY + 10 * 3_600 * SECOND, FRIDAY + (10 * 3_600 + 60) * SECOND);

fn symbol(code: &str) -> Symbol {
    Symbol::new(code).unwrap()
}

struct Day {
    node: DurableCore,
    clock: Arc<AtomicU64>,
}

impl Day {
    fn at(&self, time: u64, command: Command) -> Result<Reply, engine::EngineError> {
        self.clock.store(time, Ordering::Release);
        self.node.handle().submit_blocking(command).expect("the pipeline runs")
    }
}

fn start(dir: &std::path::Path) -> Day {
    let clock = Arc::new(AtomicU64::new(FRIDAY - 60 * SECOND));
    let reader = Arc::clone(&clock);
    let config = CoreConfig {
        admin_password: Some("a-long-password".into()),
        clock: Some(Clock(Arc::new(move || reader.load(Ordering::Acquire)))),
        durable: false,
        ..CoreConfig::new(dir)
    };
    let (node, _) = DurableCore::start(config).unwrap();
    let catalogue: Vec<_> = market_feed::catalogue::catalogue()
        .into_iter()
        .filter(|i| ["BTCUSDT", "EURUSD"].contains(&i.symbol.as_str()))
        .collect();
    market_feed::feed::sync_catalogue(node.handle(), AdminId(1), &catalogue).unwrap();
    let day = Day { node, clock };
    let rule = Rule {
        duration_secs: 5,
        payout_rate: dec!(0.85),
        stake_min: dec!(1),
        stake_max: dec!(5000),
        fee_rate: dec!(0.01),
        enabled: true,
    };
    day.at(
        FRIDAY - 30 * SECOND,
        Command::Admin { admin: AdminId(1), action: Box::new(AdminAction::SetRule(rule)) },
    )
    .unwrap();
    for n in 0..3 {
        let register = Register {
            username: format!("trader{n}"),
            email: Some(format!("trader{n}@example.com")),
            password_hash: Some("x".repeat(20)),
            wallet: None,
            invite_code: None,
            email_verified: false,
        };
        day.at(FRIDAY - 20 * SECOND, Command::Register(Box::new(register))).unwrap();
    }
    day
}

/// A price path on a coarse grid, so exits often equal entries (ties).
fn btc_price(second: u64) -> Decimal {
    let wobble = (second * 7919 % 13) as i64 - 6;
    let trend = ((second / 600) % 20) as i64 - 10;
    dec!(96000) + Decimal::new((trend * 4 + wobble / 3) * 50, 2)
}

fn eur_price(second: u64) -> Decimal {
    dec!(1.07000) + Decimal::new(((second * 104_729 % 17) as i64 - 8) * 10, 5)
}

fn run_day(day: &Day) -> u64 {
    let (btc, eur) = (symbol("BTCUSDT"), symbol("EURUSD"));
    let durations = [5u32, 60, 300, 5, 60, 3_600];
    let mut orders = 0;
    for second in 0..DAY / SECOND {
        let now = FRIDAY + second * SECOND;
        let quiet = (GAP.0..GAP.1).contains(&now);
        if !quiet {
            day.at(
                now,
                Command::Tick { symbol: btc, price: btc_price(second), quantity: dec!(0.01) },
            )
            .unwrap();
        }
        if now < FOREX_CLOSE && second % 2 == 0 {
            day.at(
                now + 1,
                Command::Tick { symbol: eur, price: eur_price(second), quantity: dec!(1000) },
            )
            .unwrap();
        }
        // Orders around the clock, a burst around BTCUSDT's gap, and hour-long EURUSD
        // contracts late in the day (those after 21:00 see the market close).
        let near_gap = (GAP.0 - 90 * SECOND..GAP.1).contains(&now);
        let late_forex =
            (FOREX_CLOSE - 2 * 3_600 * SECOND..FOREX_CLOSE - 60 * SECOND).contains(&now);
        let mut wanted = Vec::new();
        if second % 37 == 0 || near_gap && second % 7 == 0 {
            wanted.push((btc, durations[(orders as usize / 2) % durations.len()]));
        }
        if second % 301 == 0 {
            wanted.push((eur, durations[(orders as usize / 2) % durations.len()]));
        }
        if late_forex && second % 600 == 0 {
            wanted.push((eur, 3_600));
        }
        for (sym, duration) in wanted {
            let user = 1 + (orders % 3) as u32;
            let direction = if orders % 2 == 0 { Direction::Up } else { Direction::Down };
            let place = PlaceOrder {
                user: UserId(user),
                account: AccountKind::Demo,
                symbol: sym,
                direction,
                stake: dec!(10),
                duration_secs: duration,
            };
            if day.at(now + 2, Command::PlaceOrder(place)).is_ok() {
                orders += 1;
            }
        }
        // Now and then the oldest entered BTCUSDT contract is sold back at its offer of the
        // moment.
        if second % 181 == 0 && !quiet {
            sell_one(day, now + 600);
        }
        day.at(now + 500, Command::Timer).unwrap();
    }
    // Let every contract of the day settle (the longest is an hour): two hours of timers.
    for second in 0..7_200 {
        day.at(FRIDAY + DAY + second * SECOND, Command::Timer).unwrap();
    }
    orders
}

/// Sells the oldest entered contract with an offer at `time`, at that offer.
fn sell_one(day: &Day, time: u64) {
    // The engine's clock moves with commands: a timer brings it to the sale's time.
    day.at(time, Command::Timer).unwrap();
    let found = day
        .node
        .handle()
        .query(move |e: &Engine| {
            let btc = e.product(symbol("BTCUSDT")).map(|p| p.symbol);
            let mut open: Vec<_> = (e.open_contracts())
                .filter(|c| {
                    c.entry.is_some() && Some(e.products()[usize::from(c.product)].symbol) == btc
                })
                .collect();
            open.sort_by_key(|c| c.id);
            open.into_iter().find_map(|c| {
                let quote = e.offer_for(c.id)?.ok()?;
                let symbol = e.products()[usize::from(c.product)].symbol;
                Some(SellContract {
                    user: c.user,
                    contract: c.id,
                    symbol,
                    expiry_ms: c.expiry_ms,
                    seen: quote.offer.to_decimal(),
                })
            })
        })
        .unwrap();
    if let Some(sale) = found {
        // The clock does not move between the query and the sale: the offer is the same.
        assert!(matches!(day.at(time, Command::SellContract(sale)), Ok(Reply::Sold { .. })));
    }
}

fn check(report: &Report) {
    for outcome in
        ["win", "loss", "tie", "void_no_entry", "void_stale_feed", "void_market_closed", "sold"]
    {
        assert!(
            report.outcomes.get(outcome).copied().unwrap_or(0) > 0,
            "no {outcome} in the day: {report}"
        );
    }
}

#[test]
fn a_simulated_day_re_derives_with_zero_mismatches_and_a_forged_tick_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let day = start(dir.path());
    let orders = run_day(&day);
    assert!(orders > 2_000, "orders placed: {orders}");
    let open = day.node.handle().query(|e: &Engine| e.open_contract_count()).unwrap();
    assert_eq!(open, 0, "every contract settled");
    day.node.shutdown().unwrap();

    let report = verify_data_dir(dir.path()).unwrap();
    println!("{report}");
    assert!(report.clean(), "{report}");
    assert_eq!(report.checked, orders);
    check(&report);

    // A forger rewrites the exit tick of one settled BTCUSDT contract, checksums and all.
    let model = gateway::readmodel::ReadModel::open(&dir.path().join("readmodel")).unwrap();
    let victim = model
        .contracts_after(0, 10_000, |r| {
            r.symbol == "BTCUSDT" && r.outcome == Some(engine::types::Outcome::Win)
        })
        .unwrap()
        .remove(0);
    drop(model);
    let exit = victim.exit.unwrap();
    let file = dir
        .path()
        .join("ticks/BTCUSDT")
        .join(format!("{}.tk", market_feed::archive::day_name(exit.time)));
    let bytes = std::fs::read(&file).unwrap();
    let mut rewritten = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        let mut ticks = decode_block(&bytes[at..at + len]).unwrap();
        for tick in ticks.iter_mut().filter(|t| t.index == exit.sequence) {
            tick.price = victim.entry.unwrap().price; // the "exit" now equals the entry
        }
        rewritten.extend_from_slice(&encode_block(&ticks));
        at += len;
    }
    std::fs::write(&file, &rewritten).unwrap();
    let report = verify_data_dir(dir.path()).unwrap();
    assert!(report.errors.is_empty(), "{report}");
    assert!(
        report.mismatches.iter().any(|m| m.contract == victim.id && m.field == "outcome"),
        "{report}"
    );

    // Plain damage (a flipped byte) is reported too, never passed over.
    let mut damaged = rewritten.clone();
    damaged[100] ^= 0x10;
    std::fs::write(&file, &damaged).unwrap();
    let report = verify_data_dir(dir.path()).unwrap();
    assert!(!report.errors.is_empty(), "{report}");
}
