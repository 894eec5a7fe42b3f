-- PostgreSQL's dialect of migrations/sqlite/0008_jobs.sql.
-- Background jobs (a plan revision's preview, a stack's discovery), durable: any instance serves a job's state and
-- events; the instance running it holds a lease it renews, and a job whose lease ran out (its
-- instance died) is marked interrupted, never silently lost.
CREATE TABLE jobs (
    id          TEXT    PRIMARY KEY,
    -- `preview` (of a plan revision) or `discovery` (of what a stack's providers list)
    kind        TEXT    NOT NULL CHECK (kind IN ('preview', 'discovery')),
    stack_id    TEXT    NOT NULL REFERENCES stacks (id),
    -- a preview's plan and revision
    plan_id     TEXT    REFERENCES plans (id),
    revision    BIGINT ,
    -- queued, running, done, failed, cancelled, interrupted
    status      TEXT    NOT NULL,
    total       BIGINT  NOT NULL,
    finished    BIGINT  NOT NULL DEFAULT 0,
    untouched   BIGINT  NOT NULL DEFAULT 0,
    preview_id  TEXT,
    error       TEXT,
    -- what the job was asked (JSON; a discovery's types)
    detail      TEXT,
    -- the instance running it, and until when its lease holds
    instance    TEXT,
    lease_until TEXT,
    created_at  TEXT    NOT NULL DEFAULT ferry_now()
);
CREATE INDEX jobs_by_plan ON jobs (plan_id, created_at);
CREATE INDEX jobs_by_status ON jobs (status, lease_until);

-- Each event a job reported, in order (`seq` from 0).
CREATE TABLE job_events (
    job_id TEXT    NOT NULL REFERENCES jobs (id),
    seq    BIGINT  NOT NULL,
    event  TEXT    NOT NULL,
    PRIMARY KEY (job_id, seq)
);

CREATE TRIGGER job_events_no_update BEFORE UPDATE ON job_events
    FOR EACH ROW EXECUTE FUNCTION ferry_refuse('job events are immutable');
