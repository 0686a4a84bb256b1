-- Evidence photos (issue 37): stored once per owner, addressed by the SHA-256 of their bytes
-- (as stored: location metadata already removed), so every instance on one database serves
-- them. A message refers to one as a `url` source `/photos/<id>`.
CREATE TABLE photos (
    owner      TEXT NOT NULL,
    id         TEXT NOT NULL,
    mime_type  TEXT NOT NULL,
    width      BIGINT NOT NULL,
    height     BIGINT NOT NULL,
    -- EXIF DateTimeOriginal as the camera wrote it ("2026:11:27 10:32:05"), when it did.
    taken_at   TEXT,
    size       BIGINT NOT NULL,
    body       BYTEA NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (owner, id)
);
