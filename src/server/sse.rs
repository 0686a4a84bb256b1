//! Standard AG-UI over HTTP: `POST /agui` takes a `RunAgentInput` and answers with the run as
//! Server-Sent Events, one `data: <json>` frame per event, in the standard dialect (seeds 001,
//! 003, 004). Same orchestrator, agents, tools and store as `/ws`.
//!
//! - A run that needs an approval ends with `RUN_FINISHED { outcome: interrupt }`; the next
//!   `POST /agui` on the thread answers it in `resume` (see `Orchestrator::start_run_in`).
//! - Input the orchestrator refuses (moderation, a pending interrupt, a bad `resume`) is a
//!   stream with one `RUN_ERROR`; a body that is not a `RunAgentInput` is 422 `{"detail"}`, and
//!   a user over the run limit shared with `/ws` gets 429.
//! - Each event has an SSE `id:`, its number in the thread's journal. Closing the connection
//!   does not stop the run: it goes on (to its end or its interrupt), and
//!   `GET /agui/runs/{runId}/events` with `Last-Event-ID` reattaches, sending exactly the
//!   events after that id, then the rest live. When the journal no longer has them, the
//!   stream is a snapshot: RUN_STARTED, MESSAGES_SNAPSHOT and how the run ended.
//! - `POST /agui/runs/{runId}/cancel` stops a run from anywhere.
//! - While nothing happens (a slow model, a long tool) a `: keep-alive` comment goes out every
//!   [`Settings::keep_alive`], so proxies do not time the stream out.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::Poll;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::sse::{self, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use futures::Stream;
use serde_json::{Value, json};

use super::command::{self, Caller, Command, Outcome, Refusal, Stage};
use super::error::AppError;
use super::rest::CurrentUser;
use super::state::AppState;
use super::stream_slots::StreamSlot;
use crate::clock::now_millis;
use crate::orchestrator::Orchestrator;
use crate::orchestrator::agents::AGENTS;
use crate::orchestrator::outbox::{Outbox, OutboxReceiver};
use crate::protocol::{Dialect, ErrorCode, Event, Lang, RunAgentInput};

/// `/ws` numbers its sockets from 1; HTTP streams count down from the top so that a cancel by
/// connection can never reach the other transport's runs.
static NEXT_CONNECTION: AtomicU64 = AtomicU64::new(u64::MAX);

/// How the endpoint behaves; [`routes`] uses the defaults.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Silence after which a keep-alive comment is sent.
    pub keep_alive: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            keep_alive: Duration::from_secs(15),
        }
    }
}

/// `POST /agui`, `GET /agui/capabilities` and `POST /agui/runs/{runId}/cancel`.
pub fn routes() -> Router<AppState> {
    routes_with(Settings::default())
}

/// [`routes`] with other settings (tests use a short keep-alive).
pub fn routes_with(settings: Settings) -> Router<AppState> {
    Router::new()
        // The body's limit is the handler's: it grows with what a message's photos may take.
        .route(
            "/agui",
            post(run).layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .route("/agui/capabilities", get(capabilities))
        .route("/agui/runs/{run_id}/cancel", post(cancel))
        .route("/agui/runs/{run_id}/events", get(reattach))
        .layer(Extension(settings))
}

async fn run(
    State(state): State<AppState>,
    Extension(settings): Extension<Settings>,
    user: CurrentUser,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Result<Response, AppError> {
    let caller = caller(&state, user, &headers);
    let limit = super::security::MAX_BODY_BYTES + state.config.photo_limits().wire_allowance();
    let body: Bytes = axum::body::to_bytes(body, limit).await.map_err(|_| {
        AppError::PayloadTooLarge(match caller.lang {
            Lang::Nl => format!("Het verzoek is groter dan {limit} bytes."),
            Lang::En => format!("The request is larger than {limit} bytes."),
        })
    })?;
    let input: RunAgentInput = serde_json::from_slice(&body).map_err(|e| {
        let refusal = Refusal::new(&caller, ErrorCode::InvalidMessage);
        let message = format!("{} {e}", refusal.message);
        http_error(refusal.saying(message))
    })?;
    let slot = stream_slot(&state, &caller)?;
    let (events, queue) = outbox(&state);
    let start = Command::Start {
        input: Box::new(input),
        to: events.clone(),
    };
    match command::apply(&state, &caller, start).await {
        Ok(_) => {}
        Err(refusal) if refusal.stage == Stage::Run => {
            // In the standard dialect a lone RUN_ERROR is a complete stream.
            let event =
                Event::run_error(refusal.message, refusal.code).with_timestamp(now_millis());
            let _ = events.send(&event);
        }
        Err(refusal) => return Err(http_error(refusal)),
    }
    // From here on the stream ends when the run's journal lets go of the queue at its end.
    drop(events);
    Ok(stream_response(
        &state,
        settings,
        queue,
        caller.connection,
        slot,
    ))
}

/// The caller of one request: a connection number of its own (counting down from the top so
/// that a cancel by connection never reaches `/ws`'s sockets, which count up), refusals in the
/// language the request asks for.
fn caller(state: &AppState, user: CurrentUser, headers: &HeaderMap) -> Caller {
    let connection = NEXT_CONNECTION.fetch_sub(1, Ordering::Relaxed);
    let lang = Caller::lang_of(headers, Dialect::Standard);
    Caller::new(state, user, connection, Dialect::Standard, lang)
}

/// A stream's bounded queue.
fn outbox(state: &AppState) -> (Outbox, OutboxReceiver) {
    let queue_bytes = usize::try_from(state.config.socket_queue_bytes).unwrap_or(usize::MAX);
    Outbox::channel(queue_bytes)
}

/// A refusal at admission as HTTP: the status its code means, `{"detail"}` in the caller's
/// language.
fn http_error(refusal: Refusal) -> AppError {
    let detail = refusal.message;
    match refusal.code {
        ErrorCode::Forbidden => AppError::Forbidden(detail),
        ErrorCode::RateLimited | ErrorCode::TooManyStreams => AppError::TooManyRequests {
            detail,
            retry_after_secs: refusal.retry_after_secs.unwrap_or(5),
        },
        ErrorCode::ThreadNotFound | ErrorCode::RunNotFound => AppError::NotFound(detail),
        ErrorCode::RunNotRunning => AppError::Conflict(detail),
        ErrorCode::InvalidLastEventId => AppError::BadRequest(detail),
        ErrorCode::StorageError => AppError::Internal(anyhow::anyhow!(detail)),
        _ => AppError::Unprocessable(detail),
    }
}

/// A place for one more open stream of the caller, or 429 past `--max-streams-per-user`.
fn stream_slot(state: &AppState, caller: &Caller) -> Result<StreamSlot, AppError> {
    state.streams.take(&caller.user.id).ok_or_else(|| {
        let per_user = state.streams.per_user();
        let message = match caller.lang {
            Lang::Nl => format!(
                "Te veel open streams: hoogstens {per_user} per gebruiker. Sluit er een en probeer het opnieuw."
            ),
            Lang::En => format!(
                "Too many open streams: at most {per_user} per user. Close one and try again."
            ),
        };
        http_error(
            Refusal::new(caller, ErrorCode::TooManyStreams)
                .saying(message)
                .retry_after(5),
        )
    })
}

/// The SSE response reading `queue`; leaving it (the client closed) only unsubscribes.
fn stream_response(
    state: &AppState,
    settings: Settings,
    queue: OutboxReceiver,
    connection_id: u64,
    slot: StreamSlot,
) -> Response {
    let stream = EventStream {
        queue,
        _slot: slot,
        _guard: Disconnect {
            orchestrator: state.orchestrator.clone(),
            connection_id,
        },
    };
    let keep_alive = KeepAlive::new()
        .interval(settings.keep_alive)
        .text("keep-alive");
    let headers = [(
        HeaderName::from_static("x-accel-buffering"),
        HeaderValue::from_static("no"),
    )];
    (headers, Sse::new(stream).keep_alive(keep_alive)).into_response()
}

/// `GET /agui/runs/{runId}/events`: a client that lost the stream of a run reattaches. With
/// `Last-Event-ID` it gets the events after that id; without, the run's events from its start.
/// Someone else's run is 404, like one that does not exist.
async fn reattach(
    State(state): State<AppState>,
    Extension(settings): Extension<Settings>,
    user: CurrentUser,
    Path(run_id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let caller = caller(&state, user, &headers);
    let after_seq = match headers.get("last-event-id") {
        None => None,
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or_else(|| http_error(Refusal::new(&caller, ErrorCode::InvalidLastEventId)))?,
        ),
    };
    let slot = stream_slot(&state, &caller)?;
    let (events, queue) = outbox(&state);
    let reattach = Command::Reattach {
        run_id,
        after_seq,
        to: events,
    };
    command::apply(&state, &caller, reattach)
        .await
        .map_err(http_error)?;
    Ok(stream_response(
        &state,
        settings,
        queue,
        caller.connection,
        slot,
    ))
}

/// The run's events as SSE frames. Dropped when the response ends or the client goes away.
struct EventStream {
    queue: OutboxReceiver,
    /// The user's place under `--max-streams-per-user`, held as long as the stream.
    _slot: StreamSlot,
    _guard: Disconnect,
}

impl Stream for EventStream {
    type Item = Result<sse::Event, Infallible>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<Option<Self::Item>> {
        // A client that let the queue overflow is not reading: the stream ends (the run,
        // unable to send, ends as disconnected).
        if self.queue.has_overflowed() {
            return Poll::Ready(None);
        }
        let frame = std::task::ready!(self.queue.poll_recv(cx));
        Poll::Ready(frame.map(|frame| {
            let event = sse::Event::default().data(frame.json);
            Ok(match frame.seq {
                Some(seq) => event.id(seq.to_string()),
                None => event,
            })
        }))
    }
}

/// Unsubscribes the stream when it is dropped. The run goes on: its client may reattach
/// (`GET /agui/runs/{runId}/events`); only past the user's limit of runs nobody follows is
/// the oldest cancelled.
struct Disconnect {
    orchestrator: Arc<Orchestrator>,
    connection_id: u64,
}

impl Drop for Disconnect {
    fn drop(&mut self) {
        self.orchestrator.disconnect(self.connection_id);
    }
}

/// Stops a run from elsewhere (another tab, a script) and answers once it is stored:
/// 200 with its status, 404 for a run this user does not have, 409 for one that already ended.
async fn cancel(
    State(state): State<AppState>,
    user: CurrentUser,
    headers: HeaderMap,
    Path(run_id): Path<String>,
) -> Result<Response, AppError> {
    let caller = caller(&state, user, &headers);
    match command::apply(&state, &caller, Command::StopRun { run_id }).await {
        Ok(Outcome::Stopped {
            run_id,
            thread_id,
            status,
        }) => {
            let body = json!({ "runId": run_id, "threadId": thread_id, "status": status });
            Ok((StatusCode::OK, Json(body)).into_response())
        }
        Ok(other) => Err(AppError::Internal(anyhow::anyhow!(
            "a stop answered {other:?}"
        ))),
        Err(refusal) => Err(http_error(refusal)),
    }
}

/// AG-UI's `AgentCapabilities` (`@ag-ui/core`): what a client can expect of `POST /agui`.
async fn capabilities(State(state): State<AppState>) -> Json<Value> {
    let orchestrator = &state.orchestrator;
    let toolbox = orchestrator.toolbox();
    let tools: Vec<Value> = toolbox
        .specs(&toolbox.names())
        .into_iter()
        .map(|spec| {
            json!({
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
            })
        })
        .collect();
    let subagents: Vec<Value> = AGENTS
        .iter()
        .map(|agent| json!({ "name": agent.id, "description": agent.description }))
        .collect();
    let config = orchestrator.config();
    Json(json!({
        "identity": {
            "name": "AGORA HAI",
            "type": "agora-hai",
            "description": "Assistent voor NVWA-inspecteurs: bedrijfsgegevens en \
                            inspectiegeschiedenis, toepasselijke regelgeving en het \
                            inspectierapport.",
            "version": env!("CARGO_PKG_VERSION"),
            "provider": "NVWA",
            "metadata": { "model": orchestrator.provider_name() },
        },
        "transport": {
            "streaming": true,
            // `/ws` speaks AGORA's dialect, not the standard one.
            "websocket": false,
            "httpBinary": false,
            "pushNotifications": false,
            // Every event has an SSE id; `GET /agui/runs/{runId}/events` with
            // `Last-Event-ID` reattaches to a run.
            "resumable": true,
        },
        "tools": {
            "supported": true,
            "items": tools,
            "parallelCalls": false,
            "clientProvided": true,
        },
        "output": {
            "structuredOutput": false,
            "supportedMimeTypes": ["text/markdown"],
        },
        "state": {
            "snapshots": true,
            "deltas": false,
            "memory": false,
            "persistentState": false,
        },
        "multiAgent": {
            "supported": true,
            "delegation": false,
            "handoffs": true,
            "subagents": subagents,
        },
        "reasoning": { "supported": false },
        "multimodal": {
            // Photos are taken (stored, linked to the finding of their turn, in the report); the
            // agent does not look at them (issue 37).
            "input": { "image": true, "audio": false, "video": false, "pdf": false, "file": false },
            "output": { "image": false, "audio": false },
        },
        "execution": {
            "codeExecution": false,
            "maxIterations": config.max_turns,
        },
        "humanInTheLoop": {
            "supported": true,
            "approvals": true,
            "interventions": false,
            "feedback": false,
            "interrupts": true,
            "approveWithEdits": true,
        },
        "custom": {
            "agora": {
                "approvalTimeoutSeconds": config.approval_timeout.as_secs(),
                "interruptReasons": ["tool_call"],
                "cancelEndpoint": "/agui/runs/{runId}/cancel",
                "reattachEndpoint": "/agui/runs/{runId}/events",
            },
        },
    }))
}
