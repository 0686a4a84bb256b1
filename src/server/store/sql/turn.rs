//! A turn begins in one transaction (`Store::begin_turn`): the thread opened or its owner
//! checked, the run id, the open interrupts and the message id checked, what the thread's last
//! run left open closed, the client's results and the message appended, the run recorded.
//! Before, that was eight round trips before a run's first event (then two: the run's record
//! was its own transaction until issue 36's fourth step).

use sqlx::error::ErrorKind;
use sqlx::{Any, Transaction};

use super::errors::error_kind;
use super::{Flag, INSERT_MESSAGE, INSERT_RUN, SqlStore, TOUCH_THREAD, backend, describe, with_id};
use crate::orchestrator::store::{StoreError, Turn, TurnRequest};
use crate::protocol::Message;
use crate::server::store::{preview_from_text, title_from_text};

impl SqlStore {
    /// `Store::begin_turn`: one transaction on the writer.
    pub(super) async fn begin_turn_tx(&self, turn: &TurnRequest<'_>) -> Result<Turn, StoreError> {
        let now = self.now();
        let title = title_from_text(turn.title_text);
        // Dropping the transaction on an early return writes nothing, a new thread included.
        let mut tx = self.begin().await?;
        self.open_thread_in(&mut tx, turn.thread_id, turn.owner, &title, now)
            .await?;
        if let Some(run_id) = turn.run_id {
            let taken: Option<(String,)> =
                sqlx::query_as(&self.sql("SELECT id FROM runs WHERE id = ?"))
                    .bind(run_id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(backend)?;
            if taken.is_some() {
                return Ok(Turn::RunIdInUse);
            }
        }
        if turn.refuse_open_interrupts {
            let open: Vec<(String,)> = sqlx::query_as(&self.sql(
                "SELECT id FROM interrupts WHERE thread_id = ? AND resolved_at IS NULL \
                 ORDER BY created_at, rowid",
            ))
            .bind(turn.thread_id)
            .fetch_all(&mut *tx)
            .await
            .map_err(backend)?;
            if !open.is_empty() {
                return Ok(Turn::InterruptPending(
                    open.into_iter().map(|(id,)| id).collect(),
                ));
            }
        }
        let message = turn.message.map(with_id);
        if let Some((_, id)) = &message {
            let held: Option<(i64,)> =
                sqlx::query_as(&self.sql("SELECT 1 FROM messages WHERE thread_id = ? AND id = ?"))
                    .bind(turn.thread_id)
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(backend)?;
            if held.is_some() {
                return Ok(Turn::Held);
            }
        }
        let mut messages = self.thread_messages(&mut tx, turn.thread_id).await?;
        let waiting = crate::orchestrator::thread::unanswered_calls(&messages);
        let mut answered: Vec<String> = Vec::new();
        for result in turn.results {
            let Message::Tool(tool) = result else {
                continue;
            };
            let call = tool.tool_call_id.as_str();
            if waiting.iter().any(|(id, _)| id == call) && !answered.iter().any(|a| a == call) {
                answered.push(call.to_owned());
                let (result, id) = with_id(result);
                self.insert_message(&mut tx, turn.thread_id, &result, &id, now)
                    .await?;
                messages.push(result);
            }
        }
        for (call_id, name) in &waiting {
            if answered.contains(call_id) || turn.keep_open.contains(call_id) {
                continue;
            }
            let (closed, id) = with_id(&(turn.close_call)(call_id, name));
            self.insert_message(&mut tx, turn.thread_id, &closed, &id, now)
                .await?;
            messages.push(closed);
        }
        if let Some(decision) = turn.close_approvals {
            sqlx::query(&self.sql(
                "UPDATE approvals SET approved = ?, feedback = ?, decided_by = ?, decided_at = ? \
                 WHERE thread_id = ? AND decided_at IS NULL",
            ))
            .bind(decision.approved)
            .bind(decision.feedback.as_deref())
            .bind(&decision.decided_by)
            .bind(decision.decided_at)
            .bind(turn.thread_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        }
        if let Some((message, id)) = message {
            self.insert_message(&mut tx, turn.thread_id, &message, &id, now)
                .await?;
            messages.push(message);
        }
        // The run's record, last: the check above refused a taken id, and one taken since (a
        // concurrent turn with the same id) is refused the same way, with nothing written.
        if let Some(run_id) = turn.run_id {
            let recorded = sqlx::query(&self.sql(INSERT_RUN))
                .bind(run_id)
                .bind(turn.thread_id)
                .bind(now)
                .bind(&self.lease.instance_id)
                .bind(self.lease_expiry())
                .execute(&mut *tx)
                .await;
            match recorded {
                Ok(_) => {}
                Err(e) if error_kind(&e) == Some(ErrorKind::UniqueViolation) => {
                    return Ok(Turn::RunIdInUse);
                }
                Err(e) => return Err(backend(e)),
            }
        }
        // Read here, in the turn's one transaction: the run needs it before its first answer.
        let Flag(listening) =
            sqlx::query_scalar::<_, Flag>(&self.sql("SELECT listening FROM threads WHERE id = ?"))
                .bind(turn.thread_id)
                .fetch_one(&mut *tx)
                .await
                .map_err(backend)?;
        tx.commit().await.map_err(backend)?;
        Ok(Turn::Begun {
            messages,
            answered,
            listening,
        })
    }

    /// Inside `tx`, which has written already (so SQLite's write lock is held and the
    /// sequence number cannot race): appends a message whose id the thread does not hold, and
    /// counts it on the thread.
    pub(super) async fn insert_message(
        &self,
        tx: &mut Transaction<'static, Any>,
        thread_id: &str,
        message: &Message,
        id: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        let described = describe(message);
        let body =
            serde_json::to_string(message).map_err(|e| StoreError::Backend(e.to_string()))?;
        let user_text = described.user_text.as_deref().unwrap_or("");
        let inserted = sqlx::query(&self.sql(INSERT_MESSAGE))
            .bind(thread_id)
            .bind(id)
            .bind(described.role)
            .bind(&described.agent_id)
            .bind(now)
            .bind(&body)
            .bind(thread_id)
            .execute(&mut **tx)
            .await
            .map_err(backend)?;
        if inserted.rows_affected() == 0 {
            return Ok(());
        }
        sqlx::query(&self.sql(TOUCH_THREAD))
            .bind(now)
            .bind(i64::from(described.visible))
            .bind(title_from_text(user_text))
            .bind(preview_from_text(user_text))
            .bind(thread_id)
            .execute(&mut **tx)
            .await
            .map_err(backend)?;
        Ok(())
    }
}
