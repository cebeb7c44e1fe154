-- One schema for SQLite and PostgreSQL: ids are text UUIDs, times are unix milliseconds (BIGINT),
-- booleans are 0/1 (BIGINT), JSON is text, sealed secrets are base64 text.

CREATE TABLE workspaces (
    id          TEXT PRIMARY KEY,
    owner       TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE TABLE login_tokens (
    token_hash    TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL,
    used_at       BIGINT
);

CREATE TABLE sessions (
    token_hash    TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL
);
CREATE INDEX sessions_by_workspace ON sessions (workspace_id);

CREATE TABLE connectors (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    base_url       TEXT NOT NULL,
    model          TEXT NOT NULL,
    -- public extra headers, JSON object name -> value
    headers        TEXT NOT NULL,
    -- names of credential headers (JSON array); their values live in sealed_secrets
    secret_header_names TEXT NOT NULL,
    has_api_key    BIGINT NOT NULL,
    -- AES-256-GCM sealed JSON {apiKey, headers}; bound to the row's id and workspace
    sealed_secrets TEXT NOT NULL,
    input_price_per_mtok  DOUBLE PRECISION,
    output_price_per_mtok DOUBLE PRECISION,
    is_demo        BIGINT NOT NULL DEFAULT 0,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
CREATE INDEX connectors_by_workspace ON connectors (workspace_id, name);
