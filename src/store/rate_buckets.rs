//! Token buckets in the database, so that every replica counts against one budget: a flood spread over replicas
//! (or over a restart) gets no more through than a flood at one process. One statement takes a token: an upsert
//! whose row lock serialises the callers of one key on PostgreSQL, and SQLite's single writer does the same.

use sqlx::Row;
use std::time::Duration;

use super::{Store, StoreError};
use crate::rate_limit::Budget;

/// A bucket left alone this long is full again whatever its budget (the longest refill is minutes): forgotten.
const FORGET_AFTER_MS: i64 = 24 * 3_600_000;

impl Store {
    /// Takes one call from `key`'s bucket at `now_ms`, or says how long until one is allowed.
    pub async fn take_rate_token(
        &self,
        key: &str,
        budget: Budget,
        now_ms: i64,
    ) -> Result<Result<(), Duration>, StoreError> {
        let refill_ms = budget.refill.as_secs_f64() * 1e3;
        // The level now: what was left, plus what the time since refilled, at most the burst.
        let refilled = "CASE WHEN rate_buckets.tokens + (CASE WHEN $3 > rate_buckets.since_ms \
             THEN $3 - rate_buckets.since_ms ELSE 0 END) / $4 > $2 THEN $2 \
             ELSE rate_buckets.tokens + (CASE WHEN $3 > rate_buckets.since_ms \
             THEN $3 - rate_buckets.since_ms ELSE 0 END) / $4 END";
        let query = format!(
            "INSERT INTO rate_buckets (key, tokens, since_ms, granted) VALUES ($1, $2 - 1, $3, 1) \
             ON CONFLICT (key) DO UPDATE SET \
             tokens = CASE WHEN {refilled} >= 1 THEN {refilled} - 1 ELSE {refilled} END, \
             since_ms = CASE WHEN $3 > rate_buckets.since_ms THEN $3 ELSE rate_buckets.since_ms END, \
             granted = CASE WHEN {refilled} >= 1 THEN 1 ELSE 0 END \
             RETURNING tokens, granted"
        );
        let row =
            sqlx::query(&query).bind(key).bind(budget.burst).bind(now_ms).bind(refill_ms).fetch_one(&self.pool).await?;
        if row.try_get::<i64, _>("granted")? == 1 {
            return Ok(Ok(()));
        }
        let tokens: f64 = row.try_get("tokens")?;
        Ok(Err(budget.refill.mul_f64((1.0 - tokens).clamp(0.0, 1.0))))
    }

    /// Whether `key`'s bucket has a call left at `now_ms`, or how long until it has, without taking one: for a
    /// budget that only some outcomes spend (a refused upload), checked before the work.
    pub async fn peek_rate_token(
        &self,
        key: &str,
        budget: Budget,
        now_ms: i64,
    ) -> Result<Result<(), Duration>, StoreError> {
        let row = sqlx::query("SELECT tokens, since_ms FROM rate_buckets WHERE key = $1")
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else { return Ok(Ok(())) };
        let (tokens, since_ms): (f64, i64) = (row.try_get("tokens")?, row.try_get("since_ms")?);
        let refill_ms = budget.refill.as_secs_f64() * 1e3;
        let level = (tokens + (now_ms - since_ms).max(0) as f64 / refill_ms).min(budget.burst);
        if level >= 1.0 {
            Ok(Ok(()))
        } else {
            Ok(Err(budget.refill.mul_f64((1.0 - level).clamp(0.0, 1.0))))
        }
    }

    /// Forgets buckets untouched for a day (full again by then); how many.
    pub async fn forget_idle_rate_buckets(&self, now_ms: i64) -> Result<u64, StoreError> {
        Ok(sqlx::query("DELETE FROM rate_buckets WHERE since_ms < $1")
            .bind(now_ms - FORGET_AFTER_MS)
            .execute(&self.pool)
            .await?
            .rows_affected())
    }
}
