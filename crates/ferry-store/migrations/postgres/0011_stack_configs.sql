-- PostgreSQL's dialect of migrations/sqlite/0011_stack_configs.sql.
-- A stack's `Pulumi.<stack>.yaml`, as its team gave it (uploaded, or read from a backend path
-- when the stack was connected): its `encryptionsalt` is the key a passphrase stack's secrets
-- are written with when its state has no secrets provider yet. Replaced when given again.
CREATE TABLE stack_configs (
    stack_id   TEXT PRIMARY KEY REFERENCES stacks (id),
    yaml       TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
