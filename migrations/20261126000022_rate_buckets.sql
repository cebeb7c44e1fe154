-- Token buckets every replica shares: one row per limited caller (a client address at wallet login, a workspace
-- asking for contact links, the Guard tick hook, a client presenting wrong hook keys). `tokens` is the level at
-- `since_ms` (unix ms); `granted` says whether the last take was let through.
CREATE TABLE rate_buckets (
    key       TEXT PRIMARY KEY,
    tokens    DOUBLE PRECISION NOT NULL,
    since_ms  BIGINT NOT NULL,
    granted   BIGINT NOT NULL
);
CREATE INDEX rate_buckets_by_age ON rate_buckets (since_ms);
