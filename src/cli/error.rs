//! The one contract of a command: `run(args, config) -> Result<ExitCode, CliError>`. A command that gave its
//! answer returns its exit status (0, or 1 when the answer fails a pipeline: a gate breached, an objective missed,
//! no capacity); one that could not give it returns why, and `main.rs` prints that and exits with its kind's status.

use std::process::ExitCode;

use super::remote::RemoteError;

/// Why a command could not give its answer.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Nothing was measured: an option, a file it names or the endpoint cannot be used as written. Exit status 2,
    /// as clap's own usage errors.
    #[error("{0}")]
    Usage(String),
    /// A running server (`--server`) refused the call or failed it. Exit status 1.
    #[error(transparent)]
    Server(#[from] RemoteError),
    /// It started and could not finish: a run or a level failed, it was interrupted, the report could not be
    /// written. Exit status 1.
    #[error("{0}")]
    Failed(String),
}

impl CliError {
    /// The process's exit status for this error.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_) => ExitCode::from(2),
            CliError::Server(_) | CliError::Failed(_) => ExitCode::FAILURE,
        }
    }
}

/// A usage error from anything that says why.
pub fn usage(why: impl std::fmt::Display) -> CliError {
    CliError::Usage(why.to_string())
}

/// The exit status of a command that gave its answer: success, or failure when the answer fails a pipeline.
pub fn passed(answer_passes: bool) -> ExitCode {
    if answer_passes {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
