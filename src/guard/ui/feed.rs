//! `/guard`: the alert feed (open incidents first — every threshold one evaluation breached on one card, the others
//! and why it opened drawn by the server; acknowledge one incident or all; mute an incident's thresholds) and the
//! schedules with how their last evaluation went and their mutes.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::guard::api::{
    acknowledge_alert, acknowledge_all_alerts, list_alerts, list_mutes, list_schedules, mute_schedule, unmute_schedule,
};
use crate::guard::model::{AlertKind, AlertView, EvaluationStatus, Metric, Mute, Schedule};
use crate::model::{utc_minute as when, ScheduleId};
use crate::ui::components::{alert_badge, ErrorBox, Layout, ServerPart};
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
                                {list.into_iter().map(|alert| view! { <AlertItem alert/> }).collect_view()}
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
                        (Ok(list), _) if list.is_empty() => view! { <p id="no-schedules" class="muted">"No schedules yet: " <A href="/guard/schedules/new">"schedule a check"</A> ", and Guard says here, with the reason, when an endpoint gets slower."</p> }.into_any(),
                        (Ok(list), Ok(mutes)) => view! { <ScheduleTable list mutes/> }.into_any(),
                    }
                })}
            </Suspense>
        </Layout>
    }
}

#[component]
fn AlertItem(alert: AlertView) -> impl IntoView {
    let badge = alert_badge();
    let id = alert.id;
    let ack = Action::new(move |_: &()| async move {
        let result = acknowledge_alert(id).await;
        badge.refresh();
        result
    });
    let status = if alert.acknowledged {
        format!("acknowledged {}", alert.acknowledged_at_ms.map(when).unwrap_or_default())
    } else {
        let state = match (alert.recovered_at_ms, alert.healthy_since_ms) {
            (Some(t), _) if alert.kind == AlertKind::CannotMeasure => {
                format!("open · measuring again since {}", when(t))
            }
            (Some(t), _) if alert.announced => format!("open · recovered {} (notice sent)", when(t)),
            (Some(t), _) => format!("open · recovered {}", when(t)),
            (None, Some(t)) => format!("open · healthy since {}", when(t)),
            (None, None) => "open".to_string(),
        };
        let quiet = if alert.announced { "" } else { " · opened while muted: nobody was told yet" };
        let muted = alert.muted_until_ms.map(|t| format!(" · muted until {} UTC", when(t))).unwrap_or_default();
        format!("{state}{quiet}{muted}")
    };
    // The incident's thresholds; a "cannot measure" alert's is the whole schedule.
    let schedule_id = alert.schedule_id;
    let keys: Vec<Option<String>> = match &alert.breach {
        Some(b) => std::iter::once(b.key()).chain(alert.also_keys).map(Some).collect(),
        None => vec![None],
    };
    let mute = Action::new(move |_: &()| {
        let keys = keys.clone();
        async move {
            let mut result = Ok(());
            for key in keys {
                result = mute_schedule(schedule_id, key, 24 * 60).await.map(|_| ());
                if result.is_err() {
                    break;
                }
            }
            badge.refresh();
            result
        }
    });
    let severity = alert.breach.as_ref().map_or(crate::guard::model::Severity::Warn, |b| b.severity);
    let (what, count) = match (&alert.breach, &alert.cannot_measure) {
        (Some(b), _) => {
            (breach_line(b), format!("last breached {} · {} time(s)", when(alert.updated_at_ms), alert.breach_count))
        }
        (None, Some(c)) => (
            format!("cannot measure: {}", c.reason),
            format!("last tried {} · {} evaluation(s) in a row", when(alert.updated_at_ms), c.evaluations),
        ),
        (None, None) => (String::new(), String::new()),
    };
    view! {
        <li class="alert" class:open=!alert.acknowledged class:critical=severity == crate::guard::model::Severity::Critical
            class:cannot-measure=alert.kind == AlertKind::CannotMeasure class:recovered=alert.recovered_at_ms.is_some()>
            <div class="alert-head">
                <span class="severity">{severity.as_str()}</span>
                <A href=format!("/guard/schedules/{}", alert.schedule_id)>{alert.schedule_name.clone()}</A>
                <span class="muted">{format!(" · raised {} · {count}", when(alert.created_at_ms))}</span>
            </div>
            <div class="alert-body">
                <strong>{what}</strong>
                {alert.run_id.map(|run| view! { " · " <A href=format!("/runs/{run}")>"the run"</A> })}
            </div>
            {alert.why_html.map(|html| view! { <ServerPart html/> })}
            <div class="alert-foot">
                <span class="status">{status}</span>
                {(!alert.acknowledged).then(|| view! {
                    <button type="button" class="ack" on:click=move |_| { ack.dispatch(()); }>"Acknowledge"</button>
                })}
                {(!alert.acknowledged && alert.muted_until_ms.is_none()).then(|| view! {
                    <button type="button" class="mute" title="Nothing is sent for its thresholds for 24 hours; evaluations go on" on:click=move |_| { mute.dispatch(()); }>"Mute 24 h"</button>
                })}
            </div>
        </li>
    }
}

/// A breach in one line: the threshold, the change, baseline → observed and the test's p-value (Welch's; a change
/// point's, whose "baseline" is the level before the change and whose "observed" the level after; a window test's,
/// whose "baseline" is the window's center).
fn breach_line(b: &crate::guard::model::Breach) -> String {
    use crate::guard::model::Op;
    let change = b.pct_change.map_or_else(|| format!("{:+.3}", b.delta), |p| format!("{p:+.1}%"));
    let limit = match b.op {
        Op::PctIncrease => format!("+{}%", b.threshold),
        Op::ChangePoint if b.metric.worse_when_higher() => format!("+{}%", b.threshold),
        Op::PctDecrease | Op::ChangePoint => format!("−{}%", b.threshold),
        Op::AbsIncrease => format!("+{}", figure(b.metric, Some(b.threshold))),
    };
    let (from, to, test) = match (b.op, &b.test) {
        (Op::ChangePoint, _) => ("level before", "level after", "change point"),
        (_, Some(window)) => ("window center", "observed", window.kind.as_str()),
        _ => ("baseline", "observed", "Welch"),
    };
    let latest = b.latest.map_or_else(String::new, |v| format!(" (this run {})", figure(b.metric, Some(v))));
    let p_value = b.p_value.map_or("p n/a".to_string(), |p| format!("p = {}", crate::report::p_value(p)));
    format!(
        "{} {} {change} (threshold {limit}): {from} {} → {to} {}{latest}, {test} {p_value}",
        b.metric.as_str(),
        b.op.as_str(),
        figure(b.metric, Some(b.baseline)),
        figure(b.metric, Some(b.observed))
    )
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
