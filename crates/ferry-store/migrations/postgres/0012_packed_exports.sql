-- PostgreSQL's dialect of migrations/sqlite/0012_packed_exports.sql: a version's export is kept
-- zstd-compressed (`export_zstd`); versions stored before keep their text in `export_json`, and
-- each row has exactly one of the two.
ALTER TABLE stack_versions ALTER COLUMN export_json DROP NOT NULL;
ALTER TABLE stack_versions ADD COLUMN export_zstd BYTEA;
ALTER TABLE stack_versions ADD CONSTRAINT stack_versions_one_export CHECK ((export_json IS NULL) <> (export_zstd IS NULL));
