//! market-feed's replay parser on arbitrary files: `ReplayFile::parse` (what
//! `ReplayFile::load` runs on a `--feed replay:...` file), both formats (ticks and candles),
//! against the full catalogue or only its first instrument (so rows get skipped too).
//!
//! Input: `[mode u8][csv bytes...]`; mode bit 0 picks the one-instrument catalogue.
//!
//! Beyond "no panic", an accepted file must keep what the module promises: at least one tick,
//! ticks in time order, only served symbols, positive prices at the instrument's precision,
//! non-negative quantities, and (candles) four ticks per candle whose quantities add up to
//! its volume.
#![no_main]

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use engine::types::Symbol;
use libfuzzer_sys::fuzz_target;
use market_feed::catalogue::{catalogue, Instrument};
use market_feed::source::replay::{ReplayFile, ReplayFormat};
use rust_decimal::Decimal;

fn instruments() -> &'static [Instrument] {
    static ALL: OnceLock<Vec<Instrument>> = OnceLock::new();
    ALL.get_or_init(catalogue)
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, csv)) = data.split_first() else { return };
    let served = if mode & 1 == 1 { &instruments()[..1] } else { instruments() };
    let Ok(file) = ReplayFile::parse(csv, Path::new("fuzz.csv"), served) else { return };
    let precision: HashMap<Symbol, u8> = served.iter().map(|i| (i.symbol, i.precision)).collect();
    let ticks = file.ticks();
    assert!(!ticks.is_empty(), "an accepted file has ticks");
    assert!(ticks.windows(2).all(|w| w[0].source_ms <= w[1].source_ms), "ticks out of order");
    for tick in ticks {
        let places = *precision.get(&tick.symbol).expect("only served symbols");
        assert!(tick.price > Decimal::ZERO, "price {} not positive", tick.price);
        assert!(tick.price.scale() <= u32::from(places), "price {} too precise", tick.price);
        assert!(!tick.quantity.is_sign_negative() || tick.quantity.is_zero());
    }
    if file.format() == ReplayFormat::Candles {
        assert_eq!(ticks.len() % 4, 0, "four ticks per candle");
    }
});
