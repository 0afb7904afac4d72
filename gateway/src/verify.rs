//! The verifier: re-derives every settled contract's result from the archived ticks by the
//! published rule (decisions §2), with code of its own (none of the engine's), and reports
//! every place where the recorded result differs. `trading-verify` runs it over a data
//! directory (the server stopped) or over a server's public API.
//!
//! The rule, as checked here:
//! - entry: the symbol's first tick after the acceptance's log index; none within 5 s of the
//!   acceptance time makes the contract void (`void_no_entry`);
//! - expiry = entry time + duration; a market closed at any moment from acceptance to expiry
//!   makes it void (`void_market_closed`);
//! - exit: the symbol's last tick at or before expiry; none in the 5 s up to expiry makes it
//!   void (`void_stale_feed`);
//! - up wins if exit > entry, down wins if exit < entry, equal is a tie; a win pays
//!   stake × (1 + payout rate) rounded half-even to cents, a tie returns the stake, a void
//!   returns stake and fee, a loss pays nothing; profit = paid − stake − fee.
//! - a contract sold back before expiry (decisions §11) entered by the rule above and was
//!   paid the offer the published early-close rule gives from the archived ticks of its
//!   volatility window, the sale's tick and time, and the recorded spread (set by the
//!   back-office, audited). The offer is derived here from the ticks with its own arithmetic
//!   and its own normal distribution (erfc), not the engine's table.
//!
//! And every finished tournament's table (decisions §11), from its published rules and each
//! player's contracts, each re-derived by the rule above: a player's final balance is the
//! start balance for the entry and each rebuy plus the results of their contracts; the table
//! ranks final balances, highest first (of equal balances, the one reached at the earlier log
//! index); the pool is the pool's share of the fees (entries and rebuys) rounded half-even to
//! cents, and never less than its minimum; each paid place gets its share of the pool, rounded
//! the same way.

use std::collections::HashMap;
use std::fmt;

use rust_decimal::{Decimal, RoundingStrategy};
use serde::Deserialize;

/// How long after acceptance the entry tick may come.
const ENTRY_WAIT_MS: u64 = 5_000;
/// How much older than expiry the exit tick may be.
const EXIT_AGE_MS: u64 = 5_000;
const MINUTE_MS: u64 = 60_000;
const WEEK_MS: u64 = 7 * 24 * 60 * MINUTE_MS;
/// 1970-01-01 was a Thursday: 3 days after a Monday.
const EPOCH_AFTER_MONDAY_MS: u64 = 3 * 24 * 60 * MINUTE_MS;

/// A tick as the archive gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Tick {
    /// Log index.
    #[serde(alias = "sequence")]
    pub index: u64,
    /// Sequencer time (ms).
    pub time: u64,
    pub price: Decimal,
}

/// A settled contract as the platform recorded it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recorded {
    /// Order number.
    pub id: u64,
    /// Product code.
    pub symbol: String,
    /// `up` or `down`.
    pub direction: String,
    pub stake: Decimal,
    pub fee: Decimal,
    /// Payout rate.
    pub payout_rate: Decimal,
    /// Length in seconds.
    pub duration: u64,
    /// Acceptance time (ms).
    pub accepted_at: u64,
    /// Acceptance log index.
    pub accepted_index: u64,
    /// Entry tick used.
    pub entry: Option<Tick>,
    /// Exit tick used.
    pub exit: Option<Tick>,
    /// Outcome recorded.
    pub outcome: String,
    /// Paid back.
    pub credited: Decimal,
    /// Net result.
    pub profit: Decimal,
    /// When it settled (the sale's time for a sale).
    #[serde(default)]
    pub settled_at: u64,
    /// A sale's recorded figures.
    #[serde(default)]
    pub sale: Option<RecordedSale>,
}

/// A sale as recorded: the inputs the rule takes, and the figures it gave.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RecordedSale {
    /// The tick the offer was priced at.
    pub tick: Tick,
    /// Log index of the volatility window's first tick.
    pub window_from: u64,
    /// The spread taken.
    pub spread: Decimal,
    /// Price changes in the window.
    pub returns: u16,
    /// Φ(z) in millionths.
    pub probability: u32,
    /// What the sale paid.
    pub offer: Decimal,
}

/// Where ticks come from: the archive files or a server's API.
pub trait Ticks {
    /// The symbol's first tick with a log index above `index`.
    fn first_after_index(&mut self, symbol: &str, index: u64) -> Result<Option<Tick>, String>;
    /// The symbol's last tick with `from_ms <= time <= to_ms`.
    fn last_between(
        &mut self,
        symbol: &str,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Option<Tick>, String>;
    /// The symbol's ticks with log indexes `from..=to`, in order (a sale's window: a few
    /// hundred).
    fn by_index(&mut self, symbol: &str, from: u64, to: u64) -> Result<Vec<Tick>, String>;
}

/// What the rule gives for a contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived {
    /// The outcome.
    pub outcome: &'static str,
    /// Entry tick, if it entered.
    pub entry: Option<Tick>,
    /// Exit tick, if one decided it.
    pub exit: Option<Tick>,
    /// What the wallet gets back.
    pub credited: Decimal,
    /// credited − stake − fee.
    pub profit: Decimal,
}

/// One difference between the record and the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Order number.
    pub contract: u64,
    /// What differs.
    pub field: &'static str,
    /// As recorded.
    pub recorded: String,
    /// As the rule gives it.
    pub derived: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "contract {}: {} recorded {} but the ticks give {}",
            self.contract, self.field, self.recorded, self.derived
        )
    }
}

/// True if a market with these weekly closed windows (minutes from Monday 00:00 UTC, end
/// exclusive, a window may wrap past the week's end) was closed at any moment of
/// [`from_ms`, `to_ms`].
pub fn closed_at_some_moment(windows: &[(u32, u32)], from_ms: u64, to_ms: u64) -> bool {
    if windows.is_empty() || to_ms < from_ms {
        return false;
    }
    let monday = |t: u64| t - (t + EPOCH_AFTER_MONDAY_MS) % WEEK_MS;
    let mut week = monday(from_ms).saturating_sub(WEEK_MS);
    while week <= to_ms {
        for &(start, end) in windows {
            let open_at = week + u64::from(start) * MINUTE_MS;
            let close_until =
                week + u64::from(end) * MINUTE_MS + if end <= start { WEEK_MS } else { 0 };
            if from_ms < close_until && to_ms >= open_at {
                return true;
            }
        }
        week += WEEK_MS;
    }
    false
}

/// The result of `c` by the rule, from `ticks`.
pub fn derive(
    c: &Recorded,
    ticks: &mut dyn Ticks,
    closed: &[(u32, u32)],
) -> Result<Derived, String> {
    let void = |outcome, entry, exit| Derived {
        outcome,
        entry,
        exit,
        credited: c.stake + c.fee,
        profit: Decimal::ZERO,
    };
    let first = ticks.first_after_index(&c.symbol, c.accepted_index)?;
    let Some(entry) = first.filter(|t| t.time.saturating_sub(c.accepted_at) <= ENTRY_WAIT_MS)
    else {
        return Ok(void("void_no_entry", None, None));
    };
    let expiry = entry.time + c.duration * 1_000;
    if let (Some(sale), "sold") = (&c.sale, c.outcome.as_str()) {
        return sold(c, entry, expiry, sale, ticks, closed);
    }
    if closed_at_some_moment(closed, c.accepted_at, expiry) {
        return Ok(void("void_market_closed", Some(entry), None));
    }
    let Some(exit) = ticks.last_between(&c.symbol, expiry.saturating_sub(EXIT_AGE_MS), expiry)?
    else {
        return Ok(void("void_stale_feed", Some(entry), None));
    };
    let up = c.direction == "up";
    let (outcome, credited) = match exit.price.cmp(&entry.price) {
        std::cmp::Ordering::Equal => ("tie", c.stake),
        std::cmp::Ordering::Greater if up => ("win", c.stake * (Decimal::ONE + c.payout_rate)),
        std::cmp::Ordering::Less if !up => ("win", c.stake * (Decimal::ONE + c.payout_rate)),
        _ => ("loss", Decimal::ZERO),
    };
    let credited = credited.round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven);
    Ok(Derived {
        outcome,
        entry: Some(entry),
        exit: Some(exit),
        credited,
        profit: credited - c.stake - c.fee,
    })
}

/// Price changes a sale's window may hold, and must hold at least.
const SALE_WINDOW_MAX: usize = 240;
const SALE_WINDOW_MIN: usize = 30;
/// A sale's price must be at most this old.
const SALE_TICK_AGE_MS: u64 = 5_000;

/// A price as an integer at `scale` decimals.
fn at_scale(price: Decimal, scale: u32) -> i128 {
    let mut n = price.mantissa();
    for _ in price.scale()..scale {
        n *= 10;
    }
    n
}

/// `(to - from) / from` in billionths, toward zero, within ±10⁹.
fn billionths(from: Decimal, to: Decimal) -> i128 {
    let scale = from.scale().max(to.scale());
    let (from, to) = (at_scale(from, scale), at_scale(to, scale));
    ((to - from) * 1_000_000_000 / from).clamp(-1_000_000_000, 1_000_000_000)
}

/// Φ(z) for z in ten-thousandths, in millionths: the normal distribution at steps of 0.01,
/// rounded half to even, and linear between steps (rounded down).
fn normal(z: i128) -> i128 {
    if z < 0 {
        return 1_000_000 - normal(-z);
    }
    let step = |i: i128| {
        let x = i as f64 / 100.0;
        (0.5 * libm::erfc(-x / std::f64::consts::SQRT_2) * 1e6).round_ties_even() as i128
    };
    let z = z.min(40_000);
    let (i, part) = (z / 100, z % 100);
    if i == 400 {
        return step(400);
    }
    step(i) + (step(i + 1) - step(i)) * part / 100
}

/// A sale: the entry by the rule, then the offer of the early-close rule from the window's
/// ticks, the sale's tick and time and the recorded spread. A sale the rule gives no offer
/// for derives a credit of -1, which no record matches.
fn sold(
    c: &Recorded,
    entry: Tick,
    expiry: u64,
    sale: &RecordedSale,
    ticks: &mut dyn Ticks,
    closed: &[(u32, u32)],
) -> Result<Derived, String> {
    let window = ticks.by_index(&c.symbol, sale.window_from, sale.tick.index)?;
    let derived = |credited: Decimal| Derived {
        outcome: "sold",
        entry: Some(entry),
        exit: window.last().copied(),
        credited,
        profit: credited - c.stake - c.fee,
    };
    let returns = window.len().saturating_sub(1);
    let fresh = c.settled_at.saturating_sub(sale.tick.time) <= SALE_TICK_AGE_MS;
    let valid = window.last() == Some(&sale.tick)
        && window.first().map(|t| t.index) == Some(sale.window_from)
        && (SALE_WINDOW_MIN..=SALE_WINDOW_MAX).contains(&returns)
        && sale.tick.index >= entry.index
        && c.settled_at < expiry
        && fresh
        && !closed_at_some_moment(closed, c.accepted_at, c.settled_at);
    if !valid {
        return Ok(derived(Decimal::NEGATIVE_ONE));
    }
    let (mut sum_sq, mut sum_gap) = (0u128, 0u128);
    for pair in window.windows(2) {
        let r = billionths(pair[0].price, pair[1].price).unsigned_abs();
        sum_sq += r * r;
        sum_gap += u128::from(pair[1].time.saturating_sub(pair[0].time));
    }
    let left = u128::from(expiry - c.settled_at);
    let sd = (sum_sq * left).checked_div(sum_gap).map_or(0, |v| v.isqrt() as i128);
    let mut distance = billionths(entry.price, sale.tick.price);
    if c.direction != "up" {
        distance = -distance;
    }
    let probability = if sd == 0 {
        match distance.signum() {
            1 => 1_000_000,
            -1 => 0,
            _ => 500_000,
        }
    } else {
        normal((distance * 10_000 / sd).clamp(-40_000, 40_000))
    };
    let cents = |d: Decimal| (d * Decimal::ONE_HUNDRED).trunc();
    let win = (c.stake * (Decimal::ONE + c.payout_rate))
        .round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven);
    let fair = (cents(win) * Decimal::from(probability as i64) / Decimal::from(1_000_000)).floor();
    let offer = (fair * (Decimal::ONE - sale.spread)).floor().clamp(Decimal::ZERO, cents(win));
    if offer.is_zero() {
        return Ok(derived(Decimal::NEGATIVE_ONE));
    }
    Ok(derived(offer / Decimal::ONE_HUNDRED))
}

fn show(tick: Option<Tick>) -> String {
    tick.map_or_else(|| "none".into(), |t| format!("#{} {} @{}", t.index, t.price, t.time))
}

/// Every difference between what was recorded and what the rule gives.
pub fn compare(c: &Recorded, d: &Derived) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let mut differ = |field, recorded: String, derived: String| {
        if recorded != derived {
            out.push(Mismatch { contract: c.id, field, recorded, derived });
        }
    };
    differ("outcome", c.outcome.clone(), d.outcome.to_owned());
    if d.outcome != "void_no_entry" {
        differ("entry", show(c.entry), show(d.entry));
    }
    if d.exit.is_some() {
        differ("exit", show(c.exit), show(d.exit));
    }
    differ("credited", c.credited.normalize().to_string(), d.credited.normalize().to_string());
    differ("profit", c.profit.normalize().to_string(), d.profit.normalize().to_string());
    out
}

/// One difference between a tournament's published table and the one its contracts give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableMismatch {
    /// Tournament number.
    pub tournament: u32,
    /// What differs (`balance of #5`, `place 2`, `pool`, `prize of place 1`).
    pub what: String,
    /// As published.
    pub recorded: String,
    /// As the contracts and the rules give it.
    pub derived: String,
}

impl fmt::Display for TableMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tournament {}: {} published {} but the contracts give {}",
            self.tournament, self.what, self.recorded, self.derived
        )
    }
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Report {
    /// Contracts checked.
    pub checked: u64,
    /// Contracts per derived outcome.
    pub outcomes: HashMap<&'static str, u64>,
    /// Every difference.
    pub mismatches: Vec<Mismatch>,
    /// Finished tournaments whose table was re-derived.
    pub tables: u64,
    /// Every difference in a tournament's table.
    pub table_mismatches: Vec<TableMismatch>,
    /// Contracts that could not be checked (a damaged archive, a failed request).
    pub errors: Vec<String>,
}

impl Report {
    /// Checks one contract.
    pub fn check(&mut self, c: &Recorded, ticks: &mut dyn Ticks, closed: &[(u32, u32)]) {
        self.checked += 1;
        match derive(c, ticks, closed) {
            Ok(derived) => {
                *self.outcomes.entry(derived.outcome).or_default() += 1;
                self.mismatches.extend(compare(c, &derived));
            }
            Err(error) => self.errors.push(format!("contract {}: {error}", c.id)),
        }
    }

    /// True when every contract and table was checked and matched.
    pub fn clean(&self) -> bool {
        self.mismatches.is_empty() && self.table_mismatches.is_empty() && self.errors.is_empty()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut outcomes: Vec<_> = self.outcomes.iter().collect();
        outcomes.sort();
        writeln!(f, "checked {} settled contracts", self.checked)?;
        for (outcome, count) in outcomes {
            writeln!(f, "  {outcome}: {count}")?;
        }
        if self.tables > 0 {
            writeln!(f, "re-derived {} finished tournament tables", self.tables)?;
        }
        for mismatch in &self.mismatches {
            writeln!(f, "MISMATCH {mismatch}")?;
        }
        for mismatch in &self.table_mismatches {
            writeln!(f, "MISMATCH {mismatch}")?;
        }
        for error in &self.errors {
            writeln!(f, "ERROR {error}")?;
        }
        let mismatches = self.mismatches.len() + self.table_mismatches.len();
        write!(f, "{mismatches} mismatches, {} errors", self.errors.len())
    }
}

/// A tournament's rules as its page publishes them.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishedRules {
    pub start_balance: Decimal,
    pub entry_fee: Decimal,
    pub rebuy_fee: Decimal,
    /// Basis points of the fees that go to the pool.
    pub pool_share_bp: u32,
    pub pool_min: Decimal,
    /// Basis points of the pool per paid place.
    pub prizes_bp: Vec<u32>,
}

/// A finished tournament's published summary.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishedSummary {
    pub id: u32,
    pub status: String,
    pub players: u32,
    /// The pool paid.
    pub pool: Decimal,
    pub rules: PublishedRules,
}

/// A place of a published final table.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishedPlace {
    pub place: u32,
    pub uid: u32,
    /// Final tournament balance.
    pub balance: Decimal,
    /// Log index at which it was reached.
    pub reached_index: u64,
    /// Rebuys made.
    #[serde(default)]
    pub rebuys: u32,
    /// Prize paid.
    pub prize: Decimal,
}

/// A finished tournament as its page publishes it: the summary and the whole final table.
#[derive(Debug, Clone, Deserialize)]
pub struct PublishedTournament {
    pub tournament: PublishedSummary,
    pub standings: Vec<PublishedPlace>,
}

/// `amount × bp / 10 000`, rounded half-even to cents.
fn share(amount: Decimal, bp: u32) -> Decimal {
    (amount * Decimal::from(bp) / Decimal::from(10_000))
        .round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven)
}

/// Re-derives a finished tournament's table and prizes from its rules and each player's
/// contracts (`contracts` by UID), every contract's result from the ticks.
pub fn check_tournament(
    report: &mut Report,
    t: &PublishedTournament,
    contracts: &HashMap<u32, Vec<Recorded>>,
    ticks: &mut dyn Ticks,
    hours: &HashMap<String, Vec<(u32, u32)>>,
) {
    let (summary, rules) = (&t.tournament, &t.tournament.rules);
    let id = summary.id;
    let mut differ = |what: String, recorded: String, derived: String| {
        if recorded != derived {
            report.table_mismatches.push(TableMismatch { tournament: id, what, recorded, derived });
        }
    };
    differ("players".into(), summary.players.to_string(), t.standings.len().to_string());
    // Each player's final balance, from the contracts' results by the rule.
    let mut derived: Vec<(Decimal, u64, u32)> = Vec::new();
    let mut errors = Vec::new();
    for p in &t.standings {
        let mut balance = rules.start_balance * Decimal::from(1 + p.rebuys);
        for c in contracts.get(&p.uid).map_or(&[][..], Vec::as_slice) {
            let closed = hours.get(&c.symbol).map_or(&[][..], Vec::as_slice);
            match derive(c, ticks, closed) {
                Ok(d) => balance += d.profit,
                Err(error) => errors.push(format!("tournament {id}, contract {}: {error}", c.id)),
            }
        }
        let balance = balance.normalize();
        differ(
            format!("balance of #{}", p.uid),
            p.balance.normalize().to_string(),
            balance.to_string(),
        );
        derived.push((balance, p.reached_index, p.uid));
    }
    // The ranking those balances give.
    derived.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (at, (p, d)) in t.standings.iter().zip(&derived).enumerate() {
        differ(format!("place {}", at + 1), format!("#{}", p.uid), format!("#{}", d.2));
    }
    // The pool and the prizes from the fees.
    let rebuys: u32 = t.standings.iter().map(|p| p.rebuys).sum();
    let fees =
        rules.entry_fee * Decimal::from(summary.players) + rules.rebuy_fee * Decimal::from(rebuys);
    let pool = share(fees, rules.pool_share_bp).max(rules.pool_min);
    let paid: Decimal =
        rules.prizes_bp.iter().take(t.standings.len()).map(|&bp| share(pool, bp)).sum();
    differ("pool".into(), summary.pool.normalize().to_string(), paid.normalize().to_string());
    for (at, p) in t.standings.iter().enumerate() {
        let prize = rules.prizes_bp.get(at).map_or(Decimal::ZERO, |&bp| share(pool, bp));
        differ(
            format!("prize of place {}", at + 1),
            p.prize.normalize().to_string(),
            prize.normalize().to_string(),
        );
    }
    report.errors.extend(errors);
    report.tables += 1;
}

/// Every finished tournament a server publishes, its table re-derived.
fn verify_tournaments(
    base: &str,
    report: &mut Report,
    ticks: &mut dyn Ticks,
    hours: &mut HashMap<String, Vec<(u32, u32)>>,
) -> Result<(), String> {
    #[derive(Deserialize)]
    struct Listed {
        id: u32,
        status: String,
    }
    #[derive(Deserialize)]
    struct Page {
        items: Vec<Recorded>,
        total: usize,
    }
    let lobby: Vec<Listed> = get_json(base, "/api/tournaments")?;
    for listed in lobby.iter().filter(|t| t.status == "finished") {
        let t: PublishedTournament = get_json(base, &format!("/api/tournaments/{}", listed.id))?;
        let mut contracts = HashMap::new();
        for p in &t.standings {
            let mut rows: Vec<Recorded> = Vec::new();
            for page in 1.. {
                let path = format!(
                    "/api/tournaments/{}/players/{}/contracts?page={page}&pageSize=100",
                    listed.id, p.uid
                );
                let read: Page = get_json(base, &path)?;
                let done = read.items.is_empty() || rows.len() + read.items.len() >= read.total;
                rows.extend(read.items);
                if done {
                    break;
                }
            }
            for c in &rows {
                if !hours.contains_key(&c.symbol) {
                    let proof: ProofHours = get_json(base, &format!("/api/proofs/{}", c.id))?;
                    hours.insert(c.symbol.clone(), proof.closed_windows);
                }
            }
            contracts.insert(p.uid, rows);
        }
        check_tournament(report, &t, &contracts, ticks, hours);
    }
    Ok(())
}

/// Ticks read from the archive files of a data directory.
#[derive(Debug)]
pub struct ArchiveTicks<'a>(pub &'a market_feed::archive::TickArchive);

fn code(symbol: &str) -> Result<engine::types::Symbol, String> {
    engine::types::Symbol::new(symbol).ok_or_else(|| format!("bad symbol {symbol}"))
}

fn tick(t: &market_feed::archive::ArchivedTick) -> Tick {
    Tick { index: t.index, time: t.time_ms, price: t.price }
}

impl Ticks for ArchiveTicks<'_> {
    fn first_after_index(&mut self, symbol: &str, index: u64) -> Result<Option<Tick>, String> {
        let found =
            self.0.by_index(code(symbol)?, index + 1, u64::MAX, 1).map_err(|e| e.to_string())?;
        Ok(found.first().map(tick))
    }

    fn last_between(
        &mut self,
        symbol: &str,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Option<Tick>, String> {
        let found = self
            .0
            .by_time(code(symbol)?, from_ms, to_ms, market_feed::archive::READ_TICKS_MAX)
            .map_err(|e| e.to_string())?;
        Ok(found.last().map(tick))
    }

    fn by_index(&mut self, symbol: &str, from: u64, to: u64) -> Result<Vec<Tick>, String> {
        let limit = SALE_WINDOW_MAX + 2;
        let found = self.0.by_index(code(symbol)?, from, to, limit).map_err(|e| e.to_string())?;
        Ok(found.iter().map(tick).collect())
    }
}

/// Ticks read from a server's public API (`GET /api/ticks/{symbol}`).
#[derive(Debug)]
pub struct ApiTicks {
    /// e.g. `http://127.0.0.1:8080`.
    pub base: String,
}

#[derive(Deserialize)]
struct Envelope<T> {
    success: bool,
    data: Option<T>,
    message: Option<String>,
}

#[derive(Deserialize)]
struct TickPage {
    items: Vec<Tick>,
    more: bool,
}

/// `GET {base}{path}`, the envelope unwrapped.
pub fn get_json<T: serde::de::DeserializeOwned>(base: &str, path: &str) -> Result<T, String> {
    let url = format!("{}{path}", base.trim_end_matches('/'));
    let mut answer = ureq::get(&url).call().map_err(|e| format!("GET {url}: {e}"))?;
    let envelope: Envelope<T> =
        answer.body_mut().read_json().map_err(|e| format!("GET {url}: {e}"))?;
    match envelope {
        Envelope { success: true, data: Some(data), .. } => Ok(data),
        Envelope { message, .. } => Err(format!("GET {url}: {}", message.unwrap_or_default())),
    }
}

impl Ticks for ApiTicks {
    fn first_after_index(&mut self, symbol: &str, index: u64) -> Result<Option<Tick>, String> {
        let page: TickPage =
            get_json(&self.base, &format!("/api/ticks/{symbol}?from={}&limit=1", index + 1))?;
        Ok(page.items.first().copied())
    }

    fn last_between(
        &mut self,
        symbol: &str,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Option<Tick>, String> {
        let mut from = from_ms;
        let mut last = None;
        loop {
            let page: TickPage = get_json(
                &self.base,
                &format!("/api/ticks/{symbol}?by=time&from={from}&to={to_ms}&limit=1000"),
            )?;
            if let Some(t) = page.items.last() {
                last = Some(*t);
                from = t.time + 1;
            }
            if !page.more {
                return Ok(last);
            }
        }
    }

    fn by_index(&mut self, symbol: &str, from: u64, to: u64) -> Result<Vec<Tick>, String> {
        let limit = SALE_WINDOW_MAX + 2;
        let path = format!("/api/ticks/{symbol}?from={from}&to={to}&limit={limit}");
        Ok(get_json::<TickPage>(&self.base, &path)?.items)
    }
}

/// Checks every settled contract of a data directory (the server stopped).
pub fn verify_data_dir(dir: &std::path::Path) -> Result<Report, String> {
    let model =
        crate::readmodel::ReadModel::open(&dir.join("readmodel")).map_err(|e| e.to_string())?;
    let archive = market_feed::archive::TickArchive::open_read_only(&dir.join("ticks"))
        .map_err(|e| e.to_string())?;
    // Market hours as published in the catalogue (decisions §8).
    let hours: HashMap<String, Vec<(u32, u32)>> = market_feed::catalogue::catalogue()
        .iter()
        .map(|i| {
            let windows = match i.hours() {
                engine::types::MarketHours::WeeklyClosed(w) => w,
                _ => Vec::new(),
            };
            (i.symbol.to_string(), windows)
        })
        .collect();
    let mut report = Report::default();
    let mut ticks = ArchiveTicks(&archive);
    let mut after = 0;
    loop {
        let rows = model
            .contracts_after(after, 500, |r| r.outcome.is_some())
            .map_err(|e| e.to_string())?;
        let Some(last) = rows.last() else { break };
        after = last.id;
        for row in &rows {
            let recorded = Recorded {
                id: row.id,
                symbol: row.symbol.clone(),
                direction: crate::names::direction_name(row.direction).into(),
                stake: row.stake,
                fee: row.fee,
                payout_rate: row.payout_rate,
                duration: row.duration,
                accepted_at: row.accepted_at,
                accepted_index: row.accepted_index,
                entry: row.entry.map(|t| Tick { index: t.sequence, time: t.time, price: t.price }),
                exit: row.exit.map(|t| Tick { index: t.sequence, time: t.time, price: t.price }),
                outcome: row.outcome.map(crate::names::outcome_name).unwrap_or_default().into(),
                credited: row.credited.unwrap_or_default(),
                profit: row.profit.unwrap_or_default(),
                settled_at: row.settled_at.unwrap_or_default(),
                sale: row.sale.as_ref().map(|s| RecordedSale {
                    tick: Tick { index: s.tick.sequence, time: s.tick.time, price: s.tick.price },
                    window_from: s.window_from,
                    spread: s.spread,
                    returns: s.returns,
                    probability: s.probability,
                    offer: s.offer,
                }),
            };
            let closed = hours.get(&row.symbol).map_or(&[][..], Vec::as_slice);
            report.check(&recorded, &mut ticks, closed);
        }
    }
    Ok(report)
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProofHours {
    closed_windows: Vec<(u32, u32)>,
}

/// Checks every settled contract, and every finished tournament's table, of a running server
/// through its public API.
pub fn verify_api(base: &str) -> Result<Report, String> {
    let mut report = Report::default();
    let mut ticks = ApiTicks { base: base.to_owned() };
    let mut hours: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
    let mut after = 0;
    loop {
        let page: Vec<Recorded> =
            get_json(base, &format!("/api/proofs?afterId={after}&limit=500"))?;
        let Some(last) = page.last() else { break };
        after = last.id;
        for recorded in &page {
            if !hours.contains_key(&recorded.symbol) {
                let proof: ProofHours = get_json(base, &format!("/api/proofs/{}", recorded.id))?;
                hours.insert(recorded.symbol.clone(), proof.closed_windows);
            }
            report.check(recorded, &mut ticks, &hours[&recorded.symbol]);
        }
    }
    verify_tournaments(base, &mut report, &mut ticks, &mut hours)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    /// Ticks from a list, as an archive would answer.
    struct List(Vec<Tick>);

    impl Ticks for List {
        fn first_after_index(&mut self, _: &str, index: u64) -> Result<Option<Tick>, String> {
            Ok(self.0.iter().find(|t| t.index > index).copied())
        }
        fn last_between(&mut self, _: &str, from: u64, to: u64) -> Result<Option<Tick>, String> {
            Ok(self.0.iter().rfind(|t| t.time >= from && t.time <= to).copied())
        }
        fn by_index(&mut self, _: &str, from: u64, to: u64) -> Result<Vec<Tick>, String> {
            Ok(self.0.iter().filter(|t| (from..=to).contains(&t.index)).copied().collect())
        }
    }

    fn t(index: u64, time: u64, price: Decimal) -> Tick {
        Tick { index, time, price }
    }

    fn contract(direction: &str) -> Recorded {
        Recorded {
            id: 1,
            symbol: "BTCUSDT".into(),
            direction: direction.into(),
            stake: dec!(10),
            fee: dec!(0.1),
            payout_rate: dec!(0.855),
            duration: 60,
            accepted_at: 1_000,
            accepted_index: 10,
            entry: None,
            exit: None,
            outcome: String::new(),
            credited: Decimal::ZERO,
            profit: Decimal::ZERO,
            settled_at: 0,
            sale: None,
        }
    }

    #[test]
    fn wins_losses_ties_and_voids_follow_the_rule() {
        let mut ticks = List(vec![
            t(11, 1_200, dec!(100)),
            t(20, 30_000, dec!(101)),
            t(30, 61_150, dec!(102)),
            t(31, 61_300, dec!(99)),
        ]);
        let up = derive(&contract("up"), &mut ticks, &[]).unwrap();
        assert_eq!((up.outcome, up.exit.map(|t| t.index)), ("win", Some(30)));
        assert_eq!(up.credited, dec!(18.55)); // 18.550 rounded half-even
        assert_eq!(up.profit, dec!(8.45));
        let down = derive(&contract("down"), &mut ticks, &[]).unwrap();
        assert_eq!((down.outcome, down.credited, down.profit), ("loss", dec!(0), dec!(-10.1)));

        let mut tie = List(vec![t(11, 1_200, dec!(100)), t(30, 61_150, dec!(100))]);
        assert_eq!(derive(&contract("up"), &mut tie, &[]).unwrap().credited, dec!(10));

        let mut late = List(vec![t(11, 6_001, dec!(100))]);
        let void = derive(&contract("up"), &mut late, &[]).unwrap();
        assert_eq!(
            (void.outcome, void.credited, void.profit),
            ("void_no_entry", dec!(10.1), dec!(0))
        );

        let mut quiet = List(vec![t(11, 1_200, dec!(100)), t(20, 56_100, dec!(101))]);
        assert_eq!(derive(&contract("up"), &mut quiet, &[]).unwrap().outcome, "void_stale_feed");
    }

    #[test]
    fn a_closed_market_at_any_moment_voids() {
        // Forex: closed from Friday 22:00 to Sunday 22:00 UTC.
        let forex = [(4 * 1_440 + 22 * 60, 6 * 1_440 + 22 * 60)];
        let friday_2159 = 1_795_816_740_000; // 2026-11-27 21:59 UTC, a Friday
        assert!(!closed_at_some_moment(&forex, friday_2159 - 3_600_000, friday_2159));
        assert!(closed_at_some_moment(&forex, friday_2159, friday_2159 + 60_000));
        assert!(closed_at_some_moment(
            &forex,
            friday_2159 - WEEK_MS,
            friday_2159 + 120_000 - WEEK_MS
        ));
        let sunday_2200 = friday_2159 + 2 * 86_400_000 + 60_000;
        assert!(!closed_at_some_moment(&forex, sunday_2200, sunday_2200 + 3_600_000));
        // A window that wraps the week's end (Sunday 23:00 to Monday 01:00).
        let wrap = [(6 * 1_440 + 23 * 60, 60)];
        assert!(closed_at_some_moment(
            &wrap,
            sunday_2200 + 3_600_000 + 1,
            sunday_2200 + 3_600_000 + 2
        ));
    }

    #[test]
    fn a_recorded_result_that_the_ticks_do_not_give_is_reported() {
        let mut ticks = List(vec![t(11, 1_200, dec!(100)), t(30, 61_150, dec!(102))]);
        let mut recorded = contract("up");
        recorded.entry = Some(t(11, 1_200, dec!(100)));
        recorded.exit = Some(t(30, 61_150, dec!(102)));
        recorded.outcome = "win".into();
        recorded.credited = dec!(18.55);
        recorded.profit = dec!(8.45);
        let mut report = Report::default();
        report.check(&recorded, &mut ticks, &[]);
        assert!(report.clean(), "{report}");
        ticks.0[1].price = dec!(99.5);
        report.check(&recorded, &mut ticks, &[]);
        let fields: Vec<_> = report.mismatches.iter().map(|m| m.field).collect();
        assert_eq!(fields, vec!["outcome", "exit", "credited", "profit"]);
    }

    /// A sale priced by the engine over a random walk, and the record the platform keeps.
    fn engine_sale(seed: u64, up: bool) -> (Recorded, List) {
        use engine::money::{Money, Rate};
        use engine::types::{AccountKind, Contract, ContractId, Direction, TickRef, UserId};
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as i64
        };
        let mut price = 9_600_000i64; // 96 000.00
        let mut ticks = Vec::new();
        for n in 0..60u64 {
            price += next() % 2_001 - 1_000;
            ticks.push(t(
                100 + n,
                1_000_000 + n * 250 + (next() % 200) as u64,
                Decimal::new(price, 2),
            ));
        }
        let entry = ticks[20];
        let sale_tick = ticks[59];
        let tick_ref = |t: &Tick| TickRef { price: t.price, time_ms: t.time, index: t.index };
        let mut window = engine::sale::Volatility::default();
        for pair in ticks[21..].windows(2) {
            window.record(&tick_ref(&pair[0]), &tick_ref(&pair[1]));
        }
        let stake = Money::from_cents(1_000 + next().rem_euclid(50_000));
        let contract = Contract {
            id: ContractId(7),
            user: UserId(1),
            account: AccountKind::Demo,
            product: 0,
            direction: if up { Direction::Up } else { Direction::Down },
            stake,
            fee: Money::ZERO,
            payout_rate: Rate::from_decimal(dec!(0.855)).unwrap(),
            reserved: Money::ZERO,
            duration_ms: 60_000,
            accepted_ms: entry.time - 100,
            accepted_index: entry.index - 1,
            entry: Some(tick_ref(&entry)),
            expiry_ms: entry.time + 60_000,
        };
        let settled_at = sale_tick.time + 40;
        let spread = Rate::from_decimal(dec!(0.05)).unwrap();
        let quote = engine::sale::price(
            &contract,
            entry.price,
            tick_ref(&sale_tick),
            contract.expiry_ms - settled_at,
            &window,
            spread,
        );
        let mut recorded = contract_of(up);
        recorded.stake = stake.to_decimal();
        recorded.fee = Decimal::ZERO;
        recorded.accepted_at = contract.accepted_ms;
        recorded.accepted_index = contract.accepted_index;
        recorded.entry = Some(entry);
        recorded.exit = Some(sale_tick);
        recorded.outcome = "sold".into();
        recorded.credited = quote.offer.to_decimal();
        recorded.profit = quote.offer.to_decimal() - recorded.stake;
        recorded.settled_at = settled_at;
        recorded.sale = Some(RecordedSale {
            tick: sale_tick,
            window_from: quote.window_from,
            spread: dec!(0.05),
            returns: quote.returns,
            probability: quote.probability,
            offer: quote.offer.to_decimal(),
        });
        (recorded, List(ticks))
    }

    fn contract_of(up: bool) -> Recorded {
        contract(if up { "up" } else { "down" })
    }

    #[test]
    fn the_verifier_derives_every_sale_the_engine_priced_and_catches_an_altered_tick() {
        let mut checked = 0;
        for seed in 0..200 {
            let (recorded, mut ticks) = engine_sale(seed, seed % 2 == 0);
            if recorded.credited.is_zero() {
                continue; // no offer: the engine would have refused the sale
            }
            let mut report = Report::default();
            report.check(&recorded, &mut ticks, &[]);
            assert!(report.clean(), "seed {seed}: {report}");
            checked += 1;
        }
        assert!(checked > 100, "most random walks leave an offer: {checked}");
        let (recorded, mut ticks) = engine_sale(7, true);
        // One price of the window moved a little: the volatility, so the offer, differ.
        ticks.0[40].price += dec!(300.00);
        let mut report = Report::default();
        report.check(&recorded, &mut ticks, &[]);
        let fields: Vec<_> = report.mismatches.iter().map(|m| m.field).collect();
        assert_eq!(fields, vec!["credited", "profit"], "{report}");
        // A recorded spread smaller than the one applied: the offer differs too.
        let (mut recorded, mut ticks) = engine_sale(7, true);
        if let Some(sale) = &mut recorded.sale {
            sale.spread = dec!(0.04);
        }
        let mut report = Report::default();
        report.check(&recorded, &mut ticks, &[]);
        assert!(!report.clean());
    }

    /// A finished tournament of two players, each with one contract, the table as published.
    fn tournament(ann_balance: Decimal, bob_balance: Decimal) -> PublishedTournament {
        let rules = PublishedRules {
            start_balance: dec!(1000),
            entry_fee: dec!(10),
            rebuy_fee: dec!(5),
            pool_share_bp: 8_000,
            pool_min: dec!(15),
            prizes_bp: vec![7_000, 3_000],
        };
        let place = |place, uid, balance, rebuys, prize| PublishedPlace {
            place,
            uid,
            balance,
            reached_index: 40,
            rebuys,
            prize,
        };
        PublishedTournament {
            // Fees 2 x 10 + 1 x 5 = 25; 80 % is 20, above the minimum of 15: 14 and 6.
            tournament: PublishedSummary {
                id: 3,
                status: "finished".into(),
                players: 2,
                pool: dec!(20),
                rules,
            },
            standings: vec![
                place(1, 1, ann_balance, 0, dec!(14)),
                place(2, 2, bob_balance, 1, dec!(6)),
            ],
        }
    }

    #[test]
    fn a_tournament_table_is_re_derived_and_a_changed_tick_is_caught() {
        let mut ann = contract("up");
        (ann.stake, ann.fee, ann.payout_rate) = (dec!(500), dec!(0), dec!(0.85));
        let mut bob = contract("up");
        (bob.id, bob.stake, bob.fee, bob.payout_rate) = (2, dec!(900), dec!(0), dec!(0.85));
        let contracts = HashMap::from([(1, vec![ann]), (2, vec![bob])]);
        let hours = HashMap::new();
        let ticks = || List(vec![t(11, 1_200, dec!(100)), t(30, 61_150, dec!(102))]);
        // Ann won 425 on 500; Bob's rebuy brought 2 000, and he won 765 on 900.
        let table = tournament(dec!(1425), dec!(2765));
        let mut report = Report::default();
        check_tournament(&mut report, &table, &contracts, &mut ticks(), &hours);
        let places: Vec<_> = report.table_mismatches.iter().map(|m| m.what.as_str()).collect();
        assert_eq!(places, ["place 1", "place 2"], "{report}");

        // The table as the contracts give it: Bob first.
        let mut fair = tournament(dec!(2765), dec!(1425));
        fair.standings[0].uid = 2;
        fair.standings[0].rebuys = 1;
        fair.standings[1].uid = 1;
        fair.standings[1].rebuys = 0;
        let mut report = Report::default();
        check_tournament(&mut report, &fair, &contracts, &mut ticks(), &hours);
        assert!(report.clean(), "{report}");
        assert_eq!(report.tables, 1);

        // One exit tick changed: both contracts now tie, and the table no longer follows.
        let mut forged = List(vec![t(11, 1_200, dec!(100)), t(30, 61_150, dec!(100))]);
        let mut report = Report::default();
        check_tournament(&mut report, &fair, &contracts, &mut forged, &hours);
        let found: Vec<_> =
            report.table_mismatches.iter().map(|m| (m.what.as_str(), m.derived.as_str())).collect();
        assert_eq!(found, [("balance of #2", "2000"), ("balance of #1", "1000")], "{report}");

        // A prize that is not the pool's share is caught.
        let mut greedy = fair.clone();
        greedy.standings[0].prize = dec!(15);
        let mut report = Report::default();
        check_tournament(&mut report, &greedy, &contracts, &mut ticks(), &hours);
        let found: Vec<_> = report.table_mismatches.iter().map(|m| m.to_string()).collect();
        assert_eq!(
            found,
            ["tournament 3: prize of place 1 published 15 but the contracts give 14"]
        );
    }
}
