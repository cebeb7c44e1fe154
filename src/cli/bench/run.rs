//! Measuring: one run in this process (results spilled to disk), one on a server followed live, or `--repeat`
//! runs; then `--out`, the printed summary and the verdict.

use std::io::Write;

use super::against::{compare, load_baseline, parse_threshold, print_decision, rules};
use super::plan::plan_input;
use super::print::{
    missed_objectives, print_goodput, print_repeated, print_repetition, print_summary, print_validity, print_workload,
};
use super::{verdict, BenchArgs, BenchResult, INVALID_EXIT};
use crate::cli::progress::{Piped, Progress};
use crate::cli::remote::RemoteServer;
use crate::cli::{passed, usage, CliError};
use crate::engine::HttpClient;
use crate::model::{IterationRecord, Measurement, RunStatus, RunView};
use crate::runs::report::snapshot;
use crate::runs::service::{execute, BatchSink, RecordSpill, SinkError};
use crate::stats::RunSummary;

/// A run in this process: finished iterations go to a file on disk, so memory stays flat however long the run
/// (they are read back once, for the report), and progress is printed.
struct LocalSink {
    progress: Progress,
    records: RecordSpill,
}

impl BatchSink for LocalSink {
    async fn accept(&mut self, batch: Vec<(IterationRecord, Measurement)>) -> Result<(), SinkError> {
        for (record, _) in &batch {
            self.records.push(record).map_err(SinkError::Spill)?;
        }
        let errors = batch.iter().filter(|(r, _)| r.error.is_some()).count() as u64;
        self.progress.add(batch.len() as u64, errors);
        Ok(())
    }
}

/// One measured run: what it was, its report snapshot and summary.
struct Measured {
    run: RunView,
    snapshot: crate::runs::report::ReportSnapshot,
    summary: RunSummary,
}

/// Runs the benchmark described by `args` (here, or on `--server`; `--repeat` times); prints as it goes. Exit
/// status 1 when the run fails the pipeline (said on stderr).
pub async fn run(args: BenchArgs, config: Option<&std::path::Path>) -> Result<std::process::ExitCode, CliError> {
    let allow_invalid = args.allow_invalid;
    let result = measure_and_judge(args, config).await?;
    if let Some(why) = &result.failure {
        eprintln!("{why}; failing");
        return Ok(passed(false));
    }
    match &result.invalid {
        Some(why) if !allow_invalid => {
            eprintln!("the run's figures are {why}; failing with status {INVALID_EXIT} (--allow-invalid to pass)");
            Ok(std::process::ExitCode::from(INVALID_EXIT))
        }
        _ => Ok(passed(true)),
    }
}

/// The run (or runs) measured, printed and judged.
async fn measure_and_judge(args: BenchArgs, config: Option<&std::path::Path>) -> Result<BenchResult, CliError> {
    if args.repeat > 1 {
        return run_repeated(&args, config).await;
    }
    // The rules and the baseline are read before anything is sent: a typo fails at once, not after the run.
    let against = match &args.against {
        Some(against) => {
            let thresholds: Vec<_> = args.thresholds.iter().map(|t| parse_threshold(t)).collect::<Result<_, _>>()?;
            let rules = rules(&thresholds, args.alpha)?;
            let server = args.server.as_deref().zip(args.token.as_deref());
            Some((rules, load_baseline(against, server, config).await?))
        }
        None => None,
    };
    let Measured { run, snapshot, summary } = measure(&args, config).await?;
    let mut result = finish(&args, &run, &snapshot, summary)?;
    if let Some((rules, baseline)) = against {
        let regression = print_decision(&compare(&rules, &baseline, &snapshot));
        result.failure = result.failure.or(regression);
    }
    Ok(result)
}

/// One run, here or on `--server`.
async fn measure(args: &BenchArgs, config: Option<&std::path::Path>) -> Result<Measured, CliError> {
    match (&args.server, &args.token) {
        (Some(server), Some(token)) => measure_on_server(args, server, token).await,
        _ => measure_here(args, config).await,
    }
}

/// One run in this process.
async fn measure_here(args: &BenchArgs, config: Option<&std::path::Path>) -> Result<Measured, CliError> {
    let endpoint = args.endpoint.resolve(config).await?;
    let plan = plan_input(args)?.validate(&endpoint.model).map_err(|e| usage(format!("{}: {}", e.field, e.reason)))?;
    let started_ms = crate::clock::Clock::now_ms(&crate::clock::SystemClock);
    let client = HttpClient::new().map_err(|e| CliError::Failed(e.to_string()))?;
    let cancel = crate::cli::cancelled_by_ctrl_c();
    let records =
        RecordSpill::new().map_err(|e| CliError::Failed(format!("a temporary file for the iterations: {e}")))?;
    let progress = Progress::new(plan.total_requests(), args.duration, Piped::Tenths);
    let mut sink = LocalSink { progress, records };
    let (id, mut execution) = endpoint.execution(plan.clone(), client, cancel.clone());
    execution.tokenizer_file = args.workload.tokenizer.clone();
    let outcome = execute(execution, &mut sink).await;
    sink.progress.finish();
    let mut records =
        sink.records.read_all().map_err(|e| CliError::Failed(format!("reading back the run's iterations: {e}")))?;
    records.sort_by_key(|r| r.seq);
    let run = RunView {
        id,
        title: plan.title.clone(),
        status: match (&outcome.failure, cancel.is_cancelled()) {
            (Some(_), _) => RunStatus::Failed,
            (None, true) => RunStatus::Cancelled,
            (None, false) => RunStatus::Completed,
        },
        total_requests: plan.total_requests(),
        plan,
        base_url: endpoint.target.base_url.as_str().to_string(),
        model: endpoint.model,
        input_price_per_mtok: endpoint.prices.0,
        output_price_per_mtok: endpoint.prices.1,
        stream_options_rejected: outcome.stream_options_rejected,
        opened_ahead: outcome.opened_ahead,
        prompt_tokenizer: outcome.prompt_tokenizer,
        client_load: outcome.client_load,
        fingerprint: outcome.fingerprint,
        headline: None,
        failure: outcome.failure,
        created_at_ms: started_ms,
        finished_at_ms: Some(crate::clock::Clock::now_ms(&crate::clock::SystemClock)),
    };
    let (snapshot, summary) = snapshot(&run, records);
    Ok(Measured { run, snapshot, summary })
}

/// `--out` of a repeated run.
#[derive(serde::Serialize)]
struct RepeatedOut<'a> {
    repeated: &'a crate::capacity::report::RepeatedReport,
    runs: &'a [crate::runs::report::ReportSnapshot],
}

/// Writes `value` as pretty JSON to `path`, straight to the file (a long run's snapshot is never held as one
/// string).
fn write_json(path: &std::path::Path, value: &impl serde::Serialize) -> Result<(), CliError> {
    let failed = |e: &dyn std::fmt::Display| CliError::Failed(format!("--out {}: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(|e| failed(&e))?;
    let mut writer = std::io::BufWriter::with_capacity(1 << 16, file);
    serde_json::to_writer_pretty(&mut writer, value).map_err(|e| failed(&e))?;
    writer.flush().map_err(|e| failed(&e))
}

/// Writes `--out`, prints the summary and judges the run.
fn finish(
    args: &BenchArgs,
    run: &RunView,
    snapshot: &crate::runs::report::ReportSnapshot,
    summary: RunSummary,
) -> Result<BenchResult, CliError> {
    if let Some(path) = &args.out {
        write_json(path, snapshot)?;
    }
    if let Some(validity) = &snapshot.validity {
        print_validity(validity);
    }
    print_summary(run, &summary, &snapshot.results);
    if let Some(workload) = &snapshot.workload {
        print_workload(workload);
    }
    let missed = snapshot.stats.goodput.as_ref().map(print_goodput).unwrap_or_default();
    let failure = verdict(run, &summary, args.max_error_rate)
        .or_else(|| (!missed.is_empty()).then(|| format!("objective(s) missed: {}", missed.join(", "))));
    Ok(BenchResult { failure, summary, invalid: invalid_reasons(snapshot) })
}

/// `invalid: samples, schedule` when the snapshot's verdict is invalid.
fn invalid_reasons(snapshot: &crate::runs::report::ReportSnapshot) -> Option<String> {
    snapshot.validity.as_ref().filter(|v| v.verdict == crate::model::Verdict::Invalid).map(|v| v.headline())
}

/// The run on a server: started there with the token, followed over its live events (Ctrl-C stops it there too),
/// its report read back; the summary, `--out` and the verdict as for a run here.
async fn measure_on_server(args: &BenchArgs, server: &str, token: &str) -> Result<Measured, CliError> {
    let remote = std::sync::Arc::new(RemoteServer::new(server, token)?);
    let mut input = plan_input(args)?;
    input.connector_id = args.endpoint.connector.ok_or_else(|| usage("--server needs --connector"))?;
    let started: RunView = remote.call("runs/start", &serde_json::json!({ "input": input })).await?;
    eprintln!("run {} started on {server}", started.id);
    let (stopper, id) = (std::sync::Arc::clone(&remote), started.id);
    let ctrl_c = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("stopping the run on the server…");
            let _ = stopper.call::<bool>("runs/cancel", &serde_json::json!({ "id": id })).await;
        }
    });
    let mut progress = Progress::new(started.total_requests, args.duration, Piped::Tenths);
    let followed = remote
        .follow_run(id, |update| {
            progress.set(update.progress.done, update.progress.errors);
        })
        .await;
    ctrl_c.abort();
    progress.finish();
    followed?;
    let report: crate::runs::api::RunReport = remote.call("runs/report", &serde_json::json!({ "id": id })).await?;
    Ok(Measured { run: report.run, snapshot: report.snapshot, summary: report.summary })
}

/// `--repeat R`: R runs, one after another (with `--pause` between), each printed in a line; then every figure
/// over the repetitions, `--out` as `{"repeated": …, "runs": [snapshot, …]}`, and the verdict: the first
/// repetition that fails the pipeline fails it. An interrupted or failed repetition ends the series.
async fn run_repeated(args: &BenchArgs, config: Option<&std::path::Path>) -> Result<BenchResult, CliError> {
    if !(args.pause.is_finite() && (0.0..=86_400.0).contains(&args.pause)) {
        return Err(usage("--pause must be between 0 and 86400 seconds"));
    }
    let mut snapshots = Vec::new();
    let (mut failure, mut invalid) = (None, None);
    for i in 1..=args.repeat {
        eprintln!("repetition {i}/{}", args.repeat);
        let Measured { run, snapshot, summary } = measure(args, config).await?;
        print_repetition(i, &summary, snapshot.validity.as_ref());
        if let Some(why) = invalid_reasons(&snapshot) {
            invalid.get_or_insert(format!("{why} (repetition {i})"));
        }
        let missed = snapshot.stats.goodput.as_ref().map(missed_objectives).unwrap_or_default();
        let why = verdict(&run, &summary, args.max_error_rate)
            .or_else(|| (!missed.is_empty()).then(|| format!("objective(s) missed: {}", missed.join(", "))));
        let ended = run.status != RunStatus::Completed;
        if let Some(why) = why {
            failure.get_or_insert(format!("repetition {i}: {why}"));
        }
        snapshots.push(snapshot);
        if ended {
            break;
        }
        if i < args.repeat && args.pause > 0.0 {
            tokio::time::sleep(std::time::Duration::from_secs_f64(args.pause)).await;
        }
    }
    let repetitions: Vec<crate::capacity::report::Repetition> =
        snapshots.iter().map(crate::capacity::report::Repetition::of_snapshot).collect();
    let report = crate::capacity::report::repeated_report(&repetitions);
    print_repeated(&report);
    if let Some(path) = &args.out {
        write_json(path, &RepeatedOut { repeated: &report, runs: &snapshots })?;
    }
    let pooled: Vec<IterationRecord> = snapshots.into_iter().flat_map(|s| s.results).collect();
    Ok(BenchResult { summary: crate::stats::summarize(&pooled), failure, invalid })
}
