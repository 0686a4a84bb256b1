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
use crate::protocol::{Dialect, Event, Verifier};

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

    /// Stores the run's end (`None`: its start was not recorded, so its end is not either,
    /// lest it land on another run's record), then sends the held last event, so a client
    /// that has seen it finds the run stored; reports a stream that broke its dialect.
    ///
    /// With several instances the last event is logged in the same transaction as the end,
    /// after every event before it: the instance that starts the thread's next run (it waits
    /// for this one to be stored ended) numbers on from the true last number, and a follower
    /// there never sees the end before it is stored.
    pub async fn end(&mut self, end: Option<(RunStatus, Option<&str>)>) {
        let orchestrator = self.orchestrator.clone();
        let peers = &orchestrator.peers;
        let max_bytes = orchestrator.config().journal.max_bytes_per_thread;
        if !peers.shared() {
            if let Some((status, error)) = end
                && let Err(e) = orchestrator
                    .store()
                    .finish_run(&self.run_id, status, error)
                    .await
            {
                tracing::error!(error = %e, run_id = %self.run_id, "could not record run end");
            }
            if let Some(last) = self.last_event.take() {
                self.publish(last);
            }
        } else {
            let last = self.last_event.take().and_then(|last| {
                let last = self.checked(last);
                self.journal.number(&self.run_id, self.dialect, &last)
            });
            let shared = last.as_ref().map(|numbered| self.shared(numbered));
            let unlogged = match end {
                Some((status, error)) => {
                    match peers
                        .finish_run(&self.run_id, status, error, shared.clone())
                        .await
                    {
                        Ok(()) => None,
                        Err(e) => {
                            tracing::error!(error = %e, run_id = %self.run_id, "could not record run end");
                            shared
                        }
                    }
                }
                None => shared,
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
