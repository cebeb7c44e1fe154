//! Guard at work: the tick that claims due schedules and runs their evaluations in fair slots, pinning a baseline,
//! acknowledging alerts, a schedule's page and saved form, a test e-mail to its recipients, its history's change
//! points, the `/metrics` exposition and the tick hook's budget. It reads and writes through the store and applies what `judge` decides.

mod acknowledge;
mod exposition;
mod history_changes;
mod hook_limit;
mod observed;
mod pin;
mod schedule_page;
mod test_mail;
mod tick;
mod why;

pub use acknowledge::{acknowledge_alert, acknowledge_all_alerts};
pub use exposition::{exposition, EXPOSITION_CONTENT_TYPE};
pub use history_changes::history_changes;
pub use hook_limit::{HookLimit, Refusal, Turn, HOOK_BUDGET, HOOK_CLIENT_BUDGET};
pub use pin::pin_run;
pub use schedule_page::{cost_estimate, save_schedule, schedule_detail, HISTORY};
pub use test_mail::TestMailError;
pub use tick::{Guard, GuardOptions, TickReport, MAX_EVALUATION_MS};

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
