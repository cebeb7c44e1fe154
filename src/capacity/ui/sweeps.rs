//! `/sweeps`: start a sweep (listed load levels, or a search for the capacity under objectives) and find earlier
//! ones.

use leptos::prelude::*;
use leptos_router::components::A;

use super::sweep_form::SweepForm;
use crate::capacity::api::list_sweeps;
use crate::capacity::model::SweepSummary;
use crate::model::iso8601_utc;
use crate::ui::components::{JobList, Layout};

/// The Sweeps page.
#[component]
pub fn SweepsPage() -> impl IntoView {
    view! {
        <Layout title="Sweeps">
            <p class="lead">"How much load does this endpoint take at your latency target? A sweep runs the same requests at \
                rising load and shows where latency starts to climb faster than throughput (the knee); a capacity search finds \
                the highest load at which your objectives still hold, with the evidence and how sure the answer is."</p>
            <section>
                <h2>"New sweep"</h2>
                <SweepForm/>
            </section>
            <JobList heading="Earlier sweeps" empty_id="no-sweeps" empty="No sweeps yet: the form above finds the load an endpoint takes within your objectives." fetch=list_sweeps table=sweep_table/>
        </Layout>
    }
}

/// The workspace's sweeps, one row each.
fn sweep_table(list: Vec<SweepSummary>) -> impl IntoView {
    view! {
        <table class="table" id="sweeps">
            <thead><tr><th>"Title"</th><th>"Connector"</th><th>"Status"</th><th>"Levels"</th><th>"Highest passing"</th><th>"Started (UTC)"</th></tr></thead>
            <tbody>{list.into_iter().map(|s| view! {
                <tr>
                    <td><A href=format!("/sweeps/{}", s.id)>{s.title.clone()}</A></td>
                    <td>{s.connector_name.clone()}</td>
                    <td>{s.status.as_str()}</td>
                    <td>{s.done_levels}</td>
                    <td>{s.answer.map_or_else(|| "—".to_string(), |a| s.axis.describe(a))}</td>
                    <td>{iso8601_utc(s.created_at_ms)}</td>
                </tr>
            }).collect_view()}</tbody>
        </table>
    }
}
