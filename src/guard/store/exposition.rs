//! What the service's `/metrics` reads from the database at each scrape, across every workspace (the endpoint is
//! the operator's): open alerts by severity, and each schedule's last status and last measured figures. Read, not
//! counted in a process, because every replica shares them.

use sqlx::Row;

use crate::guard::model::{EvaluationStatus, GuardSummary, Severity};
use crate::model::ScheduleId;
use crate::store::parse_id;
use crate::store::{from_json, spelled_or_null, Store, StoreError};

/// One schedule as `/metrics` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleFigures {
    /// The schedule.
    pub id: ScheduleId,
    /// Its name.
    pub name: String,
    /// Whether it runs (not paused).
    pub enabled: bool,
    /// How its latest evaluation ended.
    pub last_status: Option<EvaluationStatus>,
    /// When that was, unix ms.
    pub last_run_at_ms: Option<i64>,
    /// The figures of its latest evaluation that measured, and when that finished (unix ms).
    pub measured: Option<(GuardSummary, i64)>,
}

impl Store {
    /// Unacknowledged alerts of every workspace, per severity (every severity listed, 0 included).
    pub async fn open_alerts_by_severity(&self) -> Result<Vec<(Severity, u64)>, StoreError> {
        let rows =
            sqlx::query("SELECT severity, COUNT(*) AS n FROM guard_alerts WHERE acknowledged = 0 GROUP BY severity")
                .fetch_all(&self.pool)
                .await?;
        let mut counts: Vec<(Severity, u64)> = Severity::ALL.iter().map(|s| (*s, 0)).collect();
        for row in rows {
            let severity: String = row.try_get("severity")?;
            let severity =
                Severity::parse(&severity).ok_or_else(|| StoreError::Corrupt(format!("severity {severity:?}")))?;
            let n = u64::try_from(row.try_get::<i64, _>("n")?).unwrap_or(0);
            if let Some(slot) = counts.iter_mut().find(|(s, _)| *s == severity) {
                slot.1 = n;
            }
        }
        Ok(counts)
    }

    /// Every schedule of every workspace with its last status and last measured figures, by name.
    pub async fn schedule_figures(&self) -> Result<Vec<ScheduleFigures>, StoreError> {
        let rows = sqlx::query(
            "SELECT s.id, s.name, s.enabled, s.last_status, s.last_run_at, e.observed_summary, e.finished_at \
             FROM guard_schedules s LEFT JOIN guard_evaluations e ON e.id = (SELECT id FROM guard_evaluations \
             WHERE schedule_id = s.id AND observed_summary IS NOT NULL ORDER BY finished_at DESC, id LIMIT 1) \
             ORDER BY s.name, s.id",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let summary = row.try_get::<Option<String>, _>("observed_summary")?;
                let finished = row.try_get::<Option<i64>, _>("finished_at")?;
                Ok(ScheduleFigures {
                    id: parse_id(&row.try_get::<String, _>("id")?)?,
                    name: row.try_get("name")?,
                    enabled: row.try_get::<i64, _>("enabled")? != 0,
                    last_status: spelled_or_null(row, "last_status", EvaluationStatus::parse)?,
                    last_run_at_ms: row.try_get("last_run_at")?,
                    measured: match (summary, finished) {
                        (Some(summary), Some(at)) => Some((from_json(&summary)?, at)),
                        _ => None,
                    },
                })
            })
            .collect()
    }
}
