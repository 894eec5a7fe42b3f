-- A plan's life, as lists show it: the organisation it belongs to (its stack's), its state and
-- what the state was computed from (a PlanStatus as JSON; NULL until the service first
-- computes it, which it does at start for plans older than this migration), when anything last
-- happened to it, and who closed it. Reviewers' requests for changes, each blocking the commit
-- while it stands. Which plan made a stack version is its commit's preview's plan.
ALTER TABLE plans ADD COLUMN org TEXT NOT NULL DEFAULT '';
ALTER TABLE plans ADD COLUMN state TEXT NOT NULL DEFAULT 'draft'
    CHECK (state IN ('draft', 'previewed', 'changes-requested', 'approved', 'committed', 'closed'));
ALTER TABLE plans ADD COLUMN status_json TEXT;
-- the latest revision's latest preview, as the status says (what `awaiting` compares approvals with)
ALTER TABLE plans ADD COLUMN latest_preview TEXT;
ALTER TABLE plans ADD COLUMN last_activity_at TEXT NOT NULL DEFAULT '';
ALTER TABLE plans ADD COLUMN closed_at TEXT;
ALTER TABLE plans ADD COLUMN closed_by TEXT;
UPDATE plans SET
    org = (SELECT substr(s.name, 1, instr(s.name, '/') - 1) FROM stacks s WHERE s.id = plans.stack_id),
    last_activity_at = created_at;
CREATE INDEX plans_by_org_activity ON plans (org, last_activity_at, id);
CREATE INDEX plans_by_stack_activity ON plans (stack_id, last_activity_at, id);
CREATE INDEX commits_by_version ON commits (stack_id, version);
CREATE INDEX plan_previews_by_revision ON plan_previews (plan_id, revision);

CREATE TABLE plan_change_requests (
    plan_id      TEXT    NOT NULL REFERENCES plans (id),
    reviewer     TEXT    NOT NULL,
    revision     INTEGER NOT NULL,
    preview_id   TEXT    NOT NULL REFERENCES previews (id),
    body         TEXT    NOT NULL,
    created_at   TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    withdrawn_at TEXT,
    withdrawn_by TEXT
);
CREATE INDEX plan_change_requests_by_plan ON plan_change_requests (plan_id);
