//! Server options: command-line flag, then environment variable, then the TOML file given by
//! `--config`, then the embedded default. `trading-server --help` lists them.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;
use serde::Deserialize;

use crate::mail::SmtpConfig;
use crate::ws::WsConfig;

/// The websocket limits with the rate and connection cap given (each at least 1).
fn ws_config(
    messages_per_second: Option<u32>,
    connections_max: Option<usize>,
    connections_per_ip_max: Option<usize>,
) -> WsConfig {
    let mut ws = WsConfig::default();
    if let Some(rate) = messages_per_second {
        ws.messages_per_second = rate.max(1);
        ws.messages_burst = rate.max(1).saturating_mul(2);
    }
    if let Some(max) = connections_max {
        ws.connections_max = max.max(1);
    }
    if let Some(max) = connections_per_ip_max {
        ws.connections_per_ip_max = max.max(1);
    }
    ws
}

/// The most runtime worker threads one may ask for.
const RUNTIME_WORKERS_MAX: usize = 256;

/// The command line (every option also reads an environment variable).
#[derive(Debug, Parser, Default)]
#[command(
    name = "trading-server",
    about = "The trading platform's server: durable core, market data and HTTP API."
)]
pub struct Args {
    /// TOML file with any of the options below (keys in snake_case, plus an [smtp] table).
    #[arg(long, env = "TRADING_CONFIG")]
    pub config: Option<PathBuf>,
    /// Address the HTTP API listens on [default: 127.0.0.1:8080].
    #[arg(long, env = "TRADING_LISTEN")]
    pub listen: Option<SocketAddr>,
    /// Where the log, snapshots, read model, uploads and outbox live [default: ./data].
    #[arg(long, env = "TRADING_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// First admin's name, used only when no admin exists yet [default: admin].
    #[arg(long, env = "TRADING_ADMIN_USERNAME")]
    pub admin_username: Option<String>,
    /// First admin's password [default: generated at first start and printed once].
    #[arg(long, env = "TRADING_ADMIN_PASSWORD", hide_env_values = true)]
    pub admin_password: Option<String>,
    /// Price source per product (repeatable): simulated[:SEED],
    /// replay:PATH[@SPEED]=SYM,...[#OPTIONS] (our CSV, pandas/Yahoo OHLCV, Binance klines,
    /// HistData or MetaTrader rows, plain or gzip; OPTIONS, comma-separated, settle what the file
    /// leaves open: format=ticks|candles|ohlcv|binance|histdata|metatrader, time=s|ms|us,
    /// dates=dmy|mdy, tz=+HH:MM for naive times (UTC otherwise), period=1h|1d|1M...),
    /// exchange:[binance:|okx:]URL=SYM,... [default: the simulator for every product].
    #[arg(long = "feed", env = "TRADING_FEEDS", value_delimiter = ';')]
    pub feeds: Vec<String>,
    /// Seed of the simulator, for a reproducible run [default: drawn from the OS at each start].
    #[arg(long, env = "TRADING_SIM_SEED")]
    pub sim_seed: Option<u64>,
    /// Where `/metrics` is served, never the public address; `none` turns it off
    /// [default: 127.0.0.1:9184].
    #[arg(long, env = "TRADING_METRICS_LISTEN")]
    pub metrics_listen: Option<String>,
    /// Log lines as `text` (colours only on a terminal) or `json` (one object a line)
    /// [default: text].
    #[arg(long, env = "TRADING_LOG_FORMAT")]
    pub log_format: Option<String>,
    /// Upload files each user may store [default: 100].
    #[arg(long, env = "TRADING_UPLOAD_FILES_PER_USER")]
    pub upload_files_per_user: Option<u64>,
    /// Upload megabytes each user may store [default: 100].
    #[arg(long, env = "TRADING_UPLOAD_MEGABYTES_PER_USER")]
    pub upload_megabytes_per_user: Option<u64>,
    /// Days of archived ticks to keep; 0 keeps every tick [default: 0].
    #[arg(long, env = "TRADING_TICK_ARCHIVE_DAYS")]
    pub tick_archive_days: Option<u64>,
    /// Accept real-money orders on products priced by the simulator (a demo platform refuses
    /// them by default).
    #[arg(long, env = "TRADING_ALLOW_REAL_MONEY_ON_SIMULATED_PRICES")]
    pub allow_real_money_on_simulated_prices: bool,
    /// Public origin for invitation links, e.g. https://trade.example.com [default: the
    /// address the trader's page was loaded from].
    #[arg(long, env = "TRADING_PUBLIC_ORIGIN")]
    pub public_origin: Option<String>,
    /// argon2id threads [default: 1].
    #[arg(long, env = "TRADING_HASH_THREADS")]
    pub hash_threads: Option<usize>,
    /// Worker threads of the async runtime that serves HTTP and websockets [default: the
    /// machine's cores less one each for the engine and the read model, at least 2].
    #[arg(long, env = "TRADING_RUNTIME_WORKERS")]
    pub runtime_workers: Option<usize>,
    /// SMTP host; without it e-mails go to DATA_DIR/outbox.
    #[arg(long, env = "TRADING_SMTP_HOST")]
    pub smtp_host: Option<String>,
    /// SMTP port [default: 587].
    #[arg(long, env = "TRADING_SMTP_PORT")]
    pub smtp_port: Option<u16>,
    /// starttls, tls or none [default: starttls].
    #[arg(long, env = "TRADING_SMTP_SECURITY")]
    pub smtp_security: Option<String>,
    /// SMTP login.
    #[arg(long, env = "TRADING_SMTP_USERNAME")]
    pub smtp_username: Option<String>,
    /// SMTP password.
    #[arg(long, env = "TRADING_SMTP_PASSWORD", hide_env_values = true)]
    pub smtp_password: Option<String>,
    /// Sender address [default: Trading Pro <no-reply@localhost>].
    #[arg(long, env = "TRADING_SMTP_FROM")]
    pub smtp_from: Option<String>,
    /// Turn the brute-force limits off (benchmarks only).
    #[arg(long, env = "TRADING_NO_RATE_LIMITS")]
    pub no_rate_limits: bool,
    /// Websocket messages per second per connection, sustained [default: 50; burst twice that].
    #[arg(long, env = "TRADING_WS_MESSAGES_PER_SECOND")]
    pub ws_messages_per_second: Option<u32>,
    /// Most websocket connections [default: 100000].
    #[arg(long, env = "TRADING_WS_CONNECTIONS_MAX")]
    pub ws_connections_max: Option<usize>,
    /// Most websocket connections from one IP address [default: 1000].
    #[arg(long, env = "TRADING_WS_CONNECTIONS_PER_IP_MAX")]
    pub ws_connections_per_ip_max: Option<usize>,
    /// Seconds a connection may take to send a whole request head, also between keep-alive
    /// requests; then it is closed [default: 5].
    #[arg(long, env = "TRADING_HTTP_HEAD_TIMEOUT_SECS")]
    pub http_head_timeout_secs: Option<u64>,
    /// Most plain HTTP connections from one IP address (IPv6: one /64) [default: 256].
    #[arg(long, env = "TRADING_HTTP_CONNECTIONS_PER_IP_MAX")]
    pub http_connections_per_ip_max: Option<usize>,
    /// Run as a member of a Raft cluster (needs --node-id, --peers and --cluster-secret)
    /// instead of one node alone.
    #[arg(long, env = "TRADING_CLUSTER")]
    pub cluster: bool,
    /// This member's id in --peers.
    #[arg(long, env = "TRADING_NODE_ID")]
    pub node_id: Option<u64>,
    /// Every member, this one too: ID=HOST:PORT,... (where members reach each other).
    #[arg(long, env = "TRADING_PEERS")]
    pub peers: Option<String>,
    /// Where this member listens for the others [default: its own address in --peers].
    #[arg(long, env = "TRADING_CLUSTER_LISTEN")]
    pub cluster_listen: Option<SocketAddr>,
    /// The secret every member shares: a connection that cannot prove it is refused.
    #[arg(long, env = "TRADING_CLUSTER_SECRET", hide_env_values = true)]
    pub cluster_secret: Option<String>,
    /// Each member's public address, ID=http://HOST:PORT,...: a follower forwards writes to
    /// the leader's [default: none; a follower refuses writes with NOT_LEADER].
    #[arg(long, env = "TRADING_PEER_APIS")]
    pub peer_apis: Option<String>,
    /// Raft entries between a member's snapshots [default: 20000].
    #[arg(long, env = "TRADING_CLUSTER_SNAPSHOT_EVERY")]
    pub cluster_snapshot_every: Option<u64>,
}

/// The same options in a file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    listen: Option<SocketAddr>,
    data_dir: Option<PathBuf>,
    admin_username: Option<String>,
    admin_password: Option<String>,
    feeds: Option<Vec<String>>,
    sim_seed: Option<u64>,
    metrics_listen: Option<String>,
    log_format: Option<String>,
    upload_files_per_user: Option<u64>,
    upload_megabytes_per_user: Option<u64>,
    tick_archive_days: Option<u64>,
    allow_real_money_on_simulated_prices: Option<bool>,
    public_origin: Option<String>,
    hash_threads: Option<usize>,
    runtime_workers: Option<usize>,
    smtp: Option<SmtpConfig>,
    ws_messages_per_second: Option<u32>,
    ws_connections_max: Option<usize>,
    ws_connections_per_ip_max: Option<usize>,
    http_head_timeout_secs: Option<u64>,
    http_connections_per_ip_max: Option<usize>,
    cluster: Option<bool>,
    node_id: Option<u64>,
    peers: Option<String>,
    cluster_listen: Option<SocketAddr>,
    cluster_secret: Option<String>,
    peer_apis: Option<String>,
    cluster_snapshot_every: Option<u64>,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines; terminal colours only when standard error is a terminal.
    Text,
    /// One JSON object a line, for log collectors.
    Json,
}

/// Everything resolved.
#[derive(Debug, Clone)]
pub struct Config {
    /// HTTP listen address.
    pub listen: SocketAddr,
    /// Data directory.
    pub data_dir: PathBuf,
    /// First admin's name.
    pub admin_username: String,
    /// First admin's password, if set.
    pub admin_password: Option<String>,
    /// Feed specifications.
    pub feeds: Vec<String>,
    /// The simulator's seed, if given.
    pub sim_seed: Option<u64>,
    /// Days of archived ticks kept (0: all).
    pub tick_archive_days: u64,
    /// The metrics address, if any.
    pub metrics_listen: Option<SocketAddr>,
    /// How log lines are written.
    pub log_format: LogFormat,
    /// Upload quota per user.
    pub upload_quota: crate::state::UploadQuota,
    /// Real money allowed on simulated prices.
    pub real_money_on_simulated_prices: bool,
    /// Origin for invitation links, when the operator set one.
    pub public_origin: Option<String>,
    /// argon2id threads.
    pub hash_threads: usize,
    /// Worker threads of the async runtime.
    pub runtime_workers: usize,
    /// SMTP, if configured.
    pub smtp: Option<SmtpConfig>,
    /// Brute-force limits on.
    pub rate_limits: bool,
    /// Websocket limits.
    pub ws: WsConfig,
    /// The HTTP listener's limits (its socket cap is set from the descriptor limit at start).
    pub listen_limits: crate::http::ListenConfig,
    /// Cluster mode: this member's place; `None` runs one node alone.
    pub cluster: Option<crate::durable::ClusterOptions>,
}

impl Config {
    /// Embedded defaults for a data directory (tests start servers this way).
    pub fn for_data_dir(data_dir: PathBuf) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            data_dir,
            admin_username: "admin".into(),
            admin_password: None,
            feeds: Vec::new(),
            sim_seed: None,
            tick_archive_days: 0,
            metrics_listen: Some(SocketAddr::from(([127, 0, 0, 1], 9184))),
            log_format: LogFormat::Text,
            upload_quota: crate::state::UploadQuota::default(),
            real_money_on_simulated_prices: false,
            public_origin: None,
            hash_threads: 1,
            runtime_workers: crate::server::default_runtime_workers(),
            smtp: None,
            rate_limits: true,
            ws: WsConfig::default(),
            listen_limits: crate::http::ListenConfig::default(),
            cluster: None,
        }
    }

    /// Resolves flags and environment over the file over the defaults.
    pub fn resolve(args: Args) -> Result<Config, String> {
        let mut file = read_file(args.config.as_deref())?;
        let defaults = Config::for_data_dir(PathBuf::from("data"));
        let smtp = smtp_config(&args, file.smtp.take().unwrap_or_default());
        let cluster = if args.cluster || file.cluster.unwrap_or(false) {
            Some(cluster_options(
                args.node_id.or(file.node_id),
                args.peers.or(file.peers),
                args.cluster_listen.or(file.cluster_listen),
                args.cluster_secret.or(file.cluster_secret),
                args.peer_apis.or(file.peer_apis),
                args.cluster_snapshot_every.or(file.cluster_snapshot_every),
            )?)
        } else {
            None
        };
        Ok(Config {
            cluster,
            listen: args.listen.or(file.listen).unwrap_or(defaults.listen),
            data_dir: args.data_dir.or(file.data_dir).unwrap_or(defaults.data_dir),
            admin_username: args
                .admin_username
                .or(file.admin_username)
                .unwrap_or(defaults.admin_username),
            admin_password: args.admin_password.or(file.admin_password),
            feeds: if args.feeds.is_empty() { file.feeds.unwrap_or_default() } else { args.feeds },
            sim_seed: args.sim_seed.or(file.sim_seed),
            tick_archive_days: args.tick_archive_days.or(file.tick_archive_days).unwrap_or(0),
            log_format: log_format(args.log_format.or(file.log_format).as_deref())?,
            upload_quota: crate::state::UploadQuota {
                files: args
                    .upload_files_per_user
                    .or(file.upload_files_per_user)
                    .unwrap_or(defaults.upload_quota.files),
                bytes: args
                    .upload_megabytes_per_user
                    .or(file.upload_megabytes_per_user)
                    .map_or(defaults.upload_quota.bytes, |mb| mb.saturating_mul(1024 * 1024)),
            },
            metrics_listen: metrics_listen(
                args.metrics_listen.or(file.metrics_listen).as_deref(),
                defaults.metrics_listen,
            )?,
            real_money_on_simulated_prices: args.allow_real_money_on_simulated_prices
                || file.allow_real_money_on_simulated_prices.unwrap_or(false),
            public_origin: match args.public_origin.or(file.public_origin) {
                Some(origin) => Some(public_origin(&origin)?),
                None => None,
            },
            hash_threads: args
                .hash_threads
                .or(file.hash_threads)
                .unwrap_or(defaults.hash_threads)
                .clamp(1, 64),
            runtime_workers: args
                .runtime_workers
                .or(file.runtime_workers)
                .unwrap_or(defaults.runtime_workers)
                .clamp(1, RUNTIME_WORKERS_MAX),
            smtp,
            rate_limits: !args.no_rate_limits,
            ws: ws_config(
                args.ws_messages_per_second.or(file.ws_messages_per_second),
                args.ws_connections_max.or(file.ws_connections_max),
                args.ws_connections_per_ip_max.or(file.ws_connections_per_ip_max),
            ),
            listen_limits: listen_limits(
                args.http_head_timeout_secs.or(file.http_head_timeout_secs),
                args.http_connections_per_ip_max.or(file.http_connections_per_ip_max),
                defaults.listen_limits,
            ),
        })
    }
}

/// The configuration file's settings, or none without a file.
fn read_file(path: Option<&std::path::Path>) -> Result<FileConfig, String> {
    let Some(path) = path else { return Ok(FileConfig::default()) };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Mail delivery, flags over the file; none without a host (codes go to the outbox file).
fn smtp_config(args: &Args, file: SmtpConfig) -> Option<SmtpConfig> {
    let host = args.smtp_host.clone().or(Some(file.host).filter(|h| !h.is_empty()))?;
    Some(SmtpConfig {
        host,
        port: args.smtp_port.or(Some(file.port).filter(|p| *p != 0)).unwrap_or(587),
        security: args
            .smtp_security
            .clone()
            .or(Some(file.security).filter(|s| !s.is_empty()))
            .unwrap_or_else(|| "starttls".into()),
        username: args.smtp_username.clone().or(file.username),
        password: args.smtp_password.clone().or(file.password),
        from: args
            .smtp_from
            .clone()
            .or(Some(file.from).filter(|s| !s.is_empty()))
            .unwrap_or_else(|| "Trading Pro <no-reply@localhost>".into()),
    })
}

/// `--log-format`: text (the default) or json.
fn log_format(value: Option<&str>) -> Result<LogFormat, String> {
    match value {
        None | Some("text") => Ok(LogFormat::Text),
        Some("json") => Ok(LogFormat::Json),
        Some(other) => Err(format!("--log-format {other}: use text or json")),
    }
}

/// `--metrics-listen`: an address, `none`, or the default.
fn metrics_listen(
    value: Option<&str>,
    default: Option<SocketAddr>,
) -> Result<Option<SocketAddr>, String> {
    match value {
        None => Ok(default),
        Some("none") => Ok(None),
        Some(address) => address
            .parse()
            .map(Some)
            .map_err(|_| format!("--metrics-listen {address}: not an address")),
    }
}

/// The HTTP listener's limits: at least a second for a request head, at least one connection
/// per address.
fn listen_limits(
    head_timeout_secs: Option<u64>,
    connections_per_ip_max: Option<usize>,
    defaults: crate::http::ListenConfig,
) -> crate::http::ListenConfig {
    crate::http::ListenConfig {
        head_timeout: head_timeout_secs
            .map_or(defaults.head_timeout, |s| std::time::Duration::from_secs(s.max(1))),
        connections_per_ip_max: connections_per_ip_max
            .unwrap_or(defaults.connections_per_ip_max)
            .max(1),
        ..defaults
    }
}

/// An origin as invitation links use it: `http(s)://host[:port]`, without a path.
fn public_origin(origin: &str) -> Result<String, String> {
    let origin = origin.trim().trim_end_matches('/');
    let rest = origin.strip_prefix("https://").or_else(|| origin.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !host.contains(['/', '?', '#', ' ']) => {
            Ok(origin.to_owned())
        }
        _ => Err(format!("--public-origin {origin}: use http(s)://host[:port], without a path")),
    }
}

/// The cluster options, checked: an id among the members, at least three members with
/// addresses, and a secret of at least 16 characters.
fn cluster_options(
    node_id: Option<u64>,
    peers: Option<String>,
    listen: Option<SocketAddr>,
    secret: Option<String>,
    peer_apis: Option<String>,
    snapshot_every_entries: Option<u64>,
) -> Result<crate::durable::ClusterOptions, String> {
    let node_id = node_id.ok_or("--cluster needs --node-id")?;
    let peers = peers.ok_or("--cluster needs --peers ID=HOST:PORT,...")?;
    let mut members = std::collections::BTreeMap::new();
    for peer in peers.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (id, addr) = peer.split_once('=').ok_or(format!("--peers {peer}: use ID=HOST:PORT"))?;
        let id: u64 =
            id.trim().parse().map_err(|_| format!("--peers {peer}: the id is a number"))?;
        if members.insert(id, addr.trim().to_owned()).is_some() {
            return Err(format!("--peers: node {id} is named twice"));
        }
    }
    if members.len() < 3 {
        return Err("--peers: a cluster needs at least three members".into());
    }
    let own = members.get(&node_id).ok_or(format!("--node-id {node_id} is not in --peers"))?;
    let listen = match listen {
        Some(listen) => listen,
        None => own
            .parse()
            .map_err(|_| format!("--peers {own}: give --cluster-listen for a host name"))?,
    };
    let secret = secret.ok_or("--cluster needs --cluster-secret (or TRADING_CLUSTER_SECRET)")?;
    if secret.chars().count() < 16 {
        return Err("--cluster-secret: use at least 16 characters".into());
    }
    let mut apis = std::collections::BTreeMap::new();
    for peer in peer_apis.iter().flat_map(|p| p.split(',')).map(str::trim).filter(|p| !p.is_empty())
    {
        let (id, url) = peer.split_once('=').ok_or(format!("--peer-apis {peer}: use ID=URL"))?;
        let id: u64 =
            id.trim().parse().map_err(|_| format!("--peer-apis {peer}: the id is a number"))?;
        let url = url.trim().trim_end_matches('/');
        if !(url.starts_with("http://") || url.starts_with("https://"))
            || !members.contains_key(&id)
        {
            return Err(format!("--peer-apis {peer}: a member id and an http(s) address"));
        }
        apis.insert(id, url.to_owned());
    }
    Ok(crate::durable::ClusterOptions {
        node_id,
        listen,
        members,
        secret,
        peer_apis: apis,
        snapshot_every_entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_workers_come_from_the_command_line_then_the_file_then_the_machine() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("server.toml");
        std::fs::write(&file, "runtime_workers = 3\n").unwrap();
        let workers = |config: Option<&std::path::Path>, flag: Option<usize>| {
            let args =
                Args { config: config.map(Into::into), runtime_workers: flag, ..Args::default() };
            Config::resolve(args).unwrap().runtime_workers
        };
        assert_eq!(workers(None, None), crate::server::default_runtime_workers());
        assert!(workers(None, None) >= 2);
        assert_eq!(workers(Some(&file), None), 3);
        assert_eq!(workers(Some(&file), Some(5)), 5);
        assert_eq!(workers(None, Some(0)), 1, "at least one worker");
        assert_eq!(workers(None, Some(100_000)), RUNTIME_WORKERS_MAX);
    }
}
