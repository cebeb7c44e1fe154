//! `bench --against BASELINE --threshold 'p95_ms:pct_increase>10'`: a pipeline's regression gate with Guard's own
//! judgement. The run just made is compared with a baseline — a run of the app's database, of `--server`, or a
//! snapshot file (`bench --out`) — exactly as a Guard schedule compares an evaluation: the five-figure summary of
//! each side's successful requests, Welch's test of their total times, each threshold's verdict in words (a latency
//! threshold breaches only when crossed and significant at `--alpha`), Benjamini–Hochberg when several tests judge
//! at once. A breach fails the command (exit 1).

use std::path::Path;

use crate::cli::{usage, CliError};
use crate::guard::judge::{decide_run, observe, send_order_lag1, streamed_samples};
use crate::guard::model::{
    Cadence, Decision, Metric, Op, Reference, ReferenceFrom, ScheduleInput, Severity, Threshold,
};
use crate::model::{BaselineId, BenchmarkSetId, ConnectorId, RunId};
use crate::runs::report::ReportSnapshot;

/// Parses `METRIC:OP>VALUE` (`p95_ms:pct_increase>10`, `error_rate:abs_increase>0.05`).
pub fn parse_threshold(text: &str) -> Result<Threshold, CliError> {
    let form = "a threshold is METRIC:OP>VALUE, e.g. p95_ms:pct_increase>10 (metrics: p95_ms, p50_ms, mean_ms, tok_s, \
                 cost_usd, error_rate, ttft_p95_ms, tpot_p95_ms, first_output_p95_ms, acceptance_rate; ops: \
                 pct_increase, pct_decrease, abs_increase)";
    let refused = |why: String| usage(format!("{text:?}: {why}"));
    let (key, value) = text.split_once('>').ok_or_else(|| refused(form.into()))?;
    let (metric, op) = key.trim().split_once(':').ok_or_else(|| refused(form.into()))?;
    let metric = Metric::parse(metric.trim()).ok_or_else(|| refused(format!("unknown metric {metric:?}; {form}")))?;
    let op = Op::parse(op.trim()).ok_or_else(|| refused(format!("unknown op {op:?}; {form}")))?;
    if op == Op::ChangePoint {
        return Err(refused("a change point needs a schedule's history; one run has none".into()));
    }
    let value: f64 = value.trim().parse().map_err(|_| refused(format!("{value:?} is not a number")))?;
    Ok(Threshold { metric, op, value, severity: Severity::Critical, test: None })
}

/// The schedule-shaped rules a comparison is judged by, validated as a schedule's are.
pub fn rules(thresholds: &[Threshold], alpha: f64) -> Result<ScheduleInput, CliError> {
    let input = ScheduleInput {
        name: "bench --against".into(),
        set_id: BenchmarkSetId(uuid::Uuid::nil()),
        connector_id: ConnectorId(uuid::Uuid::nil()),
        enabled: true,
        cadence: Cadence::Daily,
        notify: Default::default(),
        thresholds: thresholds.to_vec(),
        alpha,
        require_significance: true,
        workload_id: None,
        // A TTFT threshold is judged when both runs streamed, and not measurable otherwise (said per threshold).
        stream: thresholds.iter().any(|t| t.metric.is_streamed()),
        policy: Default::default(),
    };
    input.validate().map_err(|e| {
        // `thresholds.0.value` is the first --threshold's value.
        let mut parts = e.field.splitn(3, '.');
        let field = match (parts.next(), parts.next().and_then(|i| i.parse::<usize>().ok())) {
            (Some("thresholds"), Some(i)) => format!("--threshold {} ({})", i + 1, thresholds[i].key()),
            (Some("alpha"), _) => "--alpha".to_string(),
            _ => e.field.clone(),
        };
        usage(format!("{field}: {}", e.reason))
    })
}

/// The baseline's report: `against` names a snapshot file when one exists at that path, else a run id, read from
/// `server` (with `token`) or the app's database.
pub async fn load_baseline(
    against: &str,
    server: Option<(&str, &str)>,
    config: Option<&Path>,
) -> Result<ReportSnapshot, CliError> {
    let path = Path::new(against);
    if path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
        return serde_json::from_str(&text)
            .map_err(|e| usage(format!("{} is not a report snapshot (bench --out): {e}", path.display())));
    }
    let id: RunId = against
        .parse()
        .map_err(|_| usage(format!("--against {against:?} is neither a snapshot file nor a run id (a UUID)")))?;
    match server {
        Some((server, token)) => {
            let remote = crate::cli::remote::RemoteServer::new(server, token)?;
            let report: crate::runs::api::RunReport =
                remote.call("runs/report", &serde_json::json!({ "id": id })).await?;
            Ok(report.snapshot)
        }
        None => {
            let settings = crate::config::Settings::load(config).map_err(usage)?;
            settings.require_existing_data().map_err(usage)?;
            let store = crate::store::Store::connect(&settings.database_url).await.map_err(usage)?;
            let found = match store.run_workspace(id).await {
                Ok(workspace) => store.run_report(workspace, id).await.map(|(_, snapshot, _)| snapshot),
                Err(e) => Err(e),
            };
            store.close().await;
            found.map_err(|e| usage(format!("baseline run {id}: {e}")))
        }
    }
}

/// The run (`current`) judged against `baseline` by `rules`.
pub fn compare(rules: &ScheduleInput, baseline: &ReportSnapshot, current: &ReportSnapshot) -> Decision {
    let (baseline_totals, baseline_summary) = observe(&baseline.results);
    let pinned = Reference {
        total_ms: baseline_totals,
        summary: baseline_summary,
        streamed: streamed_samples(&baseline.results),
        from: ReferenceFrom::Pinned { baseline_id: BaselineId(uuid::Uuid::nil()), run_id: RunId(uuid::Uuid::nil()) },
    };
    let (totals, summary) = observe(&current.results);
    let lag1 = send_order_lag1(&current.results, &baseline.results);
    decide_run(rules, &pinned, (&totals, &summary), streamed_samples(&current.results).as_ref(), lag1, &[])
}

/// Prints each threshold's verdict; why the comparison fails the pipeline, if it does.
pub fn print_decision(decision: &Decision) -> Option<String> {
    let (n_baseline, n_run) = decision.n;
    let p = decision.p_value.map_or("n/a (fewer than 2 successful requests on a side)".into(), crate::report::p_value);
    println!("against        {n_baseline} baseline / {n_run} run successful requests, Welch p = {p}");
    for check in &decision.checks {
        let t = check.threshold;
        let mark = if check.breached { "BREACHED" } else { "ok" };
        println!("threshold      {}:{}>{} {mark}: {}", t.metric.as_str(), t.op.as_str(), t.value, check.reason);
    }
    let breached: Vec<String> = decision.breaches.iter().map(|b| b.key()).collect();
    (!breached.is_empty()).then(|| format!("regression against the baseline: {}", breached.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_parse_and_bad_ones_say_what_is_expected() {
        let t = parse_threshold("p95_ms:pct_increase>10").unwrap();
        assert_eq!((t.metric, t.op, t.value), (Metric::P95Ms, Op::PctIncrease, 10.0));
        assert_eq!(parse_threshold(" tok_s : pct_decrease > 5.5 ").unwrap().value, 5.5);
        assert!(parse_threshold("p95_ms>10").unwrap_err().to_string().contains("METRIC:OP>VALUE"));
        assert!(parse_threshold("p99_ms:pct_increase>10")
            .unwrap_err()
            .to_string()
            .contains("unknown metric \"p99_ms\""));
        assert!(parse_threshold("p95_ms:more>10").unwrap_err().to_string().contains("unknown op \"more\""));
        assert!(parse_threshold("p95_ms:pct_increase>ten")
            .unwrap_err()
            .to_string()
            .contains("\"ten\" is not a number"));
        assert!(parse_threshold("p95_ms:change_point>10")
            .unwrap_err()
            .to_string()
            .contains("needs a schedule's history"));
        let negative = rules(&[parse_threshold("p95_ms:pct_increase>-1").unwrap()], 0.05).err().unwrap();
        assert_eq!(negative.to_string(), "--threshold 1 (p95_ms:pct_increase): must be a number above 0");
        assert!(rules(&[parse_threshold("p95_ms:pct_increase>1").unwrap()], 0.9).is_err(), "alpha out of range");
    }
}
