//! Persistence behind two traits: the orchestrator's [`Store`] (threads, messages, runs,
//! approvals) and the REST side's [`Database`] on top of it (listing, renaming and deleting
//! threads, users and their preferences). [`SqlStore`] implements both, on SQLite (the
//! embedded default) or PostgreSQL (several instances on one database, `--database-url`).

mod sql;

use serde::{Deserialize, Serialize};

pub use crate::orchestrator::store::{
    ApprovalDecision, ApprovalRecord, InterruptRecord, InterruptResolution, RunRecord, RunStatus,
    Store, StoreError, StoredPhoto, ThreadRecord, Turn, TurnRequest,
};
/// The user's role, settings and their parts are wire types: the browser reads them too.
pub use crate::protocol::rest::{
    MailFailure, MailState, Preferences, PreferencesUpdate, SpokenTextType, Theme, UserRole,
};
pub use sql::{ExpiredRun, Lease, PendingApproval, Renewal, RunEnd, SqlDialect, SqlStore};

/// The user every request acts as until authentication exists (see `rest::current_user`).
pub const DEV_USER_ID: &str = "00000000-0000-4000-8000-000000000001";
pub const DEV_USER_EMAIL: &str = "inspecteur@nvwa.nl";
pub const DEV_USER_NAME: &str = "Koen Inspecteur";

/// Shown for a thread that has no user message yet.
pub const UNTITLED: &str = "Nieuw gesprek";
/// Automatic titles are at most this many characters, ellipsis included.
pub const AUTO_TITLE_CHARS: usize = 60;
/// A title a user gives is at most this many characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// `firstMessagePreview` is at most this many characters, ellipsis included.
pub const PREVIEW_CHARS: usize = 100;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserRecord {
    pub id: String,
    /// Unique, compared without regard to case.
    pub email: String,
    pub name: String,
    pub role: UserRole,
    pub preferences: Preferences,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds: creation, an update, or the last thread the user opened.
    pub last_activity: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewUser {
    /// A fresh UUID when `None`.
    pub id: Option<String>,
    pub email: String,
    pub name: String,
    pub role: UserRole,
}

/// A partial update of a user: `None` keeps the current value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserUpdate {
    pub name: Option<String>,
    pub role: Option<UserRole>,
    pub preferences: Option<PreferencesUpdate>,
}

impl UserUpdate {
    pub fn is_empty(&self) -> bool {
        self.name.is_none()
            && self.role.is_none()
            && self
                .preferences
                .as_ref()
                .is_none_or(PreferencesUpdate::is_empty)
    }
}

/// A thread as the sidebar shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadSummary {
    pub thread: ThreadRecord,
    /// The first user message, shortened; empty until there is one.
    pub first_message_preview: String,
}

/// One page of a listing and the size of the whole list.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: u64,
}

/// A user as sign-in sees them: the record, the password hash (none until one is set) and
/// whether an admin disabled the account.
#[derive(Debug, Clone, PartialEq)]
pub struct LoginRecord {
    pub user: UserRecord,
    /// An argon2 PHC string.
    pub password_hash: Option<String>,
    pub disabled: bool,
}

/// Accounts and sessions for `AGORA_AUTH=users`.
#[async_trait::async_trait]
pub trait AuthStore: Send + Sync + 'static {
    async fn login_record(&self, email: &str) -> Result<Option<LoginRecord>, StoreError>;
    /// Sets the password and ends every session of the user but `keep_session` (the one that
    /// changed its own password): whoever knew the old password is signed out.
    async fn set_password(
        &self,
        user_id: &str,
        password_hash: &str,
        keep_session: Option<&str>,
    ) -> Result<(), StoreError>;
    /// Disabling also ends the user's sessions.
    async fn set_disabled(&self, user_id: &str, disabled: bool) -> Result<(), StoreError>;
    async fn is_disabled(&self, user_id: &str) -> Result<bool, StoreError>;
    /// Whether an admin who can sign in exists (else the first start offers a set-up link).
    async fn has_admin_login(&self) -> Result<bool, StoreError>;
    /// Enabled admins other than `user_id`: the last one may not be removed, disabled or
    /// demoted, or nobody could manage the accounts any more.
    async fn other_enabled_admins(&self, user_id: &str) -> Result<u64, StoreError>;
    async fn create_session(
        &self,
        token_hash: &str,
        user_id: &str,
        expires_at: i64,
    ) -> Result<(), StoreError>;
    /// The session's user, if the session exists, has not expired and the user is enabled.
    async fn session_user(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<UserRecord>, StoreError>;
    async fn delete_session(&self, token_hash: &str) -> Result<(), StoreError>;
}

/// How a report's e-mail went: one record a report, replaced by each try.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportMailRecord {
    pub report_id: String,
    /// The report's owner, who alone may read this and send again.
    pub user_id: String,
    pub state: MailState,
    pub recipient: Option<String>,
    pub failure: Option<MailFailure>,
    pub reason: Option<String>,
    /// Unix milliseconds (set by the store).
    pub updated_at: i64,
}

/// The reports' mail status (`server/mail.rs`).
#[async_trait::async_trait]
pub trait MailStore: Send + Sync + 'static {
    /// Stores the record as the report's status (its `updated_at` is the store's clock);
    /// returns what was stored.
    async fn set_report_mail(
        &self,
        record: &ReportMailRecord,
    ) -> Result<ReportMailRecord, StoreError>;
    async fn report_mail(&self, report_id: &str) -> Result<Option<ReportMailRecord>, StoreError>;
}

/// Evidence photos (issue 37): written by the transports when a message brings them; read by
/// their owner (`GET /photos/{id}`) and by the report ([`Store::photo`]).
#[async_trait::async_trait]
pub trait PhotoStore: Send + Sync + 'static {
    /// Stores the photo unless its owner has it already (same bytes, same id): `true` when
    /// it was new.
    async fn put_photo(&self, photo: &StoredPhoto) -> Result<bool, StoreError>;
    /// Which of `ids` the owner has already.
    async fn photos_held(&self, owner: &str, ids: &[String]) -> Result<Vec<String>, StoreError>;
    /// The bytes of all the owner's photos together (the `--photo-quota-bytes` limit).
    async fn photo_bytes_of(&self, owner: &str) -> Result<u64, StoreError>;
}

/// What the REST API needs beyond the orchestrator's [`Store`]. `AppState` holds an
/// `Arc<dyn Database>`; the orchestrator takes it as `Arc<dyn Store>` (trait upcasting).
#[async_trait::async_trait]
pub trait Database: Store + AuthStore + MailStore + PhotoStore {
    /// Whether the database answers (`/ready`).
    async fn ping(&self) -> Result<(), StoreError>;

    /// Marks every run still `running` as `interrupted` and returns how many there were. Called
    /// once at start-up, before any run can start.
    async fn interrupt_running_runs(&self) -> Result<u64, StoreError>;

    /// The owner's threads, most recent activity first.
    async fn list_threads(
        &self,
        owner: &str,
        limit: u32,
        offset: u32,
    ) -> Result<Page<ThreadSummary>, StoreError>;
    async fn thread_summary(&self, thread_id: &str) -> Result<ThreadSummary, StoreError>;
    /// Sets a title (already validated) that later messages never overwrite.
    async fn rename_thread(
        &self,
        thread_id: &str,
        title: &str,
    ) -> Result<ThreadSummary, StoreError>;
    /// Deletes the thread with its messages, runs and approvals.
    async fn delete_thread(&self, thread_id: &str) -> Result<(), StoreError>;

    /// `Conflict` when the email (or the given id) is taken.
    async fn create_user(&self, user: &NewUser) -> Result<UserRecord, StoreError>;
    /// Creates the user with the given id unless it exists; returns it either way.
    async fn ensure_user(&self, user: &NewUser) -> Result<UserRecord, StoreError>;
    async fn user(&self, user_id: &str) -> Result<UserRecord, StoreError>;
    /// Newest first.
    async fn list_users(&self, limit: u32, offset: u32) -> Result<Page<UserRecord>, StoreError>;
    async fn update_user(
        &self,
        user_id: &str,
        update: &UserUpdate,
    ) -> Result<UserRecord, StoreError>;
    /// Deletes the user and the threads they own; returns how many threads went.
    async fn delete_user(&self, user_id: &str) -> Result<u64, StoreError>;

    async fn preferences(&self, user_id: &str) -> Result<Preferences, StoreError>;
    async fn update_preferences(
        &self,
        user_id: &str,
        update: &PreferencesUpdate,
    ) -> Result<Preferences, StoreError>;
}

/// A thread's automatic title: the first non-empty line of the first user message, at most
/// [`AUTO_TITLE_CHARS`] characters with an ellipsis when shortened; empty for blank text.
pub fn title_from_text(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("");
    shorten(line, AUTO_TITLE_CHARS)
}

/// `firstMessagePreview`: the message with its whitespace collapsed, at most
/// [`PREVIEW_CHARS`] characters with an ellipsis when shortened.
pub fn preview_from_text(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    shorten(&collapsed, PREVIEW_CHARS)
}

/// At most `max` characters; when shortened, cut at a word boundary where one is near and
/// end with `…`.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max - 1).collect();
    let cut = match cut.rfind(char::is_whitespace) {
        Some(space) if cut[..space].chars().count() >= max / 2 => &cut[..space],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_take_the_first_line_and_stay_short() {
        assert_eq!(
            title_from_text("  \n  Inspectie bij Finta Fiore  \nmeer"),
            "Inspectie bij Finta Fiore"
        );
        assert_eq!(title_from_text("   "), "");
        let long = "woord ".repeat(30);
        let title = title_from_text(&long);
        assert!(title.chars().count() <= AUTO_TITLE_CHARS, "{title}");
        assert!(title.ends_with("woord…"), "{title}");
        let unbroken = "x".repeat(100);
        let title = title_from_text(&unbroken);
        assert_eq!(title.chars().count(), AUTO_TITLE_CHARS);
        assert!(title.ends_with('…'));
        // Multi-byte characters are counted, not bytes.
        let dutch = "ë".repeat(61);
        assert_eq!(title_from_text(&dutch).chars().count(), AUTO_TITLE_CHARS);
    }

    #[test]
    fn previews_collapse_whitespace() {
        assert_eq!(preview_from_text("a\n\n b\tc"), "a b c");
        assert!(preview_from_text(&"abc ".repeat(50)).chars().count() <= PREVIEW_CHARS);
    }
}
