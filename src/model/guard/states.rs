//! Guard's states: what started an evaluation and where it stands. Typed here and spelled in snake case on the
//! wire and in the database (`no_baseline`, `run_now`), so every layer matches on the enum and none compares
//! strings.

use serde::{Deserialize, Serialize};

/// What started an evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// A tick found the schedule due.
    Tick,
    /// A user pressed Run now.
    RunNow,
}

spelled!(Trigger { Tick => "tick", RunNow => "run_now" });

impl Trigger {
    /// In words: `tick`, `run now`.
    pub fn label(self) -> &'static str {
        match self {
            Trigger::Tick => "tick",
            Trigger::RunNow => "run now",
        }
    }
}

/// Where an evaluation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvaluationStatus {
    /// Its run is under way.
    Running,
    /// Compared with the baseline; no threshold breached.
    Healthy,
    /// Compared; at least one threshold breached.
    Breached,
    /// Measured, but no baseline is pinned: recorded, not compared.
    NoBaseline,
    /// The run could not be made or measured.
    Failed,
}

spelled!(EvaluationStatus {
    Running => "running",
    Healthy => "healthy",
    Breached => "breached",
    NoBaseline => "no_baseline",
    Failed => "failed",
});

impl EvaluationStatus {
    /// In words: `no baseline` rather than `no_baseline`.
    pub fn label(self) -> &'static str {
        match self {
            EvaluationStatus::NoBaseline => "no baseline",
            other => other.as_str(),
        }
    }
}
