//! Several instances on one PostgreSQL database, sharing the work through it and nothing else
//! (no home-made cluster protocol):
//! - every event a run sends is also written to `thread_events` (in batches, off the run's
//!   path) and rings `NOTIFY agora_events` with the thread id; an instance whose clients follow
//!   that thread reads what it has not seen and hands it to them, and a client that comes back
//!   on any instance catches up from the table;
//! - an approval answered on an instance whose runs do not wait for it is checked against the
//!   database and sent with `NOTIFY agora_decisions` to the one whose run does;
//! - each instance renews the lease on its running runs every third of the lease, and marks
//!   `interrupted` the runs whose lease ran out (their instance died), telling their followers
//!   (the mark and the telling are one transaction); a run's end is stored only once its
//!   events are logged, so the thread's next run, on any instance, numbers on after them;
//! - old logged events are pruned.

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::PgListener;
use tokio::sync::{mpsc, oneshot};

use crate::orchestrator::Orchestrator;
use crate::orchestrator::approval::{Answer, Refusal};
use crate::orchestrator::cluster::{EditCheck, ForwardedDecision, Peers, SharedEvent};
use crate::orchestrator::store::{RunStatus, StoreError};
use crate::server::store::{RunEnd, SqlStore};

/// Channel that rings when a thread has new logged events (payload: the thread id).
const EVENTS_CHANNEL: &str = "agora_events";
/// Channel that carries an approval decision to the instance whose run waits (payload: JSON).
const DECISIONS_CHANNEL: &str = "agora_decisions";
/// Channel that rings the instance whose run someone asked to stop (payload: the run id; the
/// request itself is the run's `cancel_requested_at`).
const CANCELS_CHANNEL: &str = "agora_cancels";
/// Events waiting to be written before new ones are dropped (and logged): a database that
/// stopped answering must not take the memory with it.
const QUEUE_LIMIT: usize = 100_000;
/// The most events one write takes; while it runs, the next batch gathers.
const BATCH: usize = 500;
/// The longest a run's end waits for the log writer to store it: a database that does not
/// answer must not hold the run (the writer still stores it once the database answers).
const FLUSH_WAIT: Duration = Duration::from_secs(5);
/// Events read from the log at once for one thread.
const FETCH: u32 = 1_000;

/// This instance's side of the sharing; the orchestrator holds it as `Arc<dyn Peers>`.
pub struct PgPeers {
    /// The shared database: the log, approvals, runs and their leases.
    store: Arc<SqlStore>,
    /// Events this instance's runs sent, on their way to the log (see [`write_events`]).
    queue: mpsc::Sender<Queued>,
}

/// What the log writer takes, in order.
enum Queued {
    Event(SharedEvent),
    /// A run ended: its last event (if any) is logged and its end stored in the transaction
    /// that logs everything queued before it; `kept` says how that went.
    End {
        end: RunEnd,
        last: Option<SharedEvent>,
        kept: oneshot::Sender<Result<(), StoreError>>,
    },
}

impl PgPeers {
    /// Starts the task that writes this instance's events to the log.
    pub fn start(store: Arc<SqlStore>) -> Arc<Self> {
        let (queue, receiver) = mpsc::channel(QUEUE_LIMIT);
        tokio::spawn(write_events(store.clone(), receiver));
        Arc::new(Self { store, queue })
    }
}

#[async_trait::async_trait]
impl Peers for PgPeers {
    fn shared(&self) -> bool {
        true
    }

    fn event_sent(&self, event: SharedEvent) {
        if self.queue.try_send(Queued::Event(event)).is_err() {
            tracing::error!("event log queue full: an event reaches no other instance");
        }
    }

    async fn seq_floor(&self, thread_id: &str) -> Result<u64, StoreError> {
        self.store.last_event_seq(thread_id).await
    }

    async fn events_after(
        &self,
        thread_id: &str,
        after_seq: u64,
    ) -> Result<Option<Vec<SharedEvent>>, StoreError> {
        let mut events = self
            .store
            .events_after(thread_id, after_seq.saturating_sub(1), FETCH)
            .await?;
        if events.first().is_none_or(|first| first.seq != after_seq) {
            return Ok(None);
        }
        // All of it: a run that already ended rings no more, so nothing would fetch the rest.
        let mut fetched = events.len();
        while fetched == FETCH as usize {
            let last = events.last().map_or(after_seq, |e| e.seq);
            let more = self.store.events_after(thread_id, last, FETCH).await?;
            fetched = more.len();
            events.extend(more);
        }
        Ok(Some(events))
    }

    async fn run_events(
        &self,
        thread_id: &str,
        run_id: &str,
    ) -> Result<Vec<SharedEvent>, StoreError> {
        let mut events = self.store.run_events(thread_id, run_id, FETCH).await?;
        let mut fetched = events.len();
        while fetched == FETCH as usize {
            let last = events.last().map_or(0, |e| e.seq);
            let more = self.store.events_after(thread_id, last, FETCH).await?;
            fetched = more.len();
            events.extend(more);
        }
        Ok(events)
    }

    async fn cancel_elsewhere(
        &self,
        user_id: &str,
        run_id: Option<&str>,
        thread_id: Option<&str>,
        unless_held: Option<&str>,
    ) -> Result<Vec<String>, StoreError> {
        let marked = self
            .store
            .request_cancel(user_id, run_id, thread_id, unless_held)
            .await?;
        for run_id in &marked {
            // Only the doorbell: a ring lost is made up by the lease renewal's look.
            if let Err(e) = self.store.notify(CANCELS_CHANNEL, run_id).await {
                tracing::warn!(error = %e, run_id, "cancel not rung; its instance finds it at its next renewal");
            }
        }
        Ok(marked)
    }

    async fn finish_run(
        &self,
        run_id: &str,
        status: RunStatus,
        error: Option<&str>,
        last: Option<SharedEvent>,
    ) -> Result<(), StoreError> {
        let (kept, outcome) = oneshot::channel();
        let end = RunEnd {
            run_id: run_id.to_owned(),
            status,
            error: error.map(str::to_owned),
        };
        if self
            .queue
            .try_send(Queued::End { end, last, kept })
            .is_err()
        {
            return Err(StoreError::Backend("event log queue full".to_owned()));
        }
        match tokio::time::timeout(FLUSH_WAIT, outcome).await {
            Ok(Ok(kept)) => kept,
            Ok(Err(_)) => Err(StoreError::Backend("event log writer stopped".to_owned())),
            Err(_) => {
                // Still queued: the writer stores it (and logs the last event) when the
                // database answers; the run does not wait for that.
                tracing::warn!(
                    run_id,
                    "run's end not stored in time; stored once the database answers"
                );
                Ok(())
            }
        }
    }

    async fn settle_run(&self, run_id: &str) -> Result<Option<i64>, StoreError> {
        self.store.settle_run(run_id).await
    }

    async fn forward_decision(
        &self,
        decision: ForwardedDecision,
        check: EditCheck<'_>,
    ) -> Result<(), Refusal> {
        let pending = match self.store.pending_approval(&decision.approval_id).await {
            Ok(Some(pending)) => pending,
            Ok(None) => return Err(Refusal::Unknown),
            Err(e) => {
                tracing::error!(error = %e, "approval lookup failed");
                return Err(Refusal::Unknown);
            }
        };
        if pending.owner != decision.user_id {
            return Err(Refusal::Foreign);
        }
        if pending.decided {
            return Err(Refusal::Duplicate);
        }
        if !pending.run_alive {
            // Its instance stopped: the run will be marked interrupted and nobody waits.
            return Err(Refusal::Unknown);
        }
        // Checked here, where the inspector who sent them hears the refusal: once kept, the
        // answer is the approval's (a corrected one would be a duplicate), and the run's
        // instance could only refuse it in its log.
        if decision.approved
            && let Some(edited) = &decision.edited_args
        {
            check(
                &pending.tool_name,
                &serde_json::Value::Object(edited.clone()),
            )
            .map_err(Refusal::InvalidEdits)?;
        }
        let payload = serde_json::to_string(&decision).map_err(|_| Refusal::Unknown)?;
        // Kept first (the first answer wins, on any instance), then rung: an instance that
        // was not listening finds it when it listens again or at its next lease renewal.
        match self
            .store
            .keep_answer(&decision.approval_id, &payload)
            .await
        {
            Ok(true) => {}
            Ok(false) => return Err(Refusal::Duplicate),
            Err(e) => {
                tracing::error!(error = %e, "approval answer could not be kept");
                return Err(Refusal::Unknown);
            }
        }
        if let Err(e) = self.store.notify(DECISIONS_CHANNEL, &payload).await {
            tracing::warn!(error = %e, "approval answer not rung; its instance finds it at its next look");
        }
        Ok(())
    }
}

/// Writes queued events to the log: whatever gathered while the last write ran goes in one
/// transaction (one INSERT per hundred events, one NOTIFY per thread), with the ends of the
/// runs among them stored after their events; each run's end hears how it went.
async fn write_events(store: Arc<SqlStore>, mut receiver: mpsc::Receiver<Queued>) {
    let mut queued = Vec::with_capacity(BATCH);
    let mut batch = Vec::with_capacity(BATCH);
    let mut ended = Vec::new();
    let mut waiting = Vec::new();
    while receiver.recv_many(&mut queued, BATCH).await > 0 {
        for item in queued.drain(..) {
            match item {
                Queued::Event(event) => batch.push(event),
                Queued::End { end, last, kept } => {
                    batch.extend(last);
                    ended.push(end);
                    waiting.push(kept);
                }
            }
        }
        let mut attempt = 0;
        let outcome = loop {
            match store.append_events(&batch, &ended).await {
                Ok(kept) => break Ok(kept),
                Err(e) => {
                    attempt += 1;
                    if attempt == 3 {
                        tracing::error!(error = %e, events = batch.len(), runs = ended.len(), "event log write failed; these events reach no other instance");
                        break Err(e);
                    }
                    tokio::time::sleep(Duration::from_millis(200 * attempt)).await;
                }
            }
        };
        match outcome {
            Ok(kept) => {
                for (waiter, kept) in waiting.drain(..).zip(kept) {
                    let _ = waiter.send(kept);
                }
            }
            Err(e) => {
                for waiter in waiting.drain(..) {
                    let _ = waiter.send(Err(StoreError::Backend(e.to_string())));
                }
            }
        }
        batch.clear();
        ended.clear();
    }
}

/// Starts what listens to the other instances and keeps the leases: runs until the process
/// ends.
pub fn spawn_tasks(store: Arc<SqlStore>, url: String, orchestrator: Arc<Orchestrator>) {
    tokio::spawn(listen(store.clone(), url, orchestrator.clone()));
    tokio::spawn(keep_leases(store, orchestrator));
}

/// LISTENs for new logged events and forwarded decisions; reconnects when the connection
/// drops (then reads what every followed thread missed).
async fn listen(store: Arc<SqlStore>, url: String, orchestrator: Arc<Orchestrator>) {
    loop {
        let mut listener = match PgListener::connect(&url).await {
            Ok(listener) => listener,
            Err(e) => {
                tracing::error!(error = %e, "cannot LISTEN to the database; retrying");
                tokio::time::sleep(Duration::from_secs(2)).await;
                continue;
            }
        };
        if let Err(e) = listener
            .listen_all([EVENTS_CHANNEL, DECISIONS_CHANNEL, CANCELS_CHANNEL])
            .await
        {
            tracing::error!(error = %e, "LISTEN failed; retrying");
            tokio::time::sleep(Duration::from_secs(2)).await;
            continue;
        }
        // Anything rung while this instance was not listening.
        take_kept_answers(&store, &orchestrator).await;
        for thread_id in orchestrator.journals.attended_threads() {
            catch_up(&store, &orchestrator, &thread_id).await;
        }
        loop {
            match listener.try_recv().await {
                Ok(Some(notification)) => match notification.channel() {
                    EVENTS_CHANNEL => {
                        catch_up(&store, &orchestrator, notification.payload()).await;
                    }
                    DECISIONS_CHANNEL => deliver(&orchestrator, notification.payload()),
                    CANCELS_CHANNEL => {
                        orchestrator.cancel_here(notification.payload());
                    }
                    _ => {}
                },
                // The connection dropped; the listener reconnects, and what was rung in
                // between is read again.
                Ok(None) => {
                    take_kept_answers(&store, &orchestrator).await;
                    for thread_id in orchestrator.journals.attended_threads() {
                        catch_up(&store, &orchestrator, &thread_id).await;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "LISTEN connection lost");
                    break;
                }
            }
        }
    }
}

/// Hands a followed thread's logged events this instance has not seen to its followers.
/// The thread's own run here publishes directly; nobody following means nothing to do.
async fn catch_up(store: &SqlStore, orchestrator: &Orchestrator, thread_id: &str) {
    let Some(journal) = orchestrator.journals.existing(thread_id) else {
        return;
    };
    if journal.live_run().is_some() || !orchestrator.journals.attended(thread_id) {
        return;
    }
    let max_bytes = orchestrator.config().journal.max_bytes_per_thread;
    loop {
        match store
            .events_after(thread_id, journal.last_seq(), FETCH)
            .await
        {
            Ok(events) if events.is_empty() => return,
            Ok(events) => {
                let full = events.len() == FETCH as usize;
                journal.import(&events, max_bytes, None);
                if !full {
                    return;
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, thread_id, "logged events unreadable");
                return;
            }
        }
    }
}

/// Answers another instance kept for approvals that wait here (their ring may have been
/// missed): delivered now. Nothing is read while no approval waits here.
async fn take_kept_answers(store: &SqlStore, orchestrator: &Orchestrator) {
    let waiting = orchestrator.approvals.pending_ids();
    if waiting.is_empty() {
        return;
    }
    match store.kept_answers(&waiting).await {
        Ok(answers) => {
            for answer in answers {
                deliver(orchestrator, &answer);
            }
        }
        Err(e) => tracing::warn!(error = %e, "kept approval answers unreadable"),
    }
}

/// A decision another instance checked and sent: to the run waiting here, if it is here.
fn deliver(orchestrator: &Orchestrator, payload: &str) {
    let Ok(decision) = serde_json::from_str::<ForwardedDecision>(payload) else {
        tracing::warn!(payload, "unreadable forwarded decision");
        return;
    };
    // No connection of this instance sent it: the owner's answer counts, anyone else's not.
    let answered = orchestrator.resolve_here(
        &decision.approval_id,
        u64::MAX,
        &decision.user_id,
        Answer {
            approved: decision.approved,
            feedback: decision.feedback,
            edited_args: decision.edited_args,
        },
    );
    // The answering instance cannot tell its client: the request stays open (it expires, or
    // the inspector answers again from the page that shows it).
    if let Err(refusal @ Refusal::InvalidEdits(_)) = answered {
        tracing::warn!(approval_id = %decision.approval_id, %refusal, "forwarded edits refused");
    }
}

/// Renews this instance's leases and interrupts the runs of instances that stopped renewing
/// theirs, every third of the lease; prunes the event log every minute.
async fn keep_leases(store: Arc<SqlStore>, orchestrator: Arc<Orchestrator>) {
    let period = store.lease().duration / 3;
    let retain = orchestrator.config().journal.retain;
    let mut ticks = tokio::time::interval(period.max(Duration::from_millis(100)));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_prune = tokio::time::Instant::now();
    loop {
        ticks.tick().await;
        match store.renew_leases().await {
            Ok(renewal) => {
                for run_id in &renewal.cancel_requested {
                    orchestrator.cancel_here(run_id);
                }
            }
            Err(e) => tracing::error!(error = %e, "run leases not renewed"),
        }
        take_kept_answers(&store, &orchestrator).await;
        // Marked and announced to their followers in one transaction (logged there).
        if let Err(e) = store.interrupt_expired_runs().await {
            tracing::error!(error = %e, "expired runs not checked");
        }
        if last_prune.elapsed() >= Duration::from_secs(60) {
            last_prune = tokio::time::Instant::now();
            if let Err(e) = store.prune_events(retain).await {
                tracing::warn!(error = %e, "event log not pruned");
            }
        }
    }
}
