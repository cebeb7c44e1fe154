-- A schedule may stream its requests (0: the specified unstreamed shape), so TTFT, TPOT and time to first output
-- are measured and may have thresholds.
ALTER TABLE guard_schedules ADD COLUMN stream BIGINT NOT NULL DEFAULT 0;
-- A streamed run's per-request TTFT, TPOT and time to first output (JSON {ttftMs, tpotMs, firstOutputMs}, ms),
-- beside its total times: a pinned baseline's and each evaluation's, for Welch's test of a streamed figure and
-- for pools. NULL for unstreamed runs.
ALTER TABLE guard_baselines ADD COLUMN streamed TEXT;
ALTER TABLE guard_evaluations ADD COLUMN observed_streamed TEXT;
