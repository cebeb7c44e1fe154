-- Guard: benchmark sets, pinned baselines, schedules, their evaluations, alerts, and the webhook outbox.
-- Written in the SQL both SQLite and PostgreSQL accept (partial unique indexes included).

CREATE TABLE benchmark_sets (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    -- JSON array of {"text": ...}
    prompts         TEXT NOT NULL,
    system_prompt   TEXT,
    max_tokens      BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX benchmark_sets_by_workspace ON benchmark_sets (workspace_id, name);

-- A baseline copies the pinned run's figures, so it outlives the run; re-pinning keeps the old rows (current = 0).
CREATE TABLE guard_baselines (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    set_id          TEXT NOT NULL REFERENCES benchmark_sets(id) ON DELETE CASCADE,
    connector_id    TEXT NOT NULL,
    run_id          TEXT NOT NULL,
    -- JSON array: total time, ms, of each successful measured iteration of the run
    total_ms        TEXT NOT NULL,
    -- JSON GuardSummary
    summary         TEXT NOT NULL,
    current         BIGINT NOT NULL,
    pinned_at       BIGINT NOT NULL
);
CREATE UNIQUE INDEX guard_baselines_one_current ON guard_baselines (set_id, connector_id) WHERE current = 1;

-- No foreign key to connectors: a schedule whose connector was deleted keeps running, fails visibly, and advances.
CREATE TABLE guard_schedules (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    set_id          TEXT NOT NULL REFERENCES benchmark_sets(id),
    connector_id    TEXT NOT NULL,
    enabled         BIGINT NOT NULL,
    cadence         TEXT NOT NULL,
    next_run_at     BIGINT NOT NULL,
    webhook_url     TEXT,
    -- sealed like connector keys; signs webhook deliveries (Standard Webhooks)
    webhook_secret  TEXT,
    email           TEXT,
    -- JSON array of thresholds
    thresholds      TEXT NOT NULL,
    alpha           DOUBLE PRECISION NOT NULL,
    require_significance BIGINT NOT NULL,
    last_run_at     BIGINT,
    last_status     TEXT,
    last_error      TEXT,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX guard_schedules_due ON guard_schedules (enabled, next_run_at);

-- One row per claimed slot: the unique key makes a second run of the same slot impossible, whichever replica
-- tries. It then records what was compared and what was decided.
CREATE TABLE guard_evaluations (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    schedule_id     TEXT NOT NULL REFERENCES guard_schedules(id) ON DELETE CASCADE,
    -- the due time claimed (for Run now: the instant it was pressed)
    slot_at         BIGINT NOT NULL,
    -- tick | run_now
    trigger_kind    TEXT NOT NULL,
    claimed_by      TEXT NOT NULL,
    started_at      BIGINT NOT NULL,
    finished_at     BIGINT,
    -- running | healthy | breached | no_baseline | failed
    status          TEXT NOT NULL,
    error           TEXT,
    run_id          TEXT,
    baseline_id     TEXT,
    baseline_n      BIGINT,
    baseline_summary TEXT,
    observed_n      BIGINT,
    observed_summary TEXT,
    -- JSON array, ms
    observed_total_ms TEXT,
    test            TEXT,
    p_value         DOUBLE PRECISION,
    -- JSON Decision: every threshold, crossed or not, and why
    decision        TEXT,
    UNIQUE (schedule_id, slot_at)
);
CREATE INDEX guard_evaluations_by_schedule ON guard_evaluations (schedule_id, started_at);

-- At most one open (unacknowledged) alert per threshold of a schedule.
CREATE TABLE guard_alerts (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    schedule_id     TEXT NOT NULL REFERENCES guard_schedules(id) ON DELETE CASCADE,
    threshold_key   TEXT NOT NULL,
    severity        TEXT NOT NULL,
    acknowledged    BIGINT NOT NULL,
    acknowledged_at BIGINT,
    -- JSON Breach, GuardSummary, GuardSummary: the latest breach of the threshold
    breach          TEXT NOT NULL,
    observed        TEXT NOT NULL,
    baseline        TEXT NOT NULL,
    evaluation_id   TEXT NOT NULL,
    run_id          TEXT,
    -- how many evaluations breached it while open
    breach_count    BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE UNIQUE INDEX guard_alerts_one_open ON guard_alerts (schedule_id, threshold_key) WHERE acknowledged = 0;
CREATE INDEX guard_alerts_by_workspace ON guard_alerts (workspace_id, acknowledged, created_at);

-- Webhook deliveries, written in the same transaction as the alert they announce; a deliverer sends them with
-- retries and backoff, so a tick never waits on a receiver.
CREATE TABLE webhook_outbox (
    -- also the webhook-id header
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    schedule_id     TEXT NOT NULL REFERENCES guard_schedules(id) ON DELETE CASCADE,
    -- null for a "Send test" message
    alert_id        TEXT,
    url             TEXT NOT NULL,
    body            TEXT NOT NULL,
    attempts        BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    -- a deliverer's lease, so two replicas never send the same message at once
    leased_until    BIGINT,
    delivered_at    BIGINT,
    gave_up_at      BIGINT,
    last_error      TEXT,
    created_at      BIGINT NOT NULL
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (delivered_at, gave_up_at, next_attempt_at);

CREATE TABLE webhook_attempts (
    outbox_id       TEXT NOT NULL REFERENCES webhook_outbox(id) ON DELETE CASCADE,
    attempt         BIGINT NOT NULL,
    at              BIGINT NOT NULL,
    -- HTTP status, null when no response came
    status          BIGINT,
    error           TEXT,
    duration_ms     DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (outbox_id, attempt)
);
