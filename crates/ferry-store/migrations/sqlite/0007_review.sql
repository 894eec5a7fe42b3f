-- Review as a workflow: comments on a plan revision's resources (threads, resolved or not),
-- approvals of one revision's preview, each stack's approval rule, each organisation's
-- settings, and the plan an audit record is about (a plan's timeline is its audit records).
CREATE TABLE plan_comments (
    id          TEXT    PRIMARY KEY,
    plan_id     TEXT    NOT NULL REFERENCES plans (id),
    revision    INTEGER NOT NULL,
    urn         TEXT    NOT NULL,
    -- a property path within the resource (`tags.env`), or NULL for the resource itself
    path        TEXT,
    -- the thread's first comment, for replies
    parent_id   TEXT    REFERENCES plan_comments (id),
    author      TEXT    NOT NULL,
    body        TEXT    NOT NULL,
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    resolved_at TEXT,
    resolved_by TEXT
);
CREATE INDEX plan_comments_by_plan ON plan_comments (plan_id, revision);

CREATE TABLE plan_approvals (
    plan_id    TEXT    NOT NULL REFERENCES plans (id),
    revision   INTEGER NOT NULL,
    preview_id TEXT    NOT NULL REFERENCES previews (id),
    approver   TEXT    NOT NULL,
    created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (plan_id, revision, preview_id, approver)
);

CREATE TABLE stack_settings (
    stack_id           TEXT    PRIMARY KEY REFERENCES stacks (id),
    required_approvals INTEGER NOT NULL DEFAULT 0 CHECK (required_approvals BETWEEN 0 AND 10),
    author_may_approve INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE org_settings (
    org                TEXT    PRIMARY KEY,
    -- whether members may make read-only links
    share_links        INTEGER NOT NULL DEFAULT 1,
    -- how long a new link lasts
    share_link_days    INTEGER NOT NULL DEFAULT 30 CHECK (share_link_days BETWEEN 1 AND 366),
    -- JSON array of the packages whose plugins requests may launch (beyond Ferry's own and the
    -- packages of the organisation's stacks); NULL: none more
    allowed_packages   TEXT
);

ALTER TABLE plan_shares ADD COLUMN expires_at TEXT;
ALTER TABLE audit_log ADD COLUMN plan_id TEXT;
CREATE INDEX audit_log_by_plan ON audit_log (plan_id, seq);
