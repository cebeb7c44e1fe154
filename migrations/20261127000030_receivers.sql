-- What reads a schedule's alerts (NULL: the generic webhook) and, for PagerDuty, its routing key sealed at rest.
ALTER TABLE guard_schedules ADD COLUMN receiver TEXT;
ALTER TABLE guard_schedules ADD COLUMN routing_key TEXT;
-- The receiver each outbox message was written for (NULL: the generic webhook): a PagerDuty event gets the
-- schedule's routing key added as it is sent, so neither the outbox nor its log ever holds the key.
ALTER TABLE webhook_outbox ADD COLUMN receiver TEXT;
