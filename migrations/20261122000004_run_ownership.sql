-- Which server process drives a running run and when it last said so. Replicas sharing one database renew the
-- heartbeat of their own runs; a run whose owner went silent is marked interrupted by whichever process notices.
-- A cancel asked of a replica that does not drive the run is handed over through `cancel_requested`.
ALTER TABLE runs ADD COLUMN owner TEXT;
ALTER TABLE runs ADD COLUMN heartbeat_at BIGINT;
ALTER TABLE runs ADD COLUMN cancel_requested BIGINT NOT NULL DEFAULT 0;
