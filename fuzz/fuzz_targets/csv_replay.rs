//! market-feed's replay reader on arbitrary files: `ReplayFile::parse_with` (what
//! `ReplayFile::load_with` runs on a `--feed replay:...` file), every format it detects or is
//! told (ours, OHLCV by header, Binance, HistData, MetaTrader; plain or gzip), against the full
//! catalogue or only its first instrument (so rows get skipped too, and symbol-less files are
//! read).
//!
//! Input: `[mode u8][file bytes...]`; mode bit 0 picks the one-instrument catalogue, bits 1-3
//! force a format (0 = detect, 1-6 = `ReplayFormat::ALL`), bit 4 reads year-last dates day
//! first, bit 5 says times are in ms.
//!
//! Beyond "no panic", an accepted file must keep what the module promises: at least one tick,
//! ticks in time order, only served symbols, positive prices at the instrument's precision,
//! non-negative quantities, four ticks per candle whose quantities add up to its volume.
#![no_main]

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use engine::types::Symbol;
use libfuzzer_sys::fuzz_target;
use market_feed::catalogue::{catalogue, Instrument};
use market_feed::source::replay::{ReplayFile, ReplayFormat, ReplayOptions};
use market_feed::types::RawTick;
use rust_decimal::Decimal;

fn instruments() -> &'static [Instrument] {
    static ALL: OnceLock<Vec<Instrument>> = OnceLock::new();
    ALL.get_or_init(catalogue)
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, bytes)) = data.split_first() else { return };
    let served = if mode & 1 == 1 { &instruments()[..1] } else { instruments() };
    let mut options = String::new();
    if let Some(format) = ReplayFormat::ALL.get(usize::from((mode >> 1) & 7).wrapping_sub(1)) {
        options.push_str(&format!("format={},", format.name()));
    }
    if mode & 16 != 0 {
        options.push_str("dates=dmy,");
    }
    if mode & 32 != 0 {
        options.push_str("time=ms,");
    }
    let options = ReplayOptions::parse(&options).expect("valid options");
    let Ok(file) = ReplayFile::parse_with(bytes, Path::new("fuzz.csv"), served, &options) else {
        return;
    };
    let precision: HashMap<Symbol, u8> = served.iter().map(|i| (i.symbol, i.precision)).collect();
    let ticks: Vec<RawTick> = file.ticks().collect();
    assert_eq!(ticks.len(), file.tick_count());
    assert!(!ticks.is_empty(), "an accepted file has ticks");
    assert!(ticks.windows(2).all(|w| w[0].source_ms <= w[1].source_ms), "ticks out of order");
    for tick in &ticks {
        let places = *precision.get(&tick.symbol).expect("only served symbols");
        assert!(tick.price > Decimal::ZERO, "price {} not positive", tick.price);
        assert!(tick.price.scale() <= u32::from(places), "price {} too precise", tick.price);
        assert!(!tick.quantity.is_sign_negative() || tick.quantity.is_zero());
    }
    if file.format() != ReplayFormat::Ticks {
        assert_eq!(ticks.len() % 4, 0, "four ticks per candle");
    }
});
