-- The connections a closed-loop run on reused connections opened before its first request (JSON of
-- model::OpenedAhead: asked, kept, http2), so its report can say whether the first round paid for connection
-- set-up. NULL when none were opened: open loop, a fresh connection per request, or a run from before.
ALTER TABLE runs ADD COLUMN opened_ahead TEXT;
