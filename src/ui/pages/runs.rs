//! `/runs`: every run of the workspace, newest first.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::api::runs::list_runs;
use crate::model::RunView;
use crate::report::iso8601_utc;
use crate::ui::components::{ErrorBox, Layout};

/// The runs page.
#[component]
pub fn RunsPage() -> impl IntoView {
    let runs = Resource::new(|| (), |_| list_runs());
    view! {
        <Layout title="Runs">
            <p class="lead">"Benchmark runs: prompts × iterations against a connector, measured request by request."</p>
            <A href="/runs/new" attr:id="new-run" attr:class="button primary">"New run"</A>
            <Suspense fallback=|| view! { <p>"Loading runs…"</p> }>
                {move || Suspend::new(async move {
                    match runs.await {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p id="no-runs">"No runs yet."</p> }.into_any(),
                        Ok(list) => view! {
                            <table id="runs" class="table">
                                <thead><tr><th>"Title"</th><th>"Model"</th><th>"Status"</th><th>"Requests"</th><th>"Started (UTC)"</th></tr></thead>
                                <tbody>{list.into_iter().map(|run| view! { <RunRow run/> }).collect_view()}</tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Suspense>
        </Layout>
    }
}

#[component]
fn RunRow(run: RunView) -> impl IntoView {
    view! {
        <tr class="run-row">
            <td><A href=format!("/runs/{}", run.id)>{run.title.clone()}</A></td>
            <td class="mono">{run.model.clone()}</td>
            <td><span class=format!("status {}", run.status.as_str())>{run.status.as_str()}</span></td>
            <td>{run.total_requests}</td>
            <td>{iso8601_utc(run.created_at_ms).replace('T', " ")}</td>
        </tr>
    }
}
