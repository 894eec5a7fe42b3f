-- Webhooks: each organisation's URLs that hear plan events, with the secret deliveries are
-- signed with (sealed with the server's payload key: it is read back to sign, so it cannot be
-- kept as a hash), and every delivery with its outcome: a durable queue any instance works
-- through (a delivery is claimed with a lease, so two instances never post it at once, and one
-- whose instance stopped is taken up again once its lease ends).
CREATE TABLE webhooks (
    id            TEXT PRIMARY KEY,
    org           TEXT NOT NULL,
    url           TEXT NOT NULL,
    -- a JSON array of event names
    events        TEXT NOT NULL,
    sealed_secret TEXT NOT NULL,
    created_by    TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    revoked_at    TEXT
);
CREATE INDEX webhooks_by_org ON webhooks (org);

CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    webhook_id      TEXT NOT NULL REFERENCES webhooks (id),
    event           TEXT NOT NULL,
    plan_id         TEXT NOT NULL,
    -- the JSON posted, as signed
    body            TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    next_attempt_at TEXT,
    last_attempt_at TEXT,
    response_code   INTEGER,
    error           TEXT,
    lease_until     TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at);
