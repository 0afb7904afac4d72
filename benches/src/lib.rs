//! Shared set-up for the benchmarks: a populated engine and reproducible command streams.
//!
//! - [`World`]: an engine with N funded users, the crypto catalogue and M open long contracts.
//! - [`mix`]: the standard mix: 6 orders and 4 ticks in every 10 commands, time advancing
//!   1 ms per command, so 60 s contracts settle steadily on later ticks.
//! - [`durable`]: the fsync baseline and engine pipelines for the durable-path benches.

// Rates and latencies are reported as floats; no money is computed here.
#![allow(clippy::float_arithmetic)]

pub mod durable;

use engine::command::{AdminAction, Command, PlaceOrder};
use engine::types::{AccountKind, AdminId, Category, Direction, MarketHours, Rule, Symbol, UserId};
use engine::{Engine, Events, Reply, Stamp};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_decimal::Decimal;

/// Monday 2026-11-16 00:00 UTC: benches start here so forex hours never interfere.
pub const START_MS: u64 = 1_794_787_200_000;
/// Products in the bench catalogue.
pub const PRODUCTS: usize = 20;

/// Bench product codes: `P00USDT` ... .
pub fn symbol(i: usize) -> Symbol {
    Symbol::new(&format!("P{i:02}USDT")).expect("valid code")
}

/// An engine being filled, with its own log position and clock.
#[derive(Debug)]
pub struct World {
    /// The engine.
    pub engine: Engine,
    /// Last index used.
    pub index: u64,
    /// Current time.
    pub now_ms: u64,
    /// Users created.
    pub users: u32,
    /// Scratch event buffer.
    pub events: Events,
}

impl World {
    /// Applies one command at the current time; panics on refusal (set-up must not fail).
    pub fn must(&mut self, command: Command) -> Reply {
        self.index += 1;
        let stamp = Stamp { index: self.index, time_ms: self.now_ms };
        // Named by its index: formatting every command up front was a tenth of a set-up.
        let reply = self.engine.apply(stamp, command, &mut self.events);
        self.events.clear();
        reply.unwrap_or_else(|e| panic!("set-up command {} refused: {e}", stamp.index))
    }

    /// `users` funded users, the catalogue, a funded house, and `open` contracts of one week
    /// (which stay open for any bench run), entered.
    pub fn new(users: u32, open: u64) -> World {
        let mut w = World {
            engine: Engine::new(),
            index: 0,
            now_ms: START_MS,
            users,
            events: Events::new(),
        };
        w.must(Command::BootstrapAdmin { username: "bench".into(), password_hash: "x".into() });
        for _ in 0..100 {
            w.admin(AdminAction::FundHouse { amount: Decimal::from(1_000_000_000_000i64) });
        }
        let mut settings = w.engine.settings().clone();
        settings.open_contracts_per_user_max = 10_000;
        w.admin(AdminAction::UpdateSettings(Box::new(settings)));
        w.admin(AdminAction::SetRule(Rule {
            duration_secs: 60,
            payout_rate: Decimal::new(85, 2),
            stake_min: Decimal::ONE,
            stake_max: Decimal::from(5_000),
            fee_rate: Decimal::new(1, 3),
            enabled: true,
        }));
        for i in 0..PRODUCTS {
            w.admin(AdminAction::UpsertProduct {
                symbol: symbol(i),
                name: format!("P{i:02}/USDT"),
                category: Category::Crypto,
                precision: 2,
                enabled: true,
                hours: MarketHours::Always,
            });
        }
        for u in 1..=users {
            w.must(Command::Register(Box::new(engine::Register {
                username: format!("bench{u}"),
                email: None,
                password_hash: None,
                wallet: Some(engine::types::WalletBinding {
                    chain: engine::types::Chain::Eth,
                    address: format!("0x{u:040x}"),
                }),
                invite_code: None,
                email_verified: false,
            })));
            w.admin(AdminAction::AdjustBalance {
                user: UserId(u),
                delta: Decimal::from(10_000_000),
                reason: "bench".into(),
            });
        }
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for n in 0..open {
            let user = (n % u64::from(users)) as u32 + 1;
            w.must(order(user, (n as usize) % PRODUCTS, &mut rng, 604_800));
        }
        for i in 0..PRODUCTS {
            w.must(Command::Tick {
                symbol: symbol(i),
                price: Decimal::new(100_000, 2),
                quantity: Decimal::ONE,
            });
        }
        w
    }

    /// `per_user` price alerts for every user, spread over the products at levels between
    /// half and twice the starting price (none at it): the mix's walk reaches few of them,
    /// so the bench measures ticks checking a full book of alerts.
    pub fn add_alerts(&mut self, per_user: u32) {
        for u in 1..=self.users {
            for k in 0..per_user {
                let spread = i64::from((u * 7 + k * 13) % 490);
                let price = if k % 2 == 0 { 1_010 + 2 * spread } else { 990 - spread };
                self.must(Command::SetPriceAlert {
                    user: UserId(u),
                    symbol: symbol(((u + k) as usize) % PRODUCTS),
                    price: Decimal::from(price),
                });
            }
        }
    }

    /// `leaders` traders who share their trades (users 1, 2, ...), each copied by
    /// `per_leader` of the users after them: real copies at half the leader's stake. The mix
    /// picks its traders at random, so most of these followers wait, and a leader's order
    /// places `per_leader` copies.
    pub fn add_followers(&mut self, leaders: u32, per_leader: u32) {
        for l in 1..=leaders {
            self.must(Command::SetCopyable { user: UserId(l), copyable: true });
        }
        for n in 0..leaders * per_leader {
            let settings = engine::copy::CopySettings {
                account: AccountKind::Real,
                percent: 50,
                min_stake: engine::money::Money::from_usdt(1),
                max_stake: engine::money::Money::from_usdt(100),
                stop_below: engine::money::Money::ZERO,
            };
            self.must(Command::Follow {
                follower: UserId(leaders + 1 + n),
                leader: UserId(1 + n % leaders),
                settings: Box::new(settings),
            });
        }
    }

    /// Seats the last `players` users in a free tournament running for the next 30 days,
    /// with none of them trading it: the mix's orders are real and demo, so every one of
    /// them is a player who waits.
    pub fn add_tournament_players(&mut self, players: u32) {
        let start_ms = self.now_ms;
        let rules = engine::tournament::TournamentRules {
            title: "bench".into(),
            symbols: Vec::new(),
            durations: Vec::new(),
            start_ms,
            end_ms: start_ms + 30 * 86_400_000,
            entry_fee: engine::money::Money::ZERO,
            start_balance: engine::money::Money::from_usdt(10_000),
            rebuys_max: 0,
            rebuy_fee: engine::money::Money::ZERO,
            rebuy_below: engine::money::Money::ZERO,
            pool_share_bp: 0,
            pool_min: engine::money::Money::ZERO,
            prizes_bp: vec![10_000],
        };
        let Reply::TournamentCreated { tournament } =
            self.admin(AdminAction::CreateTournament(Box::new(rules)))
        else {
            panic!("the bench's tournament was not created");
        };
        self.admin(AdminAction::PublishTournament { tournament });
        for user in self.users + 1 - players.min(self.users)..=self.users {
            self.must(Command::JoinTournament { user: UserId(user), tournament });
        }
    }

    /// Applies an admin action as the first admin.
    pub fn admin(&mut self, action: AdminAction) -> Reply {
        self.must(Command::Admin { admin: AdminId(1), action: Box::new(action) })
    }
}

/// A random order on product `product` for `user`.
pub fn order(user: u32, product: usize, rng: &mut ChaCha8Rng, duration_secs: u32) -> Command {
    Command::PlaceOrder(PlaceOrder {
        user: UserId(user),
        account: if rng.gen_range(0..10) == 0 { AccountKind::Demo } else { AccountKind::Real },
        symbol: symbol(product),
        direction: if rng.gen_range(0..2) == 0 { Direction::Up } else { Direction::Down },
        stake: Decimal::new(100 + rng.gen_range(0..9_900) as i64, 2),
        duration_secs,
    })
}

/// Where a stream continues a world's log: its last index and time, and its user count.
#[derive(Debug, Clone, Copy)]
pub struct Cursor {
    /// Last index used.
    pub index: u64,
    /// Current time.
    pub now_ms: u64,
    /// Users that exist.
    pub users: u32,
}

impl World {
    /// Where the next stream starts.
    pub fn cursor(&self) -> Cursor {
        Cursor { index: self.index, now_ms: self.now_ms, users: self.users }
    }

    /// Moves the log position past a stream that was applied.
    pub fn advance_past(&mut self, stream_end: Cursor) {
        self.index = stream_end.index;
        self.now_ms = stream_end.now_ms;
    }
}

/// The standard mix as a pre-generated stream of stamped commands, continuing at `at`.
/// Returns the stream and the cursor after it.
pub fn mix(at: Cursor, commands: usize, seed: u64) -> (Vec<(Stamp, Command)>, Cursor) {
    let world = at;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut prices = [100_000i64; PRODUCTS];
    let mut out = Vec::with_capacity(commands);
    for n in 0..commands {
        let stamp =
            Stamp { index: world.index + 1 + n as u64, time_ms: world.now_ms + 1 + n as u64 };
        let command = if n % 10 < 6 {
            let user = rng.gen_range(0..u64::from(world.users)) as u32 + 1;
            order(user, rng.gen_range(0..PRODUCTS as u64) as usize, &mut rng, 60)
        } else {
            let p = rng.gen_range(0..PRODUCTS as u64) as usize;
            prices[p] = (prices[p] + rng.gen_range(0..21) as i64 - 10).max(1);
            Command::Tick {
                symbol: symbol(p),
                price: Decimal::new(prices[p], 2),
                quantity: Decimal::ONE,
            }
        };
        out.push((stamp, command));
    }
    let end =
        Cursor { index: at.index + commands as u64, now_ms: at.now_ms + commands as u64, ..at };
    (out, end)
}

/// Applies a stream; returns how many commands were refused (should be none).
pub fn apply_all(engine: &mut Engine, stream: Vec<(Stamp, Command)>, events: &mut Events) -> usize {
    let mut refused = 0;
    let mut stream = stream.into_iter();
    while let Some((stamp, command)) = {
        // As the pipeline's engine thread applies a batch: a few commands ahead prefetched.
        if let Some((ahead_stamp, ahead)) = stream.as_slice().get(8) {
            engine.prefetch(ahead_stamp.time_ms, ahead);
        }
        stream.next()
    } {
        if engine.apply(stamp, command, events).is_err() {
            refused += 1;
        }
        events.clear();
    }
    refused
}
