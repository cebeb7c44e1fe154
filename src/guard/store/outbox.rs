//! The webhook outbox: messages due for (re)delivery are leased to one deliverer at a time (rows locked
//! `FOR UPDATE SKIP LOCKED` on PostgreSQL while leasing), and every attempt is logged.

use sqlx::Row;

use super::alerts::{insert_outbox, OutboxRow, Recipient};
use crate::guard::model::Receiver;
use crate::model::{ScheduleId, WorkspaceId};
use crate::store::parse_id;
use crate::store::spelled_or_null;
use crate::store::{Backend, Store, StoreError};

/// A message to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxMessage {
    /// The message id (`webhook-id`).
    pub id: String,
    /// Its workspace.
    pub workspace: WorkspaceId,
    /// Its schedule (whose secret signs it).
    pub schedule: ScheduleId,
    /// Where.
    pub url: String,
    /// What reads it there.
    pub receiver: Receiver,
    /// The JSON body, exactly as signed and sent.
    pub body: String,
    /// Attempts before this one.
    pub attempts: u32,
}

/// What an attempt leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// A 2xx reply: done.
    Delivered,
    /// Failed; try again at this time (unix ms).
    RetryAt(i64),
    /// Failed for the last time.
    GaveUp,
}

impl AttemptOutcome {
    /// The `outcome` label of the service's delivery counters: `delivered`, `retrying` or `gave_up`.
    pub fn label(self) -> &'static str {
        match self {
            AttemptOutcome::Delivered => crate::telemetry::DELIVERED,
            AttemptOutcome::RetryAt(_) => crate::telemetry::RETRYING,
            AttemptOutcome::GaveUp => crate::telemetry::GAVE_UP,
        }
    }
}

/// One attempt, for the log.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt<'a> {
    /// When, unix ms.
    pub at_ms: i64,
    /// The HTTP status, if a reply came.
    pub status: Option<u16>,
    /// What went wrong, if anything.
    pub error: Option<&'a str>,
    /// How long it took, ms.
    pub duration_ms: f64,
}

fn message_from_row(row: &sqlx::any::AnyRow) -> Result<OutboxMessage, StoreError> {
    Ok(OutboxMessage {
        id: row.try_get("id")?,
        workspace: parse_id(&row.try_get::<String, _>("workspace_id")?)?,
        schedule: parse_id(&row.try_get::<String, _>("schedule_id")?)?,
        url: row.try_get("url")?,
        receiver: spelled_or_null(row, "receiver", Receiver::parse)?.unwrap_or_default(),
        body: row.try_get("body")?,
        attempts: u32::try_from(row.try_get::<i64, _>("attempts")?).unwrap_or(u32::MAX),
    })
}

impl Store {
    /// Leases up to `limit` messages due at `now` for `lease_ms`, so no other deliverer sends them meanwhile.
    pub async fn lease_due_webhooks(
        &self,
        now: i64,
        lease_ms: i64,
        limit: u32,
    ) -> Result<Vec<OutboxMessage>, StoreError> {
        let rows = self
            .lease_due(
                Outbox::Webhooks,
                "id, workspace_id, schedule_id, url, receiver, body, attempts",
                now,
                lease_ms,
                limit,
            )
            .await?;
        rows.iter().map(message_from_row).collect()
    }

    /// Leases the due rows of an outbox (`delivered_at`, `gave_up_at`, `next_attempt_at`, `leased_until`
    /// columns), oldest first: the rows are locked while leasing on PostgreSQL; on SQLite each is taken only if no
    /// other deliverer leased it since the SELECT. In an outbox whose messages form chains (one schedule's
    /// webhooks), a message is not leased while an older one of its chain waits for a later attempt or is being
    /// sent by another deliverer: a receiver never sees a resolve before its trigger.
    pub(super) async fn lease_due(
        &self,
        outbox: Outbox,
        columns: &str,
        now: i64,
        lease_ms: i64,
        limit: u32,
    ) -> Result<Vec<sqlx::any::AnyRow>, StoreError> {
        let table = outbox.table();
        let lock = match self.backend {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let in_order = match outbox.chain() {
            Some(chain) => format!(
                " AND NOT EXISTS (SELECT 1 FROM {table} e WHERE e.{chain} = m.{chain} AND e.delivered_at IS NULL \
                 AND e.gave_up_at IS NULL AND (e.created_at < m.created_at OR (e.created_at = m.created_at AND e.id < m.id)) \
                 AND (e.next_attempt_at > $1 OR e.leased_until > $1))"
            ),
            None => String::new(),
        };
        let mut tx = self.begin_write().await?;
        if let (Backend::Postgres, Some(_)) = (self.backend, outbox.chain()) {
            // Replicas lease a chained outbox one at a time: a row another replica has locked while leasing is
            // skipped below and would not hold its chain's newer messages back.
            sqlx::query("SELECT pg_advisory_xact_lock($1)").bind(outbox.lease_lock()).execute(&mut *tx).await?;
        }
        let rows = sqlx::query(&format!(
            "SELECT {columns} FROM {table} m \
             WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= $1 \
             AND (leased_until IS NULL OR leased_until <= $1){in_order} ORDER BY created_at, id LIMIT $2{lock}"
        ))
        .bind(now)
        .bind(i64::from(limit))
        .fetch_all(&mut *tx)
        .await?;
        let mut leased = Vec::with_capacity(rows.len());
        for row in rows {
            let id: String = row.try_get("id")?;
            let taken = sqlx::query(&format!(
                "UPDATE {table} SET leased_until = $1 WHERE id = $2 AND (leased_until IS NULL OR leased_until <= $3)"
            ))
            .bind(now + lease_ms)
            .bind(&id)
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if taken == 1 {
                leased.push(row);
            }
        }
        tx.commit().await?;
        Ok(leased)
    }

    /// Leases one undelivered message of `workspace` (a "Send test") for `lease_ms`, whatever its due time;
    /// `None` when it is delivered, given up, or leased by another deliverer.
    pub async fn lease_webhook(
        &self,
        workspace: WorkspaceId,
        id: &str,
        now: i64,
        lease_ms: i64,
    ) -> Result<Option<OutboxMessage>, StoreError> {
        let taken = sqlx::query(
            "UPDATE webhook_outbox SET leased_until = $1 WHERE id = $2 AND workspace_id = $3 AND delivered_at IS NULL \
             AND gave_up_at IS NULL AND (leased_until IS NULL OR leased_until <= $4)",
        )
        .bind(now + lease_ms)
        .bind(id)
        .bind(workspace.to_string())
        .bind(now)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if taken == 0 {
            return Ok(None);
        }
        let row = sqlx::query(
            "SELECT id, workspace_id, schedule_id, url, receiver, body, attempts FROM webhook_outbox WHERE id = $1",
        )
        .bind(id)
        .fetch_one(&self.pool)
        .await?;
        message_from_row(&row).map(Some)
    }

    /// Holds the lease on the messages `ids` (leased by this deliverer and still unsent) for another `lease_ms`
    /// from `now`, so a pass that takes longer than one lease is not sent again by another deliverer meanwhile.
    /// A lease that already ran out is not taken back (another may hold it now). How many were renewed.
    pub async fn renew_webhook_leases(&self, ids: &[String], now: i64, lease_ms: i64) -> Result<u64, StoreError> {
        if ids.is_empty() {
            return Ok(0);
        }
        let placeholders: Vec<String> = (0..ids.len()).map(|i| format!("${}", i + 3)).collect();
        let sql = format!(
            "UPDATE webhook_outbox SET leased_until = $1 WHERE leased_until > $2 AND delivered_at IS NULL \
             AND gave_up_at IS NULL AND id IN ({})",
            placeholders.join(", ")
        );
        let mut query = sqlx::query(&sql).bind(now + lease_ms).bind(now);
        for id in ids {
            query = query.bind(id);
        }
        Ok(query.execute(&self.pool).await?.rows_affected())
    }

    /// Ends this deliverer's lease on the messages `ids` without an attempt (an older message of their chain
    /// failed in this pass: they wait for it), so they are due again as soon as their chain allows.
    pub async fn release_webhook_leases(&self, ids: &[String]) -> Result<u64, StoreError> {
        if ids.is_empty() {
            return Ok(0);
        }
        let placeholders: Vec<String> = (0..ids.len()).map(|i| format!("${}", i + 1)).collect();
        let sql = format!(
            "UPDATE webhook_outbox SET leased_until = NULL WHERE delivered_at IS NULL AND id IN ({})",
            placeholders.join(", ")
        );
        let mut query = sqlx::query(&sql);
        for id in ids {
            query = query.bind(id);
        }
        Ok(query.execute(&self.pool).await?.rows_affected())
    }

    /// Logs an attempt at `message` and moves it on: delivered, due again later, or given up.
    pub async fn record_webhook_attempt(
        &self,
        message: &OutboxMessage,
        attempt: &Attempt<'_>,
        outcome: AttemptOutcome,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        let number = i64::from(message.attempts) + 1;
        sqlx::query(
            "INSERT INTO webhook_attempts (outbox_id, attempt, at, status, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&message.id)
        .bind(number)
        .bind(attempt.at_ms)
        .bind(attempt.status.map(i64::from))
        .bind(attempt.error.map(String::from))
        .bind(attempt.duration_ms)
        .execute(&mut *tx)
        .await?;
        move_on(&mut tx, Outbox::Webhooks, &message.id, number, attempt.at_ms, attempt.error, outcome).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Writes a message for a schedule of `workspace` outside an evaluation ("Send test", a PagerDuty resolve on
    /// acknowledgement), due at once.
    pub async fn queue_webhook(
        &self,
        workspace: WorkspaceId,
        to: Recipient<'_>,
        row: OutboxRow<'_>,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        self.get_schedule(workspace, row.schedule).await?;
        let mut tx = self.begin_write().await?;
        insert_outbox(&mut tx, workspace, to, row, now_ms).await?;
        tx.commit().await?;
        Ok(())
    }

    /// A message's body as stored (what was signed and sent).
    pub async fn webhook_body(&self, workspace: WorkspaceId, message_id: &str) -> Result<String, StoreError> {
        let row = sqlx::query("SELECT body FROM webhook_outbox WHERE id = $1 AND workspace_id = $2")
            .bind(message_id)
            .bind(workspace.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        Ok(row.try_get("body")?)
    }
}

/// The outboxes: one table each, the same delivery columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outbox {
    /// `webhook_outbox`.
    Webhooks,
    /// `mail_outbox`.
    Mail,
}

impl Outbox {
    /// The column whose messages must reach their receiver in the order they were written, if any.
    fn chain(self) -> Option<&'static str> {
        match self {
            Self::Webhooks => Some("schedule_id"),
            Self::Mail => None,
        }
    }

    /// The PostgreSQL advisory lock held while leasing a chained outbox (a fixed number: "lg" and a kind).
    fn lease_lock(self) -> i64 {
        match self {
            Self::Webhooks => 0x6c67_0001,
            Self::Mail => 0x6c67_0002,
        }
    }

    fn table(self) -> &'static str {
        match self {
            Self::Webhooks => "webhook_outbox",
            Self::Mail => "mail_outbox",
        }
    }
}

/// Moves a message on after attempt `number`: delivered, due again later, or given up; its lease ends.
pub(super) async fn move_on(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    outbox: Outbox,
    id: &str,
    number: i64,
    at_ms: i64,
    error: Option<&str>,
    outcome: AttemptOutcome,
) -> Result<(), StoreError> {
    let (delivered, gave_up, next) = match outcome {
        AttemptOutcome::Delivered => (Some(at_ms), None, at_ms),
        AttemptOutcome::RetryAt(at) => (None, None, at),
        AttemptOutcome::GaveUp => (None, Some(at_ms), at_ms),
    };
    sqlx::query(&format!(
        "UPDATE {} SET attempts = $1, delivered_at = $2, gave_up_at = $3, next_attempt_at = $4, \
         last_error = $5, leased_until = NULL WHERE id = $6",
        outbox.table()
    ))
    .bind(number)
    .bind(delivered)
    .bind(gave_up)
    .bind(next)
    .bind(error.map(String::from))
    .bind(id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
