-- Viewed marks: which resources of a plan each reviewer has looked at, with the key of the
-- preview result they looked at. A mark counts while the plan's preview shows the resource with
-- the same result; a new result (another status, other differences, other values) makes the
-- resource unviewed again without touching the row.
CREATE TABLE plan_viewed_marks (
    plan_id    TEXT NOT NULL REFERENCES plans (id),
    reviewer   TEXT NOT NULL,
    urn        TEXT NOT NULL,
    result_key TEXT NOT NULL,
    marked_at  TEXT NOT NULL,
    PRIMARY KEY (plan_id, reviewer, urn)
);
