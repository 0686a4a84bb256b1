//! The AGORA AG-UI WebSocket endpoint: one reader, one writer and a bounded queue per socket.
//!
//! The reader turns frames into runs, approval decisions and cancels; every bad frame gets an
//! `agora:error` and the socket stays usable. The writer drains the queue the runs fill, so a
//! slow browser slows only its own runs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message as Frame, WebSocket, WebSocketUpgrade};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::auth::{AuthMode, CurrentUser};
use super::{AppError, AppState};
use crate::protocol::{AgoraError, AgoraEvent, ClientMessage, Event, MessagesSnapshot};

/// Frames above this are answered with `agora:error` (the protocol's limit).
const MAX_FRAME_BYTES: usize = 1 << 20;
/// Frames above this close the socket: reading them at all would cost too much.
const HARD_FRAME_BYTES: usize = 8 << 20;
/// Events waiting for a slow client; when it stays full the client is closed, not buffered for.
const OUTBOUND_QUEUE: usize = 1024;
const PING_EVERY: Duration = Duration::from_secs(20);
/// A client that takes longer than this to accept one frame is not reading.
const SEND_TIMEOUT: Duration = Duration::from_secs(15);
/// The custom event a client sends to get a thread's messages before any new run.
pub const HISTORY_REQUEST: &str = "agora:history_request";

/// Close codes, after the original HAI's 4001 for a refused key.
const CLOSE_UNAUTHORIZED: u16 = 4001;
const CLOSE_IDLE: u16 = 4002;
const CLOSE_TOO_SLOW: u16 = 4008;

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
    // A browser cannot read an HTTP status of a failed upgrade, so a refused sign-in is a
    // close code the client can act on.
    let user = state.auth.identify(state.db.as_ref(), &parts).await.ok();
    ws.max_message_size(HARD_FRAME_BYTES)
        .max_frame_size(HARD_FRAME_BYTES)
        .on_upgrade(move |socket| async move {
            match user {
                Some(user) => serve_socket(socket, state, user).await,
                None => close_unauthorized(socket).await,
            }
        })
}

/// Same origin as the page (the Host header), or one of the configured origins. Clients that
/// are not browsers send no Origin; they authenticate like everyone else.
async fn close_unauthorized(mut socket: WebSocket) {
    let frame = CloseFrame {
        code: CLOSE_UNAUTHORIZED,
        reason: "unauthorized".into(),
    };
    let _ = socket.send(Frame::Close(Some(frame))).await;
}

async fn serve_socket(socket: WebSocket, state: AppState, user: CurrentUser) {
    let connection_id = NEXT_CONNECTION.fetch_add(1, Ordering::Relaxed);
    let (mut sink, mut stream) = socket.split();
    let (events, mut queue) = mpsc::channel::<Event>(OUTBOUND_QUEUE);
    // The reader asks the writer to close with a code (idle); the writer closes by itself
    // when the client stops reading.
    let (close, mut close_requested) = oneshot::channel::<CloseFrame>();

    let writer = tokio::spawn(async move {
        let mut ping = tokio::time::interval(PING_EVERY);
        ping.tick().await;
        let goodbye = loop {
            let frame = tokio::select! {
                event = queue.recv() => match event {
                    Some(event) => match serde_json::to_string(&event) {
                        Ok(text) => Frame::Text(text.into()),
                        Err(e) => {
                            tracing::error!(error = %e, "event did not serialise");
                            continue;
                        }
                    },
                    None => break None,
                },
                _ = ping.tick() => Frame::Ping(Vec::new().into()),
                frame = &mut close_requested => break frame.ok(),
            };
            match tokio::time::timeout(SEND_TIMEOUT, sink.send(frame)).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => break None,
                Err(_) => {
                    tracing::warn!(connection_id, "client not reading; closing its socket");
                    break Some(CloseFrame {
                        code: CLOSE_TOO_SLOW,
                        reason: "client too slow: outbound queue full".into(),
                    });
                }
            }
        };
        if let Some(frame) = goodbye {
            let _ = tokio::time::timeout(SEND_TIMEOUT, sink.send(Frame::Close(Some(frame)))).await;
        }
        let _ = sink.close().await;
    });

    let connection = Connection {
        id: connection_id,
        state: &state,
        events: events.clone(),
        user,
    };
    let idle_timeout = Duration::from_secs(state.config.ws_idle_timeout_secs);
    let mut close = Some(close);
    loop {
        let frame = match tokio::time::timeout(idle_timeout, stream.next()).await {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(_) => {
                if let Some(close) = close.take() {
                    let _ = close.send(CloseFrame {
                        code: CLOSE_IDLE,
                        reason: "idle timeout".into(),
                    });
                }
                break;
            }
        };
        let text = match frame {
            Ok(Frame::Text(text)) => text,
            Ok(Frame::Binary(_)) => {
                connection
                    .refuse(
                        "unsupported_frame",
                        "Alleen tekstframes met JSON worden ondersteund.",
                        None,
                    )
                    .await;
                continue;
            }
            Ok(Frame::Close(_)) | Err(_) => break,
            Ok(Frame::Ping(_) | Frame::Pong(_)) => continue,
        };
        connection.handle(text.as_str()).await;
    }
    state.orchestrator.disconnect(connection_id);
    drop(connection);
    drop(events);
    let _ = writer.await;
}

/// What the reader needs to answer one frame.
struct Connection<'a> {
    /// Ties approvals and cancels to this socket.
    id: u64,
    state: &'a AppState,
    /// The writer's queue.
    events: mpsc::Sender<Event>,
    /// Who signed in on this socket.
    user: CurrentUser,
}

impl Connection<'_> {
    async fn handle(&self, text: &str) {
        if text.len() > MAX_FRAME_BYTES {
            let details = json!({ "size": text.len(), "limit": MAX_FRAME_BYTES });
            return self
                .refuse(
                    "message_too_large",
                    "Het bericht is groter dan 1 MiB.",
                    Some(details),
                )
                .await;
        }
        let message: ClientMessage = match serde_json::from_str(text) {
            Ok(message) => message,
            Err(e) if e.is_syntax() || e.is_eof() => {
                return self
                    .refuse(
                        "invalid_json",
                        "Het bericht is geen geldige JSON.",
                        Some(json!({ "error": e.to_string() })),
                    )
                    .await;
            }
            Err(e) => {
                return self
                    .refuse(
                        "invalid_message",
                        &format!("Het bericht past niet in het protocol: {e}"),
                        None,
                    )
                    .await;
            }
        };
        match message {
            ClientMessage::RunAgentInput(input) => {
                if input.thread_id.trim().is_empty() {
                    return self
                        .refuse("invalid_message", "threadId ontbreekt of is leeg.", None)
                        .await;
                }
                let user = self.run_user(input.user_id.as_deref());
                if !self.state.run_limiter.allow(&user) {
                    return self
                        .refuse(
                            "rate_limited",
                            "Te veel verzoeken; wacht even en probeer het opnieuw.",
                            None,
                        )
                        .await;
                }
                if let Err(e) = self
                    .state
                    .orchestrator
                    .start_run(input, &user, self.id, self.events.clone())
                    .await
                {
                    let details = match &e {
                        crate::orchestrator::StartError::Moderation { term } => {
                            Some(json!({ "reason": "prohibited_term", "term": term }))
                        }
                        _ => None,
                    };
                    self.refuse(e.code(), &e.to_string(), details).await;
                }
            }
            ClientMessage::Custom(custom) => {
                match AgoraEvent::from_custom(&custom.name, &custom.value) {
                    Some(Ok(AgoraEvent::ToolApprovalResponse(response))) => {
                        let user =
                            self.run_user(custom.value.get("userId").and_then(Value::as_str));
                        let result = self.state.orchestrator.approvals.resolve(
                            &response.approval_id,
                            self.id,
                            &user,
                            response.approved,
                            response.feedback,
                        );
                        if let Err(refusal) = result {
                            let details = json!({ "approvalId": response.approval_id });
                            self.refuse(refusal.code(), &refusal.to_string(), Some(details))
                                .await;
                        }
                    }
                    Some(Ok(AgoraEvent::CancelRun(cancel))) => {
                        let stopped = self.state.orchestrator.cancel(
                            self.id,
                            cancel.run_id.as_deref(),
                            cancel.thread_id.as_deref(),
                        );
                        if stopped == 0 {
                            self.refuse("no_active_run", "Er loopt geen run om te stoppen.", None)
                                .await;
                        }
                    }
                    Some(Ok(_)) => {
                        self.refuse(
                            "unexpected_event",
                            &format!("{} wordt alleen door de server verstuurd.", custom.name),
                            None,
                        )
                        .await;
                    }
                    Some(Err(e)) => {
                        self.refuse("invalid_message", &format!("{}: {e}", custom.name), None)
                            .await;
                    }
                    None if custom.name == HISTORY_REQUEST => {
                        self.send_history(&custom.value).await
                    }
                    None => {
                        self.refuse(
                            "unknown_event",
                            &format!("Onbekend event: {}", custom.name),
                            None,
                        )
                        .await;
                    }
                }
            }
        }
    }

    /// The user a run or decision is for: the signed-in one; in dev mode a client may name another.
    fn run_user(&self, named: Option<&str>) -> String {
        match named {
            Some(named) if self.state.auth.mode == AuthMode::Dev && !named.trim().is_empty() => {
                named.to_owned()
            }
            _ => self.user.id.clone(),
        }
    }

    /// Sends the thread's stored messages as one MESSAGES_SNAPSHOT.
    async fn send_history(&self, value: &Value) {
        let Some(thread_id) = value.get("threadId").and_then(Value::as_str) else {
            return self
                .refuse("invalid_message", "threadId ontbreekt.", None)
                .await;
        };
        // Someone else's thread looks exactly like one that does not exist.
        match self.state.db.thread(thread_id).await {
            Ok(thread) if thread.owner != self.user.id && self.state.auth.mode != AuthMode::Dev => {
                return self
                    .refuse("thread_not_found", "Dit gesprek bestaat niet.", None)
                    .await;
            }
            _ => {}
        }
        let messages = match self.state.db.messages(thread_id).await {
            Ok(messages) => messages,
            Err(crate::orchestrator::store::StoreError::NotFound(_)) => Vec::new(),
            Err(e) => {
                tracing::error!(error = %e, "history could not be read");
                return self
                    .refuse(
                        "storage_error",
                        "De geschiedenis kon niet worden gelezen.",
                        None,
                    )
                    .await;
            }
        };
        let snapshot = Event::MessagesSnapshot(MessagesSnapshot {
            messages,
            ..Default::default()
        });
        let _ = self.events.send(snapshot).await;
    }

    async fn refuse(&self, code: &str, message: &str, details: Option<Value>) {
        let error = AgoraEvent::Error(AgoraError {
            error_code: code.to_owned(),
            message: message.to_owned(),
            details,
            ..Default::default()
        });
        let _ = self.events.send(error.into_event()).await;
    }
}
