//! The HTTP listener against idle and slow clients, over real sockets from several loopback
//! addresses: connections that send nothing or half a request head are closed after the head
//! timeout, one address cannot hold more than its share, the sockets in all are capped, and a
//! new client is served all the while.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use gateway::http::ListenConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Longest any step below may take; far above what a healthy server needs.
const PATIENCE: Duration = Duration::from_secs(10);

async fn connect_from(source: Ipv4Addr, server: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(IpAddr::V4(source), 0)).unwrap();
    socket.connect(server).await.unwrap()
}

/// Waits until the server closes `stream` (end of file or a reset); false if it stays open.
async fn closed_by_server(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let read = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {} // an answer (a 408 or the like) before the close
            }
        }
    };
    tokio::time::timeout(within, read).await.is_ok()
}

/// Watches every stream at once for `within`: how many the server closed, and those still open.
async fn closed_within(streams: Vec<TcpStream>, within: Duration) -> (usize, Vec<TcpStream>) {
    let mut watching = tokio::task::JoinSet::new();
    for mut stream in streams {
        watching.spawn(async move { (closed_by_server(&mut stream, within).await, stream) });
    }
    let (mut closed, mut open) = (0, Vec::new());
    while let Some(watched) = watching.join_next().await {
        match watched.unwrap() {
            (true, _) => closed += 1,
            (false, stream) => open.push(stream),
        }
    }
    (closed, open)
}

/// `GET /api/health` on a fresh connection, answered with its status line.
async fn health(server: SocketAddr) -> String {
    let mut stream = connect_from(Ipv4Addr::LOCALHOST, server).await;
    let request = "GET /api/health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    answer.lines().next().unwrap_or("").to_owned()
}

#[test]
fn idle_and_half_sent_connections_are_closed_and_a_new_client_is_served() {
    let h = crate::start_with_http(|http| {
        http.listen_limits = ListenConfig {
            head_timeout: Duration::from_secs(3),
            connections_per_ip_max: 20,
            sockets_max: 1_000,
        };
    });
    let server = h.server.http_addr().unwrap();
    h.server.runtime().block_on(async move {
        // Eight addresses, each trying 40 connections: half send nothing, half half a head.
        let mut held = Vec::new();
        for a in 1..=8u8 {
            let source = Ipv4Addr::new(127, 0, 5, a);
            for i in 0..40 {
                let mut stream = connect_from(source, server).await;
                if i % 2 == 1 {
                    stream
                        .write_all(b"GET /api/health HTTP/1.1\r\nHost: slow\r\nX-Slow: ")
                        .await
                        .unwrap();
                }
                held.push(stream);
            }
        }
        // While they are held, a new client is answered.
        let status = tokio::time::timeout(PATIENCE, health(server)).await.expect("health answered");
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        // Past its 20, an address's connections were closed at once; the rest are open.
        let (closed, kept) = closed_within(held, Duration::from_millis(500)).await;
        assert_eq!((closed, kept.len()), (8 * 20, 8 * 20));
        // After the head timeout every idle or half-sent connection is closed.
        let (closed, open) = closed_within(kept, PATIENCE).await;
        assert_eq!((closed, open.len()), (8 * 20, 0), "idle connections stayed open");
        // A keep-alive connection idle between requests is closed the same way.
        let mut stream = connect_from(Ipv4Addr::new(127, 0, 5, 9), server).await;
        stream.write_all(b"GET /api/health HTTP/1.1\r\nHost: test\r\n\r\n").await.unwrap();
        let mut buf = [0u8; 256];
        let n = stream.read(&mut buf).await.unwrap();
        assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
        assert!(closed_by_server(&mut stream, PATIENCE).await, "an idle keep-alive stayed open");
    });
}

#[test]
fn the_sockets_in_all_are_capped_and_given_back() {
    let h = crate::start_with_http(|http| {
        http.listen_limits = ListenConfig {
            head_timeout: Duration::from_secs(3),
            connections_per_ip_max: 1_000,
            sockets_max: 30,
        };
    });
    let server = h.server.http_addr().unwrap();
    h.server.runtime().block_on(async move {
        let mut held = Vec::new();
        for a in 1..=3u8 {
            for _ in 0..10 {
                held.push(connect_from(Ipv4Addr::new(127, 0, 6, a), server).await);
            }
        }
        // The 31st socket is closed at once (well before the head timeout): the cap holds
        // whoever asks.
        let mut extra = connect_from(Ipv4Addr::new(127, 0, 6, 4), server).await;
        assert!(closed_by_server(&mut extra, Duration::from_millis(500)).await);
        // The idle ones time out and give their places back.
        let (closed, _) = closed_within(held, PATIENCE).await;
        assert_eq!(closed, 30);
        let status = tokio::time::timeout(PATIENCE, health(server)).await.expect("health answered");
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    });
}
