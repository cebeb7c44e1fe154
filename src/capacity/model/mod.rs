//! Capacity searches and sweeps: load levels, plans and summaries.

mod levels;
mod sweep;

pub use levels::{
    LevelPlan, LevelsError, LoadAxis, SearchSpace, DEFAULT_RESOLUTION, MAX_LISTED_LEVELS, MAX_REPETITIONS,
    MAX_REPETITION_PAUSE_S,
};
pub use sweep::{SweepInput, SweepPlan, SweepSummary, MAX_SWEEP_REQUESTS_PER_LEVEL};
