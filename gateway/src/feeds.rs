//! `--feed` specifications: which price source feeds which products.
//!
//! ```text
//! simulated[:SEED]                  every product not named elsewhere (the default); without a
//!                                   seed (here or --sim-seed) it is drawn from the OS at each
//!                                   start, so nobody can know the next move from an earlier run
//! replay:PATH[@SPEED]=SYM,SYM[#OPT,OPT]
//!                                   a recorded file (ours, pandas/Yahoo, Binance klines,
//!                                   HistData, MetaTrader; plain or gzip); SPEED 1 = real time,
//!                                   0 = full speed; a file without a symbol column feeds the
//!                                   one product named. Options settle what the file leaves
//!                                   open: format=ticks|candles|ohlcv|binance|histdata|metatrader,
//!                                   time=s|ms|us, dates=dmy|mdy, tz=+HH:MM (naive times; UTC
//!                                   by default), period=1m|1h|1d|1w|1M…
//! exchange:[VENUE:]URL=SYM,SYM      a live exchange: binance (the default), e.g.
//!                                   wss://stream.binance.com:9443/stream, or okx, e.g.
//!                                   exchange:okx:wss://ws.okx.com:8443/ws/v5/public
//! ```
//!
//! A path containing `#` is written with an option list after it, even an empty one
//! (`replay:a#1.csv=EURUSD#`): the last `#` starts the options.

use std::collections::HashMap;
use std::path::PathBuf;

use engine::types::Symbol;
use market_feed::source::{ReplayOptions, SourceConfig, Venue};
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
        // A replay's options follow its products: replay:PATH@SPEED=SYM#format=binance,time=us
        let (main, options) = match spec.strip_prefix("replay:").and(spec.rsplit_once('#')) {
            Some((main, options)) => (main, Some(options)),
            None => (spec.as_str(), None),
        };
        let (source, symbols) =
            main.rsplit_once('=').ok_or_else(|| format!("{spec}: name the products after '='"))?;
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
            let options =
                ReplayOptions::parse(options.unwrap_or("")).map_err(|e| format!("{spec}: {e}"))?;
            SourceConfig::Replay { path: PathBuf::from(path), speed, loop_forever: true, options }
        } else if let Some(rest) = source.strip_prefix("exchange:") {
            // `okx:wss://…` names its venue; `wss://…` (whose scheme is no venue) is Binance.
            let (venue, url) = match rest.split_once(':') {
                Some((name, url)) if Venue::parse(name).is_some() => {
                    (Venue::parse(name).unwrap_or_default(), url)
                }
                _ => (Venue::Binance, rest),
            };
            if url.is_empty() {
                return Err(format!("{spec}: the exchange needs a wss:// URL"));
            }
            SourceConfig::Exchange { venue, url: url.to_string(), symbols: HashMap::new() }
        } else {
            return Err(format!(
                "{spec}: the source must be simulated, replay:PATH or exchange:[okx:]URL"
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
    fn replay_options_follow_the_products() {
        let feeds = parse(
            &specs(&[
                "replay:/data/EURUSD_H1.csv.gz@60=EURUSD#format=histdata,tz=-05:00",
                "replay:/data/a#1.csv=GBPUSD#",
                "replay:/data/btc.csv=BTCUSDT",
            ]),
            None,
        )
        .unwrap();
        let replay = |k: usize| match &feeds.assignments[k].0 {
            SourceConfig::Replay { path, speed, options, .. } => {
                (path.clone(), *speed, options.clone())
            }
            other => panic!("{other:?}"),
        };
        let (path, speed, options) = replay(0);
        assert_eq!((path, speed), (PathBuf::from("/data/EURUSD_H1.csv.gz"), Decimal::from(60)));
        assert_eq!(options, ReplayOptions::parse("format=histdata,tz=-05:00").unwrap());
        assert_eq!(options.utc_offset_ms, -5 * 3_600_000);
        assert_eq!(replay(1).0, PathBuf::from("/data/a#1.csv"), "a # in the path");
        assert_eq!(replay(2).2, ReplayOptions::default(), "detection by default");
    }

    #[test]
    fn exchanges_are_binance_unless_a_venue_is_named() {
        let feeds = parse(
            &specs(&[
                "exchange:okx:wss://ws.okx.com:8443/ws/v5/public=BTCUSDT,ETHUSDT",
                "exchange:binance:wss://stream.binance.com:9443/stream=SOLUSDT",
                "exchange:ws://127.0.0.1:9000/stream=XRPUSDT",
            ]),
            None,
        )
        .unwrap();
        let venues: Vec<(Venue, String)> = feeds
            .assignments
            .iter()
            .map(|(source, _)| match source {
                SourceConfig::Exchange { venue, url, .. } => (*venue, url.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            venues,
            [
                (Venue::Okx, "wss://ws.okx.com:8443/ws/v5/public".to_owned()),
                (Venue::Binance, "wss://stream.binance.com:9443/stream".to_owned()),
                (Venue::Binance, "ws://127.0.0.1:9000/stream".to_owned()),
            ]
        );
        assert_eq!(feeds.assignments[0].1.len(), 2);
    }

    #[test]
    fn bad_specifications_are_refused_with_the_reason() {
        for (bad, why) in [
            ("replay:x.csv", "name the products"),
            ("ftp:x=BTCUSDT", "the source must be"),
            ("replay:x.csv=btc/usdt", "not a product code"),
            ("simulated:abc", "seed"),
            ("replay:x@fast=BTCUSDT", "bad speed"),
            ("replay:x.csv=EURUSD#format=excel", "format=excel"),
            ("replay:x.csv=EURUSD#tz=Europe/Paris", "tz="),
            ("replay:x.csv=EURUSD#colour=red", "unknown option"),
            ("exchange:okx:=BTCUSDT", "wss:// URL"),
        ] {
            let error = parse(&specs(&[bad]), None).expect_err(bad);
            assert!(error.contains(why), "{bad}: {error}");
        }
    }
}
