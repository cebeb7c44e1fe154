//! `latency-guard bench`: a run from the command line, for CI pipelines. Same engine, driver and report snapshot
//! as the server; progress on stderr, the verdict on the run's figures and a summary table on stdout, the snapshot
//! as JSON to `--out`, and an exit status that fails the pipeline when too many requests failed (1) or when the
//! figures are invalid (3: too few samples, a late schedule, a saturated client, …). Finished iterations wait on
//! disk until the report is made, so a long run's memory stays flat. With `--server URL --token …` the run happens
//! on a running server instead (stored there, in the token's workspace) and is followed from here.
//!
//! [`plan`] turns the options into a plan, [`run`] measures (here, on a server, or repeatedly) and [`print`]
//! writes what stdout shows.

mod against;
mod plan;
mod print;
mod run;

use std::path::PathBuf;

use super::endpoint::{EndpointArgs, PromptArgs, WorkloadArgs};
use crate::model::{RunStatus, RunView};
use crate::stats::RunSummary;

pub use run::run;

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
    /// An API token of that server (Settings → API tokens); better given as the environment variable. Used only
    /// with --server: a token left in the environment does not stop a command on this machine.
    #[arg(long, env = "LATENCY_GUARD_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// The prompts.
    #[command(flatten)]
    pub prompts: PromptArgs,
    /// Or a workload.
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Measured iterations per prompt, or with --input-tokens requests (default 10; with --duration, as many as the
    /// time allows, up to the limit of a run).
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
    /// With --rate: gamma-distributed gaps of this burstiness factor (1 is Poisson, below 1 burstier, above more
    /// even; the mean rate stays --rate).
    #[arg(long, requires = "rate", conflicts_with = "poisson")]
    pub burstiness: Option<f64>,
    /// Requests in flight at most with --rate.
    #[arg(long, default_value_t = 256)]
    pub max_concurrency: u32,
    /// Ramp up from this load (requests per second with --rate, requests in flight with -c) to the target over
    /// --ramp-seconds; what the ramp sends is a warm-up unless --count-ramp.
    #[arg(long, requires = "ramp_seconds", conflicts_with = "steps")]
    pub ramp_from: Option<f64>,
    /// How long the ramp lasts, seconds.
    #[arg(long, requires = "ramp_from")]
    pub ramp_seconds: Option<f64>,
    /// An exponential ramp (by the same factor each second) instead of a linear one.
    #[arg(long, requires = "ramp_from")]
    pub ramp_exponential: bool,
    /// Count what the ramp sends in the statistics.
    #[arg(long, requires = "ramp_from")]
    pub count_ramp: bool,
    /// The rate in steps, `RATE:SECONDS,…` (`5:30,10:30,20:30`): an open loop that sends nothing after the last.
    #[arg(long, value_name = "RATE:SECONDS,…", conflicts_with = "rate")]
    pub steps: Option<String>,
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
    /// Print an invalid verdict on the run's figures (too few samples, a late schedule, a saturated client, …) but
    /// do not fail on it; without this an invalid run exits with status 3.
    #[arg(long)]
    pub allow_invalid: bool,
    /// Open a fresh connection for every request (connection set-up is then part of every latency).
    #[arg(long)]
    pub fresh_connections: bool,
    /// Send the prompts without the mark each starts with by default (its run's, and its request's unless the
    /// workload shares its prompts' starts on purpose), so this run may find an earlier run's prompts in the
    /// server's prefix cache: a cache-warm measurement, asked for on purpose.
    #[arg(long)]
    pub no_prompt_heads: bool,
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
    /// Compare the run with a baseline as a Guard schedule would: a run id (of the app's database, or of --server)
    /// or a snapshot file (`bench --out`). Needs at least one --threshold; a breach fails the command (exit 1).
    #[arg(long, value_name = "RUN_ID|SNAPSHOT.json", requires = "thresholds", conflicts_with = "repeat")]
    pub against: Option<String>,
    /// A threshold for --against, `METRIC:OP>VALUE` (`p95_ms:pct_increase>10`, `tok_s:pct_decrease>15`,
    /// `error_rate:abs_increase>0.05`); repeatable. A latency threshold breaches only when crossed and Welch's test
    /// is significant at --alpha.
    #[arg(long = "threshold", value_name = "METRIC:OP>VALUE", requires = "against")]
    pub thresholds: Vec<String>,
    /// The significance level of --against's tests.
    #[arg(long, default_value_t = 0.05, requires = "against")]
    pub alpha: f64,
}

/// What the run gave: the summary and, when it must fail the pipeline, why.
pub struct BenchResult {
    /// Figures.
    pub summary: RunSummary,
    /// `None`: the run passes. Otherwise why it fails: it stopped early, measured nothing, was interrupted, or its
    /// error rate is above `--max-error-rate`.
    pub failure: Option<String>,
    /// Why its figures are invalid, when they are: the endpoint was not measured under the load asked (exit 3
    /// unless `--allow-invalid`).
    pub invalid: Option<String>,
}

/// The exit status of a run whose figures are invalid: it could not answer, which is not the endpoint failing
/// (status 1) nor a usage error (2).
pub const INVALID_EXIT: u8 = 3;

/// Why a finished bench run fails a pipeline, if it does: a gate that measured nothing must not pass.
pub(super) fn verdict(run: &RunView, summary: &RunSummary, max_error_rate: f64) -> Option<String> {
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
