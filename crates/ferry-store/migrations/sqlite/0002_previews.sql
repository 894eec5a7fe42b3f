-- Import previews (values: never changed) and the commits made from them.
CREATE TABLE previews (
    id            TEXT    PRIMARY KEY,
    stack_id      TEXT    NOT NULL REFERENCES stacks (id),
    -- the stack version the preview was computed against; a commit needs it to still be latest
    base_version  INTEGER NOT NULL,
    created_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    spec          TEXT    NOT NULL,
    -- the preview as shown and shared: secrets masked
    preview_json  TEXT    NOT NULL,
    -- the values a commit writes, encrypted with the server's payload key
    payload       TEXT    NOT NULL
);

CREATE TABLE commits (
    preview_id   TEXT    PRIMARY KEY REFERENCES previews (id),
    stack_id     TEXT    NOT NULL,
    version      INTEGER NOT NULL,
    committed_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TRIGGER previews_no_update BEFORE UPDATE ON previews
BEGIN
    SELECT RAISE(ABORT, 'previews are immutable');
END;

CREATE TRIGGER commits_no_update BEFORE UPDATE ON commits
BEGIN
    SELECT RAISE(ABORT, 'commits are immutable');
END;
