//! The store in SQL: one implementation for SQLite (the embedded default, one file in WAL
//! mode) and PostgreSQL (several instances on one database), through sqlx's `Any` driver.
//!
//! The queries are written once, with `?` placeholders; [`SqlStore::sql`] numbers them
//! (`$1`, `$2`, …) for PostgreSQL. What differs between the two lives in the migrations
//! (`migrations/sqlite`, `migrations/postgres`): PostgreSQL's tables carry a `rowid` identity
//! column so "in insertion order" reads the same, and flags are `BOOLEAN` there (read through
//! [`Flag`]). Times are Unix milliseconds from [`SqlStore::now`], which follows the database's
//! clock: instances on different machines agree on "most recent first".

use std::borrow::Cow;
use std::path::Path;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use sqlx::any::{AnyPoolOptions, AnyTypeInfo, AnyTypeInfoKind};
use sqlx::error::ErrorKind;
use sqlx::{Any, AnyPool, Executor, FromRow, Transaction};

use super::{
    ApprovalDecision, ApprovalRecord, Database, InterruptRecord, InterruptResolution, NewUser,
    Page, Preferences, PreferencesUpdate, RunRecord, RunStatus, SpokenTextType, Store, StoreError,
    Theme, ThreadRecord, ThreadSummary, Turn, TurnRequest, UNTITLED, UserRecord, UserRole,
    UserUpdate, preview_from_text, title_from_text,
};
use crate::protocol::Message;

mod auth;
mod cluster;
mod mail;
mod turn;

pub use cluster::{ExpiredRun, Lease, PendingApproval};

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// Which database a store speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlDialect {
    Sqlite,
    Postgres,
}

/// SQL through two pools. SQLite: readers side by side (WAL) and one writer connection.
/// PostgreSQL: one pool for both, the database orders concurrent writers itself. Every write
/// is committed (and synced) before the call returns.
pub struct SqlStore {
    /// Which SQL the queries are turned into.
    dialect: SqlDialect,
    /// Reads: with SQLite, WAL lets them run beside the writer, each seeing the last commit.
    pool: AnyPool,
    /// Every write. With SQLite one connection: SQLite takes one writer at a time anyway, and
    /// with several writer connections the losers sleep in the busy handler and retry. Queued
    /// in the pool instead, a run of 50 concurrent inspections took 8.0–8.3 ms of server CPU a
    /// run against 9.3–11.8 ms, p99 525–655 ms against 759–921 ms (issue 19).
    writer: AnyPool,
    /// Last timestamp handed out, so that times within this process strictly increase and
    /// "most recent first" is well defined even within one millisecond.
    clock: AtomicI64,
    /// Milliseconds from this machine's clock to the database's (PostgreSQL, measured at open
    /// and by every lease renewal); 0 for SQLite, whose clock is this machine's.
    clock_offset: AtomicI64,
    interrupted_at_startup: AtomicU64,
    /// Whose runs are whose: this process's id and how long its claim on a run lasts unless
    /// renewed (see `cluster.rs`).
    lease: Lease,
}

impl SqlStore {
    /// Opens (creating if needed) an SQLite database file as the only instance: runs the
    /// migrations and marks the runs a previous process left `running` as `interrupted` (see
    /// [`Self::interrupted_at_startup`]).
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        // `?`, `#` and `%` would otherwise be read as the URL's query, fragment or escapes.
        let file = path
            .to_string_lossy()
            .replace('%', "%25")
            .replace('?', "%3F")
            .replace('#', "%23");
        Self::connect(&format!("sqlite://{file}?mode=rwc"), Lease::default()).await
    }

    /// Opens the database at `url`: `sqlite://path` or `postgres://user@host:port/db`.
    /// SQLite marks every run left `running` as `interrupted` (it has one instance); PostgreSQL
    /// only those whose lease expired (the others belong to live instances).
    pub async fn connect(url: &str, lease: Lease) -> Result<Self, StoreError> {
        sqlx::any::install_default_drivers();
        let dialect = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            SqlDialect::Postgres
        } else if url.starts_with("sqlite:") {
            SqlDialect::Sqlite
        } else {
            return Err(StoreError::Backend(format!(
                "unsupported database URL (sqlite:// or postgres://): {}",
                redact(url)
            )));
        };
        let (pool, writer) = match dialect {
            SqlDialect::Sqlite => {
                let writer = AnyPoolOptions::new()
                    .max_connections(1)
                    .after_connect(|conn, _| {
                        Box::pin(async move {
                            // FULL: a commit survives a power cut too, not only a killed process.
                            conn.execute(
                                "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
                                 PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON;",
                            )
                            .await
                            .map(|_| ())
                        })
                    })
                    .connect(url)
                    .await
                    .map_err(backend)?;
                SQLITE_MIGRATIONS
                    .run(&writer)
                    .await
                    .map_err(|e| StoreError::Backend(format!("migrations failed: {e}")))?;
                let read_only = url.replace("mode=rwc", "mode=ro");
                let pool = AnyPoolOptions::new()
                    .max_connections(4)
                    .after_connect(|conn, _| {
                        Box::pin(async move {
                            conn.execute("PRAGMA busy_timeout = 10000;")
                                .await
                                .map(|_| ())
                        })
                    })
                    .connect(&read_only)
                    .await
                    .map_err(backend)?;
                (pool, writer)
            }
            SqlDialect::Postgres => {
                let pool = AnyPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(Duration::from_secs(10))
                    .connect(url)
                    .await
                    .map_err(backend)?;
                POSTGRES_MIGRATIONS
                    .run(&pool)
                    .await
                    .map_err(|e| StoreError::Backend(format!("migrations failed: {e}")))?;
                (pool.clone(), pool)
            }
        };
        let store = Self {
            dialect,
            pool,
            writer,
            clock: AtomicI64::new(0),
            clock_offset: AtomicI64::new(0),
            interrupted_at_startup: AtomicU64::new(0),
            lease,
        };
        store.sync_clock().await?;
        let interrupted = match dialect {
            SqlDialect::Sqlite => store.interrupt_running_runs().await?,
            SqlDialect::Postgres => store.interrupt_expired_runs().await?.len() as u64,
        };
        store
            .interrupted_at_startup
            .store(interrupted, Ordering::Relaxed);
        Ok(store)
    }

    pub fn dialect(&self) -> SqlDialect {
        self.dialect
    }

    /// How many runs [`Self::open`] found `running` and marked `interrupted`.
    pub fn interrupted_at_startup(&self) -> u64 {
        self.interrupted_at_startup.load(Ordering::Relaxed)
    }

    /// Closes the pools (with SQLite, checkpointing the WAL); for tests and orderly shutdown.
    pub async fn close(&self) {
        self.pool.close().await;
        self.writer.close().await;
    }

    /// The query for this store's database: `?` placeholders become `$1`, `$2`, … for
    /// PostgreSQL. No query here has a `?` inside a string literal.
    fn sql<'q>(&self, query: &'q str) -> Cow<'q, str> {
        match self.dialect {
            SqlDialect::Sqlite => Cow::Borrowed(query),
            SqlDialect::Postgres => Cow::Owned(numbered_placeholders(query)),
        }
    }

    /// Unix milliseconds by the database's clock, strictly increasing within this store.
    fn now(&self) -> i64 {
        let wall = crate::clock::now_millis() as i64 + self.clock_offset.load(Ordering::Relaxed);
        let mut last = self.clock.load(Ordering::Relaxed);
        loop {
            let next = wall.max(last + 1);
            match self
                .clock
                .compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return next,
                Err(seen) => last = seen,
            }
        }
    }

    /// Reads the database's clock (PostgreSQL) and keeps its distance to this machine's.
    async fn sync_clock(&self) -> Result<(), StoreError> {
        if self.dialect == SqlDialect::Sqlite {
            return Ok(());
        }
        let before = crate::clock::now_millis() as i64;
        let (database,): (i64,) =
            sqlx::query_as("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)")
                .fetch_one(&self.pool)
                .await
                .map_err(backend)?;
        let after = crate::clock::now_millis() as i64;
        // The database read its clock somewhere in the round trip: its middle is the best guess.
        self.clock_offset
            .store(database - (before + after) / 2, Ordering::Relaxed);
        Ok(())
    }

    async fn begin(&self) -> Result<Transaction<'static, Any>, StoreError> {
        self.writer.begin().await.map_err(backend)
    }

    async fn thread_row(&self, thread_id: &str) -> Result<ThreadRow, StoreError> {
        sqlx::query_as::<_, ThreadRow>(&self.sql(&format!("{THREAD_COLUMNS} WHERE id = ?")))
            .bind(thread_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(backend)?
            .ok_or_else(|| thread_not_found(thread_id))
    }

    async fn require_thread(&self, thread_id: &str) -> Result<(), StoreError> {
        self.thread_row(thread_id).await.map(|_| ())
    }

    /// Inside `tx`: creates the thread for `owner` or checks that it is theirs (someone
    /// else's is not found), names it from `title` while it has no name, and marks the owner
    /// active.
    async fn open_thread_in(
        &self,
        tx: &mut Transaction<'static, Any>,
        thread_id: &str,
        owner: &str,
        title: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(&self.sql("INSERT INTO threads (id, owner, title, created_at, last_activity) VALUES (?, ?, ?, ?, ?) \
             ON CONFLICT (id) DO NOTHING"))
        .bind(thread_id)
        .bind(owner)
        .bind(title)
        .bind(now)
        .bind(now)
        .execute(&mut **tx)
        .await
        .map_err(backend)?;
        let row =
            sqlx::query_as::<_, ThreadRow>(&self.sql(&format!("{THREAD_COLUMNS} WHERE id = ?")))
                .bind(thread_id)
                .fetch_one(&mut **tx)
                .await
                .map_err(backend)?;
        if row.owner != owner {
            return Err(thread_not_found(thread_id));
        }
        // A thread opened before it had any text gets its title from the first text it sees.
        sqlx::query(&self.sql("UPDATE threads SET title = ? WHERE id = ? AND title = '' AND title_locked = FALSE AND ? <> ''"))
            .bind(title)
            .bind(thread_id)
            .bind(title)
            .execute(&mut **tx)
            .await
            .map_err(backend)?;
        sqlx::query(&self.sql("UPDATE users SET last_activity = ? WHERE id = ?"))
            .bind(now)
            .bind(owner)
            .execute(&mut **tx)
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn user_row(&self, user_id: &str) -> Result<UserRecord, StoreError> {
        sqlx::query_as::<_, UserRow>(&self.sql(&format!("{USER_COLUMNS} WHERE u.id = ?")))
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(backend)?
            .ok_or_else(|| user_not_found(user_id))?
            .into_record()
    }
}

/// A message counted on its thread: activity, count, and the name and preview of a thread
/// that has none yet. Binds: now, visible (0/1), title, preview, thread id.
const TOUCH_THREAD: &str = "UPDATE threads SET last_activity = ?, message_count = message_count + ?, \
     title = CASE WHEN title = '' AND title_locked = FALSE THEN ? ELSE title END, \
     first_message_preview = CASE WHEN first_message_preview = '' THEN ? ELSE first_message_preview END \
     WHERE id = ?";

/// A message appended at the thread's end unless its id is there already. Binds: thread id,
/// id, role, agent id, created at, body, thread id.
const INSERT_MESSAGE: &str = "INSERT INTO messages (thread_id, seq, id, role, agent_id, created_at, body) \
     SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ? FROM messages WHERE thread_id = ? \
     ON CONFLICT DO NOTHING";

const THREAD_COLUMNS: &str = "SELECT id, owner, title, first_message_preview, created_at, last_activity, \
                              message_count FROM threads";

#[derive(FromRow)]
struct ThreadRow {
    id: String,
    owner: String,
    title: String,
    first_message_preview: String,
    created_at: i64,
    last_activity: i64,
    message_count: i64,
}

impl ThreadRow {
    fn into_summary(self) -> ThreadSummary {
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

const USER_COLUMNS: &str = "SELECT u.id, u.email, u.name, u.role, u.created_at, u.last_activity, p.theme, \
                            p.notifications_enabled, p.default_agent_id, p.language, p.spoken_text_type \
                            FROM users u LEFT JOIN user_preferences p ON p.user_id = u.id";

#[derive(FromRow)]
struct UserRow {
    id: String,
    email: String,
    name: String,
    role: String,
    created_at: i64,
    last_activity: i64,
    #[sqlx(flatten)]
    preferences: PreferencesRow,
}

impl UserRow {
    fn into_record(self) -> Result<UserRecord, StoreError> {
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
struct PreferencesRow {
    theme: Option<String>,
    notifications_enabled: Option<Flag>,
    default_agent_id: Option<String>,
    language: Option<String>,
    spoken_text_type: Option<String>,
}

impl PreferencesRow {
    fn into_preferences(self) -> Result<Preferences, StoreError> {
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
struct RunRow {
    id: String,
    thread_id: String,
    status: String,
    started_at: i64,
    finished_at: Option<i64>,
    error: Option<String>,
}

impl RunRow {
    fn into_record(self) -> Result<RunRecord, StoreError> {
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
struct ApprovalRow {
    approval_id: String,
    thread_id: String,
    run_id: String,
    tool_call_id: String,
    tool_name: String,
    parameters: String,
    risk_level: String,
    requested_by: String,
    requested_at: i64,
    approved: Option<Flag>,
    feedback: Option<String>,
    decided_by: Option<String>,
    decided_at: Option<i64>,
}

impl ApprovalRow {
    fn into_record(self) -> Result<ApprovalRecord, StoreError> {
        let decision = match (self.approved, self.decided_by, self.decided_at) {
            (Some(Flag(approved)), Some(decided_by), Some(decided_at)) => Some(ApprovalDecision {
                approved,
                feedback: self.feedback,
                decided_by,
                decided_at,
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

const INTERRUPT_COLUMNS: &str = "SELECT id, thread_id, run_id, reason, message, tool_call_id, tool_name, \
                                 arguments, response_schema, created_at, expires_at, resolved_by_run, \
                                 resolution, payload, resolved_at FROM interrupts";

#[derive(FromRow)]
struct InterruptRow {
    id: String,
    thread_id: String,
    run_id: String,
    reason: String,
    message: String,
    tool_call_id: String,
    tool_name: String,
    arguments: String,
    response_schema: String,
    created_at: i64,
    expires_at: i64,
    resolved_by_run: Option<String>,
    resolution: Option<String>,
    payload: Option<String>,
    resolved_at: Option<i64>,
}

impl InterruptRow {
    fn into_record(self) -> Result<InterruptRecord, StoreError> {
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

fn parse_status(s: &str) -> Result<RunStatus, StoreError> {
    Ok(match s {
        "running" => RunStatus::Running,
        "finished" => RunStatus::Finished,
        "error" => RunStatus::Error,
        "cancelled" => RunStatus::Cancelled,
        "interrupted" => RunStatus::Interrupted,
        other => return Err(corrupt("run status", other)),
    })
}

fn backend(e: sqlx::Error) -> StoreError {
    StoreError::Backend(e.to_string())
}

/// Records how long a store call took in `/metrics` when dropped: one per call, so the count
/// is the calls and the sum the time spent waiting for the database.
pub(crate) struct Timed {
    op: &'static str,
    since: std::time::Instant,
}

pub(crate) fn timed(op: &'static str) -> Timed {
    Timed {
        op,
        since: std::time::Instant::now(),
    }
}

impl Drop for Timed {
    fn drop(&mut self) {
        metrics::histogram!(crate::orchestrator::metrics::STORE_CALL_SECONDS, "op" => self.op)
            .record(self.since.elapsed());
    }
}

/// `?` → `$1`, `$2`, … in order.
fn numbered_placeholders(query: &str) -> String {
    let mut out = String::with_capacity(query.len() + 16);
    let mut n = 0;
    for c in query.chars() {
        if c == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(c);
        }
    }
    out
}

/// The URL without its password, for an error message.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
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

fn corrupt(what: &str, value: &str) -> StoreError {
    StoreError::Backend(format!("unreadable {what} in the database: {value}"))
}

fn thread_not_found(thread_id: &str) -> StoreError {
    StoreError::NotFound(format!("Session {thread_id} not found"))
}

fn user_not_found(user_id: &str) -> StoreError {
    StoreError::NotFound(format!("User {user_id} not found"))
}

/// A failed insert of a row that belongs to a thread: its key taken is a conflict (`what`
/// names the row), a thread that does not exist is not found, anything else the backend's.
fn thread_insert_error(
    e: sqlx::Error,
    what: impl FnOnce() -> String,
    thread_id: &str,
) -> StoreError {
    match error_kind(&e) {
        Some(ErrorKind::UniqueViolation) => StoreError::Conflict(format!("{} exists", what())),
        Some(ErrorKind::ForeignKeyViolation) => thread_not_found(thread_id),
        _ => backend(e),
    }
}

fn error_kind(e: &sqlx::Error) -> Option<ErrorKind> {
    e.as_database_error().map(|d| d.kind())
}

/// What the indexed columns of a message hold, and what it does to its thread.
struct Described {
    role: &'static str,
    agent_id: Option<String>,
    /// Counted in `message_count`: user and assistant messages with text.
    visible: bool,
    /// The text of a user message, which may name the thread.
    user_text: Option<String>,
}

fn describe(message: &Message) -> Described {
    let (role, agent_id, visible, text) = match message {
        Message::Developer(_) => ("developer", None, false, None),
        Message::System(_) => ("system", None, false, None),
        Message::Reasoning(_) => ("reasoning", None, false, None),
        Message::Activity(_) => ("activity", None, false, None),
        Message::Tool(_) => ("tool", None, false, None),
        Message::User(user) => {
            let text = user.content.text();
            ("user", None, true, Some(text))
        }
        Message::Assistant(assistant) => {
            let visible = assistant
                .content
                .as_deref()
                .is_some_and(|c| !c.trim().is_empty());
            ("assistant", assistant.name.clone(), visible, None)
        }
    };
    Described {
        role,
        agent_id,
        visible,
        user_text: text,
    }
}

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
    async fn append_message(&self, thread_id: &str, message: &Message) -> Result<(), StoreError> {
        let _timed = timed("append_message");
        let (message, id) = with_id(message);
        let described = describe(&message);
        let body =
            serde_json::to_string(&message).map_err(|e| StoreError::Backend(e.to_string()))?;
        let user_text = described.user_text.as_deref().unwrap_or("");
        let title = title_from_text(user_text);
        let preview = preview_from_text(user_text);
        let now = self.now();

        let mut tx = self.begin().await?;
        // Writing first takes SQLite's write lock for the whole transaction, so the sequence
        // number below cannot race with another writer.
        let updated = sqlx::query(&self.sql(TOUCH_THREAD))
            .bind(now)
            .bind(i64::from(described.visible))
            .bind(&title)
            .bind(&preview)
            .bind(thread_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if updated.rows_affected() == 0 {
            return Err(thread_not_found(thread_id));
        }
        let inserted = sqlx::query(&self.sql(INSERT_MESSAGE))
            .bind(thread_id)
            .bind(&id)
            .bind(described.role)
            .bind(&described.agent_id)
            .bind(now)
            .bind(&body)
            .bind(thread_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if inserted.rows_affected() == 0 {
            // Already stored: undo the thread update.
            tx.rollback().await.map_err(backend)?;
            return Ok(());
        }
        tx.commit().await.map_err(backend)
    }

    async fn messages(&self, thread_id: &str) -> Result<Vec<Message>, StoreError> {
        let _timed = timed("messages");
        let bodies: Vec<(String,)> =
            sqlx::query_as(&self.sql("SELECT body FROM messages WHERE thread_id = ? ORDER BY seq"))
                .bind(thread_id)
                .fetch_all(&self.pool)
                .await
                .map_err(backend)?;
        if bodies.is_empty() {
            self.require_thread(thread_id).await?;
        }
        bodies
            .into_iter()
            .map(|(body,)| {
                serde_json::from_str(&body).map_err(|e| corrupt("message", &e.to_string()))
            })
            .collect()
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

    async fn start_run(&self, run_id: &str, thread_id: &str) -> Result<(), StoreError> {
        let _timed = timed("start_run");
        let result = sqlx::query(&self.sql(
            "INSERT INTO runs (id, thread_id, status, started_at, instance_id, lease_expires_at) \
             VALUES (?, ?, 'running', ?, ?, ?)",
        ))
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
        let updated = sqlx::query(&self.sql("UPDATE runs SET status = ?, finished_at = ?, error = ? WHERE id = ? AND status = 'running'"))
        .bind(status.wire_name())
        .bind(self.now())
        .bind(error)
        .bind(run_id)
        .execute(&self.writer)
        .await
        .map_err(backend)?;
        if updated.rows_affected() == 0 {
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
             requested_by, requested_at, approved, feedback, decided_by, decided_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))
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
            "UPDATE approvals SET approved = ?, feedback = ?, decided_by = ?, decided_at = ? \
             WHERE approval_id = ? AND decided_at IS NULL",
        ))
        .bind(decision.approved)
        .bind(decision.feedback.as_deref())
        .bind(&decision.decided_by)
        .bind(decision.decided_at)
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
             requested_at, approved, feedback, decided_by, decided_at FROM approvals WHERE thread_id = ? \
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

#[async_trait::async_trait]
impl Database for SqlStore {
    async fn ping(&self) -> Result<(), StoreError> {
        let _timed = timed("ping");
        sqlx::query(&self.sql("SELECT 1"))
            .execute(&self.pool)
            .await
            .map(|_| ())
            .map_err(backend)
    }

    async fn interrupt_running_runs(&self) -> Result<u64, StoreError> {
        let _timed = timed("interrupt_running_runs");
        let updated = sqlx::query(&self.sql(
            "UPDATE runs SET status = 'interrupted', finished_at = ?, \
             error = COALESCE(error, 'the server stopped during the run') WHERE status = 'running'",
        ))
        .bind(self.now())
        .execute(&self.writer)
        .await
        .map_err(backend)?;
        Ok(updated.rows_affected())
    }

    async fn list_threads(
        &self,
        owner: &str,
        limit: u32,
        offset: u32,
    ) -> Result<Page<ThreadSummary>, StoreError> {
        let _timed = timed("list_threads");
        let rows: Vec<ThreadRow> = sqlx::query_as(&self.sql(&format!(
            "{THREAD_COLUMNS} WHERE owner = ? ORDER BY last_activity DESC, created_at DESC, id LIMIT ? OFFSET ?"
        )))
        .bind(owner)
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        let (total,): (i64,) =
            sqlx::query_as(&self.sql("SELECT COUNT(*) FROM threads WHERE owner = ?"))
                .bind(owner)
                .fetch_one(&self.pool)
                .await
                .map_err(backend)?;
        Ok(Page {
            items: rows.into_iter().map(ThreadRow::into_summary).collect(),
            total: u64::try_from(total).unwrap_or(0),
        })
    }

    async fn thread_summary(&self, thread_id: &str) -> Result<ThreadSummary, StoreError> {
        let _timed = timed("thread_summary");
        Ok(self.thread_row(thread_id).await?.into_summary())
    }

    async fn rename_thread(
        &self,
        thread_id: &str,
        title: &str,
    ) -> Result<ThreadSummary, StoreError> {
        let _timed = timed("rename_thread");
        let updated = sqlx::query(
            &self.sql("UPDATE threads SET title = ?, title_locked = TRUE WHERE id = ?"),
        )
        .bind(title)
        .bind(thread_id)
        .execute(&self.writer)
        .await
        .map_err(backend)?;
        if updated.rows_affected() == 0 {
            return Err(thread_not_found(thread_id));
        }
        self.thread_summary(thread_id).await
    }

    async fn delete_thread(&self, thread_id: &str) -> Result<(), StoreError> {
        let _timed = timed("delete_thread");
        // Messages, runs and approvals follow through ON DELETE CASCADE.
        let deleted = sqlx::query(&self.sql("DELETE FROM threads WHERE id = ?"))
            .bind(thread_id)
            .execute(&self.writer)
            .await
            .map_err(backend)?;
        if deleted.rows_affected() == 0 {
            return Err(thread_not_found(thread_id));
        }
        Ok(())
    }

    async fn create_user(&self, user: &NewUser) -> Result<UserRecord, StoreError> {
        let _timed = timed("create_user");
        let id = user
            .id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let now = self.now();
        let result = sqlx::query(&self.sql("INSERT INTO users (id, email, name, role, created_at, last_activity) VALUES (?, ?, ?, ?, ?, ?)"))
        .bind(&id)
        .bind(&user.email)
        .bind(&user.name)
        .bind(user.role.as_str())
        .bind(now)
        .bind(now)
        .execute(&self.writer)
        .await;
        match result {
            Ok(_) => self.user_row(&id).await,
            Err(e) if error_kind(&e) == Some(ErrorKind::UniqueViolation) => {
                // SQLite names the column, PostgreSQL the index on lower(email).
                let on_email = e.as_database_error().is_some_and(|d| {
                    d.message().contains("users.email") || d.constraint() == Some("users_email")
                });
                Err(StoreError::Conflict(if on_email {
                    format!("A user with email {} already exists", user.email)
                } else {
                    format!("A user with id {id} already exists")
                }))
            }
            Err(e) => Err(backend(e)),
        }
    }

    async fn ensure_user(&self, user: &NewUser) -> Result<UserRecord, StoreError> {
        let _timed = timed("ensure_user");
        if let Some(id) = &user.id {
            match self.user_row(id).await {
                Ok(existing) => return Ok(existing),
                Err(StoreError::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        match self.create_user(user).await {
            // Created meanwhile by another connection.
            Err(StoreError::Conflict(_)) if user.id.is_some() => {
                self.user_row(user.id.as_deref().unwrap_or_default()).await
            }
            other => other,
        }
    }

    async fn user(&self, user_id: &str) -> Result<UserRecord, StoreError> {
        let _timed = timed("user");
        self.user_row(user_id).await
    }

    async fn list_users(&self, limit: u32, offset: u32) -> Result<Page<UserRecord>, StoreError> {
        let _timed = timed("list_users");
        let rows: Vec<UserRow> = sqlx::query_as(&self.sql(&format!(
            "{USER_COLUMNS} ORDER BY u.created_at DESC, u.rowid DESC LIMIT ? OFFSET ?"
        )))
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        let (total,): (i64,) = sqlx::query_as(&self.sql("SELECT COUNT(*) FROM users"))
            .fetch_one(&self.pool)
            .await
            .map_err(backend)?;
        Ok(Page {
            items: rows
                .into_iter()
                .map(UserRow::into_record)
                .collect::<Result<_, _>>()?,
            total: u64::try_from(total).unwrap_or(0),
        })
    }

    async fn update_user(
        &self,
        user_id: &str,
        update: &UserUpdate,
    ) -> Result<UserRecord, StoreError> {
        let _timed = timed("update_user");
        let now = self.now();
        let mut tx = self.begin().await?;
        let updated = sqlx::query(&self.sql("UPDATE users SET name = COALESCE(?, name), role = COALESCE(?, role), last_activity = ? WHERE id = ?"))
        .bind(update.name.as_deref())
        .bind(update.role.map(UserRole::as_str))
        .bind(now)
        .bind(user_id)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        if updated.rows_affected() == 0 {
            return Err(user_not_found(user_id));
        }
        if let Some(preferences) = &update.preferences {
            self.write_preferences(&mut tx, user_id, preferences, now)
                .await?;
        }
        tx.commit().await.map_err(backend)?;
        self.user_row(user_id).await
    }

    async fn delete_user(&self, user_id: &str) -> Result<u64, StoreError> {
        let _timed = timed("delete_user");
        let mut tx = self.begin().await?;
        let deleted = sqlx::query(&self.sql("DELETE FROM users WHERE id = ?"))
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if deleted.rows_affected() == 0 {
            return Err(user_not_found(user_id));
        }
        let threads = sqlx::query(&self.sql("DELETE FROM threads WHERE owner = ?"))
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        // Their reports go with their threads, and with them where they were mailed to.
        sqlx::query(&self.sql("DELETE FROM report_mail WHERE user_id = ?"))
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        tx.commit().await.map_err(backend)?;
        Ok(threads.rows_affected())
    }

    async fn preferences(&self, user_id: &str) -> Result<Preferences, StoreError> {
        let _timed = timed("preferences");
        Ok(self.user_row(user_id).await?.preferences)
    }

    async fn update_preferences(
        &self,
        user_id: &str,
        update: &PreferencesUpdate,
    ) -> Result<Preferences, StoreError> {
        let _timed = timed("update_preferences");
        let now = self.now();
        let mut tx = self.begin().await?;
        let updated = sqlx::query(&self.sql("UPDATE users SET last_activity = ? WHERE id = ?"))
            .bind(now)
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if updated.rows_affected() == 0 {
            return Err(user_not_found(user_id));
        }
        let preferences = self
            .write_preferences(&mut tx, user_id, update, now)
            .await?;
        tx.commit().await.map_err(backend)?;
        Ok(preferences)
    }
}

impl SqlStore {
    /// Applies `update` to the stored (or default) preferences inside `tx`; returns the result.
    async fn write_preferences(
        &self,
        tx: &mut Transaction<'static, Any>,
        user_id: &str,
        update: &PreferencesUpdate,
        now: i64,
    ) -> Result<Preferences, StoreError> {
        let current: Option<PreferencesRow> = sqlx::query_as(&self.sql(
            "SELECT theme, notifications_enabled, default_agent_id, language, spoken_text_type \
         FROM user_preferences WHERE user_id = ?",
        ))
        .bind(user_id)
        .fetch_optional(&mut **tx)
        .await
        .map_err(backend)?;
        let mut preferences = match current {
            Some(row) => row.into_preferences()?,
            None => Preferences::default(),
        };
        update.apply(&mut preferences);
        sqlx::query(&self.sql("INSERT INTO user_preferences (user_id, theme, notifications_enabled, default_agent_id, language, \
         spoken_text_type, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) \
         ON CONFLICT (user_id) DO UPDATE SET theme = excluded.theme, \
         notifications_enabled = excluded.notifications_enabled, default_agent_id = excluded.default_agent_id, \
         language = excluded.language, spoken_text_type = excluded.spoken_text_type, updated_at = excluded.updated_at"))
    .bind(user_id)
    .bind(preferences.theme.as_str())
    .bind(preferences.notifications_enabled)
    .bind(&preferences.default_agent_id)
    .bind(&preferences.language)
    .bind(preferences.spoken_text_type.as_str())
    .bind(now)
    .execute(&mut **tx)
    .await
    .map_err(backend)?;
        Ok(preferences)
    }
}

/// The message with an id, given one if it has none, so that snapshots can refer to it.
fn with_id(message: &Message) -> (Message, String) {
    let mut message = message.clone();
    let id = message
        .id_mut()
        .get_or_insert_with(|| uuid::Uuid::new_v4().to_string())
        .clone();
    (message, id)
}
