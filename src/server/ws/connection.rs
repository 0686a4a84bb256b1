//! One socket's answers to the frames its client sends.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use super::{HISTORY_REQUEST, MAX_FRAME_BYTES, RESUME};
use crate::orchestrator::Outbox;
use crate::orchestrator::store::StoreError;
use crate::protocol::agora::Resume;
use crate::protocol::{
    AgoraError, AgoraEvent, ClientMessage, ErrorCode, Event, Lang, MessagesSnapshot,
};
use crate::server::AppState;
use crate::server::auth::{AuthMode, CurrentUser};
use crate::server::store::UserRole;

/// What the reader needs to answer one frame.
pub(super) struct Connection<'a> {
    /// Ties approvals and cancels to this socket.
    pub id: u64,
    pub state: &'a AppState,
    /// The writer's queue.
    pub events: Outbox,
    /// Who signed in on this socket.
    pub user: CurrentUser,
    /// Set while a history snapshot is queued and unwritten: one at a time per socket, so a
    /// client cannot queue the same large thread a hundred times.
    pub history_pending: Arc<AtomicBool>,
}

impl Connection<'_> {
    pub async fn handle(&self, text: &str) {
        if text.len() > MAX_FRAME_BYTES {
            let details = json!({ "size": text.len(), "limit": MAX_FRAME_BYTES });
            return self.refuse(ErrorCode::MessageTooLarge, Some(details));
        }
        let message: ClientMessage = match serde_json::from_str(text) {
            Ok(message) => message,
            Err(e) if e.is_syntax() || e.is_eof() => {
                return self.refuse(
                    ErrorCode::InvalidJson,
                    Some(json!({ "error": e.to_string() })),
                );
            }
            Err(e) => {
                return self.refuse_with(
                    ErrorCode::InvalidMessage,
                    &format!("Het bericht past niet in het protocol: {e}"),
                    None,
                );
            }
        };
        if self.user.role == UserRole::Viewer && !reads_only(&message) {
            return self.refuse(ErrorCode::Forbidden, None);
        }
        match message {
            ClientMessage::RunAgentInput(input) => {
                if input.thread_id.trim().is_empty() {
                    return self.refuse_with(
                        ErrorCode::InvalidMessage,
                        "threadId ontbreekt of is leeg.",
                        None,
                    );
                }
                let user = self.run_user(input.user_id.as_deref());
                if let Err(limited) = self.state.run_limits.admit(&user, self.user.kind).await {
                    // Tied to the run the client asked for, so it can stop waiting for it and
                    // retry when the limit allows.
                    let run_id = input
                        .run_id
                        .clone()
                        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
                    let details = json!({
                        "threadId": input.thread_id,
                        "runId": run_id,
                        "limitPerMinute": limited.per_minute,
                        "retryAfterMs": limited.retry_after.as_millis() as u64,
                    });
                    let message = format!(
                        "Te veel runs: hoogstens {} per minuut. Probeer het over {} s opnieuw.",
                        limited.per_minute,
                        limited.retry_after_secs()
                    );
                    return self.refuse_with(ErrorCode::RateLimited, &message, Some(details));
                }
                // How the user wants answers spoken; the default when it cannot be read.
                let spoken = match self.state.db.preferences(&user).await {
                    Ok(preferences) => preferences.spoken_text_type,
                    Err(e) => {
                        tracing::warn!(error = %e, "preferences unreadable; default spoken text");
                        Default::default()
                    }
                };
                if let Err(e) = self
                    .state
                    .orchestrator
                    .start_run(input, &user, self.id, self.events.clone(), spoken)
                    .await
                {
                    let details = match &e {
                        crate::orchestrator::StartError::Moderation { term } => {
                            Some(json!({ "reason": "prohibited_term", "term": term }))
                        }
                        _ => None,
                    };
                    e.log();
                    self.refuse_with(e.code(), &e.message(), details);
                }
            }
            ClientMessage::Custom(custom) => {
                match AgoraEvent::from_custom(&custom.name, &custom.value) {
                    Some(Ok(AgoraEvent::ToolApprovalResponse(response))) => {
                        let user =
                            self.run_user(custom.value.get("userId").and_then(Value::as_str));
                        let result = self
                            .state
                            .orchestrator
                            .answer_approval(
                                &response.approval_id,
                                self.id,
                                &user,
                                response.approved,
                                response.feedback,
                            )
                            .await;
                        if let Err(refusal) = result {
                            let details = json!({ "approvalId": response.approval_id });
                            self.refuse(refusal.code(), Some(details));
                        }
                    }
                    Some(Ok(AgoraEvent::CancelRun(cancel))) => {
                        let user =
                            self.run_user(custom.value.get("userId").and_then(Value::as_str));
                        let stopped = self.state.orchestrator.cancel(
                            &user,
                            self.id,
                            cancel.run_id.as_deref(),
                            cancel.thread_id.as_deref(),
                        );
                        if stopped == 0 {
                            self.refuse(ErrorCode::NoActiveRun, None);
                        }
                    }
                    Some(Ok(AgoraEvent::HistoryRequest(request))) => {
                        self.with_history_slot(self.send_history(&request.thread_id))
                            .await;
                    }
                    Some(Ok(AgoraEvent::Resume(resume))) => {
                        self.with_history_slot(self.resume(&resume)).await;
                    }
                    Some(Ok(_)) => {
                        self.refuse_with(
                            ErrorCode::UnexpectedEvent,
                            &format!("{} wordt alleen door de server verstuurd.", custom.name),
                            None,
                        );
                    }
                    Some(Err(e)) => {
                        let message = format!("{}: {e}", custom.name);
                        self.refuse_with(ErrorCode::InvalidMessage, &message, None);
                    }
                    None => {
                        self.refuse_with(
                            ErrorCode::UnknownEvent,
                            &format!("Onbekend event: {}", custom.name),
                            None,
                        );
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

    /// Runs `answer` (a history or a resume) in the socket's one history slot: one snapshot
    /// queued at a time, the next request waits for the client to have read the last one.
    /// `answer` is true when it queued a snapshot, which then keeps the slot until written.
    async fn with_history_slot(&self, answer: impl Future<Output = bool>) {
        if self.history_pending.swap(true, Ordering::AcqRel) {
            return self.refuse(ErrorCode::HistoryInProgress, None);
        }
        if !answer.await {
            self.history_pending.store(false, Ordering::Release);
        }
    }

    /// `agora:resume`: the socket follows the thread again and gets what it missed (see
    /// `Orchestrator::resume`); false when it refused instead or sent no snapshot (then no
    /// history is pending).
    async fn resume(&self, resume: &Resume) -> bool {
        let thread_id = resume.thread_id.as_str();
        if !crate::orchestrator::valid_id(thread_id) {
            self.refuse_with(
                ErrorCode::InvalidId,
                "threadId mag alleen letters, cijfers en _ . : - bevatten (hoogstens 128 tekens).",
                None,
            );
            return false;
        }
        let after_seq = resume.after_seq;
        let refused = match self.access(thread_id).await {
            Access::Own => None,
            Access::Unknown => Some(ErrorCode::ThreadNotFound),
            Access::Refused(code) => Some(code),
        };
        if let Some(code) = refused {
            // The browser tells a new thread's refused resume from a refused message by this.
            let details = json!({ "threadId": thread_id, "request": RESUME });
            self.refuse(code, Some(details));
            return false;
        }
        let resumed = self
            .state
            .orchestrator
            .resume(thread_id, after_seq, self.id, &self.events)
            .await;
        match resumed {
            // A replay sends no snapshot: nothing keeps the history slot.
            Ok(resumption) => resumption.snapshot && resumption.queued,
            Err(e) => {
                tracing::error!(error = %e, "resume failed");
                self.refuse(ErrorCode::StorageError, None);
                false
            }
        }
    }

    /// What this socket may do with `thread_id`, asked of the store at the moment it would
    /// subscribe or read: follow and read its own thread (in dev mode any user's); an id nobody
    /// has used yet is `Unknown`, which a resume must refuse (issue 31, hole 1: resuming an
    /// unused id would hear every event its future owner's runs publish on it). Someone else's
    /// thread looks exactly like one that does not exist.
    async fn access(&self, thread_id: &str) -> Access {
        match self.state.db.thread(thread_id).await {
            Ok(thread) if thread.owner == self.user.id || self.state.auth.mode == AuthMode::Dev => {
                Access::Own
            }
            Ok(_) => Access::Refused(ErrorCode::ThreadNotFound),
            Err(StoreError::NotFound(_)) => Access::Unknown,
            Err(e) => {
                tracing::error!(error = %e, "the thread could not be read");
                Access::Refused(ErrorCode::StorageError)
            }
        }
    }

    /// Queues the thread's stored messages as one MESSAGES_SNAPSHOT; false when it refused
    /// instead.
    async fn send_history(&self, thread_id: &str) -> bool {
        // A snapshot subscribes nothing: an id nobody has used yet reads as an empty thread.
        if let Access::Refused(code) = self.access(thread_id).await {
            self.refuse(code, None);
            return false;
        }
        let messages = match self.state.db.messages(thread_id).await {
            Ok(messages) => messages,
            Err(StoreError::NotFound(_)) => Vec::new(),
            Err(e) => {
                tracing::error!(error = %e, "history could not be read");
                self.refuse(ErrorCode::StorageError, None);
                return false;
            }
        };
        let snapshot = Event::MessagesSnapshot(MessagesSnapshot {
            messages,
            ..Default::default()
        });
        self.events.send_history(&snapshot).is_ok()
    }

    /// Refuses with the code's own sentence (the dialect's language is Dutch; a client words
    /// a code it knows in its user's language).
    pub fn refuse(&self, code: ErrorCode, details: Option<Value>) {
        self.refuse_with(code, code.text(Lang::Nl), details);
    }

    /// Refuses with a sentence that says more than the code's.
    pub fn refuse_with(&self, code: ErrorCode, message: &str, details: Option<Value>) {
        let error = AgoraEvent::Error(AgoraError {
            error_code: code.into(),
            message: message.to_owned(),
            details,
            ..Default::default()
        });
        let _ = self.events.send(&error.into_event());
    }
}

/// A message a read-only account may send: asking for a thread's history, or following it.
fn reads_only(message: &ClientMessage) -> bool {
    matches!(message, ClientMessage::Custom(custom) if custom.name == HISTORY_REQUEST || custom.name == RESUME)
}

/// What a socket may do with a thread (see `Connection::access`).
enum Access {
    /// The caller's: followed and read.
    Own,
    /// No thread has this id yet: read as empty, never followed.
    Unknown,
    /// Refused with this code.
    Refused(ErrorCode),
}
