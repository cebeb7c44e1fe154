-- A Guard schedule may send a saved workload instead of its set's prompts. The schedule keeps a copy of it (its
-- id, name and spec as JSON, taken when the schedule was saved), so editing the saved workload later does not
-- change what the schedule's runs are compared on until the schedule is saved again. NULL: the set's prompts.
ALTER TABLE guard_schedules ADD COLUMN workload_id TEXT;
ALTER TABLE guard_schedules ADD COLUMN workload_name TEXT;
ALTER TABLE guard_schedules ADD COLUMN workload TEXT;

-- A baseline belongs to a set, a connector and a workload: the SHA-256 of the workload's JSON, '' without one. Two
-- schedules of one set and connector that send different workloads have a baseline each.
ALTER TABLE guard_baselines ADD COLUMN workload_key TEXT NOT NULL DEFAULT '';
DROP INDEX guard_baselines_one_current;
CREATE UNIQUE INDEX guard_baselines_one_current ON guard_baselines (set_id, connector_id, workload_key) WHERE current = 1;
