//! The reports' mail status in SQL: one row a report, replaced by each try.

use super::{SqlStore, backend, corrupt, timed};
use crate::server::store::{MailFailure, MailState, MailStore, ReportMailRecord, StoreError};

#[derive(sqlx::FromRow)]
struct MailRow {
    report_id: String,
    user_id: String,
    state: String,
    recipient: Option<String>,
    failure: Option<String>,
    reason: Option<String>,
    updated_at: i64,
}

impl MailRow {
    fn into_record(self) -> Result<ReportMailRecord, StoreError> {
        let state = match self.state.as_str() {
            "unsent" => MailState::Unsent,
            "sending" => MailState::Sending,
            "sent" => MailState::Sent,
            "failed" => MailState::Failed,
            other => return Err(corrupt("mail state", other)),
        };
        let failure = match self.failure.as_deref() {
            None => None,
            Some(kind) => {
                Some(MailFailure::parse(kind).ok_or_else(|| corrupt("mail failure", kind))?)
            }
        };
        Ok(ReportMailRecord {
            report_id: self.report_id,
            user_id: self.user_id,
            state,
            recipient: self.recipient,
            failure,
            reason: self.reason,
            updated_at: self.updated_at,
        })
    }
}

fn state_name(state: MailState) -> Result<&'static str, StoreError> {
    match state {
        MailState::Unsent => Ok("unsent"),
        MailState::Sending => Ok("sending"),
        MailState::Sent => Ok("sent"),
        MailState::Failed => Ok("failed"),
        // "Off" is the server's configuration, not something a report went through.
        MailState::Off => Err(StoreError::Backend(
            "a report's mail status cannot be stored as off".to_owned(),
        )),
    }
}

#[async_trait::async_trait]
impl MailStore for SqlStore {
    async fn set_report_mail(
        &self,
        record: &ReportMailRecord,
    ) -> Result<ReportMailRecord, StoreError> {
        let _timed = timed("set_report_mail");
        let state = state_name(record.state)?;
        let now = self.now();
        sqlx::query(&self.sql(
            "INSERT INTO report_mail (report_id, user_id, state, recipient, failure, reason, updated_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (report_id) DO UPDATE SET \
             user_id = excluded.user_id, state = excluded.state, recipient = excluded.recipient, failure = excluded.failure, \
             reason = excluded.reason, updated_at = excluded.updated_at",
        ))
        .bind(&record.report_id)
        .bind(&record.user_id)
        .bind(state)
        .bind(&record.recipient)
        .bind(record.failure.map(MailFailure::as_str))
        .bind(&record.reason)
        .bind(now)
        .execute(&self.writer)
        .await
        .map_err(backend)?;
        Ok(ReportMailRecord {
            updated_at: now,
            ..record.clone()
        })
    }

    async fn report_mail(&self, report_id: &str) -> Result<Option<ReportMailRecord>, StoreError> {
        let _timed = timed("report_mail");
        sqlx::query_as::<_, MailRow>(&self.sql(
            "SELECT report_id, user_id, state, recipient, failure, reason, updated_at \
             FROM report_mail WHERE report_id = ?",
        ))
        .bind(report_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?
        .map(MailRow::into_record)
        .transpose()
    }
}
