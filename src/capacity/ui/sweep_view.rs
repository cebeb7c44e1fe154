//! `/sweeps/:id`: one sweep. While it runs, the levels done so far (read again every second) and a Stop button;
//! the answer (the highest level that passed, its interval), the knee, the throughput–latency curve and the load
//! chart, every level with the figures it was judged on and a link to its run, and how it was all computed. A
//! repeated run shows its figures over the repetitions instead, and compares with another repeated run.

use leptos::prelude::*;
use leptos_router::components::A;

use super::repeated_panel::RepeatedCompare;
use crate::capacity::api::{cancel_sweep, get_sweep_page};
use crate::capacity::model::SweepSummary;
use crate::ui::components::{
    Document, DocumentExportButtons, JobFrame, JobProgress, JobWords, ProgressIds, ServerPart,
};
use crate::wire::JobPage;

/// The sweep page.
#[component]
pub fn SweepPage() -> impl IntoView {
    let words = JobWords { title: "Sweep", back: ("/sweeps", "← Sweeps"), noun: "sweep" };
    view! { <JobFrame words fetch=get_sweep_page status=|s: &SweepSummary| s.status body=sweep_body/> }
}

/// The header, the report and the notes come rendered by the server (`sweeps/page`); the page holds the progress,
/// Stop, the exports and a repeated run's comparison.
fn sweep_body(page: JobPage<SweepSummary>) -> impl IntoView {
    let JobPage { summary, header, report, notes } = page;
    let id = summary.id;
    let now = summary.current_run_id.map(|run| {
        view! {
            <span id="sweep-current">
                {format!(" · measuring {} — ", summary.current_level.clone().unwrap_or_default())}
                <A href=format!("/runs/{run}")>"its live progress"</A>
            </span>
        }
        .into_any()
    });
    view! {
        <ServerPart html=header/>
        <JobProgress
            ids=ProgressIds { panel: "sweep-progress", status: "sweep-status", stop: "stop-sweep" }
            status=summary.status
            done=format!("{} level(s) done", summary.done_levels)
            now
            failure=summary.failure
            stop_label="Stop (keep the levels done)"
            cancel=move || cancel_sweep(id)
        />
        {report.map(|report| view! {
            <DocumentExportButtons document=Document::Sweep(id)/>
            <ServerPart html=report/>
        })}
        {summary.repeated.then(|| view! { <RepeatedCompare id/> })}
        {notes.map(|notes| view! { <ServerPart html=notes/> })}
    }
}
