//! Cluster mode in one process: three nodes, each with its own engine thread, WAL and sled
//! snapshots, over real loopback TCP. Commands go through the leader's handle and every node
//! applies them; a follower refuses commands; the leader stops and another takes over; a
//! stopped node restarts from its own disk and catches up.

// A scenario reads as one story from start to end: the line limit is for the product's code.
#![allow(clippy::too_many_lines)]

mod common;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::Kv;
use wal::pipeline::cluster::{ClusterConfig, ClusterMember};
use wal::raft::network::ClusterSecret;
use wal::{Handle, PipelineError, RequestId, StateMachine};

fn free_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

struct Cluster {
    runtime: tokio::runtime::Runtime,
    dir: tempfile::TempDir,
    addrs: BTreeMap<u64, SocketAddr>,
    nodes: BTreeMap<u64, (ClusterMember<Kv>, Handle<Kv>)>,
}

impl Cluster {
    fn new() -> Cluster {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let addrs = (1..=3).map(|id| (id, free_addr())).collect();
        let mut cluster =
            Cluster { runtime, dir: tempfile::tempdir().unwrap(), addrs, nodes: BTreeMap::new() };
        for id in 1..=3 {
            cluster.start(id);
        }
        cluster
    }

    fn start(&mut self, id: u64) {
        let members = self.addrs.iter().map(|(id, addr)| (*id, addr.to_string())).collect();
        let mut config = ClusterConfig::new(
            id,
            self.addrs[&id],
            members,
            ClusterSecret::new("cluster test"),
            self.dir.path().join(format!("node{id}")),
        );
        config.snapshot_every_entries = 40;
        config.catch_up_at_start = Duration::ZERO; // members start one after another here
        config.segment_size_max_bytes = 4096;
        let (node, handle, _) =
            ClusterMember::start(config, self.runtime.handle(), Kv::default, None).unwrap();
        self.nodes.insert(id, (node, handle));
    }

    fn stop(&mut self, id: u64) {
        let (node, _) = self.nodes.remove(&id).unwrap();
        node.shutdown().unwrap();
    }

    /// The leader, once one is elected among the running nodes and has committed its term.
    fn leader(&self) -> u64 {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            for (id, (node, _)) in &self.nodes {
                let status = node.status();
                if status.role == "leader"
                    && status.committed.is_some()
                    && status.committed == status.last_log_index
                {
                    return *id;
                }
            }
            assert!(Instant::now() < deadline, "no leader within 10 s");
            std::thread::park_timeout(Duration::from_millis(20));
        }
    }

    /// (applied commands, state hash) of node `id`.
    fn state(&self, id: u64) -> (u64, u64) {
        self.nodes[&id].1.query(|kv: &Kv| (kv.applied, kv.state_hash())).unwrap()
    }

    /// Waits until every running node has applied `commands` commands; their states.
    fn converged(&self, commands: u64) -> Vec<(u64, u64)> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let states: Vec<_> = self.nodes.keys().map(|id| self.state(*id)).collect();
            if states.iter().all(|s| s.0 >= commands) {
                return states;
            }
            assert!(Instant::now() < deadline, "not converged: {states:?}");
            std::thread::park_timeout(Duration::from_millis(20));
        }
    }
}

fn command(n: u64) -> Vec<u8> {
    format!("k{}=v{n}", n % 11).into_bytes()
}

#[test]
fn commands_through_the_leader_reach_every_node_and_survive_a_failover_and_a_restart() {
    let mut cluster = Cluster::new();
    let leader = cluster.leader();
    let handle = cluster.nodes[&leader].1.clone();
    // Concurrent submitters: the proposer batches them; each reply says where it landed.
    let replies: Vec<_> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|w| {
                let handle = handle.clone();
                scope.spawn(move || {
                    (0..50)
                        .map(|i| handle.submit_blocking(command(w * 50 + i)).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    let mut indexes: Vec<u64> = replies.iter().map(|r| r.meta.index).collect();
    indexes.sort_unstable();
    assert_eq!(
        indexes,
        (1..=200).collect::<Vec<_>>(),
        "every command applied once, numbered 1..=200"
    );
    let states = cluster.converged(200);
    assert!(states.iter().all(|s| *s == states[0]), "equal states on every node: {states:?}");

    // A request id makes a retry safe: the second submission is answered, not applied.
    let first = handle.submit_request_blocking(command(500), Some(RequestId(7))).unwrap();
    match handle.submit_request_blocking(command(500), Some(RequestId(7))) {
        Err(PipelineError::Duplicate { index }) => assert_eq!(index, first.meta.index),
        other => panic!("a retry was applied again: {other:?}"),
    }
    let states = cluster.converged(201);
    assert!(states.iter().all(|s| s.0 == 201), "applied once on every node: {states:?}");

    // A follower refuses commands and names the leader.
    let follower = *cluster.nodes.keys().find(|id| **id != leader).unwrap();
    match cluster.nodes[&follower].1.submit_blocking(command(999)) {
        Err(PipelineError::NotLeader { leader: Some(named) }) => assert_eq!(named, leader),
        other => panic!("a follower accepted or failed otherwise: {other:?}"),
    }

    // The leader stops; another is elected and goes on; time never goes back.
    let before = cluster.nodes[&leader].1.query(|kv: &Kv| kv.applied).unwrap();
    let (events, kept) = {
        let handle = &cluster.nodes[&leader].1;
        (handle.subscribe(1_024).unwrap(), handle.clone())
    };
    cluster.stop(leader);
    // Its subscribers see their stream end although a handle lives on (a gateway waits for
    // that end before it exits).
    loop {
        match events.recv_timeout(Duration::from_secs(10)) {
            Ok(_) => {}
            Err(e) if e.is_disconnected() => break,
            Err(_) => panic!("a stopped member's event stream did not end"),
        }
    }
    drop(kept);
    let next = cluster.leader();
    assert_ne!(next, leader);
    let handle = cluster.nodes[&next].1.clone();
    // The new leader knows the request id too: the retry after the failover is not applied.
    match handle.submit_request_blocking(command(500), Some(RequestId(7))) {
        Err(PipelineError::Duplicate { index }) => assert_eq!(index, first.meta.index),
        other => panic!("a retry after the failover was applied again: {other:?}"),
    }
    let mut last_time = 0;
    for n in 0..30 {
        let reply = handle.submit_blocking(command(1_000 + n)).unwrap();
        assert!(reply.meta.time_ms >= last_time, "time goes on");
        last_time = reply.meta.time_ms;
        assert!(reply.meta.index > before);
    }
    let states = cluster.converged(231);
    assert_eq!(states[0], states[1], "the two survivors agree");

    // The old leader restarts from its own disk (snapshots and log) and catches up.
    cluster.start(leader);
    let recovery = cluster.nodes[&leader].1.recovery().clone();
    assert!(recovery.snapshot_index.is_some(), "restored from its own snapshot: {recovery:?}");
    let states = cluster.converged(231);
    assert!(states.iter().all(|s| *s == states[0]), "the restarted node caught up: {states:?}");
    // Restored from its snapshot and log, it remembers the request id as well.
    match cluster.nodes[&cluster.leader()]
        .1
        .submit_request_blocking(command(500), Some(RequestId(7)))
    {
        Err(PipelineError::Duplicate { index }) => assert_eq!(index, first.meta.index),
        other => panic!("{other:?}"),
    }
    for id in cluster.nodes.keys().copied().collect::<Vec<_>>() {
        cluster.stop(id);
    }
}
