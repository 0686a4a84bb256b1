//! Where a run's events go: checked (debug builds), numbered in the thread's journal, counted,
//! shared with the other instances. The run's last event is held until its end is stored, so
//! a client that has seen it finds the run stored; with several instances it is numbered and
//! logged (with every event before it) before the end is stored, so the instance that starts
//! the thread's next run numbers on from it.

use std::sync::Arc;
use std::time::Instant;

use super::super::dialect::Emit;
use super::super::journal::{Journal, Numbered};
use super::super::store::RunStatus;
use super::super::thread::now_millis;
use super::super::{Orchestrator, cluster, metrics};
use crate::protocol::{Dialect, ErrorCode, Event, Message, Verifier};

pub(crate) struct Publisher {
    pub orchestrator: Arc<Orchestrator>,
    pub thread_id: String,
    pub run_id: String,
    pub dialect: Dialect,
    /// The thread's journal: events are numbered there and go to whoever follows the thread,
    /// so the run goes on when its socket closes.
    pub journal: Arc<Journal>,
    /// Checks every event in debug builds; a violation there is a bug in the run or its
    /// dialect's adapter.
    pub verifier: Option<Verifier>,
    /// When the run started: its time to first text (`/metrics`).
    pub started: Instant,
    /// Whether its first text went out, so time to first text is recorded once.
    pub first_text_seen: bool,
    /// Counts the events it publishes (`/metrics`), one handle for the whole run.
    pub events_published: ::metrics::Counter,
    /// The run's last event (RUN_FINISHED, or the standard dialect's RUN_ERROR), held until
    /// the run's end is stored.
    pub last_event: Option<Event>,
}

impl Publisher {
    /// Sends `event`, or holds it when it is the run's last.
    pub fn send(&mut self, event: Event, last: bool) {
        if last {
            self.last_event = Some(event);
        } else {
            self.publish(event);
        }
    }

    /// Stores the run's end with its last messages (`messages`: its answer, or a failed run's
    /// partial one, not stored yet) in one transaction, then sends the held last event, so a
    /// client that has seen it finds the run and its answer stored; reports a stream that
    /// broke its dialect. Returns whether the messages are kept.
    ///
    /// When they could not be stored, `instead` (given for a run whose steps went well) goes
    /// out in place of the held last event: a client is never told of an answer that is not
    /// kept. Without it the last event goes out all the same (a failed run's partial answer).
    ///
    /// With several instances the last event is logged in the same transaction as the end,
    /// after every event before it: the instance that starts the thread's next run (it waits
    /// for this one to be stored ended) numbers on from the true last number, and a follower
    /// there never sees the end before it is stored. There the messages are stored first, in
    /// their own transaction: the log writer stores the ends of many runs with their events
    /// in one batch, which one run's failed append (its thread deleted meanwhile) must not
    /// undo for all.
    pub async fn end(
        &mut self,
        status: RunStatus,
        error: Option<&str>,
        messages: &[Message],
        instead: Option<Vec<Event>>,
    ) -> bool {
        let orchestrator = self.orchestrator.clone();
        let store = orchestrator.store();
        let peers = &orchestrator.peers;
        let max_bytes = orchestrator.config().journal.max_bytes_per_thread;
        let mut kept = true;
        if !peers.shared() {
            if let Err(e) = store
                .append_and_finish_run(&self.thread_id, messages, &self.run_id, status, error)
                .await
            {
                tracing::error!(error = %e, run_id = %self.run_id, "could not record run end");
                kept = messages.is_empty();
                if !kept && let Some(instead) = instead {
                    // Its end as a failed run, if the store takes that now.
                    let why = format!("{}: {e}", ErrorCode::StorageError);
                    if let Err(e) = store
                        .finish_run(&self.run_id, RunStatus::Error, Some(&why))
                        .await
                    {
                        tracing::error!(error = %e, run_id = %self.run_id, "could not record run end");
                    }
                    self.last_event = None;
                    for event in instead {
                        self.publish(event);
                    }
                }
            }
            if let Some(last) = self.last_event.take() {
                self.publish(last);
            }
        } else {
            let (mut status, mut error) = (status, error.map(str::to_owned));
            if !messages.is_empty()
                && let Err(e) = store.append_messages(&self.thread_id, messages).await
            {
                tracing::error!(error = %e, run_id = %self.run_id, "could not store the run's last messages");
                kept = false;
                if let Some(mut instead) = instead {
                    status = RunStatus::Error;
                    error = Some(format!("{}: {e}", ErrorCode::StorageError));
                    self.last_event = instead.pop();
                    for event in instead {
                        self.publish(event);
                    }
                }
            }
            let last = self.last_event.take().and_then(|last| {
                let last = self.checked(last);
                self.journal.number(&self.run_id, self.dialect, &last)
            });
            let shared = last.as_ref().map(|numbered| self.shared(numbered));
            let unlogged = match peers
                .finish_run(&self.run_id, status, error.as_deref(), shared.clone())
                .await
            {
                Ok(()) => None,
                Err(e) => {
                    tracing::error!(error = %e, run_id = %self.run_id, "could not record run end");
                    shared
                }
            };
            if let Some(event) = unlogged {
                peers.event_sent(event);
            }
            if let Some(numbered) = last {
                self.journal.deliver(&numbered, max_bytes);
            }
        }
        if let Some(verifier) = self.verifier.take()
            && let Some(violation) = verifier.finish()
        {
            let dialect = self.dialect;
            tracing::error!(run_id = %self.run_id, %violation, ?dialect, "BUG: event stream breaks its dialect");
        }
        kept
    }

    /// Checks `event` (debug builds), numbers it and hands it to whoever follows the thread.
    fn publish(&mut self, event: Event) {
        let event = self.checked(event);
        let max_bytes = self.orchestrator.config().journal.max_bytes_per_thread;
        let published = self
            .journal
            .publish(&self.run_id, self.dialect, &event, max_bytes);
        if let Some(numbered) = published
            && self.orchestrator.peers.shared()
        {
            self.orchestrator.peers.event_sent(self.shared(&numbered));
        }
    }

    /// Stamps, checks (debug builds) and counts an event about to be numbered.
    fn checked(&mut self, event: Event) -> Event {
        let event = event.with_timestamp(now_millis());
        if let Some(verifier) = &mut self.verifier {
            for violation in verifier.push(&event) {
                tracing::error!(run_id = %self.run_id, %violation, "BUG: event stream breaks its dialect");
            }
        }
        if !self.first_text_seen && matches!(event, Event::TextMessageContent(_)) {
            self.first_text_seen = true;
            metrics::first_text(self.started.elapsed());
        }
        self.events_published.increment(1);
        event
    }

    /// A numbered event as the other instances get it.
    fn shared(&self, numbered: &Numbered) -> cluster::SharedEvent {
        cluster::SharedEvent {
            thread_id: self.thread_id.clone(),
            seq: numbered.seq,
            run_id: numbered.run_id.clone(),
            json: numbered.json.clone(),
        }
    }
}

/// An adapter's own events are never the run's last.
impl Emit for Publisher {
    fn emit(&mut self, event: Event) {
        self.send(event, false);
    }
}

/// Builds the verifier a run uses: on in debug builds, where a violation is a bug to fix.
pub(crate) fn debug_verifier(dialect: Dialect) -> Option<Verifier> {
    cfg!(debug_assertions).then(|| Verifier::new(dialect))
}
