//! The command line's commands, one module each; `main.rs` parses the line and calls one of them. Every command is
//! `run(args, config) -> Result<ExitCode, CliError>` ([`error`]).
//! - [`bench`]: a run from the command line, here or on a server (`plan`, `run`, `print`).
//! - [`capacity`]: the capacity search, levels run in this process.
//! - [`export`]: a report as JSON, CSV or HTML.
//! - [`spec_lab`]: the probe and the A/B test of a self-hosted server.
//!
//! What they share: [`endpoint`] (which endpoint and prompts, and the execution of a plan against it),
//! [`progress`] (the one progress printer), [`remote`] (a running server called with an API token),
//! `workload_file` (a `--workload` file and the histogram files it names), `data_files` (a dataset or a trace,
//! read and checked before a run).

pub mod bench;
pub mod capacity;
mod data_files;
pub mod endpoint;
pub mod error;
pub mod export;
pub mod progress;
pub mod remote;
pub mod spec_lab;
mod workload_file;

use tokio_util::sync::CancellationToken;

pub use error::{passed, usage, CliError};

/// A token cancelled by Ctrl-C: a measuring command stops sending and reports what it measured.
pub fn cancelled_by_ctrl_c() -> CancellationToken {
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.cancel();
        }
    });
    cancel
}
