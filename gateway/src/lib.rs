//! The gateway: the server process around the engine.
//!
//! - [`server`]: the whole server: async runtime, durable core, market data, the HTTP API;
//!   started in order and stopped in reverse.
//! - [`config`]: options from flags, environment and a TOML file; [`logging`]: log lines.
//! - [`node`]: the durable core (recovery, pipeline, read model, first admin, settlement timer).
//! - [`readmodel`]: history projected from engine events into redb.
//! - [`http`]: the HTTP listener (request-head timeout, connection caps, drain);
//!   [`admission`]: connection caps per address and in all (HTTP and websockets).
//! - [`api`]: the HTTP API (axum), its errors, localisation, auth and OpenAPI document;
//!   [`trading`]: what an order and a market view are, for the API and the websocket alike.
//! - [`hasher`]: argon2id on a bounded pool; [`password`]: the argon2id parameters.
//! - [`throttle`]: brute-force limits (attempts per account and address); [`mail`]: e-mail codes and delivery;
//!   [`walletsig`]: wallet signature sign-in; [`metrics`]: Prometheus metrics.
//! - [`ws`]: the websocket (`/ws`, `/trade`): subscriptions, the private stream, orders,
//!   fan-out with bounded per-connection queues.
//! - [`web`]: the web app's files (embedded), with a fallback to `index.html` for its routes.
//! - [`verify`]: re-derives every settled result from the archived ticks (`trading-verify`).
//! - [`feeds`]: `--feed` specifications.
#![allow(clippy::float_arithmetic)] // only in latency histograms (seconds as f64)

pub mod admission;
pub mod api;
pub mod config;
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
pub mod node;
pub mod password;
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
