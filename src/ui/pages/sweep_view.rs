//! `/sweeps/:id`: one sweep. While it runs, the levels done so far (read again every second) and a Stop button;
//! the answer (the highest level that passed, its interval), the knee, the throughput–latency curve and the load
//! chart, every level with the figures it was judged on and a link to its run, and how it was all computed. A
//! repeated run shows its figures over the repetitions instead, and compares with another repeated run.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;

use crate::api::sweeps::{cancel_sweep, get_sweep};
use crate::model::{trim_number, RunStatus, SweepId, SweepSummary};
use crate::report::RepeatedReport;
use crate::report::{ms, CapacityLevel, CapacityReport, SweepView};
use crate::ui::components::{ErrorBox, Layout, RepeatedCompare, RepeatedFigures, SweepExportButtons};
use crate::ui::hooks::{resource, use_poll_while};

/// How often a running sweep's page reads it again.
const POLL_MS: u64 = 1_000;

/// The sweep page.
#[component]
pub fn SweepPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").and_then(|v| v.parse::<SweepId>().ok()));
    let running = RwSignal::new(true);
    let tick = use_poll_while(running, std::time::Duration::from_millis(POLL_MS));
    let sweep = resource(
        move || (id(), tick.get()),
        |(id, _)| async move {
            match id {
                Some(id) => Some(get_sweep(id).await),
                None => None,
            }
        },
    );
    view! {
        <Layout title="Sweep">
            <p><A href="/sweeps">"← Sweeps"</A></p>
            <Transition fallback=|| view! { <p>"Loading the sweep…"</p> }>
                {move || Suspend::new(async move {
                    match sweep.await {
                        None => view! { <ErrorBox message="This address names no sweep.".to_string()/> }.into_any(),
                        Some(Err(e)) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Some(Ok(view)) => {
                            running.set(view.summary.status == RunStatus::Running);
                            view! { <SweepBody view/> }.into_any()
                        }
                    }
                })}
            </Transition>
        </Layout>
    }
}

#[component]
fn SweepBody(view: SweepView) -> impl IntoView {
    let SweepView { summary, plan, report } = view;
    let objectives: Vec<String> = plan.slos.iter().map(|s| s.spelled()).collect();
    view! {
        <header>
            <h2 id="sweep-title">{summary.title.clone()}</h2>
            <p class="muted">{format!("{} · objectives: {} · {} prompt(s) · max_tokens {}", summary.connector_name,
                if objectives.is_empty() { "none".to_string() } else { objectives.join(", ") },
                plan.template.prompts.len(), plan.template.agent.token_budget)}</p>
        </header>
        <SweepProgress summary=summary.clone()/>
        {report.clone().map(|_| view! { <SweepExportButtons view=SweepView { summary: summary.clone(), plan: plan.clone(), report: report.clone() }/> })}
        {report.map(|report| match report.repeated.clone() {
            Some(repeated) => view! { <RepeatedRunReport report repeated id=summary.id/> }.into_any(),
            None => view! { <SweepReport report/> }.into_any(),
        })}
    }
}

/// The state line: levels done and Stop while running, how it ended otherwise.
#[component]
fn SweepProgress(summary: SweepSummary) -> impl IntoView {
    let id = summary.id;
    let stop = Action::new(move |_: &()| cancel_sweep(id));
    let status = summary.status;
    view! {
        <div class="progress-panel" id="sweep-progress" data-status=status.as_str()>
            <strong id="sweep-status">{status.as_str()}</strong>
            {format!(" · {} level(s) done", summary.done_levels)}
            {(status == RunStatus::Running).then(|| summary.current_run_id.map(|run| view! {
                <span id="sweep-current">
                    {format!(" · measuring {} — ", summary.current_level.clone().unwrap_or_default())}
                    <A href=format!("/runs/{run}")>"its live progress"</A>
                </span>
            })).flatten()}
            {(status == RunStatus::Running).then(|| view! {
                <button type="button" id="stop-sweep" on:click=move |_| { stop.dispatch(()); } disabled=move || stop.pending().get()>
                    "Stop (keep the levels done)"
                </button>
            })}
            {summary.failure.map(|f| view! { <ErrorBox message=f/> })}
        </div>
    }
}

#[component]
fn SweepReport(report: CapacityReport) -> impl IntoView {
    let curve = crate::charts::sweep_curve_chart(&report.chart());
    let load = crate::charts::sweep_load_chart(&report.chart());
    let mut levels = report.levels.clone();
    levels.sort_by(|a, b| a.level.total_cmp(&b.level));
    let axis = report.axis;
    view! {
        <section class="stat-cards">
            <div class="stat-card">
                <div class="stat-label">"Highest passing level"</div>
                <div class="stat-value" id="sweep-answer">{crate::export::answer_text(&report)}</div>
                <div class="stat-how">"every objective held, every lower level passing"</div>
            </div>
            <div class="stat-card">
                <div class="stat-label">"Knee"</div>
                <div class="stat-value" id="sweep-knee">{report.knee.map_or_else(|| "not within these levels".to_string(), |k| axis.describe(k))}</div>
                <div class="stat-how">"the last level before latency (total p95) grew faster than throughput"</div>
            </div>
        </section>
        {(!report.probes.is_empty()).then(|| view! {
            <p id="sweep-probes">{report.probes.iter().map(|p| format!("{} in flight: {}", trim_number(p.level),
                p.throughput_rps.map_or_else(|| "no throughput".to_string(), |t| format!("{t:.2} req/s")))).collect::<Vec<_>>().join(" · ")}
                " (the probes that chose the rates)"</p>
        })}
        <div class="chart-box" inner_html=curve></div>
        <div class="chart-box" inner_html=load></div>
        <table class="table" id="sweep-levels">
            <thead><tr><th>"Load"</th><th>"Verdict"</th><th>"Judged on"</th><th>"Throughput"</th><th>"Goodput"</th>
                {(axis == crate::model::LoadAxis::Rate).then(|| view! { <th>"Sent (late p95)"</th> })}
                <th>"TTFT p50 / p95"</th><th>"Total p95"</th><th>"Failed"</th><th>"Run"</th></tr></thead>
            <tbody>{levels.into_iter().map(|l| level_row(axis.describe(l.level), axis, l)).collect_view()}</tbody>
        </table>
        <SweepNotes notes=report.notes/>
    }
}

/// A repeated run: whether every repetition passed, the figures over the repetitions, each repetition (judged
/// like a level) and the comparison with another repeated run.
#[component]
fn RepeatedRunReport(report: CapacityReport, repeated: RepeatedReport, id: SweepId) -> impl IntoView {
    let axis = report.axis;
    let level = report.levels.first().map(|l| axis.describe(l.level)).unwrap_or_default();
    let verdict = match report.answer {
        Some(_) => "yes".to_string(),
        None if report.slos.is_empty() => "no (errors over the limit)".to_string(),
        None => "no".to_string(),
    };
    view! {
        <section class="stat-cards">
            <div class="stat-card">
                <div class="stat-label">"Passed in every repetition"</div>
                <div class="stat-value" id="repeated-verdict">{verdict}</div>
                <div class="stat-how">{format!("{level}: every objective held and errors stayed within the limit")}</div>
            </div>
        </section>
        <RepeatedFigures report=repeated/>
        <table class="table" id="sweep-levels">
            <thead><tr><th>"Repetition"</th><th>"Verdict"</th><th>"Judged on"</th><th>"Throughput"</th><th>"Goodput"</th>
                {(axis == crate::model::LoadAxis::Rate).then(|| view! { <th>"Sent (late p95)"</th> })}
                <th>"TTFT p50 / p95"</th><th>"Total p95"</th><th>"Failed"</th><th>"Run"</th></tr></thead>
            <tbody>{report.levels.into_iter().enumerate().map(|(i, l)| level_row(format!("#{}", i + 1), axis, l)).collect_view()}</tbody>
        </table>
        <RepeatedCompare id/>
        <SweepNotes notes=report.notes/>
    }
}

/// How the figures were made.
#[component]
fn SweepNotes(notes: Vec<String>) -> impl IntoView {
    view! {
        <h2>"How these numbers were made"</h2>
        <ul class="honesty" id="sweep-notes">{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
    }
}

fn level_row(label: String, axis: crate::model::LoadAxis, l: CapacityLevel) -> impl IntoView {
    let rate = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v:.2} req/s"));
    view! {
        <tr data-level=trim_number(l.level) data-passed=l.passed.to_string()>
            <td>{label}</td>
            <td>{l.verdict_text()}</td>
            <td>{l.judged_text()}</td>
            <td>{rate(l.throughput_rps)}</td>
            <td>{rate(l.good_rps)}</td>
            {(axis == crate::model::LoadAxis::Rate).then(|| view! {
                <td>{format!("{} ({})", rate(l.achieved_rate), l.schedule_lag_p95_ms.map_or_else(|| "—".to_string(), ms))}</td>
            })}
            <td>{l.ttft_ms.map_or_else(|| "—".to_string(), |p| format!("{} / {}", ms(p.p50), ms(p.p95)))}</td>
            <td>{l.total_ms.map_or_else(|| "—".to_string(), |p| ms(p.p95))}</td>
            <td>{format!("{} of {}", l.failed, l.requests)}</td>
            <td>{l.run_id.map(|id| view! { <A href=format!("/runs/{id}")>"report"</A> })}</td>
        </tr>
    }
}
