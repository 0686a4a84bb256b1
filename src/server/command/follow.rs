//! Following and reading a thread: `Command::History`, `Command::Resume` and
//! `Command::Reattach`. Each asks the store whether the thread is the caller's at the moment it
//! would subscribe or read (issue 31, hole 1: an unused id is never followed, or its future
//! owner's runs would publish to whoever resumed it first).

use serde_json::json;

use super::{Caller, Outcome, Refusal};
use crate::orchestrator::store::{RunRecord, StoreError};
use crate::orchestrator::{Outbox, valid_id};
use crate::protocol::agora::{HistoryRequest, RESUME, Resume};
use crate::protocol::{ErrorCode, Event, MessagesSnapshot};
use crate::server::state::AppState;

/// What the caller may do with a thread.
enum Access {
    /// Theirs: followed and read.
    Own,
    /// No thread has this id yet: read as empty, never followed.
    Unknown,
    /// Refused like this.
    Refused(Refusal),
}

async fn access(state: &AppState, caller: &Caller, thread_id: &str) -> Access {
    match state.db.thread(thread_id).await {
        Ok(thread) if caller.owns(&thread) => Access::Own,
        Ok(_) => Access::Refused(Refusal::new(caller, ErrorCode::ThreadNotFound)),
        Err(StoreError::NotFound(_)) => Access::Unknown,
        Err(e) => Access::Refused(Refusal::storage(caller, &e)),
    }
}

/// The thread's stored messages as one `MESSAGES_SNAPSHOT`. A snapshot subscribes nothing, so
/// an id nobody has used yet reads as an empty thread.
pub(super) async fn history(
    state: &AppState,
    caller: &Caller,
    events: &Outbox,
    request: &HistoryRequest,
) -> Result<Outcome, Refusal> {
    let thread_id = request.thread_id.as_str();
    if let Access::Refused(refusal) = access(state, caller, thread_id).await {
        return Err(refusal);
    }
    let messages = match state.db.messages(thread_id).await {
        Ok(messages) => messages,
        Err(StoreError::NotFound(_)) => Vec::new(),
        Err(e) => return Err(Refusal::storage(caller, &e)),
    };
    let snapshot = Event::MessagesSnapshot(MessagesSnapshot {
        messages,
        ..Default::default()
    });
    Ok(match events.send_history(&snapshot) {
        Ok(()) => Outcome::Snapshot,
        // The connection is closing: nothing waits to be written.
        Err(_) => Outcome::Queued,
    })
}

/// The caller follows its thread again and gets what it missed (see `Orchestrator::resume`).
pub(super) async fn resume(
    state: &AppState,
    caller: &Caller,
    events: &Outbox,
    resume: &Resume,
) -> Result<Outcome, Refusal> {
    let thread_id = resume.thread_id.as_str();
    if !valid_id(thread_id) {
        return Err(Refusal::new(caller, ErrorCode::InvalidId));
    }
    let refused = match access(state, caller, thread_id).await {
        Access::Own => None,
        Access::Unknown => Some(Refusal::new(caller, ErrorCode::ThreadNotFound)),
        Access::Refused(refusal) => Some(refusal),
    };
    if let Some(refusal) = refused {
        // The browser tells a new thread's refused resume from a refused message by this.
        return Err(refusal.with_details(json!({ "threadId": thread_id, "request": RESUME })));
    }
    let resumed = state
        .orchestrator
        .resume(thread_id, resume.after_seq, caller.connection, events)
        .await;
    match resumed {
        // A replay sends no snapshot: nothing holds the history slot.
        Ok(resumption) if resumption.snapshot && resumption.queued => Ok(Outcome::Snapshot),
        Ok(_) => Ok(Outcome::Queued),
        Err(e) => Err(Refusal::storage(caller, &e)),
    }
}

/// The caller follows one of its runs again: the kept events after `after_seq`, then live.
pub(super) async fn reattach(
    state: &AppState,
    caller: &Caller,
    events: &Outbox,
    run_id: &str,
    after_seq: Option<u64>,
) -> Result<Outcome, Refusal> {
    let run = owned_run(state, caller, run_id).await?;
    state
        .orchestrator
        .reattach(&run, after_seq, caller.connection, events)
        .await
        .map_err(|e| Refusal::storage(caller, &e))?;
    Ok(Outcome::Queued)
}

/// The run if it exists and its thread is the caller's; someone else's is not found.
pub(super) async fn owned_run(
    state: &AppState,
    caller: &Caller,
    run_id: &str,
) -> Result<RunRecord, Refusal> {
    let run = match state.db.run(run_id).await {
        Ok(run) => run,
        Err(StoreError::NotFound(_)) => return Err(Refusal::run_not_found(caller, run_id)),
        Err(e) => return Err(Refusal::storage(caller, &e)),
    };
    match state.db.thread(&run.thread_id).await {
        Ok(thread) if caller.owns(&thread) => Ok(run),
        Ok(_) | Err(StoreError::NotFound(_)) => Err(Refusal::run_not_found(caller, run_id)),
        Err(e) => Err(Refusal::storage(caller, &e)),
    }
}
