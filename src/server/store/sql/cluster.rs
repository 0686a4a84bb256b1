//! What instances on one database share beyond the threads: who runs which run (leases), each
//! thread's recent events, and rate limits. Used by `server::cluster`; with SQLite (one
//! instance) only the lease columns are written.

use std::time::Duration;

use super::{SqlDialect, SqlStore, backend, timed};
use crate::orchestrator::cluster::SharedEvent;
use crate::orchestrator::journal::with_seq;
use crate::orchestrator::store::RunStatus;
use crate::server::store::StoreError;

/// This process's claim on the runs it executes.
#[derive(Debug, Clone)]
pub struct Lease {
    /// Written on each run this process starts; fresh at every start, so a restarted instance
    /// never renews the runs its previous life left behind.
    pub instance_id: String,
    /// How long a claim holds unless renewed. The owner renews every third of it; another
    /// instance marks the run interrupted once it has run out.
    pub duration: Duration,
}

impl Default for Lease {
    fn default() -> Self {
        Self {
            instance_id: uuid::Uuid::new_v4().to_string(),
            duration: Duration::from_secs(30),
        }
    }
}

/// What [`SqlStore::renew_leases`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Renewal {
    /// Runs whose claim was extended.
    pub renewed: u64,
    /// Those of them someone asked to stop.
    pub cancel_requested: Vec<String>,
}

/// A run whose instance stopped renewing its lease, now marked `interrupted`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiredRun {
    pub run_id: String,
    pub thread_id: String,
}

/// A run's end as the log writer stores it: in the transaction that logs the run's last
/// events, so nobody sees the run stored ended before its events are logged, nor the reverse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEnd {
    pub run_id: String,
    pub status: RunStatus,
    pub error: Option<String>,
}

/// The most rows one INSERT of events carries.
const EVENTS_PER_INSERT: usize = 100;

impl SqlStore {
    pub fn lease(&self) -> &Lease {
        &self.lease
    }

    fn lease_millis(&self) -> i64 {
        i64::try_from(self.lease.duration.as_millis()).unwrap_or(i64::MAX)
    }

    /// When a claim taken now runs out.
    pub(super) fn lease_expiry(&self) -> i64 {
        self.now().saturating_add(self.lease_millis())
    }

    /// Extends the claim on every run this instance still has `running`, and re-reads the
    /// database's clock. Says how many runs, and which of them someone asked to stop (the
    /// poll behind the `agora_cancels` doorbell: the same statement, nothing more).
    pub async fn renew_leases(&self) -> Result<Renewal, StoreError> {
        let _timed = timed("renew_leases");
        self.sync_clock().await?;
        let rows: Vec<(String, Option<i64>)> = sqlx::query_as(&self.sql(
            "UPDATE runs SET lease_expires_at = ? WHERE status = 'running' AND instance_id = ? \
             RETURNING id, cancel_requested_at",
        ))
        .bind(self.lease_expiry())
        .bind(&self.lease.instance_id)
        .fetch_all(&self.writer)
        .await
        .map_err(backend)?;
        Ok(Renewal {
            renewed: rows.len() as u64,
            cancel_requested: rows
                .into_iter()
                .filter_map(|(id, asked)| asked.map(|_| id))
                .collect(),
        })
    }

    /// Marks for stopping the `running` runs on threads of `owner`: the run `run_id`, or
    /// every run on `thread_id`; none on a thread that holds the message `unless_held` already
    /// (a resend must not stop the run that answers it: one snapshot sees both the message and
    /// its run, which is stored after it). Returns the runs marked (their instance is then rung).
    pub async fn request_cancel(
        &self,
        owner: &str,
        run_id: Option<&str>,
        thread_id: Option<&str>,
        unless_held: Option<&str>,
    ) -> Result<Vec<String>, StoreError> {
        let _timed = timed("request_cancel");
        let mut sql = String::from(
            "UPDATE runs SET cancel_requested_at = ? WHERE status = 'running' \
             AND thread_id IN (SELECT id FROM threads WHERE owner = ?)",
        );
        if run_id.is_some() {
            sql.push_str(" AND id = ?");
        }
        if thread_id.is_some() {
            sql.push_str(" AND thread_id = ?");
        }
        if unless_held.is_some() {
            sql.push_str(
                " AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = runs.thread_id AND m.id = ?)",
            );
        }
        sql.push_str(" RETURNING id");
        let sql = self.sql(&sql);
        let mut query = sqlx::query_as::<_, (String,)>(&sql)
            .bind(self.now())
            .bind(owner);
        if let Some(run_id) = run_id {
            query = query.bind(run_id);
        }
        if let Some(thread_id) = thread_id {
            query = query.bind(thread_id);
        }
        if let Some(message_id) = unless_held {
            query = query.bind(message_id);
        }
        let marked = query.fetch_all(&self.writer).await.map_err(backend)?;
        Ok(marked.into_iter().map(|(id,)| id).collect())
    }

    /// Marks `interrupted` every run still `running` whose lease ran out (its instance died or
    /// lost the database), and tells their followers (see [`Self::interrupt_expired`]);
    /// returns them. Runs without a lease (written before leases existed) count as expired.
    pub async fn interrupt_expired_runs(&self) -> Result<Vec<ExpiredRun>, StoreError> {
        let _timed = timed("interrupt_expired_runs");
        self.interrupt_expired(None).await
    }

    /// Where a run another instance was asked to stop stands: `None` once it is not
    /// `running` (ended, or its lease had run out: then it is marked interrupted here, as
    /// [`Self::interrupt_expired_runs`] does); otherwise when its lease runs out (the
    /// database's milliseconds; a later value than before means its instance renewed it).
    pub async fn settle_run(&self, run_id: &str) -> Result<Option<i64>, StoreError> {
        let _timed = timed("settle_run");
        match self.run_lease(run_id).await? {
            Some(Some(expiry)) if expiry >= self.now() => return Ok(Some(expiry)),
            Some(_) => {}
            None => return Ok(None),
        }
        if !self.interrupt_expired(Some(run_id)).await?.is_empty() {
            return Ok(None);
        }
        // Ended, or renewed, in the meantime.
        Ok(self
            .run_lease(run_id)
            .await?
            .map(|expiry| expiry.unwrap_or(0)))
    }

    /// A `running` run's lease expiry (`Some(None)`: it has none); `None` when the run is not
    /// `running` (or not stored).
    async fn run_lease(&self, run_id: &str) -> Result<Option<Option<i64>>, StoreError> {
        let row: Option<(Option<i64>,)> = sqlx::query_as(
            &self.sql("SELECT lease_expires_at FROM runs WHERE id = ? AND status = 'running'"),
        )
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        Ok(row.map(|(expiry,)| expiry))
    }

    /// Marks `interrupted` the `running` runs (all, or only `only`) whose lease ran out, and
    /// logs in the same transaction what their followers are told, numbered after the
    /// thread's last logged event: whoever sees such a run ended finds its ending in the log
    /// too, so the thread's next run, on any instance, numbers on after it.
    async fn interrupt_expired(&self, only: Option<&str>) -> Result<Vec<ExpiredRun>, StoreError> {
        let now = self.now();
        let mut sql = String::from(
            "UPDATE runs SET status = 'interrupted', finished_at = ?, \
             error = COALESCE(error, 'the instance running it stopped') \
             WHERE status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < ?)",
        );
        if only.is_some() {
            sql.push_str(" AND id = ?");
        }
        sql.push_str(" RETURNING id, thread_id");
        let sql = self.sql(&sql);
        let mut query = sqlx::query_as::<_, (String, String)>(&sql)
            .bind(now)
            .bind(now);
        if let Some(run_id) = only {
            query = query.bind(run_id);
        }
        let mut tx = self.writer.begin().await.map_err(backend)?;
        let rows = query.fetch_all(&mut *tx).await.map_err(backend)?;
        let expired: Vec<ExpiredRun> = rows
            .into_iter()
            .map(|(run_id, thread_id)| ExpiredRun { run_id, thread_id })
            .collect();
        let mut endings: Vec<SharedEvent> = Vec::new();
        for run in &expired {
            let last: Option<(i64, String)> = sqlx::query_as(&self.sql(
                "SELECT seq, body FROM thread_events WHERE thread_id = ? ORDER BY seq DESC LIMIT 1",
            ))
            .bind(&run.thread_id)
            .fetch_optional(&mut *tx)
            .await
            .map_err(backend)?;
            let (mut last_seq, body) = last
                .map(|(seq, body)| (u64::try_from(seq).unwrap_or(0), body))
                .unwrap_or_default();
            // Two runs of one thread ended together: the second's ending follows the first's.
            if let Some(before) = endings.iter().rev().find(|e| e.thread_id == run.thread_id) {
                last_seq = last_seq.max(before.seq);
            }
            endings.extend(interruption_events(run, last_seq, &body)?);
        }
        self.insert_events(&mut tx, &endings, now).await?;
        tx.commit().await.map_err(backend)?;
        for run in &expired {
            tracing::warn!(run_id = %run.run_id, thread_id = %run.thread_id, "run's instance stopped; marked interrupted");
        }
        Ok(expired)
    }

    /// Appends events to the shared log and stores the ends of the runs in `ended` (each
    /// after its events, which `events` holds) in one transaction. With PostgreSQL it rings
    /// `agora_events` once per thread (delivered when the transaction commits). Events
    /// already there are skipped. Returns, per run in `ended`, how its end was kept (see
    /// [`Self::check_run_ended`]).
    pub async fn append_events(
        &self,
        events: &[SharedEvent],
        ended: &[RunEnd],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let _timed = timed("append_events");
        if events.is_empty() && ended.is_empty() {
            return Ok(Vec::new());
        }
        let now = self.now();
        let mut tx = self.writer.begin().await.map_err(backend)?;
        self.insert_events(&mut tx, events, now).await?;
        let mut updated = Vec::with_capacity(ended.len());
        for end in ended {
            if end.status == RunStatus::Running {
                updated.push(None);
                continue;
            }
            let rows = self
                .mark_run_ended(&mut *tx, &end.run_id, end.status, end.error.as_deref())
                .await?;
            updated.push(Some(rows));
        }
        tx.commit().await.map_err(backend)?;
        let mut kept = Vec::with_capacity(ended.len());
        for (end, rows) in ended.iter().zip(updated) {
            kept.push(match rows {
                None => Err(StoreError::Conflict(
                    "a run cannot finish as running".to_owned(),
                )),
                Some(rows) => self.check_run_ended(&end.run_id, rows).await,
            });
        }
        Ok(kept)
    }

    /// [`Self::append_events`] inside the caller's transaction.
    async fn insert_events(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        events: &[SharedEvent],
        now: i64,
    ) -> Result<(), StoreError> {
        for chunk in events.chunks(EVENTS_PER_INSERT) {
            let mut query = String::from(
                "INSERT INTO thread_events (thread_id, seq, run_id, body, created_at) VALUES ",
            );
            for i in 0..chunk.len() {
                query.push_str(if i == 0 {
                    "(?, ?, ?, ?, ?)"
                } else {
                    ", (?, ?, ?, ?, ?)"
                });
            }
            query.push_str(" ON CONFLICT DO NOTHING");
            let query = self.sql(&query);
            let mut insert = sqlx::query(&query);
            for event in chunk {
                insert = insert
                    .bind(&event.thread_id)
                    .bind(seq_to_db(event.seq))
                    .bind(&*event.run_id)
                    .bind(&*event.json)
                    .bind(now);
            }
            insert.execute(&mut **tx).await.map_err(backend)?;
        }
        if self.dialect == SqlDialect::Postgres {
            let mut threads: Vec<&str> = events.iter().map(|e| e.thread_id.as_str()).collect();
            threads.sort_unstable();
            threads.dedup();
            for thread in threads {
                // pg_notify returns void, which sqlx's Any driver cannot read: count instead.
                sqlx::query("SELECT COUNT(*) FROM (SELECT pg_notify('agora_events', $1)) AS rung")
                    .bind(thread)
                    .execute(&mut **tx)
                    .await
                    .map_err(backend)?;
            }
        }
        Ok(())
    }

    /// Sends `payload` on a PostgreSQL notification channel (when the call's transaction
    /// commits, here at once); nothing with SQLite, where no other instance listens.
    pub async fn notify(&self, channel: &str, payload: &str) -> Result<(), StoreError> {
        let _timed = timed("notify");
        if self.dialect != SqlDialect::Postgres {
            return Ok(());
        }
        sqlx::query("SELECT COUNT(*) FROM (SELECT pg_notify($1, $2)) AS rung")
            .bind(channel)
            .bind(payload)
            .execute(&self.writer)
            .await
            .map(|_| ())
            .map_err(backend)
    }

    /// The thread's logged events after `after_seq`, in order, at most `limit`.
    pub async fn events_after(
        &self,
        thread_id: &str,
        after_seq: u64,
        limit: u32,
    ) -> Result<Vec<SharedEvent>, StoreError> {
        let _timed = timed("events_after");
        let rows: Vec<(i64, String, String)> = sqlx::query_as(&self.sql(
            "SELECT seq, run_id, body FROM thread_events WHERE thread_id = ? AND seq > ? \
             ORDER BY seq LIMIT ?",
        ))
        .bind(thread_id)
        .bind(seq_to_db(after_seq))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        Ok(rows
            .into_iter()
            .map(|(seq, run_id, body)| SharedEvent {
                thread_id: thread_id.to_owned(),
                seq: u64::try_from(seq).unwrap_or(0),
                run_id: run_id.into(),
                json: body.into(),
            })
            .collect())
    }

    /// The logged events of the thread from `run_id`'s first on, in order, at most `limit`:
    /// what a client that reloads on another instance than the run's replays.
    pub async fn run_events(
        &self,
        thread_id: &str,
        run_id: &str,
        limit: u32,
    ) -> Result<Vec<SharedEvent>, StoreError> {
        let _timed = timed("run_events");
        let rows: Vec<(i64, String, String)> = sqlx::query_as(&self.sql(
            "SELECT seq, run_id, body FROM thread_events WHERE thread_id = ? AND seq >= \
             (SELECT MIN(seq) FROM thread_events WHERE thread_id = ? AND run_id = ?) \
             ORDER BY seq LIMIT ?",
        ))
        .bind(thread_id)
        .bind(thread_id)
        .bind(run_id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        Ok(rows
            .into_iter()
            .map(|(seq, run_id, body)| SharedEvent {
                thread_id: thread_id.to_owned(),
                seq: u64::try_from(seq).unwrap_or(0),
                run_id: run_id.into(),
                json: body.into(),
            })
            .collect())
    }

    /// The highest number the log holds for the thread (0 when none): a run starting on any
    /// instance numbers its events above it.
    pub async fn last_event_seq(&self, thread_id: &str) -> Result<u64, StoreError> {
        let _timed = timed("last_event_seq");
        let (last,): (Option<i64>,) =
            sqlx::query_as(&self.sql("SELECT MAX(seq) FROM thread_events WHERE thread_id = ?"))
                .bind(thread_id)
                .fetch_one(&self.pool)
                .await
                .map_err(backend)?;
        Ok(last.and_then(|n| u64::try_from(n).ok()).unwrap_or(0))
    }

    /// The thread's newest logged event: its number and JSON (`None` when the log has none).
    pub async fn last_event(&self, thread_id: &str) -> Result<Option<(u64, String)>, StoreError> {
        let _timed = timed("last_event");
        let row: Option<(i64, String)> = sqlx::query_as(&self.sql(
            "SELECT seq, body FROM thread_events WHERE thread_id = ? ORDER BY seq DESC LIMIT 1",
        ))
        .bind(thread_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        Ok(row.map(|(seq, body)| (u64::try_from(seq).unwrap_or(0), body)))
    }

    /// Forgets logged events older than `age`; returns how many.
    pub async fn prune_events(&self, age: Duration) -> Result<u64, StoreError> {
        let _timed = timed("prune_events");
        let cutoff = self.now() - i64::try_from(age.as_millis()).unwrap_or(i64::MAX / 2);
        let deleted = sqlx::query(&self.sql("DELETE FROM thread_events WHERE created_at < ?"))
            .bind(cutoff)
            .execute(&self.writer)
            .await
            .map_err(backend)?;
        // Answers kept for a run elsewhere: taken long ago, or their run is gone.
        sqlx::query(&self.sql("DELETE FROM approval_answers WHERE created_at < ?"))
            .bind(cutoff)
            .execute(&self.writer)
            .await
            .map_err(backend)?;
        Ok(deleted.rows_affected())
    }

    /// The pending approval's thread owner and whether its run is still held by a live
    /// instance; `None` when no such approval waits (unknown, or already decided).
    pub async fn pending_approval(
        &self,
        approval_id: &str,
    ) -> Result<Option<PendingApproval>, StoreError> {
        let _timed = timed("pending_approval");
        let row: Option<ApprovalRow> = sqlx::query_as(&self.sql(
            "SELECT t.owner, a.run_id, a.tool_name, r.status, r.lease_expires_at, a.decided_at \
             FROM approvals a JOIN threads t ON t.id = a.thread_id \
             LEFT JOIN runs r ON r.id = a.run_id WHERE a.approval_id = ?",
        ))
        .bind(approval_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        let now = self.now();
        Ok(row.map(|row| PendingApproval {
            owner: row.owner,
            run_id: row.run_id,
            tool_name: row.tool_name,
            decided: row.decided_at.is_some(),
            run_alive: row.status.as_deref() == Some("running")
                && row.lease_expires_at.is_some_and(|l| l >= now),
        }))
    }

    /// Keeps an approval's answer given on another instance than its run's, until that one
    /// takes it: the first answer only (false when one is kept already).
    pub async fn keep_answer(&self, approval_id: &str, body: &str) -> Result<bool, StoreError> {
        let _timed = timed("keep_answer");
        let kept = sqlx::query(&self.sql(
            "INSERT INTO approval_answers (approval_id, body, created_at) VALUES (?, ?, ?) \
             ON CONFLICT DO NOTHING",
        ))
        .bind(approval_id)
        .bind(body)
        .bind(self.now())
        .execute(&self.writer)
        .await
        .map_err(backend)?;
        Ok(kept.rows_affected() == 1)
    }

    /// The kept answers to these approvals (see [`Self::keep_answer`]).
    pub async fn kept_answers(&self, approval_ids: &[String]) -> Result<Vec<String>, StoreError> {
        let _timed = timed("kept_answers");
        if approval_ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks = vec!["?"; approval_ids.len()].join(", ");
        let sql = format!("SELECT body FROM approval_answers WHERE approval_id IN ({marks})");
        let sql = self.sql(&sql);
        let mut query = sqlx::query_as::<_, (String,)>(&sql);
        for id in approval_ids {
            query = query.bind(id);
        }
        let rows = query.fetch_all(&self.pool).await.map_err(backend)?;
        Ok(rows.into_iter().map(|(body,)| body).collect())
    }

    /// Keeps a report file where every instance finds it (see `server::report_shelf`).
    pub async fn put_report_file(
        &self,
        name: &str,
        thread_id: &str,
        body: &[u8],
    ) -> Result<(), StoreError> {
        let _timed = timed("put_report_file");
        sqlx::query(&self.sql(
            "INSERT INTO report_files (name, thread_id, body, created_at) VALUES (?, ?, ?, ?) \
             ON CONFLICT (name) DO UPDATE SET body = excluded.body",
        ))
        .bind(name)
        .bind(thread_id)
        .bind(body.to_vec())
        .bind(self.now())
        .execute(&self.writer)
        .await
        .map_err(backend)?;
        Ok(())
    }

    /// A kept report file, if any.
    pub async fn report_file(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let _timed = timed("report_file");
        let row: Option<(Vec<u8>,)> =
            sqlx::query_as(&self.sql("SELECT body FROM report_files WHERE name = ?"))
                .bind(name)
                .fetch_optional(&self.pool)
                .await
                .map_err(backend)?;
        Ok(row.map(|(body,)| body))
    }

    /// Forgets the kept report files of these threads.
    pub async fn delete_report_files(
        &self,
        thread_ids: &std::collections::HashSet<String>,
    ) -> Result<(), StoreError> {
        let _timed = timed("delete_report_files");
        for thread_id in thread_ids {
            sqlx::query(&self.sql("DELETE FROM report_files WHERE thread_id = ?"))
                .bind(thread_id)
                .execute(&self.writer)
                .await
                .map_err(backend)?;
        }
        Ok(())
    }

    /// Takes one run from `account`'s allowance of `per_minute` (GCRA, one statement, so
    /// instances agree): `Ok(None)` when allowed, else how long to wait.
    pub async fn take_run_slot(
        &self,
        account: &str,
        per_minute: u32,
    ) -> Result<Option<Duration>, StoreError> {
        let _timed = timed("take_run_slot");
        let interval = 60_000 / i64::from(per_minute.max(1));
        // A burst of `per_minute` at once, then one every `interval`.
        let burst = interval * i64::from(per_minute.max(1));
        let now = self.now();
        let allowed: Option<(i64,)> = sqlx::query_as(&self.sql(
            "INSERT INTO rate_limits (account, tat) VALUES (?, ?) \
             ON CONFLICT (account) DO UPDATE SET tat = \
               CASE WHEN rate_limits.tat > ? THEN rate_limits.tat ELSE ? END + ? \
             WHERE CASE WHEN rate_limits.tat > ? THEN rate_limits.tat ELSE ? END + ? - ? <= ? \
             RETURNING tat",
        ))
        .bind(account)
        .bind(now + interval)
        .bind(now)
        .bind(now)
        .bind(interval)
        .bind(now)
        .bind(now)
        .bind(interval)
        .bind(burst)
        .bind(now)
        .fetch_optional(&self.writer)
        .await
        .map_err(backend)?;
        if allowed.is_some() {
            return Ok(None);
        }
        let (tat,): (i64,) =
            sqlx::query_as(&self.sql("SELECT tat FROM rate_limits WHERE account = ?"))
                .bind(account)
                .fetch_one(&self.pool)
                .await
                .map_err(backend)?;
        // Never more than one interval: each instance reads its own clock, and one a
        // millisecond behind the instance that took the last slot would otherwise say 20.001 s
        // (seen in CI, `rate_limits_hold_for_every_instance`).
        let wait = (tat + interval - burst - now).clamp(1, interval);
        Ok(Some(Duration::from_millis(wait as u64)))
    }
}

#[derive(sqlx::FromRow)]
struct ApprovalRow {
    owner: String,
    run_id: String,
    tool_name: String,
    status: Option<String>,
    lease_expires_at: Option<i64>,
    decided_at: Option<i64>,
}

/// What [`SqlStore::pending_approval`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingApproval {
    /// The thread's owner: only they may answer.
    pub owner: String,
    pub run_id: String,
    /// The tool the call would run: edited arguments must meet its rules.
    pub tool_name: String,
    /// Already answered (or expired): a second answer is a duplicate.
    pub decided: bool,
    /// Its run is `running` under a lease that has not run out: some instance waits for it.
    pub run_alive: bool,
}

/// What the followers of a run whose instance stopped are told, numbered after `last_seq`
/// (the thread's last logged event, `last_body`): `RUN_ERROR run_interrupted`, and in AGORA's
/// dialect `RUN_FINISHED` after it, as every other error flow of that dialect ends (the
/// protocol's "Error Handling" flow; the standard dialect ends at `RUN_ERROR`).
fn interruption_events(
    run: &ExpiredRun,
    last_seq: u64,
    last_body: &str,
) -> Result<Vec<SharedEvent>, StoreError> {
    use crate::protocol::{ErrorCode, Event, Lang};
    let code = ErrorCode::RunInterrupted;
    let mut error = Event::run_error(code.text(Lang::Nl), code);
    if let Event::RunError(error) = &mut error {
        let extra = &mut error.base.extra;
        extra.insert("threadId".to_owned(), run.thread_id.as_str().into());
        extra.insert("runId".to_owned(), run.run_id.as_str().into());
    }
    // AGORA's events carry their number; the standard dialect's do not. A run that logged
    // nothing was AGORA's unless told otherwise (a socket's, the default client).
    let agora = last_body.is_empty() || last_body.contains(r#""seq":"#);
    let mut ending = vec![error];
    if agora {
        ending.push(Event::run_finished(&run.thread_id, &run.run_id));
    }
    let run_id: std::sync::Arc<str> = run.run_id.as_str().into();
    (last_seq + 1..)
        .zip(ending)
        .map(|(seq, event)| {
            let json =
                serde_json::to_string(&event).map_err(|e| StoreError::Backend(e.to_string()))?;
            let json = if agora { with_seq(json, seq) } else { json };
            Ok(SharedEvent {
                thread_id: run.thread_id.clone(),
                seq,
                run_id: run_id.clone(),
                json: json.into(),
            })
        })
        .collect()
}

/// Event numbers are clock-based microseconds, far below `i64::MAX`.
fn seq_to_db(seq: u64) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}
