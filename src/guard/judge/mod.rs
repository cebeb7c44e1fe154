//! Guard's rules, pure: whether a run is valid, each threshold judged against the baseline (Welch, the shift, the
//! effective sample size, Benjamini–Hochberg across tests), the schedule's history checked for change points and
//! window tests, the alert state machine under a policy and what an evaluation announces, a pooled baseline's
//! figures, the run a schedule makes, which schedules a tick starts, and what differs between what answered a run
//! and its baseline. They take Guard's model and the kernel's stats and return values: no store, no clock, no I/O,
//! so `bench --against`, the detection benchmark and a replay call them as the tick does.

mod alerts;
mod announce;
mod changes;
mod crossing;
mod decide;
mod evidence;
mod fair_share;
mod history_checks;
mod plan;
mod pool;
mod validity;

pub use alerts::{plan_alerts, Channels, Finished, Standing};
pub use announce::{announcements, Applied};
pub use changes::{alert_context, answered_of, changes, SLOWEST_LISTED};
pub use decide::{decide, decide_run, observe, send_order_lag1, streamed_samples};
pub use fair_share::pick_fairly;
pub use history_checks::{change_point_settings, measured_history};
pub use plan::{guard_plan, GUARD_TEMPERATURE};
pub use pool::{measured_key, pool_state, pooled_figures, PoolState};
pub use validity::{heeded, judge_validity};
