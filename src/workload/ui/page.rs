//! `/workloads`: the workspace's saved workloads — what runs, sweeps and capacity searches send instead of a list of
//! prompts — listed in words, saved from the form, edited in it and deleted (a run keeps the copy it sent).

use leptos::prelude::*;

use super::{DatasetsPanel, WorkloadForm};
use crate::model::WorkloadId;
use crate::ui::components::{ErrorBox, Layout};
use crate::ui::hooks::resource;
use crate::workload::api::{delete_workload, get_workload_shelf};
use crate::workload::model::{EditableWorkload, WorkloadFields};

/// The workloads page.
#[component]
pub fn WorkloadsPage() -> impl IntoView {
    let changed = RwSignal::new(0u32);
    let shelf = resource(move || changed.get(), |_| get_workload_shelf());
    // The saved workload the form is editing, with its boxes.
    let edit = RwSignal::new(None::<(WorkloadId, WorkloadFields)>);
    view! {
        <Layout title="Workloads">
            <p class="lead">"What a run sends when it does not send a list of prompts: prompts and answers of exact token \
                lengths, groups sharing a prefix (the server's prefix cache at work), multi-turn conversations, or an \
                uploaded dataset's prompts. \
                A new run, a sweep, a capacity search, an A/B test or a Guard schedule names one; the report keeps every \
                parameter."</p>
            <WorkloadForm saved=changed shelf edit/>
            <Transition fallback=|| view! { <p>"Loading workloads…"</p> }>
                {move || Suspend::new(async move {
                    match shelf.await.map(|shelf| shelf.workloads) {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p class="muted" id="no-workloads">"No saved workloads yet: the form saves one, and every run, sweep, A/B test and schedule can then send it."</p> }.into_any(),
                        Ok(list) => view! {
                            <table class="table" id="workloads">
                                <thead><tr><th>"Name"</th><th>"Sends"</th><th></th></tr></thead>
                                <tbody>{list.into_iter().map(|workload| view! { <WorkloadRow workload changed edit/> }).collect_view()}</tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Transition>
            <DatasetsPanel shelf changed/>
        </Layout>
    }
}

#[component]
fn WorkloadRow(
    workload: EditableWorkload,
    changed: RwSignal<u32>,
    edit: RwSignal<Option<(WorkloadId, WorkloadFields)>>,
) -> impl IntoView {
    let EditableWorkload { choice, fields } = workload;
    let id = choice.id;
    let remove = Action::new(move |_: &()| delete_workload(id));
    Effect::new(move |_| {
        if let Some(Ok(())) = remove.value().get() {
            if edit.get_untracked().is_some_and(|(editing, _)| editing == id) {
                edit.set(None);
            }
            changed.update(|n| *n += 1);
        }
    });
    let edit_button = match fields {
        Some(fields) => view! {
            <button type="button" class="link edit-workload" on:click=move |_| {
                edit.set(Some((id, fields.clone())));
                scroll_to_form();
            }>"Edit"</button>
        }
        .into_any(),
        None => view! { <span class="muted" title="a trace, an empirical length or a file on a bench machine: the form has no boxes for it">"edit through the API"</span> }.into_any(),
    };
    view! {
        <tr id=format!("workload-{id}")>
            <td class="workload-name">{choice.name}</td>
            <td class="muted">{choice.summary}</td>
            <td class="row-actions">
                {edit_button}
                <button type="button" class="link danger" on:click=move |_| { remove.dispatch(()); }>"Delete"</button>
                {move || remove.value().get().and_then(Result::err).map(|e| view! { <ErrorBox message=e.to_string()/> })}
            </td>
        </tr>
    }
}

/// Brings the form into view: on a phone the list is below it, a screen or more away.
fn scroll_to_form() {
    #[cfg(feature = "hydrate")]
    if let Some(form) = leptos::prelude::document().get_element_by_id("workload-form") {
        form.scroll_into_view();
    }
}
