-- Guard v2, mute: a schedule (threshold_key '') or one of its thresholds silenced until a time, for maintenance.
-- Evaluations go on and alerts still open in the feed, marked; nothing is sent while the mute lasts, and an alert
-- that opened meanwhile is announced when it breaches again after it.
CREATE TABLE guard_mutes (
    schedule_id     TEXT NOT NULL REFERENCES guard_schedules(id) ON DELETE CASCADE,
    -- '' for the whole schedule, else a threshold's metric:op
    threshold_key   TEXT NOT NULL,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    until_at        BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (schedule_id, threshold_key)
);
CREATE INDEX guard_mutes_by_workspace ON guard_mutes (workspace_id, until_at);

-- 0 while nobody was told the alert is open (it opened while muted)
ALTER TABLE guard_alerts ADD COLUMN announced BIGINT NOT NULL DEFAULT 1;
