//! The runs going on in this process: at most one per thread, started by [`Orchestrator`]
//! once a dialect has prepared it, stopped by a new turn, a cancel, a closed account or too
//! many runs nobody follows.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::dialect::{RunInfo, Start};
use super::inspection::InspectionReader;
use super::journal::LiveRun;
use super::run::{Publisher, Run, debug_verifier};
use super::store::RunStatus;
use super::{CANCEL_WAIT, Orchestrator, Outbox, metrics};

/// How soon a stop asked of another instance first looks whether the run is stored ended;
/// each look after waits twice as long, up to [`STORED_END_POLL_MAX`] (a dead instance's
/// run is waited for until its lease runs out: 30 s by default).
const STORED_END_POLL: std::time::Duration = std::time::Duration::from_millis(50);
const STORED_END_POLL_MAX: std::time::Duration = std::time::Duration::from_millis(500);

/// The run a thread has going, so a new input or a cancel can stop it.
pub(crate) struct ActiveRun {
    run_id: String,
    user_id: String,
    /// When it started: of a user's detached runs past the limit, the oldest are cancelled.
    started: Instant,
    cancel: CancellationToken,
    /// Cancelled once the run has ended and is stored.
    done: CancellationToken,
    /// Awaited before the next run on the thread starts, so streams never interleave.
    task: JoinHandle<RunStatus>,
}

impl Orchestrator {
    fn active(&self) -> std::sync::MutexGuard<'_, HashMap<String, ActiveRun>> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands a prepared run to a task, registered as the thread's active run.
    pub(crate) fn spawn(
        self: &Arc<Self>,
        start: Start,
        user_id: &str,
        connection_id: u64,
        events: Outbox,
        seq_floor: u64,
    ) -> String {
        let Start {
            thread_id,
            run_id,
            messages,
            agent,
            adapter,
            listening,
        } = start;
        let dialect = adapter.dialect();
        let only_run = adapter.follows_run_only();
        let cancel = CancellationToken::new();
        let done = CancellationToken::new();
        // The starter follows the thread (a socket) or only this run (an HTTP stream).
        let journal = self.journals.begin_run(
            &thread_id,
            LiveRun {
                run_id: run_id.as_str().into(),
                user_id: user_id.to_owned(),
                dialect,
                first_seq: 0,
                messages_before: messages.len(),
            },
            Some((connection_id, events, only_run)),
            seq_floor,
        );
        let started = Instant::now();
        let run = Run {
            info: RunInfo {
                orchestrator: self.clone(),
                thread_id: thread_id.clone(),
                run_id: run_id.clone(),
                user_id: user_id.to_owned(),
                connection_id,
            },
            adapter,
            out: Publisher {
                orchestrator: self.clone(),
                thread_id: thread_id.clone(),
                run_id: run_id.clone(),
                dialect,
                journal: journal.clone(),
                verifier: debug_verifier(dialect),
                started,
                first_text_seen: false,
                events_published: metrics::events_published(dialect),
                last_event: None,
            },
            cancel: cancel.clone(),
            messages: messages.into(),
            unsaved: 0,
            agent,
            open_step: None,
            open_text: None,
            announced: Default::default(),
            usage: Default::default(),
            refused_turns: 0,
            listening,
            images: None,
            inspection: InspectionReader::default(),
            company_title: None,
        };
        let this = self.clone();
        let finished_thread = thread_id.clone();
        let finished_run = run_id.clone();
        let finished = done.clone();
        let mut active = self.active();
        metrics::run_started(dialect);
        let task = tokio::spawn(async move {
            let status = run.execute().await;
            metrics::run_ended(status.wire_name(), started.elapsed());
            journal.end_run(&finished_run, status.wire_name());
            let mut active = this.active();
            if active
                .get(&finished_thread)
                .is_some_and(|a| a.run_id == finished_run)
            {
                active.remove(&finished_thread);
            }
            finished.cancel();
            status
        });
        active.insert(
            thread_id,
            ActiveRun {
                run_id: run_id.clone(),
                started: Instant::now(),
                user_id: user_id.to_owned(),
                cancel,
                done,
                task,
            },
        );
        run_id
    }

    /// Whether a run of `user_id` goes on on the thread here.
    pub(crate) fn running_for(&self, thread_id: &str, user_id: &str) -> bool {
        self.active()
            .get(thread_id)
            .is_some_and(|run| run.user_id == user_id)
    }

    /// Stops the thread's run, if any, and waits until it has ended and is stored.
    pub(crate) async fn stop_thread(&self, thread_id: &str) {
        let previous = self.active().remove(thread_id);
        if let Some(previous) = previous {
            previous.cancel.cancel();
            let _ = previous.task.await;
        }
    }

    /// Stops `user_id`'s active run with this id, from any connection, here or (several
    /// instances) on the instance that runs it, and waits (at most [`CANCEL_WAIT`]) until it
    /// has ended and is stored. Returns its thread, or `None` when no such run is active.
    pub async fn cancel_run(&self, run_id: &str, user_id: &str) -> Option<String> {
        let here = {
            let active = self.active();
            active
                .iter()
                .find(|(_, run)| run.run_id == run_id && run.user_id == user_id)
                .map(|(thread, run)| {
                    run.cancel.cancel();
                    (thread.clone(), run.done.clone())
                })
        };
        let Some((thread_id, done)) = here else {
            return self.cancel_run_elsewhere(run_id, user_id).await;
        };
        // A run whose reader stopped reading can hang on its full queue; it is stopped anyway.
        let _ = tokio::time::timeout(CANCEL_WAIT, done.cancelled()).await;
        Some(thread_id)
    }

    /// [`Self::cancel_run`] for a run of another instance.
    async fn cancel_run_elsewhere(&self, run_id: &str, user_id: &str) -> Option<String> {
        if !self.peers.shared() {
            return None;
        }
        let asked = self
            .peers
            .cancel_elsewhere(user_id, Some(run_id), None, None)
            .await
            .inspect_err(|e| tracing::error!(error = %e, run_id, "cancel not asked"))
            .ok()?;
        if asked.is_empty() {
            return None;
        }
        self.until_stored_ended(&asked).await;
        self.store.run(run_id).await.ok().map(|run| run.thread_id)
    }

    /// Stops `user_id`'s runs on the thread that other instances run, unless the thread holds
    /// the message `unless_held` already (a resend), and waits (at most [`CANCEL_WAIT`]) until
    /// they are stored ended: a new turn follows the last one on every instance, as here.
    pub(crate) async fn stop_thread_elsewhere(
        &self,
        thread_id: &str,
        user_id: &str,
        unless_held: Option<&str>,
    ) -> Result<(), super::store::StoreError> {
        if !self.peers.shared() {
            return Ok(());
        }
        let asked = self
            .peers
            .cancel_elsewhere(user_id, None, Some(thread_id), unless_held)
            .await?;
        self.until_stored_ended(&asked).await;
        Ok(())
    }

    /// Waits until none of `run_ids` (runs of other instances, asked to stop) is stored
    /// `running`. A live instance stops its run at once (rung) or at its next lease renewal;
    /// a dead one's run is waited for until its lease runs out, no longer: then it is
    /// interrupted here (see [`super::cluster::Peers::settle_run`]), so the next run never
    /// overlaps it. Only a run whose instance keeps renewing its lease but does not stop is
    /// given up on, after [`CANCEL_WAIT`].
    async fn until_stored_ended(&self, run_ids: &[String]) {
        let given_up = tokio::time::Instant::now() + CANCEL_WAIT;
        for run_id in run_ids {
            let mut first_expiry = None;
            let mut pause = STORED_END_POLL;
            loop {
                let expiry = match self.peers.settle_run(run_id).await {
                    Ok(Some(expiry)) => expiry,
                    Ok(None) => break,
                    Err(e) => {
                        tracing::warn!(error = %e, run_id, "cannot tell whether the run stopped; going on");
                        break;
                    }
                };
                let renewed = *first_expiry.get_or_insert(expiry) < expiry;
                if renewed && tokio::time::Instant::now() >= given_up {
                    tracing::warn!(
                        run_id,
                        "asked to stop, its instance lives but has not stopped it; going on"
                    );
                    break;
                }
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(STORED_END_POLL_MAX);
            }
        }
    }

    /// Stops the run with this id if it runs here, whoever it belongs to: another instance
    /// checked the owner and marked it (`agora_cancels`). Whether it was here.
    pub fn cancel_here(&self, run_id: &str) -> bool {
        let active = self.active();
        let run = active.values().find(|run| run.run_id == run_id);
        if let Some(run) = run {
            tracing::info!(run_id, "stopped on another instance's request");
            run.cancel.cancel();
        }
        run.is_some()
    }

    /// [`Self::cancel`], and (several instances) the matching runs of other instances when
    /// none was here: by run id, by thread, or every thread this connection follows.
    pub async fn cancel_anywhere(
        &self,
        user_id: &str,
        connection_id: u64,
        run_id: Option<&str>,
        thread_id: Option<&str>,
    ) -> Result<usize, super::store::StoreError> {
        let here = self.cancel(user_id, connection_id, run_id, thread_id);
        if here > 0 || !self.peers.shared() {
            return Ok(here);
        }
        let threads = match (run_id, thread_id) {
            (None, None) => self
                .journals
                .followed_threads(connection_id)
                .into_iter()
                .map(Some)
                .collect(),
            (_, thread) => vec![thread.map(str::to_owned)],
        };
        let mut asked = 0;
        for thread in threads {
            asked += self
                .peers
                .cancel_elsewhere(user_id, run_id, thread.as_deref(), None)
                .await?
                .len();
        }
        Ok(asked)
    }

    /// Stops runs of `user_id` (a run belongs to its user, not to the socket that started
    /// it): by run id, by thread, or (neither given) every run this connection follows.
    /// Returns how many runs were asked to stop.
    pub fn cancel(
        &self,
        user_id: &str,
        connection_id: u64,
        run_id: Option<&str>,
        thread_id: Option<&str>,
    ) -> usize {
        let followed = (run_id.is_none() && thread_id.is_none())
            .then(|| self.journals.followed_threads(connection_id));
        let active = self.active();
        let mut stopped = 0;
        for (thread, run) in active.iter() {
            let matches = run.user_id == user_id
                && followed.as_ref().is_none_or(|f| f.contains(thread))
                && run_id.is_none_or(|id| id == run.run_id)
                && thread_id.is_none_or(|id| id == thread);
            if matches {
                run.cancel.cancel();
                stopped += 1;
            }
        }
        stopped
    }

    /// Stops every run of `user_id`, on any transport: the account was disabled, deleted or
    /// its access changed. Returns how many runs were asked to stop.
    pub fn cancel_user(&self, user_id: &str) -> usize {
        let active = self.active();
        let mut stopped = 0;
        for run in active.values().filter(|run| run.user_id == user_id) {
            run.cancel.cancel();
            stopped += 1;
        }
        stopped
    }

    /// Called when a connection closes: it follows nothing any more. Its runs go on (up to
    /// their next approval, which waits for a client that comes back), but a user keeps at
    /// most [`super::OrchestratorConfig::max_detached_runs`] runs nobody follows: the oldest
    /// of the rest are cancelled.
    pub fn disconnect(&self, connection_id: u64) {
        self.journals.leave(connection_id);
        let active = self.active();
        let mut detached: HashMap<&str, Vec<&ActiveRun>> = HashMap::new();
        for (thread, run) in active.iter() {
            if !self.journals.attended(thread) {
                detached.entry(&run.user_id).or_default().push(run);
            }
        }
        let keep = self.config().max_detached_runs;
        for (user, mut runs) in detached {
            if runs.len() <= keep {
                continue;
            }
            runs.sort_by_key(|run| std::cmp::Reverse(run.started));
            for run in &runs[keep..] {
                tracing::info!(user, run_id = %run.run_id, "too many detached runs; the oldest is cancelled");
                run.cancel.cancel();
            }
        }
    }
}
