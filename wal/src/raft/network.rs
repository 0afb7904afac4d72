//! The transport between nodes: TCP, one connection per peer and purpose, each opened with
//! proof of the shared cluster secret, so an outside connection cannot append, vote or send
//! a snapshot.
//!
//! Opening: the server sends a random 32-byte challenge; the client answers
//! HMAC-SHA256(secret, challenge); a wrong answer closes the connection. Then requests and
//! answers alternate, each a frame `len (u32, LE) ++ kind (u8) ++ payload`:
//!
//! | kind | request | answer |
//! |---|---|---|
//! | 1 append | JSON header (vote, previous log id, commit) ++ entries as log records | JSON response |
//! | 2 vote, 3 pre-vote | JSON request | JSON response |
//! | 4 snapshot | JSON header (vote, meta) ++ the machine's bytes | JSON response |
//!
//! An answer's kind is 0 for success and 1 for an error, whose payload is its text. Entries
//! travel in their record form ([`super::entry`]), not as JSON: a batch's commands are bytes.

use std::future::Future;
use std::io::{self, IoSlice};
use std::sync::Arc;
use std::time::Duration;

use hmac::{Hmac, Mac};
use openraft::error::{
    NetworkError, RPCError, ReplicationClosed, StreamingError, Timeout, Unreachable,
};
use openraft::network::{RPCOption, RPCTypes, RaftNetworkFactory};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, SnapshotResponse, VoteRequest, VoteResponse,
};
use openraft::storage::RaftStateMachine;
use openraft::{OptionalSend, RaftNetworkV2};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sha2::Sha256;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::state_machine::{MachineStore, Snapshot, SnapshotMeta};
use super::{entry, Entry, LogId, TypeConfig, Vote};

/// The largest frame accepted: a snapshot travels in one frame.
pub const FRAME_BYTES_MAX: usize = 1 << 30;
/// How long opening a connection (TCP and the challenge) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// Length of the challenge.
const CHALLENGE_BYTES: usize = 32;

const APPEND: u8 = 1;
const VOTE: u8 = 2;
const PRE_VOTE: u8 = 3;
const SNAPSHOT: u8 = 4;
const OK: u8 = 0;
const ERROR: u8 = 1;

/// A Raft group node of this cluster whose state machine is `M` wrapped in [`MachineStore`].
pub type Raft<M> = openraft::Raft<TypeConfig, MachineStore<M>>;

/// What [`serve`] needs of a state machine: snapshots travel as bytes.
pub trait ServedMachine: RaftStateMachine<TypeConfig, SnapshotData = Vec<u8>> {}
impl<T: RaftStateMachine<TypeConfig, SnapshotData = Vec<u8>>> ServedMachine for T {}

/// The shared secret every node of a cluster is configured with.
#[derive(Clone)]
pub struct ClusterSecret(Arc<[u8]>);

impl std::fmt::Debug for ClusterSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClusterSecret(..)")
    }
}

impl ClusterSecret {
    /// The secret from its text form.
    pub fn new(secret: &str) -> ClusterSecret {
        ClusterSecret(secret.as_bytes().into())
    }

    fn answer(&self, challenge: &[u8]) -> Vec<u8> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(challenge);
        mac.finalize().into_bytes().to_vec()
    }

    fn verify(&self, challenge: &[u8], answer: &[u8]) -> bool {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(challenge);
        mac.verify_slice(answer).is_ok()
    }
}

#[derive(Serialize, Deserialize)]
struct AppendHeader {
    vote: Vote,
    prev_log_id: Option<LogId>,
    leader_commit: Option<LogId>,
}

#[derive(Serialize, Deserialize)]
struct SnapshotHeader {
    vote: Vote,
    meta: SnapshotMeta,
}

async fn write_frame(stream: &mut TcpStream, kind: u8, parts: &[&[u8]]) -> io::Result<()> {
    let len: usize = 1 + parts.iter().map(|p| p.len()).sum::<usize>();
    if len > FRAME_BYTES_MAX {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "frame too large"));
    }
    let mut head = [0; 5];
    head[..4].copy_from_slice(&(len as u32).to_le_bytes());
    head[4] = kind;
    // One vectored write for the head and the parts, without copying them together.
    let mut slices: Vec<IoSlice<'_>> =
        std::iter::once(&head[..]).chain(parts.iter().copied()).map(IoSlice::new).collect();
    let mut slices = &mut slices[..];
    while !slices.is_empty() {
        let written = stream.write_vectored(slices).await?;
        if written == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        IoSlice::advance_slices(&mut slices, written);
    }
    stream.flush().await
}

async fn read_frame(stream: &mut TcpStream) -> io::Result<(u8, Vec<u8>)> {
    let len = stream.read_u32_le().await? as usize;
    if len == 0 || len > FRAME_BYTES_MAX {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "bad frame length"));
    }
    let kind = stream.read_u8().await?;
    // Read into the vector's spare room: no zeroing of a buffer about to be overwritten.
    let mut payload = Vec::with_capacity(len - 1);
    while payload.len() < len - 1 {
        let left = (len - 1 - payload.len()) as u64;
        if (&mut *stream).take(left).read_buf(&mut payload).await? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
    }
    Ok((kind, payload))
}

/// `header` as JSON, length-prefixed: the first part of a request whose bytes follow it.
fn header_part(header: &impl Serialize) -> io::Result<Vec<u8>> {
    let json = serde_json::to_vec(header).map_err(io::Error::other)?;
    let mut out = Vec::with_capacity(4 + json.len());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    Ok(out)
}

fn split_header<H: DeserializeOwned>(bytes: &[u8]) -> io::Result<(H, &[u8])> {
    let bad = || io::Error::new(io::ErrorKind::InvalidData, "bad header");
    let (len, rest) = bytes.split_first_chunk::<4>().ok_or_else(bad)?;
    let (json, rest) = rest.split_at_checked(u32::from_le_bytes(*len) as usize).ok_or_else(bad)?;
    Ok((serde_json::from_slice(json).map_err(io::Error::other)?, rest))
}

/// Entries as back-to-back records (the log's own framing and checksum), each encoded
/// straight into the one buffer.
fn encode_entries(entries: &[Entry]) -> io::Result<Vec<u8>> {
    let len: usize = entries.iter().map(|e| entry::payload_len_hint(e) + 64).sum();
    let mut out = Vec::with_capacity(len);
    let mut time = 0;
    for entry in entries {
        let meta = entry::meta(entry, time);
        time = meta.time_ms;
        crate::record::encode_with(meta, &mut out, |payload| entry::encode_payload(entry, payload))
            .map_err(io::Error::other)?;
    }
    Ok(out)
}

fn decode_entries(mut bytes: &[u8]) -> io::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    while !bytes.is_empty() {
        let record = crate::record::decode(bytes).map_err(io::Error::other)?;
        entries.push(entry::decode(record.meta, record.payload).map_err(io::Error::other)?);
        bytes = &bytes[record.framed_len..];
    }
    Ok(entries)
}

/// Opens connections to peers.
#[derive(Clone, Debug)]
pub struct Network {
    /// This node's id (a timed-out call names it).
    id: u64,
    secret: ClusterSecret,
    /// Where this node reaches each peer, from its own configuration: it may differ from the
    /// address in the membership (a proxy, another interface).
    peers: std::collections::BTreeMap<u64, String>,
}

impl Network {
    /// Node `id`'s connections proving `secret`, to the addresses in the membership.
    pub fn new(id: u64, secret: ClusterSecret) -> Network {
        Network { id, secret, peers: std::collections::BTreeMap::new() }
    }

    /// Node `id`'s connections proving `secret`, to `peers` (id → address) first.
    pub fn with_peers(
        id: u64,
        secret: ClusterSecret,
        peers: std::collections::BTreeMap<u64, String>,
    ) -> Network {
        Network { id, secret, peers }
    }
}

impl RaftNetworkFactory<TypeConfig> for Network {
    type Network = Connection;

    async fn new_client(&mut self, target: u64, node: &openraft::impls::BasicNode) -> Connection {
        let addr = self.peers.get(&target).cloned().unwrap_or_else(|| node.addr.clone());
        let secret = self.secret.clone();
        Connection {
            id: self.id,
            target,
            addr,
            secret,
            stream: None,
            failures: Failures::default(),
        }
    }
}

/// One connection to a peer, opened on first use and again after a failure.
#[derive(Debug)]
pub struct Connection {
    id: u64,
    target: u64,
    addr: String,
    secret: ClusterSecret,
    stream: Option<TcpStream>,
    /// Failed calls, for a warning every [`FAILURE_LOG_PERIOD`] rather than every call.
    failures: Failures,
}

/// A peer's failures are logged at most this often (openraft retries every 50 ms: a down
/// peer filled the log with hundreds of lines a minute).
const FAILURE_LOG_PERIOD: Duration = Duration::from_secs(10);

/// Failed calls to one peer since the last line about them.
#[derive(Debug, Default)]
struct Failures {
    /// Since the last line.
    count: u64,
    /// When the last line was written.
    logged: Option<std::time::Instant>,
}

impl Connection {
    async fn open(&mut self) -> io::Result<&mut TcpStream> {
        if self.stream.is_none() {
            let opening = async {
                let mut stream = TcpStream::connect(&self.addr).await?;
                stream.set_nodelay(true)?;
                let mut challenge = [0; CHALLENGE_BYTES];
                stream.read_exact(&mut challenge).await?;
                stream.write_all(&self.secret.answer(&challenge)).await?;
                Ok::<_, io::Error>(stream)
            };
            let timed = tokio::time::timeout(CONNECT_TIMEOUT, opening).await;
            let stream =
                timed.map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connect"))??;
            self.stream = Some(stream);
        }
        Ok(self.stream.as_mut().expect("just opened"))
    }

    /// Sends one request and reads its answer within `ttl`; any failure drops the connection.
    async fn call(&mut self, kind: u8, parts: &[&[u8]], ttl: Duration) -> io::Result<Vec<u8>> {
        let exchange = async {
            let stream = self.open().await?;
            write_frame(stream, kind, parts).await?;
            let (status, answer) = read_frame(stream).await?;
            match status {
                OK => Ok(answer),
                _ => Err(io::Error::other(String::from_utf8_lossy(&answer).into_owned())),
            }
        };
        let result = match tokio::time::timeout(ttl, exchange).await {
            Ok(result) => result,
            Err(_) => Err(io::Error::new(io::ErrorKind::TimedOut, "no answer in time")),
        };
        match &result {
            Err(error) => {
                self.stream = None;
                let failures = &mut self.failures;
                failures.count += 1;
                if failures.logged.is_none_or(|at| at.elapsed() >= FAILURE_LOG_PERIOD) {
                    let (peer, count) = (self.target, failures.count);
                    tracing::warn!(peer, address = %self.addr, failed_calls = count, %error, "a cluster peer does not answer");
                    failures.count = 0;
                    failures.logged = Some(std::time::Instant::now());
                }
            }
            Ok(_) if self.failures.logged.is_some() => {
                tracing::info!(peer = self.target, "a cluster peer answers again");
                self.failures = Failures::default();
            }
            Ok(_) => {}
        }
        result
    }

    async fn call_json<Req: Serialize, Resp: DeserializeOwned>(
        &mut self,
        kind: u8,
        request: &Req,
        ttl: Duration,
    ) -> Result<Resp, RPCError<TypeConfig>> {
        let payload = serde_json::to_vec(request).map_err(|e| network_error(&e))?;
        let answer = self
            .call(kind, &[&payload], ttl)
            .await
            .map_err(|e| self.failed(&e, RPCTypes::Vote, ttl))?;
        serde_json::from_slice(&answer).map_err(|e| network_error(&e))
    }

    /// A failed call as openraft needs to know it: a peer that did not answer within `ttl` is
    /// a timeout (retried at once: a slow sync, a busy peer); one that cannot be reached is
    /// unreachable (openraft backs off before trying it again).
    fn failed(&self, error: &io::Error, action: RPCTypes, ttl: Duration) -> RPCError<TypeConfig> {
        if error.kind() == io::ErrorKind::TimedOut {
            let (id, target) = (self.id, self.target);
            return RPCError::Timeout(Timeout { action, id, target, timeout: ttl });
        }
        let text = format!("node {} at {}: {error}", self.target, self.addr);
        RPCError::Unreachable(Unreachable::from_string(text))
    }
}

fn network_error(error: &(impl std::error::Error + 'static)) -> RPCError<TypeConfig> {
    RPCError::Network(NetworkError::new(error))
}

impl RaftNetworkV2<TypeConfig> for Connection {
    type SnapshotData = Vec<u8>;

    async fn append_entries(
        &mut self,
        rpc: AppendEntriesRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<AppendEntriesResponse<TypeConfig>, RPCError<TypeConfig>> {
        let header = AppendHeader {
            vote: rpc.vote,
            prev_log_id: rpc.prev_log_id,
            leader_commit: rpc.leader_commit,
        };
        let entries = encode_entries(&rpc.entries).map_err(|e| network_error(&e))?;
        let header = header_part(&header).map_err(|e| network_error(&e))?;
        let ttl = option.hard_ttl();
        let answer = self
            .call(APPEND, &[&header, &entries], ttl)
            .await
            .map_err(|e| self.failed(&e, RPCTypes::AppendEntries, ttl))?;
        serde_json::from_slice(&answer).map_err(|e| network_error(&e))
    }

    async fn vote(
        &mut self,
        rpc: VoteRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<VoteResponse<TypeConfig>, RPCError<TypeConfig>> {
        self.call_json(VOTE, &rpc, option.hard_ttl()).await
    }

    async fn pre_vote(
        &mut self,
        rpc: VoteRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<VoteResponse<TypeConfig>, RPCError<TypeConfig>> {
        self.call_json(PRE_VOTE, &rpc, option.hard_ttl()).await
    }

    async fn full_snapshot(
        &mut self,
        vote: Vote,
        snapshot: Snapshot,
        cancel: impl Future<Output = ReplicationClosed> + OptionalSend + 'static,
        option: RPCOption,
    ) -> Result<SnapshotResponse<TypeConfig>, StreamingError<TypeConfig>> {
        let header = SnapshotHeader { vote, meta: snapshot.meta };
        let header =
            header_part(&header).map_err(|e| StreamingError::Network(NetworkError::new(&e)))?;
        // A snapshot may be large: it gets the hard time limit several times over.
        let ttl = option.hard_ttl().saturating_mul(10);
        let parts: [&[u8]; 2] = [&header, &snapshot.snapshot];
        let send = self.call(SNAPSHOT, &parts, ttl);
        let answer = tokio::select! {
            closed = cancel => return Err(StreamingError::Closed(closed)),
            answer = send => answer,
        };
        let answer = answer.map_err(|e| StreamingError::Unreachable(Unreachable::new(&e)))?;
        serde_json::from_slice(&answer).map_err(|e| StreamingError::Network(NetworkError::new(&e)))
    }
}

/// Serves peers on `listener` until `stop` changes (or its sender is dropped): each connection must prove the
/// secret, then its requests go to `raft`. At the stop, every connection's task has ended when
/// this returns, so that none hands a request to a Raft being shut down (openraft logs that as
/// an error).
pub async fn serve<SM: ServedMachine>(
    listener: TcpListener,
    raft: openraft::Raft<TypeConfig, SM>,
    secret: ClusterSecret,
    mut stop: tokio::sync::watch::Receiver<()>,
) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            _ = stop.changed() => break,
            accepted = listener.accept() => accepted,
        };
        while connections.try_join_next().is_some() {} // forget the ended ones
        let Ok((stream, peer)) = accepted else { continue };
        let (raft, secret) = (raft.clone(), secret.clone());
        connections.spawn(async move {
            if let Err(error) = serve_connection(stream, &raft, &secret).await {
                if error.kind() != io::ErrorKind::UnexpectedEof {
                    tracing::debug!(%peer, %error, "cluster connection ended");
                }
            }
        });
    }
    connections.shutdown().await;
}

async fn serve_connection<SM: ServedMachine>(
    mut stream: TcpStream,
    raft: &openraft::Raft<TypeConfig, SM>,
    secret: &ClusterSecret,
) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let challenge: [u8; CHALLENGE_BYTES] = rand::random();
    stream.write_all(&challenge).await?;
    let mut answer = [0; 32];
    tokio::time::timeout(CONNECT_TIMEOUT, stream.read_exact(&mut answer))
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no answer to the challenge"))??;
    if !secret.verify(&challenge, &answer) {
        tracing::warn!(peer = ?stream.peer_addr().ok(), "a cluster connection without the secret was refused");
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, "wrong cluster secret"));
    }
    loop {
        let (kind, payload) = read_frame(&mut stream).await?;
        match handle(raft, kind, &payload).await {
            Ok(answer) => write_frame(&mut stream, OK, &[&answer]).await?,
            Err(error) => write_frame(&mut stream, ERROR, &[error.to_string().as_bytes()]).await?,
        }
    }
}

async fn handle<SM: ServedMachine>(
    raft: &openraft::Raft<TypeConfig, SM>,
    kind: u8,
    payload: &[u8],
) -> io::Result<Vec<u8>> {
    match kind {
        APPEND => {
            let (header, entries): (AppendHeader, _) = split_header(payload)?;
            let rpc = AppendEntriesRequest {
                vote: header.vote,
                prev_log_id: header.prev_log_id,
                entries: decode_entries(entries)?,
                leader_commit: header.leader_commit,
            };
            json(&raft.append_entries(rpc).await.map_err(io::Error::other)?)
        }
        VOTE => {
            let rpc = serde_json::from_slice(payload).map_err(io::Error::other)?;
            json(&raft.vote(rpc).await.map_err(io::Error::other)?)
        }
        PRE_VOTE => {
            let rpc = serde_json::from_slice(payload).map_err(io::Error::other)?;
            json(&raft.pre_vote(rpc).await.map_err(io::Error::other)?)
        }
        SNAPSHOT => {
            let (header, bytes): (SnapshotHeader, _) = split_header(payload)?;
            let snapshot = Snapshot { meta: header.meta, snapshot: bytes.to_vec() };
            json(
                &raft
                    .install_full_snapshot(header.vote, snapshot)
                    .await
                    .map_err(io::Error::other)?,
            )
        }
        other => {
            Err(io::Error::new(io::ErrorKind::InvalidData, format!("unknown request {other}")))
        }
    }
}

fn json(value: &impl Serialize) -> io::Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(io::Error::other)
}
