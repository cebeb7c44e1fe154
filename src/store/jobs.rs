//! What the tables of background jobs (runs, A/B tests, sweeps) keep alike, written once: each row has a `status`,
//! the process driving it (`owner`), that process's last `heartbeat_at` and a `cancel_requested` flag another
//! replica sets. A/B tests and sweeps also keep a summary, their plan and a report, read the same way.

use serde::de::DeserializeOwned;
use sqlx::any::AnyRow;
use sqlx::Row;

use super::workspaces::parse_id;
use super::{from_json, to_json, Store, StoreError};
use crate::model::{AbTestId, RunId, RunStatus, SweepId, WorkspaceId};

/// The id of a kind of background job, which names the table its rows live in.
pub trait JobTable: Copy + std::fmt::Display + std::str::FromStr + Send + Sync + 'static {
    /// The table, also what the log calls these jobs.
    const TABLE: &'static str;
    /// What an ended job clears beside its status (`, column = NULL…`): what it was doing at that moment.
    const CLEARED_WHEN_ENDED: &'static str = "";
}

impl JobTable for RunId {
    const TABLE: &'static str = "runs";
}

impl JobTable for AbTestId {
    const TABLE: &'static str = "ab_tests";
}

impl JobTable for SweepId {
    const TABLE: &'static str = "sweeps";
    const CLEARED_WHEN_ENDED: &'static str = ", current_run_id = NULL, current_level = NULL";
}

/// A kind of job whose row holds what lists show (its summary), its plan, and the report it fills in.
pub trait ReportedJob: JobTable {
    /// What lists show.
    type Summary;
    /// What was asked for.
    type Plan: DeserializeOwned;
    /// What was measured.
    type Report: DeserializeOwned + serde::Serialize + Sync;
    /// The columns [`Self::summary`] reads.
    const SUMMARY_COLUMNS: &'static str;
    /// The columns a job's whole record reads beside the summary's: `plan`, and `report` unless the summary
    /// already reads it.
    const MORE_COLUMNS: &'static str;

    /// A row's summary.
    fn summary(row: &AnyRow) -> Result<Self::Summary, StoreError>;

    /// A column that counts what a report holds, written with it (a sweep's `done_levels`), and its count.
    fn report_count(_report: &Self::Report) -> Option<(&'static str, usize)> {
        None
    }
}

/// The most jobs of a kind a list shows.
pub const JOB_LIST_LIMIT: i64 = 100;

impl Store {
    /// Renews the heartbeat of `owner`'s running jobs of a kind; returns those a cancel was asked of through the
    /// database.
    pub async fn heartbeat_jobs<J: JobTable>(&self, owner: &str, now_ms: i64) -> Result<Vec<J>, StoreError> {
        let table = J::TABLE;
        sqlx::query(&format!("UPDATE {table} SET heartbeat_at = $1 WHERE owner = $2 AND status = 'running'"))
            .bind(now_ms)
            .bind(owner)
            .execute(&self.pool)
            .await?;
        let rows = sqlx::query(&format!(
            "SELECT id FROM {table} WHERE owner = $1 AND status = 'running' AND cancel_requested = 1"
        ))
        .bind(owner)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|row| parse_id(&row.try_get::<String, _>("id")?)).collect()
    }

    /// Flags a running job of `workspace` so that whichever process drives it stops it at its next heartbeat;
    /// `false` when it is not running, `NotFound` when the workspace has no such job.
    pub async fn request_job_cancel<J: JobTable>(&self, workspace: WorkspaceId, id: J) -> Result<bool, StoreError> {
        let table = J::TABLE;
        let sql = format!(
            "UPDATE {table} SET cancel_requested = 1 WHERE id = $1 AND workspace_id = $2 AND status = 'running'"
        );
        self.change_job(&sql, workspace, id).await
    }

    /// Marks `interrupted` every running job of a kind whose process has not renewed its heartbeat since
    /// `silent_since_ms`: its process stopped (crash, restart, a replica scaled away). `i64::MAX` takes every
    /// running job, for a start-up where no other process can be driving one (the embedded SQLite file).
    pub async fn interrupt_orphaned_jobs<J: JobTable>(
        &self,
        silent_since_ms: i64,
        now_ms: i64,
    ) -> Result<u64, StoreError> {
        Ok(sqlx::query(&format!(
            "UPDATE {} SET status = 'interrupted', finished_at = $1{} \
             WHERE status = 'running' AND (heartbeat_at IS NULL OR heartbeat_at < $2)",
            J::TABLE,
            J::CLEARED_WHEN_ENDED
        ))
        .bind(now_ms)
        .bind(silent_since_ms)
        .execute(&self.pool)
        .await?
        .rows_affected())
    }

    /// Ends a running job with `status`, the report it measured (`None` keeps the report so far, if any) and why
    /// it failed. An ended job stays as it ended.
    pub async fn finish_job<J: ReportedJob>(
        &self,
        id: J,
        status: RunStatus,
        report: Option<&J::Report>,
        failure: Option<&str>,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let mut set = format!("status = $1, failure = $2, finished_at = $3{}", J::CLEARED_WHEN_ENDED);
        let count = report.and_then(J::report_count);
        if report.is_some() {
            set.push_str(", report = $5");
        }
        if let Some((column, _)) = count {
            set.push_str(&format!(", {column} = $6"));
        }
        let sql = format!("UPDATE {} SET {set} WHERE id = $4 AND status = 'running'", J::TABLE);
        let mut query = sqlx::query(&sql).bind(status.as_str()).bind(failure).bind(now_ms).bind(id.to_string());
        if let Some(report) = report {
            query = query.bind(to_json(report)?);
        }
        if let Some((_, n)) = count {
            query = query.bind(i64::try_from(n).unwrap_or(i64::MAX));
        }
        query.execute(&self.pool).await?;
        Ok(())
    }

    /// Deletes an ended job of `workspace` (a sweep's levels' runs stay); `Ok(false)` while it runs.
    pub async fn delete_job<J: ReportedJob>(&self, workspace: WorkspaceId, id: J) -> Result<bool, StoreError> {
        let table = J::TABLE;
        let sql = format!("DELETE FROM {table} WHERE id = $1 AND workspace_id = $2 AND status <> 'running'");
        self.change_job(&sql, workspace, id).await
    }

    /// A job of `workspace`, as lists show it.
    pub async fn job<J: ReportedJob>(&self, workspace: WorkspaceId, id: J) -> Result<J::Summary, StoreError> {
        let row = self.workspace_row(J::TABLE, J::SUMMARY_COLUMNS, workspace, id).await?;
        J::summary(&row)
    }

    /// A job of `workspace` with its plan and its report so far (`None` until there is one).
    pub async fn job_record<J: ReportedJob>(
        &self,
        workspace: WorkspaceId,
        id: J,
    ) -> Result<(J::Summary, J::Plan, Option<J::Report>), StoreError> {
        let columns = format!("{}, {}", J::SUMMARY_COLUMNS, J::MORE_COLUMNS);
        let row = self.workspace_row(J::TABLE, &columns, workspace, id).await?;
        let report = row.try_get::<Option<String>, _>("report")?.map(|text| from_json(&text)).transpose()?;
        Ok((J::summary(&row)?, from_json(&row.try_get::<String, _>("plan")?)?, report))
    }

    /// The newest jobs of a kind in `workspace` first, at most [`JOB_LIST_LIMIT`].
    pub async fn list_jobs<J: ReportedJob>(&self, workspace: WorkspaceId) -> Result<Vec<J::Summary>, StoreError> {
        let order = format!("created_at DESC, id LIMIT {JOB_LIST_LIMIT}");
        let rows = self.workspace_rows(J::TABLE, J::SUMMARY_COLUMNS, workspace, &order).await?;
        rows.iter().map(J::summary).collect()
    }

    /// Runs `sql`, a write to the job `id` (`$1`) of `workspace` (`$2`) that touches it only in the state it needs:
    /// `true` when it did; otherwise `false` when the job exists, `NotFound` when the workspace has no such job.
    async fn change_job<J: JobTable>(&self, sql: &str, workspace: WorkspaceId, id: J) -> Result<bool, StoreError> {
        let touched = sqlx::query(sql)
            .bind(id.to_string())
            .bind(workspace.to_string())
            .execute(&self.pool)
            .await?
            .rows_affected();
        self.touched_or_found(J::TABLE, touched, workspace, id).await
    }
}
