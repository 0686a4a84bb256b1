-- AGORA HAI: users, threads, messages, runs and the approval audit log.
-- Times are Unix milliseconds (INTEGER); JSON is stored as TEXT.

CREATE TABLE users (
    id            TEXT PRIMARY KEY NOT NULL,
    email         TEXT NOT NULL COLLATE NOCASE UNIQUE,
    name          TEXT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('admin', 'inspector', 'viewer')),
    created_at    INTEGER NOT NULL,
    last_activity INTEGER NOT NULL
);
CREATE INDEX users_created ON users (created_at DESC);

-- One row per user once preferences were saved; a missing row means the defaults.
CREATE TABLE user_preferences (
    user_id               TEXT PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    theme                 TEXT NOT NULL DEFAULT 'system' CHECK (theme IN ('light', 'dark', 'system')),
    notifications_enabled INTEGER NOT NULL DEFAULT 1,
    default_agent_id      TEXT NOT NULL DEFAULT 'general-agent',
    language              TEXT NOT NULL DEFAULT 'nl-NL',
    spoken_text_type      TEXT NOT NULL DEFAULT 'summarize' CHECK (spoken_text_type IN ('dictate', 'summarize')),
    updated_at            INTEGER NOT NULL
);

-- A conversation (AG-UI threadId = REST session id). The owner is the user id a client gave;
-- it is not a foreign key because the original AGORA clients use persona ids ("koen").
CREATE TABLE threads (
    id                    TEXT PRIMARY KEY NOT NULL,
    owner                 TEXT NOT NULL,
    -- Empty until the first user message names the thread.
    title                 TEXT NOT NULL DEFAULT '',
    -- 1 once a user renamed it: later messages never overwrite the title.
    title_locked          INTEGER NOT NULL DEFAULT 0,
    first_message_preview TEXT NOT NULL DEFAULT '',
    created_at            INTEGER NOT NULL,
    last_activity         INTEGER NOT NULL,
    -- User and assistant messages with text: what the history shows without tools.
    message_count         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX threads_owner_activity ON threads (owner, last_activity DESC);

-- Every message of a thread in order, as the AG-UI JSON the orchestrator wrote, plus the
-- columns it is found by. Tool calls live inside assistant messages, results are tool messages.
CREATE TABLE messages (
    thread_id  TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    id         TEXT NOT NULL,
    role       TEXT NOT NULL,
    agent_id   TEXT,
    created_at INTEGER NOT NULL,
    body       TEXT NOT NULL,
    PRIMARY KEY (thread_id, seq),
    UNIQUE (thread_id, id)
);

CREATE TABLE runs (
    id          TEXT PRIMARY KEY NOT NULL,
    thread_id   TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    status      TEXT NOT NULL CHECK (status IN ('running', 'finished', 'error', 'cancelled', 'interrupted')),
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    error       TEXT
);
CREATE INDEX runs_thread ON runs (thread_id, started_at);
CREATE INDEX runs_running ON runs (status) WHERE status = 'running';

-- The approval audit log: the request, then (once) the decision.
CREATE TABLE approvals (
    approval_id  TEXT PRIMARY KEY NOT NULL,
    thread_id    TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    run_id       TEXT NOT NULL,
    tool_call_id TEXT NOT NULL,
    tool_name    TEXT NOT NULL,
    parameters   TEXT NOT NULL,
    risk_level   TEXT NOT NULL,
    requested_by TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    approved     INTEGER,
    feedback     TEXT,
    decided_by   TEXT,
    decided_at   INTEGER
);
CREATE INDEX approvals_thread ON approvals (thread_id, requested_at);
