//! `--feed` specifications: which price source feeds which products.
//!
//! ```text
//! simulated[:SEED]                  every product not named elsewhere (the default); without a
//!                                   seed (here or --sim-seed) it is drawn from the OS at each
//!                                   start, so nobody can know the next move from an earlier run
//! replay:PATH[@SPEED]=SYM,SYM       a recorded CSV file; SPEED 1 = real time, 0 = full speed
//! exchange:URL=SYM,SYM              Binance-compatible streams, e.g. wss://stream.binance.com:9443/stream
//! ```

use std::collections::HashMap;
use std::path::PathBuf;

use engine::types::Symbol;
use market_feed::source::SourceConfig;
use rust_decimal::Decimal;

/// A seed from the operating system's randomness: the simulator's path is not predictable.
pub fn random_seed() -> u64 {
    use rand::RngCore;
    rand::rngs::OsRng.next_u64()
}

/// The parsed `--feed` options.
#[derive(Debug, Clone)]
pub struct Feeds {
    /// Explicit assignments.
    pub assignments: Vec<(SourceConfig, Vec<Symbol>)>,
    /// The source of every other product.
    pub default_source: SourceConfig,
    /// Seed for backfilled history.
    pub seed: u64,
    /// True when the simulator's seed was given (a reproducible run).
    pub seeded: bool,
}

/// Parses every `--feed` value; later `simulated` entries replace earlier ones. The
/// simulator's seed is `sim_seed` (`--sim-seed`) if given, else drawn from the OS.
pub fn parse(specs: &[String], sim_seed: Option<u64>) -> Result<Feeds, String> {
    let default_seed = sim_seed.unwrap_or_else(random_seed);
    let mut feeds = Feeds {
        assignments: Vec::new(),
        default_source: SourceConfig::simulated(default_seed),
        seed: default_seed,
        seeded: sim_seed.is_some(),
    };
    for spec in specs {
        if let Some(rest) = spec.strip_prefix("simulated") {
            let seed = match rest.strip_prefix(':') {
                Some(seed) => {
                    feeds.seeded = true;
                    seed.parse().map_err(|_| format!("{spec}: the seed must be a number"))?
                }
                None if rest.is_empty() => default_seed,
                None => return Err(format!("{spec}: expected simulated or simulated:SEED")),
            };
            feeds.default_source = SourceConfig::simulated(seed);
            feeds.seed = seed;
            continue;
        }
        let (source, symbols) =
            spec.rsplit_once('=').ok_or_else(|| format!("{spec}: name the products after '='"))?;
        let symbols = symbols
            .split(',')
            .map(|s| {
                Symbol::new(s.trim()).ok_or_else(|| format!("{spec}: {s} is not a product code"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let config = if let Some(rest) = source.strip_prefix("replay:") {
            let (path, speed) = match rest.rsplit_once('@') {
                Some((path, speed)) => (
                    path,
                    speed.parse::<Decimal>().map_err(|_| format!("{spec}: bad speed {speed}"))?,
                ),
                None => (rest, Decimal::ONE),
            };
            SourceConfig::Replay { path: PathBuf::from(path), speed, loop_forever: true }
        } else if let Some(url) = source.strip_prefix("exchange:") {
            SourceConfig::Exchange { url: url.to_string(), symbols: HashMap::new() }
        } else {
            return Err(format!(
                "{spec}: the source must be simulated, replay:PATH or exchange:URL"
            ));
        };
        feeds.assignments.push((config, symbols));
    }
    Ok(feeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_default_simulator_is_seeded_by_the_os_unless_a_seed_is_given() {
        let seed = |feeds: &Feeds| match feeds.default_source {
            SourceConfig::Simulated { seed, .. } => seed,
            _ => panic!("not the simulator"),
        };
        let (a, b) = (parse(&[], None).unwrap(), parse(&[], None).unwrap());
        assert!(a.assignments.is_empty() && !a.seeded);
        assert_ne!(seed(&a), seed(&b), "two starts, two paths");
        let given = parse(&[], Some(7)).unwrap();
        assert_eq!((seed(&given), given.seed, given.seeded), (7, 7, true));
        assert_eq!(seed(&parse(&specs(&["simulated:9"]), None).unwrap()), 9);
    }

    #[test]
    fn products_are_assigned_to_replay_and_exchange_sources() {
        let feeds = parse(
            &specs(&[
                "replay:/data/eur.csv@10=EURUSD,GBPUSD",
                "exchange:wss://stream.binance.com:9443/stream=BTCUSDT",
            ]),
            None,
        )
        .unwrap();
        assert_eq!(feeds.assignments.len(), 2);
        match &feeds.assignments[0] {
            (SourceConfig::Replay { path, speed, .. }, symbols) => {
                assert_eq!(path, &PathBuf::from("/data/eur.csv"));
                assert_eq!(*speed, Decimal::from(10));
                assert_eq!(symbols.len(), 2);
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(&feeds.assignments[1].0, SourceConfig::Exchange { url, .. } if url == "wss://stream.binance.com:9443/stream")
        );
    }

    #[test]
    fn bad_specifications_are_refused_with_the_reason() {
        for bad in [
            "replay:x.csv",
            "ftp:x=BTCUSDT",
            "replay:x.csv=btc/usdt",
            "simulated:abc",
            "replay:x@fast=BTCUSDT",
        ] {
            assert!(parse(&specs(&[bad]), None).is_err(), "{bad}");
        }
    }
}
