//! Spec Lab's A/B tests run: the interleaved rounds of both arms (`rounds`, also what the CLI's `spec-lab ab`
//! runs in its own process) and the `AbManager`, which runs a test in the server as a background job and stores
//! its report.

mod manager;
mod rounds;

pub use manager::AbManager;
pub use rounds::{run_ab, AbArm, AbProgress, AbWorkload};
