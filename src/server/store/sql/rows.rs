//! The rows the queries read, each with its conversion to the store's record type, and the
//! column lists the queries select them with.

use sqlx::any::{AnyTypeInfo, AnyTypeInfoKind};
use sqlx::{Any, FromRow};

use super::corrupt;
use crate::server::store::{
    ApprovalDecision, ApprovalRecord, InterruptRecord, InterruptResolution, Preferences, RunRecord,
    RunStatus, SpokenTextType, StoreError, Theme, ThreadRecord, ThreadSummary, UNTITLED,
    UserRecord, UserRole,
};

pub(super) const THREAD_COLUMNS: &str = "SELECT id, owner, title, first_message_preview, created_at, last_activity, \
                              message_count FROM threads";

#[derive(FromRow)]
pub(super) struct ThreadRow {
    pub(super) id: String,
    pub(super) owner: String,
    pub(super) title: String,
    pub(super) first_message_preview: String,
    pub(super) created_at: i64,
    pub(super) last_activity: i64,
    pub(super) message_count: i64,
}

impl ThreadRow {
    pub(super) fn into_summary(self) -> ThreadSummary {
        ThreadSummary {
            thread: ThreadRecord {
                id: self.id,
                owner: self.owner,
                title: if self.title.is_empty() {
                    UNTITLED.to_owned()
                } else {
                    self.title
                },
                created_at: self.created_at,
                last_activity: self.last_activity,
                message_count: self.message_count,
            },
            first_message_preview: self.first_message_preview,
        }
    }
}

pub(super) const USER_COLUMNS: &str = "SELECT u.id, u.email, u.name, u.role, u.created_at, u.last_activity, p.theme, \
                            p.notifications_enabled, p.default_agent_id, p.language, p.spoken_text_type \
                            FROM users u LEFT JOIN user_preferences p ON p.user_id = u.id";

#[derive(FromRow)]
pub(super) struct UserRow {
    pub(super) id: String,
    pub(super) email: String,
    pub(super) name: String,
    pub(super) role: String,
    pub(super) created_at: i64,
    pub(super) last_activity: i64,
    #[sqlx(flatten)]
    pub(super) preferences: PreferencesRow,
}

impl UserRow {
    pub(super) fn into_record(self) -> Result<UserRecord, StoreError> {
        Ok(UserRecord {
            role: UserRole::parse(&self.role).ok_or_else(|| corrupt("role", &self.role))?,
            preferences: self.preferences.into_preferences()?,
            id: self.id,
            email: self.email,
            name: self.name,
            created_at: self.created_at,
            last_activity: self.last_activity,
        })
    }
}

/// All `None` when the user never saved preferences.
#[derive(FromRow)]
pub(super) struct PreferencesRow {
    pub(super) theme: Option<String>,
    pub(super) notifications_enabled: Option<Flag>,
    pub(super) default_agent_id: Option<String>,
    pub(super) language: Option<String>,
    pub(super) spoken_text_type: Option<String>,
}

impl PreferencesRow {
    pub(super) fn into_preferences(self) -> Result<Preferences, StoreError> {
        let mut preferences = Preferences::default();
        if let Some(theme) = self.theme {
            preferences.theme = Theme::parse(&theme).ok_or_else(|| corrupt("theme", &theme))?;
        }
        if let Some(Flag(enabled)) = self.notifications_enabled {
            preferences.notifications_enabled = enabled;
        }
        if let Some(agent) = self.default_agent_id {
            preferences.default_agent_id = agent;
        }
        if let Some(language) = self.language {
            preferences.language = language;
        }
        if let Some(kind) = self.spoken_text_type {
            preferences.spoken_text_type =
                SpokenTextType::parse(&kind).ok_or_else(|| corrupt("spoken_text_type", &kind))?;
        }
        Ok(preferences)
    }
}

#[derive(FromRow)]
pub(super) struct RunRow {
    pub(super) id: String,
    pub(super) thread_id: String,
    pub(super) status: String,
    pub(super) started_at: i64,
    pub(super) finished_at: Option<i64>,
    pub(super) error: Option<String>,
}

impl RunRow {
    pub(super) fn into_record(self) -> Result<RunRecord, StoreError> {
        Ok(RunRecord {
            status: parse_status(&self.status)?,
            id: self.id,
            thread_id: self.thread_id,
            started_at: self.started_at,
            finished_at: self.finished_at,
            error: self.error,
        })
    }
}

#[derive(FromRow)]
pub(super) struct ApprovalRow {
    pub(super) approval_id: String,
    pub(super) thread_id: String,
    pub(super) run_id: String,
    pub(super) tool_call_id: String,
    pub(super) tool_name: String,
    pub(super) parameters: String,
    pub(super) risk_level: String,
    pub(super) requested_by: String,
    pub(super) requested_at: i64,
    pub(super) approved: Option<Flag>,
    pub(super) feedback: Option<String>,
    pub(super) decided_by: Option<String>,
    pub(super) decided_at: Option<i64>,
    pub(super) edited_args: Option<String>,
}

impl ApprovalRow {
    pub(super) fn into_record(self) -> Result<ApprovalRecord, StoreError> {
        let decision = match (self.approved, self.decided_by, self.decided_at) {
            (Some(Flag(approved)), Some(decided_by), Some(decided_at)) => Some(ApprovalDecision {
                approved,
                feedback: self.feedback,
                decided_by,
                decided_at,
                edited_args: self
                    .edited_args
                    .as_deref()
                    .map(serde_json::from_str)
                    .transpose()
                    .map_err(|e| corrupt("edited_args", &e.to_string()))?,
            }),
            _ => None,
        };
        Ok(ApprovalRecord {
            parameters: serde_json::from_str(&self.parameters)
                .map_err(|e| corrupt("parameters", &e.to_string()))?,
            approval_id: self.approval_id,
            thread_id: self.thread_id,
            run_id: self.run_id,
            tool_call_id: self.tool_call_id,
            tool_name: self.tool_name,
            risk_level: self.risk_level,
            requested_by: self.requested_by,
            requested_at: self.requested_at,
            decision,
        })
    }
}

pub(super) const INTERRUPT_COLUMNS: &str = "SELECT id, thread_id, run_id, reason, message, tool_call_id, tool_name, \
                                 arguments, response_schema, created_at, expires_at, resolved_by_run, \
                                 resolution, payload, resolved_at FROM interrupts";

#[derive(FromRow)]
pub(super) struct InterruptRow {
    pub(super) id: String,
    pub(super) thread_id: String,
    pub(super) run_id: String,
    pub(super) reason: String,
    pub(super) message: String,
    pub(super) tool_call_id: String,
    pub(super) tool_name: String,
    pub(super) arguments: String,
    pub(super) response_schema: String,
    pub(super) created_at: i64,
    pub(super) expires_at: i64,
    pub(super) resolved_by_run: Option<String>,
    pub(super) resolution: Option<String>,
    pub(super) payload: Option<String>,
    pub(super) resolved_at: Option<i64>,
}

impl InterruptRow {
    pub(super) fn into_record(self) -> Result<InterruptRecord, StoreError> {
        let json = |what: &str, text: &str| {
            serde_json::from_str(text).map_err(|e| corrupt(what, &e.to_string()))
        };
        let resolution = match (self.resolved_by_run, self.resolution, self.resolved_at) {
            (Some(run_id), Some(status), Some(resolved_at)) => Some(InterruptResolution {
                run_id,
                status,
                payload: self
                    .payload
                    .as_deref()
                    .map(|p| json("interrupt payload", p))
                    .transpose()?,
                resolved_at,
            }),
            _ => None,
        };
        Ok(InterruptRecord {
            arguments: json("interrupt arguments", &self.arguments)?,
            response_schema: json("interrupt response schema", &self.response_schema)?,
            id: self.id,
            thread_id: self.thread_id,
            run_id: self.run_id,
            reason: self.reason,
            message: self.message,
            tool_call_id: self.tool_call_id,
            tool_name: self.tool_name,
            created_at: self.created_at,
            expires_at: self.expires_at,
            resolution,
        })
    }
}

pub(super) fn parse_status(s: &str) -> Result<RunStatus, StoreError> {
    Ok(match s {
        "running" => RunStatus::Running,
        "finished" => RunStatus::Finished,
        "error" => RunStatus::Error,
        "cancelled" => RunStatus::Cancelled,
        "interrupted" => RunStatus::Interrupted,
        other => return Err(corrupt("run status", other)),
    })
}

/// A yes/no column: `BOOLEAN` in PostgreSQL, an integer in SQLite, which sqlx's `Any` driver
/// reads as a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Flag(pub bool);

impl sqlx::Type<Any> for Flag {
    fn type_info() -> AnyTypeInfo {
        <bool as sqlx::Type<Any>>::type_info()
    }

    fn compatible(ty: &AnyTypeInfo) -> bool {
        matches!(ty.kind(), AnyTypeInfoKind::Bool) || ty.kind().is_integer()
    }
}

impl<'r> sqlx::Decode<'r, Any> for Flag {
    fn decode(value: sqlx::any::AnyValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
        match <bool as sqlx::Decode<Any>>::decode(value.clone()) {
            Ok(flag) => Ok(Flag(flag)),
            Err(_) => <i64 as sqlx::Decode<Any>>::decode(value).map(|n| Flag(n != 0)),
        }
    }
}
