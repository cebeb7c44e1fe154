-- What answered a run's requests: every distinct reply `model`, `system_fingerprint` and `Server` header with how
-- many replies said it, as JSON, so that Guard can name what changed between a run and its baseline. NULL for runs
-- stored before this column and for runs that got no reply.
ALTER TABLE runs ADD COLUMN fingerprint TEXT;
