-- Credentials belong to their owners, and records to the organisations they concern.
-- * `users.oidc_issuer`: an OpenID Connect user is the pair (issuer, subject), never a name.
--   Rows from before keep NULL and take the issuer of their next sign-in.
-- * `users.password_set_by`: the ID of the user who set the password (the user's own ID when
--   they chose it). NULL beside a password: set before this was recorded, so not known to be
--   the user's own.
-- * `sessions.method`: how the session began (`password`, `link`, `oidc`); NULL before.
-- * `audit_log.subject`: the user a server-wide record (no `org`) is about; an organisation's
--   administrators see it while that user is a member there.
-- * `plan_revisions.author`: who wrote the revision; every author of a plan is one of its
--   authors for approvals.
ALTER TABLE users ADD COLUMN oidc_issuer TEXT;
ALTER TABLE users ADD COLUMN password_set_by TEXT;
ALTER TABLE sessions ADD COLUMN method TEXT CHECK (method IS NULL OR method IN ('password', 'link', 'oidc'));
ALTER TABLE audit_log ADD COLUMN subject TEXT;
CREATE INDEX audit_log_by_subject ON audit_log (subject, seq);
ALTER TABLE plan_revisions ADD COLUMN author TEXT;
