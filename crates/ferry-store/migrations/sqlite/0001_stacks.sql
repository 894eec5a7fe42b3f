-- Stacks and their versions. A version is immutable: every upload or commit adds one.
CREATE TABLE stacks (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE stack_versions (
    stack_id       TEXT    NOT NULL REFERENCES stacks (id),
    version        INTEGER NOT NULL,
    created_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- what made this version: 'upload', 'demo', later 'commit'
    origin         TEXT    NOT NULL,
    -- the layout the state arrived in, e.g. 'checkpoint v1'
    source_format  TEXT    NOT NULL,
    resource_count INTEGER NOT NULL,
    -- the state as `pulumi stack export` writes it (secrets still encrypted)
    export_json    TEXT    NOT NULL,
    PRIMARY KEY (stack_id, version)
);

CREATE TRIGGER stack_versions_no_update BEFORE UPDATE ON stack_versions
BEGIN
    SELECT RAISE(ABORT, 'stack versions are immutable');
END;

CREATE TRIGGER stack_versions_no_delete BEFORE DELETE ON stack_versions
BEGIN
    SELECT RAISE(ABORT, 'stack versions are immutable');
END;
