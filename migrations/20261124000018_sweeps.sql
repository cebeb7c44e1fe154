-- Sweeps: a series of runs against one connector over load levels (listed, or picked by a capacity search). Each
-- level is a regular run (its id is in the report); the report (levels, answer, knee, interval) is rewritten after
-- every level, so the page shows a sweep as it goes. While it runs, the row holds its driving process's
-- heartbeat, as a run does.
CREATE TABLE sweeps (
    id                  TEXT PRIMARY KEY,
    workspace_id        TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    connector_id        TEXT NOT NULL,
    connector_name      TEXT NOT NULL,
    title               TEXT NOT NULL,
    -- concurrency | rate
    axis                TEXT NOT NULL,
    -- the validated plan (model::SweepPlan), JSON
    plan                TEXT NOT NULL,
    -- running | completed | cancelled | interrupted | failed
    status              TEXT NOT NULL,
    done_levels         BIGINT NOT NULL DEFAULT 0,
    -- the report so far (report::CapacityReport), JSON
    report              TEXT,
    failure             TEXT,
    owner               TEXT NOT NULL,
    heartbeat_at        BIGINT NOT NULL,
    cancel_requested    BIGINT NOT NULL DEFAULT 0,
    created_at          BIGINT NOT NULL,
    finished_at         BIGINT
);
CREATE INDEX sweeps_by_workspace ON sweeps (workspace_id, created_at);
