//! The evaluations a rolling or time-window baseline pools: a schedule's latest healthy ones (and the valid runs
//! judged against nothing yet, how a new schedule fills its pool) that measured the same thing as the run at
//! hand. `guard::judge::pool` turns them into the figures a run is compared with.

use sqlx::Row;

use crate::guard::model::{BaselineSource, EvaluationStatus, PooledEvaluation};
use crate::model::{ScheduleId, WorkspaceId};
use crate::store::parse_id;
use crate::store::{from_json, Store, StoreError};

impl Store {
    /// The evaluations of a schedule of `workspace` that `source` pools for a run measuring `measured_key`, newest
    /// first: healthy or not yet compared, the latest [`BaselineSource::max_evaluations`], and for a time window
    /// only those that finished in its last hours before `now_ms`. Empty for a pinned source.
    pub async fn pooled_evaluations(
        &self,
        workspace: WorkspaceId,
        schedule: ScheduleId,
        measured_key: &str,
        source: BaselineSource,
        now_ms: i64,
    ) -> Result<Vec<PooledEvaluation>, StoreError> {
        let since_ms = match source {
            BaselineSource::Pinned => return Ok(Vec::new()),
            BaselineSource::Rolling { .. } => i64::MIN,
            BaselineSource::Window { hours } => now_ms - i64::from(hours) * 3_600_000,
        };
        let rows = sqlx::query(
            "SELECT finished_at, run_id, observed_total_ms, observed_summary, observed_streamed FROM guard_evaluations \
             WHERE workspace_id = $1 AND schedule_id = $2 AND measured_key = $3 AND status IN ($4, $5) \
             AND finished_at >= $6 AND run_id IS NOT NULL AND observed_total_ms IS NOT NULL \
             AND observed_summary IS NOT NULL ORDER BY finished_at DESC, id LIMIT $7",
        )
        .bind(workspace.to_string())
        .bind(schedule.to_string())
        .bind(measured_key)
        .bind(EvaluationStatus::Healthy.as_str())
        .bind(EvaluationStatus::NoBaseline.as_str())
        .bind(since_ms)
        .bind(i64::from(source.max_evaluations()))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(PooledEvaluation {
                    finished_at_ms: row.try_get("finished_at")?,
                    run_id: parse_id(&row.try_get::<String, _>("run_id")?)?,
                    total_ms: from_json(&row.try_get::<String, _>("observed_total_ms")?)?,
                    summary: from_json(&row.try_get::<String, _>("observed_summary")?)?,
                    streamed: row
                        .try_get::<Option<String>, _>("observed_streamed")?
                        .as_deref()
                        .map(from_json)
                        .transpose()?,
                })
            })
            .collect()
    }
}
