-- A finished run's headline figures (output throughput and requests/s over the measured span, TTFT p95, how many
-- requests were measured and succeeded), as JSON, written once when the run ends so that lists and the home page
-- show them without reading every iteration. NULL while a run runs and for runs stored before this column.
ALTER TABLE runs ADD COLUMN headline TEXT;
