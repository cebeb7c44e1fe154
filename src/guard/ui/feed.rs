//! `/guard`: the alert feed (open incidents first — the thresholds one evaluation breached, with why: `incident`;
//! acknowledge one or all; mute a threshold) and the schedules with how their last evaluation went and their
//! mutes.

use leptos::prelude::*;
use leptos_router::components::A;

use super::incident::Incident;
use crate::guard::api::{
    acknowledge_all_alerts, list_alerts, list_mutes, list_schedules, mute_schedule, unmute_schedule,
};
use crate::guard::model::{incidents, EvaluationStatus, Metric, Mute, Schedule};
use crate::model::{utc_minute as when, ScheduleId};
use crate::ui::components::{alert_badge, ErrorBox, Layout};
use crate::ui::hooks::resource;

/// A figure with its unit.
pub fn figure(metric: Metric, value: Option<f64>) -> String {
    match (metric, value) {
        (_, None) => "—".into(),
        (Metric::TokS, Some(v)) => format!("{v:.1} tok/s"),
        (Metric::CostUsd, Some(v)) => format!("${v:.6}"),
        (Metric::ErrorRate | Metric::AcceptanceRate, Some(v)) => format!("{:.1}%", v * 100.0),
        // Every other figure is a time.
        (_, Some(v)) => format!("{v:.1} ms"),
    }
}

/// The Guard page.
#[component]
pub fn GuardPage() -> impl IntoView {
    let badge = alert_badge();
    let alerts = resource(move || badge.0.get(), |_| list_alerts());
    let schedules = resource(|| (), |_| list_schedules());
    let mutes = resource(move || badge.0.get(), |_| list_mutes());
    let ack_all = Action::new(move |_: &()| async move {
        let result = acknowledge_all_alerts().await;
        badge.refresh();
        result
    });
    view! {
        <Layout title="Guard">
            <p class="lead">"Scheduled checks of your endpoints against a pinned baseline. An alert opens once when a \
                threshold is crossed — for latency, only when Welch's t-test also finds the slowdown significant, and as \
                often as the schedule's policy asks — sends a notice when it recovers, and stays open until someone \
                acknowledges it. A run too broken to judge is inconclusive; several in a row raise a \"cannot measure\" \
                alert."</p>
            <div class="actions">
                <A href="/guard/schedules/new" attr:id="new-schedule" attr:class="button primary">"New schedule"</A>
                <A href="/guard/sets" attr:id="benchmark-sets" attr:class="button">"Benchmark sets"</A>
                <button type="button" id="ack-all" on:click=move |_| { ack_all.dispatch(()); }>"Acknowledge all"</button>
            </div>
            <h2>"Alerts"</h2>
            <Transition fallback=|| view! { <p>"Loading alerts…"</p> }>
                {move || Suspend::new(async move {
                    match alerts.await {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p id="no-alerts" class="muted">"No alerts."</p> }.into_any(),
                        Ok(list) => view! {
                            <ul class="alert-feed" id="alerts">
                                {incidents(list).into_iter().map(|alerts| view! { <Incident alerts/> }).collect_view()}
                            </ul>
                        }.into_any(),
                    }
                })}
            </Transition>
            <h2>"Schedules"</h2>
            <Suspense fallback=|| view! { <p>"Loading schedules…"</p> }>
                {move || Suspend::new(async move {
                    match (schedules.await, mutes.await) {
                        (Err(e), _) | (_, Err(e)) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        (Ok(list), _) if list.is_empty() => view! { <p id="no-schedules" class="muted">"No schedules yet."</p> }.into_any(),
                        (Ok(list), Ok(mutes)) => view! { <ScheduleTable list mutes/> }.into_any(),
                    }
                })}
            </Suspense>
        </Layout>
    }
}

/// A schedule's mutes in force, each with Unmute, or a button muting the whole schedule for 24 hours.
#[component]
fn MuteCell(schedule: ScheduleId, mutes: Vec<Mute>) -> impl IntoView {
    let badge = alert_badge();
    let change = Action::new(move |key: &Option<Option<String>>| {
        let key = key.clone();
        async move {
            let result = match key {
                Some(threshold) => unmute_schedule(schedule, threshold).await.map(|_| ()),
                None => mute_schedule(schedule, None, 24 * 60).await.map(|_| ()),
            };
            badge.refresh();
            result
        }
    });
    let mute_all = mutes.iter().all(|m| m.threshold_key.is_some());
    view! {
        <td class="mutes">
            {mutes.into_iter().map(|m| {
                let what = m.threshold_key.clone().unwrap_or_else(|| "all".into());
                view! { <span class="mute">{format!("{what} muted until {} ", when(m.until_ms))}
                    <button type="button" class="link unmute" on:click=move |_| { change.dispatch(Some(m.threshold_key.clone())); }>"Unmute"</button></span> }
            }).collect_view()}
            {mute_all.then(|| view! { <button type="button" class="link mute-schedule" on:click=move |_| { change.dispatch(None); }>"Mute 24 h"</button> })}
        </td>
    }
}

#[component]
fn ScheduleTable(list: Vec<Schedule>, mutes: Vec<Mute>) -> impl IntoView {
    view! {
        <table class="table" id="schedules">
            <thead><tr><th>"Name"</th><th>"Every"</th><th>"State"</th><th>"Next run (UTC)"</th><th>"Last run"</th><th>"Muted"</th></tr></thead>
            <tbody>{list.into_iter().map(|s| {
                let last = match (&s.last_status, s.last_run_at_ms) {
                    (Some(status), Some(at)) => format!("{} · {}", status.label(), when(at)),
                    _ => "never".into(),
                };
                view! {
                    <tr>
                        <td><A href=format!("/guard/schedules/{}", s.id)>{s.input.name.clone()}</A></td>
                        <td>{s.input.cadence.as_str()}</td>
                        <td>{if s.input.enabled { "active" } else { "paused" }}</td>
                        <td>{when(s.next_run_at_ms)}</td>
                        <td class:error-cell=s.last_status.is_some_and(EvaluationStatus::unmeasured) title=s.last_error.clone().unwrap_or_default()>{last}</td>
                        <MuteCell schedule=s.id mutes=mutes.iter().filter(|m| m.schedule_id == s.id).cloned().collect()/>
                    </tr>
                }
            }).collect_view()}</tbody>
        </table>
    }
}
