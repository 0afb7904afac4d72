//! Money and prices: `rust_decimal::Decimal`, never floats, rounded half-even to cents.

use rust_decimal::{Decimal, RoundingStrategy};

use crate::constants::{AMOUNT_MAX_USDT, MONEY_SCALE, PRICE_SCALE_MAX};

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

/// Rounds to whole cents, half to even (banker's rounding), as decisions §2 prescribes.
pub fn round_cents(value: Decimal) -> Decimal {
    value.round_dp_with_strategy(MONEY_SCALE, RoundingStrategy::MidpointNearestEven)
}

/// True for a positive amount with at most two decimals and within the global bound.
pub fn is_valid_amount(value: Decimal) -> bool {
    value > Decimal::ZERO
        && value.normalize().scale() <= MONEY_SCALE
        && value <= Decimal::from(AMOUNT_MAX_USDT)
}

/// True for a positive price with a sane number of decimals.
pub fn is_valid_price(value: Decimal) -> bool {
    value > Decimal::ZERO
        && value.normalize().scale() <= PRICE_SCALE_MAX
        && value <= Decimal::from(AMOUNT_MAX_USDT)
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
    fn amounts_have_cents_at_most() {
        assert!(is_valid_amount(dec!(1.10)));
        assert!(is_valid_amount(dec!(1.100)));
        assert!(!is_valid_amount(dec!(1.001)));
        assert!(!is_valid_amount(dec!(0)));
        assert!(!is_valid_amount(dec!(-5)));
    }
}
