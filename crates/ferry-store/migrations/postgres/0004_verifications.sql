-- PostgreSQL's dialect of migrations/sqlite/0004_verifications.sql.
-- The verification of a preview's code (each resource's inputs as the code writes them, through
-- the provider's Check and Diff): made once, on first use, and never changed.
CREATE TABLE preview_verifications (
    preview_id        TEXT PRIMARY KEY REFERENCES previews (id),
    verification_json TEXT NOT NULL
);

CREATE TRIGGER preview_verifications_no_update BEFORE UPDATE ON preview_verifications
    FOR EACH ROW EXECUTE FUNCTION ferry_refuse('verifications are immutable');
