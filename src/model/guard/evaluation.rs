//! How a Guard evaluation ended, and the plan of what that does to the schedule's alerts.

use crate::model::common::ids::{AlertId, RunId};
use crate::model::guard::records::{Baseline, Breach, Decision};
use crate::model::guard::schedule::GuardSummary;
use crate::model::guard::states::EvaluationStatus;

/// How an evaluation ended.
#[derive(Debug, Clone, PartialEq)]
pub enum EvaluationEnd {
    /// The run could not be made or measured (bad endpoint, expired key, deleted connector…).
    Failed {
        /// Why, in words.
        error: String,
        /// The run, if one was recorded.
        run: Option<RunId>,
    },
    /// Measured, but no baseline is pinned for the set and connector.
    NoBaseline {
        /// The run.
        run: RunId,
        /// Successful requests' total times and their summary.
        observed: (Vec<f64>, GuardSummary),
    },
    /// Measured and compared.
    Compared {
        /// The run.
        run: RunId,
        /// Successful total times and their summary.
        observed: (Vec<f64>, GuardSummary),
        /// The baseline compared with.
        baseline: Box<Baseline>,
        /// What was decided.
        decision: Box<Decision>,
    },
}

impl EvaluationEnd {
    /// The status it leaves: never `Running`.
    pub fn status(&self) -> EvaluationStatus {
        match self {
            EvaluationEnd::Failed { .. } => EvaluationStatus::Failed,
            EvaluationEnd::NoBaseline { .. } => EvaluationStatus::NoBaseline,
            EvaluationEnd::Compared { decision, .. } if !decision.breaches.is_empty() => EvaluationStatus::Breached,
            EvaluationEnd::Compared { .. } => EvaluationStatus::Healthy,
        }
    }

    /// The run it made, if one was recorded.
    pub fn run(&self) -> Option<RunId> {
        match self {
            EvaluationEnd::Failed { run, .. } => *run,
            EvaluationEnd::NoBaseline { run, .. } | EvaluationEnd::Compared { run, .. } => Some(*run),
        }
    }

    /// Why it failed.
    pub fn error(&self) -> Option<&str> {
        match self {
            EvaluationEnd::Failed { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The observed total times and summary, when the run was measured.
    pub fn observed(&self) -> Option<&(Vec<f64>, GuardSummary)> {
        match self {
            EvaluationEnd::Failed { .. } => None,
            EvaluationEnd::NoBaseline { observed, .. } | EvaluationEnd::Compared { observed, .. } => Some(observed),
        }
    }

    /// The baseline and the decision, when compared.
    pub fn comparison(&self) -> Option<(&Baseline, &Decision)> {
        match self {
            EvaluationEnd::Compared { baseline, decision, .. } => Some((baseline, decision)),
            _ => None,
        }
    }

    /// The breaches decided (none unless compared).
    pub fn breaches(&self) -> &[Breach] {
        self.comparison().map_or(&[], |(_, decision)| &decision.breaches)
    }
}

/// An alert open (unacknowledged) on a schedule when an evaluation ends: one per threshold at most.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAlert {
    /// The alert.
    pub id: AlertId,
    /// Its threshold's identity (`metric:op`, [`Breach::key`]).
    pub threshold_key: String,
}

/// What one evaluation does to its schedule's alerts, decided before anything is written (`guard::plan_alerts`)
/// and applied in one transaction (`Store::finish_evaluation`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AlertPlan {
    /// Breaches of thresholds with no open alert: each opens one.
    pub open: Vec<Breach>,
    /// Open alerts breached again: their figures move on, nothing is sent.
    pub update: Vec<(AlertId, Breach)>,
    /// One webhook message announces the opened alerts.
    pub webhook: bool,
    /// One e-mail item per opened alert goes to the schedule's address.
    pub email: bool,
}
