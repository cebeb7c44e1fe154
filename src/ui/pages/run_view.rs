//! `/runs/:id`: live progress and scatter while the run goes, then the report: stat cards, honesty notes and
//! the per-iteration table.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::runs::{cancel_run, get_run_view, RunReportView};
use crate::charts::{latency_scatter, sampled_scatter, ScatterPoint};
use crate::model::{LivePoint, RunId, RunProgress, RunStatus};
use crate::ui::components::{
    DistributionCharts, ErrorBox, ExportButtons, HonestyNotes, Layout, ResultsTable, ServerPanel, ShareControls,
    StatCards, TimeSlices,
};
use crate::ui::hooks::{resource, LiveRun};
use crate::ui::report_source::ReportSource;

/// The run page.
#[component]
pub fn RunPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").and_then(|raw| raw.parse::<RunId>().ok()));
    view! {
        <Layout title="Run">
            {move || match id() {
                Some(id) => view! { <RunDetail id/> }.into_any(),
                None => view! { <ErrorBox message="No such run.".to_string()/> }.into_any(),
            }}
        </Layout>
    }
}

fn duration(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

#[component]
fn RunDetail(id: RunId) -> impl IntoView {
    // A run shown as running is followed live (only then does `live` get a value), and its report is fetched once
    // more when it ends.
    let live_run = LiveRun::new(id);
    let (live, points) = (live_run.progress(), live_run.points());
    let over = Memo::new(move |_| live.get().is_some_and(|p| p.status != RunStatus::Running));
    let report = resource(move || over.get(), move |_| get_run_view(id));
    let cancel = Action::new(move |_: &()| cancel_run(id));
    view! {
        <Suspense fallback=|| view! { <p>"Loading run…"</p> }>
            {move || Suspend::new(async move {
                match report.await {
                    Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                    Ok(report) => {
                        let running = report.run.status == RunStatus::Running;
                        if running {
                            live_run.follow();
                        }
                        let view = report.view.clone();
                        let stored = view.scatter.clone();
                        let source = ReportSource::Owned(id);
                        view! {
                            <RunHeader report=report.clone()/>
                            {(!running).then(|| view! {
                                <ExportButtons source=source.clone() iterations=view.iterations/>
                                <ShareControls id shared_since_ms=report.shared_since_ms/>
                            })}
                            <ProgressPanel live fallback=report.clone() cancel running/>
                            <div class="chart-box" inner_html=move || {
                                let live_points = points.get();
                                if live_points.is_empty() { sampled_scatter(&stored) } else { latency_scatter(&live_points.iter().map(live_point).collect::<Vec<_>>()) }
                            }></div>
                            <StatCards stats=view.stats summary=view.summary/>
                            <HonestyNotes notes=view.honesty/>
                            {(!running).then(|| view! { <DistributionCharts histogram_svg=view.histogram_svg cdf_svg=view.cdf_svg/> })}
                            {(!running).then(|| view! { <TimeSlices slices=view.slices svg=view.slices_svg/> })}
                            {view.server.map(|section| view! { <ServerPanel section/> })}
                            <ResultsTable source first=view.first_page/>
                        }
                        .into_any()
                    }
                }
            })}
        </Suspense>
    }
}

fn live_point(p: &LivePoint) -> ScatterPoint {
    ScatterPoint { seq: p.seq, ttft_ms: p.ttft_ms, total_ms: p.total_ms, error: p.error }
}

#[component]
fn RunHeader(report: RunReportView) -> impl IntoView {
    let run = report.run;
    let mode = match run.plan.mode {
        crate::model::LoadMode::Closed { concurrency } => format!("closed loop × {concurrency}"),
        crate::model::LoadMode::Open { rate_per_second, poisson, max_concurrency } => {
            format!(
                "open loop {rate_per_second}/s{} (≤ {max_concurrency} in flight)",
                if poisson { " Poisson" } else { "" }
            )
        }
    };
    let plan = &run.plan;
    let settings = format!(
        "temperature {} · timeout {} s per request{} · {} · {} · {} warm-up request(s), excluded from stats · {}",
        plan.temperature,
        plan.timeout_ms as f64 / 1e3,
        plan.duration_ms.map_or_else(String::new, |limit| format!(
            " · time limit {} s from the first measured send",
            crate::model::trim_number(limit as f64 / 1e3)
        )),
        match plan.retries {
            0 => "no retries (a 429 is a failure)".to_string(),
            n => format!("up to {n} retries after HTTP 429"),
        },
        match plan.connections {
            crate::model::ConnectionPolicy::Reuse => "connections reused",
            crate::model::ConnectionPolicy::Fresh => "a fresh connection per request",
        },
        plan.warmup,
        match plan.agent.tools.len() {
            0 => "no tools".to_string(),
            n => format!("{n} tool(s) sent"),
        },
    );
    view! {
        <section class="run-header">
            <h2 id="run-title">{run.title.clone()}</h2>
            <p class="muted">
                <span class="mono">{run.base_url.clone()}</span> " · " <span class="mono">{run.model.clone()}</span>
                " · agent " {run.plan.agent.name.clone()} " · " {run.plan.prompts.len()} " prompt(s) × " {run.plan.iterations}
                " · " {mode} " · max_tokens " {run.plan.agent.token_budget} " · " {if run.plan.stream { "streamed" } else { "not streamed" }}
                " · started " {report.view.report.created_at.clone()}
            </p>
            <p class="muted" id="run-settings">{settings}</p>
        </section>
    }
}

#[component]
fn ProgressPanel(
    live: ReadSignal<Option<RunProgress>>,
    fallback: RunReportView,
    cancel: Action<(), Result<bool, crate::error::AppError>>,
    running: bool,
) -> impl IntoView {
    let stored = RunProgress::new(
        fallback.run.status,
        fallback.run.total_requests,
        fallback.view.iterations as u64,
        fallback.view.failures as u64,
        fallback.run.finished_at_ms.map_or(0, |end| u64::try_from(end - fallback.run.created_at_ms).unwrap_or(0)),
    )
    .limited(fallback.run.plan.duration_ms);
    let progress = Memo::new(move |_| live.get().unwrap_or_else(|| stored.clone()));
    view! {
        <section id="run-progress" class="progress-panel">
            // A time-limited run fills its bar with the time, since its total is only a cap.
            <progress max=move || { let p = progress.get(); p.time_limit_ms.unwrap_or(p.total).max(1) }
                value=move || { let p = progress.get(); p.time_limit_ms.map_or(p.done, |limit| p.elapsed_ms.min(limit)) }></progress>
            <div class="progress-text">
                <strong class="progress-count">{move || { let p = progress.get(); match p.time_limit_ms {
                    Some(limit) => format!("{} done (at most {}; time limit {})", p.done, p.total, duration(limit)),
                    None => format!("{} / {} done", p.done, p.total),
                } }}</strong>
                " · " <span class="status">{move || progress.get().status.as_str()}</span>
                " · " {move || format!("{} failed", progress.get().errors)}
                " · elapsed " {move || duration(progress.get().elapsed_ms)}
                {move || progress.get().eta_ms.map(|eta| format!(" · about {} left", duration(eta)))}
            </div>
            <Show when=move || running && progress.get().status == RunStatus::Running>
                <button type="button" id="cancel-run" class="danger" on:click=move |_| { cancel.dispatch(()); }>"Cancel run"</button>
            </Show>
        </section>
    }
}
