-- A preview's plan is kept zstd-compressed (`preview_zstd`; see src/packed.rs): a 10,000-import
-- preview's plan is 7 MB of JSON. Previews stored before keep their text in `preview_json`; a
-- packed row's `preview_json` is ''. (SQLite cannot drop the column's NOT NULL without
-- rebuilding a table that others refer to; the empty text says the same.)
-- The sealed payload stays in `payload`: what it seals is packed since this migration, which
-- the payload's reader tells by its first bytes.
ALTER TABLE previews ADD COLUMN preview_zstd BLOB CHECK (preview_zstd IS NULL OR preview_json = '');
