//! Early close: selling an open contract back before expiry at a price anyone can re-derive
//! (decisions §11). Every figure is an integer, so every member, every build and the verifier
//! get the same offer from the same log.
//!
//! The rule, in words (the rules page and the API give the same):
//! 1. **Volatility.** Each product keeps its last [`WINDOW_RETURNS`] price changes: for each
//!    tick, the return since the tick before it in billionths, `(p − q) × 10⁹ / q` rounded
//!    toward zero and held within ±10⁹, and the milliseconds between the two ticks. The
//!    variance per millisecond is the sum of the squared returns over the sum of the gaps.
//! 2. **Spread of outcomes.** With `t` the milliseconds left to expiry, the standard deviation
//!    of the return until expiry is `sd = ⌊√(Σr² × t / Σgaps)⌋` billionths.
//! 3. **Distance.** `x = (S − K) × 10⁹ / K` rounded toward zero, where `S` is the current
//!    tick's price and `K` the entry price, negated for a down contract: how far the contract
//!    is in the money.
//! 4. **Probability of a win.** `z = x × 10 000 / sd` (ten-thousandths, toward zero, held in
//!    ±4), and `P = Φ(z)` in millionths from the published table of the standard normal
//!    distribution at steps of 0.01 ([`PHI`]), linearly between two steps (rounded down), and
//!    `1 − Φ(−z)` below zero. With `sd = 0`: 1 above the entry, 0 below, ½ at it.
//! 5. **Offer.** The win's payout `W = stake × (1 + payout rate)` (rounded to the cent as a
//!    win is), `fair = ⌊W × P / 10⁶⌋` cents, and `offer = ⌊fair × (1 − spread)⌋` cents, never
//!    below zero nor above `W`. The spread is the duration's plus the product's, both set by
//!    the back-office and audited.
//!
//! No offer: before the entry tick, in the last `cutoff` seconds before expiry, when the
//! latest tick is older than 5 s or the market closed since acceptance, with fewer than
//! [`WINDOW_RETURNS_MIN`] returns in the window, for a product or rule without early close,
//! for a frozen or self-excluded account, or when the offer is zero.

use rust_decimal::Decimal;

use crate::constants::{
    DURATION_MAX_SECS, DURATION_MIN_SECS, EXIT_TICK_AGE_MAX_MS, PRODUCTS_MAX, RULES_MAX,
};
use crate::engine::Book;
use crate::event::{CommandResult, Event, Events, Reply};
use crate::money::{is_valid_rate, Money, Rate, RkyvDecimal};
use crate::types::{archived, Contract, ContractId, Direction, Outcome, Symbol, TickRef, UserId};
use crate::{Engine, EngineError};

/// Price changes a product's volatility is estimated from: about a minute of a feed that
/// ticks four times a second.
pub const WINDOW_RETURNS: usize = 240;
/// Fewer returns than this in the window (a new product, a quiet feed): no offer.
pub const WINDOW_RETURNS_MIN: u16 = 30;
/// Returns and distances are in billionths.
const PPB: i128 = 1_000_000_000;
/// `z` is in ten-thousandths and held within ±4.
const Z_SCALE: i128 = 10_000;
const Z_MAX: i128 = 40_000;
/// Probabilities are in millionths.
const PROBABILITY_ONE: u32 = 1_000_000;

/// Φ(z), the standard normal distribution, at z = 0.00, 0.01, … 4.00, in millionths:
/// `round(Φ(i / 100) × 10⁶)`, half to even. Published with the rule; the verifier computes its
/// own and a test checks that the two agree.
pub const PHI: [u32; 401] = [
    500000, 503989, 507978, 511966, 515953, 519939, 523922, 527903, 531881, 535856, 539828, 543795,
    547758, 551717, 555670, 559618, 563559, 567495, 571424, 575345, 579260, 583166, 587064, 590954,
    594835, 598706, 602568, 606420, 610261, 614092, 617911, 621720, 625516, 629300, 633072, 636831,
    640576, 644309, 648027, 651732, 655422, 659097, 662757, 666402, 670031, 673645, 677242, 680822,
    684386, 687933, 691462, 694974, 698468, 701944, 705401, 708840, 712260, 715661, 719043, 722405,
    725747, 729069, 732371, 735653, 738914, 742154, 745373, 748571, 751748, 754903, 758036, 761148,
    764238, 767305, 770350, 773373, 776373, 779350, 782305, 785236, 788145, 791030, 793892, 796731,
    799546, 802337, 805105, 807850, 810570, 813267, 815940, 818589, 821214, 823814, 826391, 828944,
    831472, 833977, 836457, 838913, 841345, 843752, 846136, 848495, 850830, 853141, 855428, 857690,
    859929, 862143, 864334, 866500, 868643, 870762, 872857, 874928, 876976, 879000, 881000, 882977,
    884930, 886861, 888768, 890651, 892512, 894350, 896165, 897958, 899727, 901475, 903200, 904902,
    906582, 908241, 909877, 911492, 913085, 914657, 916207, 917736, 919243, 920730, 922196, 923641,
    925066, 926471, 927855, 929219, 930563, 931888, 933193, 934478, 935745, 936992, 938220, 939429,
    940620, 941792, 942947, 944083, 945201, 946301, 947384, 948449, 949497, 950529, 951543, 952540,
    953521, 954486, 955435, 956367, 957284, 958185, 959070, 959941, 960796, 961636, 962462, 963273,
    964070, 964852, 965620, 966375, 967116, 967843, 968557, 969258, 969946, 970621, 971283, 971933,
    972571, 973197, 973810, 974412, 975002, 975581, 976148, 976705, 977250, 977784, 978308, 978822,
    979325, 979818, 980301, 980774, 981237, 981691, 982136, 982571, 982997, 983414, 983823, 984222,
    984614, 984997, 985371, 985738, 986097, 986447, 986791, 987126, 987455, 987776, 988089, 988396,
    988696, 988989, 989276, 989556, 989830, 990097, 990358, 990613, 990863, 991106, 991344, 991576,
    991802, 992024, 992240, 992451, 992656, 992857, 993053, 993244, 993431, 993613, 993790, 993963,
    994132, 994297, 994457, 994614, 994766, 994915, 995060, 995201, 995339, 995473, 995604, 995731,
    995855, 995975, 996093, 996207, 996319, 996427, 996533, 996636, 996736, 996833, 996928, 997020,
    997110, 997197, 997282, 997365, 997445, 997523, 997599, 997673, 997744, 997814, 997882, 997948,
    998012, 998074, 998134, 998193, 998250, 998305, 998359, 998411, 998462, 998511, 998559, 998605,
    998650, 998694, 998736, 998777, 998817, 998856, 998893, 998930, 998965, 998999, 999032, 999065,
    999096, 999126, 999155, 999184, 999211, 999238, 999264, 999289, 999313, 999336, 999359, 999381,
    999402, 999423, 999443, 999462, 999481, 999499, 999517, 999534, 999550, 999566, 999581, 999596,
    999610, 999624, 999638, 999651, 999663, 999675, 999687, 999698, 999709, 999720, 999730, 999740,
    999749, 999758, 999767, 999776, 999784, 999792, 999800, 999807, 999815, 999822, 999828, 999835,
    999841, 999847, 999853, 999858, 999864, 999869, 999874, 999879, 999883, 999888, 999892, 999896,
    999900, 999904, 999908, 999912, 999915, 999918, 999922, 999925, 999928, 999931, 999933, 999936,
    999938, 999941, 999943, 999946, 999948, 999950, 999952, 999954, 999956, 999958, 999959, 999961,
    999963, 999964, 999966, 999967, 999968,
];

archived! {
/// Early close as the back-office sets it (audited): whether it is offered, the cut-off before
/// expiry, and the spread taken from the fair value.
pub struct SaleTerms {
    /// Offered at all.
    pub enabled: bool,
    /// No offer in the last this many seconds before expiry.
    pub cutoff_secs: u32,
    /// The spread of a duration without one of its own, as a fraction (0.05 = 5 %).
    #[rkyv(with = RkyvDecimal)]
    pub spread: Decimal,
    /// Durations with a spread of their own, by duration.
    pub durations: Vec<DurationSpread>,
    /// Products with a spread added to the duration's, or without early close.
    pub products: Vec<ProductSale>,
}
}

archived! {
/// One duration's spread.
pub struct DurationSpread {
    /// Contract length in seconds.
    pub duration_secs: u32,
    /// Its spread, as a fraction.
    #[rkyv(with = RkyvDecimal)]
    pub spread: Decimal,
}
}

archived! {
/// One product's early close.
pub struct ProductSale {
    /// Product code.
    pub symbol: Symbol,
    /// Its contracts may be sold back.
    pub enabled: bool,
    /// Added to the duration's spread, as a fraction.
    #[rkyv(with = RkyvDecimal)]
    pub spread: Decimal,
}
}

impl Default for SaleTerms {
    fn default() -> Self {
        SaleTerms {
            enabled: true,
            cutoff_secs: 5,
            spread: Decimal::new(5, 2),
            durations: Vec::new(),
            products: Vec::new(),
        }
    }
}

impl SaleTerms {
    /// The spread of a contract of this product and duration; none without early close.
    pub fn spread_of(&self, symbol: Symbol, duration_secs: u32) -> Option<Rate> {
        if !self.enabled {
            return None;
        }
        let product = self.products.iter().find(|p| p.symbol == symbol);
        if product.is_some_and(|p| !p.enabled) {
            return None;
        }
        let duration = self.durations.iter().find(|d| d.duration_secs == duration_secs);
        let spread = duration.map_or(self.spread, |d| d.spread)
            + product.map_or(Decimal::ZERO, |p| p.spread);
        Rate::from_decimal(spread.min(Decimal::ONE))
    }

    fn validate(&self) -> Result<(), EngineError> {
        if self.cutoff_secs > DURATION_MAX_SECS {
            return Err(EngineError::Invalid("cutoff"));
        }
        let spreads = std::iter::once(self.spread)
            .chain(self.durations.iter().map(|d| d.spread))
            .chain(self.products.iter().map(|p| p.spread));
        if spreads.into_iter().any(|s| !is_valid_rate(s)) {
            return Err(EngineError::Invalid("spread"));
        }
        let mut durations: Vec<u32> = self.durations.iter().map(|d| d.duration_secs).collect();
        durations.sort_unstable();
        durations.dedup();
        let mut symbols: Vec<&str> = self.products.iter().map(|p| p.symbol.as_str()).collect();
        symbols.sort_unstable();
        symbols.dedup();
        let unknown = |d: &u32| !(DURATION_MIN_SECS..=DURATION_MAX_SECS).contains(d);
        if durations.len() != self.durations.len()
            || durations.len() > RULES_MAX
            || durations.iter().any(unknown)
        {
            return Err(EngineError::Invalid("durations"));
        }
        if symbols.len() != self.products.len() || symbols.len() > PRODUCTS_MAX {
            return Err(EngineError::Invalid("products"));
        }
        Ok(())
    }
}

archived! {
/// One price change of a product.
#[derive(Copy, Default)]
pub struct Step {
    /// Log index of the tick it starts from.
    pub from_index: u64,
    /// `(p − q) × 10⁹ / q`, toward zero, within ±10⁹.
    pub r: i64,
    /// Milliseconds between the two ticks.
    pub gap_ms: u64,
}
}

archived! {
/// A product's last [`WINDOW_RETURNS`] price changes and their sums, kept as each tick comes.
#[derive(Default)]
pub struct Volatility {
    /// The changes, a ring once full: the oldest at `next`.
    steps: Vec<Step>,
    /// Where the next change goes once the ring is full.
    next: u32,
    /// Σ r².
    sum_sq: u128,
    /// Σ gaps (ms).
    sum_gap_ms: u64,
}
}

impl Volatility {
    /// Counts the change from `prev` to `tick`.
    pub fn record(&mut self, prev: &TickRef, tick: &TickRef) {
        let step = Step {
            from_index: prev.index,
            r: return_ppb(prev.price, tick.price),
            gap_ms: tick.time_ms.saturating_sub(prev.time_ms),
        };
        if self.steps.len() < WINDOW_RETURNS {
            self.steps.push(step);
        } else {
            let at = self.next as usize;
            let old = std::mem::replace(&mut self.steps[at], step);
            self.sum_sq -= square(old.r);
            self.sum_gap_ms -= old.gap_ms;
            self.next = ((at + 1) % WINDOW_RETURNS) as u32;
        }
        self.sum_sq += square(step.r);
        self.sum_gap_ms += step.gap_ms;
    }

    /// Brings the slot the next change overwrites into cache: each is revisited only after
    /// the window's other changes, long enough for the engine's other memory to push it out.
    #[inline]
    pub fn prefetch(&self) {
        if let Some(step) = self.steps.get(self.next as usize) {
            wal::prefetch::read(step);
        }
    }

    /// Returns in the window.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// True before the second tick.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Log index of the window's first tick.
    pub fn from_index(&self) -> Option<u64> {
        let oldest = if self.steps.len() < WINDOW_RETURNS { 0 } else { self.next as usize };
        self.steps.get(oldest).map(|s| s.from_index)
    }
}

fn square(r: i64) -> u128 {
    let r = u128::from(r.unsigned_abs());
    r * r
}

/// `(p − q) × 10⁹ / q` toward zero, within ±10⁹, exactly (both prices as integers of their
/// common scale).
pub fn return_ppb(q: Decimal, p: Decimal) -> i64 {
    // Ticks of one product come at one scale: in 64 bits there is no 128-bit division, the
    // largest cost of a tick's bookkeeping. Same truncation toward zero as below.
    if q.scale() == p.scale() {
        let narrow = |d: Decimal| i64::try_from(d.mantissa()).ok();
        if let (Some(q), Some(p)) = (narrow(q), narrow(p)) {
            const PPB64: i64 = PPB as i64;
            if q <= 0 {
                return 0;
            }
            if let Some(scaled) = p.checked_sub(q).and_then(|d| d.checked_mul(PPB64)) {
                return (scaled / q).clamp(-PPB64, PPB64);
            }
        }
    }
    return_ppb_wide(q, p)
}

/// [`return_ppb`] in 128 bits, for any two prices.
fn return_ppb_wide(q: Decimal, p: Decimal) -> i64 {
    let scale = q.scale().max(p.scale());
    let at = |d: Decimal| d.mantissa() * 10_i128.pow(scale - d.scale());
    let (q, p) = (at(q), at(p));
    if q <= 0 {
        return 0;
    }
    ((p - q) * PPB / q).clamp(-PPB, PPB) as i64
}

/// Why a contract has no offer now (stable codes for the API).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoOffer {
    /// Not entered yet.
    NotEntered,
    /// Early close is off for this product or duration.
    Unavailable,
    /// In the last seconds before expiry (or past it).
    NearExpiry,
    /// The latest tick is older than 5 s.
    StaleMarket,
    /// The market is closed now or closed since acceptance.
    MarketClosed,
    /// Too few ticks to estimate volatility.
    FewTicks,
    /// The account is frozen.
    AccountFrozen,
    /// The account is excluded from trading.
    AccountLimited,
    /// The offer would be zero.
    NoValue,
}

impl NoOffer {
    /// The stable code.
    pub fn code(self) -> &'static str {
        match self {
            NoOffer::NotEntered => "not_entered",
            NoOffer::Unavailable => "unavailable",
            NoOffer::NearExpiry => "near_expiry",
            NoOffer::StaleMarket => "stale_market",
            NoOffer::MarketClosed => "market_closed",
            NoOffer::FewTicks => "few_ticks",
            NoOffer::AccountFrozen => "account_frozen",
            NoOffer::AccountLimited => "account_limited",
            NoOffer::NoValue => "no_value",
        }
    }
}

/// An offer and every figure it came from: what the settlement proof shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    /// The current tick the offer is priced at.
    pub tick: TickRef,
    /// Log index of the volatility window's first tick (the window ends at `tick`).
    pub window_from: u64,
    /// Returns in the window.
    pub returns: u16,
    /// Σ r² over the window (billionths squared).
    pub sum_sq: u128,
    /// Σ gaps over the window (ms).
    pub sum_gap_ms: u64,
    /// Expiry − the sale's time (ms).
    pub time_left_ms: u64,
    /// ⌊√(Σr² × time left / Σgaps)⌋, billionths.
    pub sd: u64,
    /// How far in the money, billionths of the entry price (negative when out of it).
    pub distance: i64,
    /// distance / sd, ten-thousandths, within ±4.
    pub z: i32,
    /// Φ(z), millionths.
    pub probability: u32,
    /// What a win would pay.
    pub win_credit: Money,
    /// ⌊win credit × probability⌋.
    pub fair: Money,
    /// The spread taken.
    pub spread: Rate,
    /// ⌊fair × (1 − spread)⌋: what the sale pays.
    pub offer: Money,
}

/// Φ(z) for z in ten-thousandths, in millionths (see [`PHI`]).
pub fn phi(z: i32) -> u32 {
    if z < 0 {
        return PROBABILITY_ONE - phi(-z);
    }
    let z = (z as usize).min(Z_MAX as usize);
    let (at, part) = (z / 100, z % 100);
    match PHI.get(at + 1) {
        Some(&next) => PHI[at] + (next - PHI[at]) * part as u32 / 100,
        None => PHI[at],
    }
}

/// The offer for an entered contract at `tick` with `time_left_ms` to go, by the rule above.
pub fn price(
    contract: &Contract,
    entry: Decimal,
    tick: TickRef,
    time_left_ms: u64,
    window: &Volatility,
    spread: Rate,
) -> Quote {
    let sd = if window.sum_gap_ms == 0 {
        0
    } else {
        let variance = window.sum_sq * u128::from(time_left_ms) / u128::from(window.sum_gap_ms);
        variance.isqrt() as u64
    };
    let distance = match contract.direction {
        Direction::Up => return_ppb(entry, tick.price),
        Direction::Down => -return_ppb(entry, tick.price),
    };
    let (z, probability) = if sd == 0 {
        let p = match distance.signum() {
            1 => PROBABILITY_ONE,
            -1 => 0,
            _ => PROBABILITY_ONE / 2,
        };
        (0, p)
    } else {
        let z = (i128::from(distance) * Z_SCALE / i128::from(sd)).clamp(-Z_MAX, Z_MAX) as i32;
        (z, phi(z))
    };
    let win_credit = contract.stake.times(Rate::ONE + contract.payout_rate);
    let fair = Money::from_cents(
        (i128::from(win_credit.cents()) * i128::from(probability) / i128::from(PROBABILITY_ONE))
            as i64,
    );
    let keep = i128::from(Rate::ONE.millionths() - spread.millionths());
    let offer = (i128::from(fair.cents()) * keep / i128::from(Rate::ONE.millionths())) as i64;
    let offer = Money::from_cents(offer.clamp(0, win_credit.cents()));
    Quote {
        tick,
        window_from: window.from_index().unwrap_or(tick.index),
        returns: window.len() as u16,
        sum_sq: window.sum_sq,
        sum_gap_ms: window.sum_gap_ms,
        time_left_ms,
        sd,
        distance,
        z,
        probability,
        win_credit,
        fair,
        spread,
        offer,
    }
}

impl Engine {
    /// The offer for an open contract now, or why there is none.
    pub(crate) fn quote(&self, contract: &Contract) -> Result<Quote, NoOffer> {
        let entry = contract.entry.ok_or(NoOffer::NotEntered)?;
        let book: &Book = &self.books[usize::from(contract.product)];
        let product = &self.products[usize::from(contract.product)];
        let spread = self
            .sale_terms
            .spread_of(product.symbol, (contract.duration_ms / 1_000) as u32)
            .ok_or(NoOffer::Unavailable)?;
        let cutoff_ms = u64::from(self.sale_terms.cutoff_secs) * 1_000;
        let time_left_ms = contract.expiry_ms.saturating_sub(self.now_ms);
        if time_left_ms == 0 || time_left_ms < cutoff_ms {
            return Err(NoOffer::NearExpiry);
        }
        if !product.hours.is_open(self.now_ms)
            || product.hours.closed_between(contract.accepted_ms, self.now_ms)
        {
            return Err(NoOffer::MarketClosed);
        }
        let tick = book.last.ok_or(NoOffer::StaleMarket)?;
        if self.now_ms.saturating_sub(tick.time_ms) > EXIT_TICK_AGE_MAX_MS {
            return Err(NoOffer::StaleMarket);
        }
        if book.volatility.len() < usize::from(WINDOW_RETURNS_MIN) {
            return Err(NoOffer::FewTicks);
        }
        let account = self.account_of(contract.user).map_err(|_| NoOffer::AccountFrozen)?;
        if account.frozen {
            return Err(NoOffer::AccountFrozen);
        }
        let excluded = self
            .trading_limits(contract.user, self.now_ms)
            .is_some_and(|l| self.now_ms < l.current.excluded_until_ms);
        if excluded {
            return Err(NoOffer::AccountLimited);
        }
        let quote = price(contract, entry.price, tick, time_left_ms, &book.volatility, spread);
        if quote.offer.is_zero() {
            return Err(NoOffer::NoValue);
        }
        Ok(quote)
    }

    /// Where an entered contract waits for expiry: its book's queue is in expiry order, so
    /// the contract is found by its expiry time without an index by id.
    fn find_entered(
        &self,
        user: UserId,
        contract: ContractId,
        symbol: Symbol,
        expiry_ms: u64,
    ) -> Result<crate::slab::SlotRef, EngineError> {
        let book = *self.idx.symbol.get(&symbol).ok_or(EngineError::ContractNotFound)?;
        let book = &self.books[usize::from(book)];
        for queue in &book.expiring {
            let from = queue.contracts.partition_point(|d| d.expiry_ms < expiry_ms);
            let found = (queue.contracts.range(from..))
                .take_while(|d| d.expiry_ms == expiry_ms)
                .find(|d| d.at.1 == contract && d.user == user);
            if let Some(due) = found {
                if self.contracts.get(due.at).is_some() {
                    return Ok(due.at);
                }
            }
        }
        Err(EngineError::ContractNotFound)
    }

    /// The offers for these open contracts of `symbol` (owner, contract, expiry) now, for
    /// those still open: the websocket's live offers.
    pub fn offers(
        &self,
        symbol: Symbol,
        contracts: &[(UserId, ContractId, u64)],
    ) -> Vec<(UserId, ContractId, Result<Quote, NoOffer>)> {
        contracts
            .iter()
            .filter_map(|&(user, id, expiry_ms)| {
                let at = self.find_entered(user, id, symbol, expiry_ms).ok()?;
                Some((user, id, self.quote(self.contracts.get(at)?)))
            })
            .collect()
    }

    /// Sells an open contract back at the current offer, if that is at least `seen`.
    pub(crate) fn sell_contract(
        &mut self,
        s: crate::command::SellContract,
        events: &mut Events,
    ) -> CommandResult {
        let seen = Money::from_decimal(s.seen)
            .filter(|m| !m.is_negative())
            .ok_or(EngineError::Invalid("offer"))?;
        let at = self.find_entered(s.user, s.contract, s.symbol, s.expiry_ms)?;
        let contract = self.contracts.get(at).ok_or(EngineError::ContractNotFound)?;
        let quote = self.quote(contract).map_err(EngineError::SaleUnavailable)?;
        if quote.offer < seen {
            return Err(EngineError::OfferChanged { offer: quote.offer.to_decimal() });
        }
        let credited = quote.offer;
        self.close(at, Some(quote.tick), Outcome::Sold, Some(Box::new(quote)), events);
        Ok(Reply::Sold { contract: s.contract, credited })
    }

    /// Replaces the early-close terms.
    pub(crate) fn set_sale_terms(
        &mut self,
        terms: SaleTerms,
        events: &mut Events,
    ) -> CommandResult {
        terms.validate()?;
        self.sale_terms = terms;
        events.push(Event::CatalogueChanged);
        Ok(Reply::Done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phi_is_the_table_between_steps_and_symmetric() {
        assert_eq!(phi(0), 500_000);
        assert_eq!(phi(10_000), PHI[100]);
        assert_eq!(phi(50), (PHI[0] + PHI[1]) / 2);
        assert_eq!(phi(-10_000), 1_000_000 - PHI[100]);
        assert_eq!(phi(40_000), PHI[400]);
        assert_eq!(phi(90_000), PHI[400]);
        let mut last = 0;
        for z in (-40_000..=40_000).step_by(7) {
            let p = phi(z);
            assert!(p >= last, "Φ never falls: Φ({z}) = {p} after {last}");
            last = p;
        }
    }

    #[test]
    fn returns_are_exact_in_billionths_toward_zero() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        assert_eq!(return_ppb(d("100"), d("101")), 10_000_000);
        assert_eq!(return_ppb(d("1.10000"), d("1.1")), 0);
        assert_eq!(return_ppb(d("3"), d("2")), -333_333_333);
        assert_eq!(return_ppb(d("1"), d("5")), 1_000_000_000, "held at +100 %");
    }

    proptest::proptest! {
        /// Returns of two prices at one scale, in 64 bits, are the 128-bit ones.
        #[test]
        fn returns_in_64_bits_are_the_wide_ones(
            q in -2_000_000_000_000i64..=9_000_000_000_000_000,
            step in -1_000_000_000i64..=1_000_000_000,
            scale in 0u32..=12,
        ) {
            let p = q.saturating_add(step);
            let (q, p) = (Decimal::new(q, scale), Decimal::new(p, scale));
            proptest::prop_assert_eq!(return_ppb(q, p), return_ppb_wide(q, p));
            proptest::prop_assert_eq!(return_ppb(p, q), return_ppb_wide(p, q));
        }
    }

    #[test]
    fn the_window_keeps_the_last_returns_and_their_sums() {
        let mut w = Volatility::default();
        let tick = |n: u64, price: i64| TickRef {
            price: Decimal::new(price, 0),
            time_ms: n * 250,
            index: n,
        };
        for n in 1..=(WINDOW_RETURNS as u64 + 10) {
            let price = if n % 2 == 0 { 101 } else { 100 };
            let prev = if n % 2 == 0 { 100 } else { 101 };
            w.record(&tick(n - 1, prev), &tick(n, price));
        }
        assert_eq!(w.len(), WINDOW_RETURNS);
        assert_eq!(w.from_index(), Some(10));
        assert_eq!(w.sum_gap_ms, 250 * WINDOW_RETURNS as u64);
        let sum: u128 = w.steps.iter().map(|s| square(s.r)).sum();
        assert_eq!(w.sum_sq, sum);
    }
}
