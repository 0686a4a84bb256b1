//! The command layer: what a client asks, decided once for every transport (the shape of
//! mini-redis's `cmd/`). A transport decodes its frames or requests into a [`Command`], hands
//! it to [`apply`] with the [`Caller`], and encodes the [`Outcome`] or [`Refusal`] its own way:
//! `/ws` as events and `agora:error`, `/agui` as an SSE stream, a `RUN_ERROR` or an HTTP status.
//!
//! Admission lives here and nowhere else: who may do what (a read-only account only reads),
//! to which thread and run ([`Caller::owns`], with the one dev-mode rule), the run limit, and
//! the language of every refusal. One command is one file.

mod caller;
mod cancel;
mod decide;
mod follow;
mod refusal;
mod start;
mod stop;

pub use caller::Caller;
pub use refusal::{Refusal, Stage};

use crate::orchestrator::Outbox;
use crate::protocol::RunAgentInput;
use crate::protocol::agora::{CancelRun, HistoryRequest, Resume, ToolApprovalResponse};
use crate::server::state::AppState;
use crate::server::store::UserRole;

/// What a client asks of the server, from either transport.
#[derive(Debug)]
pub enum Command {
    /// A user message: start a run on its thread (in the standard dialect it may also answer
    /// the thread's interrupts and bring client tools' results). The run's events go `to`.
    Start {
        input: Box<RunAgentInput>,
        to: Outbox,
    },
    /// A decision on an approval request (AGORA `agora:tool_approval_response`). `named_user`
    /// is the `userId` the message names, which counts in dev mode only.
    Decide {
        response: ToolApprovalResponse,
        named_user: Option<String>,
    },
    /// Stop the caller's runs: by run, by thread, or every run this connection follows
    /// (AGORA `agora:cancel_run`).
    Cancel {
        cancel: CancelRun,
        named_user: Option<String>,
    },
    /// Stop one run by id, from anywhere, and wait until it is stored
    /// (`POST /agui/runs/{runId}/cancel`).
    StopRun { run_id: String },
    /// A thread's stored messages as one snapshot (`agora:history_request`), sent `to`.
    History { request: HistoryRequest, to: Outbox },
    /// Follow a thread again and get what was missed (`agora:resume`), sent `to`.
    Resume { resume: Resume, to: Outbox },
    /// Follow one run again from an event number (`GET /agui/runs/{runId}/events`), sent `to`.
    Reattach {
        run_id: String,
        after_seq: Option<u64>,
        to: Outbox,
    },
}

impl Command {
    /// Whether a read-only account may send it: reading and following, never starting,
    /// stopping or deciding.
    pub fn reads_only(&self) -> bool {
        matches!(
            self,
            Command::History { .. } | Command::Resume { .. } | Command::Reattach { .. }
        )
    }

    /// Whether its answer is a snapshot queued on the connection (`/ws` sends one at a time).
    pub fn sends_snapshot(&self) -> bool {
        matches!(self, Command::History { .. } | Command::Resume { .. })
    }
}

/// What a command did, for the transport to encode.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Its answer goes, or went, to the caller's queue: a run's events, a replay.
    Queued,
    /// A snapshot was queued, which holds the connection's history slot until written.
    Snapshot,
    /// A run stopped on request and how it is stored now.
    Stopped {
        run_id: String,
        thread_id: String,
        status: &'static str,
    },
}

/// Decides `command` for `caller`. A command that answers with events names the queue they go
/// to; the others (a decision, a stop) answer with their [`Outcome`] alone.
pub async fn apply(
    state: &AppState,
    caller: &Caller,
    command: Command,
) -> Result<Outcome, Refusal> {
    if caller.user.role == UserRole::Viewer && !command.reads_only() {
        return Err(Refusal::new(caller, crate::protocol::ErrorCode::Forbidden));
    }
    match command {
        Command::Start { input, to } => start::apply(state, caller, &to, *input).await,
        Command::Decide {
            response,
            named_user,
        } => decide::apply(state, caller, response, named_user.as_deref()).await,
        Command::Cancel { cancel, named_user } => {
            cancel::apply(state, caller, &cancel, named_user.as_deref()).await
        }
        Command::StopRun { run_id } => stop::apply(state, caller, &run_id).await,
        Command::History { request, to } => follow::history(state, caller, &to, &request).await,
        Command::Resume { resume, to } => follow::resume(state, caller, &to, &resume).await,
        Command::Reattach {
            run_id,
            after_seq,
            to,
        } => follow::reattach(state, caller, &to, &run_id, after_seq).await,
    }
}
