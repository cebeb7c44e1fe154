//! Whether a run's figures answer the question it asked: a verdict (`valid` or `invalid`) and every check behind
//! it, each saying what was measured against which bound and, when it failed, what to change. The checks are
//! judged by `runs::report::validity`; what the load generator's own process did during the run (`ClientLoad`) is
//! measured by the run's service and kept with the run.

use serde::{Deserialize, Serialize};

/// The verdict on a run's figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    /// Every check that could be made passed.
    Valid,
    /// At least one check failed: the figures describe something else than the asked load on the endpoint.
    Invalid,
}

/// What one check looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CheckKind {
    /// Enough successful requests for the highest percentile the run is judged by.
    Samples,
    /// Failed requests under a bound.
    Errors,
    /// An open loop sent at its rate and on its schedule.
    Schedule,
    /// The load generator's process had CPU to spare.
    ClientCpu,
    /// The load generator's event loop woke on time, so requests left when their send was recorded.
    ClientTiming,
    /// Requests meant to share nothing did not find their prompts in the server's cache.
    Cache,
    /// A closed loop held its concurrency for most of the run.
    SteadyState,
}

spelled!(CheckKind {
    Samples => "samples",
    Errors => "errors",
    Schedule => "schedule",
    ClientCpu => "client CPU",
    ClientTiming => "client timing",
    Cache => "cache",
    SteadyState => "steady state",
});

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CheckOutcome {
    /// Within its bound.
    Passed,
    /// Over its bound: the run is invalid.
    Failed,
    /// Not applicable to this run, or not measured (`says` why).
    NotChecked,
}

/// One check: what it found, in words, and what to change when it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidityCheck {
    /// What it looks at.
    pub check: CheckKind,
    /// How it came out.
    pub outcome: CheckOutcome,
    /// What was measured against which bound (or why it was not checked).
    pub says: String,
    /// What to change so the next run passes; only on a failed check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
}

/// The verdict and every check behind it, failed ones first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunValidity {
    /// Valid when no check failed.
    pub verdict: Verdict,
    /// Every check, failed ones first.
    pub checks: Vec<ValidityCheck>,
}

impl RunValidity {
    /// The verdict of `checks`, sorted failed first (stable: the judge's order within each outcome).
    pub fn of(mut checks: Vec<ValidityCheck>) -> Self {
        checks.sort_by_key(|c| match c.outcome {
            CheckOutcome::Failed => 0,
            CheckOutcome::Passed => 1,
            CheckOutcome::NotChecked => 2,
        });
        let failed = checks.iter().any(|c| c.outcome == CheckOutcome::Failed);
        Self { verdict: if failed { Verdict::Invalid } else { Verdict::Valid }, checks }
    }

    /// The failed checks: the reasons a run is invalid.
    pub fn reasons(&self) -> impl Iterator<Item = &ValidityCheck> {
        self.checks.iter().filter(|c| c.outcome == CheckOutcome::Failed)
    }

    /// One line: `valid (6 checks passed)` or `invalid: client CPU, schedule`.
    pub fn headline(&self) -> String {
        match self.verdict {
            Verdict::Valid => {
                let passed = self.checks.iter().filter(|c| c.outcome == CheckOutcome::Passed).count();
                format!("valid ({passed} checks passed)")
            }
            Verdict::Invalid => {
                let reasons: Vec<&str> = self.reasons().map(|c| c.check.as_str()).collect();
                format!("invalid: {}", reasons.join(", "))
            }
        }
    }
}

/// What the load generator's own process did while a run sent its requests: how busy its event loop's workers were
/// in short windows (busy: running tasks, or wanting a core the machine gave to something else, never parked for
/// want of work) and how late they woke from short sleeps. A client with no time to spare reads answers and sends
/// requests late, and that delay is in every latency it reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientLoad {
    /// The event loop's worker threads.
    pub workers: u32,
    /// The CPUs the process may run on (its affinity and quota).
    pub cores: f64,
    /// The length of a window, ms.
    pub window_ms: f64,
    /// Windows measured (none when the run was shorter than one).
    pub windows: u32,
    /// Of them, windows in which the workers were busy at least [`SATURATED_SHARE`] of the time.
    pub busy_windows: u32,
    /// How busy the workers were over the run, as a share of their time.
    pub busy_share: f64,
    /// The whole process's CPU use over the run, as a share of its CPUs, when the platform tells it (Linux's
    /// `/proc/self/stat`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_share: Option<f64>,
    /// Event-loop wake-ups measured.
    pub wakes: u32,
    /// The 99th percentile of how late a wake-up came, ms.
    pub wake_lag_p99_ms: f64,
    /// The latest wake-up, ms.
    pub wake_lag_max_ms: f64,
}

/// A window in which the workers were busy this share of the time left them no room: timers and reads queue.
pub const SATURATED_SHARE: f64 = 0.9;
