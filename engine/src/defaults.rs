//! The embedded defaults of decisions.md §2-§5: rules and settings of a fresh engine.

use rust_decimal::Decimal;

use crate::types::{Rule, Settings};

/// Durations of the trade panel and their payout rates (decisions §2): 1m 85 %, 5m 85 %,
/// 30m 82 %, 1h 80 %, 1d 78 %, 1w 75 %; stake 1 to 5,000 USDT; no fee.
pub fn rules() -> Vec<Rule> {
    let table: [(u32, i64); 6] =
        [(60, 85), (300, 85), (1_800, 82), (3_600, 80), (86_400, 78), (604_800, 75)];
    table
        .iter()
        .map(|&(duration_secs, percent)| Rule {
            duration_secs,
            payout_rate: Decimal::new(percent, 2),
            stake_min: Decimal::ONE,
            stake_max: Decimal::from(5_000),
            fee_rate: Decimal::ZERO,
            enabled: true,
        })
        .collect()
}

/// Site settings of a fresh install.
pub fn settings() -> Settings {
    Settings {
        site_name: "Trading Pro".into(),
        logo: String::new(),
        site_description: "Rise/fall contracts on crypto and forex, settled in USDT.".into(),
        email_login: true,
        wallet_login: true,
        customer_service_enabled: false,
        customer_service_link: String::new(),
        invite_code_required: false,
        withdraw_fee_rate: Decimal::new(1, 2),
        withdraw_fee_fixed: Decimal::ONE,
        withdraw_min: Decimal::from(10),
        withdraw_max: Decimal::from(50_000),
        deposit_min: Decimal::from(10),
        deposit_max: Decimal::from(1_000_000),
        open_contracts_per_user_max: 200,
        reward_rates: vec![Decimal::new(5, 3), Decimal::new(3, 3), Decimal::new(2, 3)],
        demo_balance: Decimal::from(10_000),
        customer_service_hours: "09:00-21:00".into(),
        provider_link: String::new(),
    }
}
