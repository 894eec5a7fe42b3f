-- When a job was claimed and began to run (NULL while it waits its turn, and for one that
-- ended without ever running): a follower who saw it waiting says it started only if it did.
ALTER TABLE jobs ADD COLUMN started_at TEXT;
