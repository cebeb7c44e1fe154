//! `/guard/sets`: benchmark sets — a name, prompts (one per line), a system prompt and `max_tokens` — to create,
//! edit and delete. A set a schedule runs cannot be deleted.

use leptos::prelude::*;

use crate::guard::api::{delete_set, list_sets, save_set};
use crate::guard::model::{BenchmarkSet, BenchmarkSetInput, SetPrompt, ADVISED_MIN_PROMPTS};
use crate::model::{BenchmarkSetId, Checked};
use crate::ui::components::{ErrorBox, Layout};
use crate::ui::hooks::resource;

/// The sets page.
#[component]
pub fn GuardSetsPage() -> impl IntoView {
    let refresh = RwSignal::new(0u32);
    let sets = resource(move || refresh.get(), |_| list_sets());
    let editing = RwSignal::new(None::<BenchmarkSetId>);
    let name = RwSignal::new(String::new());
    let prompts = RwSignal::new(String::new());
    let system_prompt = RwSignal::new(String::new());
    let max_tokens = RwSignal::new("256".to_string());
    let save = Action::new(move |_: &()| {
        let input = BenchmarkSetInput {
            name: name.get_untracked(),
            prompts: prompts
                .get_untracked()
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| SetPrompt { text: l.to_string() })
                .collect(),
            system_prompt: Some(system_prompt.get_untracked()),
            max_tokens: max_tokens.get_untracked().trim().parse().unwrap_or(0),
        };
        let id = editing.get_untracked();
        async move { save_set(id, Checked(input)).await }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = save.value().get() {
            editing.set(None);
            name.set(String::new());
            prompts.set(String::new());
            system_prompt.set(String::new());
            refresh.update(|n| *n += 1);
        }
    });
    let edit = move |set: BenchmarkSet| {
        editing.set(Some(set.id));
        name.set(set.name);
        prompts.set(set.prompts.iter().map(|p| p.text.clone()).collect::<Vec<_>>().join("\n"));
        system_prompt.set(set.system_prompt.unwrap_or_default());
        max_tokens.set(set.max_tokens.to_string());
    };
    let few = move || {
        let n = prompts.get().lines().filter(|l| !l.trim().is_empty()).count();
        (n > 0 && n < ADVISED_MIN_PROMPTS).then(|| {
            format!("{n} prompt(s): Welch's test compares each run's per-prompt times with the baseline's, so at least {ADVISED_MIN_PROMPTS} are advised.")
        })
    };
    view! {
        <Layout title="Benchmark sets">
            <p class="lead">"The prompts a schedule sends, each once per run, with this system prompt and max_tokens."</p>
            <form class="connector-form" id="set-form" on:submit=move |ev| { ev.prevent_default(); save.dispatch(()); } novalidate>
                <label>"Name"<input id="set-name" bind:value=name/></label>
                <label>"Prompts, one per line"<textarea id="set-prompts" rows="5" bind:value=prompts></textarea></label>
                {move || few().map(|w| view! { <p class="warning" id="few-prompts">{w}</p> })}
                <label>"System prompt (optional)"<textarea id="set-system" rows="2" bind:value=system_prompt></textarea></label>
                <label>"max_tokens"<input id="set-max-tokens" inputmode="numeric" bind:value=max_tokens/></label>
                <div class="actions">
                    <button type="submit" id="save-set" class="primary">{move || if editing.get().is_some() { "Save set" } else { "Create set" }}</button>
                </div>
                {move || save.value().get().and_then(Result::err).map(|e| view! { <ErrorBox message=e.to_string()/> })}
            </form>
            <Transition fallback=|| view! { <p>"Loading sets…"</p> }>
                {move || Suspend::new(async move {
                    match sets.await {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p class="muted" id="no-sets">"No sets yet: a set is the prompts a schedule sends; the form saves one."</p> }.into_any(),
                        Ok(list) => view! {
                            <table class="table" id="sets">
                                <thead><tr><th>"Name"</th><th>"Prompts"</th><th>"max_tokens"</th><th></th></tr></thead>
                                <tbody>{list.into_iter().map(|set| view! { <SetRow set edit refresh/> }).collect_view()}</tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Transition>
        </Layout>
    }
}

#[component]
fn SetRow(
    set: BenchmarkSet,
    edit: impl Fn(BenchmarkSet) + Copy + Send + Sync + 'static,
    refresh: RwSignal<u32>,
) -> impl IntoView {
    let id = set.id;
    let remove = Action::new(move |_: &()| delete_set(id));
    Effect::new(move |_| {
        if let Some(Ok(())) = remove.value().get() {
            refresh.update(|n| *n += 1);
        }
    });
    let for_edit = set.clone();
    view! {
        // The alert webhook's `runUrl` points here (`/guard/sets#set-{id}`).
        <tr id=format!("set-{id}")>
            <td>{set.name.clone()}</td>
            <td>{set.prompts.len()}</td>
            <td>{set.max_tokens}</td>
            <td>
                <button type="button" class="link" on:click=move |_| edit(for_edit.clone())>"Edit"</button>
                <button type="button" class="link danger" on:click=move |_| { remove.dispatch(()); }>"Delete"</button>
                {move || remove.value().get().and_then(Result::err).map(|e| view! { <ErrorBox message=e.to_string()/> })}
            </td>
        </tr>
    }
}
