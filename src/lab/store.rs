//! Spec Lab's A/B tests: the row a test keeps while it runs (progress, its process's heartbeat, a cancel asked
//! through another replica) and the report it ends with.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::lab::model::{AbPlan, AbTestSummary};
use crate::lab::report::AbReport;
use crate::model::{AbTestId, ConnectorId, RunStatus, WorkspaceId};
use crate::store::{parse_id, spelled, to_json, ReportedJob, Store, StoreError};

const SUMMARY_COLUMNS: &str = "id, title, baseline_name, candidate_name, status, done_requests, total_requests, \
     failure, created_at, finished_at";

/// What a new test records.
#[derive(Debug, Clone)]
pub struct NewAbTest<'a> {
    /// Its id.
    pub id: AbTestId,
    /// The validated plan.
    pub plan: &'a AbPlan,
    /// Baseline and candidate connectors, with their names.
    pub arms: [(ConnectorId, &'a str); 2],
    /// The process that drives it.
    pub owner: &'a str,
}

impl Store {
    /// Records a new test of `workspace`, running.
    pub async fn create_ab_test(
        &self,
        workspace: WorkspaceId,
        test: &NewAbTest<'_>,
        now_ms: i64,
    ) -> Result<AbTestSummary, StoreError> {
        let [(baseline, baseline_name), (candidate, candidate_name)] = test.arms;
        sqlx::query(
            "INSERT INTO ab_tests (id, workspace_id, title, baseline_connector_id, candidate_connector_id, \
             baseline_name, candidate_name, plan, status, total_requests, owner, heartbeat_at, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)",
        )
        .bind(test.id.to_string())
        .bind(workspace.to_string())
        .bind(&test.plan.title)
        .bind(baseline.to_string())
        .bind(candidate.to_string())
        .bind(baseline_name)
        .bind(candidate_name)
        .bind(to_json(test.plan)?)
        .bind(RunStatus::Running.as_str())
        .bind(i64::try_from(test.plan.total_requests()).unwrap_or(i64::MAX))
        .bind(test.owner)
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        self.job(workspace, test.id).await
    }

    /// Records how far a running test is (and that its process is alive).
    pub async fn set_ab_progress(&self, id: AbTestId, done: u64, now_ms: i64) -> Result<(), StoreError> {
        sqlx::query("UPDATE ab_tests SET done_requests = $1, heartbeat_at = $2 WHERE id = $3 AND status = 'running'")
            .bind(i64::try_from(done).unwrap_or(i64::MAX))
            .bind(now_ms)
            .bind(id.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

impl ReportedJob for AbTestId {
    type Summary = AbTestSummary;
    type Plan = AbPlan;
    type Report = AbReport;
    const SUMMARY_COLUMNS: &'static str = SUMMARY_COLUMNS;
    const MORE_COLUMNS: &'static str = "plan, report";

    fn summary(row: &AnyRow) -> Result<AbTestSummary, StoreError> {
        let count = |column: &str| -> Result<u64, StoreError> {
            u64::try_from(row.try_get::<i64, _>(column)?).map_err(|e| StoreError::Corrupt(e.to_string()))
        };
        Ok(AbTestSummary {
            id: parse_id(&row.try_get::<String, _>("id")?)?,
            title: row.try_get("title")?,
            baseline_name: row.try_get("baseline_name")?,
            candidate_name: row.try_get("candidate_name")?,
            status: spelled(row, "status", RunStatus::parse)?,
            done_requests: count("done_requests")?,
            total_requests: count("total_requests")?,
            failure: row.try_get("failure")?,
            created_at_ms: row.try_get("created_at")?,
            finished_at_ms: row.try_get("finished_at")?,
        })
    }
}
