-- PostgreSQL's dialect of migrations/sqlite/0013_packed_previews.sql: a preview's plan is kept
-- zstd-compressed (`preview_zstd`); previews stored before keep their text in `preview_json`,
-- and a packed row's `preview_json` is ''.
ALTER TABLE previews ADD COLUMN preview_zstd BYTEA;
ALTER TABLE previews ADD CONSTRAINT previews_one_plan CHECK (preview_zstd IS NULL OR preview_json = '');
