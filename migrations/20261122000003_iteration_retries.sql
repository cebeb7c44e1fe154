-- Rate-limited attempts retried before an iteration's result (0 when retries are off).
ALTER TABLE run_iterations ADD COLUMN retries BIGINT NOT NULL DEFAULT 0;
