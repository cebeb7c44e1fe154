-- Attempts lost to a reused connection the server closed before answering, each re-sent once on a fresh
-- connection (0 for iterations recorded before this column existed).
ALTER TABLE run_iterations ADD COLUMN reconnects BIGINT NOT NULL DEFAULT 0;
