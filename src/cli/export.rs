//! `latency-guard export`: a report as JSON, CSV or HTML from the command line, from the app's database, from a
//! running server (`--server URL --token …`), or from a snapshot file (a JSON export or `bench --out`). The same
//! pure functions as the browser's export buttons, over the same sections the server renders for them.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::{usage, CliError};

use crate::model::RunId;
use crate::runs::report::{export, ExportFormat, ReportFiles, ReportSnapshot};
use crate::store::Store;

/// The command's options.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The report's run id, read from the app's database (settings as for `serve`).
    #[arg(required_unless_present = "from", conflicts_with = "from", value_name = "REPORT_ID")]
    pub report: Option<String>,
    /// A report snapshot file (a JSON export or `bench --out`) instead of the database.
    #[arg(long, value_name = "SNAPSHOT.json")]
    pub from: Option<PathBuf>,
    /// Read the report from this running server (its URL) instead of the local database.
    #[arg(long, requires = "token", conflicts_with = "from", value_name = "URL")]
    pub server: Option<String>,
    /// An API token of that server (Settings → API tokens); better given as the environment variable. Used only
    /// with --server: a token left in the environment does not stop a command on this machine.
    #[arg(long, env = "LATENCY_GUARD_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// `json`, `csv` or `html`.
    #[arg(long, value_parser = parse_format)]
    pub format: ExportFormat,
    /// Write to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// `--format`, as clap's value parser: clap prints the sentence beside the option, so it is the error.
fn parse_format(text: &str) -> Result<ExportFormat, String> {
    ExportFormat::parse(text).ok_or_else(|| format!("{text:?} is not a format: use json, csv or html"))
}

/// Writes the export.
pub async fn run(args: ExportArgs, config: Option<&std::path::Path>) -> Result<ExitCode, CliError> {
    let report = match (&args.from, &args.report, &args.server) {
        (Some(path), _, _) => read_snapshot(path)?,
        (None, Some(id), Some(server)) => fetch_report(id, server, args.token.as_deref().unwrap_or_default()).await?,
        (None, Some(id), None) => load_report(id, config).await?,
        (None, None, _) => return Err(usage("name a REPORT_ID or --from SNAPSHOT.json")),
    };
    let sections = crate::runs::fragments::report_file_sections(&report);
    let text = export(&ReportFiles { snapshot: report, sections }, args.format);
    let written = match &args.out {
        Some(path) => std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => std::io::stdout().lock().write_all(text.as_bytes()).map_err(|e| format!("standard output: {e}")),
    };
    written.map_err(CliError::Failed)?;
    Ok(ExitCode::SUCCESS)
}

fn read_snapshot(path: &std::path::Path) -> Result<ReportSnapshot, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| usage(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| usage(format!("{} is not a report snapshot: {e}", path.display())))
}

/// The report id as written, or why it is not one.
fn report_id(id: &str) -> Result<RunId, CliError> {
    id.parse().map_err(|_| usage(format!("{id:?} is not a report id (a UUID)")))
}

async fn fetch_report(id: &str, server: &str, token: &str) -> Result<ReportSnapshot, CliError> {
    let id = report_id(id)?;
    let remote = crate::cli::remote::RemoteServer::new(server, token)?;
    let report: crate::runs::api::RunReport = remote.call("runs/report", &serde_json::json!({ "id": id })).await?;
    Ok(report.snapshot)
}

async fn load_report(id: &str, config: Option<&std::path::Path>) -> Result<ReportSnapshot, CliError> {
    let id = report_id(id)?;
    let settings = crate::config::Settings::load(config).map_err(usage)?;
    settings.require_existing_data().map_err(usage)?;
    let store = Store::connect(&settings.database_url).await.map_err(usage)?;
    let workspace = store.run_workspace(id).await.map_err(|e| usage(format!("report {id}: {e}")))?;
    let report = store.run_report(workspace, id).await;
    store.close().await;
    Ok(report.map_err(|e| CliError::Failed(format!("report {id}: {e}")))?.1)
}
