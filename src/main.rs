//! The `latency-guard` binary: parses the command line and starts the chosen command. Nothing else lives here.

use anyhow::Context;
use clap::{Parser, Subcommand};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use latency_guard::cli::{self, CliError};
use latency_guard::config::Settings;
use latency_guard::server::Application;

#[derive(Parser)]
#[command(name = "latency-guard", version, about = "Measures LLM endpoint latency and guards it against regressions")]
struct Cli {
    /// Config file (default: ./Leptos.toml when present; env LATENCY_GUARD_CONFIG).
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the web app (the default).
    Serve,
    /// Print a fresh one-time login link.
    LoginLink,
    /// Benchmark an endpoint from the command line (progress on stderr, summary on stdout).
    Bench(Box<latency_guard::cli::bench::BenchArgs>),
    /// Find the highest concurrency (or rate) at which objectives hold (levels on stderr, answer on stdout).
    Capacity(Box<latency_guard::cli::capacity::CapacityArgs>),
    /// Export a report as JSON, CSV or HTML (to stdout, or --out FILE).
    Export(latency_guard::cli::export::ExportArgs),
    /// Serve a simulated OpenAI-compatible endpoint at http://127.0.0.1:PORT/v1.
    Sim(latency_guard::sim::SimArgs),
    /// Spec Lab: probe a self-hosted server (engine, metrics, speculative decoding).
    #[command(subcommand)]
    SpecLab(latency_guard::cli::spec_lab::SpecLabCommand),
}

fn main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    if matches!(cli.command, None | Some(Command::Serve)) {
        // Before any thread starts: the server starts again in place with malloc settings that give memory back.
        latency_guard::server::give_memory_back();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    // The command runs as a task on the runtime's workers, not on the main thread `block_on` polls: there a run's
    // results loop woke the main thread for every batch the workers finished, and on a client's one core the two
    // threads took turns (`bench` at 256 streams of instant answers: 9,600–10,700 streams/s on the main thread,
    // 13,900–14,700 as a task; at 16, 13,200–13,900 and 15,800–16,000; benches/client_race, docs/PERFORMANCE.md).
    runtime.block_on(async { tokio::spawn(run(cli)).await? })
}

/// A command's answer as the process's exit status; why it could not answer on stderr, named by the command.
fn ended(command: &str, result: Result<ExitCode, CliError>) -> ExitCode {
    result.unwrap_or_else(|error| {
        eprintln!("{command}: {error}");
        error.exit_code()
    })
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info,sqlx=warn".into()),
        )
        .with_target(false)
        // Logs go to stderr so that `bench` output on stdout stays machine-readable.
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let config = cli.config.as_deref();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(cli.config).await.map(|()| ExitCode::SUCCESS),
        Command::LoginLink => {
            let settings = Settings::load(config)?;
            settings.require_existing_data()?;
            eprintln!("a login link for the server whose data is the {}", settings.database_description());
            let clock = std::sync::Arc::new(latency_guard::clock::SystemClock);
            let state = latency_guard::server::build_state(settings, clock).await?;
            let link = state.create_login_link().await?;
            println!("{link}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench(args) => Ok(ended("bench", cli::bench::run(*args, config).await)),
        Command::Capacity(args) => Ok(ended("capacity", cli::capacity::run(*args, config).await)),
        Command::Export(args) => Ok(ended("export", cli::export::run(args, config).await)),
        Command::SpecLab(command) => Ok(ended("spec-lab", cli::spec_lab::run(command, config).await)),
        Command::Sim(args) => {
            let config = args.config()?;
            let (host, port) = (args.host, args.port);
            let sim = match args.hostile {
                Some(kind) => latency_guard::sim::spawn_hostile(kind, SocketAddr::new(host, port)).await,
                None => {
                    latency_guard::sim::spawn_workers(config, SocketAddr::new(host, port), usize::from(args.workers))
                        .await
                }
            }
            .with_context(|| format!("cannot listen on {host}:{port}"))?;
            println!("simulator listening at {}", sim.base_url());
            tokio::signal::ctrl_c().await?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

async fn serve(config: Option<PathBuf>) -> anyhow::Result<()> {
    let settings = Settings::load(config.as_deref())?;
    let db = if settings.database_url.starts_with("sqlite:") { "SQLite" } else { "PostgreSQL" };
    let app = Application::build(settings).await?;
    let base = app.state().settings.public_base();
    println!("latency-guard listening on http://{} ({db})", app.state().settings.site_addr);
    match app.first_login_link() {
        Some(link) => println!("First start: log in with this one-time link:\n\n    {link}\n"),
        None => println!("Log in at {base}/login; for a fresh one-time link run: latency-guard login-link"),
    }
    app.run_until_stopped().await?;
    Ok(())
}
