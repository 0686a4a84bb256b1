-- AGORA HAI on PostgreSQL: the same tables as migrations/sqlite, so that the store's queries
-- are written once. Times are Unix milliseconds (BIGINT) from the store, which follows this
-- database's clock; JSON is stored as TEXT, as the AG-UI JSON the orchestrator wrote. Each
-- table has a `rowid` identity column, the name of SQLite's implicit one: "in insertion order"
-- reads the same in both.

CREATE TABLE users (
    rowid         BIGINT GENERATED ALWAYS AS IDENTITY,
    id            TEXT PRIMARY KEY NOT NULL,
    email         TEXT NOT NULL,
    name          TEXT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('admin', 'inspector', 'viewer')),
    created_at    BIGINT NOT NULL,
    last_activity BIGINT NOT NULL
);
-- Unique without regard to case, as SQLite's COLLATE NOCASE.
CREATE UNIQUE INDEX users_email ON users (lower(email));
CREATE INDEX users_created ON users (created_at DESC);

CREATE TABLE user_preferences (
    user_id               TEXT PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    theme                 TEXT NOT NULL DEFAULT 'system' CHECK (theme IN ('light', 'dark', 'system')),
    notifications_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    default_agent_id      TEXT NOT NULL DEFAULT 'general-agent',
    language              TEXT NOT NULL DEFAULT 'nl-NL',
    spoken_text_type      TEXT NOT NULL DEFAULT 'summarize' CHECK (spoken_text_type IN ('dictate', 'summarize')),
    updated_at            BIGINT NOT NULL
);

CREATE TABLE threads (
    id                    TEXT PRIMARY KEY NOT NULL,
    owner                 TEXT NOT NULL,
    title                 TEXT NOT NULL DEFAULT '',
    title_locked          BOOLEAN NOT NULL DEFAULT FALSE,
    first_message_preview TEXT NOT NULL DEFAULT '',
    created_at            BIGINT NOT NULL,
    last_activity         BIGINT NOT NULL,
    message_count         BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX threads_owner_activity ON threads (owner, last_activity DESC);

-- Numbered per thread under the thread's row lock (the store updates the thread first).
CREATE TABLE messages (
    thread_id  TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    id         TEXT NOT NULL,
    role       TEXT NOT NULL,
    agent_id   TEXT,
    created_at BIGINT NOT NULL,
    body       TEXT NOT NULL,
    PRIMARY KEY (thread_id, seq),
    UNIQUE (thread_id, id)
);

CREATE TABLE runs (
    rowid       BIGINT GENERATED ALWAYS AS IDENTITY,
    id          TEXT PRIMARY KEY NOT NULL,
    thread_id   TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    status      TEXT NOT NULL CHECK (status IN ('running', 'finished', 'error', 'cancelled', 'interrupted')),
    started_at  BIGINT NOT NULL,
    finished_at BIGINT,
    error       TEXT
);
CREATE INDEX runs_thread ON runs (thread_id, started_at);
CREATE INDEX runs_running ON runs (status) WHERE status = 'running';

CREATE TABLE approvals (
    rowid        BIGINT GENERATED ALWAYS AS IDENTITY,
    approval_id  TEXT PRIMARY KEY NOT NULL,
    thread_id    TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    run_id       TEXT NOT NULL,
    tool_call_id TEXT NOT NULL,
    tool_name    TEXT NOT NULL,
    parameters   TEXT NOT NULL,
    risk_level   TEXT NOT NULL,
    requested_by TEXT NOT NULL,
    requested_at BIGINT NOT NULL,
    approved     BOOLEAN,
    feedback     TEXT,
    decided_by   TEXT,
    decided_at   BIGINT
);
CREATE INDEX approvals_thread ON approvals (thread_id, requested_at);
