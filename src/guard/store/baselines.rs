//! Pinned baselines: one current per set, connector and workload (none: the set's prompts), earlier pins kept as
//! history.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::guard::model::{Baseline, GuardSummary, StreamedSamples};
use crate::model::{BaselineId, BenchmarkSetId, ConnectorId, RunId, Workload, WorkspaceId};
use crate::store::parse_id;
use crate::store::{from_json, to_json, Store, StoreError};

const COLUMNS: &str = "id, set_id, connector_id, run_id, total_ms, summary, current, pinned_at, streamed";

fn baseline_from_row(row: &AnyRow) -> Result<Baseline, StoreError> {
    Ok(Baseline {
        id: parse_id(&row.try_get::<String, _>("id")?)?,
        set_id: parse_id(&row.try_get::<String, _>("set_id")?)?,
        connector_id: parse_id(&row.try_get::<String, _>("connector_id")?)?,
        run_id: parse_id(&row.try_get::<String, _>("run_id")?)?,
        total_ms: from_json(&row.try_get::<String, _>("total_ms")?)?,
        summary: from_json(&row.try_get::<String, _>("summary")?)?,
        streamed: row.try_get::<Option<String>, _>("streamed")?.as_deref().map(from_json).transpose()?,
        current: row.try_get::<i64, _>("current")? != 0,
        pinned_at_ms: row.try_get("pinned_at")?,
    })
}

/// What a pin copies from the run.
#[derive(Debug, Clone, PartialEq)]
pub struct NewBaseline {
    /// The set.
    pub set_id: BenchmarkSetId,
    /// The connector.
    pub connector_id: ConnectorId,
    /// The workload the schedule sends instead of the set's prompts, if it sends one.
    pub workload: Option<Workload>,
    /// The run.
    pub run_id: RunId,
    /// Its successful measured total times, ms.
    pub total_ms: Vec<f64>,
    /// Its summary.
    pub summary: GuardSummary,
    /// A streamed run's per-request TTFT, TPOT and time to first output.
    pub streamed: Option<StreamedSamples>,
}

/// The `workload_key` of a baseline: the SHA-256 of the workload's JSON (the same parameters give the same key;
/// any change, a seed included, another), `''` for the set's prompts.
fn workload_key(workload: Option<&Workload>) -> Result<String, StoreError> {
    use sha2::Digest;
    match workload {
        Some(workload) => Ok(hex::encode(sha2::Sha256::digest(to_json(workload)?.as_bytes()))),
        None => Ok(String::new()),
    }
}

impl Store {
    /// Pins a baseline for its set, connector and workload, replacing the current one (which stays in the history).
    pub async fn pin_baseline(
        &self,
        workspace: WorkspaceId,
        new: &NewBaseline,
        now_ms: i64,
    ) -> Result<Baseline, StoreError> {
        self.get_set(workspace, new.set_id).await?;
        let id = BaselineId::new_random();
        let key = workload_key(new.workload.as_ref())?;
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "UPDATE guard_baselines SET current = 0 WHERE workspace_id = $1 AND set_id = $2 AND connector_id = $3 \
             AND workload_key = $4 AND current = 1",
        )
        .bind(workspace.to_string())
        .bind(new.set_id.to_string())
        .bind(new.connector_id.to_string())
        .bind(&key)
        .execute(&mut *tx)
        .await?;
        sqlx::query(&format!(
            "INSERT INTO guard_baselines (workspace_id, {COLUMNS}, workload_key) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8, $10, $9)"
        ))
        .bind(workspace.to_string())
        .bind(id.to_string())
        .bind(new.set_id.to_string())
        .bind(new.connector_id.to_string())
        .bind(new.run_id.to_string())
        .bind(to_json(&new.total_ms)?)
        .bind(to_json(&new.summary)?)
        .bind(now_ms)
        .bind(&key)
        .bind(new.streamed.as_ref().map(to_json).transpose()?)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Baseline {
            id,
            set_id: new.set_id,
            connector_id: new.connector_id,
            run_id: new.run_id,
            total_ms: new.total_ms.clone(),
            summary: new.summary,
            streamed: new.streamed.clone(),
            current: true,
            pinned_at_ms: now_ms,
        })
    }

    /// The baseline in force for a set on a connector sending `workload` (`None`: the set's prompts), if one is pinned.
    pub async fn current_baseline(
        &self,
        workspace: WorkspaceId,
        set: BenchmarkSetId,
        connector: ConnectorId,
        workload: Option<&Workload>,
    ) -> Result<Option<Baseline>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM guard_baselines WHERE workspace_id = $1 AND set_id = $2 AND connector_id = $3 \
             AND workload_key = $4 AND current = 1"
        ))
        .bind(workspace.to_string())
        .bind(set.to_string())
        .bind(connector.to_string())
        .bind(workload_key(workload)?)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(baseline_from_row).transpose()
    }

    /// Every baseline pinned for a set on a connector sending `workload` (`None`: the set's prompts), newest first.
    pub async fn baseline_history(
        &self,
        workspace: WorkspaceId,
        set: BenchmarkSetId,
        connector: ConnectorId,
        workload: Option<&Workload>,
    ) -> Result<Vec<Baseline>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM guard_baselines WHERE workspace_id = $1 AND set_id = $2 AND connector_id = $3 \
             AND workload_key = $4 ORDER BY pinned_at DESC, id"
        ))
        .bind(workspace.to_string())
        .bind(set.to_string())
        .bind(connector.to_string())
        .bind(workload_key(workload)?)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(baseline_from_row).collect()
    }
}
