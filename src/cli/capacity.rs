//! `latency-guard capacity`: the highest concurrency (or rate) at which the objectives hold, found from the
//! command line. Levels run in this process through the same engine and driver as every run; progress goes to
//! stderr, the levels and the answer to stdout, the whole search as JSON to `--out`. Exit status for CI: 0 when a
//! level passed (and the answer reaches `--require`), 1 when none did or the answer is short of it, 2 when the
//! search could not run.

use std::path::PathBuf;
use std::process::ExitCode;
use tokio_util::sync::CancellationToken;

use super::endpoint::{Endpoint, EndpointArgs, PromptArgs};
use super::progress::{Piped, Progress};
use super::{passed, usage, CliError};
use crate::capacity::judge::{Criteria, LevelRun};
use crate::capacity::model::{LevelPlan, LoadAxis, SearchSpace};
use crate::capacity::report::{CapacityLevel, CapacityReport};
use crate::capacity::service::{sweep, CapacitySpec, LevelError, LevelRunner, SearchEvent, SweepError};
use crate::engine::HttpClient;
use crate::model::{
    parse_slos, Agent, ConnectionPolicy, ConnectorId, IterationRecord, LoadMode, Measurement, RunPlanInput,
};
use crate::runs::service::{execute, BatchSink, SinkError};

/// The command's options.
#[derive(Debug, clap::Args)]
pub struct CapacityArgs {
    /// The endpoint.
    #[command(flatten)]
    pub endpoint: EndpointArgs,
    /// The prompts.
    #[command(flatten)]
    pub prompts: PromptArgs,
    /// Or a workload: each level sends its number of the workload's requests, seeded afresh.
    #[command(flatten)]
    pub workload: super::endpoint::WorkloadArgs,
    /// An objective every level must meet, e.g. `ttft_p95_ms<=500` or `total_ms<=8000`; repeatable, at least one.
    #[arg(long = "slo", value_name = "OBJECTIVE", required = true)]
    pub slos: Vec<String>,
    /// Search open-loop rates (requests per second) instead of concurrency.
    #[arg(long)]
    pub rate: bool,
    /// The lowest concurrency tried.
    #[arg(long, default_value_t = 1, conflicts_with = "rate")]
    pub min_concurrency: u32,
    /// The highest concurrency tried.
    #[arg(long, default_value_t = 256, conflicts_with = "rate")]
    pub max_concurrency: u32,
    /// With --rate: the lowest rate tried, requests per second.
    #[arg(long, default_value_t = 1.0, requires = "rate")]
    pub min_rate: f64,
    /// With --rate: the highest rate tried.
    #[arg(long, default_value_t = 100.0, requires = "rate")]
    pub max_rate: f64,
    /// With --rate: stop bisecting when the lowest failure is within this fraction above the highest pass.
    #[arg(long, default_value_t = 0.1, requires = "rate")]
    pub resolution: f64,
    /// With --rate: Poisson arrivals.
    #[arg(long, requires = "rate")]
    pub poisson: bool,
    /// With --rate: requests in flight at most.
    #[arg(long, default_value_t = 256, requires = "rate")]
    pub max_in_flight: u32,
    /// Measured requests per level (default: enough for the percentiles judged; see the notes).
    #[arg(long)]
    pub requests_per_level: Option<u32>,
    /// A level whose share of failed requests is above this fails.
    #[arg(long, default_value_t = 0.01)]
    pub max_error_rate: f64,
    /// Exit 1 unless the answer is at least this level.
    #[arg(long, value_name = "LEVEL")]
    pub require: Option<f64>,
    /// max_tokens of each request.
    #[arg(long, default_value_t = 512)]
    pub max_tokens: u32,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 120.0)]
    pub timeout: f64,
    /// Retries of a rate-limited (429) request, honouring Retry-After.
    #[arg(long, default_value_t = 0)]
    pub retries: u32,
    /// Open a fresh connection for every request.
    #[arg(long)]
    pub fresh_connections: bool,
    /// Where to write the search (JSON: `answer`, `interval`, `levels`, `notes`).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// What the search is, from the options.
fn spec(args: &CapacityArgs) -> Result<CapacitySpec, CliError> {
    let slos = parse_slos(&args.slos).map_err(|e| usage(format!("--slo: {}", e.reason)))?;
    if !(0.0..=1.0).contains(&args.max_error_rate) {
        return Err(usage("--max-error-rate must be between 0 and 1"));
    }
    if args.requests_per_level.is_some_and(|n| !(1..=crate::capacity::service::MAX_REQUESTS_PER_LEVEL).contains(&n)) {
        return Err(usage(format!(
            "--requests-per-level must be between 1 and {}",
            crate::capacity::service::MAX_REQUESTS_PER_LEVEL
        )));
    }
    let space = if args.rate {
        SearchSpace { axis: LoadAxis::Rate, min: args.min_rate, max: args.max_rate, resolution: args.resolution }
    } else {
        let (min, max) = (f64::from(args.min_concurrency), f64::from(args.max_concurrency));
        SearchSpace { axis: LoadAxis::Concurrency, min, max, resolution: 0.0 }
    };
    space.validate().map_err(|e| usage(format!("levels: {e}")))?;
    let limits = crate::model::limits::MAX_CONCURRENCY;
    if args.max_concurrency > limits || args.max_in_flight > limits || args.max_in_flight == 0 {
        return Err(usage(format!("concurrency is at most {limits}")));
    }
    Ok(CapacitySpec {
        levels: LevelPlan::Search(space),
        criteria: Criteria { slos, max_error_rate: args.max_error_rate },
        requests_per_level: args.requests_per_level,
        max_in_flight: args.max_in_flight,
        poisson: args.poisson,
    })
}

/// Runs each level in this process.
struct LocalLevels {
    endpoint: Endpoint,
    template: RunPlanInput,
    client: HttpClient,
    cancel: CancellationToken,
    /// Levels run so far: each seeds its workload's prompts afresh.
    levels_run: u32,
}

impl LevelRunner for LocalLevels {
    async fn run_level(&mut self, mode: LoadMode, requests: u32, warmup: u32) -> Result<LevelRun, LevelError> {
        let input = crate::capacity::judge::level_input(&self.template, mode, requests, warmup, self.levels_run);
        self.levels_run += 1;
        let failed = |why: String| LevelError::Failed { level: mode.level_text(), why };
        let plan = input.validate(&self.endpoint.model).map_err(|e| failed(format!("{}: {}", e.field, e.reason)))?;
        let mut sink =
            LevelProgress { progress: Progress::new(plan.total_requests(), None, Piped::Silent), records: vec![] };
        let started = std::time::Instant::now();
        let (_, execution) = self.endpoint.execution(plan.clone(), self.client.clone(), self.cancel.clone());
        let outcome = execute(execution, &mut sink).await;
        sink.progress.finish();
        if let Some(failure) = outcome.failure {
            return Err(failed(failure));
        }
        if self.cancel.is_cancelled() {
            return Err(LevelError::Stopped);
        }
        sink.records.sort_by_key(|r| r.seq);
        let (records, summary) = (&sink.records, crate::stats::summarize(&sink.records));
        let bounds = crate::runs::report::Bounds::of(&plan);
        let validity = crate::runs::report::judge(&plan, outcome.client_load.as_ref(), records, &summary, &bounds);
        Ok(LevelRun {
            wall_s: started.elapsed().as_secs_f64(),
            run_id: None,
            validity: Some(validity),
            records: sink.records,
        })
    }
}

/// Keeps a level's iterations and shows its progress (on a terminal only: each level ends in a line of its own).
struct LevelProgress {
    progress: Progress,
    records: Vec<IterationRecord>,
}

impl BatchSink for LevelProgress {
    async fn accept(&mut self, batch: Vec<(IterationRecord, Measurement)>) -> Result<(), SinkError> {
        let errors = batch.iter().filter(|(r, _)| r.error.is_some()).count() as u64;
        self.progress.add(batch.len() as u64, errors);
        self.records.extend(batch.into_iter().map(|(r, _)| r));
        Ok(())
    }
}

/// The plan every level shares; each level sets its load, iterations and warm-up.
fn template(args: &CapacityArgs) -> Result<RunPlanInput, CliError> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(usage("--timeout must be a positive number of seconds"));
    }
    if args.workload.given() && args.prompts.given() {
        return Err(usage("give prompts or a workload, not both"));
    }
    // Each level sets the number of requests; a trace has no load to set.
    let workload = args.workload.read(None, 0)?.map(|given| given.workload);
    if workload.as_ref().is_some_and(|w| matches!(w, crate::model::Workload::Trace { .. })) {
        return Err(usage("a trace sends at its recorded instants: it has no load to search; replay it with bench"));
    }
    Ok(RunPlanInput {
        connector_id: ConnectorId(uuid::Uuid::nil()),
        title: None,
        agent: Agent {
            name: "capacity".into(),
            system_prompt: args.prompts.system.clone(),
            tools: vec![],
            token_budget: args.max_tokens,
        },
        prompts: if workload.is_some() { vec![] } else { args.prompts.read()? },
        iterations: 1,
        warmup: 0,
        mode: LoadMode::Closed { concurrency: 1 },
        timeout_ms: Some((args.timeout * 1e3).round() as u64),
        stream: true,
        temperature: 0.0,
        retries: args.retries,
        connections: if args.fresh_connections { ConnectionPolicy::Fresh } else { ConnectionPolicy::Reuse },
        slos: args.slos.clone(),
        duration_s: None,
        workload,
        shape: None,
        workload_id: None,
        // Every level is a run of its own, marked anew: no level measures the cache an earlier one left.
        prompt_heads: crate::model::PromptHeads::Unique,
    })
}

/// Runs the search and prints its answer; exit status 1 when there is none or it is short of `--require`.
pub async fn run(args: CapacityArgs, config: Option<&std::path::Path>) -> Result<ExitCode, CliError> {
    let report = search(&args, config).await?;
    print_report(&report);
    Ok(passed(answer_passes(&report, args.require)))
}

async fn search(args: &CapacityArgs, config: Option<&std::path::Path>) -> Result<CapacityReport, CliError> {
    let spec = spec(args)?;
    let template = template(args)?;
    let endpoint = args.endpoint.resolve(config).await?;
    let cancel = super::cancelled_by_ctrl_c();
    let client = HttpClient::new().map_err(|e| CliError::Failed(e.to_string()))?;
    let mut runner = LocalLevels { endpoint, template, client, cancel, levels_run: 0 };
    let axis = spec.levels.axis();
    let report = sweep(&mut runner, &spec, |event| match event {
        SearchEvent::Started { index, level, requests } => {
            eprintln!("level {index}: {} — {requests} requests", axis.describe(level));
        }
        SearchEvent::Finished(level) => eprintln!("  {}", level_line(axis, &level)),
        SearchEvent::Probing { concurrency, requests } => {
            eprintln!("probe: {concurrency} in flight — {requests} requests");
        }
        SearchEvent::Probed(level) => eprintln!("  {}", level_line(LoadAxis::Concurrency, &level)),
        SearchEvent::Repeated(_) => {}
    })
    .await
    .map_err(|e| match e {
        SweepError::Level(LevelError::Stopped) => CliError::Failed("interrupted".to_string()),
        SweepError::Level(failed) => CliError::Failed(failed.to_string()),
        before_any_level => usage(before_any_level),
    })?;
    if let Some(path) = &args.out {
        let written = serde_json::to_string_pretty(&report)
            .map_err(|e| e.to_string())
            .and_then(|json| std::fs::write(path, json).map_err(|e| e.to_string()));
        written.map_err(|e| CliError::Failed(format!("--out {}: {e}", path.display())))?;
    }
    Ok(report)
}

/// One level in a line: verdict, judged figures, throughput and, when it failed, why.
fn level_line(axis: LoadAxis, level: &CapacityLevel) -> String {
    let judged: Vec<String> = level
        .judged
        .iter()
        .map(|(name, value)| match value {
            Some(v) if name.ends_with("_met") => format!("{name} {:.1}%", v * 100.0),
            Some(v) => format!("{name} {v:.1}"),
            None => format!("{name} —"),
        })
        .collect();
    let throughput = level.throughput_rps.map_or_else(|| "—".into(), |t| format!("{t:.2}"));
    let mut line = format!(
        "{:<16} {:<6} {}  {throughput} req/s, {:.1}% failed",
        axis.describe(level.level),
        if level.passed { "passed" } else { "FAILED" },
        judged.join(", "),
        level.error_rate * 100.0
    );
    if !level.reasons.is_empty() {
        line.push_str(&format!(" ({})", level.reasons.join("; ")));
    }
    if let Some(validity) = &level.validity {
        line.push_str(&format!("; figures {}", validity.headline()));
    }
    line
}

fn print_report(report: &CapacityReport) {
    let mut sorted: Vec<&CapacityLevel> = report.levels.iter().collect();
    sorted.sort_by(|a, b| a.level.total_cmp(&b.level));
    for level in sorted {
        println!("{}", level_line(report.axis, level));
    }
    let end = |v: Option<f64>| v.map_or_else(|| "none".to_string(), crate::model::trim_number);
    match report.answer {
        Some(answer) => println!(
            "capacity: {}{} (95% interval {} to {}; {} requests in {:.1} s)",
            if report.bounded { "" } else { "at least " },
            report.axis.describe(answer),
            end(report.interval.low),
            end(report.interval.high),
            report.requests_sent,
            report.wall_s
        ),
        None => println!(
            "capacity: none — the lowest level tried already missed the objectives ({} requests in {:.1} s)",
            report.requests_sent, report.wall_s
        ),
    }
}

/// Whether a finished search's answer passes: there is one, and it is at least `--require` (said when not).
fn answer_passes(report: &CapacityReport, require: Option<f64>) -> bool {
    match (report.answer, require) {
        (None, _) => false,
        (Some(answer), Some(required)) if answer < required => {
            eprintln!("capacity {} is below the required {}", crate::model::trim_number(answer), required);
            false
        }
        _ => true,
    }
}
