//! What the orchestrator needs from persistence. The implementation (SQLite and PostgreSQL,
//! one set of queries) lives in `server::store`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::Message;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found: {0}")]
    NotFound(String),
    #[error("conflict: {0}")]
    Conflict(String),
    #[error("storage failure: {0}")]
    Backend(String),
}

/// How a run ended; `Running` until it does. A run still `Running` at start-up was cut off
/// by a crash and becomes `Interrupted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Finished,
    Error,
    Cancelled,
    Interrupted,
}

impl RunStatus {
    /// The name the store and the wire use.
    pub fn wire_name(&self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Finished => "finished",
            RunStatus::Error => "error",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Interrupted => "interrupted",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadRecord {
    pub id: String,
    pub owner: String,
    pub title: String,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds of the last message; threads are listed by it.
    pub last_activity: i64,
    pub message_count: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub id: String,
    pub thread_id: String,
    pub status: RunStatus,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    pub error: Option<String>,
}

/// One entry of the approval audit log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRecord {
    pub approval_id: String,
    pub thread_id: String,
    pub run_id: String,
    pub tool_call_id: String,
    pub tool_name: String,
    pub parameters: Value,
    pub risk_level: String,
    pub requested_by: String,
    pub requested_at: i64,
    /// `None` while pending.
    pub decision: Option<ApprovalDecision>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalDecision {
    pub approved: bool,
    pub feedback: Option<String>,
    /// The user who answered, or `system` when the approval expired.
    pub decided_by: String,
    pub decided_at: i64,
    /// Approved with edits: the arguments the call ran with instead of the agent's
    /// (`ApprovalRecord::parameters`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_args: Option<Value>,
}

impl ApprovalDecision {
    /// A rejection nobody chose: the approval expired, or its run ended before an answer.
    pub fn rejected_by_system(feedback: impl Into<String>, decided_at: i64) -> Self {
        Self {
            approved: false,
            feedback: Some(feedback.into()),
            decided_by: "system".to_owned(),
            decided_at,
            edited_args: None,
        }
    }
}

/// A question a run (standard AG-UI dialect) ended with, waiting for the client's answer in the
/// `resume` of a later run on the same thread. Today always a tool call that needs approval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InterruptRecord {
    /// The interrupt id the client answers; also the approval id in the audit log.
    pub id: String,
    pub thread_id: String,
    /// The run that ended with it.
    pub run_id: String,
    /// `tool_call`.
    pub reason: String,
    /// For whoever answers.
    pub message: String,
    pub tool_call_id: String,
    pub tool_name: String,
    /// The call's arguments as the agent made it.
    pub arguments: Value,
    /// JSON Schema of the expected `resume[].payload`.
    pub response_schema: Value,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds; an answer after it counts as a rejection by `system`.
    pub expires_at: i64,
    /// `None` while open.
    pub resolution: Option<InterruptResolution>,
}

/// How an interrupt was answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InterruptResolution {
    /// The run whose `resume` answered it.
    pub run_id: String,
    /// `resolved` or `cancelled`, as the resume entry said.
    pub status: String,
    /// The resume entry's payload.
    pub payload: Option<Value>,
    pub resolved_at: i64,
}

/// An evidence photo as stored (issue 37): its bytes with location metadata removed, owned by
/// the user whose thread it came in on.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPhoto {
    /// The SHA-256 of `bytes`, lower-case hex: the photo's address (`/photos/<id>`).
    pub id: String,
    pub owner: String,
    /// `image/jpeg`, `image/png` or `image/webp`, told from the bytes.
    pub mime_type: String,
    pub width: u32,
    pub height: u32,
    /// EXIF DateTimeOriginal as the camera wrote it (`2026:11:27 10:32:05`), when it did.
    pub taken_at: Option<String>,
    pub bytes: Vec<u8>,
}

/// A new turn on a thread, written by [`Store::begin_turn`] in one transaction. The dialect
/// decides what the turn closes and brings; the store checks and writes it all or nothing.
pub struct TurnRequest<'a> {
    pub thread_id: &'a str,
    /// Whose thread it is: created for them, or checked (someone else's is `NotFound`).
    pub owner: &'a str,
    /// The text a new thread is named after.
    pub title_text: &'a str,
    /// The run the turn starts: a run that has this id already refuses the turn
    /// ([`Turn::RunIdInUse`]); otherwise it is recorded `running` in the turn's transaction
    /// (issue 36: the run's record was a transaction of its own).
    pub run_id: Option<&'a str>,
    /// A thread with open interrupts refuses a new turn until they are answered (standard).
    pub refuse_open_interrupts: bool,
    /// Tool results the client brought (standard): each stored when its call waits for one.
    pub results: &'a [Message],
    /// Waiting calls left open: the run settles them (answered interrupts).
    pub keep_open: &'a [String],
    /// The result every other call left without one gets: (call id, tool name) → message.
    pub close_call: fn(&str, &str) -> Message,
    /// Approvals still waiting are decided so (AGORA: their run is gone).
    pub close_approvals: Option<&'a ApprovalDecision>,
    /// The user's message, stored last. A thread that holds its id already makes the turn
    /// [`Turn::Held`].
    pub message: Option<&'a Message>,
}

/// What [`Store::begin_turn`] did.
#[derive(Debug)]
pub enum Turn {
    /// Written (the run recorded, when the request named one): the thread's messages after
    /// the turn's writes, and the calls whose results the client brought.
    Begun {
        messages: Vec<Message>,
        answered: Vec<String>,
        /// Whether the thread is in listen mode, read in the same transaction.
        listening: bool,
    },
    /// The thread holds the message already (a resend): nothing written.
    Held,
    /// The client's run id is taken: nothing written.
    RunIdInUse,
    /// These interrupts wait for an answer: nothing written.
    InterruptPending(Vec<String>),
}

/// Persistence of threads, messages, runs and approvals. Every write completes before the
/// orchestrator sends the next event, so what a client saw survives a crash.
#[async_trait::async_trait]
pub trait Store: Send + Sync + 'static {
    /// Creates the thread on first use (title from the first user message) or checks its owner.
    /// A thread owned by someone else is `NotFound`, never revealed.
    async fn open_thread(
        &self,
        thread_id: &str,
        owner: &str,
        first_text: &str,
    ) -> Result<ThreadRecord, StoreError>;
    async fn thread(&self, thread_id: &str) -> Result<ThreadRecord, StoreError>;
    /// Names the thread after the company its inspection is about, once: unless a person
    /// named it, the first company looked up replaces the title cut from the first message
    /// and keeps it (a later company, or message, does not rename it; a person still can).
    async fn name_thread_after_company(
        &self,
        thread_id: &str,
        title: &str,
    ) -> Result<(), StoreError> {
        let _ = (thread_id, title);
        Ok(())
    }
    /// Whether the thread is in listen mode (see `orchestrator::listen`); false for a thread
    /// that does not exist yet.
    async fn listening(&self, thread_id: &str) -> Result<bool, StoreError>;
    /// Turns the thread's listen mode on or off.
    async fn set_listening(&self, thread_id: &str, on: bool) -> Result<(), StoreError>;
    /// The user's display name, if the store keeps people (a report names its inspector).
    async fn user_name(&self, user_id: &str) -> Result<Option<String>, StoreError> {
        let _ = user_id;
        Ok(None)
    }
    /// Starts a turn in one transaction, in this order: opens the thread (created, or its
    /// owner checked), checks the run id, the open interrupts and the message id, then stores
    /// the client's results, closes the calls and approvals left open, appends the message and
    /// records the run.
    async fn begin_turn(&self, turn: &TurnRequest<'_>) -> Result<Turn, StoreError>;
    /// Appends in order, in one transaction (a run step's messages together: issue 36); an
    /// assistant message's `name` carries the agent id.
    async fn append_messages(
        &self,
        thread_id: &str,
        messages: &[Message],
    ) -> Result<(), StoreError>;
    /// A run step's messages, as [`Store::append_messages`], and, when the step found the
    /// company the thread is about, the thread named after it (as
    /// [`Store::name_thread_after_company`]), in one transaction.
    async fn append_step(
        &self,
        thread_id: &str,
        messages: &[Message],
        company_title: Option<&str>,
    ) -> Result<(), StoreError> {
        self.append_messages(thread_id, messages).await?;
        match company_title {
            Some(title) => self.name_thread_after_company(thread_id, title).await,
            None => Ok(()),
        }
    }
    async fn append_message(&self, thread_id: &str, message: &Message) -> Result<(), StoreError> {
        self.append_messages(thread_id, std::slice::from_ref(message))
            .await
    }
    async fn messages(&self, thread_id: &str) -> Result<Vec<Message>, StoreError>;
    /// Whether the thread holds a message with this id (false for a thread that does not
    /// exist): one index lookup, where reading the history would cost its whole length.
    async fn has_message(&self, thread_id: &str, message_id: &str) -> Result<bool, StoreError>;
    /// The photo `id` of `owner`, if they have it (someone else's is `None`, never revealed).
    /// A store that keeps no photos has none.
    async fn photo(&self, owner: &str, id: &str) -> Result<Option<StoredPhoto>, StoreError> {
        let _ = (owner, id);
        Ok(None)
    }

    /// Records a run `running` on its own. A run the orchestrator starts is recorded by its
    /// turn's transaction instead ([`TurnRequest::run_id`]).
    async fn start_run(&self, run_id: &str, thread_id: &str) -> Result<(), StoreError>;
    async fn finish_run(
        &self,
        run_id: &str,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<(), StoreError>;
    /// The run's last messages (its answer), as [`Store::append_messages`], and its end, as
    /// [`Store::finish_run`], in one transaction (issue 36): all or nothing, so a run that is
    /// not stored (`NotFound`) or a thread that is gone leaves the thread as it was.
    async fn append_and_finish_run(
        &self,
        thread_id: &str,
        messages: &[Message],
        run_id: &str,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        self.append_messages(thread_id, messages).await?;
        self.finish_run(run_id, status, error).await
    }
    async fn runs(&self, thread_id: &str) -> Result<Vec<RunRecord>, StoreError>;
    async fn run(&self, run_id: &str) -> Result<RunRecord, StoreError>;

    async fn record_approval_request(&self, record: &ApprovalRecord) -> Result<(), StoreError>;
    async fn record_approval_decision(
        &self,
        approval_id: &str,
        decision: &ApprovalDecision,
    ) -> Result<(), StoreError>;
    async fn approvals(&self, thread_id: &str) -> Result<Vec<ApprovalRecord>, StoreError>;

    async fn record_interrupt(&self, record: &InterruptRecord) -> Result<(), StoreError>;
    /// The thread's interrupts, open and answered, oldest first.
    async fn interrupts(&self, thread_id: &str) -> Result<Vec<InterruptRecord>, StoreError>;
    /// Answers open interrupts, all or none: `Conflict` when one of them is already answered
    /// (a concurrent resume won), `NotFound` when one does not exist.
    async fn resolve_interrupts(
        &self,
        answers: &[(String, InterruptResolution)],
    ) -> Result<(), StoreError>;
}
