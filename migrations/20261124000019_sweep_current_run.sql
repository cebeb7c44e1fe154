-- The level a running sweep is measuring now, and its run, so the sweep's page can link to that run's live
-- progress. Cleared when the sweep ends.
ALTER TABLE sweeps ADD COLUMN current_run_id TEXT;
ALTER TABLE sweeps ADD COLUMN current_level TEXT;
