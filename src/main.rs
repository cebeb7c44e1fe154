//! The `latency-guard` binary: parses the command line and starts the chosen command. Nothing else lives here.

use anyhow::Context;
use clap::{Parser, Subcommand};
use std::net::SocketAddr;
use std::path::PathBuf;

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

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if matches!(cli.command, None | Some(Command::Serve)) {
        // Before any thread starts: the server starts again in place with malloc settings that give memory back.
        latency_guard::server::give_memory_back();
    }
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(run(cli))
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info,sqlx=warn".into()),
        )
        .with_target(false)
        // Logs go to stderr so that `bench` output on stdout stays machine-readable.
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(cli.config).await,
        Command::LoginLink => {
            let settings = Settings::load(cli.config.as_deref())?;
            settings.require_existing_data()?;
            eprintln!("a login link for the server whose data is the {}", settings.database_description());
            let clock = std::sync::Arc::new(latency_guard::clock::SystemClock);
            let state = latency_guard::server::build_state(settings, clock).await?;
            let link = state.create_login_link().await?;
            println!("{link}");
            Ok(())
        }
        Command::Bench(args) => {
            let result = latency_guard::cli::bench::run(*args, cli.config.as_deref()).await?;
            if let Some(why) = result.failure {
                eprintln!("{why}; failing");
                std::process::exit(1);
            }
            Ok(())
        }
        Command::Capacity(args) => {
            let code = latency_guard::cli::capacity::run(*args, cli.config.as_deref()).await;
            std::process::exit(code);
        }
        Command::Export(args) => latency_guard::cli::export::run(args, cli.config.as_deref()).await,
        Command::SpecLab(command) => {
            let code = latency_guard::cli::spec_lab::run(command, cli.config.as_deref()).await?;
            std::process::exit(code);
        }
        Command::Sim(args) => {
            let config = args.config().map_err(anyhow::Error::msg)?;
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
            Ok(())
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
