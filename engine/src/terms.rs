//! The rules and settings the hot path reads, in integer form. Admins write rules and
//! settings as decimals (they are commands and appear in rule texts); an order or a settlement
//! should not convert them each time, so the engine keeps this copy, rebuilt whenever they
//! change and on restore. It is derived state: never snapshotted.

use crate::money::{Money, Rate};
use crate::types::{Rule, Settings};

/// A trading rule's figures as integers.
#[derive(Debug, Clone)]
pub(crate) struct RuleTerms {
    /// Contract duration this rule applies to.
    pub(crate) duration_secs: u32,
    /// Offered now.
    pub(crate) enabled: bool,
    /// Net gain on a win, as a share of the stake.
    pub(crate) payout_rate: Rate,
    /// Fee per order, as a share of the stake.
    pub(crate) fee_rate: Rate,
    /// Smallest stake.
    pub(crate) stake_min: Money,
    /// Largest stake.
    pub(crate) stake_max: Money,
}

/// Every rule and the referral rates, as integers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Terms {
    /// The rules, in the engine's order.
    pub(crate) rules: Vec<RuleTerms>,
    /// Referral reward rates, generation 1 first.
    pub(crate) reward_rates: Vec<Rate>,
    /// Their sum: every generation's share, reserved with each real contract.
    pub(crate) reward_total: Rate,
}

impl Terms {
    /// The integer form of `rules` and `settings`, which were validated when they were set
    /// (rates of at most 6 decimals in [0, 1], amounts in cents), so every conversion is
    /// exact. A value that would not convert turns its rule off rather than trade on a guess.
    pub(crate) fn of(rules: &[Rule], settings: &Settings) -> Terms {
        let rules = rules
            .iter()
            .map(|r| {
                let (payout, fee) =
                    (Rate::from_decimal(r.payout_rate), Rate::from_decimal(r.fee_rate));
                let (min, max) =
                    (Money::from_decimal(r.stake_min), Money::from_decimal(r.stake_max));
                RuleTerms {
                    duration_secs: r.duration_secs,
                    enabled: r.enabled
                        && payout.is_some()
                        && fee.is_some()
                        && min.is_some()
                        && max.is_some(),
                    payout_rate: payout.unwrap_or_default(),
                    fee_rate: fee.unwrap_or_default(),
                    stake_min: min.unwrap_or_default(),
                    stake_max: max.unwrap_or_default(),
                }
            })
            .collect();
        let reward_rates: Vec<Rate> = settings
            .reward_rates
            .iter()
            .map(|&r| Rate::from_decimal(r).unwrap_or_default())
            .collect();
        let reward_total = reward_rates.iter().copied().sum();
        Terms { rules, reward_rates, reward_total }
    }
}
