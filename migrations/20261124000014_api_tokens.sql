-- API tokens: named credentials for scripts, sent as `Authorization: Bearer lgt_…`. Only a keyed hash of the
-- secret is kept, with a short hint to tell tokens apart. Revoked tokens stay listed (with when) until deleted
-- with their workspace.
CREATE TABLE api_tokens (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    token_hash    TEXT NOT NULL UNIQUE,
    hint          TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT,
    last_used_at  BIGINT,
    revoked_at    BIGINT
);
CREATE INDEX api_tokens_by_workspace ON api_tokens (workspace_id, created_at);
