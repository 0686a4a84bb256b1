-- How each report's e-mail went (server/mail.rs): one row a report, rewritten by each try.
-- The report itself lives in the reports directory; losing the mail never loses it.
CREATE TABLE report_mail (
    report_id  TEXT PRIMARY KEY NOT NULL,
    user_id    TEXT NOT NULL,
    state      TEXT NOT NULL,
    recipient  TEXT,
    failure    TEXT,
    reason     TEXT,
    updated_at BIGINT NOT NULL
);
