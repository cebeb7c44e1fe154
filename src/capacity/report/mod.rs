//! A capacity search's or sweep's report (levels, answer, knee, interval) and a repeated run's figures over its
//! repetitions.

mod answer;
mod repeated;
mod search;

pub use answer::answer_text;
#[cfg(feature = "ssr")]
pub use repeated::{compare_repeated, repeated_report};
pub use repeated::{figure_label, figure_value, RepeatedComparison, RepeatedDelta, RepeatedReport, Repetition};
pub use search::{AnswerInterval, CapacityLevel, CapacityReport, Saturation, SweepView};
