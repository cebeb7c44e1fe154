//! Spec Lab's report: an A/B test's cells, differences, verdicts and bottleneck panel, and its self-contained HTML
//! export. Pure: the browser makes the export from the same code.

mod ab;
mod html;

pub use ab::{
    acceptance_text, verdict, AbCell, AbEndpoint, AbMetric, AbReport, AbTestView, Acceptance, AcceptanceSource,
    ArmFigures, MetricDelta, Verdict, VerdictKind,
};
pub use html::{ab_section, cell_panel};
