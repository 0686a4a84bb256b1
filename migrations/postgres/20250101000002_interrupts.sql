-- Interrupts of the standard AG-UI dialect (POST /agui); see migrations/sqlite.
CREATE TABLE interrupts (
    rowid           BIGINT GENERATED ALWAYS AS IDENTITY,
    id              TEXT PRIMARY KEY NOT NULL,
    thread_id       TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    run_id          TEXT NOT NULL,
    reason          TEXT NOT NULL,
    message         TEXT NOT NULL,
    tool_call_id    TEXT NOT NULL,
    tool_name       TEXT NOT NULL,
    arguments       TEXT NOT NULL,
    response_schema TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    resolved_by_run TEXT,
    resolution      TEXT CHECK (resolution IN ('resolved', 'cancelled')),
    payload         TEXT,
    resolved_at     BIGINT
);
CREATE INDEX interrupts_thread ON interrupts (thread_id, created_at);
