//! Spec Lab's report: an A/B test's cells, differences, verdicts and bottleneck panel.

pub(in crate::report) mod ab;

pub use ab::{
    acceptance_text, verdict, AbCell, AbEndpoint, AbMetric, AbReport, AbTestView, Acceptance, AcceptanceSource,
    ArmFigures, MetricDelta, Verdict, VerdictKind, ALPHA,
};
