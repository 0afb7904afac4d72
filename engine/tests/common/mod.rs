//! A test harness: stamps commands with a growing index and a controllable clock.
#![allow(dead_code)]

use engine::command::{AdminAction, Command, PlaceOrder, Register, RequestDeposit};
use engine::types::{
    AccountKind, AdminId, Category, Direction, MarketHours, PayMethod, Rule, Symbol, UserId,
};
use engine::{CommandResult, Engine, Events, Reply, Settled, Stamp};
use rust_decimal::Decimal;

/// Monday 2026-11-16 00:00 UTC.
pub const MONDAY_MS: u64 = 1_794_787_200_000;

pub fn btc() -> Symbol {
    Symbol::new("BTCUSDT").unwrap()
}

pub fn eurusd() -> Symbol {
    Symbol::new("EURUSD").unwrap()
}

pub fn dec(s: &str) -> Decimal {
    s.parse().unwrap()
}

/// An amount in cents, as the engine keeps balances.
#[allow(dead_code)]
pub fn usdt(s: &str) -> engine::money::Money {
    engine::money::Money::from_decimal(dec(s)).unwrap()
}

/// An engine with a clock, a log index, and every command and event kept for checks.
pub struct Harness {
    pub engine: Engine,
    pub index: u64,
    pub now_ms: u64,
    pub events: Events,
    /// Every command applied, with its stamp: the log, for replay tests.
    pub log: Vec<(Stamp, Command)>,
}

impl Harness {
    /// A fresh engine with an admin (id 1), a funded house, BTCUSDT and EURUSD.
    pub fn new() -> Harness {
        Harness::at(MONDAY_MS + 12 * 3_600_000)
    }

    /// A harness over this engine restored from its snapshot, at the same log position and
    /// time, with an empty log.
    pub fn restored(&self) -> Harness {
        Harness {
            engine: Engine::restore(&self.engine.snapshot_bytes()).expect("restore"),
            index: self.index,
            now_ms: self.now_ms,
            events: Events::new(),
            log: Vec::new(),
        }
    }

    pub fn at(now_ms: u64) -> Harness {
        let mut h = Harness {
            engine: Engine::new(),
            index: 0,
            now_ms,
            events: Events::new(),
            log: Vec::new(),
        };
        h.ok(Command::BootstrapAdmin { username: "root".into(), password_hash: "hash".into() });
        h.admin(AdminAction::FundHouse { amount: dec("1000000") });
        for (symbol, category, hours) in [
            (btc(), Category::Crypto, MarketHours::Always),
            (eurusd(), Category::Forex, MarketHours::forex()),
        ] {
            h.admin(AdminAction::UpsertProduct {
                symbol,
                name: symbol.to_string(),
                category,
                precision: 2,
                enabled: true,
                hours,
            });
        }
        h
    }

    pub fn run(&mut self, command: Command) -> CommandResult {
        self.index += 1;
        let stamp = Stamp { index: self.index, time_ms: self.now_ms };
        self.log.push((stamp, command.clone()));
        self.engine.apply(stamp, command, &mut self.events)
    }

    pub fn ok(&mut self, command: Command) -> Reply {
        let debug = format!("{command:?}");
        self.run(command).unwrap_or_else(|e| panic!("{debug} refused: {e:?}"))
    }

    pub fn admin(&mut self, action: AdminAction) -> Reply {
        self.ok(Command::Admin { admin: AdminId(1), action: Box::new(action) })
    }

    pub fn advance(&mut self, ms: u64) {
        self.now_ms += ms;
    }

    pub fn register(&mut self, name: &str, invite_code: Option<String>) -> UserId {
        match self.ok(Command::Register(Box::new(Register {
            username: name.into(),
            email: Some(format!("{name}@example.com")),
            password_hash: Some("hash".into()),
            wallet: None,
            invite_code,
            email_verified: false,
        }))) {
            Reply::Registered { user, .. } => user,
            other => panic!("unexpected {other:?}"),
        }
    }

    /// Registers a user and credits `amount` through an approved deposit.
    pub fn funded_user(&mut self, name: &str, amount: &str) -> UserId {
        let user = self.register(name, None);
        self.deposit(user, amount);
        user
    }

    pub fn deposit(&mut self, user: UserId, amount: &str) {
        let order = match self.ok(Command::RequestDeposit(Box::new(RequestDeposit {
            user,
            amount: dec(amount),
            method: PayMethod::UsdtTrc20,
            account_name: "Alice".into(),
            account_number: "TXYZ".into(),
            bank_name: String::new(),
            receipt: "r.png".into(),
        }))) {
            Reply::OrderCreated { order } => order,
            other => panic!("unexpected {other:?}"),
        };
        self.admin(AdminAction::ApproveDeposit { order });
    }

    pub fn order(
        &mut self,
        user: UserId,
        account: AccountKind,
        symbol: Symbol,
        direction: Direction,
        stake: &str,
        duration_secs: u32,
    ) -> CommandResult {
        self.run(Command::PlaceOrder(PlaceOrder {
            user,
            account,
            symbol,
            direction,
            stake: dec(stake),
            duration_secs,
        }))
    }

    pub fn tick(&mut self, symbol: Symbol, price: &str) -> Reply {
        self.ok(Command::Tick { symbol, price: dec(price), quantity: Decimal::ONE })
    }

    pub fn set_rule(&mut self, duration_secs: u32, payout: &str, fee: &str) {
        self.admin(AdminAction::SetRule(Rule {
            duration_secs,
            payout_rate: dec(payout),
            stake_min: Decimal::ONE,
            stake_max: Decimal::from(5_000),
            fee_rate: dec(fee),
            enabled: true,
        }));
    }

    pub fn available(&self, user: UserId, kind: AccountKind) -> Decimal {
        self.engine.account(user).unwrap().wallet(kind).available.to_decimal()
    }

    pub fn settlements(&self) -> Vec<Settled<'_>> {
        self.events.settlements().collect()
    }

    pub fn check(&self) {
        self.engine.check_invariants().unwrap();
    }
}
