-- Spec Lab's A/B tests: a baseline and a candidate connector measured with the same plan, cell by cell. The
-- report (figures, differences, verdicts) is stored whole when the test ends; while it runs, the row holds its
-- progress and its driving process's heartbeat, as a run does.
CREATE TABLE ab_tests (
    id                      TEXT PRIMARY KEY,
    workspace_id            TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    title                   TEXT NOT NULL,
    baseline_connector_id   TEXT NOT NULL,
    candidate_connector_id  TEXT NOT NULL,
    -- the connectors' names when the test started (the list shows them; the report keeps its own copy)
    baseline_name           TEXT NOT NULL,
    candidate_name          TEXT NOT NULL,
    -- the validated plan (model::AbPlan), JSON
    plan                    TEXT NOT NULL,
    -- running | completed | cancelled | interrupted | failed
    status                  TEXT NOT NULL,
    done_requests           BIGINT NOT NULL DEFAULT 0,
    total_requests          BIGINT NOT NULL,
    -- the report (report::AbReport), JSON, once the test ended
    report                  TEXT,
    failure                 TEXT,
    owner                   TEXT NOT NULL,
    heartbeat_at            BIGINT NOT NULL,
    cancel_requested        BIGINT NOT NULL DEFAULT 0,
    created_at              BIGINT NOT NULL,
    finished_at             BIGINT
);
CREATE INDEX ab_tests_by_workspace ON ab_tests (workspace_id, created_at);
