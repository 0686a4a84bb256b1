//! What an instance shares with the other instances on the same database: the events its runs
//! send (so a client that comes back on another instance resumes there), the numbering of a
//! thread's events, and approval decisions that arrive on another instance than the run's.
//!
//! One instance alone ([`Alone`], the SQLite default) shares nothing. The PostgreSQL
//! implementation lives in `server::cluster`: the events go to a table, LISTEN/NOTIFY rings
//! the other instances.

use std::sync::Arc;

use super::approval::Refusal;
use super::store::StoreError;

/// One event as an instance sent it on a thread: its number and its JSON (`seq` included in
/// AGORA's dialect).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedEvent {
    pub thread_id: String,
    pub seq: u64,
    pub run_id: Arc<str>,
    pub json: Arc<str>,
}

/// A user's answer to an approval, on its way to the instance whose run waits for it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForwardedDecision {
    pub approval_id: String,
    pub user_id: String,
    pub approved: bool,
    pub feedback: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_args: Option<serde_json::Map<String, serde_json::Value>>,
}

#[async_trait::async_trait]
pub trait Peers: Send + Sync + 'static {
    /// Whether other instances may exist (and the calls below do anything).
    fn shared(&self) -> bool;

    /// An event this instance's run sent; queued for the others, never waited for.
    fn event_sent(&self, event: SharedEvent);

    /// The number a new run's events on the thread must be above: no instance numbered one
    /// of its events higher.
    async fn seq_floor(&self, thread_id: &str) -> Result<u64, StoreError>;

    /// Every event of the thread from `after_seq` on (that one included) that any instance
    /// sent, when the log still holds `after_seq` itself (so nothing between is missing);
    /// `None` otherwise.
    async fn events_after(
        &self,
        thread_id: &str,
        after_seq: u64,
    ) -> Result<Option<Vec<SharedEvent>>, StoreError>;

    /// Every logged event of the thread from `run_id`'s first on (empty when the log has
    /// none of it): a run of another instance, replayed to a client that reloads here.
    async fn run_events(
        &self,
        thread_id: &str,
        run_id: &str,
    ) -> Result<Vec<SharedEvent>, StoreError>;

    /// Asks the instances that run them to stop `user_id`'s running runs: the run `run_id`, or
    /// every run on `thread_id` (none on a thread that holds the message `unless_held`).
    /// Durable (a mark on the run, which its instance finds when rung or, the ring missed, at
    /// its next lease renewal). Returns the runs asked.
    async fn cancel_elsewhere(
        &self,
        user_id: &str,
        run_id: Option<&str>,
        thread_id: Option<&str>,
        unless_held: Option<&str>,
    ) -> Result<Vec<String>, StoreError>;

    /// Hands `decision` to the instance whose run waits for it. Refused like a local answer:
    /// unknown, already answered, someone else's, or no live run waits for it any more.
    async fn forward_decision(&self, decision: ForwardedDecision) -> Result<(), Refusal>;
}

/// One instance alone: nothing to share.
pub struct Alone;

#[async_trait::async_trait]
impl Peers for Alone {
    fn shared(&self) -> bool {
        false
    }

    fn event_sent(&self, _event: SharedEvent) {}

    async fn seq_floor(&self, _thread_id: &str) -> Result<u64, StoreError> {
        Ok(0)
    }

    async fn events_after(
        &self,
        _thread_id: &str,
        _after_seq: u64,
    ) -> Result<Option<Vec<SharedEvent>>, StoreError> {
        Ok(None)
    }

    async fn run_events(
        &self,
        _thread_id: &str,
        _run_id: &str,
    ) -> Result<Vec<SharedEvent>, StoreError> {
        Ok(Vec::new())
    }

    async fn cancel_elsewhere(
        &self,
        _user_id: &str,
        _run_id: Option<&str>,
        _thread_id: Option<&str>,
        _unless_held: Option<&str>,
    ) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }

    async fn forward_decision(&self, _decision: ForwardedDecision) -> Result<(), Refusal> {
        Err(Refusal::Unknown)
    }
}
