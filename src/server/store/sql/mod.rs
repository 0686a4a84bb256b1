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

use sqlx::any::AnyPoolOptions;
use sqlx::error::ErrorKind;
use sqlx::{Any, AnyPool, Executor, Transaction};

use super::{
    ApprovalDecision, ApprovalRecord, Database, InterruptRecord, InterruptResolution, NewUser,
    Page, Preferences, PreferencesUpdate, RunRecord, RunStatus, Store, StoreError, StoredPhoto,
    ThreadRecord, ThreadSummary, Turn, TurnRequest, UserRecord, UserRole, UserUpdate,
    title_from_text,
};
use crate::protocol::Message;

mod append;
mod auth;
mod cluster;
mod database;
mod errors;
mod history;
mod mail;
mod photos;
mod preferences;
mod rows;
mod store;
mod turn;

pub use cluster::{ExpiredRun, Lease, PendingApproval, Renewal, RunEnd};
use errors::{
    backend, corrupt, error_kind, redact, thread_insert_error, thread_not_found, user_not_found,
};
use rows::{
    ApprovalRow, Flag, INTERRUPT_COLUMNS, InterruptRow, PreferencesRow, RunRow, THREAD_COLUMNS,
    ThreadRow, USER_COLUMNS, UserRow,
};

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
    /// The threads' messages read lately, so that a turn parses only what is new (issue 36).
    history: history::History,
    /// Users' preferences as read here, which every AGORA run reads at its start (issue 36):
    /// SQLite only, whose one instance makes every write through this store, which forgets
    /// the user's. With PostgreSQL another instance may write them, so they are read each time.
    preferences: preferences::PreferencesCache,
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
                // No ping before each acquire (sqlx's default): a connection to a local file
                // does not go stale, and the ping is one more hand-off to the connection's
                // thread and back for every transaction (issue 36's profile).
                let writer = AnyPoolOptions::new()
                    .max_connections(1)
                    .test_before_acquire(false)
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
                    .test_before_acquire(false)
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
            history: history::History::new(history::HISTORY_BUDGET_BYTES),
            preferences: preferences::PreferencesCache::default(),
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
        // Locked until the transaction ends (PostgreSQL; SQLite has one writer anyway): turns
        // on one thread begin one after the other on every instance, so a message id sent to
        // two instances at once is taken by one; the other finds it held.
        let lock = match self.dialect {
            SqlDialect::Postgres => " FOR UPDATE",
            SqlDialect::Sqlite => "",
        };
        let row = sqlx::query_as::<_, ThreadRow>(
            &self.sql(&format!("{THREAD_COLUMNS} WHERE id = ?{lock}")),
        )
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

/// A run recorded `running`, leased to this instance. Binds: run id, thread id, started at,
/// instance id, lease expiry.
const INSERT_RUN: &str = "INSERT INTO runs (id, thread_id, status, started_at, instance_id, lease_expires_at) \
     VALUES (?, ?, 'running', ?, ?, ?)";

/// A message appended at the thread's end unless its id is there already. Binds: thread id,
/// id, role, agent id, created at, body, thread id.
const INSERT_MESSAGE: &str = "INSERT INTO messages (thread_id, seq, id, role, agent_id, created_at, body) \
     SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ? FROM messages WHERE thread_id = ? \
     ON CONFLICT DO NOTHING";

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

/// The message with an id, given one if it has none, so that snapshots can refer to it.
fn with_id(message: &Message) -> (Message, String) {
    let mut message = message.clone();
    let id = message
        .id_mut()
        .get_or_insert_with(|| uuid::Uuid::new_v4().to_string())
        .clone();
    (message, id)
}
