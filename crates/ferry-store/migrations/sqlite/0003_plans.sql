-- Plans: what a team means to import into a stack, revised over time. Every save is a new,
-- immutable revision; every preview records the revision it ran on; read-only links can be
-- handed to reviewers and revoked.
CREATE TABLE plans (
    -- 128 random bits (hex): the plan's URL is its only key, so it must not be guessable
    id          TEXT    PRIMARY KEY,
    stack_id    TEXT    NOT NULL REFERENCES stacks (id),
    title       TEXT    NOT NULL,
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE plan_revisions (
    plan_id     TEXT    NOT NULL REFERENCES plans (id),
    revision    INTEGER NOT NULL,
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- an import spec, a YAML program, or both
    spec        TEXT,
    program     TEXT,
    -- JSON: strategy, code style, elision
    options     TEXT    NOT NULL,
    PRIMARY KEY (plan_id, revision)
);

CREATE TABLE plan_previews (
    plan_id     TEXT    NOT NULL,
    revision    INTEGER NOT NULL,
    preview_id  TEXT    NOT NULL REFERENCES previews (id),
    PRIMARY KEY (preview_id),
    FOREIGN KEY (plan_id, revision) REFERENCES plan_revisions (plan_id, revision)
);

CREATE TABLE plan_shares (
    -- 128 random bits (hex): a read-only link
    token       TEXT    PRIMARY KEY,
    plan_id     TEXT    NOT NULL REFERENCES plans (id),
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    revoked_at  TEXT
);

CREATE TRIGGER plan_revisions_no_update BEFORE UPDATE ON plan_revisions
BEGIN
    SELECT RAISE(ABORT, 'plan revisions are immutable');
END;

CREATE TRIGGER plan_revisions_no_delete BEFORE DELETE ON plan_revisions
BEGIN
    SELECT RAISE(ABORT, 'plan revisions are immutable');
END;

CREATE TRIGGER plan_previews_no_update BEFORE UPDATE ON plan_previews
BEGIN
    SELECT RAISE(ABORT, 'plan previews are immutable');
END;
