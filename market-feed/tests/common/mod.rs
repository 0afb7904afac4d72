//! Helpers the replay tests share.

use market_feed::catalogue::{catalogue, Instrument};
use market_feed::source::replay::ReplayOptions;

/// The catalogue's instruments of these codes, in this order.
pub fn instruments(codes: &[&str]) -> Vec<Instrument> {
    let all = catalogue();
    codes
        .iter()
        .map(|c| all.iter().find(|i| i.symbol.as_str() == *c).expect("in catalogue").clone())
        .collect()
}

/// `#` options as a feed gives them; a bad one fails the test.
pub fn options(text: &str) -> ReplayOptions {
    ReplayOptions::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}
