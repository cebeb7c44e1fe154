-- Per-iteration latencies users compare across tools: time to the first output of any kind (reasoning models),
-- time per output token, mean and longest per-token inter-token latency, and every per-token gap as a compact
-- log histogram (model::LogHistogram text) for the run's pooled ITL percentiles. NULL for iterations recorded
-- before this version, and when not streamed.
ALTER TABLE run_iterations ADD COLUMN first_output_ms DOUBLE PRECISION;
ALTER TABLE run_iterations ADD COLUMN tpot_ms DOUBLE PRECISION;
ALTER TABLE run_iterations ADD COLUMN itl_ms DOUBLE PRECISION;
ALTER TABLE run_iterations ADD COLUMN max_itl_ms DOUBLE PRECISION;
ALTER TABLE run_iterations ADD COLUMN itl_gaps TEXT;
