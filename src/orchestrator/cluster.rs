//! What an instance shares with the other instances on the same database: the events its runs
//! send (so a client that comes back on another instance resumes there), the numbering of a
//! thread's events, and approval decisions that arrive on another instance than the run's.
//!
//! One instance alone ([`Alone`], the SQLite default) shares nothing. The PostgreSQL
//! implementation lives in `server::cluster`: the events go to a table, LISTEN/NOTIFY rings
//! the other instances.

use std::sync::Arc;

use super::approval::Refusal;
use super::store::{RunStatus, StoreError};

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

/// Checks a user's edited arguments against the tool's own rules (tool name, arguments): the
/// instance that answers checks them before it keeps or forwards the answer, so a bad edit is
/// refused to the one who sent it and the approval stays open for a corrected one.
pub type EditCheck<'a> = &'a (dyn Fn(&str, &serde_json::Value) -> Result<(), String> + Send + Sync);

#[async_trait::async_trait]
pub trait Peers: Send + Sync + 'static {
    /// Whether other instances may exist (and the calls below do anything).
    fn shared(&self) -> bool;

    /// An event this instance's run sent; queued for the others, never waited for.
    fn event_sent(&self, event: SharedEvent);

    /// Stores a run's end and logs its last event in one transaction, after every event this
    /// instance sent before it: nobody, on any instance, sees the run's end before it is
    /// stored, nor the run stored ended before its events are logged; and the instance that
    /// starts the thread's next run (it waits for this one to be stored ended) reads the true
    /// last number and numbers on from it, contiguous and never twice.
    async fn finish_run(
        &self,
        run_id: &str,
        status: RunStatus,
        error: Option<&str>,
        last: Option<SharedEvent>,
    ) -> Result<(), StoreError>;

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

    /// Where a run this instance asked another to stop stands: `None` once it is stored
    /// ended, or its lease has run out (its instance died: then it is marked interrupted
    /// here and its followers told); otherwise when its lease runs out (the database's
    /// milliseconds: a later value than before means its instance renewed it, so lives).
    async fn settle_run(&self, run_id: &str) -> Result<Option<i64>, StoreError>;

    /// Hands `decision` to the instance whose run waits for it. Refused like a local answer:
    /// unknown, already answered, someone else's, no live run waits for it any more, or
    /// approved with edits `check` refuses (then nothing is kept: the approval stays open).
    async fn forward_decision(
        &self,
        decision: ForwardedDecision,
        check: EditCheck<'_>,
    ) -> Result<(), Refusal>;
}

/// One instance alone: nothing to share.
pub struct Alone;

#[async_trait::async_trait]
impl Peers for Alone {
    fn shared(&self) -> bool {
        false
    }

    fn event_sent(&self, _event: SharedEvent) {}

    async fn finish_run(
        &self,
        _run_id: &str,
        _status: RunStatus,
        _error: Option<&str>,
        _last: Option<SharedEvent>,
    ) -> Result<(), StoreError> {
        // Never called: alone, the run's end goes to the store and nothing is logged.
        Err(StoreError::Backend(
            "no other instance: store the run's end in the store".to_owned(),
        ))
    }

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

    async fn settle_run(&self, _run_id: &str) -> Result<Option<i64>, StoreError> {
        Ok(None)
    }

    async fn forward_decision(
        &self,
        _decision: ForwardedDecision,
        _check: EditCheck<'_>,
    ) -> Result<(), Refusal> {
        Err(Refusal::Unknown)
    }
}
