//! A client that lost its stream comes back: exactly the events it missed when the thread's
//! journal still has them, else a snapshot of the stored thread, then live. Both transports'
//! catch-up (`agora:resume` on `/ws`, `GET /agui/runs/{runId}/events`) is written here.

use serde_json::json;

use super::journal::{SnapshotReason, StoredThread};
use super::store::{RunRecord, RunStatus, StoreError};
use super::thread::{last_agent, now_millis};
use super::{Orchestrator, Outbox, inspection};
use crate::protocol::{Event, Message, MessagesSnapshot};

/// How [`Orchestrator::resume`] answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resumption {
    /// A snapshot was sent (a reload, a gap, an unknown number), not only a replay.
    pub snapshot: bool,
    /// Everything was queued; false when the client's queue closed meanwhile.
    pub queued: bool,
}

impl Orchestrator {
    /// A client of `user_id` comes back to a thread (`agora:resume`): it is sent exactly the
    /// events after `after_seq` when the journal still has them, else a snapshot of the stored
    /// thread and the live run from its start; then it follows the thread.
    pub async fn resume(
        &self,
        thread_id: &str,
        after_seq: Option<u64>,
        connection_id: u64,
        events: &Outbox,
    ) -> Result<Resumption, StoreError> {
        let journal = self.journals.journal(thread_id);
        let reason = match after_seq {
            None => SnapshotReason::Requested,
            Some(after) => {
                let mut replayed = journal.replay(connection_id, events, after);
                if replayed.is_err()
                    && self.peers.shared()
                    && let Some(shared) = self.peers.events_after(thread_id, after).await?
                {
                    // The run went on (or began) on another instance: what it sent is in the
                    // shared log.
                    let max_bytes = self.config.journal.max_bytes_per_thread;
                    let running = self
                        .store
                        .runs(thread_id)
                        .await?
                        .into_iter()
                        .rev()
                        .find(|run| run.status == RunStatus::Running);
                    journal.import(
                        &shared,
                        max_bytes,
                        running.as_ref().map(|run| run.id.as_str()),
                    );
                    replayed = journal.replay(connection_id, events, after);
                }
                match replayed {
                    Ok(sent) => {
                        self.journals.followed_by(&journal, connection_id);
                        return Ok(Resumption {
                            snapshot: false,
                            queued: sent.is_ok(),
                        });
                    }
                    Err(reason) => reason,
                }
            }
        };
        // Read, then send under the journal's lock; read again if a run began in between.
        for _ in 0..3 {
            let stored = self.stored_thread(thread_id).await?;
            if let Ok(sent) = journal.snapshot(connection_id, events, reason, stored) {
                self.journals.followed_by(&journal, connection_id);
                return Ok(Resumption {
                    snapshot: true,
                    queued: sent.is_ok(),
                });
            }
        }
        Err(StoreError::Conflict(
            "the thread kept changing while it was read".to_owned(),
        ))
    }

    /// An HTTP stream comes back to `run` (whose thread the caller owns): the run's kept
    /// events after `after_seq` (all of them without), then live while it runs. When the
    /// journal no longer has them: RUN_STARTED, a snapshot of the stored thread and how the
    /// run ended.
    pub async fn reattach(
        &self,
        run: &RunRecord,
        after_seq: Option<u64>,
        connection_id: u64,
        events: &Outbox,
    ) -> Result<(), StoreError> {
        let kept =
            self.journals
                .reattach(&run.thread_id, &run.id, after_seq, connection_id, events);
        if kept.is_some() {
            return Ok(());
        }
        let messages = self.stored_messages(&run.thread_id).await?;
        let snapshot = Event::MessagesSnapshot(MessagesSnapshot {
            messages,
            ..Default::default()
        });
        let end = match run.status {
            RunStatus::Finished => Event::run_finished(&run.thread_id, &run.id),
            other => Event::run_error(
                format!(
                    "De run is niet meer te volgen: hij is {}.",
                    other.wire_name()
                ),
                other.wire_name(),
            ),
        };
        let now = now_millis();
        for event in [Event::run_started(&run.thread_id, &run.id), snapshot, end] {
            let _ = events.send(&event.with_timestamp(now));
        }
        Ok(())
    }

    /// The stored messages of a thread; none for a thread not stored (yet).
    async fn stored_messages(&self, thread_id: &str) -> Result<Vec<Message>, StoreError> {
        match self.store.messages(thread_id).await {
            Ok(messages) => Ok(messages),
            Err(StoreError::NotFound(_)) => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// What a snapshot of the thread shows when the journal knows nothing of it (after a
    /// restart): the stored messages, the state the last run left and how that run ended.
    async fn stored_thread(&self, thread_id: &str) -> Result<StoredThread, StoreError> {
        let messages = self.stored_messages(thread_id).await?;
        let last_run = match self.store.runs(thread_id).await {
            Ok(runs) => runs.into_iter().max_by_key(|r| r.started_at),
            Err(StoreError::NotFound(_)) => None,
            Err(e) => return Err(e),
        };
        let status = last_run
            .as_ref()
            .map_or("idle", |run| run.status.wire_name());
        // The shared state says `completed` where the store says `finished`.
        let state_status = match status {
            "finished" => "completed",
            other => other,
        };
        let state = json!({
            "threadId": thread_id,
            "runId": last_run.as_ref().map(|r| r.id.clone()),
            "currentAgent": last_agent(&messages),
            "status": state_status,
            "inspection": inspection::InspectionState::from_messages(&messages),
        });
        Ok(StoredThread {
            last_run: last_run.map(|r| (r.id, status.to_owned())),
            messages,
            state,
        })
    }
}
