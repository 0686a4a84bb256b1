-- Several instances share the work. A run is claimed by the instance that executes it, with a
-- lease that instance renews every few seconds; when an instance dies, the others mark its
-- runs `interrupted` once their lease has expired.
ALTER TABLE runs ADD COLUMN instance_id TEXT;
ALTER TABLE runs ADD COLUMN lease_expires_at BIGINT;
CREATE INDEX runs_lease ON runs (lease_expires_at) WHERE status = 'running';

-- Each thread's recent events as the run's instance sent them (the JSON, `seq` included), so a
-- client that comes back on another instance gets what it missed, and instances whose clients
-- follow a thread are told of new events (NOTIFY agora_events, payload: the thread id).
CREATE TABLE thread_events (
    thread_id  TEXT NOT NULL,
    seq        BIGINT NOT NULL,
    run_id     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (thread_id, seq)
);
CREATE INDEX thread_events_age ON thread_events (created_at);

-- Runs per account per minute across instances: the GCRA's theoretical arrival time.
CREATE TABLE rate_limits (
    account TEXT PRIMARY KEY NOT NULL,
    tat     BIGINT NOT NULL
);
