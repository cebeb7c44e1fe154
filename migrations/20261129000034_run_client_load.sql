-- What the load generator's own process did while a run sent its requests (its CPU use in windows against the CPUs
-- it may use, how late its event loop woke), as JSON, so that the run's validity verdict can say whether the client
-- delayed the instants it recorded. NULL for runs stored before this column.
ALTER TABLE runs ADD COLUMN client_load TEXT;
