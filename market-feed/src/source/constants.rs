//! Every bound of the price sources, in one place. Units come last in the names.

/// Simulated ticks per second per symbol when the configuration does not say.
pub const SIM_TICKS_PER_SECOND_DEFAULT: u32 = 4;
/// Most simulated ticks per second per symbol: beyond this the engine would be flooded for no
/// realism gained (real venues print a few trades per second on most pairs).
pub const SIM_TICKS_PER_SECOND_MAX: u32 = 50;
/// Each simulated interval is drawn uniformly within this many percent of the nominal one, so
/// symbols do not tick in lock-step.
pub const SIM_INTERVAL_JITTER_PERCENT: u64 = 20;
/// Longest gap a single random-walk step is scaled to: after a weekend close or a stall the
/// price moves like one minute passed, not two days, so a reopen is not a cliff.
pub const SIM_STEP_MAX_MS: u64 = 60_000;
/// Half-life of the walk's weak pull back to the catalogue's start price. Long enough to be
/// invisible over a trading day, short enough that a demo left running for months still shows
/// familiar prices.
pub const SIM_REVERSION_HALF_LIFE_MS: u64 = 90 * 24 * 3_600_000;
/// Longest a closed symbol's walk sleeps before it looks at the clock again (it normally wakes
/// exactly at the reopening; this bounds the damage of a wall-clock jump).
pub const SIM_CLOSED_SLEEP_MAX_MS: u64 = 60_000;

/// Most instruments one source serves (the engine's product cap).
pub const SOURCE_INSTRUMENTS_MAX: usize = 256;

/// Most rows a replay file may hold: the file is validated and kept in memory before the first
/// tick plays (about 60 MB of ticks at this bound). Split larger recordings.
pub const REPLAY_ROWS_MAX: usize = 1_000_000;
/// Fastest replay factor accepted (0 means "as fast as the consumer takes them").
pub const REPLAY_SPEED_MAX: u32 = 100_000;
/// Recorded time inserted between the last row and the first row of the next lap of a looping
/// replay, so the loop neither stalls nor fires two ticks at once.
pub const REPLAY_LOOP_GAP_MS: u64 = 1_000;
/// Latest time (ms) a replay row may carry: 2^53 - 1 (year 287396), so that a candle's
/// spread ticks and a looping replay's laps never run past `u64`.
pub const REPLAY_TIME_MAX_MS: u64 = (1 << 53) - 1;
/// Candle length assumed when a replay file has a single candle per symbol and the length
/// cannot be inferred from consecutive opens (a file of dates without times: one day).
pub const REPLAY_CANDLE_DEFAULT_MS: u64 = 60_000;
/// Largest a replay file may be once decompressed. Rows are parsed as they stream in, so this
/// bounds the work a gzip bomb can cause; memory is bounded by [`REPLAY_ROWS_MAX`] (a year of
/// one-minute Binance klines is about 80 MB).
pub const REPLAY_FILE_BYTES_MAX: u64 = 256 * 1_024 * 1_024;
/// Longest line of a replay file, its newline included (a Binance kline row is about 130 bytes).
pub const REPLAY_LINE_BYTES_MAX: usize = 1_024;
/// Longest candle a replay file may hold: a calendar month (monthly files) or this many ms;
/// only a calendar quarter (quarterly files) is longer.
pub const REPLAY_CANDLE_MAX_MS: u64 = 31 * 24 * 3_600_000;
/// Gaps kept (and logged one by one) per replay file; the rest are only counted.
pub const REPLAY_GAPS_KEPT_MAX: usize = 20;
/// Missing candles of one gap looked at one by one against market hours (a weekend close is
/// not a gap); a longer gap is reported whole.
pub const REPLAY_GAP_SLOTS_CHECKED_MAX: u64 = 10_000;
/// Slack allowed between daily or weekly candles of files with UTC offsets, whose opens move by
/// an hour when daylight saving starts or ends.
pub const REPLAY_DST_SLACK_MS: u64 = 3_600_000;

/// First reconnect delay after a lost exchange connection.
pub const EXCHANGE_BACKOFF_INITIAL_MS: u64 = 500;
/// Longest reconnect delay: the doubling stops here.
pub const EXCHANGE_BACKOFF_MAX_MS: u64 = 30_000;
/// Consecutive failed connection attempts (no market data in between) before the adapter gives
/// up and returns an error; about 8 hours at the longest delay.
pub const EXCHANGE_RECONNECTS_MAX: u32 = 1_000;
/// Binance closes a connection after 24 h; the adapter rotates it before that.
pub const EXCHANGE_CONNECTION_LIFETIME_MS: u64 = 23 * 3_600_000 + 30 * 60_000;
/// A connection with no frame at all (data or ping) for this long is presumed dead. Binance
/// pings every 20 s, so a healthy connection is never this quiet.
pub const EXCHANGE_SILENCE_TIMEOUT_MS: u64 = 30_000;
/// Longest a TCP connect plus websocket handshake may take.
pub const EXCHANGE_CONNECT_TIMEOUT_MS: u64 = 10_000;
/// Binance's limit of streams per connection.
pub const EXCHANGE_STREAMS_MAX: usize = 1_024;
/// Longest the adapter waits for its close frame to go out when stopping or rotating; a dead
/// peer must not hold a stop up.
pub const EXCHANGE_CLOSE_TIMEOUT_MS: u64 = 1_000;
/// Largest websocket message or frame accepted; market-data frames are a few hundred bytes.
pub const EXCHANGE_MESSAGE_BYTES_MAX: usize = 64 * 1_024;
/// Ticks dropped because the consumer was full are logged once per this many.
pub const EXCHANGE_DROPS_LOG_EVERY_COUNT: u64 = 1_000;
/// OKX drops a connection that has been quiet for 30 s; the adapter sends its text `ping`
/// after this much quiet (OKX asks for less than 30 s).
pub const OKX_PING_AFTER_MS: u64 = 20_000;
/// With no frame (the `pong` included) for this long, an OKX connection is presumed dead: 10 s
/// after the adapter's ping, when OKX itself would have closed it.
pub const OKX_SILENCE_TIMEOUT_MS: u64 = 30_000;
/// OKX limits one subscription request to 64 KB of arguments; 300 pairs fit well inside it.
pub const OKX_ARGS_MAX: usize = 300;
