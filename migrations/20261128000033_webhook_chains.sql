-- A schedule's webhooks reach their receiver in the order they were written (a resolve never before its trigger):
-- leasing looks for an older unsent message of the same schedule, by this index.
CREATE INDEX webhook_outbox_chain ON webhook_outbox (schedule_id, created_at);
