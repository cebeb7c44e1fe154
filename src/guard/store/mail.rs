//! The mail outbox: alert e-mail written by the tick, leased to one deliverer at a time, retried like webhooks.

use sqlx::Row;

use super::outbox::{move_on, AttemptOutcome, Outbox};
use crate::store::{Store, StoreError};

/// A message to send (or sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedMail {
    /// Its id.
    pub id: String,
    /// The address.
    pub recipient: String,
    /// The subject line.
    pub subject: String,
    /// The text.
    pub body: String,
    /// Attempts before this one.
    pub attempts: u32,
}

/// Where a message stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailState {
    /// Attempts made.
    pub attempts: u32,
    /// Sent, unix ms.
    pub delivered_at: Option<i64>,
    /// Given up, unix ms.
    pub gave_up_at: Option<i64>,
    /// The next attempt's time, unix ms.
    pub next_attempt_at: i64,
    /// What went wrong last.
    pub last_error: Option<String>,
}

fn mail_from_row(row: &sqlx::any::AnyRow) -> Result<QueuedMail, StoreError> {
    Ok(QueuedMail {
        id: row.try_get("id")?,
        recipient: row.try_get("recipient")?,
        subject: row.try_get("subject")?,
        body: row.try_get("body")?,
        attempts: u32::try_from(row.try_get::<i64, _>("attempts")?).unwrap_or(u32::MAX),
    })
}

impl Store {
    /// Writes a message, due at once.
    pub async fn queue_mail(&self, mail: &QueuedMail, now_ms: i64) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO mail_outbox (id, recipient, subject, body, attempts, next_attempt_at, created_at) \
             VALUES ($1, $2, $3, $4, 0, $5, $5)",
        )
        .bind(&mail.id)
        .bind(&mail.recipient)
        .bind(&mail.subject)
        .bind(&mail.body)
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Leases up to `limit` messages due at `now` for `lease_ms`.
    pub async fn lease_due_mail(&self, now: i64, lease_ms: i64, limit: u32) -> Result<Vec<QueuedMail>, StoreError> {
        let rows = self.lease_due(Outbox::Mail, "id, recipient, subject, body, attempts", now, lease_ms, limit).await?;
        rows.iter().map(mail_from_row).collect()
    }

    /// Records an attempt at `mail` made at `at_ms` and moves it on.
    pub async fn record_mail_attempt(
        &self,
        mail: &QueuedMail,
        at_ms: i64,
        error: Option<&str>,
        outcome: AttemptOutcome,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        move_on(&mut tx, Outbox::Mail, &mail.id, i64::from(mail.attempts) + 1, at_ms, error, outcome).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Where message `id` stands.
    pub async fn mail_state(&self, id: &str) -> Result<MailState, StoreError> {
        let row = sqlx::query(
            "SELECT attempts, delivered_at, gave_up_at, next_attempt_at, last_error FROM mail_outbox WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound)?;
        Ok(MailState {
            attempts: u32::try_from(row.try_get::<i64, _>("attempts")?).unwrap_or(u32::MAX),
            delivered_at: row.try_get("delivered_at")?,
            gave_up_at: row.try_get("gave_up_at")?,
            next_attempt_at: row.try_get("next_attempt_at")?,
            last_error: row.try_get("last_error")?,
        })
    }

    /// The ids of the messages written for `recipient`, oldest first.
    pub async fn mail_for(&self, recipient: &str) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query("SELECT id FROM mail_outbox WHERE recipient = $1 ORDER BY created_at, id")
            .bind(recipient)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(|r| Ok(r.try_get("id")?)).collect()
    }
}
