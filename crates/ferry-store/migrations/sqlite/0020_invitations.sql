-- Invitations to an organisation: the only way a person joins one by an organisation
-- administrator's word. The link's token is kept as its SHA-256; accepting uses it up.
CREATE TABLE invitations (
    id          TEXT PRIMARY KEY,
    token_hash  TEXT NOT NULL UNIQUE,
    org         TEXT NOT NULL,
    -- a JSON array of role names
    roles       TEXT NOT NULL,
    invited_by  TEXT NOT NULL REFERENCES users (id),
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    accepted_by TEXT REFERENCES users (id),
    accepted_at TEXT,
    revoked_at  TEXT
);
CREATE INDEX invitations_by_org ON invitations (org, created_at);
