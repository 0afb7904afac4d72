//! The nouns of market data shared by every module: periods, candles, raw ticks, 24h stats.

use rust_decimal::Decimal;

use engine::types::Symbol;

/// A chart period. Buckets are aligned to UTC; weeks start on Monday 00:00 UTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Period {
    /// One minute.
    M1,
    /// Five minutes.
    M5,
    /// Fifteen minutes.
    M15,
    /// Thirty minutes.
    M30,
    /// One hour.
    H1,
    /// Four hours.
    H4,
    /// One day.
    D1,
    /// One week, from Monday 00:00 UTC.
    W1,
}

/// Milliseconds in a minute.
const MINUTE_MS: u64 = 60_000;
/// 1970-01-01 was a Thursday: Monday 1969-12-29 00:00 UTC is 3 days before the epoch.
const EPOCH_TO_MONDAY_MS: u64 = 3 * 24 * 60 * MINUTE_MS;

impl Period {
    /// Every period, shortest first.
    pub const ALL: [Period; 8] = [
        Period::M1,
        Period::M5,
        Period::M15,
        Period::M30,
        Period::H1,
        Period::H4,
        Period::D1,
        Period::W1,
    ];

    /// The period's name in the API and the spec ("1m" ... "1w").
    pub fn as_str(self) -> &'static str {
        match self {
            Period::M1 => "1m",
            Period::M5 => "5m",
            Period::M15 => "15m",
            Period::M30 => "30m",
            Period::H1 => "1h",
            Period::H4 => "4h",
            Period::D1 => "1d",
            Period::W1 => "1w",
        }
    }

    /// Parses "1m" ... "1w".
    pub fn parse(name: &str) -> Option<Period> {
        Period::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// Length of one candle.
    pub fn duration_ms(self) -> u64 {
        MINUTE_MS
            * match self {
                Period::M1 => 1,
                Period::M5 => 5,
                Period::M15 => 15,
                Period::M30 => 30,
                Period::H1 => 60,
                Period::H4 => 240,
                Period::D1 => 1_440,
                Period::W1 => 10_080,
            }
    }

    /// Start of the candle that contains `time_ms` (UTC; weeks from Monday).
    pub fn bucket_start(self, time_ms: u64) -> u64 {
        let d = self.duration_ms();
        match self {
            Period::W1 => {
                let shifted = time_ms + EPOCH_TO_MONDAY_MS;
                shifted - shifted % d - EPOCH_TO_MONDAY_MS
            }
            _ => time_ms - time_ms % d,
        }
    }

    /// A small stable number for storage keys.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// One OHLCV candle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candle {
    /// Start of the bucket (ms, UTC).
    pub open_ms: u64,
    /// First price in the bucket.
    pub open: Decimal,
    /// Highest price.
    pub high: Decimal,
    /// Lowest price.
    pub low: Decimal,
    /// Last price.
    pub close: Decimal,
    /// Sum of traded quantities.
    pub volume: Decimal,
    /// Ticks in the bucket.
    pub ticks: u32,
}

/// A price as a source reports it, before it is sequenced by the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawTick {
    /// Product code.
    pub symbol: Symbol,
    pub price: Decimal,
    /// Quantity traded at that price (0 for a quote).
    pub quantity: Decimal,
    /// The source's own timestamp (ms), for staleness and replay pacing; the engine stamps its own.
    pub source_ms: u64,
}

/// A sequenced tick as candles are built from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequencedTick {
    /// Product code.
    pub symbol: Symbol,
    pub price: Decimal,
    pub quantity: Decimal,
    /// Sequencer time (ms).
    pub time_ms: u64,
    /// Log index of the tick.
    pub index: u64,
}

/// Rolling 24-hour statistics of a symbol.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Stats24h {
    /// Price 24 h ago (the open of the oldest minute in the window).
    pub open: Decimal,
    /// Highest price in the window.
    pub high: Decimal,
    /// Lowest price in the window.
    pub low: Decimal,
    /// Latest price.
    pub close: Decimal,
    /// Quantity traded in the window.
    pub volume: Decimal,
    /// close - open.
    pub change: Decimal,
    /// (close - open) / open x 100, rounded to 2 decimals; 0 when open is 0.
    pub change_percent: Decimal,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wednesday 2026-11-18 13:37:12.345 UTC.
    const WED: u64 = 1_795_009_032_345;

    #[test]
    fn buckets_align_to_utc_and_weeks_to_monday() {
        assert_eq!(Period::M1.bucket_start(WED), WED - 12_345);
        assert_eq!(Period::H4.bucket_start(WED), 1_795_003_200_000); // 12:00
        assert_eq!(Period::D1.bucket_start(WED), 1_794_960_000_000); // 00:00
        assert_eq!(Period::W1.bucket_start(WED), 1_794_787_200_000); // Monday 16th 00:00
        let monday = 1_794_787_200_000;
        assert_eq!(Period::W1.bucket_start(monday), monday);
        assert_eq!(Period::W1.bucket_start(monday - 1), monday - 7 * 86_400_000);
        for p in Period::ALL {
            assert_eq!(Period::parse(p.as_str()), Some(p));
        }
    }
}
