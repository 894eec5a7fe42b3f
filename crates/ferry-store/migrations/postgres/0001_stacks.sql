-- PostgreSQL's dialect of migrations/sqlite/0001_stacks.sql.
-- Times as text, as the SQLite schema writes them (RFC 3339 UTC with milliseconds), so both
-- stores sort and compare them the same way.
CREATE FUNCTION ferry_now() RETURNS TEXT LANGUAGE SQL VOLATILE
    AS $$ SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- Immutable and append-only tables refuse changes with the message the trigger names.
CREATE FUNCTION ferry_refuse() RETURNS TRIGGER LANGUAGE plpgsql
    AS $$ BEGIN RAISE EXCEPTION '%', TG_ARGV[0]; END $$;

-- Stacks and their versions. A version is immutable: every upload or commit adds one.
CREATE TABLE stacks (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL DEFAULT ferry_now()
);

CREATE TABLE stack_versions (
    stack_id       TEXT    NOT NULL REFERENCES stacks (id),
    version        BIGINT NOT NULL,
    created_at     TEXT    NOT NULL DEFAULT ferry_now(),
    -- what made this version: 'upload', 'demo', later 'commit'
    origin         TEXT    NOT NULL,
    -- the layout the state arrived in, e.g. 'checkpoint v1'
    source_format  TEXT    NOT NULL,
    resource_count BIGINT NOT NULL,
    -- the state as `pulumi stack export` writes it (secrets still encrypted)
    export_json    TEXT    NOT NULL,
    PRIMARY KEY (stack_id, version)
);

CREATE TRIGGER stack_versions_no_update BEFORE UPDATE ON stack_versions
    FOR EACH ROW EXECUTE FUNCTION ferry_refuse('stack versions are immutable');

CREATE TRIGGER stack_versions_no_delete BEFORE DELETE ON stack_versions
    FOR EACH ROW EXECUTE FUNCTION ferry_refuse('stack versions are immutable');

CREATE TRIGGER stack_versions_no_truncate BEFORE TRUNCATE ON stack_versions
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_refuse('stack versions are immutable');
