-- What each evaluation measured, as one key (the SHA-256 of its run's plan less its title: connector, requests,
-- streaming, temperature): a rolling or time-window baseline pools only evaluations that measured the same thing.
ALTER TABLE guard_evaluations ADD COLUMN measured_key TEXT;
-- What it was compared with (JSON: a pinned run, or the pool of earlier evaluations with its n), or the pool it
-- is filling; NULL before pools existed (baseline_id then names the pinned run).
ALTER TABLE guard_evaluations ADD COLUMN baseline_from TEXT;
CREATE INDEX guard_evaluations_pool ON guard_evaluations (schedule_id, measured_key, finished_at);
