//! Spec Lab: probe reports, server metrics and speculative-decoding figures, A/B test plans.

pub(in crate::model) mod ab;
pub(in crate::model) mod speclab;

pub use ab::{ab_limits, AbCellPlan, AbPlan, AbPlanInput, AbTestInput, AbTestSummary};
pub use speclab::{
    PrefixCacheHits, ProbeReport, ProbedPath, ServerKind, ServerLatency, ServerMetrics, ServerSample, SpecCounters,
    SpecOutcome, SpecWindow, Speculation, WindowError, MAX_SERVER_SAMPLES, PROCESS_START,
};
