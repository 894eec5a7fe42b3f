-- PostgreSQL's dialect of migrations/sqlite/0003_plans.sql.
-- Plans: what a team means to import into a stack, revised over time. Every save is a new,
-- immutable revision; every preview records the revision it ran on; read-only links can be
-- handed to reviewers and revoked.
CREATE TABLE plans (
    -- 128 random bits (hex): the plan's URL is its only key, so it must not be guessable
    id          TEXT    PRIMARY KEY,
    stack_id    TEXT    NOT NULL REFERENCES stacks (id),
    title       TEXT    NOT NULL,
    created_at  TEXT    NOT NULL DEFAULT ferry_now()
);

CREATE TABLE plan_revisions (
    plan_id     TEXT    NOT NULL REFERENCES plans (id),
    revision    BIGINT NOT NULL,
    created_at  TEXT    NOT NULL DEFAULT ferry_now(),
    -- an import spec, a YAML program, or both
    spec        TEXT,
    program     TEXT,
    -- JSON: strategy, code style, elision
    options     TEXT    NOT NULL,
    PRIMARY KEY (plan_id, revision)
);

CREATE TABLE plan_previews (
    plan_id     TEXT    NOT NULL,
    revision    BIGINT NOT NULL,
    preview_id  TEXT    NOT NULL REFERENCES previews (id),
    PRIMARY KEY (preview_id),
    FOREIGN KEY (plan_id, revision) REFERENCES plan_revisions (plan_id, revision)
);

CREATE TABLE plan_shares (
    -- 128 random bits (hex): a read-only link
    token       TEXT    PRIMARY KEY,
    plan_id     TEXT    NOT NULL REFERENCES plans (id),
    created_at  TEXT    NOT NULL DEFAULT ferry_now(),
    revoked_at  TEXT
);

CREATE TRIGGER plan_revisions_no_update BEFORE UPDATE ON plan_revisions
    FOR EACH ROW EXECUTE FUNCTION ferry_refuse('plan revisions are immutable');

CREATE TRIGGER plan_revisions_no_delete BEFORE DELETE ON plan_revisions
    FOR EACH ROW EXECUTE FUNCTION ferry_refuse('plan revisions are immutable');

CREATE TRIGGER plan_revisions_no_truncate BEFORE TRUNCATE ON plan_revisions
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_refuse('plan revisions are immutable');

CREATE TRIGGER plan_previews_no_update BEFORE UPDATE ON plan_previews
    FOR EACH ROW EXECUTE FUNCTION ferry_refuse('plan previews are immutable');
