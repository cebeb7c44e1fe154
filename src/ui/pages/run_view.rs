//! `/runs/:id`: live progress and scatter while the run goes, then the report: stat cards, honesty notes and
//! the per-iteration table.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::runs::{cancel_run, get_run_page};
use crate::charts::{latency_scatter, ScatterPoint};
use crate::model::{LivePoint, RunId, RunProgress, RunStatus};
use crate::ui::components::{ErrorBox, ExportButtons, Layout, ResultsTable, ServerPart, ShareControls};
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

/// The report's header, figures, notes and charts come rendered by the server (`runs/page`); the page itself
/// holds only what moves: the progress, the live scatter, the export and share buttons and the table.
#[component]
fn RunDetail(id: RunId) -> impl IntoView {
    // A run shown as running is followed live (only then does `live` get a value), and its page is fetched once
    // more when it ends.
    let live_run = LiveRun::new(id);
    let (live, points) = (live_run.progress(), live_run.points());
    let over = Memo::new(move |_| live.get().is_some_and(|p| p.status != RunStatus::Running));
    let page = resource(move || over.get(), move |_| get_run_page(id));
    let cancel = Action::new(move |_: &()| cancel_run(id));
    view! {
        <Suspense fallback=|| view! { <p>"Loading run…"</p> }>
            {move || Suspend::new(async move {
                match page.await {
                    Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                    Ok(page) => {
                        let running = page.status == RunStatus::Running;
                        if running {
                            live_run.follow();
                        }
                        let report = page.report;
                        let stored = report.scatter.into_string();
                        let source = ReportSource::Owned(id);
                        view! {
                            <ServerPart html=report.header/>
                            {(!running).then(|| view! {
                                <ExportButtons source=source.clone() iterations=report.iterations/>
                                <ShareControls id shared_since_ms=page.shared_since_ms/>
                            })}
                            <ProgressPanel live stored=page.progress cancel running/>
                            // The stored scatter is the server's SVG (empty while the page hydrates: the page has
                            // it); live points redraw it here.
                            <div class="chart-box" inner_html=move || {
                                let live_points = points.get();
                                if live_points.is_empty() { stored.clone() } else { latency_scatter(&live_points.iter().map(live_point).collect::<Vec<_>>()) }
                            }></div>
                            <ServerPart html=report.body/>
                            <ResultsTable source first=report.first_page/>
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
fn ProgressPanel(
    live: ReadSignal<Option<RunProgress>>,
    stored: RunProgress,
    cancel: Action<(), Result<bool, crate::error::AppError>>,
    running: bool,
) -> impl IntoView {
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
