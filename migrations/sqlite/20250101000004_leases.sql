-- What instances on one database share (see migrations/postgres): which instance runs a run
-- and until when its claim holds, each thread's recent events, rate limits. With one SQLite
-- file there is one instance, every run left `running` at start-up is interrupted, and only
-- the run columns are written; the tables are here so that both databases have the same.
ALTER TABLE runs ADD COLUMN instance_id TEXT;
ALTER TABLE runs ADD COLUMN lease_expires_at INTEGER;

CREATE TABLE thread_events (
    thread_id  TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    run_id     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (thread_id, seq)
);
CREATE INDEX thread_events_age ON thread_events (created_at);

CREATE TABLE rate_limits (
    account TEXT PRIMARY KEY NOT NULL,
    tat     INTEGER NOT NULL
);
