-- A version's export is kept zstd-compressed (`export_zstd`; see src/export.rs): SQLite copies a
-- value twice while writing it, and a 100,000-resource stack's text is 55 MB. Versions stored
-- before keep their text in `export_json`; each row has exactly one of the two.
-- SQLite cannot drop a NOT NULL constraint, so the table is rebuilt (no other table refers to
-- it), its immutability triggers with it.
DROP TRIGGER stack_versions_no_update;
DROP TRIGGER stack_versions_no_delete;

CREATE TABLE stack_versions_packed (
    stack_id       TEXT    NOT NULL REFERENCES stacks (id),
    version        INTEGER NOT NULL,
    created_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- what made this version: 'upload', 'demo', 'commit', 'backend'
    origin         TEXT    NOT NULL,
    -- the layout the state arrived in, e.g. 'checkpoint v1'
    source_format  TEXT    NOT NULL,
    resource_count INTEGER NOT NULL,
    -- the state as `pulumi stack export` writes it (secrets still encrypted): as text in rows
    -- from before this migration, zstd-compressed since
    export_json    TEXT,
    export_zstd    BLOB,
    CHECK ((export_json IS NULL) <> (export_zstd IS NULL)),
    PRIMARY KEY (stack_id, version)
);

INSERT INTO stack_versions_packed (stack_id, version, created_at, origin, source_format, resource_count, export_json)
    SELECT stack_id, version, created_at, origin, source_format, resource_count, export_json FROM stack_versions;
DROP TABLE stack_versions;
ALTER TABLE stack_versions_packed RENAME TO stack_versions;

CREATE TRIGGER stack_versions_no_update BEFORE UPDATE ON stack_versions
BEGIN
    SELECT RAISE(ABORT, 'stack versions are immutable');
END;

CREATE TRIGGER stack_versions_no_delete BEFORE DELETE ON stack_versions
BEGIN
    SELECT RAISE(ABORT, 'stack versions are immutable');
END;
