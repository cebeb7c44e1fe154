//! `latency-guard spec-lab`: Spec Lab from the command line. `probe` asks a server what it is and whether it
//! decodes speculatively, and prints what it found (or `--json`, the same report the app shows). Exit codes:
//! 0 when the probe ran (whatever it found, a hosted API included), 2 when the options are invalid. `ab` (in
//! [`ab`]) measures a baseline against a candidate.

pub mod ab;

use std::process::ExitCode;

use crate::cli::{usage, CliError};
use crate::engine::HttpClient;
use crate::model::ProbeReport;

/// The `spec-lab` commands.
#[derive(Debug, clap::Subcommand)]
pub enum SpecLabCommand {
    /// Probe a server: its engine, version, model, metrics and speculative decoding.
    Probe(ProbeArgs),
    /// A/B test a candidate against a baseline (e.g. speculative decoding on vs off): the same requests,
    /// interleaved, per concurrency level and temperature; a verdict per cell and the bottleneck panel.
    Ab(Box<ab::AbArgs>),
}

/// Where to probe.
#[derive(Debug, clap::Args)]
pub struct ProbeArgs {
    /// The API base URL, e.g. http://127.0.0.1:8000/v1 (the server root is this without its trailing /v1).
    #[arg(long)]
    pub base_url: String,
    /// Name of the environment variable holding the API key (the key itself never goes on the command line).
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// Extra header `Name: value`; repeatable.
    #[arg(long = "header", value_name = "NAME:VALUE")]
    pub headers: Vec<String>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs a `spec-lab` command.
pub async fn run(command: SpecLabCommand, config: Option<&std::path::Path>) -> Result<ExitCode, CliError> {
    match command {
        SpecLabCommand::Ab(args) => ab::run(*args, config).await,
        SpecLabCommand::Probe(args) => {
            let target =
                crate::targets::command_line_target(&args.base_url, args.api_key_env.as_deref(), &args.headers)
                    .map_err(usage)?;
            eprintln!("probing {} …", target.base_url.server_root());
            let client = HttpClient::new().map_err(|e| CliError::Failed(e.to_string()))?;
            let report = crate::probe::probe(&client, &target).await;
            if args.json {
                let json = serde_json::to_string_pretty(&report).map_err(|e| CliError::Failed(e.to_string()))?;
                println!("{json}");
            } else {
                print!("{}", describe(&report));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The report in words, for a terminal.
pub fn describe(report: &ProbeReport) -> String {
    let mut text = format!("server root  {}\n", report.root);
    let engine = report.kind.map_or("not identified".to_string(), |k| k.label().to_string());
    text.push_str(&format!("engine       {engine}\n"));
    if let Some(version) = &report.version {
        text.push_str(&format!("version      {version}\n"));
    }
    if let Some(model) = &report.model {
        text.push_str(&format!("model        {model}\n"));
    }
    for path in &report.paths {
        text.push_str(&format!("  {:<18} {}\n", path.path, path.outcome));
    }
    let s = &report.speculation;
    let yes_no = |v: Option<bool>| v.map_or("unknown", |b| if b { "yes" } else { "no" });
    text.push_str(&format!(
        "speculative decoding: configured {}, active {}{}{}\n",
        yes_no(s.configured),
        yes_no(s.active),
        s.method.as_ref().map(|m| format!(", method {m}")).unwrap_or_default(),
        s.draft_max.map(|n| format!(", up to {n} tokens drafted per step")).unwrap_or_default(),
    ));
    text.push_str(&format!("  how: {}\n", s.how));
    if let Some(w) = &s.since_start {
        let rate = w.acceptance_rate.map_or("no drafts".into(), |r| format!("{:.1}%", r * 100.0));
        let length = w.mean_acceptance_length.map_or("n/a".into(), |l| format!("{l:.2}"));
        text.push_str(&format!(
            "  since the server started: {} tokens drafted, {} accepted ({rate}), mean acceptance length {length}\n",
            w.draft_tokens, w.accepted_tokens
        ));
    }
    for note in &report.notes {
        text.push_str(&format!("note: {note}\n"));
    }
    text
}
