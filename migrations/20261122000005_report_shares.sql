-- Share links: one per report at most. Only a keyed hash of the token is stored; the token itself lives in the
-- link the owner copied (after `#`, so browsers never send it in a request line).
CREATE TABLE report_shares (
    run_id       TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    token_hash   TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);
