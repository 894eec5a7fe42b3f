-- The lock files Ferry takes in DIY backends, recorded before each is written and marked when it
-- is removed: a lock an instance could not remove (it was killed mid-commit, or the storage
-- failed) is found here once its lease runs out, removed by another instance (or this store's
-- next process), and the removal recorded, so no lock Ferry took is ever left unreported.
CREATE TABLE backend_locks (
    -- the lock file, relative to the backend's root
    path        TEXT PRIMARY KEY,
    stack_id    TEXT NOT NULL REFERENCES stacks (id),
    backend_url TEXT NOT NULL,
    -- the instance holding the lock (or, once it is being recovered, the one recovering it)
    instance    TEXT NOT NULL,
    taken_at    TEXT NOT NULL,
    lease_until TEXT NOT NULL,
    released_at TEXT,
    -- set when another instance (or a later process) released it: what it found and did
    recovery    TEXT
);
CREATE INDEX backend_locks_held ON backend_locks (released_at, lease_until);
CREATE INDEX backend_locks_by_stack ON backend_locks (stack_id, taken_at);
