//! The listening socket: limits that hold before a request is even read.
//!
//! `axum::serve` has no header-read timeout and no connection cap, so one anonymous client
//! could hold connections until the process ran out of descriptors. Here each accepted
//! connection first takes a slot (a global cap and a cap per address), then hyper's own HTTP/1
//! server reads it with a header-read timeout that also ends idle keep-alive connections.
//! Everything else is axum's router, unchanged.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio_util::task::TaskTracker;
use tower::Service;

use super::config::Config;

/// How many connections the server accepts, and how long a client may take to send headers.
#[derive(Debug, Clone)]
pub struct EdgeLimits {
    /// Open connections in all (WebSockets included); past it new ones get a 503.
    pub max_connections: usize,
    /// Open connections from one address; past it new ones get a 429. Trusted proxies are
    /// exempt: a whole office arrives through them.
    pub max_per_address: usize,
    /// Addresses the per-address cap does not count.
    pub exempt: Vec<IpAddr>,
    /// Time to send a request's headers, and the most a keep-alive connection may sit idle.
    pub header_read_timeout: Duration,
    /// Time to finish graceful shutdown before open connections are dropped.
    pub shutdown_grace: Duration,
}

impl EdgeLimits {
    pub fn from_config(config: &Config) -> Self {
        Self {
            max_connections: config.max_connections,
            max_per_address: config.max_connections_per_address,
            exempt: config.trusted_proxies.clone(),
            header_read_timeout: Duration::from_secs(config.header_read_timeout_secs),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// Raises the soft descriptor limit to the hard one, so the connection cap, not the operating
/// system, decides when the server is full. Returns the limit in force.
pub fn raise_descriptor_limit() -> u64 {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(e) => {
            tracing::warn!(error = %e, "the descriptor limit could not be raised");
            rlimit::getrlimit(rlimit::Resource::NOFILE).map_or(1024, |(soft, _)| soft)
        }
    }
}

/// Serves `router` on `listener` until `shutdown` resolves, then lets open requests finish
/// (up to `limits.shutdown_grace`).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: EdgeLimits,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let per_address = PerAddress::new(limits.max_per_address, limits.exempt.clone());
    let (stop, stopping) = watch::channel(false);
    let tracker = TaskTracker::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let http = Arc::new(http);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors or memory: wait instead of spinning; the connections
                    // already open go on being served.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            refuse(stream, Refusal::ServerFull);
            continue;
        };
        let Some(address_slot) = per_address.take(peer.ip()) else {
            refuse(stream, Refusal::AddressFull);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let connection = Connection {
            router: router.clone(),
            http: http.clone(),
            stopping: stopping.clone(),
            slot: ConnectionSlot(Arc::new((slot, address_slot))),
        };
        tracker.spawn(connection.serve(stream, peer));
    }
    drop(listener);
    let _ = stop.send(true);
    tracker.close();
    if tokio::time::timeout(limits.shutdown_grace, tracker.wait())
        .await
        .is_err()
    {
        tracing::warn!(
            open = tracker.len(),
            "connections still open after the grace period"
        );
    }
    Ok(())
}

/// One accepted connection and the slots it holds until it ends.
struct Connection {
    router: Router,
    http: Arc<hyper::server::conn::http1::Builder>,
    /// Turns true when the server shuts down: finish the request in hand, then close.
    stopping: watch::Receiver<bool>,
    /// Released when the connection ends, or the WebSocket it became (see [`ConnectionSlot`]).
    slot: ConnectionSlot,
}

/// A connection's places in the caps. Each request carries a clone in its extensions, so the
/// WebSocket handler keeps it for as long as the socket lives: an upgraded connection leaves
/// hyper's hands, but it must still count.
#[derive(Clone)]
pub struct ConnectionSlot(#[allow(dead_code)] Arc<(OwnedSemaphorePermit, AddressSlot)>);

impl Connection {
    async fn serve(mut self, stream: TcpStream, peer: SocketAddr) {
        let router = self.router.clone();
        let slot = self.slot.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            // Peer addresses let `--auth proxy` trust only its proxies.
            request.extensions_mut().insert(ConnectInfo(peer));
            request.extensions_mut().insert(slot.clone());
            let mut router = router.clone();
            async move { Ok::<_, Infallible>(router.call(request).await.unwrap_or_else(|e| match e {})) }
        });
        let connection = self
            .http
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades();
        tokio::pin!(connection);
        tokio::select! {
            result = connection.as_mut() => log_end(result),
            _ = async { let _ = self.stopping.wait_for(|stop| *stop).await; } => {
                connection.as_mut().graceful_shutdown();
                log_end(connection.await);
            }
        }
    }
}

fn log_end(result: Result<(), hyper::Error>) {
    if let Err(e) = result {
        // Timeouts and clients that vanish are routine; only the unexpected is worth a line.
        if !(e.is_timeout() || e.is_incomplete_message() || e.is_closed()) {
            tracing::debug!(error = %e, "connection ended with an error");
        }
    }
}

#[derive(Clone, Copy)]
enum Refusal {
    ServerFull,
    AddressFull,
}

/// Answers a connection the server will not serve, without waiting for it: one write that
/// fits in the socket buffer, then close.
fn refuse(stream: TcpStream, refusal: Refusal) {
    let (status, message) = match refusal {
        Refusal::ServerFull => (
            "503 Service Unavailable",
            "The server is at its connection limit; try again shortly.",
        ),
        Refusal::AddressFull => (
            "429 Too Many Requests",
            "Too many connections from your address; close some and try again.",
        ),
    };
    let body = serde_json::json!({ "error": message }).to_string();
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.try_write(response.as_bytes());
    tracing::debug!(status, "connection refused at the edge");
}

/// Open connections per address.
#[derive(Clone)]
struct PerAddress {
    limit: usize,
    exempt: Arc<[IpAddr]>,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl PerAddress {
    fn new(limit: usize, exempt: Vec<IpAddr>) -> Self {
        Self {
            limit,
            exempt: exempt.into(),
            open: Arc::default(),
        }
    }

    fn take(&self, ip: IpAddr) -> Option<AddressSlot> {
        if self.exempt.contains(&ip) {
            return Some(AddressSlot { owner: None, ip });
        }
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let count = open.entry(ip).or_insert(0);
        if *count >= self.limit {
            return None;
        }
        *count += 1;
        Some(AddressSlot {
            owner: Some(self.clone()),
            ip,
        })
    }
}

/// One connection's place in its address's count; given back on drop.
struct AddressSlot {
    /// None for an exempt address, which is not counted.
    owner: Option<PerAddress>,
    ip: IpAddr,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        if let Some(owner) = &self.owner {
            let mut open = owner.open.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(count) = open.get_mut(&self.ip) {
                *count -= 1;
                if *count == 0 {
                    open.remove(&self.ip);
                }
            }
        }
    }
}
