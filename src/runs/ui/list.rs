//! `/runs`: every report of the workspace, newest first: search by title or model, rename, delete (after a
//! confirmation), and pick two to compare.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::model::utc_minute;
use crate::model::{RunStatus, RunView};
use crate::runs::api::{delete_run, list_runs, rename_run};
use crate::ui::components::{ErrorBox, Layout};
use crate::ui::hooks::resource;

/// Whether `run` matches a search: every word of `search` in its title or model, ignoring case.
pub fn matches_search(run: &RunView, search: &str) -> bool {
    let haystack = format!("{} {}", run.title, run.model).to_lowercase();
    search.to_lowercase().split_whitespace().all(|word| haystack.contains(word))
}

/// The runs page.
#[component]
pub fn RunsPage() -> impl IntoView {
    let runs = resource(|| (), |_| list_runs());
    let search = RwSignal::new(String::new());
    view! {
        <Layout title="Runs">
            <p class="lead">"Benchmark runs: prompts × iterations against a connector, measured request by request."</p>
            <div class="actions">
                <A href="/runs/new" attr:id="new-run" attr:class="button primary">"New run"</A>
                <A href="/compare" attr:id="compare-runs" attr:class="button">"Compare two runs"</A>
                <input type="search" id="run-search" placeholder="Search by title or model" bind:value=search/>
            </div>
            <Suspense fallback=|| view! { <p>"Loading runs…"</p> }>
                {move || Suspend::new(async move {
                    match runs.await {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p id="no-runs">"No runs yet: New run starts one, or the home page's " <A href="/">"Run the demo"</A> " in one click."</p> }.into_any(),
                        Ok(list) => view! {
                            <table id="runs" class="table">
                                <thead><tr><th>"Title"</th><th>"Model"</th><th>"Status"</th><th>"Requests"</th><th>"Started (UTC)"</th><th></th></tr></thead>
                                <tbody>{list.into_iter().map(|run| {
                                    let shown = {
                                        let run = run.clone();
                                        move || matches_search(&run, &search.get())
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
fn RunRow(run: RunView) -> impl IntoView {
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
    let (model, status, requests) = (run.model.clone(), run.status.as_str(), run.total_requests);
    let started = utc_minute(run.created_at_ms);
    let row = move || {
        (!deleted.get()).then(|| view! {
            <tr class="run-row">
                <td>
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
                <td class="mono">{model.clone()}</td>
                <td><span class=format!("status {status}")>{status}</span></td>
                <td>{requests}</td>
                <td>{started.clone()}</td>
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::{completed_run, plan_input};
    use crate::model::RunPlanInput;

    #[test]
    fn search_matches_every_word_in_title_or_model_ignoring_case() {
        let input = RunPlanInput { title: Some("Support bot before deploy".into()), ..plan_input(&["p"], 8, 1) };
        let run = completed_run(input, "gpt-4o-mini");
        assert!(matches_search(&run, ""));
        assert!(matches_search(&run, "SUPPORT deploy"));
        assert!(matches_search(&run, "4o-mini before"), "model and title words together");
        assert!(!matches_search(&run, "support after"));
    }
}
