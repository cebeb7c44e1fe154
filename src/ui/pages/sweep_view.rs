//! `/sweeps/:id`: one sweep. While it runs, the levels done so far (read again every second) and a Stop button;
//! the answer (the highest level that passed, its interval), the knee, the throughput–latency curve and the load
//! chart, every level with the figures it was judged on and a link to its run, and how it was all computed. A
//! repeated run shows its figures over the repetitions instead, and compares with another repeated run.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;

use crate::api::sweeps::{cancel_sweep, get_sweep_page, SweepPage as SweepPageView};
use crate::model::{RunStatus, SweepId, SweepSummary};
use crate::ui::components::{Document, DocumentExportButtons, ErrorBox, Layout, RepeatedCompare, ServerPart};
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
                Some(id) => Some(get_sweep_page(id).await),
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
                        Some(Ok(page)) => {
                            running.set(page.summary.status == RunStatus::Running);
                            view! { <SweepBody page/> }.into_any()
                        }
                    }
                })}
            </Transition>
        </Layout>
    }
}

/// The header, the report and the notes come rendered by the server (`sweeps/page`); the page holds the progress,
/// Stop, the exports and a repeated run's comparison.
#[component]
fn SweepBody(page: SweepPageView) -> impl IntoView {
    let SweepPageView { summary, header, report, notes, repeated } = page;
    let id = summary.id;
    view! {
        <ServerPart html=header/>
        <SweepProgress summary/>
        {report.map(|report| view! {
            <DocumentExportButtons document=Document::Sweep(id)/>
            <ServerPart html=report/>
        })}
        {repeated.then(|| view! { <RepeatedCompare id/> })}
        {notes.map(|notes| view! { <ServerPart html=notes/> })}
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
