//! `/compare?baseline=ID&candidate=ID`: two runs side by side — figures with deltas, overlaid CDFs of total time
//! and TTFT, Welch's and Mann-Whitney's p-values with the sample sizes, and warnings when the runs were not
//! measured the same way.

use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_query_map};

use crate::model::RunId;
use crate::runs::api::compare::get_compare_page;
use crate::ui::components::{ErrorBox, Layout, ServerPart};
use crate::ui::hooks::resource;

/// The comparison page. The pickers' choices and the comparison come rendered by the server
/// (`runs/compare_page`); the page holds the pickers' behaviour.
#[component]
pub fn ComparePage() -> impl IntoView {
    let query = use_query_map();
    let picked = move |key: &str| query.with(|q| q.get(key).and_then(|v| v.parse::<RunId>().ok()));
    let page = resource(
        move || (picked("baseline"), picked("candidate")),
        |(baseline, candidate)| get_compare_page(baseline, candidate),
    );
    let navigate = use_navigate();
    let choose = Callback::new(move |(key, value): (&'static str, String)| {
        let other = if key == "baseline" { "candidate" } else { "baseline" };
        let other_value = query.with_untracked(|q| q.get(other)).unwrap_or_default();
        navigate(&format!("/compare?{key}={value}&{other}={other_value}"), Default::default());
    });
    view! {
        <Layout title="Compare runs">
            <Suspense fallback=|| view! { <p>"Comparing…"</p> }>
                {move || Suspend::new(async move {
                    match page.await {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(page) => {
                            let picker = move |key: &'static str, choices: crate::wire::ServerHtml| view! {
                                <select id=key on:change=move |ev| choose.run((key, event_target_value(&ev)))
                                    inner_html=choices.into_string()></select>
                            };
                            view! {
                                <div class="prices compare-pick">
                                    <label>"Baseline (before)" {picker("baseline", page.baseline_choices)}</label>
                                    <label>"Candidate (after)" {picker("candidate", page.candidate_choices)}</label>
                                </div>
                                {match page.comparison {
                                    None => view! { <p class="muted">"Pick a baseline and a candidate run."</p> }.into_any(),
                                    Some(Err(e)) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                                    Some(Ok(html)) => view! { <ServerPart html/> }.into_any(),
                                }}
                            }
                            .into_any()
                        }
                    }
                })}
            </Suspense>
        </Layout>
    }
}
