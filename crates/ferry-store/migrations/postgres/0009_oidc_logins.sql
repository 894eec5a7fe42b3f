-- PostgreSQL's dialect of migrations/sqlite/0009_oidc_logins.sql.
-- OpenID Connect sign-ins on their way through the provider, kept here so that the callback may
-- reach any instance: the PKCE verifier and nonce of each, under the SHA-256 of its `state`,
-- taken once, and worthless after `expires_at`.
CREATE TABLE oidc_logins (
    state_hash TEXT PRIMARY KEY,
    verifier   TEXT NOT NULL,
    nonce      TEXT NOT NULL,
    -- the local path to return to
    next       TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX oidc_logins_by_expiry ON oidc_logins (expires_at);
