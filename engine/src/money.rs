//! Money and prices, never floats. Balances, stakes, fees and payouts are [`Money`]: whole
//! cents in an `i64`, and the rates that multiply them are [`Rate`]s: millionths in an `i64`.
//! The hot path (orders, settlement, wallets, the house's books) computes with these integers;
//! `rust_decimal::Decimal` stays at the edges: commands as parsed from the API, rules and
//! settings as admins write them, prices, and the API's and snapshot's encodings.
//!
//! Scale: USDT is kept to the cent (decisions §2), and every rate has at most 6 decimals, so a
//! stake times a rate is exact at 8 decimals before it is rounded, half to even, to the cent,
//! as `Decimal` did. Range: one command moves at most [`AMOUNT_MAX_USDT`] (10^14 cents), and
//! the money that exists is bounded by what entered it (deposits, the house's seed, demo
//! grants: [`MONEY_SUPPLY_MAX_USDT`], checked where money enters), far inside `i64`'s 9.2 x
//! 10^18 cents; a product of cents and millionths is taken in `i128` whenever it could leave
//! `i64`.

use std::fmt;
use std::ops::{Add, AddAssign, Neg, Sub, SubAssign};

use rust_decimal::{Decimal, RoundingStrategy};

use crate::constants::{AMOUNT_MAX_USDT, MONEY_SCALE, MONEY_SUPPLY_MAX_USDT, PRICE_SCALE_MAX};

/// The archived layout of a [`Decimal`]: its 16-byte canonical encoding.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Debug)]
#[rkyv(remote = Decimal)]
pub struct RkyvDecimal {
    /// `Decimal::serialize()`: flags, then the 96-bit mantissa, little-endian.
    #[rkyv(getter = Decimal::serialize)]
    bytes: [u8; 16],
}

impl From<RkyvDecimal> for Decimal {
    fn from(RkyvDecimal { bytes }: RkyvDecimal) -> Self {
        Self::deserialize(bytes)
    }
}

/// An amount of USDT in whole cents. Signed: a change of a balance may be negative, and the
/// demo house may go below zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(i64);

impl Money {
    pub const ZERO: Money = Money(0);

    /// An amount of `cents` cents.
    pub const fn from_cents(cents: i64) -> Money {
        Money(cents)
    }

    /// Whole USDT.
    pub const fn from_usdt(usdt: i64) -> Money {
        Money(usdt * 100)
    }

    /// The amount in cents.
    pub const fn cents(self) -> i64 {
        self.0
    }

    /// The exact amount of a decimal with at most two decimals within the supply bound;
    /// none for anything else (the caller refuses it).
    pub fn from_decimal(value: Decimal) -> Option<Money> {
        match cents_of(value)? {
            (cents, false) if cents.abs() <= i128::from(MONEY_SUPPLY_MAX_USDT) * 100 => {
                i64::try_from(cents).ok().map(Money)
            }
            _ => None,
        }
    }

    /// The amount as a decimal with two decimals, for the API, display and encodings.
    pub fn to_decimal(self) -> Decimal {
        Decimal::new(self.0, MONEY_SCALE)
    }

    /// True for zero.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// The amount without its sign.
    pub const fn abs(self) -> Money {
        Money(self.0.abs())
    }

    /// True below zero.
    pub const fn is_negative(self) -> bool {
        self.0 < 0
    }

    /// True above zero.
    pub const fn is_positive(self) -> bool {
        self.0 > 0
    }

    /// The sum, or none past `i64`.
    pub fn checked_add(self, other: Money) -> Option<Money> {
        self.0.checked_add(other.0).map(Money)
    }

    /// This amount times `rate`, rounded half to even to the cent (decisions §2).
    #[inline]
    pub fn times(self, rate: Rate) -> Money {
        Money(times_rate(self.0, rate, |q, r, one| 2 * r > one || (2 * r == one && q % 2 != 0)))
    }

    /// This amount times `rate`, rounded up to the cent: for reserves, which must cover the
    /// exact amount.
    #[inline]
    pub fn times_ceil(self, rate: Rate) -> Money {
        Money(times_rate(self.0, rate, |_, r, _| r != 0))
    }
}

/// Cents and whether a fraction of a cent was dropped (rounding toward minus infinity), from
/// the decimal's mantissa and scale without `Decimal` arithmetic: every order converts its
/// stake, and a restore millions of archived amounts. None past `i128`.
#[inline]
fn cents_of(value: Decimal) -> Option<(i128, bool)> {
    let (mantissa, scale) = (value.mantissa(), value.scale());
    if scale <= MONEY_SCALE {
        return Some((mantissa.checked_mul(10i128.pow(MONEY_SCALE - scale))?, false));
    }
    let unit = 10i128.checked_pow(scale - MONEY_SCALE)?;
    Some((mantissa.div_euclid(unit), mantissa.rem_euclid(unit) != 0))
}

/// `cents * rate`, in cents, raised by one when `up(quotient, remainder, one)` says so; in
/// `i64` when the product fits (every realistic stake), else in `i128`.
#[inline]
fn times_rate(cents: i64, rate: Rate, up: impl Fn(i128, i64, i64) -> bool) -> i64 {
    const ONE: i64 = Rate::ONE.0;
    let (q, r) = match cents.checked_mul(rate.0) {
        Some(product) => (i128::from(product.div_euclid(ONE)), product.rem_euclid(ONE)),
        None => {
            let product = i128::from(cents) * i128::from(rate.0);
            let r = product.rem_euclid(i128::from(ONE));
            (product.div_euclid(i128::from(ONE)), i64::try_from(r).expect("below one"))
        }
    };
    narrow(q + i128::from(up(q, r, ONE)))
}

/// A result of a bounded amount times a rate of at most 1 (or a sum of a few): it fits.
fn narrow(value: i128) -> i64 {
    i64::try_from(value).expect("amounts are bounded by the money supply")
}

impl Add for Money {
    type Output = Money;
    #[inline]
    fn add(self, other: Money) -> Money {
        Money(self.0 + other.0)
    }
}

impl Sub for Money {
    type Output = Money;
    #[inline]
    fn sub(self, other: Money) -> Money {
        Money(self.0 - other.0)
    }
}

impl Neg for Money {
    type Output = Money;
    #[inline]
    fn neg(self) -> Money {
        Money(-self.0)
    }
}

impl AddAssign for Money {
    #[inline]
    fn add_assign(&mut self, other: Money) {
        self.0 += other.0;
    }
}

impl SubAssign for Money {
    #[inline]
    fn sub_assign(&mut self, other: Money) {
        self.0 -= other.0;
    }
}

impl std::iter::Sum for Money {
    fn sum<I: Iterator<Item = Money>>(iter: I) -> Money {
        iter.fold(Money::ZERO, Add::add)
    }
}

impl From<Money> for Decimal {
    fn from(value: Money) -> Decimal {
        value.to_decimal()
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_decimal(), f)
    }
}

/// A rate (payout, fee, referral reward) in millionths: 0.85 is 850 000.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(i64);

impl Rate {
    pub const ZERO: Rate = Rate(0);
    /// One: the whole amount.
    pub const ONE: Rate = Rate(1_000_000);

    /// The rate of a decimal with at most 6 decimals in [0, 1] (what [`is_valid_rate`]
    /// accepts; checked when rules and settings are set); none otherwise.
    pub fn from_decimal(value: Decimal) -> Option<Rate> {
        if !is_valid_rate(value) {
            return None;
        }
        i64::try_from(value * Decimal::from(Rate::ONE.0)).ok().map(Rate)
    }

    /// The rate as a decimal.
    pub fn to_decimal(self) -> Decimal {
        Decimal::new(self.0, 6).normalize()
    }

    /// True for zero.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// The rate in millionths.
    pub const fn millionths(self) -> i64 {
        self.0
    }

    /// The rate of this many millionths (above one as well: a copy's share of a stake).
    pub(crate) const fn from_millionths(millionths: i64) -> Rate {
        Rate(millionths)
    }
}

impl Add for Rate {
    type Output = Rate;
    fn add(self, other: Rate) -> Rate {
        Rate(self.0 + other.0)
    }
}

impl std::iter::Sum for Rate {
    fn sum<I: Iterator<Item = Rate>>(iter: I) -> Rate {
        iter.fold(Rate::ZERO, Add::add)
    }
}

impl From<Rate> for Decimal {
    fn from(value: Rate) -> Decimal {
        value.to_decimal()
    }
}

/// The archived layout of [`Money`]: the 16-byte canonical encoding of the same amount as a
/// [`Decimal`], the layout snapshots had before money became integer, so that every snapshot
/// written before still loads.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Debug)]
#[rkyv(remote = Money)]
pub struct RkyvMoney {
    /// `Decimal::serialize()` of the amount.
    #[rkyv(getter = money_bytes)]
    bytes: [u8; 16],
}

fn money_bytes(value: &Money) -> [u8; 16] {
    value.to_decimal().serialize()
}

impl From<RkyvMoney> for Money {
    /// Exact for every amount the engine wrote; a reserve written at more decimals, before
    /// reserves were kept to the cent, is rounded up, and restore recomputes the house's total.
    fn from(RkyvMoney { bytes }: RkyvMoney) -> Self {
        // What this engine writes, read without `Decimal`: a restore reads millions.
        if let Some((mantissa, scale)) = small_decimal(&bytes) {
            if scale == MONEY_SCALE {
                return Money(mantissa);
            }
        }
        archived_money(Decimal::deserialize(bytes))
    }
}

/// An archived amount as [`Money`]: cents, a fraction of a cent rounded up.
fn archived_money(value: Decimal) -> Money {
    let cents = cents_of(value).map(|(c, cut)| c + i128::from(cut));
    Money(cents.and_then(|c| i64::try_from(c).ok()).unwrap_or(i64::MAX))
}

/// The archived layout of [`Rate`]: as [`RkyvMoney`], a `Decimal`'s encoding.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Debug)]
#[rkyv(remote = Rate)]
pub struct RkyvRate {
    /// `Decimal::serialize()` of the rate.
    #[rkyv(getter = rate_bytes)]
    bytes: [u8; 16],
}

fn rate_bytes(value: &Rate) -> [u8; 16] {
    value.to_decimal().serialize()
}

impl From<RkyvRate> for Rate {
    fn from(RkyvRate { bytes }: RkyvRate) -> Self {
        // What this engine writes, read without `Decimal`: a restore reads one per contract.
        if let Some((mantissa, scale)) = small_decimal(&bytes) {
            let millionths = 10i64
                .checked_pow(6u32.wrapping_sub(scale))
                .and_then(|unit| mantissa.checked_mul(unit));
            if let Some(millionths @ 0..=1_000_000) = millionths {
                return Rate(millionths);
            }
        }
        archived_rate(Decimal::deserialize(bytes))
    }
}

/// An archived rate as a [`Rate`]; zero for one out of range.
fn archived_rate(value: Decimal) -> Rate {
    Rate::from_decimal(value).unwrap_or_default()
}

/// The signed mantissa and the scale of a `Decimal::serialize()` encoding whose mantissa fits
/// 63 bits; none for a larger one. (Bytes 0-3 are the flags, scale in bits 16-23 and the sign
/// in bit 31, as `Decimal::deserialize` masks them; then the mantissa's three 32-bit words,
/// low first.)
fn small_decimal(bytes: &[u8; 16]) -> Option<(i64, u32)> {
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let (flags, lo, mid, hi) = (word(0), word(4), word(8), word(12));
    let scale = (flags >> 16) & 0x1F;
    if hi != 0 || mid >> 31 != 0 || scale > 28 {
        return None;
    }
    let magnitude = (i64::from(mid) << 32) | i64::from(lo);
    Some((if flags >> 31 == 1 { -magnitude } else { magnitude }, scale))
}

/// Rounds to whole cents, half to even (banker's rounding), as decisions §2 prescribes.
pub fn round_cents(value: Decimal) -> Decimal {
    value.round_dp_with_strategy(MONEY_SCALE, RoundingStrategy::MidpointNearestEven)
}

/// True for a positive amount with at most two decimals and within the global bound.
pub fn is_valid_amount(value: Decimal) -> bool {
    value > Decimal::ZERO
        && has_scale_at_most(value, MONEY_SCALE)
        && value <= Decimal::from(AMOUNT_MAX_USDT)
}

/// True for a positive price with a sane number of decimals.
pub fn is_valid_price(value: Decimal) -> bool {
    value > Decimal::ZERO
        && has_scale_at_most(value, PRICE_SCALE_MAX)
        && value <= Decimal::from(AMOUNT_MAX_USDT)
}

/// True when `value` needs at most `scale` decimals (trailing zeros do not count); normalises
/// only when the written scale is larger, which every tick would otherwise pay for.
fn has_scale_at_most(value: Decimal, scale: u32) -> bool {
    value.scale() <= scale || value.normalize().scale() <= scale
}

/// True for a rate in [0, 1] (payout, fee and reward rates).
pub fn is_valid_rate(value: Decimal) -> bool {
    value >= Decimal::ZERO && value <= Decimal::ONE && value.scale() <= 6
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn rounds_half_to_even() {
        assert_eq!(round_cents(dec!(1.005)), dec!(1.00));
        assert_eq!(round_cents(dec!(1.015)), dec!(1.02));
        assert_eq!(round_cents(dec!(18.5)), dec!(18.5));
        assert_eq!(round_cents(dec!(2.675)), dec!(2.68));
    }

    #[test]
    fn integer_money_rounds_as_decimal_does() {
        let usdt = |s: &str| Money::from_decimal(s.parse().unwrap()).unwrap();
        let rate = |s: &str| Rate::from_decimal(s.parse().unwrap()).unwrap();
        // 10 x 1.85 = 18.50; 1.00 x 0.005 = 0.005 -> 0.00 (even); 3.00 x 0.005 = 0.015 -> 0.02.
        assert_eq!(usdt("10").times(Rate::ONE + rate("0.85")), usdt("18.50"));
        assert_eq!(usdt("1").times(rate("0.005")), Money::ZERO);
        assert_eq!(usdt("3").times(rate("0.005")), usdt("0.02"));
        assert_eq!(usdt("0.01").times(Rate::ONE + rate("0.5")), usdt("0.02"), "1.5 cents: even");
        assert_eq!(usdt("0.03").times(Rate::ONE + rate("0.5")), usdt("0.04"), "4.5 cents: even");
        assert_eq!(usdt("1").times_ceil(rate("0.000001")), usdt("0.01"), "a reserve rounds up");
        assert_eq!(usdt("1").times_ceil(Rate::ZERO), Money::ZERO);
        // Past i64 in the product, the same rounding in i128.
        let big = Money::from_usdt(AMOUNT_MAX_USDT);
        assert_eq!(big.times(rate("0.123457")), usdt("123457000000"));
        for (text, cents) in [("1.10", 110), ("1.100", 110), ("-2.5", -250), ("0", 0), ("7", 700)] {
            assert_eq!(Money::from_decimal(text.parse().unwrap()), Some(Money::from_cents(cents)));
        }
        assert_eq!(Money::from_decimal("1.001".parse().unwrap()), None, "no fraction of a cent");
        assert_eq!(Rate::from_decimal("1.5".parse().unwrap()), None, "a rate is at most 1");
        assert_eq!(usdt("18.5").to_string(), "18.50");
    }

    #[test]
    fn a_reserve_kept_at_more_decimals_reads_back_rounded_up_to_the_cent() {
        let bytes = dec!(12.34000001).serialize();
        assert_eq!(Money::from(RkyvMoney { bytes }), Money::from_cents(1_235));
        let bytes = dec!(-3.5).serialize();
        assert_eq!(Money::from(RkyvMoney { bytes }), Money::from_cents(-350));
    }

    proptest::proptest! {
        /// Reading an archived amount or rate straight from its bytes gives what reading it
        /// through `Decimal` gives, for any encoding: any mantissa, scale and sign.
        #[test]
        fn archived_money_and_rates_read_without_decimal_as_with_it(
            lo: u32,
            mid: u32,
            hi in proptest::prop_oneof![proptest::strategy::Just(0u32), proptest::prelude::any::<u32>()],
            scale in 0u32..=28,
            negative: bool,
            small in 0i64..=2_000_000,
        ) {
            for value in [
                Decimal::from_parts(lo, mid, hi, negative, scale),
                Decimal::from_parts(lo, mid, 0, negative, scale),
                Decimal::from_parts(lo, 0, 0, negative, scale),
                Decimal::new(small, scale.min(8)),
            ] {
                let bytes = value.serialize();
                proptest::prop_assert_eq!(Money::from(RkyvMoney { bytes }), archived_money(value));
                proptest::prop_assert_eq!(Rate::from(RkyvRate { bytes }), archived_rate(value));
            }
        }
    }

    #[test]
    fn amounts_have_cents_at_most() {
        assert!(is_valid_amount(dec!(1.10)));
        assert!(is_valid_amount(dec!(1.100)));
        assert!(!is_valid_amount(dec!(1.001)));
        assert!(!is_valid_amount(dec!(0)));
        assert!(!is_valid_amount(dec!(-5)));
    }
}
