-- The endpoint's own time from having a request to sending its first output, ms, when the endpoint reported it
-- (latency-guard's simulator does): the report subtracts it from the measured time to first output to say what the
-- client and the network added. NULL for real endpoints and for iterations recorded before this column.
ALTER TABLE run_iterations ADD COLUMN server_first_output_ms DOUBLE PRECISION;
