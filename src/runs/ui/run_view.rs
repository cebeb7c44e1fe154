//! `/runs/:id`: live progress and scatter while the run goes, then the report: stat cards, honesty notes and
//! the per-iteration table.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::model::{RunId, RunProgress, RunStatus};
use crate::runs::api::{cancel_run, get_run_page, get_run_scatter};
use crate::runs::ui::ReportSource;
use crate::runs::ui::{ExportButtons, ResultsTable, ShareControls};
use crate::ui::components::{ErrorBox, Layout, ServerPart};
use crate::ui::hooks::{resource, LiveRun};

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
    let live = live_run.progress();
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
                        let scatter = LiveScatter::new(id, report.scatter.into_string());
                        if running {
                            // Each change of the counters asks for the scatter again (at most once a second).
                            Effect::new(move |_| {
                                if live.with(|p| p.as_ref().is_some_and(|p| p.status == RunStatus::Running)) {
                                    scatter.redraw();
                                }
                            });
                        }
                        let source = ReportSource::Owned(id);
                        view! {
                            <ServerPart html=report.header/>
                            {(!running).then(|| view! {
                                <ExportButtons source=source.clone() iterations=report.iterations/>
                                <ShareControls id shared_since_ms=page.shared_since_ms/>
                            })}
                            <ProgressPanel live stored=page.progress cancel running/>
                            // The server's SVG (empty while the page hydrates: the page has it), drawn again by
                            // the server while the run goes.
                            <div class="chart-box" inner_html=move || scatter.svg.get()></div>
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

/// How long the page waits between two redraws of a running run's scatter: each reads every stored iteration on
/// the server, and a chart that moves once a second is as readable as one that moves with every batch.
const REDRAW_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// The scatter of a running run, drawn again by the server (`runs/scatter`) from what is stored so far: one
/// request at a time, at most one per [`REDRAW_EVERY`], and one more after a request that came while busy, so
/// the last batch is always drawn.
#[derive(Clone, Copy)]
struct LiveScatter {
    id: RunId,
    svg: RwSignal<String>,
    busy: StoredValue<bool>,
    asked_again: StoredValue<bool>,
}

impl LiveScatter {
    fn new(id: RunId, stored: String) -> Self {
        Self { id, svg: RwSignal::new(stored), busy: StoredValue::new(false), asked_again: StoredValue::new(false) }
    }

    fn redraw(self) {
        if self.busy.try_get_value() != Some(false) {
            // Busy, or the page has gone.
            self.asked_again.try_set_value(true);
            return;
        }
        self.busy.set_value(true);
        self.asked_again.set_value(false);
        leptos::task::spawn_local(async move {
            // A failed redraw keeps the last chart: the counters still move, and the report replaces it at the end.
            if let Ok(svg) = get_run_scatter(self.id).await {
                self.svg.try_set(svg.into_string());
            }
            set_timeout(
                move || {
                    if self.busy.try_set_value(false).is_none() && self.asked_again.try_get_value() == Some(true) {
                        self.redraw();
                    }
                },
                REDRAW_EVERY,
            );
        });
    }
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
