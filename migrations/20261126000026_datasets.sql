-- Datasets uploaded to a workspace (at most 16 MiB of UTF-8 text each, checked row by row when uploaded), which a
-- workload names by id. `lengths` is JSON: each row's estimated prompt length and asked answer length, counted.
CREATE TABLE datasets (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    format          TEXT NOT NULL,
    rows_read       BIGINT NOT NULL,
    bytes           BIGINT NOT NULL,
    lengths         TEXT NOT NULL,
    content         TEXT NOT NULL,
    created_at      BIGINT NOT NULL
);
CREATE INDEX datasets_by_workspace ON datasets (workspace_id, name);
