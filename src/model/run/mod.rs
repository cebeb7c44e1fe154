//! Runs: the plan (and how its load changes: `shape`), the run as kept and shown, each request's measurement and stored record, live progress,
//! objectives (SLOs), the verdict on a run's figures and the load generator's own load.

pub(in crate::model) mod engine_timings;
pub(in crate::model) mod fingerprint;
#[cfg(test)]
pub(crate) mod fixtures;
pub(in crate::model) mod headline;
pub(in crate::model) mod iteration;
pub(in crate::model) mod log_histogram;
pub(in crate::model) mod measurement;
pub(in crate::model) mod plan;
pub(in crate::model) mod progress;
pub(in crate::model) mod sessions;
pub(in crate::model) mod shape;
pub(in crate::model) mod slo;
pub(in crate::model) mod validity;
pub(in crate::model) mod view;

pub use engine_timings::{EngineTimingTotals, EngineTimings};
pub use fingerprint::{AnsweredBy, Fingerprint, Seen, SeenValues};
pub use headline::RunHeadline;
pub use iteration::{cost_usd, row_prompt, IterationRecord, ROW_PROMPT_CHARS};
pub use log_histogram::{LogHistogram, RELATIVE_ACCURACY as ITL_RELATIVE_ACCURACY};
pub use measurement::{
    ChunkMark, ErrorClass, IterationError, Measurement, RetriedAttempt, RetryCause, ServerTiming, Timeline, TokenSource,
};
pub use plan::{limits, Agent, ConnectionPolicy, Job, LoadMode, OpenedAhead, RunPlan, RunPlanInput};
pub use progress::{LivePoint, RunProgress, RunUpdate};
pub use sessions::Session;
pub use shape::{target as shape_target, LoadShape, RampCurve, RateStep, MAX_SHAPE_SECONDS, MAX_STEPS};
pub use slo::{parse_slos, Slo, SloError, SloMetric, SloScope, MAX_SLOS};
pub use validity::{CheckKind, CheckOutcome, ClientLoad, RunValidity, ValidityCheck, Verdict, SATURATED_SHARE};
pub use view::{RunStatus, RunView};
