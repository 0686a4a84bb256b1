-- A stop asked for a run, on any instance: durable, so the instance that runs it finds it by
-- the `agora_cancels` notification or, when that was missed, at its next lease renewal.
ALTER TABLE runs ADD COLUMN cancel_requested_at INTEGER;
