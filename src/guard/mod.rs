//! Guard: scheduled regression checks. A tick claims the due schedules, runs each one's benchmark set as a
//! regular run, judges whether the run is valid, compares it with its baseline (a pinned run or a pool of recent healthy evaluations; Welch's t-test and
//! thresholds), and opens, updates or recovers alerts under the schedule's policy; the in-process loop ticks every few minutes and `POST /api/public/hooks/guard-tick` lets an external
//! scheduler tick instead.

mod acknowledge;
mod alerts;
mod crossing;
mod decide;
mod evidence;
mod exposition;
mod fair_share;
mod history_changes;
mod history_checks;
mod hook_limit;
mod observed;
mod pin;
mod plan;
mod pool;
mod schedule_page;
mod tick;
mod validity;

pub use acknowledge::{acknowledge_alert, acknowledge_all_alerts};
pub use alerts::{plan_alerts, Channels, Finished, Standing};
pub use decide::{decide, decide_run, observe, send_order_lag1, streamed_samples};
pub use exposition::{exposition, EXPOSITION_CONTENT_TYPE};
pub use fair_share::pick_fairly;
pub use history_changes::history_changes;
pub use hook_limit::{HookLimit, Refusal, Turn, HOOK_BUDGET, HOOK_CLIENT_BUDGET};
pub use pin::pin_run;
pub use plan::{guard_plan, GUARD_TEMPERATURE};
pub use pool::{measured_key, pool_state, PoolState};
pub use schedule_page::{cost_estimate, save_schedule, schedule_detail, HISTORY};
pub use tick::{Guard, GuardOptions, TickReport, MAX_EVALUATION_MS};
pub use validity::judge_validity;

/// Starts the due schedules every `interval`, and again each time an evaluation ends (its slot is free), until the
/// process ends; it never waits for an evaluation, so a long one holds neither the next due schedules nor another
/// workspace's. A failed pass is logged and the next one comes on time.
pub async fn tick_forever(guard: Guard, interval: std::time::Duration) {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            () = guard.evaluation_ended() => {}
        }
        if let Err(e) = guard.dispatch().await {
            tracing::error!(error = %e, "guard tick failed");
        }
    }
}
