-- What each stack's latest version manages, by type and cloud ID (see src/managed.rs): a
-- discovery marks what is managed already, and by which stack of the same organisation,
-- without reading any stack's state. Kept in each version's transaction; `managed_version` is
-- the version the rows reflect (NULL: none yet, rebuilt from the state on first use).
CREATE TABLE managed_resources (
    stack_id    TEXT NOT NULL REFERENCES stacks (id),
    org         TEXT NOT NULL,
    urn         TEXT NOT NULL,
    type        TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    PRIMARY KEY (stack_id, urn)
);
CREATE INDEX managed_resources_by_id ON managed_resources (org, type, resource_id);
ALTER TABLE stacks ADD COLUMN managed_version INTEGER;

-- Server-wide facts every instance must agree on: `payload_key_check`, a keyed hash of the
-- payload key, so that an instance with another key refuses to start instead of failing to open
-- what the others sealed.
CREATE TABLE server_facts (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
