-- PostgreSQL's dialect of migrations/sqlite/0024_identification_jobs.sql: an identification
-- runs as a job, so the kind's check admits `identification` (here the check is replaced in
-- place; SQLite rebuilds the table).
ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_known CHECK (kind IN ('preview', 'discovery', 'identification'));
