-- Alert e-mail waiting to be sent: written by the tick, sent at once and retried like webhooks (30 s … 9 h, then
-- given up), leased so that two replicas never send one message twice.
CREATE TABLE mail_outbox (
    id              TEXT PRIMARY KEY,
    recipient       TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    attempts        BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    leased_until    BIGINT,
    delivered_at    BIGINT,
    gave_up_at      BIGINT,
    last_error      TEXT,
    created_at      BIGINT NOT NULL
);

CREATE INDEX mail_outbox_due ON mail_outbox (delivered_at, gave_up_at, next_attempt_at);
