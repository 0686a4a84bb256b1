-- Interrupts of the standard AG-UI dialect (POST /agui): a run that needs the user's answer
-- ends with them, and a later run on the thread answers them in `resume`. Kept here so that a
-- restart between the two loses nothing. The decision itself also goes to the approvals log.

CREATE TABLE interrupts (
    id              TEXT PRIMARY KEY NOT NULL,
    thread_id       TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    run_id          TEXT NOT NULL,
    reason          TEXT NOT NULL,
    message         TEXT NOT NULL,
    tool_call_id    TEXT NOT NULL,
    tool_name       TEXT NOT NULL,
    -- JSON
    arguments       TEXT NOT NULL,
    -- JSON Schema of the expected answer
    response_schema TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    -- Set once, by the run whose resume answered it.
    resolved_by_run TEXT,
    resolution      TEXT CHECK (resolution IN ('resolved', 'cancelled')),
    -- JSON, the resume entry's payload
    payload         TEXT,
    resolved_at     INTEGER
);
CREATE INDEX interrupts_thread ON interrupts (thread_id, created_at);
