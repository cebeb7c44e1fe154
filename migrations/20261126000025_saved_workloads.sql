-- Workloads saved in a workspace by name (the spec as JSON: every parameter, its seed included). A run copies the
-- workload it sends into its plan, so a saved workload can change or go without changing any report.
CREATE TABLE saved_workloads (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    spec            TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX saved_workloads_by_workspace ON saved_workloads (workspace_id, name);
