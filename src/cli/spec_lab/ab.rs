//! `latency-guard spec-lab ab`: an A/B test from the command line. Each arm is a URL (with `--model`) or a stored
//! connector; both are probed first, so a self-hosted server's metrics are recorded around each cell. Progress
//! goes to stderr, the verdict of each cell to stdout, the report to `--out` (`.json`: the report as data;
//! `.html`: the printable page with the bottleneck panels).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::{passed, CliError};
use crate::engine::{HttpClient, RequestTarget};
use crate::lab::judge::ab_report;
use crate::lab::model::AbPlanInput;
use crate::lab::report::{AbEndpoint, AbReport, VerdictKind};
use crate::lab::service::{run_ab, AbArm, AbProgress, AbWorkload};
use crate::model::{ConnectorId, PromptHeads};
use crate::probe::probe;

/// The options of `spec-lab ab`.
#[derive(Debug, clap::Args)]
pub struct AbArgs {
    /// The baseline's API base URL (e.g. the server with speculative decoding off).
    #[arg(long, required_unless_present = "baseline_connector", conflicts_with = "baseline_connector")]
    pub baseline_url: Option<String>,
    /// The candidate's API base URL (e.g. the server with speculative decoding on).
    #[arg(long, required_unless_present = "candidate_connector", conflicts_with = "candidate_connector")]
    pub candidate_url: Option<String>,
    /// A stored connector as the baseline (its URL, key, headers and model).
    #[arg(long)]
    pub baseline_connector: Option<ConnectorId>,
    /// A stored connector as the candidate.
    #[arg(long)]
    pub candidate_connector: Option<ConnectorId>,
    /// The model sent to an arm given by URL.
    #[arg(long)]
    pub model: Option<String>,
    /// The baseline's model, when it differs from --model.
    #[arg(long)]
    pub baseline_model: Option<String>,
    /// The candidate's model, when it differs from --model.
    #[arg(long)]
    pub candidate_model: Option<String>,
    /// Name of the environment variable holding the API key of the arms given by URL.
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// Extra header `Name: value` for the arms given by URL; repeatable.
    #[arg(long = "header", value_name = "NAME:VALUE")]
    pub headers: Vec<String>,
    /// A prompt; repeatable.
    #[arg(long = "prompt", required_unless_present_any = ["prompts_file", "workload", "dataset", "input_tokens", "trace"])]
    pub prompts: Vec<String>,
    /// A file with one prompt per line.
    #[arg(long, conflicts_with = "prompts")]
    pub prompts_file: Option<PathBuf>,
    /// System prompt.
    #[arg(long)]
    pub system: Option<String>,
    /// Measured iterations per prompt, per arm, per cell; with --input-tokens or --dataset, the requests of each
    /// cell.
    #[arg(short = 'n', long, default_value_t = 10)]
    pub iterations: u32,
    /// Instead of prompts, a workload sent to both arms alike (synthetic lengths, a shared prefix or a dataset):
    /// each request made once with the baseline server's tokenizer, each cell with a seed of its own.
    #[command(flatten)]
    pub load: crate::cli::endpoint::WorkloadArgs,
    /// Requests in flight per arm; several (`-c 1 -c 4` or `-c 1,4`) sweep them.
    #[arg(short = 'c', long = "concurrency", value_delimiter = ',', default_value = "1")]
    pub concurrencies: Vec<u32>,
    /// Sampling temperature; several sweep them.
    #[arg(long = "temperature", value_delimiter = ',', default_value = "0")]
    pub temperatures: Vec<f64>,
    /// `max_tokens` of every request.
    #[arg(long, default_value_t = 128)]
    pub max_tokens: u32,
    /// Warm-up requests per arm before each cell.
    #[arg(long, default_value_t = 1)]
    pub warmup: u32,
    /// Per-request time limit, seconds.
    #[arg(long, default_value_t = 120.0)]
    pub timeout: f64,
    /// Title of the report.
    #[arg(long)]
    pub title: Option<String>,
    /// Do not probe the arms' servers (no server metrics are read).
    #[arg(long)]
    pub no_probe: bool,
    /// Send the prompts without the mark each starts with by default (its cell's, arm's and request's), so an arm
    /// may find the other arm's, an earlier cell's or an earlier test's prompts in a server's prefix cache.
    #[arg(long)]
    pub no_prompt_heads: bool,
    /// Write the report here: `.html` for the printable page, anything else for JSON.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the report as JSON on stdout instead of the verdicts.
    #[arg(long)]
    pub json: bool,
}

/// Runs the test and prints its verdicts; exit status 1 when a cell could not be judged (too few successful
/// requests) or the test was stopped.
pub async fn run(args: AbArgs, config: Option<&Path>) -> Result<ExitCode, CliError> {
    let mut plan = plan_input(&args)?.validate().map_err(|e| CliError::Usage(format!("{}: {}", e.field, e.reason)))?;
    let client = HttpClient::new().map_err(|e| CliError::Usage(e.to_string()))?;
    let mut arms = Vec::with_capacity(2);
    let mut endpoints = Vec::with_capacity(2);
    for role in [Role::Baseline, Role::Candidate] {
        let (endpoint, arm) = resolve(&args, role, config, &client).await?;
        endpoints.push(endpoint);
        arms.push(arm);
    }
    let (Ok(arms), Ok(endpoints)) = (<[AbArm; 2]>::try_from(arms), <[AbEndpoint; 2]>::try_from(endpoints)) else {
        unreachable!("two roles make two arms")
    };
    if args.title.is_none() {
        plan.title = format!("{} vs {}", endpoints[0].name, endpoints[1].name);
    }
    let cancel = crate::cli::cancelled_by_ctrl_c();
    let started_ms = crate::clock::Clock::now_ms(&crate::clock::SystemClock);
    let terminal = std::io::stderr().is_terminal();
    // On a terminal one line is rewritten; in a log, a line at each new cell and each tenth of the requests.
    let mut last_mark = (usize::MAX, u64::MAX);
    let mut progress = |p: AbProgress| {
        let line = format!("cell {}/{} · {}/{} requests", p.cell + 1, p.cells, p.done, p.total);
        let mark = (p.cell, p.done * 10 / p.total.max(1));
        if terminal {
            eprint!("\r{line}");
            let _ = std::io::stderr().flush();
        } else if mark != last_mark {
            eprintln!("{line}");
        }
        last_mark = mark;
    };
    let tokenizer = args.load.tokenizer.as_deref();
    let workload = AbWorkload::of(&client, &plan, &arms, tokenizer, None)
        .await
        .map_err(|e| CliError::Usage(format!("the workload's requests could not be made: {e}")))?;
    let cells = run_ab(&client, &plan, &arms, workload.as_ref(), &cancel, &mut progress).await;
    if terminal {
        eprintln!();
    }
    let used = workload.as_ref().and_then(AbWorkload::tokenizer);
    let report = ab_report(&plan, endpoints, started_ms, &cells, used.as_ref());
    if let Some(path) = &args.out {
        write_report(path, &report)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        print!("{}", describe(&report));
    }
    let judged = report.cells.iter().all(|c| c.verdict.kind != VerdictKind::Inconclusive);
    let complete = report.cells.len() == plan.cells.len() && !cells.last().is_some_and(|c| c.cut_short);
    Ok(passed(judged && complete))
}

#[derive(Debug, Clone, Copy)]
enum Role {
    Baseline,
    Candidate,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Baseline => "baseline",
            Role::Candidate => "candidate",
        }
    }
}

/// An arm from its options: a stored connector, or a URL with `--model`; probed unless `--no-probe`.
async fn resolve(
    args: &AbArgs,
    role: Role,
    config: Option<&Path>,
    client: &HttpClient,
) -> Result<(AbEndpoint, AbArm), CliError> {
    let (url, connector, own_model) = match role {
        Role::Baseline => (&args.baseline_url, args.baseline_connector, &args.baseline_model),
        Role::Candidate => (&args.candidate_url, args.candidate_connector, &args.candidate_model),
    };
    let (name, model, target): (String, String, RequestTarget) = match (connector, url) {
        (Some(id), _) => {
            let option = format!("--{}-connector", role.name());
            let (connector, target) = crate::cli::endpoint::open_connector(config, id, &option).await?;
            let model = own_model.clone().unwrap_or(connector.model);
            (connector.name, model, target)
        }
        (None, Some(url)) => {
            let model = own_model.clone().or_else(|| args.model.clone()).ok_or_else(|| {
                CliError::Usage(format!("--model (or --{}-model) is required for --{}-url", role.name(), role.name()))
            })?;
            let target = crate::targets::command_line_target(url, args.api_key_env.as_deref(), &args.headers).map_err(
                |mut why| {
                    if why.field == "--base-url" {
                        why.field = format!("--{}-url", role.name());
                    }
                    CliError::Usage(why.to_string())
                },
            )?;
            (role.name().to_string(), model, target)
        }
        (None, None) => {
            return Err(CliError::Usage(format!("give --{0}-url or --{0}-connector", role.name())));
        }
    };
    let server_kind = if args.no_probe {
        None
    } else {
        let found = probe(client, &target).await;
        eprintln!(
            "{}: {} at {}",
            role.name(),
            found.kind.map_or("engine not identified (no server metrics will be read)", |k| k.label()),
            found.root
        );
        found.kind
    };
    let endpoint =
        AbEndpoint { name, base_url: target.base_url.as_str().to_string(), model: model.clone(), server_kind };
    Ok((endpoint, AbArm { target, model, server_kind }))
}

fn plan_input(args: &AbArgs) -> Result<AbPlanInput, CliError> {
    let workload = args.load.read(Some(args.iterations), args.warmup)?.map(|w| w.workload);
    let (prompts, iterations) = match &workload {
        // A workload's requests replace the prompts; -n was its number of requests.
        Some(_) => (vec![], 1),
        None => (crate::cli::endpoint::prompts(args.prompts_file.as_deref(), &args.prompts)?, args.iterations),
    };
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(CliError::Usage("--timeout must be a positive number of seconds".into()));
    }
    Ok(AbPlanInput {
        title: args.title.clone(),
        prompts,
        iterations,
        warmup: args.warmup,
        max_tokens: args.max_tokens,
        temperatures: args.temperatures.clone(),
        concurrencies: args.concurrencies.clone(),
        timeout_ms: Some((args.timeout * 1e3).round() as u64),
        system_prompt: args.system.clone(),
        workload,
        workload_id: None,
        prompt_heads: if args.no_prompt_heads { PromptHeads::Off } else { PromptHeads::Unique },
    })
}

fn write_report(path: &Path, report: &AbReport) -> Result<(), CliError> {
    let html = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"));
    let text = if html {
        crate::lab::fragments::ab_file(report)
    } else {
        serde_json::to_string_pretty(report).unwrap_or_default()
    };
    std::fs::write(path, text).map_err(|e| CliError::Failed(format!("--out {}: {e}", path.display())))
}

/// The verdicts in words, for a terminal.
pub fn describe(report: &AbReport) -> String {
    let mut text = format!(
        "{}: {} ({}) vs {} ({})\n",
        report.title, report.baseline.name, report.baseline.base_url, report.candidate.name, report.candidate.base_url
    );
    for cell in &report.cells {
        text.push_str(&format!("\n{} — {}\n  {}\n", cell.label(), cell.verdict.kind.label(), cell.verdict.summary));
        for caveat in &cell.verdict.caveats {
            text.push_str(&format!("  caveat: {caveat}\n"));
        }
    }
    text
}
