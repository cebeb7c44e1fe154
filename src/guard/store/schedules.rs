//! Guard schedules of a workspace, and the claim of due slots. Claiming inserts the slot's evaluation row, whose
//! unique `(schedule_id, slot_at)` key makes a second run of the same slot impossible, and moves `next_run_at`
//! on, in one short transaction; on PostgreSQL the due rows are locked `FOR UPDATE SKIP LOCKED`, so replicas
//! ticking at once share the work instead of waiting on each other.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::guard::model::{
    schedulable, Cadence, EvaluationStatus, Notify, Receiver, Schedule, ScheduleInput, ScheduleWorkload, Trigger,
};
use crate::model::{EvaluationId, Holding, ScheduleId, ValidationError, WorkspaceId};
use crate::secrets::SecretBox;
use crate::store::parse_id;
use crate::store::{
    bool_to_db, delete_workspace_row, found, from_json, spelled_or_null, to_json, Backend, Store, StoreError,
};

const COLUMNS: &str =
    "id, name, set_id, connector_id, enabled, cadence, next_run_at, webhook_url, email, email_owner, thresholds, \
     alpha, require_significance, workload_id, policy, last_run_at, last_status, last_error, created_at, receiver, \
     stream, CAST(CASE WHEN routing_key IS NULL THEN 0 ELSE 1 END AS BIGINT) AS routing_key_set";

/// A claimed slot: this process, and no other, runs `schedule` for `slot_at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The evaluation row the claim inserted.
    pub evaluation: EvaluationId,
    /// The schedule.
    pub schedule: ScheduleId,
    /// Its workspace.
    pub workspace: WorkspaceId,
    /// The due time claimed (the instant pressed, for Run now).
    pub slot_at: i64,
    /// What started it.
    pub trigger: Trigger,
}

fn seal_context(workspace: WorkspaceId, id: ScheduleId) -> String {
    format!("schedule-webhook/{workspace}/{id}")
}

fn routing_key_context(workspace: WorkspaceId, id: ScheduleId) -> String {
    format!("schedule-routing-key/{workspace}/{id}")
}

/// A stored routing key and the URL it was entered for.
struct StoredKey {
    sealed: String,
    url: Option<String>,
}

/// The sealed `routing_key` column after a save: a key given is sealed, the stored one stays when none is given,
/// and other receivers keep none. `Invalid` when a PagerDuty receiver would be left without a key, and when the
/// stored key would go to another origin than the one it was entered for (as a connector's stored key: whoever
/// changes where it goes enters it again).
fn routing_key_column(
    workspace: WorkspaceId,
    id: ScheduleId,
    notify: &Notify,
    stored: Option<StoredKey>,
    sealer: &SecretBox,
) -> Result<Option<String>, StoreError> {
    if notify.receiver != Receiver::PagerDuty {
        return Ok(None);
    }
    let refused = |why: String| Err(StoreError::Invalid(ValidationError::new("notify.routingKey", why)));
    match (&notify.routing_key, stored) {
        (Some(key), _) => Ok(Some(sealer.seal(key.as_bytes(), &routing_key_context(workspace, id)))),
        (None, Some(stored)) => {
            let origin = |url: Option<&str>| url.and_then(|u| url::Url::parse(u).ok()).map(|u| u.origin());
            let (was, now) = (origin(stored.url.as_deref()), origin(notify.webhook_url.as_deref()));
            if was.is_some() && was == now {
                Ok(Some(stored.sealed))
            } else {
                refused(format!(
                    "the stored routing key was entered for {}; enter it again to send it to {}",
                    was.map_or("another address".to_string(), |o| o.ascii_serialization()),
                    now.map_or("this address".to_string(), |o| o.ascii_serialization())
                ))
            }
        }
        (None, None) => refused("a PagerDuty receiver needs the routing key of an Events API v2 integration".into()),
    }
}

/// The `workload_name` and `workload` (JSON) columns of a schedule sending `workload`.
fn workload_columns(workload: Option<&ScheduleWorkload>) -> Result<(Option<String>, Option<String>), StoreError> {
    match workload {
        Some(w) => Ok((Some(w.name.clone()), Some(to_json(&w.spec)?))),
        None => Ok((None, None)),
    }
}

fn schedule_from_row(row: &AnyRow) -> Result<Schedule, StoreError> {
    let cadence: String = row.try_get("cadence")?;
    Ok(Schedule {
        id: parse_id(&row.try_get::<String, _>("id")?)?,
        input: ScheduleInput {
            name: row.try_get("name")?,
            set_id: parse_id(&row.try_get::<String, _>("set_id")?)?,
            connector_id: parse_id(&row.try_get::<String, _>("connector_id")?)?,
            enabled: row.try_get::<i64, _>("enabled")? != 0,
            cadence: Cadence::parse(&cadence).ok_or_else(|| StoreError::Corrupt(format!("cadence {cadence:?}")))?,
            notify: Notify {
                webhook_url: row.try_get("webhook_url")?,
                email: row.try_get("email")?,
                email_owner: row.try_get::<i64, _>("email_owner")? != 0,
                receiver: spelled_or_null(row, "receiver", Receiver::parse)?.unwrap_or_default(),
                routing_key: None,
                routing_key_set: row.try_get::<i64, _>("routing_key_set")? != 0,
            },
            thresholds: from_json(&row.try_get::<String, _>("thresholds")?)?,
            alpha: row.try_get("alpha")?,
            require_significance: row.try_get::<i64, _>("require_significance")? != 0,
            workload_id: row.try_get::<Option<String>, _>("workload_id")?.as_deref().map(parse_id).transpose()?,
            stream: row.try_get::<i64, _>("stream")? != 0,
            policy: row
                .try_get::<Option<String>, _>("policy")?
                .as_deref()
                .map(from_json)
                .transpose()?
                .unwrap_or_default(),
        },
        next_run_at_ms: row.try_get("next_run_at")?,
        last_run_at_ms: row.try_get("last_run_at")?,
        last_status: spelled_or_null(row, "last_status", EvaluationStatus::parse)?,
        last_error: row.try_get("last_error")?,
        created_at_ms: row.try_get("created_at")?,
    })
}

impl Store {
    /// Creates a schedule from validated input, first due at once (`next_run_at` = now), with a webhook signing
    /// secret sealed at rest. `NotFound` when the set is not in `workspace`; `Invalid` when it keeps
    /// [`Holding::Schedules`]' most.
    pub async fn create_schedule(
        &self,
        workspace: WorkspaceId,
        input: &ScheduleInput,
        webhook_secret: &str,
        sealer: &SecretBox,
        now_ms: i64,
    ) -> Result<Schedule, StoreError> {
        self.get_set(workspace, input.set_id).await?;
        let id = ScheduleId::new_random();
        let workload = self.workload_copy(workspace, None, input.workload_id).await?;
        let (workload_name, workload_spec) = workload_columns(workload.as_ref())?;
        let routing_key = routing_key_column(workspace, id, &input.notify, None, sealer)?;
        let (thresholds, policy) = (to_json(&input.thresholds)?, to_json(&input.policy)?);
        let mut tx = self.begin_with_room(workspace, Holding::Schedules).await?;
        sqlx::query(
            "INSERT INTO guard_schedules (id, workspace_id, name, set_id, connector_id, enabled, cadence, next_run_at, \
             webhook_url, webhook_secret, email, thresholds, alpha, require_significance, created_at, updated_at, \
             email_owner, workload_id, workload_name, workload, policy, receiver, routing_key, stream) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $8, $8, $15, $16, $17, $18, $19, $20, \
             $21, $22)",
        )
        .bind(id.to_string())
        .bind(workspace.to_string())
        .bind(&input.name)
        .bind(input.set_id.to_string())
        .bind(input.connector_id.to_string())
        .bind(bool_to_db(input.enabled))
        .bind(input.cadence.as_str())
        .bind(now_ms)
        .bind(input.notify.webhook_url.clone())
        .bind(sealer.seal(webhook_secret.as_bytes(), &seal_context(workspace, id)))
        .bind(input.notify.email.clone())
        .bind(thresholds)
        .bind(input.alpha)
        .bind(bool_to_db(input.require_significance))
        .bind(bool_to_db(input.notify.email_owner))
        .bind(input.workload_id.map(|w| w.to_string()))
        .bind(workload_name)
        .bind(workload_spec)
        .bind(policy)
        .bind(input.notify.receiver.as_str())
        .bind(routing_key)
        .bind(bool_to_db(input.stream))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.get_schedule(workspace, id).await
    }

    /// Replaces a schedule's settings. A changed cadence takes effect from the next due time already set; a
    /// PagerDuty routing key given is sealed, and without one the stored key stays.
    pub async fn update_schedule(
        &self,
        workspace: WorkspaceId,
        id: ScheduleId,
        input: &ScheduleInput,
        sealer: &SecretBox,
        now_ms: i64,
    ) -> Result<Schedule, StoreError> {
        self.get_set(workspace, input.set_id).await?;
        let row = self.workspace_row("guard_schedules", "routing_key, webhook_url", workspace, id).await?;
        let stored = row
            .try_get::<Option<String>, _>("routing_key")?
            .map(|sealed| Ok::<_, StoreError>(StoredKey { sealed, url: row.try_get("webhook_url")? }))
            .transpose()?;
        let routing_key = routing_key_column(workspace, id, &input.notify, stored, sealer)?;
        let workload = self.workload_copy(workspace, Some(id), input.workload_id).await?;
        let (workload_name, workload_spec) = workload_columns(workload.as_ref())?;
        found(
            sqlx::query(
                "UPDATE guard_schedules SET name = $1, set_id = $2, connector_id = $3, enabled = $4, cadence = $5, \
             webhook_url = $6, email = $7, thresholds = $8, alpha = $9, require_significance = $10, updated_at = $11, \
             email_owner = $14, workload_id = $15, workload_name = $16, workload = $17, policy = $18, \
             receiver = $19, routing_key = $20, stream = $21 WHERE id = $12 AND workspace_id = $13",
            )
            .bind(&input.name)
            .bind(input.set_id.to_string())
            .bind(input.connector_id.to_string())
            .bind(bool_to_db(input.enabled))
            .bind(input.cadence.as_str())
            .bind(input.notify.webhook_url.clone())
            .bind(input.notify.email.clone())
            .bind(to_json(&input.thresholds)?)
            .bind(input.alpha)
            .bind(bool_to_db(input.require_significance))
            .bind(now_ms)
            .bind(id.to_string())
            .bind(workspace.to_string())
            .bind(bool_to_db(input.notify.email_owner))
            .bind(input.workload_id.map(|w| w.to_string()))
            .bind(workload_name)
            .bind(workload_spec)
            .bind(to_json(&input.policy)?)
            .bind(input.notify.receiver.as_str())
            .bind(routing_key)
            .bind(bool_to_db(input.stream))
            .execute(&self.pool)
            .await?
            .rows_affected(),
        )?;
        self.get_schedule(workspace, id).await
    }

    /// The copy of a saved workload that schedule `id` of `workspace` sends, if it sends one.
    pub async fn schedule_workload(
        &self,
        workspace: WorkspaceId,
        id: ScheduleId,
    ) -> Result<Option<ScheduleWorkload>, StoreError> {
        let row = self.workspace_row("guard_schedules", "workload_id, workload_name, workload", workspace, id).await?;
        let (Some(saved), Some(name), Some(spec)) = (
            row.try_get::<Option<String>, _>("workload_id")?,
            row.try_get::<Option<String>, _>("workload_name")?,
            row.try_get::<Option<String>, _>("workload")?,
        ) else {
            return Ok(None);
        };
        Ok(Some(ScheduleWorkload { id: parse_id(&saved)?, name, spec: from_json(&spec)? }))
    }

    /// The copy a schedule keeps of the saved workload it names: taken afresh from the saved one at every save;
    /// when the saved one was deleted, the copy schedule `existing` already keeps of it (so the schedule can still
    /// be edited). `Invalid` when there is neither, or when a schedule's run could not send it.
    async fn workload_copy(
        &self,
        workspace: WorkspaceId,
        existing: Option<ScheduleId>,
        wanted: Option<crate::model::WorkloadId>,
    ) -> Result<Option<ScheduleWorkload>, StoreError> {
        let Some(wanted) = wanted else { return Ok(None) };
        let copy = match self.get_workload(workspace, wanted).await {
            Ok(saved) => ScheduleWorkload { id: saved.id, name: saved.name, spec: saved.spec },
            Err(StoreError::NotFound) => {
                let kept = match existing {
                    Some(schedule) => self.schedule_workload(workspace, schedule).await?,
                    None => None,
                };
                match kept.filter(|kept| kept.id == wanted) {
                    Some(kept) => kept,
                    None => {
                        let reason = "no saved workload of this workspace has this id (was it deleted?)";
                        return Err(StoreError::Invalid(ValidationError::new("workloadId", reason)));
                    }
                }
            }
            Err(e) => return Err(e),
        };
        schedulable(&copy.spec)?;
        Ok(Some(copy))
    }

    /// Pauses (`false`) or resumes a schedule. A resumed schedule that was due while paused runs at the next tick.
    pub async fn set_schedule_enabled(
        &self,
        workspace: WorkspaceId,
        id: ScheduleId,
        enabled: bool,
        now_ms: i64,
    ) -> Result<Schedule, StoreError> {
        found(
            sqlx::query("UPDATE guard_schedules SET enabled = $1, updated_at = $2 WHERE id = $3 AND workspace_id = $4")
                .bind(bool_to_db(enabled))
                .bind(now_ms)
                .bind(id.to_string())
                .bind(workspace.to_string())
                .execute(&self.pool)
                .await?
                .rows_affected(),
        )?;
        self.get_schedule(workspace, id).await
    }

    /// Deletes a schedule with its evaluations, alerts and undelivered webhooks.
    pub async fn delete_schedule(&self, workspace: WorkspaceId, id: ScheduleId) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        // Children explicitly: SQLite enforces ON DELETE CASCADE only on connections with foreign keys on.
        for table in ["webhook_outbox", "guard_alerts", "guard_evaluations"] {
            sqlx::query(&format!("DELETE FROM {table} WHERE schedule_id = $1 AND workspace_id = $2"))
                .bind(id.to_string())
                .bind(workspace.to_string())
                .execute(&mut *tx)
                .await?;
        }
        delete_workspace_row(&mut tx, "guard_schedules", workspace, id).await?;
        tx.commit().await?;
        Ok(())
    }

    /// One schedule of `workspace`.
    pub async fn get_schedule(&self, workspace: WorkspaceId, id: ScheduleId) -> Result<Schedule, StoreError> {
        schedule_from_row(&self.workspace_row("guard_schedules", COLUMNS, workspace, id).await?)
    }

    /// The schedules of `workspace`, by name.
    pub async fn list_schedules(&self, workspace: WorkspaceId) -> Result<Vec<Schedule>, StoreError> {
        let rows = self.workspace_rows("guard_schedules", COLUMNS, workspace, "name, id").await?;
        rows.iter().map(schedule_from_row).collect()
    }

    /// The webhook signing secret of a schedule, opened.
    pub async fn schedule_webhook_secret(
        &self,
        workspace: WorkspaceId,
        id: ScheduleId,
        sealer: &SecretBox,
    ) -> Result<String, StoreError> {
        let row = sqlx::query("SELECT webhook_secret FROM guard_schedules WHERE id = $1 AND workspace_id = $2")
            .bind(id.to_string())
            .bind(workspace.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        let sealed: String = row.try_get("webhook_secret")?;
        let plain = sealer.open(&sealed, &seal_context(workspace, id))?;
        String::from_utf8(plain).map_err(|e| StoreError::Corrupt(e.to_string()))
    }

    /// The PagerDuty routing key of a schedule, opened; `NotFound` when it has none.
    pub async fn schedule_routing_key(
        &self,
        workspace: WorkspaceId,
        id: ScheduleId,
        sealer: &SecretBox,
    ) -> Result<String, StoreError> {
        let row = self.workspace_row("guard_schedules", "routing_key", workspace, id).await?;
        let sealed: String = row.try_get::<Option<String>, _>("routing_key")?.ok_or(StoreError::NotFound)?;
        let plain = sealer.open(&sealed, &routing_key_context(workspace, id))?;
        String::from_utf8(plain).map_err(|e| StoreError::Corrupt(e.to_string()))
    }

    /// Claims up to `limit` enabled schedules due at `now` (oldest due first) for `claimed_by`, moving each one's
    /// `next_run_at` to `now` + its cadence. A slot another process claimed first is skipped.
    pub async fn claim_due_schedules(&self, now: i64, limit: u32, claimed_by: &str) -> Result<Vec<Claim>, StoreError> {
        self.claim_due_schedules_picked(now, limit, claimed_by, |due| (0..due.len()).collect()).await
    }

    /// Claims, of the first `window` enabled schedules due at `now` (oldest due first), those `pick` chooses from
    /// their workspaces (the indexes, in the order to claim them), for `claimed_by`; the others stay due. A slot
    /// another process claimed or locked first is skipped.
    pub async fn claim_due_schedules_picked(
        &self,
        now: i64,
        window: u32,
        claimed_by: &str,
        pick: impl FnOnce(&[WorkspaceId]) -> Vec<usize>,
    ) -> Result<Vec<Claim>, StoreError> {
        let lock = match self.backend {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let mut tx = self.begin_write().await?;
        let due = sqlx::query(&format!(
            "SELECT id, workspace_id, next_run_at, cadence FROM guard_schedules \
             WHERE enabled = 1 AND next_run_at <= $1 ORDER BY next_run_at, id LIMIT $2{lock}"
        ))
        .bind(now)
        .bind(i64::from(window))
        .fetch_all(&mut *tx)
        .await?;
        let workspaces = due
            .iter()
            .map(|row| parse_id::<WorkspaceId>(&row.try_get::<String, _>("workspace_id")?))
            .collect::<Result<Vec<_>, StoreError>>()?;
        let picked = pick(&workspaces);
        let mut claims = Vec::with_capacity(picked.len());
        for row in picked.into_iter().filter_map(|i| due.get(i)) {
            let schedule: ScheduleId = parse_id(&row.try_get::<String, _>("id")?)?;
            let workspace: WorkspaceId = parse_id(&row.try_get::<String, _>("workspace_id")?)?;
            let slot_at: i64 = row.try_get("next_run_at")?;
            let cadence: String = row.try_get("cadence")?;
            let cadence =
                Cadence::parse(&cadence).ok_or_else(|| StoreError::Corrupt(format!("cadence {cadence:?}")))?;
            let claim =
                Claim { evaluation: EvaluationId::new_random(), schedule, workspace, slot_at, trigger: Trigger::Tick };
            if insert_claim(&mut tx, &claim, claimed_by, now).await? {
                advance(&mut tx, schedule, now + cadence.period_ms()).await?;
                claims.push(claim);
            }
        }
        tx.commit().await?;
        Ok(claims)
    }

    /// Marks failed every evaluation still `running` that started before `started_before_ms`: the process that
    /// claimed it stopped (a crash, a restart) before recording its end. `i64::MAX` takes every one, for a
    /// start-up where no other process can be evaluating (the embedded SQLite file).
    pub async fn fail_abandoned_evaluations(&self, started_before_ms: i64, now_ms: i64) -> Result<u64, StoreError> {
        Ok(sqlx::query(
            "UPDATE guard_evaluations SET status = 'failed', finished_at = $1, \
             error = 'the server stopped during this evaluation; the slot was not measured' \
             WHERE status = 'running' AND started_at < $2",
        )
        .bind(now_ms)
        .bind(started_before_ms)
        .execute(&self.pool)
        .await?
        .rows_affected())
    }

    /// Claims a schedule of `workspace` now, whatever its due time or pause (Run now), moving its `next_run_at`
    /// to `now` + its cadence as a tick would. `None` when that instant was claimed already.
    pub async fn claim_schedule_now(
        &self,
        workspace: WorkspaceId,
        id: ScheduleId,
        now: i64,
        claimed_by: &str,
    ) -> Result<Option<Claim>, StoreError> {
        let schedule = self.get_schedule(workspace, id).await?;
        let mut tx = self.begin_write().await?;
        let claim = Claim {
            evaluation: EvaluationId::new_random(),
            schedule: id,
            workspace,
            slot_at: now,
            trigger: Trigger::RunNow,
        };
        if !insert_claim(&mut tx, &claim, claimed_by, now).await? {
            return Ok(None);
        }
        advance(&mut tx, id, now + schedule.input.cadence.period_ms()).await?;
        tx.commit().await?;
        Ok(Some(claim))
    }

    /// Records how a schedule's latest evaluation ended, shown on the schedule.
    pub async fn record_schedule_outcome(
        &self,
        id: ScheduleId,
        status: EvaluationStatus,
        error: Option<&str>,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE guard_schedules SET last_run_at = $1, last_status = $2, last_error = $3 WHERE id = $4")
            .bind(at_ms)
            .bind(status.as_str())
            .bind(error.map(String::from))
            .bind(id.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// Inserts the claim's evaluation row; `false` when the slot was claimed already.
async fn insert_claim(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    claim: &Claim,
    claimed_by: &str,
    now: i64,
) -> Result<bool, StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO guard_evaluations (id, workspace_id, schedule_id, slot_at, trigger_kind, claimed_by, started_at, \
         status) VALUES ($1, $2, $3, $4, $5, $6, $7, 'running') ON CONFLICT (schedule_id, slot_at) DO NOTHING",
    )
    .bind(claim.evaluation.to_string())
    .bind(claim.workspace.to_string())
    .bind(claim.schedule.to_string())
    .bind(claim.slot_at)
    .bind(claim.trigger.as_str())
    .bind(claimed_by)
    .bind(now)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

async fn advance(tx: &mut sqlx::Transaction<'_, sqlx::Any>, id: ScheduleId, next: i64) -> Result<(), StoreError> {
    sqlx::query("UPDATE guard_schedules SET next_run_at = $1 WHERE id = $2")
        .bind(next)
        .bind(id.to_string())
        .execute(&mut **tx)
        .await?;
    Ok(())
}
