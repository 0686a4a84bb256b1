//! A client that lost its stream comes back: exactly the events it missed when the thread's
//! journal still has them, else a snapshot of the stored thread, then live. Both transports'
//! catch-up (`agora:resume` on `/ws`, `GET /agui/runs/{runId}/events`) is written here.

use serde_json::json;

use std::time::Duration;

use super::journal::{RunStart, SnapshotReason, StoredThread};
use super::store::{RunRecord, RunStatus, StoreError};
use super::thread::{last_agent, now_millis};
use super::{Orchestrator, Outbox, inspection};
use crate::protocol::{Event, Message, MessagesSnapshot};

/// How long a resume waits for another instance's event log to reach the client's number.
const LOG_CATCH_UP: Duration = Duration::from_secs(1);
/// How often it looks meanwhile.
const LOG_POLL: Duration = Duration::from_millis(25);

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
        let max_bytes = self.config.journal.max_bytes_per_thread;
        let reason = match after_seq {
            None => SnapshotReason::Requested,
            Some(after) => {
                let mut replayed = journal.replay(connection_id, events, after);
                if replayed.is_err() && self.peers.shared() {
                    // The run went on (or began) on another instance: what it sent is in the
                    // shared log.
                    let elsewhere = self.running_elsewhere(&journal).await?;
                    if let Some(shared) = self
                        .logged_after(thread_id, after, elsewhere.is_some())
                        .await?
                    {
                        journal.import(&shared, max_bytes, elsewhere.as_deref());
                        replayed = journal.replay(connection_id, events, after);
                    }
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
        // A run of another instance goes on: its events from its start, so the snapshot
        // shows it live (its approval request included) as it would a run of this instance.
        let mut elsewhere = None;
        if self.peers.shared()
            && let Some(run_id) = self.running_elsewhere(&journal).await?
        {
            let logged = self.peers.run_events(thread_id, &run_id).await?;
            if let Some(first) = logged.first() {
                elsewhere = Some(first.seq);
                journal.import(&logged, max_bytes, Some(&run_id));
            }
        }
        // Read, then send under the journal's lock; read again if a run began in between.
        for _ in 0..3 {
            let mut stored = self.stored_thread(thread_id).await?;
            stored.elsewhere = elsewhere.map(|first_seq| RunStart {
                first_seq,
                messages_before: through_last_user_message(&stored.messages),
            });
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

    /// The thread's run going on on another instance, as the store says: `running` while
    /// this instance's journal has no run of its own.
    async fn running_elsewhere(
        &self,
        journal: &super::journal::Journal,
    ) -> Result<Option<String>, StoreError> {
        if journal.live_run().is_some() {
            return Ok(None);
        }
        let runs = match self.store.runs(&journal.thread_id).await {
            Ok(runs) => runs,
            Err(StoreError::NotFound(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        Ok(runs
            .into_iter()
            .rev()
            .find(|run| run.status == RunStatus::Running)
            .map(|run| run.id))
    }

    /// The logged events from `after_seq` on (see `Peers::events_after`). A number newer than
    /// the log, while a run goes on elsewhere, is one its instance sent a moment ago and has
    /// not written yet (writes are batched): it is waited for, up to [`LOG_CATCH_UP`].
    async fn logged_after(
        &self,
        thread_id: &str,
        after_seq: u64,
        running_elsewhere: bool,
    ) -> Result<Option<Vec<super::cluster::SharedEvent>>, StoreError> {
        let since = std::time::Instant::now();
        loop {
            let logged = self.peers.events_after(thread_id, after_seq).await?;
            if logged.is_some() || !running_elsewhere || since.elapsed() >= LOG_CATCH_UP {
                return Ok(logged);
            }
            if self.peers.seq_floor(thread_id).await? >= after_seq {
                // The log reached the number since the read above (its write committed in
                // between), or is past it and lacks it (pruned, never ours): one last read.
                return self.peers.events_after(thread_id, after_seq).await;
            }
            tokio::time::sleep(LOG_POLL).await;
        }
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
            "listening": self.store.listening(thread_id).await?,
        });
        Ok(StoredThread {
            last_run: last_run.map(|r| (r.id, status.to_owned())),
            messages,
            state,
            elsewhere: None,
        })
    }
}

/// How many stored messages come before a run that is still going on: the thread up to the
/// user's message that started it (a run stores its own messages as it goes).
fn through_last_user_message(messages: &[Message]) -> usize {
    messages
        .iter()
        .rposition(|m| matches!(m, Message::User(_)))
        .map_or(messages.len(), |i| i + 1)
}
