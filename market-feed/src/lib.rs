//! Market data: price sources, candles, 24h statistics, market hours and the history store.
//!
//! | module | what it holds |
//! |---|---|
//! | [`types`] | periods, candles, raw and sequenced ticks, 24h statistics |
//! | [`archive`] | every sequenced tick, kept beyond the log's truncation, looked up by index or time |
//! | [`catalogue`] | the tradable pairs: names, precision, starting prices, volatility |
//! | [`candles`] | the aggregator: sequenced ticks -> OHLCV candles of every period |
//! | [`stats`] | rolling 24 h high, low, volume, change per symbol |
//! | [`store`] | candle history in sled: range queries, backfill |
//! | [`source`] | price sources behind one interface: simulated, replay, live exchange |
//! | [`feed`] | sources -> engine ticks, staleness, catalogue sync |
//! | [`market`] | the running service and [`market::MarketData`], the read API for the gateway |
//!
//! Ticks from a source enter the engine as journaled commands; candles and statistics are
//! built from the ticks the engine sequenced (its events), never from the raw source stream,
//! so what a chart shows is exactly what settlement used.

pub mod archive;
pub mod candles;
pub mod catalogue;
pub mod feed;
pub mod market;
pub mod source;
pub mod stats;
pub mod store;
pub mod types;
