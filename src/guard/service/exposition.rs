//! The service seen from Prometheus: this process's counters (`telemetry`) and, read from the database at each
//! scrape, the open alerts by severity and each schedule's last status and figures, written in the OpenMetrics
//! text format by `prometheus-client`, every name prefixed `latency_guard_`.

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::guard::model::{EvaluationStatus, Metric};
use crate::guard::store::ScheduleFigures;
use crate::model::RunStatus;
use crate::store::{Store, StoreError};

/// The content type of the exposition.
pub const EXPOSITION_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct SeverityLabel {
    severity: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ScheduleLabels {
    schedule_id: String,
    schedule: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ScheduleStatusLabels {
    schedule_id: String,
    schedule: String,
    status: &'static str,
}

type FloatGauges<L> = Family<L, Gauge<f64, AtomicU64>>;

/// The exposition, now.
pub async fn exposition(store: &Store) -> Result<String, StoreError> {
    let mut registry = Registry::with_prefix("latency_guard");
    let counters = crate::telemetry::counters();
    let runs: Vec<&'static str> = RunStatus::ALL.iter().map(|s| s.as_str()).collect();
    let evaluations: Vec<&'static str> = EvaluationStatus::ALL.iter().map(|s| s.as_str()).collect();
    counters.list_statuses(&runs, &evaluations);
    counters.register(&mut registry);

    let open = Family::<SeverityLabel, Gauge>::default();
    for (severity, n) in store.open_alerts_by_severity().await? {
        open.get_or_create(&SeverityLabel { severity: severity.as_str() }).set(i64::try_from(n).unwrap_or(i64::MAX));
    }
    registry.register("guard_open_alerts", "Unacknowledged Guard alerts of every workspace, by severity", open);
    register_schedules(&mut registry, &store.schedule_figures().await?);

    let mut text = String::new();
    // Writing into a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut text, &registry);
    Ok(text)
}

/// Each schedule's last status (1 on the status it ended with), when it last ran, and its last measured figures.
fn register_schedules(registry: &mut Registry, schedules: &[ScheduleFigures]) {
    let status = Family::<ScheduleStatusLabels, Gauge>::default();
    let last_run = FloatGauges::<ScheduleLabels>::default();
    let measured_at = FloatGauges::<ScheduleLabels>::default();
    let figures: Vec<(Metric, &str, &str, FloatGauges<ScheduleLabels>)> = [
        (Metric::P95Ms, "guard_schedule_p95_ms", "95th percentile of total time, ms (linear interpolation)"),
        (Metric::P50Ms, "guard_schedule_p50_ms", "Median total time, ms (linear interpolation)"),
        (Metric::MeanMs, "guard_schedule_mean_ms", "Mean total time, ms"),
        (Metric::TokS, "guard_schedule_tokens_per_second", "Output tokens per second, sum of tokens / sum of time"),
        (Metric::ErrorRate, "guard_schedule_error_rate", "Failed requests / measured requests, 0 to 1"),
        (Metric::CostUsd, "guard_schedule_cost_usd", "Cost of the evaluation's run, USD"),
        (Metric::TtftP95Ms, "guard_schedule_ttft_p95_ms", "95th percentile of time to first token, ms (streamed)"),
        (Metric::TpotP95Ms, "guard_schedule_tpot_p95_ms", "95th percentile of time per output token, ms (streamed)"),
        (
            Metric::FirstOutputP95Ms,
            "guard_schedule_first_output_p95_ms",
            "95th percentile of time to first output of any kind, ms (streamed)",
        ),
        (
            Metric::AcceptanceRate,
            "guard_schedule_acceptance_rate",
            "Speculative decoding: accepted / drafted tokens over the run, by the server's counters",
        ),
    ]
    .into_iter()
    .map(|(metric, name, help)| (metric, name, help, FloatGauges::default()))
    .collect();
    for schedule in schedules {
        let labels = ScheduleLabels { schedule_id: schedule.id.to_string(), schedule: schedule.name.clone() };
        if let (Some(last), Some(at)) = (schedule.last_status, schedule.last_run_at_ms) {
            let with_status = ScheduleStatusLabels {
                schedule_id: labels.schedule_id.clone(),
                schedule: labels.schedule.clone(),
                status: last.as_str(),
            };
            status.get_or_create(&with_status).set(1);
            last_run.get_or_create(&labels).set(at as f64 / 1e3);
        }
        if let Some((summary, at)) = &schedule.measured {
            measured_at.get_or_create(&labels).set(*at as f64 / 1e3);
            for (metric, _, _, gauge) in &figures {
                if let Some(value) = metric.of(summary) {
                    gauge.get_or_create(&labels).set(value);
                }
            }
        }
    }
    registry.register(
        "guard_schedule_last_status",
        "1 on the status a schedule's latest evaluation ended with",
        status,
    );
    registry.register(
        "guard_schedule_last_run_timestamp_seconds",
        "When a schedule's latest evaluation ended, unix seconds",
        last_run,
    );
    registry.register(
        "guard_schedule_measured_timestamp_seconds",
        "When the evaluation whose figures are shown (the latest that measured) ended, unix seconds",
        measured_at,
    );
    for (_, name, help, gauge) in figures {
        registry.register(name, format!("{help}, of a schedule's latest evaluation that measured"), gauge);
    }
}
