//! The gateway: the server process around the engine.
//!
//! - [`server`]: the whole server: async runtime, durable core, market data, the HTTP API;
//!   started in order and stopped in reverse.
//! - [`config`]: options from flags, environment and a TOML file; [`logging`]: log lines.
//! - [`durable`]: the durable core (recovery, pipeline, read model, first admin, settlement timer).
//! - [`state`]: the composition root, [`state::AppState`], that every handler of either
//!   transport receives.
//! - Services both transports use, importing neither: [`error`] (the one error value),
//!   [`i18n`] (catalogues), [`tokens`] (JWTs), [`sessions`] (is a token's session live),
//!   [`forward`] (cluster mode: writes to the leader), [`trading`] (what an order and a market
//!   view are), [`charts`] (a chart's newest candles, kept encoded), [`names`] (the wire names of the engine's enums), [`readmodel`] (history
//!   projected from engine events into redb), [`hasher`] and [`password`] (argon2id),
//!   [`throttle`] (attempt limits), [`mail`] (e-mail codes), [`walletsig`] (wallet sign-in),
//!   [`metrics`] (Prometheus).
//! - The transports: [`api`] (HTTP, axum, with its OpenAPI document) and [`ws`] (the
//!   websocket at `/ws` and `/trade`: subscriptions, the private stream, orders, fan-out with
//!   bounded per-connection queues); [`http`] accepts connections for both, [`admission`]
//!   caps them per address and in all.
//! - [`web`]: the web app's files (embedded), with a fallback to `index.html` for its routes.
//! - [`verify`]: re-derives every settled result from the archived ticks (`trading-verify`).
//! - [`feeds`]: `--feed` specifications.
#![allow(clippy::float_arithmetic)] // only in latency histograms (seconds as f64)

pub mod admission;
pub mod api;
pub mod charts;
pub mod config;
pub mod durable;
pub mod error;
pub mod feeds;
pub mod forward;
pub mod hasher;
pub mod http;
pub mod i18n;
pub mod logging;
pub mod mail;
pub mod metrics;
pub mod names;
pub mod password;
pub mod pdf;
pub mod readmodel;
pub mod server;
pub mod sessions;
pub mod state;
pub mod throttle;
pub mod tokens;
pub mod trading;
pub mod verify;
pub mod walletsig;
pub mod web;
pub mod ws;
