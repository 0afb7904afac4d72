//! The product catalogue: every tradable pair with its display name, category, price precision,
//! a realistic starting price for the simulator, and its volatility.

use engine::types::{Category, MarketHours, Symbol};
use rust_decimal::Decimal;

/// One instrument of the catalogue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instrument {
    /// Code without a slash (BTCUSDT).
    pub symbol: Symbol,
    /// Display name with a slash (BTC/USDT).
    pub name: String,
    /// Crypto or forex.
    pub category: Category,
    /// Decimal places of its price.
    pub precision: u8,
    /// Where the simulator starts.
    pub start_price: Decimal,
    /// Annualised volatility in percent (BTC about 60, EUR/USD about 7).
    pub volatility_percent: u32,
    /// Relative trading activity: scales simulated tick sizes' quantities.
    pub typical_quantity: Decimal,
    /// Listed at install; the others wait in the catalogue until an admin adds them.
    pub listed_by_default: bool,
}

impl Instrument {
    /// When it trades: crypto always, forex outside the weekend close.
    pub fn hours(&self) -> MarketHours {
        match self.category {
            Category::Crypto => MarketHours::Always,
            Category::Forex => MarketHours::forex(),
        }
    }
}

/// (code, base, quote, precision, start price, volatility %, typical quantity)
type Row = (&'static str, &'static str, &'static str, u8, &'static str, u32, &'static str);

const CRYPTO: [Row; 22] = [
    ("BTCUSDT", "BTC", "USDT", 2, "96500.00", 55, "0.05"),
    ("ETHUSDT", "ETH", "USDT", 2, "3420.00", 70, "0.8"),
    ("BNBUSDT", "BNB", "USDT", 2, "655.00", 55, "2"),
    ("SOLUSDT", "SOL", "USDT", 2, "238.00", 85, "10"),
    ("XRPUSDT", "XRP", "USDT", 4, "1.4500", 90, "1500"),
    ("DOGEUSDT", "DOGE", "USDT", 5, "0.38500", 100, "8000"),
    ("ADAUSDT", "ADA", "USDT", 4, "0.9800", 90, "2500"),
    ("TRXUSDT", "TRX", "USDT", 5, "0.21000", 60, "10000"),
    ("TONUSDT", "TON", "USDT", 3, "5.600", 80, "300"),
    ("AVAXUSDT", "AVAX", "USDT", 2, "42.50", 90, "50"),
    ("LINKUSDT", "LINK", "USDT", 3, "18.200", 85, "120"),
    ("DOTUSDT", "DOT", "USDT", 3, "8.400", 85, "250"),
    ("BCHUSDT", "BCH", "USDT", 2, "480.00", 75, "3"),
    ("LTCUSDT", "LTC", "USDT", 2, "102.00", 75, "15"),
    ("SHIBUSDT", "SHIB", "USDT", 8, "0.00002450", 100, "50000000"),
    ("UNIUSDT", "UNI", "USDT", 3, "11.800", 90, "150"),
    ("NEARUSDT", "NEAR", "USDT", 3, "6.200", 95, "300"),
    ("ATOMUSDT", "ATOM", "USDT", 3, "8.900", 85, "200"),
    ("XLMUSDT", "XLM", "USDT", 5, "0.42000", 90, "5000"),
    ("ETCUSDT", "ETC", "USDT", 3, "31.500", 80, "60"),
    ("APTUSDT", "APT", "USDT", 3, "12.400", 95, "150"),
    ("ARBUSDT", "ARB", "USDT", 4, "0.9200", 100, "2000"),
];

/// In the catalogue, not listed at install: an admin adds them from the back-office.
const CRYPTO_MORE: [Row; 4] = [
    ("SUIUSDT", "SUI", "USDT", 4, "3.4500", 100, "800"),
    ("OPUSDT", "OP", "USDT", 4, "2.1000", 95, "900"),
    ("FILUSDT", "FIL", "USDT", 3, "5.800", 90, "300"),
    ("PEPEUSDT", "PEPE", "USDT", 8, "0.00001850", 110, "80000000"),
];

const FOREX: [Row; 10] = [
    ("EURUSD", "EUR", "USD", 5, "1.08450", 7, "100000"),
    ("GBPUSD", "GBP", "USD", 5, "1.27100", 8, "100000"),
    ("USDJPY", "USD", "JPY", 3, "151.420", 9, "100000"),
    ("AUDUSD", "AUD", "USD", 5, "0.65800", 9, "100000"),
    ("USDCAD", "USD", "CAD", 5, "1.39600", 6, "100000"),
    ("USDCHF", "USD", "CHF", 5, "0.88300", 7, "100000"),
    ("NZDUSD", "NZD", "USD", 5, "0.59100", 9, "100000"),
    ("EURGBP", "EUR", "GBP", 5, "0.85300", 5, "100000"),
    ("EURJPY", "EUR", "JPY", 3, "164.200", 9, "100000"),
    ("GBPJPY", "GBP", "JPY", 3, "192.400", 10, "100000"),
];

/// In the catalogue, not listed at install.
const FOREX_MORE: [Row; 2] = [
    ("AUDJPY", "AUD", "JPY", 3, "99.640", 10, "100000"),
    ("EURCHF", "EUR", "CHF", 5, "0.95800", 6, "100000"),
];

fn instrument(row: &Row, category: Category, listed_by_default: bool) -> Instrument {
    let &(code, base, quote, precision, price, volatility_percent, quantity) = row;
    Instrument {
        symbol: Symbol::new(code).expect("catalogue codes are valid"),
        name: format!("{base}/{quote}"),
        category,
        precision,
        start_price: price.parse().expect("catalogue prices are valid"),
        volatility_percent,
        typical_quantity: quantity.parse().expect("catalogue quantities are valid"),
        listed_by_default,
    }
}

/// The whole catalogue: crypto first, then forex; in each, the ones listed at install first.
pub fn catalogue() -> Vec<Instrument> {
    let rows = [
        (&CRYPTO[..], Category::Crypto, true),
        (&CRYPTO_MORE[..], Category::Crypto, false),
        (&FOREX[..], Category::Forex, true),
        (&FOREX_MORE[..], Category::Forex, false),
    ];
    rows.iter()
        .flat_map(|&(rows, category, listed)| {
            rows.iter().map(move |r| instrument(r, category, listed))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_has_the_pairs_decisions_asks_for() {
        let all = catalogue();
        let listed = || all.iter().filter(|i| i.listed_by_default);
        let crypto = listed().filter(|i| i.category == Category::Crypto).count();
        let forex = listed().filter(|i| i.category == Category::Forex).count();
        assert!(crypto >= 20 && forex >= 10, "{crypto} crypto, {forex} forex");
        let mut codes: Vec<_> = all.iter().map(|i| i.symbol).collect();
        codes.sort_by_key(|s| s.to_string());
        codes.dedup();
        assert_eq!(codes.len(), all.len(), "codes are unique");
        for i in &all {
            assert_eq!(i.name.replace('/', ""), i.symbol.to_string());
            assert_eq!(
                i.start_price.scale(),
                u32::from(i.precision),
                "{} price has its precision",
                i.symbol
            );
            assert!(i.start_price > Decimal::ZERO && i.typical_quantity > Decimal::ZERO);
        }
    }
}
