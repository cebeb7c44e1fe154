//! Guard's types: schedules and their rules, what evaluations record and decide, benchmark sets, a schedule's page
//! data. Pure and compiled for the browser too; it imports only the kernel's `crate::model`.

mod answered;
mod baseline_source;
mod benchmark_set;
mod cost;
mod evaluation;
mod figures;
#[cfg(feature = "ssr")]
mod incident;
mod notify;
mod policy;
mod pooled;
mod receiver;
mod records;
mod samples;
mod schedule;
mod schedule_detail;
mod schedule_workload;
mod states;
mod threshold_words;
mod window_test;

pub use answered::{AlertContext, Answered, Change, SlowRequest};
pub use baseline_source::{
    BaselineSource, Pool, ReferenceFrom, MAX_ROLLING_EVALUATIONS, MAX_WINDOW_EVALUATIONS, MAX_WINDOW_HOURS,
    MIN_POOLED_EVALUATIONS,
};
pub use benchmark_set::{BenchmarkSet, BenchmarkSetInput, SetPrompt, ADVISED_MIN_PROMPTS, MAX_SET_PROMPTS};
pub use cost::{CostEstimate, RunVolume};
pub use evaluation::{
    AlertPlan, CannotMeasurePlan, EvaluationEnd, Muting, OpenAlert, PastEvaluation, CANNOT_MEASURE_KEY,
};
pub use figures::{GuardSummary, Metric};
#[cfg(feature = "ssr")]
pub use incident::{folded, incidents};
pub use notify::Notify;
pub use policy::{AlertPolicy, InvalidRun, Validity, MAX_POLICY_WINDOW};
pub use pooled::PooledEvaluation;
pub use receiver::{check_routing_key, Receiver, RoutingKeyError, PAGERDUTY_EVENTS_URL};
pub use records::{
    AlertView, Baseline, Breach, CannotMeasure, Decision, EvaluationView, Mute, Notice, PendingBreach, Reference,
    ScheduleOutcome, Serial, Shift, ThresholdCheck, WebhookDelivery,
};
pub use samples::StreamedSamples;
pub use schedule::{Cadence, Op, Schedule, ScheduleInput, Severity, Threshold, MAX_THRESHOLDS};
pub use schedule_detail::{BaselineInfo, PinnableRun, PooledInfo, ScheduleDetail};
pub use schedule_workload::{schedulable, ScheduleWorkload, MAX_SCHEDULE_REQUESTS, MAX_SCHEDULE_THINK_MS};
pub use states::{AlertKind, EvaluationStatus, Trigger};
pub use window_test::{WindowTest, WindowTestError, WindowTestKind};
