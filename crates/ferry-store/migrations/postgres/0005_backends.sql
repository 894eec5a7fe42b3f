-- PostgreSQL's dialect of migrations/sqlite/0005_backends.sql.
-- Stacks connected to a Pulumi DIY backend (a folder or S3-compatible storage). The backend
-- holds the stack's state; every version Ferry reads there or writes there is also kept here,
-- as any other version.
CREATE TABLE stack_backends (
    stack_id      TEXT PRIMARY KEY REFERENCES stacks (id),
    url           TEXT NOT NULL,
    -- the stack's name in the backend: organization/<project>/<stack>
    backend_stack TEXT NOT NULL
);
