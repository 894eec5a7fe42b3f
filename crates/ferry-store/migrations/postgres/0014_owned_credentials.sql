-- PostgreSQL's dialect of migrations/sqlite/0014_owned_credentials.sql: an OpenID Connect
-- user's issuer, who set a password, how a session began, the user a server-wide audit record
-- is about, and each plan revision's author.
ALTER TABLE users ADD COLUMN oidc_issuer TEXT;
ALTER TABLE users ADD COLUMN password_set_by TEXT;
ALTER TABLE sessions ADD COLUMN method TEXT CHECK (method IS NULL OR method IN ('password', 'link', 'oidc'));
ALTER TABLE audit_log ADD COLUMN subject TEXT;
CREATE INDEX audit_log_by_subject ON audit_log (subject, seq);
ALTER TABLE plan_revisions ADD COLUMN author TEXT;
