//! Spec Lab's A/B tests: the row a test keeps while it runs (progress, its process's heartbeat, a cancel asked
//! through another replica) and the report it ends with.

use sqlx::any::AnyRow;
use sqlx::Row;

use super::workspaces::parse_id;
use super::{from_json, spelled, to_json, Store, StoreError};
use crate::model::{AbPlan, AbTestId, AbTestSummary, ConnectorId, RunStatus, WorkspaceId};
use crate::report::AbReport;

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

/// The most tests a list shows.
pub const AB_TEST_LIST_LIMIT: i64 = 100;

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
        self.ab_test(workspace, test.id).await
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

    /// Ends a running test with `status`, its report (what was measured, even when cut short) and why it failed.
    pub async fn finish_ab_test(
        &self,
        id: AbTestId,
        status: RunStatus,
        report: Option<&AbReport>,
        failure: Option<&str>,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let report = report.map(to_json).transpose()?;
        sqlx::query(
            "UPDATE ab_tests SET status = $1, report = $2, failure = $3, finished_at = $4 \
             WHERE id = $5 AND status = 'running'",
        )
        .bind(status.as_str())
        .bind(report)
        .bind(failure)
        .bind(now_ms)
        .bind(id.to_string())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// A test of `workspace`, as lists show it.
    pub async fn ab_test(&self, workspace: WorkspaceId, id: AbTestId) -> Result<AbTestSummary, StoreError> {
        let row = sqlx::query(&format!("SELECT {SUMMARY_COLUMNS} FROM ab_tests WHERE id = $1 AND workspace_id = $2"))
            .bind(id.to_string())
            .bind(workspace.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        summary_from_row(&row)
    }

    /// A test of `workspace` with its plan and report (`None` until it ends).
    pub async fn ab_test_report(
        &self,
        workspace: WorkspaceId,
        id: AbTestId,
    ) -> Result<(AbTestSummary, AbPlan, Option<AbReport>), StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {SUMMARY_COLUMNS}, plan, report FROM ab_tests WHERE id = $1 AND workspace_id = $2"
        ))
        .bind(id.to_string())
        .bind(workspace.to_string())
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound)?;
        let report = row.try_get::<Option<String>, _>("report")?.map(|text| from_json(&text)).transpose()?;
        Ok((summary_from_row(&row)?, from_json(&row.try_get::<String, _>("plan")?)?, report))
    }

    /// The newest tests of `workspace` first, at most [`AB_TEST_LIST_LIMIT`].
    pub async fn list_ab_tests(&self, workspace: WorkspaceId) -> Result<Vec<AbTestSummary>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {SUMMARY_COLUMNS} FROM ab_tests WHERE workspace_id = $1 ORDER BY created_at DESC, id LIMIT $2"
        ))
        .bind(workspace.to_string())
        .bind(AB_TEST_LIST_LIMIT)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(summary_from_row).collect()
    }

    /// Asks whichever process drives a running test of `workspace` to stop it; `false` when it is not running.
    pub async fn request_ab_cancel(&self, workspace: WorkspaceId, id: AbTestId) -> Result<bool, StoreError> {
        self.ab_test(workspace, id).await?;
        self.flag_cancel("ab_tests", workspace, id).await
    }

    /// Renews the heartbeat of `owner`'s running tests; returns those a cancel was asked of.
    pub async fn heartbeat_ab_tests(&self, owner: &str, now_ms: i64) -> Result<Vec<AbTestId>, StoreError> {
        self.heartbeat_owned("ab_tests", owner, now_ms).await
    }

    /// Marks `interrupted` every running test whose process has been silent since `silent_since_ms`.
    pub async fn interrupt_orphaned_ab_tests(&self, silent_since_ms: i64, now_ms: i64) -> Result<u64, StoreError> {
        Ok(sqlx::query(
            "UPDATE ab_tests SET status = 'interrupted', finished_at = $1 \
             WHERE status = 'running' AND heartbeat_at < $2",
        )
        .bind(now_ms)
        .bind(silent_since_ms)
        .execute(&self.pool)
        .await?
        .rows_affected())
    }

    /// Deletes a finished test of `workspace`; `Ok(false)` while it runs.
    pub async fn delete_ab_test(&self, workspace: WorkspaceId, id: AbTestId) -> Result<bool, StoreError> {
        if self.ab_test(workspace, id).await?.status == RunStatus::Running {
            return Ok(false);
        }
        self.delete_finished("ab_tests", workspace, id).await.map(|()| true)
    }
}

fn summary_from_row(row: &AnyRow) -> Result<AbTestSummary, StoreError> {
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
