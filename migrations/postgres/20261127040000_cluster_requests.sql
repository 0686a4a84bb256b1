-- What one instance asks of the instance that runs a run, kept in the database so that a
-- missed NOTIFY (the doorbell) is made up by a look at the next lease renewal or reconnect:
-- a stop asked for a run, and an approval answered on another instance than its run's.
ALTER TABLE runs ADD COLUMN cancel_requested_at BIGINT;

CREATE TABLE approval_answers (
    approval_id TEXT PRIMARY KEY NOT NULL,
    body        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

-- Generated reports (PDF and JSON) where every instance finds them; written with several
-- instances only (an instance alone keeps them in its data directory).
CREATE TABLE report_files (
    name       TEXT PRIMARY KEY NOT NULL,
    thread_id  TEXT NOT NULL,
    body       BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX report_files_thread ON report_files (thread_id);
