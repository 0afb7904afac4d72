//! The baseline for the websocket load generator: a plain fastwebsockets echo server on hyper,
//! with nothing behind it. Orders sent to it come straight back, so the load generator's
//! figures against it are the cost of the client, the loopback and the websocket framing alone.
//!
//! ```text
//! cargo run --release -p benches --bin ws-echo -- [listen address, default 127.0.0.1:9001]
//! ```

use std::net::SocketAddr;

use fastwebsockets::{upgrade, OpCode, WebSocketError};
use http_body_util::Empty;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;

async fn echo(socket: upgrade::UpgradeFut) -> Result<(), WebSocketError> {
    let mut ws = socket.await?;
    loop {
        let frame = ws.read_frame().await?;
        match frame.opcode {
            OpCode::Close => return Ok(()),
            OpCode::Text | OpCode::Binary => ws.write_frame(frame).await?,
            _ => {}
        }
    }
}

async fn handle(mut request: Request<Incoming>) -> Result<Response<Empty<Bytes>>, WebSocketError> {
    let (response, socket) = upgrade::upgrade(&mut request)?;
    tokio::spawn(async move {
        let _ = echo(socket).await;
    });
    Ok(response)
}

fn main() -> std::io::Result<()> {
    let listen: SocketAddr = std::env::args()
        .nth(1)
        .map_or(Ok(SocketAddr::from(([127, 0, 0, 1], 9001))), |a| a.parse())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // The same two workers as the trading server's runtime.
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        println!("ws-echo listening on {}", listener.local_addr()?);
        loop {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            tokio::spawn(async move {
                let io = TokioIo::new(stream);
                let service = service_fn(handle);
                let _ = http1::Builder::new().serve_connection(io, service).with_upgrades().await;
            });
        }
    })
}
