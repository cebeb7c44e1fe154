//! `/guard/schedules/new` and `/guard/schedules/:id`: a schedule's form, and for an existing one its baseline
//! (pin a completed run), Run now, pause and resume, Send test, the history chart, every evaluation with why it
//! did or did not alert, and the webhook delivery log.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::{use_navigate, use_params_map};

use crate::api::connectors::list_connectors;
use crate::api::guard::{
    delete_schedule, enable_schedule, get_schedule, list_sets, pin_baseline, run_schedule_now, send_test_webhook,
    ScheduleDetail,
};
use crate::model::{
    utc_second as when, BaselineInfo, BenchmarkSet, CostEstimate, EvaluationStatus, EvaluationView, PinnableRun, RunId,
    Schedule, ScheduleId, WebhookDelivery, ADVISED_MIN_PROMPTS,
};
use crate::ui::components::{alert_badge, mail_setup, ErrorBox, Layout, ScheduleForm};
use crate::ui::hooks::resource;

fn ms(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.1} ms"))
}

/// A new schedule.
#[component]
pub fn NewSchedulePage() -> impl IntoView {
    let choices = resource(|| (), |_| async { (list_sets().await, list_connectors().await, mail_setup().await) });
    view! {
        <Layout title="New schedule">
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match choices.await {
                        (Ok(sets), _, _) if sets.is_empty() => view! {
                            <p id="need-set">"A schedule runs a benchmark set: " <A href="/guard/sets">"create one first"</A> "."</p>
                        }.into_any(),
                        (Ok(sets), Ok(connectors), mail) => view! { <ScheduleForm existing=None sets connectors mail/> }.into_any(),
                        (Err(e), _, _) | (_, Err(e), _) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                    }
                })}
            </Suspense>
        </Layout>
    }
}

/// An existing schedule.
#[component]
pub fn SchedulePage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").and_then(|raw| raw.parse::<ScheduleId>().ok()));
    let refresh = RwSignal::new(0u32);
    // Outlives the reload that follows each action, so its outcome stays on screen.
    let notice = RwSignal::new(None::<Notice>);
    let detail = resource(
        move || (id(), refresh.get()),
        |(id, _)| async move {
            match id {
                Some(id) => {
                    Some((get_schedule(id).await, list_sets().await, list_connectors().await, mail_setup().await))
                }
                None => None,
            }
        },
    );
    view! {
        <Layout title="Schedule">
            <Transition fallback=|| view! { <p>"Loading the schedule…"</p> }>
                {move || Suspend::new(async move {
                    match detail.await {
                        None => view! { <ErrorBox message="No such schedule.".to_string()/> }.into_any(),
                        Some((Ok(detail), Ok(sets), Ok(connectors), mail)) => view! {
                            <ScheduleView detail=detail.clone() refresh notice/>
                            <h2>"Settings"</h2>
                            <ScheduleForm existing=Some(detail.schedule) sets connectors mail/>
                        }.into_any(),
                        Some((Err(e), _, _, _) | (_, Err(e), _, _) | (_, _, Err(e), _)) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                    }
                })}
            </Transition>
        </Layout>
    }
}

/// What the last action on the page did: a message, and whether it went wrong.
#[derive(Debug, Clone, PartialEq)]
struct Notice {
    id: &'static str,
    text: String,
    failed: bool,
    details: Vec<String>,
}

impl Notice {
    fn of<T>(
        id: &'static str,
        result: Result<T, crate::error::AppError>,
        describe: impl FnOnce(T) -> (String, bool, Vec<String>),
    ) -> Self {
        match result {
            Ok(value) => {
                let (text, failed, details) = describe(value);
                Self { id, text, failed, details }
            }
            Err(e) => Self { id, text: e.to_string(), failed: true, details: vec![] },
        }
    }
}

#[component]
fn ScheduleView(detail: ScheduleDetail, refresh: RwSignal<u32>, notice: RwSignal<Option<Notice>>) -> impl IntoView {
    let ScheduleDetail {
        schedule,
        set,
        connector_name,
        baseline,
        earlier_baselines,
        cost,
        evaluations,
        deliveries,
        history_svg,
        pinnable_runs,
    } = detail;
    let id = schedule.id;
    let badge = alert_badge();
    let reload = move |shown: Notice| {
        notice.set(Some(shown));
        refresh.update(|n| *n += 1);
        badge.refresh();
    };
    let run_now = Action::new(move |_: &()| async move {
        let result = run_schedule_now(id).await;
        reload(Notice::of("run-now-result", result, |o| {
            let what = match (o.alerts_opened.len(), o.alerts_updated.len(), &o.error) {
                (_, _, Some(e)) => format!(": {e}"),
                (0, 0, None) => String::new(),
                (opened, updated, None) => {
                    format!(": {opened} alert(s) opened, {updated} open alert(s) breached again")
                }
            };
            let p = o.p_value.map(|p| format!(", Welch p = {}", crate::report::p_value(p))).unwrap_or_default();
            (format!("Run now: {}{p}{what}", o.status.label()), o.status == EvaluationStatus::Failed, vec![])
        }));
    });
    let enabled = schedule.input.enabled;
    let toggle = Action::new(move |_: &()| async move {
        let result = enable_schedule(id, !enabled).await;
        reload(Notice::of("toggle-result", result, |s| {
            (if s.input.enabled { "Resumed.".to_string() } else { "Paused.".to_string() }, false, vec![])
        }));
    });
    let test = Action::new(move |_: &()| async move {
        let result = send_test_webhook(id).await;
        reload(Notice::of("test-result", result, |d| match d.delivered_at_ms {
            Some(_) => ("Test message delivered.".to_string(), false, vec![]),
            None => (format!("Test message not delivered: {}", d.last_error.unwrap_or_default()), true, vec![]),
        }));
    });
    let chosen = RwSignal::new(pinnable_runs.first().map(|r| r.id.to_string()).unwrap_or_default());
    let pin = Action::new(move |_: &()| {
        let run = chosen.get_untracked().parse::<RunId>();
        async move {
            let Ok(run) = run else { return };
            let result = pin_baseline(id, run).await;
            reload(Notice::of("pin-result", result, |pinned| {
                ("Pinned as baseline.".to_string(), false, pinned.warnings)
            }));
        }
    });
    let confirming = RwSignal::new(false);
    let remove = Action::new(move |_: &()| delete_schedule(id));
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(())) = remove.value().get() {
            badge.refresh();
            navigate("/guard", Default::default());
        }
    });
    let has_webhook = schedule.input.notify.webhook_url.is_some();
    view! {
        <ScheduleHeader schedule=schedule.clone() set connector_name cost/>
        <div class="actions">
            <button type="button" id="run-now" class="primary" disabled=move || run_now.pending().get() on:click=move |_| { run_now.dispatch(()); }>
                {move || if run_now.pending().get() { "Running…" } else { "Run now" }}
            </button>
            <button type="button" id="toggle-schedule" on:click=move |_| { toggle.dispatch(()); }>{if enabled { "Pause" } else { "Resume" }}</button>
            {has_webhook.then(|| view! { <button type="button" id="send-test" on:click=move |_| { test.dispatch(()); }>"Send test webhook"</button> })}
            <Show when=move || !confirming.get() fallback=move || view! {
                <span class="confirm">"Delete this schedule, its evaluations and alerts? "
                    <button type="button" id="confirm-delete" class="danger" on:click=move |_| { remove.dispatch(()); }>"Delete"</button>
                    <button type="button" class="link" on:click=move |_| confirming.set(false)>"Keep it"</button></span>
            }>
                <button type="button" id="delete-schedule" class="danger" on:click=move |_| confirming.set(true)>"Delete…"</button>
            </Show>
        </div>
        {move || notice.get().map(|n| view! { <NoticeBox notice=n/> })}
        <BaselineSection baseline earlier_baselines pinnable_runs chosen pin/>
        <h2>"History"</h2>
        <p class="muted">"p95 and mean total time of each evaluation; the band is the baseline from its mean to its p95; large red marks breached."</p>
        <div class="chart-box" id="history" inner_html=history_svg></div>
        <h2>"Evaluations"</h2>
        <p class="muted">"Each compares this run's successful total times with the baseline's (Welch's t-test, two-sided) and checks every threshold."</p>
        <table class="table" id="evaluations">
            <thead><tr><th>"Started (UTC)"</th><th>"By"</th><th>"Outcome"</th><th>"n (baseline / run)"</th><th>"p95 / mean"</th><th>"Welch p"</th><th>"Why"</th></tr></thead>
            <tbody>{evaluations.into_iter().map(evaluation_row).collect_view()}</tbody>
        </table>
        <h2>"Webhook deliveries"</h2>
        <DeliveriesTable deliveries/>
    }
}

/// What the schedule runs, against what, how often and at what cost; its last failure; the set-size warning.
#[component]
fn ScheduleHeader(
    schedule: Schedule,
    set: BenchmarkSet,
    connector_name: Option<String>,
    cost: CostEstimate,
) -> impl IntoView {
    let enabled = schedule.input.enabled;
    view! {
        <section class="run-header">
            <h2 id="schedule-title">{schedule.input.name.clone()}</h2>
            <p class="muted">
                {format!("Runs the set \"{}\" ({} prompts, once each, not streamed, temperature 0.2) against ", set.name, set.prompts.len())}
                {connector_name.unwrap_or_else(|| "a deleted connector".into())}
                {format!(" every {} · {} · next run {} UTC · {} requests a day", schedule.input.cadence.as_str(), if enabled { "active" } else { "paused" }, when(schedule.next_run_at_ms), cost.requests_per_day)}
                {cost.usd_per_day.map(|usd| format!(", about ${usd:.4} a day at most"))}
            </p>
            {schedule.last_error.clone().filter(|_| schedule.last_status == Some(EvaluationStatus::Failed)).map(|e| view! {
                <p class="error" id="last-error">{format!("Last run failed: {e}")}</p>
            })}
            {(set.prompts.len() < ADVISED_MIN_PROMPTS).then(|| view! { <p class="warning">{format!("The set has {} prompt(s); at least {ADVISED_MIN_PROMPTS} are advised for Welch's test.", set.prompts.len())}</p> })}
        </section>
    }
}

/// A notice after an action: what happened, and the warnings that came with it.
#[component]
fn NoticeBox(notice: Notice) -> impl IntoView {
    let n = notice;
    view! {
        <div id=n.id role="status" class=if n.failed { "error" } else { "notice" }>
            <p>{n.text}</p>
            {(!n.details.is_empty()).then(|| view! { <ul>{n.details.into_iter().map(|w| view! { <li class="warning">{w}</li> }).collect_view()}</ul> })}
        </div>
    }
}

/// The baseline in force, the earlier ones, and the runs that could be pinned instead.
#[component]
fn BaselineSection(
    baseline: Option<BaselineInfo>,
    earlier_baselines: Vec<BaselineInfo>,
    pinnable_runs: Vec<PinnableRun>,
    chosen: RwSignal<String>,
    pin: Action<(), ()>,
) -> impl IntoView {
    view! {
        <h2>"Baseline"</h2>
        {match &baseline {
            Some(b) => view! { <p id="baseline-info">
                {format!("Pinned {} UTC from ", when(b.pinned_at_ms))}<A href=format!("/runs/{}", b.run_id)>"this run"</A>
                {format!(": {} successful requests, p95 {}, mean {}.", b.n, ms(b.summary.p95_ms), ms(b.summary.mean_ms))}
            </p> }.into_any(),
            None => view! { <p id="baseline-info" class="warning">"No baseline yet: runs are recorded but not compared. Pin a completed run of this connector (30 or more requests of the set's prompts make a steady one)."</p> }.into_any(),
        }}
        {(!earlier_baselines.is_empty()).then(|| view! {
            <details id="earlier-baselines"><summary>{format!("{} earlier baseline(s)", earlier_baselines.len())}</summary>
                <ul>{earlier_baselines.into_iter().map(|b| view! { <li>
                    {format!("Pinned {} UTC from ", when(b.pinned_at_ms))}<A href=format!("/runs/{}", b.run_id)>"this run"</A>
                    {format!(": {} requests, p95 {}, mean {}", b.n, ms(b.summary.p95_ms), ms(b.summary.mean_ms))}
                </li> }).collect_view()}</ul>
            </details>
        })}
        {(!pinnable_runs.is_empty()).then(|| view! {
            <div class="actions">
                <select id="pin-run" on:change=move |ev| chosen.set(event_target_value(&ev))>
                    {pinnable_runs.iter().map(|r| view! { <option value=r.id.to_string()>{format!("{} · {} UTC", r.title, when(r.created_at_ms))}</option> }).collect_view()}
                </select>
                <button type="button" id="pin-baseline" on:click=move |_| { pin.dispatch(()); }>"Pin as baseline"</button>
            </div>
        })}
    }
}

/// The webhook delivery log.
#[component]
fn DeliveriesTable(deliveries: Vec<WebhookDelivery>) -> impl IntoView {
    if deliveries.is_empty() {
        view! { <p class="muted" id="no-deliveries">"No webhook messages yet."</p> }.into_any()
    } else {
        view! {
                <table class="table" id="deliveries">
                    <thead><tr><th>"Message"</th><th>"Written (UTC)"</th><th>"Attempts"</th><th>"State"</th></tr></thead>
                    <tbody>{deliveries.into_iter().map(|d| {
                        let state = match (d.delivered_at_ms, d.gave_up_at_ms) {
                            (Some(at), _) => format!("delivered {}", when(at)),
                            (_, Some(at)) => format!("gave up {}: {}", when(at), d.last_error.clone().unwrap_or_default()),
                            _ => format!("next attempt {}{}", when(d.next_attempt_at_ms), d.last_error.clone().map(|e| format!(" · last: {e}")).unwrap_or_default()),
                        };
                        view! { <tr><td class="mono">{d.id.clone()}{d.alert_id.is_none().then_some(" (test)")}</td><td>{when(d.created_at_ms)}</td><td>{d.attempts}</td><td>{state}</td></tr> }
                    }).collect_view()}</tbody>
                </table>
            }.into_any()
    }
}

fn evaluation_row(e: EvaluationView) -> impl IntoView {
    let n = match (e.baseline_n, e.observed_n) {
        (Some(b), Some(o)) => format!("{b} / {o}"),
        (None, Some(o)) => format!("— / {o}"),
        _ => "—".into(),
    };
    let figures = e.observed_summary.map_or("—".into(), |s| format!("{} / {}", ms(s.p95_ms), ms(s.mean_ms)));
    let why = match (&e.error, &e.decision) {
        (Some(error), _) => error.clone(),
        (None, Some(d)) => d
            .checks
            .iter()
            .map(|c| format!("{} {}: {}", c.threshold.metric.as_str(), c.threshold.op.as_str(), c.reason))
            .collect::<Vec<_>>()
            .join("; "),
        (None, None) => match e.status {
            EvaluationStatus::NoBaseline => "no baseline pinned: recorded, not compared".into(),
            EvaluationStatus::Running => "the run is under way".into(),
            EvaluationStatus::Healthy | EvaluationStatus::Breached | EvaluationStatus::Failed => String::new(),
        },
    };
    let failed = e.status == EvaluationStatus::Failed;
    let status = e.status.label();
    let outcome = match e.run_id {
        Some(run) => view! { <A href=format!("/runs/{run}")>{status}</A> }.into_any(),
        None => view! { <span>{status}</span> }.into_any(),
    };
    view! {
        <tr class:failed=failed>
            <td>{when(e.started_at_ms)}</td>
            <td>{e.trigger.label()}</td>
            <td class="status">{outcome}</td>
            <td>{n}</td>
            <td>{figures}</td>
            <td>{e.p_value.map_or("—".into(), crate::report::p_value)}</td>
            <td class="why">{why}</td>
        </tr>
    }
}
