-- The server's own timings of each request (llama.cpp's `timings`: prefill and generation time, drafted and
-- accepted tokens), JSON (model::EngineTimings); NULL when the reply carried none.
ALTER TABLE run_iterations ADD COLUMN engine_timings TEXT;
