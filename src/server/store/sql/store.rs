//! The orchestrator's side of the store (`Store`): threads, messages, runs, approvals and
//! interrupts as the runs write and read them.

use super::*;

#[async_trait::async_trait]
impl Store for SqlStore {
    async fn open_thread(
        &self,
        thread_id: &str,
        owner: &str,
        first_text: &str,
    ) -> Result<ThreadRecord, StoreError> {
        let _timed = timed("open_thread");
        let now = self.now();
        let title = title_from_text(first_text);
        let mut tx = self.begin().await?;
        self.open_thread_in(&mut tx, thread_id, owner, &title, now)
            .await?;
        tx.commit().await.map_err(backend)?;
        Ok(self.thread_row(thread_id).await?.into_summary().thread)
    }

    async fn name_thread_after_company(
        &self,
        thread_id: &str,
        title: &str,
    ) -> Result<(), StoreError> {
        let _timed = timed("name_thread_after_company");
        sqlx::query(&self.sql(super::append::NAME_AFTER_COMPANY))
            .bind(title)
            .bind(thread_id)
            .execute(&self.writer)
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn listening(&self, thread_id: &str) -> Result<bool, StoreError> {
        let _timed = timed("listening");
        let on =
            sqlx::query_scalar::<_, Flag>(&self.sql("SELECT listening FROM threads WHERE id = ?"))
                .bind(thread_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(backend)?;
        Ok(on.is_some_and(|Flag(on)| on))
    }

    async fn set_listening(&self, thread_id: &str, on: bool) -> Result<(), StoreError> {
        let _timed = timed("set_listening");
        let changed = sqlx::query(&self.sql("UPDATE threads SET listening = ? WHERE id = ?"))
            .bind(on)
            .bind(thread_id)
            .execute(&self.writer)
            .await
            .map_err(backend)?
            .rows_affected();
        if changed == 0 {
            return Err(StoreError::NotFound(format!("thread {thread_id}")));
        }
        Ok(())
    }

    async fn user_name(&self, user_id: &str) -> Result<Option<String>, StoreError> {
        let _timed = timed("user_name");
        let name: Option<String> =
            sqlx::query_scalar(&self.sql("SELECT name FROM users WHERE id = ?"))
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(backend)?;
        Ok(name.filter(|name| !name.trim().is_empty()))
    }

    async fn begin_turn(&self, turn: &TurnRequest<'_>) -> Result<Turn, StoreError> {
        let _timed = timed("begin_turn");
        self.begin_turn_tx(turn).await
    }

    async fn thread(&self, thread_id: &str) -> Result<ThreadRecord, StoreError> {
        let _timed = timed("thread");
        Ok(self.thread_row(thread_id).await?.into_summary().thread)
    }

    /// Appending a message whose id the thread already holds changes nothing, so a retried
    /// write or a client that resends the whole history cannot duplicate messages. A message
    /// without an id is given one.
    async fn append_messages(
        &self,
        thread_id: &str,
        messages: &[Message],
    ) -> Result<(), StoreError> {
        let _timed = timed("append_messages");
        self.append_messages_tx(thread_id, messages, Default::default())
            .await
    }

    async fn append_step(
        &self,
        thread_id: &str,
        messages: &[Message],
        company_title: Option<&str>,
    ) -> Result<(), StoreError> {
        let _timed = timed("append_step");
        let also = super::append::Also {
            company_title,
            end: None,
        };
        self.append_messages_tx(thread_id, messages, also).await
    }

    /// The first ending wins, as with `finish_run`; the messages are appended all the same.
    async fn append_and_finish_run(
        &self,
        thread_id: &str,
        messages: &[Message],
        run_id: &str,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        let _timed = timed("append_and_finish_run");
        let also = super::append::Also {
            company_title: None,
            end: Some((run_id, status, error)),
        };
        self.append_messages_tx(thread_id, messages, also).await
    }

    async fn messages(&self, thread_id: &str) -> Result<Vec<Message>, StoreError> {
        let _timed = timed("messages");
        let mut reader = self.pool.acquire().await.map_err(backend)?;
        let messages = self.thread_messages(&mut reader, thread_id).await?;
        drop(reader);
        if messages.is_empty() {
            self.require_thread(thread_id).await?;
        }
        Ok(messages)
    }

    async fn has_message(&self, thread_id: &str, message_id: &str) -> Result<bool, StoreError> {
        let _timed = timed("has_message");
        let found: Option<(i64,)> =
            sqlx::query_as(&self.sql("SELECT 1 FROM messages WHERE thread_id = ? AND id = ?"))
                .bind(thread_id)
                .bind(message_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(backend)?;
        Ok(found.is_some())
    }

    async fn photo(&self, owner: &str, id: &str) -> Result<Option<StoredPhoto>, StoreError> {
        self.stored_photo(owner, id).await
    }

    async fn start_run(&self, run_id: &str, thread_id: &str) -> Result<(), StoreError> {
        let _timed = timed("start_run");
        let result = sqlx::query(&self.sql(INSERT_RUN))
            .bind(run_id)
            .bind(thread_id)
            .bind(self.now())
            .bind(&self.lease.instance_id)
            .bind(self.lease_expiry())
            .execute(&self.writer)
            .await;
        result
            .map(drop)
            .map_err(|e| thread_insert_error(e, || format!("run {run_id}"), thread_id))
    }

    /// The first ending wins: finishing a run that already ended changes nothing.
    async fn finish_run(
        &self,
        run_id: &str,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        let _timed = timed("finish_run");
        if status == RunStatus::Running {
            return Err(StoreError::Conflict(
                "a run cannot finish as running".to_owned(),
            ));
        }
        let updated = self
            .mark_run_ended(&self.writer, run_id, status, error)
            .await?;
        self.check_run_ended(run_id, updated).await
    }

    async fn runs(&self, thread_id: &str) -> Result<Vec<RunRecord>, StoreError> {
        let _timed = timed("runs");
        let rows: Vec<RunRow> = sqlx::query_as(&self.sql("SELECT id, thread_id, status, started_at, finished_at, error FROM runs WHERE thread_id = ? \
             ORDER BY started_at, rowid"))
        .bind(thread_id)
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        if rows.is_empty() {
            self.require_thread(thread_id).await?;
        }
        rows.into_iter().map(RunRow::into_record).collect()
    }

    async fn run(&self, run_id: &str) -> Result<RunRecord, StoreError> {
        let _timed = timed("run");
        sqlx::query_as::<_, RunRow>(&self.sql(
            "SELECT id, thread_id, status, started_at, finished_at, error FROM runs WHERE id = ?",
        ))
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?
        .ok_or_else(|| StoreError::NotFound(format!("run {run_id} not found")))?
        .into_record()
    }

    async fn record_approval_request(&self, record: &ApprovalRecord) -> Result<(), StoreError> {
        let _timed = timed("record_approval_request");
        let parameters = serde_json::to_string(&record.parameters)
            .map_err(|e| StoreError::Backend(e.to_string()))?;
        let decision = record.decision.as_ref();
        let result = sqlx::query(&self.sql("INSERT INTO approvals (approval_id, thread_id, run_id, tool_call_id, tool_name, parameters, risk_level, \
             requested_by, requested_at, approved, feedback, decided_by, decided_at, edited_args) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))
        .bind(&record.approval_id)
        .bind(&record.thread_id)
        .bind(&record.run_id)
        .bind(&record.tool_call_id)
        .bind(&record.tool_name)
        .bind(parameters)
        .bind(&record.risk_level)
        .bind(&record.requested_by)
        .bind(record.requested_at)
        .bind(decision.map(|d| d.approved))
        .bind(decision.and_then(|d| d.feedback.as_deref()))
        .bind(decision.map(|d| d.decided_by.as_str()))
        .bind(decision.map(|d| d.decided_at))
        .bind(decision.and_then(edited_text))
        .execute(&self.writer)
        .await;
        result.map(drop).map_err(|e| {
            thread_insert_error(
                e,
                || format!("approval {}", record.approval_id),
                &record.thread_id,
            )
        })
    }

    /// An audit log is never rewritten: a second decision is a `Conflict`.
    async fn record_approval_decision(
        &self,
        approval_id: &str,
        decision: &ApprovalDecision,
    ) -> Result<(), StoreError> {
        let _timed = timed("record_approval_decision");
        let updated = sqlx::query(&self.sql(
            "UPDATE approvals SET approved = ?, feedback = ?, decided_by = ?, decided_at = ?, \
             edited_args = ? WHERE approval_id = ? AND decided_at IS NULL",
        ))
        .bind(decision.approved)
        .bind(decision.feedback.as_deref())
        .bind(&decision.decided_by)
        .bind(decision.decided_at)
        .bind(edited_text(decision))
        .bind(approval_id)
        .execute(&self.writer)
        .await
        .map_err(backend)?;
        if updated.rows_affected() == 1 {
            return Ok(());
        }
        let exists: Option<(String,)> =
            sqlx::query_as(&self.sql("SELECT approval_id FROM approvals WHERE approval_id = ?"))
                .bind(approval_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(backend)?;
        Err(match exists {
            Some(_) => StoreError::Conflict(format!("approval {approval_id} was already decided")),
            None => StoreError::NotFound(format!("approval {approval_id} not found")),
        })
    }

    async fn approvals(&self, thread_id: &str) -> Result<Vec<ApprovalRecord>, StoreError> {
        let _timed = timed("approvals");
        let rows: Vec<ApprovalRow> = sqlx::query_as(&self.sql("SELECT approval_id, thread_id, run_id, tool_call_id, tool_name, parameters, risk_level, requested_by, \
             requested_at, approved, feedback, decided_by, decided_at, edited_args FROM approvals WHERE thread_id = ? \
             ORDER BY requested_at, rowid"))
        .bind(thread_id)
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        if rows.is_empty() {
            self.require_thread(thread_id).await?;
        }
        rows.into_iter().map(ApprovalRow::into_record).collect()
    }

    async fn record_interrupt(&self, record: &InterruptRecord) -> Result<(), StoreError> {
        let _timed = timed("record_interrupt");
        let to_text = |value: &serde_json::Value| {
            serde_json::to_string(value).map_err(|e| StoreError::Backend(e.to_string()))
        };
        let resolution = record.resolution.as_ref();
        let result = sqlx::query(&self.sql("INSERT INTO interrupts (id, thread_id, run_id, reason, message, tool_call_id, tool_name, arguments, \
             response_schema, created_at, expires_at, resolved_by_run, resolution, payload, resolved_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))
        .bind(&record.id)
        .bind(&record.thread_id)
        .bind(&record.run_id)
        .bind(&record.reason)
        .bind(&record.message)
        .bind(&record.tool_call_id)
        .bind(&record.tool_name)
        .bind(to_text(&record.arguments)?)
        .bind(to_text(&record.response_schema)?)
        .bind(record.created_at)
        .bind(record.expires_at)
        .bind(resolution.map(|r| r.run_id.as_str()))
        .bind(resolution.map(|r| r.status.as_str()))
        .bind(resolution.and_then(|r| r.payload.as_ref()).map(to_text).transpose()?)
        .bind(resolution.map(|r| r.resolved_at))
        .execute(&self.writer)
        .await;
        result.map(drop).map_err(|e| {
            thread_insert_error(e, || format!("interrupt {}", record.id), &record.thread_id)
        })
    }

    async fn interrupts(&self, thread_id: &str) -> Result<Vec<InterruptRecord>, StoreError> {
        let _timed = timed("interrupts");
        let rows: Vec<InterruptRow> = sqlx::query_as(&self.sql(&format!(
            "{INTERRUPT_COLUMNS} WHERE thread_id = ? ORDER BY created_at, rowid"
        )))
        .bind(thread_id)
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        if rows.is_empty() {
            self.require_thread(thread_id).await?;
        }
        rows.into_iter().map(InterruptRow::into_record).collect()
    }

    async fn resolve_interrupts(
        &self,
        answers: &[(String, InterruptResolution)],
    ) -> Result<(), StoreError> {
        let _timed = timed("resolve_interrupts");
        let mut tx = self.begin().await?;
        for (id, resolution) in answers {
            let payload = resolution
                .payload
                .as_ref()
                .map(serde_json::to_string)
                .transpose()
                .map_err(|e| StoreError::Backend(e.to_string()))?;
            let updated = sqlx::query(&self.sql("UPDATE interrupts SET resolved_by_run = ?, resolution = ?, payload = ?, resolved_at = ? \
                 WHERE id = ? AND resolved_at IS NULL"))
            .bind(&resolution.run_id)
            .bind(&resolution.status)
            .bind(payload)
            .bind(resolution.resolved_at)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
            if updated.rows_affected() == 1 {
                continue;
            }
            let exists: Option<(String,)> =
                sqlx::query_as(&self.sql("SELECT id FROM interrupts WHERE id = ?"))
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(backend)?;
            // Dropping the transaction rolls back the answers already written.
            return Err(match exists {
                Some(_) => StoreError::Conflict(format!("interrupt {id} was already answered")),
                None => StoreError::NotFound(format!("interrupt {id} not found")),
            });
        }
        tx.commit().await.map_err(backend)
    }
}

/// An approval's edited arguments as the audit log stores them (JSON text), if any.
fn edited_text(decision: &ApprovalDecision) -> Option<String> {
    decision
        .edited_args
        .as_ref()
        .map(serde_json::Value::to_string)
}

impl SqlStore {
    /// Marks a `running` run ended, on `executor` (the writer, or a transaction that logs its
    /// last event too); returns the rows changed (0: not running, or not stored).
    pub(super) async fn mark_run_ended<'e>(
        &self,
        executor: impl sqlx::Executor<'e, Database = sqlx::Any>,
        run_id: &str,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<u64, StoreError> {
        let updated = sqlx::query(&self.sql(
            "UPDATE runs SET status = ?, finished_at = ?, error = ? WHERE id = ? AND status = 'running'",
        ))
        .bind(status.wire_name())
        .bind(self.now())
        .bind(error)
        .bind(run_id)
        .execute(executor)
        .await
        .map_err(backend)?;
        Ok(updated.rows_affected())
    }

    /// After [`Self::mark_run_ended`] changed `updated` rows: a run already ended (another
    /// instance marked it interrupted, say) keeps how it ended; one never stored is an error.
    pub(super) async fn check_run_ended(
        &self,
        run_id: &str,
        updated: u64,
    ) -> Result<(), StoreError> {
        if updated == 0 {
            let exists: Option<(String,)> =
                sqlx::query_as(&self.sql("SELECT id FROM runs WHERE id = ?"))
                    .bind(run_id)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err(backend)?;
            if exists.is_none() {
                return Err(StoreError::NotFound(format!("run {run_id} not found")));
            }
        }
        Ok(())
    }
}
