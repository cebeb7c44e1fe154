//! `/spec-lab`: what self-hosted servers say about themselves. Probe a connector's server (engine, metrics,
//! speculative decoding), start an A/B test of two connectors, and find earlier tests.

use leptos::prelude::*;
use leptos_router::components::A;

use super::ab_form::{pick_lists, AbForm, PickLists};
use super::probe_panel::ServerProbe;
use crate::lab::api::list_ab_tests;
use crate::lab::model::AbTestSummary;
use crate::model::{iso8601_utc, ConnectorId};
use crate::ui::components::{JobList, Layout};

/// The Spec Lab page.
#[component]
pub fn SpecLabPage() -> impl IntoView {
    let lists = pick_lists();
    view! {
        <Layout title="Spec Lab">
            <p class="lead">"Self-hosted servers (vLLM, SGLang, TGI, llama.cpp) report what the chat API hides: their engine, \
                their load, and how often speculative decoding's drafts are accepted. Hosted APIs report none of it."</p>
            <ProbeSection lists/>
            <section>
                <h2>"A/B test"</h2>
                <p class="muted">"The same requests to a baseline and a candidate, per concurrency level and temperature: \
                    the difference in TTFT, time per output token and total time with confidence intervals, acceptance beside \
                    them, a verdict, and where each request's time goes."</p>
                <AbForm lists/>
            </section>
            <JobList heading="Earlier A/B tests" empty_id="no-ab-tests" empty="No A/B tests yet: the form above compares two connectors request by request." fetch=list_ab_tests table=ab_test_table/>
        </Layout>
    }
}

/// A connector picker and the probe of its server.
#[component]
fn ProbeSection(lists: PickLists) -> impl IntoView {
    let picked = RwSignal::new(None::<ConnectorId>);
    view! {
        <section>
            <h2>"Probe"</h2>
            <Suspense fallback=|| view! { <p>"Loading connectors…"</p> }>
                {move || Suspend::new(async move {
                    let list = lists.await.0.unwrap_or_default();
                    view! {
                        <label>"Connector"
                            <select id="probe-connector" on:change=move |ev| picked.set(event_target_value(&ev).parse().ok())>
                                <option value="">"Choose a connector…"</option>
                                {list.into_iter().map(|c| view! { <option value=c.id.to_string()>{format!("{} · {}", c.name, c.base_url)}</option> }).collect_view()}
                            </select>
                        </label>
                    }
                })}
            </Suspense>
            {move || picked.get().map(|id| view! { <ServerProbe id/> })}
        </section>
    }
}

/// The workspace's A/B tests, one row each.
fn ab_test_table(list: Vec<AbTestSummary>) -> impl IntoView {
    view! {
        <table class="table" id="ab-tests">
            <thead><tr><th>"Title"</th><th>"Baseline"</th><th>"Candidate"</th><th>"Status"</th><th>"Requests"</th><th>"Started (UTC)"</th></tr></thead>
            <tbody>{list.into_iter().map(|t| view! {
                <tr>
                    <td><A href=format!("/spec-lab/ab/{}", t.id)>{t.title.clone()}</A></td>
                    <td>{t.baseline_name.clone()}</td>
                    <td>{t.candidate_name.clone()}</td>
                    <td>{t.status.as_str()}</td>
                    <td>{format!("{} / {}", t.done_requests, t.total_requests)}</td>
                    <td>{iso8601_utc(t.created_at_ms)}</td>
                </tr>
            }).collect_view()}</tbody>
        </table>
    }
}
