//! Appending a run step's messages in one transaction (issue 36): an assistant message and the
//! results of its calls used to be a transaction each, with a commit (an fsync) and four
//! hand-offs to the connection's thread apiece.
//!
//! The usual batch is all new (a run gives its messages fresh ids): the thread is updated once
//! for all of them, first, which takes the write lock (SQLite) or the thread's row lock
//! (PostgreSQL) before the sequence numbers are read, then each message is inserted. A message
//! whose id the thread holds already (a retried write) changes nothing: then the batch is
//! written again one message at a time, each counted on the thread only if it was new.
//!
//! The same transaction can carry what else the step decided (issue 36's fourth step): the
//! thread's name after the company the step found, and, for a run's last messages, the run's
//! end.

use sqlx::{Any, Transaction};

use super::{INSERT_MESSAGE, SqlStore, TOUCH_THREAD, backend, describe, thread_not_found, with_id};
use crate::orchestrator::store::{RunStatus, StoreError};
use crate::protocol::Message;
use crate::server::store::{preview_from_text, title_from_text};

/// A message ready to insert.
struct Row {
    id: String,
    role: &'static str,
    agent_id: Option<String>,
    body: String,
}

/// What else a step's transaction writes besides its messages.
#[derive(Clone, Copy, Default)]
pub(super) struct Also<'a> {
    /// The thread named after its company (`Store::name_thread_after_company`).
    pub company_title: Option<&'a str>,
    /// The run ended (`Store::finish_run`): run id, status, error.
    pub end: Option<(&'a str, RunStatus, Option<&'a str>)>,
}

impl SqlStore {
    /// `Store::append_messages`, `Store::append_step` and `Store::append_and_finish_run`: one
    /// transaction on the writer. A run that is not stored, or a thread that is not, writes
    /// nothing.
    pub(super) async fn append_messages_tx(
        &self,
        thread_id: &str,
        messages: &[Message],
        also: Also<'_>,
    ) -> Result<(), StoreError> {
        if let Some((_, RunStatus::Running, _)) = also.end {
            return Err(StoreError::Conflict(
                "a run cannot finish as running".to_owned(),
            ));
        }
        if messages.is_empty() {
            if also.company_title.is_none() && also.end.is_none() {
                return Ok(());
            }
            let mut tx = self.begin().await?;
            self.write_also(&mut tx, thread_id, also).await?;
            return tx.commit().await.map_err(backend);
        }
        let now = self.now();
        let mut rows = Vec::with_capacity(messages.len());
        let mut visible = 0_i64;
        let mut first_text: Option<String> = None;
        for message in messages {
            let (message, id) = with_id(message);
            let described = describe(&message);
            visible += i64::from(described.visible);
            if first_text.is_none() {
                first_text = described.user_text;
            }
            let body =
                serde_json::to_string(&message).map_err(|e| StoreError::Backend(e.to_string()))?;
            rows.push(Row {
                id,
                role: described.role,
                agent_id: described.agent_id,
                body,
            });
        }
        let text = first_text.as_deref().unwrap_or("");

        let mut tx = self.begin().await?;
        let updated = sqlx::query(&self.sql(TOUCH_THREAD))
            .bind(now)
            .bind(visible)
            .bind(title_from_text(text))
            .bind(preview_from_text(text))
            .bind(thread_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if updated.rows_affected() == 0 {
            return Err(thread_not_found(thread_id));
        }
        for row in &rows {
            let inserted = sqlx::query(&self.sql(INSERT_MESSAGE))
                .bind(thread_id)
                .bind(&row.id)
                .bind(row.role)
                .bind(&row.agent_id)
                .bind(now)
                .bind(&row.body)
                .bind(thread_id)
                .execute(&mut *tx)
                .await
                .map_err(backend)?;
            if inserted.rows_affected() == 0 {
                // Held already: the thread was counted for it. Undo and go one by one.
                tx.rollback().await.map_err(backend)?;
                return self.append_one_by_one(thread_id, messages, now, also).await;
            }
        }
        self.write_also(&mut tx, thread_id, also).await?;
        tx.commit().await.map_err(backend)
    }

    /// The careful path, in one transaction: each message inserted unless held, and counted
    /// on the thread only when it was.
    async fn append_one_by_one(
        &self,
        thread_id: &str,
        messages: &[Message],
        now: i64,
        also: Also<'_>,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        // Writing first takes the lock before any sequence number is read.
        let updated = sqlx::query(&self.sql("UPDATE threads SET last_activity = ? WHERE id = ?"))
            .bind(now)
            .bind(thread_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if updated.rows_affected() == 0 {
            return Err(thread_not_found(thread_id));
        }
        for message in messages {
            let (message, id) = with_id(message);
            self.insert_message(&mut tx, thread_id, &message, &id, now)
                .await?;
        }
        self.write_also(&mut tx, thread_id, also).await?;
        tx.commit().await.map_err(backend)
    }

    /// The thread's name and the run's end, inside the step's transaction. An error leaves
    /// the transaction to be dropped, so nothing of it is kept.
    async fn write_also(
        &self,
        tx: &mut Transaction<'static, Any>,
        thread_id: &str,
        also: Also<'_>,
    ) -> Result<(), StoreError> {
        if let Some(title) = also.company_title {
            sqlx::query(&self.sql(NAME_AFTER_COMPANY))
                .bind(title)
                .bind(thread_id)
                .execute(&mut **tx)
                .await
                .map_err(backend)?;
        }
        if let Some((run_id, status, error)) = also.end {
            let updated = self
                .mark_run_ended(&mut **tx, run_id, status, error)
                .await?;
            if updated == 0 {
                // Ended already (the first ending wins), or never stored: then nothing.
                let exists: Option<(String,)> =
                    sqlx::query_as(&self.sql("SELECT id FROM runs WHERE id = ?"))
                        .bind(run_id)
                        .fetch_optional(&mut **tx)
                        .await
                        .map_err(backend)?;
                if exists.is_none() {
                    return Err(StoreError::NotFound(format!("run {run_id} not found")));
                }
            }
        }
        Ok(())
    }
}

/// Names a thread after its company unless a person or an earlier company named it. Binds:
/// title, thread id.
pub(super) const NAME_AFTER_COMPANY: &str =
    "UPDATE threads SET title = ?, title_locked = TRUE WHERE id = ? AND title_locked = FALSE";
