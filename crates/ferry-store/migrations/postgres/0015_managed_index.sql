-- PostgreSQL's dialect of migrations/sqlite/0015_managed_index.sql: the index of what each stack
-- manages, by type and cloud ID, and the server-wide facts (the payload key's check).
CREATE TABLE managed_resources (
    stack_id    TEXT NOT NULL REFERENCES stacks (id),
    org         TEXT NOT NULL,
    urn         TEXT NOT NULL,
    type        TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    PRIMARY KEY (stack_id, urn)
);
CREATE INDEX managed_resources_by_id ON managed_resources (org, type, resource_id);
ALTER TABLE stacks ADD COLUMN managed_version BIGINT;

CREATE TABLE server_facts (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
