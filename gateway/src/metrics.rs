//! Prometheus metrics: requests by route and status with latency, orders, and the core's
//! counters, rendered with `prometheus-client`.

use std::sync::Mutex;
use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// Labels of a request.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    route: String,
    status: &'static str,
}

/// The methods the API answers; anything else is one `other` label, so made-up methods cannot
/// grow the label set (or the server's memory).
const METHODS: [&str; 7] = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];
/// The statuses the server sends; anything else is `other`.
const STATUSES: [(u16, &str); 20] = [
    (101, "101"),
    (200, "200"),
    (204, "204"),
    (301, "301"),
    (304, "304"),
    (400, "400"),
    (401, "401"),
    (403, "403"),
    (404, "404"),
    (405, "405"),
    (409, "409"),
    (413, "413"),
    (415, "415"),
    (426, "426"),
    (429, "429"),
    (500, "500"),
    (502, "502"),
    (503, "503"),
    (504, "504"),
    (422, "422"),
];

fn method_label(method: &str) -> &'static str {
    METHODS.iter().find(|m| **m == method).copied().unwrap_or("other")
}

fn status_label(status: u16) -> &'static str {
    STATUSES.iter().find(|(code, _)| *code == status).map_or("other", |(_, label)| label)
}

/// Labels of a latency sample.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
}

/// Labels of a cluster member's role: one of five values.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RoleLabels {
    role: &'static str,
}

/// The roles a member can have.
const ROLES: [&str; 5] = ["leader", "follower", "candidate", "learner", "shutdown"];

/// Labels of a follower's lag: its node id (the configured members only).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FollowerLabels {
    follower: u64,
}

/// Cluster mode: the member's Raft position.
struct ClusterGauges {
    role: Family<RoleLabels, Gauge>,
    term: Gauge,
    leader: Gauge,
    last_log_index: Gauge,
    committed: Gauge,
    applied: Gauge,
    snapshot: Gauge,
    purged: Gauge,
    lag: Family<FollowerLabels, Gauge>,
}

impl ClusterGauges {
    fn register(registry: &mut Registry) -> ClusterGauges {
        let gauges = ClusterGauges {
            role: Family::default(),
            term: Gauge::default(),
            leader: Gauge::default(),
            last_log_index: Gauge::default(),
            committed: Gauge::default(),
            applied: Gauge::default(),
            snapshot: Gauge::default(),
            purged: Gauge::default(),
            lag: Family::default(),
        };
        registry.register(
            "cluster_role",
            "1 for this member's Raft role, 0 for the others",
            gauges.role.clone(),
        );
        registry.register("cluster_term", "Current Raft term", gauges.term.clone());
        registry.register(
            "cluster_leader",
            "Node id of the leader this member knows (0: none)",
            gauges.leader.clone(),
        );
        registry.register(
            "cluster_last_log_index",
            "Last Raft log index held",
            gauges.last_log_index.clone(),
        );
        registry.register("cluster_committed_index", "Raft commit index", gauges.committed.clone());
        registry.register("cluster_applied_index", "Raft index applied", gauges.applied.clone());
        registry.register(
            "cluster_snapshot_index",
            "Last Raft index in this member's newest snapshot",
            gauges.snapshot.clone(),
        );
        registry.register(
            "cluster_purged_index",
            "Last Raft index purged from this member's log",
            gauges.purged.clone(),
        );
        registry.register(
            "cluster_follower_lag",
            "On the leader: entries each follower's log is behind",
            gauges.lag.clone(),
        );
        gauges
    }

    fn set(&self, status: &wal::pipeline::cluster::ClusterStatus) {
        let clamp = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        for role in ROLES {
            self.role.get_or_create(&RoleLabels { role }).set(i64::from(status.role == role));
        }
        self.term.set(clamp(status.term));
        self.leader.set(clamp(status.leader.unwrap_or(0)));
        self.last_log_index.set(clamp(status.last_log_index.unwrap_or(0)));
        self.committed.set(clamp(status.committed.unwrap_or(0)));
        self.applied.set(clamp(status.applied.unwrap_or(0)));
        self.snapshot.set(clamp(status.snapshot.unwrap_or(0)));
        self.purged.set(clamp(status.purged.unwrap_or(0)));
        // Only the leader knows its followers' lag: a former leader's figures go.
        self.lag.clear();
        for (follower, lag) in &status.lag {
            self.lag.get_or_create(&FollowerLabels { follower: *follower }).set(clamp(*lag));
        }
    }
}

/// Every metric.
pub struct Metrics {
    /// The registry (encoding needs it locked).
    registry: Mutex<Registry>,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram, fn() -> Histogram>,
    /// Orders accepted through the API.
    pub orders: Counter,
    commands: Gauge,
    fsyncs: Gauge,
    readmodel_index: Gauge,
    ws_connections: Gauge,
    ws_coalesced: Gauge,
    ws_resyncs: Gauge,
    ws_messages_in: Gauge,
    cluster: ClusterGauges,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_05, 2.0, 16))
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("trading");
        let requests = Family::<RequestLabels, Counter>::default();
        let latency = Family::<RouteLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            latency_histogram,
        );
        let orders = Counter::default();
        let (commands, fsyncs, readmodel_index) =
            (Gauge::default(), Gauge::default(), Gauge::default());
        registry.register("http_requests", "HTTP requests by route and status", requests.clone());
        registry.register("http_request_seconds", "HTTP request latency", latency.clone());
        registry.register("orders_accepted", "Orders accepted over HTTP", orders.clone());
        registry.register("engine_commands", "Commands applied since start", commands.clone());
        registry.register("wal_fsyncs", "fdatasync calls on the log since start", fsyncs.clone());
        let ws = [Gauge::default(), Gauge::default(), Gauge::default(), Gauge::default()];
        registry.register("ws_connections", "Open websocket connections", ws[0].clone());
        registry.register(
            "ws_coalesced",
            "Market frames replaced before a slow client received them",
            ws[1].clone(),
        );
        registry.register("ws_resync_closes", "Websockets closed for resync", ws[2].clone());
        registry.register("ws_messages_in", "Websocket messages read", ws[3].clone());
        registry.register(
            "readmodel_index",
            "Last log index projected into the read model",
            readmodel_index.clone(),
        );
        let cluster = ClusterGauges::register(&mut registry);
        Metrics {
            cluster,
            registry: Mutex::new(registry),
            requests,
            latency,
            orders,
            commands,
            fsyncs,
            readmodel_index,
            ws_connections: ws[0].clone(),
            ws_coalesced: ws[1].clone(),
            ws_resyncs: ws[2].clone(),
            ws_messages_in: ws[3].clone(),
        }
    }
}

/// Every label set is bounded: routes are the router's own templates (`unmatched` for any
/// other path), methods and statuses come from fixed lists (`other` for the rest).
impl Metrics {
    /// Counts a request and its latency.
    pub fn observe_request(&self, method: &str, route: &str, status: u16, elapsed: Duration) {
        let labels = RequestLabels {
            method: method_label(method),
            route: route.to_owned(),
            status: status_label(status),
        };
        self.requests.get_or_create(&labels).inc();
        self.latency
            .get_or_create(&RouteLabels { route: route.to_owned() })
            .observe(elapsed.as_secs_f64());
    }

    /// The text exposition, with the core's counters (and in cluster mode the member's Raft
    /// position) refreshed.
    pub fn render(
        &self,
        stats: &wal::Stats,
        readmodel_index: u64,
        ws: WsFigures,
        cluster: Option<&wal::pipeline::cluster::ClusterStatus>,
    ) -> String {
        if let Some(status) = cluster {
            self.cluster.set(status);
        }
        let clamp = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        self.ws_connections.set(clamp(ws.connections));
        self.ws_coalesced.set(clamp(ws.coalesced));
        self.ws_resyncs.set(clamp(ws.resyncs));
        self.ws_messages_in.set(clamp(ws.messages_in));
        self.commands.set(clamp(stats.commands));
        self.fsyncs.set(clamp(stats.fsyncs));
        self.readmodel_index.set(clamp(readmodel_index));
        let mut out = String::new();
        let registry = self.registry.lock().unwrap_or_else(|p| p.into_inner());
        let _ = encode(&mut out, &registry);
        out
    }
}

/// The websocket's counters at one moment.
#[derive(Debug, Clone, Copy, Default)]
pub struct WsFigures {
    /// Open connections.
    pub connections: u64,
    /// Market frames replaced in a slow client's outbox before they were sent.
    pub coalesced: u64,
    /// Connections closed for resync.
    pub resyncs: u64,
    /// Client messages read.
    pub messages_in: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_up_methods_and_statuses_share_one_label() {
        assert_eq!(method_label("GET"), "GET");
        assert_eq!(method_label(&"X".repeat(60_000)), "other");
        assert_eq!(status_label(429), "429");
        assert_eq!(status_label(599), "other");
    }
}
