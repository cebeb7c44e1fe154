//! `latency-guard bench`: a run from the command line, for CI pipelines. Same engine, driver and report snapshot
//! as the server; progress on stderr, a summary table on stdout, the snapshot as JSON to `--out`, and an exit
//! status that fails the pipeline when too many requests failed. Finished iterations wait on disk until the report
//! is made, so a long run's memory stays flat. With `--server URL --token …` the run happens on a
//! running server instead (stored there, in the token's workspace) and is followed from here.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::command_endpoint::{Endpoint, EndpointArgs, PromptArgs};
use crate::engine::HttpClient;
use crate::model::{
    Agent, ConnectionPolicy, ConnectorId, IterationRecord, LoadMode, Measurement, RunId, RunPlanInput, RunStatus,
    RunView,
};
use crate::remote::RemoteServer;
use crate::report::snapshot;
use crate::runs::{execute, seed_from, BatchSink, Execution, RecordSpill, SinkError};
use crate::stats::RunSummary;

/// The command's options.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// The endpoint.
    #[command(flatten)]
    pub endpoint: EndpointArgs,
    /// Run on this running server (its URL, e.g. https://bench.example.com) instead of in this process: the run is
    /// stored there, in the token's workspace, like one started from the browser.
    #[arg(long, requires_all = ["connector", "token"], value_name = "URL")]
    pub server: Option<String>,
    /// An API token of that server (Settings → API tokens); better given as the environment variable.
    #[arg(long, env = "LATENCY_GUARD_TOKEN", hide_env_values = true, requires = "server")]
    pub token: Option<String>,
    /// The prompts.
    #[command(flatten)]
    pub prompts: PromptArgs,
    /// Measured iterations per prompt (default 10; with --duration, as many as the time allows, up to the limit of
    /// a run).
    #[arg(short = 'n', long)]
    pub iterations: Option<u32>,
    /// A time limit, seconds: no request is sent once this long has passed since the first measured send (requests
    /// in flight then finish, each within --timeout); -n is then an upper bound.
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Requests in flight (closed loop).
    #[arg(short = 'c', long, default_value_t = 1, conflicts_with = "rate")]
    pub concurrency: u32,
    /// Requests per second (open loop) instead of a closed loop.
    #[arg(long)]
    pub rate: Option<f64>,
    /// Poisson arrivals for --rate.
    #[arg(long, requires = "rate")]
    pub poisson: bool,
    /// Requests in flight at most with --rate.
    #[arg(long, default_value_t = 256)]
    pub max_concurrency: u32,
    /// max_tokens of each request.
    #[arg(long, default_value_t = 512)]
    pub max_tokens: u32,
    /// Do not stream (TTFT is then not measurable).
    #[arg(long)]
    pub no_stream: bool,
    /// Warm-up requests, excluded from statistics.
    #[arg(long, default_value_t = 0)]
    pub warmup: u32,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 120.0)]
    pub timeout: f64,
    /// Where to write the report snapshot (JSON).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Retries of a rate-limited (429) request, honouring Retry-After.
    #[arg(long, default_value_t = 0)]
    pub retries: u32,
    /// Fail (exit 1) when the error rate is above this fraction.
    #[arg(long, default_value_t = 0.0)]
    pub max_error_rate: f64,
    /// Open a fresh connection for every request (connection set-up is then part of every latency).
    #[arg(long)]
    pub fresh_connections: bool,
    /// An objective, e.g. `ttft_ms<=500` (every request) or `tpot_p95_ms<=50` (a percentile); repeatable. The
    /// summary shows goodput and each objective's outcome, and a missed objective fails the command (exit 1).
    #[arg(long = "slo", value_name = "OBJECTIVE")]
    pub slos: Vec<String>,
    /// Run the benchmark R times: figures are then reported as mean, 95 % interval and run-to-run variation over
    /// the repetitions, with a warning when they disagree beyond noise.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// Seconds to wait between repetitions.
    #[arg(long, default_value_t = 0.0, requires = "repeat")]
    pub pause: f64,
}

/// Why the command could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// An option is invalid.
    #[error("{0}")]
    Invalid(String),
    /// A file could not be read or written.
    #[error("{0}")]
    Io(String),
}

/// What the run gave: the summary and, when it must fail the pipeline, why.
pub struct BenchResult {
    /// Figures.
    pub summary: RunSummary,
    /// `None`: the run passes. Otherwise why it fails: it stopped early, measured nothing, was interrupted, or its
    /// error rate is above `--max-error-rate`.
    pub failure: Option<String>,
}

/// Why a finished bench run fails a pipeline, if it does: a gate that measured nothing must not pass.
fn verdict(run: &RunView, summary: &RunSummary, max_error_rate: f64) -> Option<String> {
    if let Some(failure) = &run.failure {
        return Some(format!("the run failed: {failure}"));
    }
    if run.status == RunStatus::Cancelled {
        return Some("the run was interrupted before every request was sent".into());
    }
    if summary.measured == 0 {
        return Some("no request was measured".into());
    }
    (summary.error_rate > max_error_rate).then(|| {
        format!(
            "error rate {:.2}% is above --max-error-rate ({:.2}%)",
            summary.error_rate * 100.0,
            max_error_rate * 100.0
        )
    })
}

fn invalid(e: impl std::fmt::Display) -> BenchError {
    BenchError::Invalid(e.to_string())
}

fn plan_input(args: &BenchArgs) -> Result<RunPlanInput, BenchError> {
    let prompts = args.prompts.read().map_err(BenchError::Io)?;
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(invalid("--timeout must be a positive number of seconds"));
    }
    if !(0.0..=1.0).contains(&args.max_error_rate) {
        return Err(invalid("--max-error-rate must be between 0 and 1"));
    }
    let mode = match args.rate {
        Some(rate) => {
            LoadMode::Open { rate_per_second: rate, poisson: args.poisson, max_concurrency: args.max_concurrency }
        }
        None => LoadMode::Closed { concurrency: args.concurrency },
    };
    Ok(RunPlanInput {
        connector_id: ConnectorId(uuid::Uuid::nil()),
        title: None,
        agent: Agent {
            name: "cli".into(),
            system_prompt: args.prompts.system.clone(),
            tools: vec![],
            token_budget: args.max_tokens,
        },
        iterations: match (args.iterations, args.duration) {
            (Some(n), _) => n,
            // The time decides: as many iterations as one run may send.
            (None, Some(_)) => {
                u32::try_from(crate::model::limits::MAX_REQUESTS / prompts.len().max(1) as u64).unwrap_or(u32::MAX)
            }
            (None, None) => 10,
        },
        prompts,
        warmup: args.warmup,
        mode,
        timeout_ms: Some((args.timeout * 1e3).round() as u64),
        stream: !args.no_stream,
        temperature: 0.0,
        retries: args.retries,
        connections: if args.fresh_connections { ConnectionPolicy::Fresh } else { ConnectionPolicy::Reuse },
        slos: args.slos.clone(),
        duration_s: args.duration,
    })
}

/// Prints progress to stderr: a redrawn bar on a terminal, a line per tenth otherwise.
struct Progress {
    total: u64,
    /// A time limit, s: progress is then the time passed, not the requests done (the total is only a cap).
    limit_s: Option<f64>,
    done: u64,
    errors: u64,
    started: Instant,
    terminal: bool,
    last_tenth: u64,
}

/// A run in this process: finished iterations go to a file on disk, so memory stays flat however long the run
/// (they are read back once, for the report), and progress is printed.
struct LocalSink {
    progress: Progress,
    records: RecordSpill,
}

impl BatchSink for LocalSink {
    async fn accept(&mut self, batch: Vec<(IterationRecord, Measurement)>) -> Result<(), SinkError> {
        self.progress.done += batch.len() as u64;
        self.progress.errors += batch.iter().filter(|(r, _)| r.error.is_some()).count() as u64;
        for (record, _) in &batch {
            self.records.push(record).map_err(SinkError::Spill)?;
        }
        self.progress.print();
        Ok(())
    }
}

impl Progress {
    fn new(total: u64, limit_s: Option<f64>) -> Self {
        Self {
            total,
            limit_s,
            done: 0,
            errors: 0,
            started: Instant::now(),
            terminal: std::io::stderr().is_terminal(),
            last_tenth: 0,
        }
    }

    fn print(&mut self) {
        if self.done == 0 {
            return;
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        // Progress in thousandths: of the requests, or of the time limit.
        let (share, line) = match self.limit_s {
            Some(limit) => (
                ((elapsed / limit).min(1.0) * 1000.0) as u64,
                format!("{} done, {} failed, {elapsed:.1}s of {limit}s", self.done, self.errors),
            ),
            None => {
                let eta = elapsed / self.done as f64 * (self.total - self.done) as f64;
                (
                    self.done * 1000 / self.total.max(1),
                    format!(
                        "{}/{} done, {} failed, {elapsed:.1}s elapsed, ~{eta:.1}s left",
                        self.done, self.total, self.errors
                    ),
                )
            }
        };
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let filled = (share * 30 / 1000).min(30) as usize;
            let _ = write!(err, "\r[{}{}] {line}   ", "#".repeat(filled), ".".repeat(30 - filled));
        } else if share / 100 > self.last_tenth || self.done == self.total {
            self.last_tenth = share / 100;
            let _ = writeln!(err, "{line}");
        }
    }
}

/// One measured run: what it was, its report snapshot and summary.
struct Measured {
    run: RunView,
    snapshot: crate::report::ReportSnapshot,
    summary: RunSummary,
}

/// Runs the benchmark described by `args` (here, or on `--server`; `--repeat` times); prints as it goes.
pub async fn run(args: BenchArgs, config: Option<&std::path::Path>) -> Result<BenchResult, BenchError> {
    if args.repeat > 1 {
        return run_repeated(&args, config).await;
    }
    let Measured { run, snapshot, summary } = measure(&args, config).await?;
    finish(&args, &run, &snapshot, summary)
}

/// One run, here or on `--server`.
async fn measure(args: &BenchArgs, config: Option<&std::path::Path>) -> Result<Measured, BenchError> {
    match (&args.server, &args.token) {
        (Some(server), Some(token)) => measure_on_server(args, server, token).await,
        _ => measure_here(args, config).await,
    }
}

/// One run in this process.
async fn measure_here(args: &BenchArgs, config: Option<&std::path::Path>) -> Result<Measured, BenchError> {
    let Endpoint { target, model, prices } = args.endpoint.resolve(config).await.map_err(BenchError::Invalid)?;
    let plan = plan_input(args)?.validate(&model).map_err(|e| invalid(format!("{}: {}", e.field, e.reason)))?;
    let id = RunId(uuid::Uuid::new_v4());
    let started_ms = crate::clock::Clock::now_ms(&crate::clock::SystemClock);
    let client = HttpClient::new().map_err(invalid)?;
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.cancel();
        }
    });
    let records =
        RecordSpill::new().map_err(|e| BenchError::Io(format!("a temporary file for the iterations: {e}")))?;
    let mut sink = LocalSink { progress: Progress::new(plan.total_requests(), args.duration), records };
    let execution = Execution {
        plan: Arc::new(plan.clone()),
        target: target.clone(),
        model: model.clone(),
        client,
        seed: seed_from(&id.0),
        cancel: cancel.clone(),
        prices,
    };
    let outcome = execute(execution, &mut sink).await;
    if sink.progress.terminal {
        eprintln!();
    }
    let mut records =
        sink.records.read_all().map_err(|e| BenchError::Io(format!("reading back the run's iterations: {e}")))?;
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
        base_url: target.base_url.as_str().to_string(),
        model,
        input_price_per_mtok: prices.0,
        output_price_per_mtok: prices.1,
        stream_options_rejected: outcome.stream_options_rejected,
        opened_ahead: outcome.opened_ahead,
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
    repeated: &'a crate::report::RepeatedReport,
    runs: &'a [crate::report::ReportSnapshot],
}

/// Writes `value` as pretty JSON to `path`, straight to the file (a long run's snapshot is never held as one
/// string).
fn write_json(path: &std::path::Path, value: &impl serde::Serialize) -> Result<(), BenchError> {
    let failed = |e: &dyn std::fmt::Display| BenchError::Io(format!("--out {}: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(|e| failed(&e))?;
    let mut writer = std::io::BufWriter::with_capacity(1 << 16, file);
    serde_json::to_writer_pretty(&mut writer, value).map_err(|e| failed(&e))?;
    writer.flush().map_err(|e| failed(&e))
}

/// Writes `--out`, prints the summary and judges the run.
fn finish(
    args: &BenchArgs,
    run: &RunView,
    snapshot: &crate::report::ReportSnapshot,
    summary: RunSummary,
) -> Result<BenchResult, BenchError> {
    if let Some(path) = &args.out {
        write_json(path, snapshot)?;
    }
    print_summary(run, &summary);
    let missed = snapshot.stats.goodput.as_ref().map(print_goodput).unwrap_or_default();
    let failure = verdict(run, &summary, args.max_error_rate)
        .or_else(|| (!missed.is_empty()).then(|| format!("objective(s) missed: {}", missed.join(", "))));
    Ok(BenchResult { failure, summary })
}

/// The run on a server: started there with the token, followed over its live events (Ctrl-C stops it there too),
/// its report read back; the summary, `--out` and the verdict as for a run here.
async fn measure_on_server(args: &BenchArgs, server: &str, token: &str) -> Result<Measured, BenchError> {
    let remote = std::sync::Arc::new(RemoteServer::new(server, token).map_err(invalid)?);
    let mut input = plan_input(args)?;
    input.connector_id = args.endpoint.connector.ok_or_else(|| invalid("--server needs --connector"))?;
    let started: RunView = remote.call("runs/start", &serde_json::json!({ "input": input })).await.map_err(invalid)?;
    eprintln!("run {} started on {server}", started.id);
    let (stopper, id) = (std::sync::Arc::clone(&remote), started.id);
    let ctrl_c = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("stopping the run on the server…");
            let _ = stopper.call::<bool>("runs/cancel", &serde_json::json!({ "id": id })).await;
        }
    });
    let mut progress = Progress::new(started.total_requests, args.duration);
    let followed = remote
        .follow_run(id, |update| {
            progress.done = update.progress.done;
            progress.errors = update.progress.errors;
            progress.print();
        })
        .await;
    ctrl_c.abort();
    if progress.terminal {
        eprintln!();
    }
    followed.map_err(invalid)?;
    let report: crate::api::runs::RunReport =
        remote.call("runs/report", &serde_json::json!({ "id": id })).await.map_err(invalid)?;
    Ok(Measured { run: report.run, snapshot: report.snapshot, summary: report.summary })
}

/// `--repeat R`: R runs, one after another (with `--pause` between), each printed in a line; then every figure
/// over the repetitions, `--out` as `{"repeated": …, "runs": [snapshot, …]}`, and the verdict: the first
/// repetition that fails the pipeline fails it. An interrupted or failed repetition ends the series.
async fn run_repeated(args: &BenchArgs, config: Option<&std::path::Path>) -> Result<BenchResult, BenchError> {
    if !(args.pause.is_finite() && (0.0..=86_400.0).contains(&args.pause)) {
        return Err(invalid("--pause must be between 0 and 86400 seconds"));
    }
    let mut snapshots = Vec::new();
    let mut failure = None;
    for i in 1..=args.repeat {
        eprintln!("repetition {i}/{}", args.repeat);
        let Measured { run, snapshot, summary } = measure(args, config).await?;
        print_repetition(i, &summary);
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
    let repetitions: Vec<crate::report::Repetition> =
        snapshots.iter().map(crate::report::Repetition::of_snapshot).collect();
    let report = crate::report::repeated_report(&repetitions);
    print_repeated(&report);
    if let Some(path) = &args.out {
        write_json(path, &RepeatedOut { repeated: &report, runs: &snapshots })?;
    }
    let pooled: Vec<IterationRecord> = snapshots.into_iter().flat_map(|s| s.results).collect();
    Ok(BenchResult { summary: crate::stats::summarize(&pooled), failure })
}

fn print_repetition(i: u32, s: &RunSummary) {
    let p50 = |p: Option<crate::stats::Percentiles>| p.map_or_else(|| "—".to_string(), |p| format!("{:.1}", p.p50));
    println!(
        "repetition {i:<3} {} measured, TTFT p50 {} ms, total p50 {} ms, {} output tok/s, {:.2}% failed",
        s.measured,
        p50(s.ttft),
        p50(s.total),
        s.tok_per_sec.map_or_else(|| "—".to_string(), |t| format!("{t:.1}")),
        s.error_rate * 100.0
    );
}

/// The figures over the repetitions: mean, 95 % interval, CV and each repetition's value; then the notes.
fn print_repeated(report: &crate::report::RepeatedReport) {
    println!("{:<16} {:>10} {:>23} {:>7}   values", "over repetitions", "mean", "95% interval", "CV");
    for (name, f) in &report.figures {
        let interval = match (f.ci_low, f.ci_high) {
            (Some(low), Some(high)) => format!("{low:.2} to {high:.2}"),
            _ => "—".to_string(),
        };
        let cv = f.cv.map_or_else(|| "—".to_string(), |cv| format!("{:.1}%", cv * 100.0));
        let values: Vec<String> = f.values.iter().map(|v| format!("{v:.2}")).collect();
        println!("{name:<16} {:>10.2} {interval:>23} {cv:>7}   {}", f.mean, values.join(", "));
    }
    for note in &report.notes {
        println!("note: {note}");
    }
}

/// Prints goodput and each objective's outcome; the objectives missed.
fn print_goodput(g: &crate::stats::Goodput) -> Vec<String> {
    let rate = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v:.2}"));
    println!(
        "{:<14} {}/s good of {}/s ({:.1}% good), good output tok/s {}",
        "goodput",
        rate(g.good_requests_per_sec),
        rate(g.requests_per_sec),
        g.good_fraction * 100.0,
        rate(g.good_output_tokens_per_sec)
    );
    for o in &g.objectives {
        let detail = match (o.measured_ms, o.met_fraction) {
            (Some(v), _) => format!("{v:.1} ms"),
            (_, Some(f)) => format!("met by {:.1}% of requests", f * 100.0),
            _ => "not measurable".into(),
        };
        println!("{:<14} {} {} ({detail})", "objective", o.slo.spelled(), if o.met { "met" } else { "MISSED" });
    }
    missed_objectives(g)
}

/// The objectives a run missed, as written.
fn missed_objectives(g: &crate::stats::Goodput) -> Vec<String> {
    g.objectives.iter().filter(|o| !o.met).map(|o| o.slo.spelled()).collect()
}

fn print_summary(run: &RunView, s: &RunSummary) {
    let row = |name: &str, p: Option<crate::stats::Percentiles>| match p {
        Some(p) => println!("{name:<14} p50 {:>9.1}   p95 {:>9.1}   p99 {:>9.1}", p.p50, p.p95, p.p99),
        None => println!("{name:<14} not measurable"),
    };
    println!("{} ({} at {})", run.title, run.model, run.base_url);
    println!("{:<14} {} measured ({} ok, {} failed)", "requests", s.measured, s.succeeded, s.measured - s.succeeded);
    row("TTFT ms", s.ttft);
    row("total ms", s.total);
    row("TPOT ms", s.tpot);
    row("ITL ms", s.itl);
    match s.tok_per_sec {
        Some(t) => println!("{:<14} {t:.1}", "output tok/s"),
        None => println!("{:<14} not measurable", "output tok/s"),
    }
    println!("{:<14} {:.2}%", "error rate", s.error_rate * 100.0);
    println!("percentiles: {}", crate::stats::PERCENTILE_METHOD);
}
