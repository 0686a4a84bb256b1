//! What the orchestrator needs from persistence. The SQLite implementation lives in
//! `server::store`; a PostgreSQL one can follow for several instances behind a load balancer.

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
    /// Appends in order; an assistant message's `name` carries the agent id.
    async fn append_message(&self, thread_id: &str, message: &Message) -> Result<(), StoreError>;
    async fn messages(&self, thread_id: &str) -> Result<Vec<Message>, StoreError>;

    async fn start_run(&self, run_id: &str, thread_id: &str) -> Result<(), StoreError>;
    async fn finish_run(
        &self,
        run_id: &str,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<(), StoreError>;
    async fn runs(&self, thread_id: &str) -> Result<Vec<RunRecord>, StoreError>;

    async fn record_approval_request(&self, record: &ApprovalRecord) -> Result<(), StoreError>;
    async fn record_approval_decision(
        &self,
        approval_id: &str,
        decision: &ApprovalDecision,
    ) -> Result<(), StoreError>;
    async fn approvals(&self, thread_id: &str) -> Result<Vec<ApprovalRecord>, StoreError>;
}
