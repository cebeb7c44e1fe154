//! One incident in the feed: the thresholds one evaluation breached (or a schedule that cannot measure), each with
//! its figures, state and a mute of its own, then why — what changed since the baseline, the run's verdict, its
//! slowest requests — and one Acknowledge for all of them.

use leptos::prelude::*;
use leptos_router::components::A;

use super::feed::figure;
use crate::guard::api::{acknowledge_alert, mute_schedule};
use crate::guard::model::{AlertContext, AlertKind, AlertView, Breach, Severity};
use crate::model::{utc_minute as when, AlertId, RunId};
use crate::ui::components::alert_badge;

/// The incident of `alerts` (one or more, as `model::incidents` gathered them).
#[component]
pub fn Incident(alerts: Vec<AlertView>) -> impl IntoView {
    let badge = alert_badge();
    let Some(first) = alerts.first().cloned() else { return ().into_any() };
    let ids: Vec<AlertId> = alerts.iter().filter(|a| !a.acknowledged).map(|a| a.id).collect();
    let ack = Action::new(move |_: &()| {
        let ids = ids.clone();
        async move {
            for id in ids {
                acknowledge_alert(id).await?;
            }
            badge.refresh();
            Ok::<(), crate::error::AppError>(())
        }
    });
    let severity = if alerts.iter().any(|a| a.breach.as_ref().is_some_and(|b| b.severity == Severity::Critical)) {
        Severity::Critical
    } else {
        Severity::Warn
    };
    let count = match (&first.breach, &first.cannot_measure) {
        (_, Some(c)) => {
            format!("last tried {} · {} evaluation(s) in a row", when(first.updated_at_ms), c.evaluations)
        }
        _ => format!("last breached {} · {} time(s)", when(first.updated_at_ms), first.breach_count),
    };
    let thresholds = match alerts.len() {
        1 => String::new(),
        n => format!(" · {n} thresholds in one evaluation"),
    };
    let acknowledged = first.acknowledged;
    let recovered = alerts.iter().all(|a| a.recovered_at_ms.is_some());
    view! {
        <li class="alert" class:open=!acknowledged class:critical=severity == Severity::Critical
            class:cannot-measure=first.kind == AlertKind::CannotMeasure class:recovered=recovered>
            <div class="alert-head">
                <span class="severity">{severity.as_str()}</span>
                <A href=format!("/guard/schedules/{}", first.schedule_id)>{first.schedule_name.clone()}</A>
                <span class="muted">{format!(" · raised {} · {count}{thresholds}", when(first.created_at_ms))}</span>
            </div>
            {alerts.iter().cloned().map(|alert| view! { <ThresholdLine alert/> }).collect_view()}
            {first.context.clone().map(|context| view! { <Why context run=first.run_id/> })}
            <div class="alert-foot">
                {(!acknowledged).then(|| view! {
                    <button type="button" class="ack" on:click=move |_| { ack.dispatch(()); }>"Acknowledge"</button>
                })}
            </div>
        </li>
    }
    .into_any()
}

/// One alert of an incident: its figures, the run, where it stands and its own mute.
#[component]
fn ThresholdLine(alert: AlertView) -> impl IntoView {
    let badge = alert_badge();
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
    // The alert's own threshold; a "cannot measure" alert's is the whole schedule.
    let (schedule_id, key) = (alert.schedule_id, alert.breach.as_ref().map(Breach::key));
    let mute = Action::new(move |_: &()| {
        let key = key.clone();
        async move {
            let result = mute_schedule(schedule_id, key, 24 * 60).await;
            badge.refresh();
            result
        }
    });
    let what = match (&alert.breach, &alert.cannot_measure) {
        (Some(b), _) => breach_line(b),
        (None, Some(c)) => format!("cannot measure: {}", c.reason),
        (None, None) => String::new(),
    };
    view! {
        <div class="alert-body">
            <strong>{what}</strong>
            {alert.run_id.map(|run| view! { " · " <A href=format!("/runs/{run}")>"the run"</A> })}
            <div class="alert-state">
                <span class="status">{status}</span>
                {(!alert.acknowledged && alert.muted_until_ms.is_none()).then(|| view! {
                    <button type="button" class="mute link" title="Nothing is sent for it for 24 hours; evaluations go on" on:click=move |_| { mute.dispatch(()); }>"Mute 24 h"</button>
                })}
            </div>
        </div>
    }
}

/// Why the evaluation may have breached: what changed, the run's verdict, its slowest requests.
#[component]
fn Why(context: AlertContext, run: Option<RunId>) -> impl IntoView {
    let slowest = context.slowest_line().map(|line| match run {
        Some(run) => view! {
            <li>{line}" · "<A href=format!("/runs/{run}?sort=total&descending=true#results") attr:class="slowest">"see them in the run"</A></li>
        }
        .into_any(),
        None => view! { <li>{line}</li> }.into_any(),
    });
    view! {
        <ul class="why">
            <li class="changed" class:none=context.changes.is_empty()>{context.changed_line()}</li>
            <li class="validity" class:invalid=context.verdict == crate::model::Verdict::Invalid>{context.validity_line()}</li>
            {slowest}
        </ul>
    }
}

/// A breach in one line: the threshold, the change, baseline → observed and the test's p-value (Welch's; a change
/// point's, whose "baseline" is the level before the change and whose "observed" the level after; a window test's,
/// whose "baseline" is the window's center).
fn breach_line(b: &Breach) -> String {
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
