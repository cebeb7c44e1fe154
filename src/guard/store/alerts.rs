//! Evaluations and alerts. Finishing an evaluation records it and applies the alert plan Guard's state machine
//! (`guard::judge::plan_alerts`) makes from the alerts open at that moment and the schedule's recent history, in one
//! transaction: opened, updated and recovered alerts, the "cannot measure" alert and the webhook messages
//! announcing them (`guard::judge::announcements` says which, from what applying the plan did) commit together or
//! not at all. Alerts close only by hand (acknowledge one, or all); a recovered
//! one is marked so and stays open.

use sqlx::any::AnyRow;
use sqlx::Row;

use super::open_alerts::open_alerts;
use super::schedules::Claim;
use crate::guard::judge::{announcements, Applied};
use crate::guard::model::{
    AlertContext, AlertKind, AlertPlan, AlertView, Breach, Decision, EvaluationEnd, EvaluationStatus, EvaluationView,
    GuardSummary, Muting, Notice, OpenAlert, PastEvaluation, Receiver, Trigger, CANNOT_MEASURE_KEY, MAX_POLICY_WINDOW,
};
use crate::model::{AlertId, RunId, ScheduleId, WorkspaceId};
use crate::store::float;
use crate::store::parse_id;
use crate::store::{bool_to_db, from_json, spelled, to_json, Store, StoreError};

/// Webhook messages to write to the outbox for what an evaluation announces: where, a fresh message id for each,
/// and each notice's body.
pub struct WebhookNotice<'a> {
    /// The receiver.
    pub url: &'a str,
    /// A fresh message id (`webhook-id`) per message.
    pub message_id: fn() -> String,
    /// What reads them.
    pub receiver: Receiver,
    /// The messages of one notice, each with the alert it is about, given the notice's alerts in the order of its
    /// breaches (one per alert for PagerDuty, else one).
    pub bodies: &'a NoticeBodies<'a>,
}

/// Makes the messages of one notice from its alerts: each body with the alert it is about.
pub type NoticeBodies<'a> = dyn Fn(&Notice, &[AlertId]) -> Vec<(AlertId, String)> + Sync + 'a;

/// What finishing an evaluation did to the alerts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AlertChanges {
    /// Alerts opened, with their breach.
    pub opened: Vec<(AlertId, Breach)>,
    /// Open alerts whose figures moved on.
    pub updated: Vec<AlertId>,
    /// Open alerts that recovered (their notice is among `notices`).
    pub recovered: Vec<AlertId>,
    /// What was announced, in the order the messages were written.
    pub notices: Vec<Notice>,
    /// The outbox messages written, one per notice.
    pub webhook: Vec<String>,
    /// The plan asked for e-mail about the notices.
    pub email: bool,
}

/// Finished evaluations of a schedule the alert state machine looks back over: enough for every window of the
/// policy ([`MAX_POLICY_WINDOW`] conclusive ones) with as many inconclusive ones between them.
const HISTORY_READ: u32 = 3 * MAX_POLICY_WINDOW;

const ALERT_COLUMNS: &str = "a.id, a.schedule_id, s.name AS schedule_name, a.kind, a.breach, a.cannot_measure, \
     a.run_id, a.observed, a.baseline, a.breach_count, a.recovered_at, a.acknowledged, a.acknowledged_at, a.created_at, a.updated_at, \
     (SELECT MIN(e.finished_at) FROM guard_evaluations e WHERE e.schedule_id = a.schedule_id \
      AND e.status = 'healthy' AND e.finished_at > a.updated_at) AS healthy_since, a.announced, \
     (SELECT MAX(m.until_at) FROM guard_mutes m WHERE m.schedule_id = a.schedule_id AND m.until_at > $3 \
      AND (m.threshold_key = '' OR m.threshold_key = a.threshold_key)) AS muted_until, a.evaluation_id, \
     (SELECT e.context FROM guard_evaluations e WHERE e.id = a.evaluation_id) AS context";

fn alert_from_row(row: &AnyRow) -> Result<AlertView, StoreError> {
    let context: Option<AlertContext> =
        row.try_get::<Option<String>, _>("context")?.map(|t| from_json(&t)).transpose()?;
    Ok(AlertView {
        id: parse_id(&row.try_get::<String, _>("id")?)?,
        schedule_id: parse_id(&row.try_get::<String, _>("schedule_id")?)?,
        schedule_name: row.try_get("schedule_name")?,
        kind: spelled(row, "kind", AlertKind::parse)?,
        breach: from_json(&row.try_get::<String, _>("breach")?)?,
        cannot_measure: row.try_get::<Option<String>, _>("cannot_measure")?.map(|t| from_json(&t)).transpose()?,
        run_id: row.try_get::<Option<String>, _>("run_id")?.map(|r| parse_id(&r)).transpose()?,
        observed: from_json(&row.try_get::<String, _>("observed")?)?,
        baseline: from_json(&row.try_get::<String, _>("baseline")?)?,
        breach_count: u64::try_from(row.try_get::<i64, _>("breach_count")?).unwrap_or(0),
        recovered_at_ms: row.try_get("recovered_at")?,
        acknowledged: row.try_get::<i64, _>("acknowledged")? != 0,
        acknowledged_at_ms: row.try_get("acknowledged_at")?,
        created_at_ms: row.try_get("created_at")?,
        updated_at_ms: row.try_get("updated_at")?,
        healthy_since_ms: row.try_get("healthy_since")?,
        announced: row.try_get::<i64, _>("announced")? != 0,
        muted_until_ms: row.try_get("muted_until")?,
        evaluation_id: parse_id(&row.try_get::<String, _>("evaluation_id")?)?,
        context,
        also: Vec::new(),
        why_html: None,
        also_keys: Vec::new(),
    })
}

fn evaluation_from_row(row: &AnyRow) -> Result<EvaluationView, StoreError> {
    let json = |column: &str| -> Result<Option<String>, StoreError> { Ok(row.try_get::<Option<String>, _>(column)?) };
    let count = |column: &str| -> Result<Option<u64>, StoreError> {
        Ok(row.try_get::<Option<i64>, _>(column)?.and_then(|n| u64::try_from(n).ok()))
    };
    Ok(EvaluationView {
        id: parse_id(&row.try_get::<String, _>("id")?)?,
        slot_at_ms: row.try_get("slot_at")?,
        trigger: spelled(row, "trigger_kind", Trigger::parse)?,
        started_at_ms: row.try_get("started_at")?,
        finished_at_ms: row.try_get("finished_at")?,
        status: spelled(row, "status", EvaluationStatus::parse)?,
        error: row.try_get("error")?,
        invalid: json("invalid")?.map(|t| from_json(&t)).transpose()?,
        pending: json("pending")?.map(|t| from_json(&t)).transpose()?.unwrap_or_default(),
        run_id: row.try_get::<Option<String>, _>("run_id")?.map(|r| parse_id(&r)).transpose()?,
        baseline_n: count("baseline_n")?,
        baseline_summary: json("baseline_summary")?.map(|t| from_json(&t)).transpose()?,
        observed_n: count("observed_n")?,
        observed_summary: json("observed_summary")?.map(|t| from_json(&t)).transpose()?,
        p_value: row.try_get("p_value")?,
        decision: json("decision")?.map(|t| from_json(&t)).transpose()?,
        baseline_from: json("baseline_from")?.map(|t| from_json(&t)).transpose()?,
    })
}

impl Store {
    /// Records how the claimed evaluation ended and applies the alert plan `plan` makes from the schedule's open
    /// alerts and its recent finished evaluations (newest first), in one transaction; a webhook message for each
    /// notice the plan announces goes to the outbox in the same transaction. An alert the plan opens that another
    /// evaluation of the schedule opened a moment earlier (replicas) is updated instead, so a threshold never has
    /// two open alerts.
    pub async fn finish_evaluation(
        &self,
        claim: &Claim,
        end: &EvaluationEnd,
        measured_key: Option<&str>,
        plan: impl FnOnce(&[OpenAlert], &[PastEvaluation], &Muting) -> AlertPlan,
        webhook: Option<WebhookNotice<'_>>,
        now_ms: i64,
    ) -> Result<AlertChanges, StoreError> {
        let mut tx = self.begin_write().await?;
        let open = open_alerts(&mut tx, claim.schedule).await?;
        let history = past_evaluations(&mut tx, claim).await?;
        let muting = Muting::of(&super::mutes::mutes_in_force(&mut tx, claim.schedule, now_ms).await?);
        let plan = plan(&open, &history, &muting);
        record_end(&mut tx, claim, end, measured_key, &plan, now_ms).await?;
        let mut changes = AlertChanges { email: plan.email, ..AlertChanges::default() };
        let applied = apply_plan(&mut tx, claim, end, &plan, &mut changes, now_ms).await?;
        let announced = announcements(applied);
        if let (Some(notice), true) = (webhook, plan.webhook) {
            changes.webhook = write_messages(&mut tx, claim, &notice, &announced, now_ms).await?;
        }
        changes.notices = announced.into_iter().map(|(_, notice)| notice).collect();
        tx.commit().await?;
        Ok(changes)
    }

    /// The alerts of `workspace`: open ones first, then newest first; each says until when it is muted at `now_ms`.
    pub async fn list_alerts(
        &self,
        workspace: WorkspaceId,
        limit: u32,
        now_ms: i64,
    ) -> Result<Vec<AlertView>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {ALERT_COLUMNS} FROM guard_alerts a JOIN guard_schedules s ON s.id = a.schedule_id \
             WHERE a.workspace_id = $1 ORDER BY a.acknowledged, a.updated_at DESC, a.id LIMIT $2"
        ))
        .bind(workspace.to_string())
        .bind(i64::from(limit))
        .bind(now_ms)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(alert_from_row).collect()
    }

    /// Unacknowledged alerts of `workspace`.
    pub async fn open_alert_count(&self, workspace: WorkspaceId) -> Result<u64, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM guard_alerts WHERE workspace_id = $1 AND acknowledged = 0")
            .bind(workspace.to_string())
            .fetch_one(&self.pool)
            .await?;
        Ok(u64::try_from(row.try_get::<i64, _>("n")?).unwrap_or(0))
    }

    /// Unacknowledged incidents of `workspace` (the sidebar badge: as many as the feed's open cards): the breaches
    /// of one evaluation of a schedule are one, a "cannot measure" alert is one of its own (`model::incidents`).
    pub async fn open_incident_count(&self, workspace: WorkspaceId) -> Result<u64, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n FROM (SELECT DISTINCT schedule_id, \
             CASE WHEN kind = 'breach' THEN evaluation_id ELSE id END AS incident \
             FROM guard_alerts WHERE workspace_id = $1 AND acknowledged = 0) AS open_incidents",
        )
        .bind(workspace.to_string())
        .fetch_one(&self.pool)
        .await?;
        Ok(u64::try_from(row.try_get::<i64, _>("n")?).unwrap_or(0))
    }

    /// Acknowledges one open alert of `workspace`; `false` when it was acknowledged already.
    pub async fn acknowledge_alert(
        &self,
        workspace: WorkspaceId,
        id: AlertId,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let changed = sqlx::query(
            "UPDATE guard_alerts SET acknowledged = 1, acknowledged_at = $1 WHERE id = $2 AND workspace_id = $3 \
             AND acknowledged = 0",
        )
        .bind(now_ms)
        .bind(id.to_string())
        .bind(workspace.to_string())
        .execute(&self.pool)
        .await?
        .rows_affected();
        self.touched_or_found("guard_alerts", changed, workspace, id).await
    }

    /// Acknowledges every open alert of `workspace`; how many.
    pub async fn acknowledge_all_alerts(&self, workspace: WorkspaceId, now_ms: i64) -> Result<u64, StoreError> {
        Ok(sqlx::query(
            "UPDATE guard_alerts SET acknowledged = 1, acknowledged_at = $1 WHERE workspace_id = $2 AND acknowledged = 0",
        )
        .bind(now_ms)
        .bind(workspace.to_string())
        .execute(&self.pool)
        .await?
        .rows_affected())
    }

    /// The latest evaluations of a schedule of `workspace`, newest first.
    pub async fn list_evaluations(
        &self,
        workspace: WorkspaceId,
        schedule: ScheduleId,
        limit: u32,
    ) -> Result<Vec<EvaluationView>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, slot_at, trigger_kind, started_at, finished_at, status, error, invalid, pending, run_id, \
             baseline_n, baseline_summary, observed_n, observed_summary, p_value, decision, baseline_from \
             FROM guard_evaluations WHERE workspace_id = $1 AND schedule_id = $2 ORDER BY started_at DESC, id LIMIT $3",
        )
        .bind(workspace.to_string())
        .bind(schedule.to_string())
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(evaluation_from_row).collect()
    }
}

/// Records how the claimed evaluation ended: its status, its figures and the baseline's, its decision, and the
/// breaches the plan keeps pending.
async fn record_end(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    claim: &Claim,
    end: &EvaluationEnd,
    measured_key: Option<&str>,
    plan: &AlertPlan,
    now_ms: i64,
) -> Result<(), StoreError> {
    let observed = end.observed();
    let (baseline, decision) = end.comparison().unzip();
    sqlx::query(
        "UPDATE guard_evaluations SET finished_at = $1, status = $2, error = $3, run_id = $4, baseline_id = $5, \
             baseline_n = $6, baseline_summary = $7, observed_n = $8, observed_summary = $9, observed_total_ms = $10, \
             test = $11, p_value = $12, decision = $13, invalid = $14, pending = $15, measured_key = $16, \
             baseline_from = $17, observed_streamed = $18, context = $19 WHERE id = $20",
    )
    .bind(now_ms)
    .bind(end.status().as_str())
    .bind(end.error())
    .bind(end.run().map(|r| r.to_string()))
    .bind(baseline.and_then(|b| b.baseline_id()).map(|id| id.to_string()))
    .bind(baseline.map(|b| b.total_ms.len() as i64))
    .bind(baseline.map(|b| to_json(&b.summary)).transpose()?)
    .bind(observed.map(|(values, _)| values.len() as i64))
    .bind(observed.map(|(_, summary)| to_json(summary)).transpose()?)
    .bind(observed.map(|(values, _)| to_json(values)).transpose()?)
    .bind(decision.map(|_| "welch_t_test"))
    .bind(float(decision.and_then(|d| d.p_value)))
    .bind(decision.map(to_json).transpose()?)
    .bind(end.invalid().map(to_json).transpose()?)
    .bind((!plan.pending.is_empty()).then(|| to_json(&plan.pending)).transpose()?)
    .bind(measured_key)
    .bind(end.baseline_from().map(|from| to_json(&from)).transpose()?)
    .bind(end.streamed().map(to_json).transpose()?)
    .bind(end.context().map(to_json).transpose()?)
    .bind(claim.evaluation.to_string())
    .execute(&mut **tx)
    .await?;

    Ok(())
}

/// Applies `plan` to the schedule's alerts and says what it did: which alerts opened, updated, relapsed or
/// recovered (into `changes` as well), and what of the "cannot measure" alert is to be announced.
async fn apply_plan(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    claim: &Claim,
    end: &EvaluationEnd,
    plan: &AlertPlan,
    changes: &mut AlertChanges,
    now_ms: i64,
) -> Result<Applied, StoreError> {
    let mut applied = Applied::default();
    if let (Some((baseline, _)), Some((_, observed))) = (end.comparison(), end.observed()) {
        let figures = AlertFigures { claim, run: end.run(), observed, baseline: &baseline.summary, now_ms };
        apply_breaches(tx, plan, &figures, changes, &mut applied).await?;
    }
    for id in &plan.recovered {
        if mark_recovered(tx, *id, now_ms).await? {
            applied.recovered.push((*id, last_breach(tx, *id).await?));
            changes.recovered.push(*id);
        }
    }
    for id in &plan.recovered_quietly {
        mark_recovered(tx, *id, now_ms).await?;
    }
    if let Some(cannot) = &plan.cannot_measure {
        let announce = !plan.silenced.iter().any(|k| k == CANNOT_MEASURE_KEY);
        applied.cannot_measure =
            super::cannot_measure::apply_cannot_measure(tx, claim, end, cannot, announce, now_ms).await?;
    }
    if let Some(id) = plan.measurable_again {
        // Announced when this evaluation marked it recovered, or when it is still open though recovered
        // already (another replica's evaluation marked it a moment ago).
        if mark_recovered(tx, id, now_ms).await? || is_open(tx, id).await? {
            applied.measurable_again = Some(id);
        }
    }
    Ok(applied)
}

/// Opens the alerts `plan` opens and moves on those it updates. An alert another evaluation of the schedule opened
/// a moment earlier (replicas) is updated instead, so a threshold never has two open alerts.
async fn apply_breaches(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    plan: &AlertPlan,
    figures: &AlertFigures<'_>,
    changes: &mut AlertChanges,
    applied: &mut Applied,
) -> Result<(), StoreError> {
    for breach in &plan.open {
        let id = AlertId::new_random();
        let announce = !plan.silenced.contains(&breach.key());
        if insert_alert(tx, id, breach, figures, announce).await? {
            changes.opened.push((id, breach.clone()));
            if announce {
                applied.opened.push((id, breach.clone()));
            }
            continue;
        }
        // Opened a moment ago by another evaluation of this schedule: breached again, then.
        let reopened = open_alerts(tx, figures.claim.schedule).await?;
        let Some(open) = reopened.iter().find(|a| a.threshold_key == breach.key()) else { continue };
        update_alert(tx, open.id, breach, figures).await?;
        changes.updated.push(open.id);
    }
    for (id, breach) in &plan.update {
        update_alert(tx, *id, breach, figures).await?;
        changes.updated.push(*id);
        if plan.relapsed.contains(id) {
            mark_announced(tx, *id).await?;
            applied.relapsed.push((*id, breach.clone()));
        }
    }
    Ok(())
}

/// Writes the webhook messages of `announced` to the outbox; their ids.
async fn write_messages(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    claim: &Claim,
    notice: &WebhookNotice<'_>,
    announced: &[(Vec<AlertId>, Notice)],
    now_ms: i64,
) -> Result<Vec<String>, StoreError> {
    let mut written = Vec::new();
    for (alerts, what) in announced {
        for (alert, body) in (notice.bodies)(what, alerts) {
            let message_id = (notice.message_id)();
            let to = Recipient { url: notice.url, receiver: notice.receiver };
            let row = OutboxRow { schedule: claim.schedule, alert: Some(alert), id: &message_id, body: &body };
            insert_outbox(tx, claim.workspace, to, row, now_ms).await?;
            written.push(message_id);
        }
    }
    Ok(written)
}

/// Where an outbox message goes.
#[derive(Debug, Clone, Copy)]
pub struct Recipient<'a> {
    /// The URL.
    pub url: &'a str,
    /// What reads it there.
    pub receiver: Receiver,
}

/// One outbox message: whose, about what, and what it says.
#[derive(Debug, Clone, Copy)]
pub struct OutboxRow<'a> {
    /// The schedule (whose secret signs it).
    pub schedule: ScheduleId,
    /// The alert it is about, if any.
    pub alert: Option<AlertId>,
    /// Its id (`webhook-id`).
    pub id: &'a str,
    /// The JSON body.
    pub body: &'a str,
}

/// Writes one webhook message to the outbox, due at once.
pub(super) async fn insert_outbox(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    workspace: WorkspaceId,
    to: Recipient<'_>,
    row: OutboxRow<'_>,
    now_ms: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO webhook_outbox (id, workspace_id, schedule_id, alert_id, url, body, attempts, next_attempt_at, \
         created_at, receiver) VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $7, $8)",
    )
    .bind(row.id)
    .bind(workspace.to_string())
    .bind(row.schedule.to_string())
    .bind(row.alert.map(|a| a.to_string()))
    .bind(to.url)
    .bind(row.body)
    .bind(now_ms)
    .bind(to.receiver.as_str())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// What every alert row of one evaluation carries besides its breach.
struct AlertFigures<'a> {
    claim: &'a Claim,
    run: Option<RunId>,
    observed: &'a GuardSummary,
    baseline: &'a GuardSummary,
    now_ms: i64,
}

/// Opens an alert for `breach`; `false` when its threshold has an open alert already (the unique index on open
/// alerts per threshold).
async fn insert_alert(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: AlertId,
    breach: &Breach,
    figures: &AlertFigures<'_>,
    announced: bool,
) -> Result<bool, StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO guard_alerts (id, workspace_id, schedule_id, threshold_key, severity, acknowledged, \
         breach, observed, baseline, evaluation_id, run_id, breach_count, created_at, updated_at, announced) \
         VALUES ($1, $2, $3, $4, $5, 0, $6, $7, $8, $9, $10, 1, $11, $11, $12) ON CONFLICT DO NOTHING",
    )
    .bind(id.to_string())
    .bind(figures.claim.workspace.to_string())
    .bind(figures.claim.schedule.to_string())
    .bind(breach.key())
    .bind(breach.severity.as_str())
    .bind(to_json(breach)?)
    .bind(to_json(figures.observed)?)
    .bind(to_json(figures.baseline)?)
    .bind(figures.claim.evaluation.to_string())
    .bind(figures.run.map(|r| r.to_string()))
    .bind(figures.now_ms)
    .bind(bool_to_db(announced))
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

/// An open alert breached again: its breach and observed figures move on and its count grows.
async fn update_alert(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: AlertId,
    breach: &Breach,
    figures: &AlertFigures<'_>,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE guard_alerts SET breach = $1, observed = $2, baseline = $3, evaluation_id = $4, run_id = $5, \
         severity = $6, breach_count = breach_count + 1, updated_at = $7, recovered_at = NULL WHERE id = $8",
    )
    .bind(to_json(breach)?)
    .bind(to_json(figures.observed)?)
    .bind(to_json(figures.baseline)?)
    .bind(figures.claim.evaluation.to_string())
    .bind(figures.run.map(|r| r.to_string()))
    .bind(breach.severity.as_str())
    .bind(figures.now_ms)
    .bind(id.to_string())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The alert is now announced (it opened while muted, and breached again after the mute).
async fn mark_announced(tx: &mut sqlx::Transaction<'_, sqlx::Any>, id: AlertId) -> Result<(), StoreError> {
    sqlx::query("UPDATE guard_alerts SET announced = 1 WHERE id = $1").bind(id.to_string()).execute(&mut **tx).await?;
    Ok(())
}

/// The schedule's finished evaluations before the claimed one, newest first, as the state machine reads them.
async fn past_evaluations(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    claim: &Claim,
) -> Result<Vec<PastEvaluation>, StoreError> {
    let rows = sqlx::query(
        "SELECT status, decision FROM guard_evaluations WHERE schedule_id = $1 AND id <> $2 AND status <> 'running' \
         ORDER BY finished_at DESC, started_at DESC LIMIT $3",
    )
    .bind(claim.schedule.to_string())
    .bind(claim.evaluation.to_string())
    .bind(i64::from(HISTORY_READ))
    .fetch_all(&mut **tx)
    .await?;
    rows.iter()
        .map(|row| {
            let status = spelled(row, "status", EvaluationStatus::parse)?;
            let decision: Option<Decision> =
                row.try_get::<Option<String>, _>("decision")?.map(|t| from_json(&t)).transpose()?;
            Ok(PastEvaluation::of(status, decision.as_ref()))
        })
        .collect()
}

/// Marks an open alert recovered; `false` when it was acknowledged or recovered meanwhile.
async fn mark_recovered(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: AlertId,
    now_ms: i64,
) -> Result<bool, StoreError> {
    let changed = sqlx::query(
        "UPDATE guard_alerts SET recovered_at = $1 WHERE id = $2 AND acknowledged = 0 AND recovered_at IS NULL",
    )
    .bind(now_ms)
    .bind(id.to_string())
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok(changed == 1)
}

/// The last breach of a breach alert.
async fn last_breach(tx: &mut sqlx::Transaction<'_, sqlx::Any>, id: AlertId) -> Result<Breach, StoreError> {
    let row =
        sqlx::query("SELECT breach FROM guard_alerts WHERE id = $1").bind(id.to_string()).fetch_one(&mut **tx).await?;
    from_json(&row.try_get::<String, _>("breach")?)
}

/// The alert is still unacknowledged.
async fn is_open(tx: &mut sqlx::Transaction<'_, sqlx::Any>, id: AlertId) -> Result<bool, StoreError> {
    let row = sqlx::query("SELECT acknowledged FROM guard_alerts WHERE id = $1")
        .bind(id.to_string())
        .fetch_optional(&mut **tx)
        .await?;
    Ok(row.map(|r| r.try_get::<i64, _>("acknowledged")).transpose()?.is_some_and(|a| a == 0))
}
