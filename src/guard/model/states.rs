//! Guard's states: what started an evaluation and where it stands. Typed here and spelled in snake case on the
//! wire and in the database (`no_baseline`, `run_now`), so every layer matches on the enum and none compares
//! strings.

use crate::model::spelled;
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
    /// A run was made but was not valid (unreachable endpoint, too many errors, too few samples, the load not as
    /// planned): neither healthy nor a breach.
    Inconclusive,
    /// No run could be made (the schedule's set or connector is gone, the run could not start).
    Failed,
}

spelled!(EvaluationStatus {
    Running => "running",
    Healthy => "healthy",
    Breached => "breached",
    NoBaseline => "no_baseline",
    Inconclusive => "inconclusive",
    Failed => "failed",
});

impl EvaluationStatus {
    /// The evaluation judged the endpoint (healthy or breached): only these count towards sustained breaches and
    /// recoveries.
    pub fn conclusive(self) -> bool {
        matches!(self, EvaluationStatus::Healthy | EvaluationStatus::Breached)
    }

    /// The evaluation measured the endpoint with a valid run (judged, or with no baseline to judge it by): its
    /// figures are a point of the schedule's history, where change points are searched for.
    pub fn measured(self) -> bool {
        matches!(self, EvaluationStatus::Healthy | EvaluationStatus::Breached | EvaluationStatus::NoBaseline)
    }

    /// The evaluation could not measure the endpoint (inconclusive or failed): a run of these raises a "cannot
    /// measure" alert.
    pub fn unmeasured(self) -> bool {
        matches!(self, EvaluationStatus::Inconclusive | EvaluationStatus::Failed)
    }

    /// In words: `no baseline` rather than `no_baseline`.
    pub fn label(self) -> &'static str {
        match self {
            EvaluationStatus::NoBaseline => "no baseline",
            other => other.as_str(),
        }
    }
}

/// What an alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// A threshold breached (as the policy's sustain rule asks).
    Breach,
    /// The schedule's evaluations could not measure the endpoint, several in a row.
    CannotMeasure,
}

spelled!(AlertKind { Breach => "breach", CannotMeasure => "cannot_measure" });
