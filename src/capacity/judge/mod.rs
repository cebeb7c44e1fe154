//! Capacity's rules, pure: a level judged against the objectives (by the same rules as a run's goodput), which
//! level to try next (bracket by doubling, then bisect; or the listed levels), the knee of a sweep's curve, and a
//! bootstrap over the levels tried that says how sure the answer is. Model and stats in, a judgment out: no store,
//! no clock.

mod bootstrap;
pub mod knee;
mod level;
mod levels;
mod objectives;
mod search;

pub use bootstrap::{bootstrap, BootLevel, Bootstrap, RESAMPLES};
pub use knee::knee;
pub use level::{level_figures, LevelRun, GROWTH_LIMIT, MIN_ACHIEVED_SHARE};
pub use levels::{highest_passing, level_input, spaced_rates, Picker, Step};
pub use objectives::{figure_name, judge, passes, records, Criteria, Judgment, RequestFigures};
pub use search::Search;
