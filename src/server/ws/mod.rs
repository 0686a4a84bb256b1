//! The AGORA AG-UI WebSocket endpoint: one reader, one writer and a queue bounded in bytes per
//! socket.
//!
//! The reader turns frames into runs, approval decisions and cancels; every bad frame gets an
//! `agora:error` and the socket stays usable. The writer drains the queue the runs fill, so a
//! slow browser slows only its own runs, and a browser that stops reading is closed (4008)
//! before it costs more than the queue's byte limit.
//!
//! Lifecycle: whichever half ends first ends the other. The reader stops on a close from the
//! client, the idle timeout (4002), a revocation (4001: signed out, account disabled, password
//! changed) or the writer's end; the writer stops on a close request from the reader, an
//! overflowing queue or a send that does not complete (4008). Every close is itself bounded in
//! time, so the TCP connection is gone within seconds of the decision.

mod connection;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message as Frame, WebSocket, WebSocketUpgrade};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use futures::stream::SplitSink;
use futures::{SinkExt, StreamExt};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use self::connection::Connection;
use super::auth::CurrentUser;
use super::command::{Caller, Refusal};
use super::edge::ConnectionSlot;
use super::error::AppError;
use super::state::AppState;
use crate::orchestrator::Outbox;
use crate::orchestrator::outbox::OutboxReceiver;
use crate::protocol::{Dialect, ErrorCode, Lang};

/// Frames above this are answered with `agora:error` (the protocol's limit), not counting the
/// inline photos of a message (issue 37), which have limits of their own.
const MAX_FRAME_BYTES: usize = 1 << 20;
/// Frames above this, plus what one message's photos may take as base64
/// ([`crate::server::photos::PhotoLimits::wire_allowance`]), close the socket: reading them
/// at all would cost too much.
const HARD_FRAME_BYTES: usize = 2 << 20;
/// What a socket reads from the kernel at a time. Client frames are small (a message, an
/// approval): tungstenite's default of 128 KiB, allocated up front, was most of an idle
/// socket's memory (139 KiB a socket, measured with `make bench-load`); a rare large frame is
/// read in more steps.
const READ_BUFFER_BYTES: usize = 4 << 10;
/// Outgoing bytes gathered before a write; every send flushes anyway, so this only bounds what
/// one write holds.
const WRITE_BUFFER_BYTES: usize = 8 << 10;
const PING_EVERY: Duration = Duration::from_secs(20);
/// RFC 6455's "message too big", for a frame past [`HARD_FRAME_BYTES`].
const CLOSE_TOO_BIG: u16 = 1009;
/// The most a close handshake may take; a client that does not answer is simply dropped.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);
/// The close codes (`protocol::agora::close`), under the names the server uses.
pub use crate::protocol::agora::close::{
    IDLE as CLOSE_IDLE, TOO_MANY_SOCKETS as CLOSE_TOO_MANY_SOCKETS, TOO_SLOW as CLOSE_TOO_SLOW,
    UNAUTHORIZED as CLOSE_UNAUTHORIZED,
};

static NEXT_CONNECTION: AtomicU64 = AtomicU64::new(1);

pub async fn upgrade(
    ws: WebSocketUpgrade,
    State(state): State<AppState>,
    parts: Parts,
) -> Response {
    if !super::security::origin_allowed(&parts.headers, &state.config.allowed_origins) {
        tracing::warn!("WebSocket from a foreign origin refused");
        return AppError::Forbidden("this origin may not open the socket".to_owned())
            .into_response();
    }
    // The connection's place under the edge caps lives as long as the socket does.
    let slot = parts.extensions.get::<ConnectionSlot>().cloned();
    // A browser cannot read an HTTP status of a failed upgrade, so a refused sign-in is a
    // close code the client can act on.
    let user = state.auth.identify(state.db.as_ref(), &parts).await.ok();
    let lang = Caller::lang_of(&parts.headers, Dialect::Agora);
    let hard_limit = HARD_FRAME_BYTES + state.config.photo_limits().wire_allowance();
    ws.max_message_size(hard_limit)
        .max_frame_size(hard_limit)
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(WRITE_BUFFER_BYTES)
        .on_upgrade(move |socket| async move {
            match user {
                Some(user) => serve_socket(socket, state, user, lang).await,
                None => close_with(socket, CLOSE_UNAUTHORIZED, "unauthorized").await,
            }
            drop(slot);
        })
}

/// Closes a socket that is refused before it starts.
async fn close_with(mut socket: WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    let _ = tokio::time::timeout(CLOSE_TIMEOUT, socket.send(Frame::Close(Some(frame)))).await;
}

async fn serve_socket(socket: WebSocket, state: AppState, user: CurrentUser, lang: Lang) {
    let connection_id = NEXT_CONNECTION.fetch_add(1, Ordering::Relaxed);
    let Ok((registration, mut revoked)) =
        state
            .sockets
            .register(&user.id, connection_id, user.session.clone())
    else {
        tracing::warn!(user = %user.id, "too many sockets for one user; refused");
        return close_with(socket, CLOSE_TOO_MANY_SOCKETS, "too many sockets").await;
    };
    let (sink, mut stream) = socket.split();
    let queue_bytes = usize::try_from(state.config.socket_queue_bytes).unwrap_or(usize::MAX);
    let (events, queue) = Outbox::channel(queue_bytes);
    // The reader asks the writer to close with a code; dropping the sender without one asks
    // it to stop quietly (the client closed).
    let (close, close_requested) = oneshot::channel::<CloseFrame>();
    let writer_done = CancellationToken::new();
    let history_pending = Arc::new(AtomicBool::new(false));
    let writer = tokio::spawn(write_loop(Writer {
        sink,
        queue,
        close_requested,
        history_pending: history_pending.clone(),
        done: writer_done.clone(),
        send_timeout: Duration::from_secs(state.config.socket_send_timeout_secs),
        connection_id,
    }));

    let connection = Connection {
        caller: Caller::new(&state, user, connection_id, Dialect::Agora, lang),
        state: &state,
        events: events.clone(),
        history_pending,
    };
    let idle_timeout = Duration::from_secs(state.config.ws_idle_timeout_secs);
    let goodbye = loop {
        let next = tokio::select! {
            biased;
            () = writer_done.cancelled() => break None,
            why = &mut revoked => match why {
                Ok(why) => break Some(close_frame(CLOSE_UNAUTHORIZED, why.reason())),
                // The registry never drops a sender it did not use, but be safe.
                Err(_) => break None,
            },
            next = tokio::time::timeout(idle_timeout, stream.next()) => next,
        };
        let text = match next {
            Err(_) => break Some(close_frame(CLOSE_IDLE, "idle timeout")),
            // A frame past the hard limit is cut off unread: say why (1009, not a bare end
            // that the client sees as 1005).
            Ok(Some(Err(e))) if is_too_big(&e) => {
                break Some(close_frame(CLOSE_TOO_BIG, "message too big: over 2 MiB"));
            }
            Ok(None | Some(Err(_) | Ok(Frame::Close(_)))) => break None,
            Ok(Some(Ok(Frame::Ping(_) | Frame::Pong(_)))) => continue,
            Ok(Some(Ok(Frame::Binary(_)))) => {
                let refusal = Refusal::new(&connection.caller, ErrorCode::UnsupportedFrame);
                connection.refuse(refusal);
                continue;
            }
            Ok(Some(Ok(Frame::Text(text)))) => text,
        };
        connection.handle(text.as_str()).await;
    };
    match goodbye {
        Some(frame) => {
            let _ = close.send(frame);
        }
        None => drop(close),
    }
    state.orchestrator.disconnect(connection_id);
    drop(connection);
    drop(events);
    let _ = writer.await;
    // Both halves are dropped now, so the TCP connection closes; then the place is freed.
    drop(stream);
    drop(registration);
}

/// Whether a read failed on a frame past [`HARD_FRAME_BYTES`]. axum hides tungstenite's error
/// type, so this reads its message (tungstenite's `CapacityError`: "Space limit exceeded");
/// `hardening_edge` checks that the close still says 1009.
fn is_too_big(error: &axum::Error) -> bool {
    error.to_string().contains("Space limit exceeded")
}

fn close_frame(code: u16, reason: &'static str) -> CloseFrame {
    CloseFrame {
        code,
        reason: reason.into(),
    }
}

/// What the writer task owns.
struct Writer {
    /// The socket's sending half; only this task writes to it.
    sink: SplitSink<WebSocket, Frame>,
    /// The events the runs and the reader queued, already serialised.
    queue: OutboxReceiver,
    /// A close the reader asks for (idle, revoked), or its end without one.
    close_requested: oneshot::Receiver<CloseFrame>,
    /// Cleared when a history snapshot has been written, so the client may ask for another.
    history_pending: Arc<AtomicBool>,
    /// Cancelled when the writer ends, so the reader stops too.
    done: CancellationToken,
    /// A client that takes longer than this to accept one frame is not reading.
    send_timeout: Duration,
    /// For the logs.
    connection_id: u64,
}

async fn write_loop(mut w: Writer) {
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    let overflowed = w.queue.overflow_signal();
    let too_slow = || close_frame(CLOSE_TOO_SLOW, "client too slow: outbound queue full");
    let goodbye = loop {
        let (frame, history) = tokio::select! {
            biased;
            frame = &mut w.close_requested => break frame.ok(),
            () = overflowed.cancelled() => {
                tracing::warn!(connection_id = w.connection_id, "client not reading; queue full, closing its socket");
                break Some(too_slow());
            }
            frame = w.queue.recv() => match frame {
                Some(frame) => (Frame::Text(frame.json.into()), frame.history),
                None => break None,
            },
            _ = ping.tick() => (Frame::Ping(Vec::new().into()), false),
        };
        match tokio::time::timeout(w.send_timeout, w.sink.send(frame)).await {
            Ok(Ok(())) => {
                if history {
                    w.history_pending.store(false, Ordering::Release);
                }
            }
            Ok(Err(_)) => break None,
            Err(_) => {
                tracing::warn!(
                    connection_id = w.connection_id,
                    "client not reading; closing its socket"
                );
                break Some(too_slow());
            }
        }
    };
    if let Some(frame) = goodbye {
        let _ = tokio::time::timeout(CLOSE_TIMEOUT, w.sink.send(Frame::Close(Some(frame)))).await;
    }
    let _ = tokio::time::timeout(CLOSE_TIMEOUT, w.sink.close()).await;
    w.done.cancel();
}
