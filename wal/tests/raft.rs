//! The Raft log over our segments and the Raft state machine over a `StateMachine`,
//! checked by openraft's own storage test suite (`openraft::testing::log::Suite`), which
//! appends, reads, truncates, purges, votes, applies and transfers snapshots through them.

mod common;

use std::sync::Arc;

use common::Kv;
use openraft::testing::log::{StoreBuilder, Suite};
use openraft::StorageError;
use tempfile::TempDir;
use wal::raft::{LogStore, MachineStore, TypeConfig};
use wal::FsStorage;

/// Small segments, so that the suite's logs span several of them.
const SEGMENT_BYTES: u64 = 512;

struct Builder;

impl StoreBuilder<TypeConfig, LogStore, MachineStore<Kv>, TempDir> for Builder {
    async fn build(
        &self,
    ) -> Result<(TempDir, LogStore, MachineStore<Kv>), StorageError<TypeConfig>> {
        let dir = tempfile::tempdir().expect("temporary directory");
        let log = LogStore::open(Arc::new(FsStorage), dir.path().join("raft"), SEGMENT_BYTES)
            .expect("open the log");
        Ok((dir, log, MachineStore::new(Kv::default(), None)))
    }
}

#[test]
fn openraft_storage_suite_passes_against_the_wal_adapter() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(Suite::test_all(Builder)).expect("every test of the suite");
}

/// One node of a test cluster: its Raft, its machine, where it listens, its server task.
struct Node {
    id: u64,
    raft: wal::raft::network::Raft<Kv>,
    machine: MachineStore<Kv>,
    addr: std::net::SocketAddr,
    server: tokio::task::JoinHandle<()>,
    /// Dropped with the node: its server stops.
    _stop: tokio::sync::watch::Sender<()>,
    _dir: TempDir,
}

fn secret() -> wal::raft::network::ClusterSecret {
    wal::raft::network::ClusterSecret::new("test cluster secret")
}

async fn start_node(id: u64) -> Node {
    let dir = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let log = LogStore::open(Arc::new(FsStorage), dir.path().join("raft"), 1 << 20).unwrap();
    let machine = MachineStore::new(Kv::default(), None);
    let config = openraft::Config {
        heartbeat_interval: 50,
        election_timeout_min: 300,
        election_timeout_max: 600,
        ..Default::default()
    };
    let config = Arc::new(config.validate().unwrap());
    let network = wal::raft::network::Network::new(id, secret());
    let raft = openraft::Raft::new(id, config, network, log, machine.clone()).await.unwrap();
    let (stop, stopped) = tokio::sync::watch::channel(());
    let server = tokio::spawn(wal::raft::network::serve(listener, raft.clone(), secret(), stopped));
    Node { id, raft, machine, addr, server, _stop: stop, _dir: dir }
}

/// A batch of `count` commands `k{n}=v{n}` at `time_ms`.
fn batch(from: u64, count: u64, time_ms: u64) -> wal::raft::CommandBatch {
    let mut batch = wal::raft::CommandBatch::new(time_ms, 0, from);
    for n in from..from + count {
        batch.push(format!("k{}=v{n}", n % 7).as_bytes());
    }
    batch
}

/// The node that leads among `nodes`, once it has committed its first entry of its term
/// (until then it holds no lease and refuses writes).
async fn leader_of<'n>(nodes: &[&'n Node], not: Option<u64>) -> &'n Node {
    let wait = nodes[0].raft.wait(Some(std::time::Duration::from_secs(10)));
    let leads = |m: &openraft::RaftMetrics<wal::raft::TypeConfig>| {
        m.current_leader.is_some_and(|l| Some(l) != not)
    };
    let id = wait.metrics(leads, "a leader").await.unwrap().current_leader.unwrap();
    let leader = nodes.iter().find(|n| n.id == id).expect("a member leads");
    let wait = leader.raft.wait(Some(std::time::Duration::from_secs(10)));
    let committed = |m: &openraft::RaftMetrics<wal::raft::TypeConfig>| {
        m.current_leader == Some(id)
            && m.last_applied.is_some_and(|a| a.leader_id.term == m.current_term)
    };
    wait.metrics(committed, "the leader's first entry applied").await.unwrap();
    leader
}

/// Waits until every node has applied `log_id`, then returns each node's (applied commands,
/// state hash).
async fn converged(nodes: &[&Node], index: u64) -> Vec<(u64, u64)> {
    let mut states = Vec::new();
    for node in nodes {
        let wait = node.raft.wait(Some(std::time::Duration::from_secs(10)));
        wait.applied_index_at_least(Some(index), "applied").await.unwrap();
        states.push(node.machine.read(|kv| (kv.applied, wal::StateMachine::state_hash(kv))));
    }
    states
}

#[test]
fn three_nodes_over_tcp_replicate_batches_and_fail_over_to_a_new_leader() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let nodes = [start_node(1).await, start_node(2).await, start_node(3).await];
        let members: std::collections::BTreeMap<u64, openraft::impls::BasicNode> =
            nodes.iter().map(|n| (n.id, openraft::impls::BasicNode::new(n.addr))).collect();
        nodes[0].raft.initialize(members).await.unwrap();
        let all: Vec<&Node> = nodes.iter().collect();
        let leader_node = leader_of(&all, None).await;
        let leader = leader_node.id;

        // Twenty batches of five commands through the leader: every node applies all 100, in
        // the same order at the same times, so their states are equal.
        let mut last = None;
        for n in 0..20 {
            let written = leader_node.raft.client_write(batch(n * 5, 5, 1_000 + n)).await.unwrap();
            last = Some(written.log_id);
        }
        let states = converged(&all, last.unwrap().index).await;
        assert_eq!(states[0].0, 100, "every command applied, numbered 1..=100");
        assert!(states.iter().all(|s| *s == states[0]), "equal state hashes: {states:?}");

        // The leader dies: the other two elect a new one, which goes on from the same log.
        leader_node.raft.shutdown().await.unwrap();
        leader_node.server.abort();
        let survivors: Vec<&Node> = nodes.iter().filter(|n| n.id != leader).collect();
        let new_leader = leader_of(&survivors, Some(leader)).await;
        let written = new_leader.raft.client_write(batch(100, 5, 2_000)).await.unwrap();
        let states = converged(&survivors, written.log_id.index).await;
        assert_eq!(states[0].0, 105);
        assert_eq!(states[0], states[1], "the survivors agree");
        for node in &survivors {
            node.raft.shutdown().await.unwrap();
        }
    });
}

#[test]
fn a_connection_without_the_cluster_secret_is_closed_before_any_request() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let node = start_node(1).await;
        let mut stream = tokio::net::TcpStream::connect(node.addr).await.unwrap();
        let mut challenge = [0; 32];
        stream.read_exact(&mut challenge).await.unwrap();
        stream.write_all(&[7; 32]).await.unwrap(); // not HMAC(secret, challenge)
                                                   // A vote request after the wrong answer: the server has closed the connection.
        let _ = stream.write_all(&[9, 0, 0, 0, 2, b'{', b'}', 0, 0]).await;
        let mut rest = Vec::new();
        let read = stream.read_to_end(&mut rest).await;
        assert!(read.is_err() || rest.is_empty(), "no answer to an unproven peer: {rest:?}");
        node.raft.shutdown().await.unwrap();
    });
}

#[test]
fn a_peer_that_does_not_answer_in_time_is_a_timeout_and_a_closed_port_is_unreachable() {
    use openraft::error::RPCError;
    use openraft::network::{RPCOption, RaftNetworkFactory};
    use openraft::RaftNetworkV2;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        // A silent peer: takes the connection and the answer to its challenge, answers nothing.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let silent = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            stream.write_all(&[1; 32]).await.unwrap();
            let mut buffer = [0; 1024];
            while stream.read(&mut buffer).await.is_ok_and(|n| n > 0) {}
        });
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let peers = [(2, silent.to_string()), (3, closed.to_string())].into();
        let mut network = wal::raft::network::Network::with_peers(1, secret(), peers);
        let node = openraft::impls::BasicNode::new("");
        let request = openraft::raft::VoteRequest::new(wal::raft::Vote::new(1, 1), None);
        let option = RPCOption::new(std::time::Duration::from_millis(50));

        // openraft retries a timeout at once and backs off from an unreachable peer.
        let mut to_silent = network.new_client(2, &node).await;
        let slow = to_silent.vote(request.clone(), option.clone()).await.unwrap_err();
        assert!(matches!(slow, RPCError::Timeout(_)), "{slow:?}");
        let mut to_closed = network.new_client(3, &node).await;
        let gone = to_closed.vote(request, option).await.unwrap_err();
        assert!(matches!(gone, RPCError::Unreachable(_)), "{gone:?}");
    });
}
