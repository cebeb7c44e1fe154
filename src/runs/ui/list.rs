//! `/runs`: every report of the workspace, newest first, with its connector and headline figures (as the server
//! words them): search by title, model or connector, rename, delete (after a confirmation), and pick two to compare.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::model::RunStatus;
use crate::runs::api::{delete_run, list_run_listings, rename_run};
use crate::runs::report::{RunListing, ERRORS_HOW, OUTPUT_THROUGHPUT_HOW, TTFT_P95_HOW};
use crate::ui::components::{ErrorBox, Layout};
use crate::ui::hooks::resource;

/// The runs page.
#[component]
pub fn RunsPage() -> impl IntoView {
    let runs = resource(|| (), |_| list_run_listings());
    let search = RwSignal::new(String::new());
    view! {
        <Layout title="Runs">
            <p class="lead">"Benchmark runs: prompts × iterations against a connector, measured request by request."</p>
            <div class="actions">
                <A href="/runs/new" attr:id="new-run" attr:class="button primary">"New run"</A>
                <A href="/compare" attr:id="compare-runs" attr:class="button">"Compare two runs"</A>
                <input type="search" id="run-search" placeholder="Title, model or connector" aria-label="Search runs by title, model or connector" bind:value=search/>
            </div>
            <Suspense fallback=|| view! { <p>"Loading runs…"</p> }>
                {move || Suspend::new(async move {
                    match runs.await {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p id="no-runs">"No runs yet: New run starts one, or the home page's " <A href="/">"Run the demo"</A> " in one click."</p> }.into_any(),
                        Ok(list) => view! {
                            <table id="runs" class="table">
                                <thead><tr>
                                    <th>"Title"</th><th>"Connector · model"</th><th>"Status"</th>
                                    <th class="num" title=OUTPUT_THROUGHPUT_HOW>"Output throughput"</th>
                                    <th class="num" title=TTFT_P95_HOW>"TTFT p95"</th>
                                    <th class="num" title=ERRORS_HOW>"Errors"</th>
                                    <th>"Started (UTC)"</th><th></th>
                                </tr></thead>
                                <tbody>{list.into_iter().map(|run| {
                                    let shown = {
                                        let run = run.clone();
                                        move || run.matches(&search.get())
                                    };
                                    view! { <Show when=shown><RunRow run=run.clone()/></Show> }
                                }).collect_view()}</tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Suspense>
        </Layout>
    }
}

#[component]
fn RunRow(run: RunListing) -> impl IntoView {
    let id = run.id;
    let title = RwSignal::new(run.title.clone());
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(run.title.clone());
    let confirming = RwSignal::new(false);
    let deleted = RwSignal::new(false);
    let rename = Action::new(move |text: &String| rename_run(id, text.clone()));
    let remove = Action::new(move |_: &()| delete_run(id));
    Effect::new(move |_| {
        if let Some(Ok(())) = rename.value().get() {
            title.set(draft.get_untracked().trim().to_string());
            editing.set(false);
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(())) = remove.value().get() {
            deleted.set(true);
        }
    });
    let running = run.status == RunStatus::Running;
    let failure = move || match (rename.value().get(), remove.value().get()) {
        (Some(Err(e)), _) | (_, Some(Err(e))) => Some(view! { <ErrorBox message=e.to_string()/> }),
        _ => None,
    };
    let RunListing { connector, model, status, output_throughput, ttft_p95, errors, started, .. } = run;
    let status = status.as_str();
    let row = move || {
        (!deleted.get()).then(|| view! {
            <tr class="run-row">
                <td class="run-title">
                    {move || if editing.get() {
                        view! {
                            <form class="rename" on:submit=move |ev| { ev.prevent_default(); rename.dispatch(draft.get_untracked()); }>
                                <input class="rename-input" bind:value=draft/>
                                <button type="submit" class="rename-save">"Save"</button>
                                <button type="button" class="link" on:click=move |_| editing.set(false)>"Cancel"</button>
                            </form>
                        }.into_any()
                    } else {
                        view! { <A href=format!("/runs/{id}")>{move || title.get()}</A> }.into_any()
                    }}
                    {failure}
                </td>
                <td data-label="Connector · model">
                    <span>{connector.clone()}<br/><span class="mono muted">{model.clone()}</span></span></td>
                <td data-label="Status"><span class=format!("status {status}")>{status}</span></td>
                <td class="num" data-label="Output throughput">{output_throughput.clone()}</td>
                <td class="num" data-label="TTFT p95">{ttft_p95.clone()}</td>
                <td class="num" data-label="Errors">{errors.clone()}</td>
                <td data-label="Started (UTC)">{started.clone()}</td>
                <td class="row-actions">
                    <button type="button" class="link rename-run" on:click=move |_| { draft.set(title.get_untracked()); editing.set(true); }>"Rename"</button>
                    {move || match (running, confirming.get()) {
                        (true, _) => ().into_any(),
                        (false, false) => view! {
                            <button type="button" class="link danger delete-run" on:click=move |_| confirming.set(true)>"Delete"</button>
                        }.into_any(),
                        (false, true) => view! {
                            <span class="confirm">"Delete this report for good? "
                                <button type="button" class="danger confirm-delete" on:click=move |_| { remove.dispatch(()); }>"Delete"</button>
                                <button type="button" class="link" on:click=move |_| confirming.set(false)>"Keep"</button>
                            </span>
                        }.into_any(),
                    }}
                </td>
            </tr>
        }.into_any())
    };
    view! { {row} }
}
