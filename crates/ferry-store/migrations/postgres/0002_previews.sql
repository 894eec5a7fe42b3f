-- PostgreSQL's dialect of migrations/sqlite/0002_previews.sql.
-- Import previews (values: never changed) and the commits made from them.
CREATE TABLE previews (
    id            TEXT    PRIMARY KEY,
    stack_id      TEXT    NOT NULL REFERENCES stacks (id),
    -- the stack version the preview was computed against; a commit needs it to still be latest
    base_version  BIGINT NOT NULL,
    created_at    TEXT    NOT NULL DEFAULT ferry_now(),
    spec          TEXT    NOT NULL,
    -- the preview as shown and shared: secrets masked
    preview_json  TEXT    NOT NULL,
    -- the values a commit writes, encrypted with the server's payload key
    payload       TEXT    NOT NULL
);

CREATE TABLE commits (
    preview_id   TEXT    PRIMARY KEY REFERENCES previews (id),
    stack_id     TEXT    NOT NULL,
    version      BIGINT NOT NULL,
    committed_at TEXT    NOT NULL DEFAULT ferry_now()
);

CREATE TRIGGER previews_no_update BEFORE UPDATE ON previews
    FOR EACH ROW EXECUTE FUNCTION ferry_refuse('previews are immutable');

CREATE TRIGGER commits_no_update BEFORE UPDATE ON commits
    FOR EACH ROW EXECUTE FUNCTION ferry_refuse('commits are immutable');
