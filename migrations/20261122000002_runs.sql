-- Benchmark runs and their iterations. A run copies the connector's base URL, model and prices at start, so its
-- report stays true when the connector is later edited or deleted.

CREATE TABLE runs (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    connector_id    TEXT NOT NULL,
    title           TEXT NOT NULL,
    -- the validated plan, JSON
    plan            TEXT NOT NULL,
    base_url        TEXT NOT NULL,
    model           TEXT NOT NULL,
    input_price_per_mtok  DOUBLE PRECISION,
    output_price_per_mtok DOUBLE PRECISION,
    -- running | completed | cancelled | interrupted | failed
    status          TEXT NOT NULL,
    total_requests  BIGINT NOT NULL,
    -- 0/1: the endpoint rejected stream_options, so usage had to be estimated
    stream_options_rejected BIGINT NOT NULL DEFAULT 0,
    failure         TEXT,
    created_at      BIGINT NOT NULL,
    finished_at     BIGINT
);
CREATE INDEX runs_by_workspace ON runs (workspace_id, created_at);

CREATE TABLE run_iterations (
    run_id        TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq           BIGINT NOT NULL,
    prompt_index  BIGINT NOT NULL,
    iteration     BIGINT NOT NULL,
    warmup        BIGINT NOT NULL,
    ttft_ms       DOUBLE PRECISION,
    total_ms      DOUBLE PRECISION NOT NULL,
    tokens_in     BIGINT,
    tokens_out    BIGINT,
    cost_usd      DOUBLE PRECISION,
    error         TEXT,
    token_source  TEXT NOT NULL,
    schedule_lag_ms DOUBLE PRECISION NOT NULL,
    -- the raw instants (model::Measurement), JSON
    measurement   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
