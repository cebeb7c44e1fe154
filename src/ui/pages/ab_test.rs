//! `/spec-lab/ab/:id`: one A/B test. While it runs, its progress (read again every second) and a Stop button;
//! once it ended, each cell's verdict, bottleneck panel, differences and caveats — the same section the HTML
//! export holds — and the exports, made in the browser from the report on the page.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;

use crate::api::speclab::{cancel_ab_test, get_ab_test};
use crate::model::{AbTestId, AbTestSummary, RunStatus};
use crate::report::AbTestView;
use crate::ui::components::{AbExportButtons, ErrorBox, Layout};
use crate::ui::hooks::{resource, use_poll_while};

/// How often a running test's page reads it again.
const POLL_MS: u64 = 1_000;

/// The A/B test page.
#[component]
pub fn AbTestPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").and_then(|v| v.parse::<AbTestId>().ok()));
    let running = RwSignal::new(true);
    let tick = use_poll_while(running, std::time::Duration::from_millis(POLL_MS));
    let test = resource(
        move || (id(), tick.get()),
        |(id, _)| async move {
            match id {
                Some(id) => Some(get_ab_test(id).await),
                None => None,
            }
        },
    );
    view! {
        <Layout title="A/B test">
            <p><A href="/spec-lab">"← Spec Lab"</A></p>
            <Transition fallback=|| view! { <p>"Loading the test…"</p> }>
                {move || Suspend::new(async move {
                    match test.await {
                        None => view! { <ErrorBox message="This address names no A/B test.".to_string()/> }.into_any(),
                        Some(Err(e)) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Some(Ok(view)) => {
                            running.set(view.summary.status == RunStatus::Running);
                            view! { <AbTestBody view/> }.into_any()
                        }
                    }
                })}
            </Transition>
        </Layout>
    }
}

#[component]
fn AbTestBody(view: AbTestView) -> impl IntoView {
    let AbTestView { summary, plan, report } = view;
    let cells = plan.cells.len();
    view! {
        <header class="ab-header">
            <h2 id="ab-title">{summary.title.clone()}</h2>
            <p class="muted">
                {format!("{} (baseline) vs {} (candidate) · {} cell(s) · {} prompt(s) × {} iteration(s) per arm and cell · max_tokens {}",
                    summary.baseline_name, summary.candidate_name, cells, plan.prompts.len(), plan.iterations, plan.max_tokens)}
            </p>
        </header>
        <AbProgress summary=summary.clone()/>
        {report.map(|report| {
            let section = crate::export::ab_section(&report);
            view! {
                <AbExportButtons report=report.clone()/>
                <div class="ab-report" inner_html=section></div>
                <h2>"How these numbers were made"</h2>
                <ul class="honesty" id="ab-notes">{report.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}</ul>
            }
        })}
    }
}

/// The state line: progress and Stop while running, how it ended otherwise.
#[component]
fn AbProgress(summary: AbTestSummary) -> impl IntoView {
    let id = summary.id;
    let stop = Action::new(move |_: &()| cancel_ab_test(id));
    let percent = if summary.total_requests == 0 {
        0.0
    } else {
        summary.done_requests as f64 * 100.0 / summary.total_requests as f64
    };
    let status = summary.status;
    view! {
        <div class="progress-panel" id="ab-progress" data-status=status.as_str()>
            <div>
                <strong id="ab-status">{status.as_str()}</strong>
                {format!(" · {} of {} requests ({percent:.0} %)", summary.done_requests, summary.total_requests)}
            </div>
            <progress max="100" value=percent></progress>
            {(status == RunStatus::Running).then(|| view! {
                <button type="button" id="stop-ab" on:click=move |_| { stop.dispatch(()); } disabled=move || stop.pending().get()>
                    "Stop (keep what was measured)"
                </button>
            })}
            {summary.failure.map(|f| view! { <ErrorBox message=f/> })}
            {move || match stop.value().get() {
                Some(Err(e)) => Some(view! { <ErrorBox message=e.to_string()/> }),
                _ => None,
            }}
        </div>
    }
}
