-- When each request was sent, ms after its run started: the report's time slices (latency and throughput over
-- the run) group requests by when they finished. NULL for iterations recorded before this version.
ALTER TABLE run_iterations ADD COLUMN sent_at_ms DOUBLE PRECISION;
