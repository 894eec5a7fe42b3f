-- An identification (a program's would-be creates tried as imports) runs as a job, as a preview
-- and a discovery do: the kind's check admits `identification`. SQLite cannot change a table's
-- CHECK, so the jobs table is rebuilt, and its events with it (they refer to it): each copied
-- whole, then put in the old one's place, with the indexes and triggers the old ones had
-- (migrations 0008 and 0017).
CREATE TABLE jobs_rebuilt (
    id          TEXT    PRIMARY KEY,
    -- `preview` (of a plan revision), `discovery` (of what a stack's providers list) or
    -- `identification` (of a program's would-be creates)
    kind        TEXT    NOT NULL CHECK (kind IN ('preview', 'discovery', 'identification')),
    stack_id    TEXT    NOT NULL REFERENCES stacks (id),
    -- a preview's plan and revision
    plan_id     TEXT    REFERENCES plans (id),
    revision    INTEGER,
    -- queued, running, done, failed, cancelled, interrupted
    status      TEXT    NOT NULL,
    total       INTEGER NOT NULL,
    finished    INTEGER NOT NULL DEFAULT 0,
    untouched   INTEGER NOT NULL DEFAULT 0,
    preview_id  TEXT,
    error       TEXT,
    -- what the job was asked (JSON; a discovery's types)
    detail      TEXT,
    -- the instance running it, and until when its lease holds
    instance    TEXT,
    lease_until TEXT,
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO jobs_rebuilt (id, kind, stack_id, plan_id, revision, status, total, finished, untouched, preview_id, error, detail, instance, lease_until, created_at)
    SELECT id, kind, stack_id, plan_id, revision, status, total, finished, untouched, preview_id, error, detail, instance, lease_until, created_at FROM jobs;

CREATE TABLE job_events_rebuilt (
    job_id TEXT    NOT NULL REFERENCES jobs_rebuilt (id),
    seq    INTEGER NOT NULL,
    event  TEXT    NOT NULL,
    PRIMARY KEY (job_id, seq)
);
INSERT INTO job_events_rebuilt (job_id, seq, event) SELECT job_id, seq, event FROM job_events;

DROP TABLE job_events;
DROP TABLE jobs;
-- Renaming a table rewrites the foreign keys that name it (SQLite 3.26 and later): the events'
-- now refer to `jobs`.
ALTER TABLE jobs_rebuilt RENAME TO jobs;
ALTER TABLE job_events_rebuilt RENAME TO job_events;

CREATE INDEX jobs_by_plan ON jobs (plan_id, created_at);
CREATE INDEX jobs_by_status ON jobs (status, lease_until);
CREATE TRIGGER job_events_no_update BEFORE UPDATE ON job_events
BEGIN
    SELECT RAISE(ABORT, 'job events are immutable');
END;
CREATE TRIGGER jobs_status_known_insert BEFORE INSERT ON jobs
WHEN NEW.status NOT IN ('queued', 'running', 'done', 'failed', 'cancelled', 'interrupted')
BEGIN
    SELECT RAISE(ABORT, 'jobs.status: not a job status');
END;
CREATE TRIGGER jobs_status_known_update BEFORE UPDATE OF status ON jobs
WHEN NEW.status NOT IN ('queued', 'running', 'done', 'failed', 'cancelled', 'interrupted')
BEGIN
    SELECT RAISE(ABORT, 'jobs.status: not a job status');
END;
