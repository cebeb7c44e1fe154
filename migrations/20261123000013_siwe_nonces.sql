-- Nonces of wallet logins (Sign-In with Ethereum): issued here, used once, short-lived. In the database, so a
-- nonce issued by one replica is accepted by another and used at most once across all of them.
CREATE TABLE siwe_nonces (
    nonce       TEXT PRIMARY KEY,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT
);
CREATE INDEX siwe_nonces_by_expiry ON siwe_nonces (expires_at);
