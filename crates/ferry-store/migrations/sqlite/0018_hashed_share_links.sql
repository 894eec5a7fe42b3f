-- A read-only link's token is a capability: the store keeps its SHA-256, as it keeps
-- sessions' and API tokens', and the link is named (listed, revoked) by an ID of its own. Links
-- made before keep working: the store hashes their tokens and gives them IDs when it opens
-- (`Store::hash_legacy_share_tokens`), after which no token is kept.
ALTER TABLE plan_shares RENAME COLUMN token TO id;
ALTER TABLE plan_shares ADD COLUMN token_hash TEXT;
CREATE UNIQUE INDEX plan_shares_token_hash ON plan_shares (token_hash);
