//! Wallet-login nonces: issued, then used at most once before they expire, across every replica.

use sqlx::Row;

use crate::store::{Store, StoreError};

/// What became of a nonce presented at login.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonceUse {
    /// Issued here, unused and unexpired: now used.
    Consumed,
    /// Never issued here (or purged long ago).
    Unknown,
    /// Already used by an earlier login (a replay).
    AlreadyUsed,
    /// Its lifetime is over.
    Expired,
}

impl Store {
    /// Records a fresh nonce valid until `expires_at_ms`.
    pub async fn issue_siwe_nonce(&self, nonce: &str, now_ms: i64, expires_at_ms: i64) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO siwe_nonces (nonce, created_at, expires_at) VALUES ($1, $2, $3)")
            .bind(nonce)
            .bind(now_ms)
            .bind(expires_at_ms)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Uses `nonce` once: one statement, so two logins racing with one nonce (on two replicas) cannot both win.
    pub async fn consume_siwe_nonce(&self, nonce: &str, now_ms: i64) -> Result<NonceUse, StoreError> {
        let used =
            sqlx::query("UPDATE siwe_nonces SET used_at = $1 WHERE nonce = $2 AND used_at IS NULL AND expires_at > $1")
                .bind(now_ms)
                .bind(nonce)
                .execute(&self.pool)
                .await?
                .rows_affected();
        if used == 1 {
            return Ok(NonceUse::Consumed);
        }
        let row = sqlx::query("SELECT used_at FROM siwe_nonces WHERE nonce = $1")
            .bind(nonce)
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            None => NonceUse::Unknown,
            Some(row) if row.try_get::<Option<i64>, _>("used_at")?.is_some() => NonceUse::AlreadyUsed,
            Some(_) => NonceUse::Expired,
        })
    }
}
