-- PostgreSQL's dialect of migrations/sqlite/0017_job_status_checked.sql: a job's status is one
-- the store's type knows (`JobStatus`), checked by the database as the kind already is.
ALTER TABLE jobs ADD CONSTRAINT jobs_status_known CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled', 'interrupted'));
