-- Listen mode (issue 38): while on, the thread's messages are recorded as findings and
-- acknowledged without a model call, until the wake word "AGORA" or the switch ends it. Thread
-- state, so it survives a reload, another device and a restart.
ALTER TABLE threads ADD COLUMN listening BOOLEAN NOT NULL DEFAULT FALSE;
