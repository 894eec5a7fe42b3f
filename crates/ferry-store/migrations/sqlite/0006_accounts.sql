-- Who acts: users (local passwords or OpenID Connect subjects), their roles per organisation,
-- sessions, API tokens and one-time sign-in links; and the audit log of what they did.
-- Secrets (session tokens, API tokens, sign-in links) are stored as SHA-256 hashes only.
CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    email         TEXT,
    -- Argon2id PHC string; NULL for users who only sign in through OpenID Connect
    password_hash TEXT,
    oidc_sub      TEXT UNIQUE,
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- A member's roles in an organisation (the `org` of `org/project/stack`); `*` is every one.
CREATE TABLE memberships (
    org     TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id),
    role    TEXT NOT NULL CHECK (role IN ('viewer', 'planner', 'approver', 'committer', 'admin')),
    PRIMARY KEY (org, user_id, role)
);

CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    expires_at TEXT NOT NULL,
    revoked_at TEXT
);

CREATE TABLE api_tokens (
    id         TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    user_id    TEXT NOT NULL REFERENCES users (id),
    name       TEXT NOT NULL,
    -- the one role the token acts with, in `org` (or `*`), and only while its user holds it there
    org        TEXT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('viewer', 'planner', 'approver', 'committer', 'admin')),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    expires_at TEXT NOT NULL,
    revoked_at TEXT
);

CREATE TABLE sign_in_links (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    expires_at TEXT NOT NULL,
    used_at    TEXT
);

CREATE TABLE audit_log (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- the user's name, or `anonymous`, or `share link`
    actor   TEXT NOT NULL,
    -- the organisation the object belongs to; NULL for server-wide actions (sign-in, users)
    org     TEXT,
    action  TEXT NOT NULL,
    object  TEXT NOT NULL,
    address TEXT NOT NULL,
    -- `ok`, or `denied: …`, `failed: …` with the HTTP status
    outcome TEXT NOT NULL
);
CREATE INDEX audit_log_by_org ON audit_log (org, seq);

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;

CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;

-- Who wrote a plan (approvals may exclude the author).
ALTER TABLE plans ADD COLUMN author TEXT;
