//! `/spec-lab/ab/:id`: one A/B test. While it runs, its progress (read again every second) and a Stop button;
//! once it ended, each cell's verdict, bottleneck panel, differences and caveats — the same section the HTML
//! export holds — and the exports, made in the browser from the report on the page.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;

use crate::api::speclab::{cancel_ab_test, get_ab_test_page, AbTestPage as AbTestPageView};
use crate::model::{AbTestId, AbTestSummary, RunStatus};
use crate::ui::components::{Document, DocumentExportButtons, ErrorBox, Layout, ServerPart};
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
                Some(id) => Some(get_ab_test_page(id).await),
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
                        Some(Ok(page)) => {
                            running.set(page.summary.status == RunStatus::Running);
                            view! { <AbTestBody page/> }.into_any()
                        }
                    }
                })}
            </Transition>
        </Layout>
    }
}

/// The header and the report come rendered by the server (`speclab/ab/page`); the page holds the progress, Stop
/// and the exports.
#[component]
fn AbTestBody(page: AbTestPageView) -> impl IntoView {
    let AbTestPageView { summary, header, report } = page;
    let id = summary.id;
    view! {
        <ServerPart html=header/>
        <AbProgress summary/>
        {report.map(|report| view! {
            <DocumentExportButtons document=Document::AbTest(id)/>
            <ServerPart html=report/>
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
