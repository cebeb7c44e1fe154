//! Guard: schedules and their rules, what evaluations record and decide, benchmark sets, a schedule's page data.

pub(in crate::model) mod baseline_source;
pub(in crate::model) mod benchmark_set;
pub(in crate::model) mod cost;
pub(in crate::model) mod evaluation;
pub(in crate::model) mod figures;
pub(in crate::model) mod notify;
pub(in crate::model) mod policy;
pub(in crate::model) mod receiver;
pub(in crate::model) mod records;
pub(in crate::model) mod samples;
pub(in crate::model) mod schedule;
pub(in crate::model) mod schedule_detail;
pub(in crate::model) mod schedule_workload;
pub(in crate::model) mod states;
pub(in crate::model) mod window_test;

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
pub use notify::Notify;
pub use policy::{AlertPolicy, InvalidRun, Validity, MAX_POLICY_WINDOW};
pub use receiver::{check_routing_key, Receiver, PAGERDUTY_EVENTS_URL};
pub use records::{
    AlertView, Baseline, Breach, CannotMeasure, Decision, EvaluationView, Mute, Notice, PendingBreach, Reference,
    ScheduleOutcome, Serial, Shift, ThresholdCheck, WebhookDelivery,
};
pub use samples::StreamedSamples;
pub use schedule::{Cadence, Op, Schedule, ScheduleInput, Severity, Threshold, MAX_THRESHOLDS};
pub use schedule_detail::{BaselineInfo, PinnableRun, PooledInfo, ScheduleDetail};
pub use schedule_workload::{schedulable, ScheduleWorkload, MAX_SCHEDULE_REQUESTS, MAX_SCHEDULE_THINK_MS};
pub use states::{AlertKind, EvaluationStatus, Trigger};
pub use window_test::{WindowTest, WindowTestKind};
