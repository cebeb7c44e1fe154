//! How a Guard evaluation ended, and the plan of what that does to the schedule's alerts.

use super::answered::AlertContext;
use super::baseline_source::{Pool, ReferenceFrom};
use super::figures::GuardSummary;
use super::policy::InvalidRun;
use super::records::{Breach, Decision, Mute, PendingBreach, Reference};
use super::samples::StreamedSamples;
use super::states::EvaluationStatus;
use crate::model::{AlertId, RunId};

/// How an evaluation ended.
#[derive(Debug, Clone, PartialEq)]
pub enum EvaluationEnd {
    /// No run could be made (deleted connector or set, a run that could not start).
    Failed {
        /// Why, in words.
        error: String,
        /// The run, if one was recorded.
        run: Option<RunId>,
    },
    /// A run was made but cannot be judged: an unreachable endpoint, too many errors, too few samples, the load
    /// not as planned.
    Inconclusive {
        /// The run.
        run: RunId,
        /// Why it cannot be judged.
        reason: InvalidRun,
        /// Its successful total times and summary, when its results could be read.
        observed: Option<(Vec<f64>, GuardSummary)>,
    },
    /// Measured, but there is nothing to compare with yet: no run pinned for the set and connector, or a pooled
    /// baseline with fewer evaluations than it needs.
    NoBaseline {
        /// The run.
        run: RunId,
        /// Successful requests' total times and their summary.
        observed: (Vec<f64>, GuardSummary),
        /// A streamed run's per-request TTFT, TPOT and time to first output.
        streamed: Option<StreamedSamples>,
        /// The pool so far, when the schedule pools evaluations and has some.
        pool: Option<Pool>,
    },
    /// Measured and compared.
    Compared {
        /// The run.
        run: RunId,
        /// Successful total times and their summary.
        observed: (Vec<f64>, GuardSummary),
        /// A streamed run's per-request TTFT, TPOT and time to first output.
        streamed: Option<StreamedSamples>,
        /// What it was compared with: a pinned run or a pool.
        baseline: Box<Reference>,
        /// What was decided.
        decision: Box<Decision>,
        /// Why it may have breached, as its alert says it (only when it breached).
        context: Option<Box<AlertContext>>,
    },
}

impl EvaluationEnd {
    /// The status it leaves: never `Running`.
    pub fn status(&self) -> EvaluationStatus {
        match self {
            EvaluationEnd::Failed { .. } => EvaluationStatus::Failed,
            EvaluationEnd::Inconclusive { .. } => EvaluationStatus::Inconclusive,
            EvaluationEnd::NoBaseline { .. } => EvaluationStatus::NoBaseline,
            EvaluationEnd::Compared { decision, .. } if !decision.breaches.is_empty() => EvaluationStatus::Breached,
            EvaluationEnd::Compared { .. } => EvaluationStatus::Healthy,
        }
    }

    /// The run it made, if one was recorded.
    pub fn run(&self) -> Option<RunId> {
        match self {
            EvaluationEnd::Failed { run, .. } => *run,
            EvaluationEnd::Inconclusive { run, .. }
            | EvaluationEnd::NoBaseline { run, .. }
            | EvaluationEnd::Compared { run, .. } => Some(*run),
        }
    }

    /// Why it failed or was inconclusive, in words.
    pub fn error(&self) -> Option<String> {
        match self {
            EvaluationEnd::Failed { error, .. } => Some(error.clone()),
            EvaluationEnd::Inconclusive { reason, .. } => Some(reason.describe()),
            _ => None,
        }
    }

    /// Why the run cannot be judged, when inconclusive.
    pub fn invalid(&self) -> Option<&InvalidRun> {
        match self {
            EvaluationEnd::Inconclusive { reason, .. } => Some(reason),
            _ => None,
        }
    }

    /// The observed total times and summary, when the run was measured.
    pub fn observed(&self) -> Option<&(Vec<f64>, GuardSummary)> {
        match self {
            EvaluationEnd::Failed { .. } => None,
            EvaluationEnd::Inconclusive { observed, .. } => observed.as_ref(),
            EvaluationEnd::NoBaseline { observed, .. } | EvaluationEnd::Compared { observed, .. } => Some(observed),
        }
    }

    /// The baseline and the decision, when compared.
    pub fn comparison(&self) -> Option<(&Reference, &Decision)> {
        match self {
            EvaluationEnd::Compared { baseline, decision, .. } => Some((baseline, decision)),
            _ => None,
        }
    }

    /// What it was compared with, or the pool it is filling.
    pub fn baseline_from(&self) -> Option<ReferenceFrom> {
        match self {
            EvaluationEnd::Compared { baseline, .. } => Some(baseline.from.clone()),
            EvaluationEnd::NoBaseline { pool: Some(pool), .. } => Some(ReferenceFrom::Pooled(pool.clone())),
            _ => None,
        }
    }

    /// A streamed run's per-request times, when it measured them.
    pub fn streamed(&self) -> Option<&StreamedSamples> {
        match self {
            EvaluationEnd::NoBaseline { streamed, .. } | EvaluationEnd::Compared { streamed, .. } => streamed.as_ref(),
            _ => None,
        }
    }

    /// Why it may have breached, when it did.
    pub fn context(&self) -> Option<&AlertContext> {
        match self {
            EvaluationEnd::Compared { context, .. } => context.as_deref(),
            _ => None,
        }
    }

    /// The breaches decided (none unless compared).
    pub fn breaches(&self) -> &[Breach] {
        self.comparison().map_or(&[], |(_, decision)| &decision.breaches)
    }
}

/// The threshold key of a schedule's "cannot measure" alert: beside its thresholds' `metric:op` keys, so the one-open-
/// alert-per-key rule de-duplicates it too.
pub const CANNOT_MEASURE_KEY: &str = "cannot_measure";

/// An alert open (unacknowledged) on a schedule when an evaluation ends: one per threshold at most, and one
/// "cannot measure".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAlert {
    /// The alert.
    pub id: AlertId,
    /// Its threshold's identity (`metric:op`, [`Breach::key`]), or [`CANNOT_MEASURE_KEY`].
    pub threshold_key: String,
    /// A recovered notice went out and it has not breached since.
    pub recovered: bool,
    /// Someone was told it opened (`false`: it opened while muted).
    pub announced: bool,
}

/// What is muted as an evaluation ends.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Muting {
    /// The whole schedule, its "cannot measure" alert included.
    pub schedule: bool,
    /// These thresholds (`metric:op`).
    pub thresholds: Vec<String>,
}

impl Muting {
    /// From the schedule's mutes in force.
    pub fn of(mutes: &[Mute]) -> Self {
        Self {
            schedule: mutes.iter().any(|m| m.threshold_key.is_none()),
            thresholds: mutes.iter().filter_map(|m| m.threshold_key.clone()).collect(),
        }
    }

    /// Notices about `key` are held back.
    pub fn covers(&self, key: &str) -> bool {
        self.schedule || self.thresholds.iter().any(|k| k == key)
    }
}

/// What one finished evaluation said, as the alert state machine reads a schedule's history: its status and which
/// thresholds breached or were healthy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastEvaluation {
    /// How it ended.
    pub status: EvaluationStatus,
    /// Keys of the thresholds it breached.
    pub breached: Vec<String>,
    /// Keys of the thresholds it checked and found within their limits (or crossed but not significant).
    pub healthy: Vec<String>,
}

impl PastEvaluation {
    /// From a stored evaluation's status and decision.
    pub fn of(status: EvaluationStatus, decision: Option<&Decision>) -> Self {
        let (mut breached, mut healthy) = (Vec::new(), Vec::new());
        if status.conclusive() {
            for check in decision.map_or(&[][..], |d| &d.checks) {
                let measurable = check.baseline.is_some() && check.observed.is_some();
                match (check.breached, measurable) {
                    (true, _) => breached.push(check.threshold.key()),
                    (false, true) => healthy.push(check.threshold.key()),
                    (false, false) => {}
                }
            }
        }
        Self { status, breached, healthy }
    }
}

/// What a schedule's "cannot measure" alert becomes.
#[derive(Debug, Clone, PartialEq)]
pub enum CannotMeasurePlan {
    /// Open it: `evaluations` in a row could not measure, the latest for `reason`.
    Open {
        /// Why the latest one could not, in words.
        reason: String,
        /// How many in a row.
        evaluations: u32,
    },
    /// It is open: its reason and count move on; nothing is sent unless it had measured again since (relapsed).
    Update {
        /// The alert.
        id: AlertId,
        /// Why the latest one could not.
        reason: String,
        /// How many in a row.
        evaluations: u32,
        /// It had measured again (a notice said so) and now failed as long as the policy allows: announced again.
        relapsed: bool,
    },
}

/// What one evaluation does to its schedule's alerts, decided before anything is written (`guard::plan_alerts`)
/// and applied in one transaction (`Store::finish_evaluation`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AlertPlan {
    /// Sustained breaches of thresholds with no open alert: each opens one.
    pub open: Vec<Breach>,
    /// Threshold keys (and [`CANNOT_MEASURE_KEY`]) muted now: what opens for them is not announced.
    pub silenced: Vec<String>,
    /// Open alerts breached again: their figures move on; nothing is sent unless they had recovered.
    pub update: Vec<(AlertId, Breach)>,
    /// Of `update`, the alerts announced now: they had recovered, or opened while muted and the mute is over.
    pub relapsed: Vec<AlertId>,
    /// Breaches not yet sustained: recorded on the evaluation, no alert.
    pub pending: Vec<PendingBreach>,
    /// Open alerts whose threshold has been healthy long enough: a recovered notice each.
    pub recovered: Vec<AlertId>,
    /// The same, marked recovered without a notice: nobody was told they opened, or they are muted.
    pub recovered_quietly: Vec<AlertId>,
    /// The "cannot measure" alert opens or moves on.
    pub cannot_measure: Option<CannotMeasurePlan>,
    /// The open "cannot measure" alert whose schedule measured again: a notice saying so.
    pub measurable_again: Option<AlertId>,
    /// One webhook message per kind of notice goes out.
    pub webhook: bool,
    /// One e-mail item per notice goes to the schedule's recipients.
    pub email: bool,
}

impl AlertPlan {
    /// Something is to be told: an alert opened or relapsed, recovered, or the schedule cannot measure or can again.
    pub fn announces(&self) -> bool {
        self.open.iter().any(|b| !self.silenced.contains(&b.key()))
            || !self.relapsed.is_empty()
            || !self.recovered.is_empty()
            || match &self.cannot_measure {
                Some(CannotMeasurePlan::Open { .. }) => !self.silenced.iter().any(|k| k == CANNOT_MEASURE_KEY),
                Some(CannotMeasurePlan::Update { relapsed, .. }) => *relapsed,
                None => false,
            }
            || self.measurable_again.is_some()
    }
}
