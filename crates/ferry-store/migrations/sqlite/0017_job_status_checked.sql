-- A job's status is one the store's type knows (`JobStatus`): checked by the database, as the
-- kind already is. SQLite cannot add a CHECK to an existing table, so triggers check it.
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
