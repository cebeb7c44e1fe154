//! Sweeps: the row a sweep keeps while it runs (levels done, the report so far, its process's heartbeat, a cancel
//! asked through another replica) and the report it ends with.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::capacity::model::{LoadAxis, SweepPlan, SweepSummary};
use crate::capacity::report::CapacityReport;
use crate::model::{ConnectorId, RunId, RunStatus, SweepId, WorkspaceId};
use crate::store::parse_id;
use crate::store::ReportedJob;
use crate::store::{from_json, spelled, to_json, Store, StoreError};

const SUMMARY_COLUMNS: &str = "id, title, connector_name, axis, status, done_levels, report, failure, created_at, \
     finished_at, current_run_id, current_level";

/// What a new sweep records.
#[derive(Debug, Clone)]
pub struct NewSweep<'a> {
    /// Its id.
    pub id: SweepId,
    /// The validated plan.
    pub plan: &'a SweepPlan,
    /// The connector, with its name.
    pub connector: (ConnectorId, &'a str),
    /// The process that drives it.
    pub owner: &'a str,
}

impl Store {
    /// Records a new sweep of `workspace`, running.
    pub async fn create_sweep(
        &self,
        workspace: WorkspaceId,
        sweep: &NewSweep<'_>,
        now_ms: i64,
    ) -> Result<SweepSummary, StoreError> {
        sqlx::query(
            "INSERT INTO sweeps (id, workspace_id, connector_id, connector_name, title, axis, plan, status, owner, \
             heartbeat_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
        )
        .bind(sweep.id.to_string())
        .bind(workspace.to_string())
        .bind(sweep.connector.0.to_string())
        .bind(sweep.connector.1)
        .bind(&sweep.plan.title)
        .bind(sweep.plan.levels.axis().as_str())
        .bind(to_json(sweep.plan)?)
        .bind(RunStatus::Running.as_str())
        .bind(sweep.owner)
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        self.job(workspace, sweep.id).await
    }

    /// Records a running sweep's levels so far (and that its process is alive).
    pub async fn set_sweep_progress(
        &self,
        id: SweepId,
        report: &CapacityReport,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE sweeps SET done_levels = $1, report = $2, heartbeat_at = $3 WHERE id = $4 AND status = 'running'",
        )
        .bind(i64::try_from(report.levels.len()).unwrap_or(i64::MAX))
        .bind(to_json(report)?)
        .bind(now_ms)
        .bind(id.to_string())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Records the level a running sweep is measuring now (`label`, e.g. `8 in flight`) and its run.
    pub async fn set_sweep_current(&self, id: SweepId, run: RunId, label: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE sweeps SET current_run_id = $1, current_level = $2 WHERE id = $3 AND status = 'running'")
            .bind(run.to_string())
            .bind(label)
            .bind(id.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

impl ReportedJob for SweepId {
    type Summary = SweepSummary;
    type Plan = SweepPlan;
    type Report = CapacityReport;
    const SUMMARY_COLUMNS: &'static str = SUMMARY_COLUMNS;
    // The summary reads the report already (its answer).
    const MORE_COLUMNS: &'static str = "plan";

    fn report_count(report: &CapacityReport) -> Option<(&'static str, usize)> {
        Some(("done_levels", report.levels.len()))
    }

    fn summary(row: &AnyRow) -> Result<SweepSummary, StoreError> {
        let report: Option<CapacityReport> =
            row.try_get::<Option<String>, _>("report")?.map(|text| from_json(&text)).transpose()?;
        let done = row.try_get::<i64, _>("done_levels")?;
        Ok(SweepSummary {
            id: parse_id(&row.try_get::<String, _>("id")?)?,
            title: row.try_get("title")?,
            connector_name: row.try_get("connector_name")?,
            axis: spelled(row, "axis", LoadAxis::parse)?,
            status: spelled(row, "status", RunStatus::parse)?,
            done_levels: u32::try_from(done).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            repeated: report.as_ref().is_some_and(|r| r.repeated.is_some()),
            answer: report.and_then(|r| r.answer),
            failure: row.try_get("failure")?,
            created_at_ms: row.try_get("created_at")?,
            finished_at_ms: row.try_get("finished_at")?,
            current_run_id: row.try_get::<Option<String>, _>("current_run_id")?.map(|id| parse_id(&id)).transpose()?,
            current_level: row.try_get("current_level")?,
        })
    }
}
