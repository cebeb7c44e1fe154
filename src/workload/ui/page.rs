//! `/workloads`: the workspace's saved workloads — what runs, sweeps and capacity searches send instead of a list of
//! prompts — listed in words, saved from the form and deleted (a run keeps the copy it sent).

use leptos::prelude::*;

use super::{DatasetsPanel, WorkloadForm};
use crate::ui::components::{ErrorBox, Layout};
use crate::ui::hooks::resource;
use crate::workload::api::list_datasets;
use crate::workload::api::{delete_workload, workload_choices};
use crate::workload::model::WorkloadChoice;

/// The workloads page.
#[component]
pub fn WorkloadsPage() -> impl IntoView {
    let refresh = RwSignal::new(0u32);
    let choices = resource(move || refresh.get(), |_| workload_choices());
    let datasets_changed = RwSignal::new(0u32);
    let datasets = resource(move || datasets_changed.get(), |_| list_datasets());
    view! {
        <Layout title="Workloads">
            <p class="lead">"What a run sends when it does not send a list of prompts: prompts and answers of exact token \
                lengths, groups sharing a prefix (the server's prefix cache at work), multi-turn conversations, or an \
                uploaded dataset's prompts. \
                A new run, a sweep, a capacity search, an A/B test or a Guard schedule names one; the report keeps every \
                parameter."</p>
            <WorkloadForm saved=refresh datasets/>
            <Transition fallback=|| view! { <p>"Loading workloads…"</p> }>
                {move || Suspend::new(async move {
                    match choices.await {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p class="muted" id="no-workloads">"No saved workloads yet: the form saves one, and every run, sweep, A/B test and schedule can then send it."</p> }.into_any(),
                        Ok(list) => view! {
                            <table class="table" id="workloads">
                                <thead><tr><th>"Name"</th><th>"Sends"</th><th></th></tr></thead>
                                <tbody>{list.into_iter().map(|choice| view! { <WorkloadRow choice refresh/> }).collect_view()}</tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Transition>
            <DatasetsPanel datasets changed=datasets_changed/>
        </Layout>
    }
}

#[component]
fn WorkloadRow(choice: WorkloadChoice, refresh: RwSignal<u32>) -> impl IntoView {
    let id = choice.id;
    let remove = Action::new(move |_: &()| delete_workload(id));
    Effect::new(move |_| {
        if let Some(Ok(())) = remove.value().get() {
            refresh.update(|n| *n += 1);
        }
    });
    view! {
        <tr id=format!("workload-{id}")>
            <td class="workload-name">{choice.name}</td>
            <td class="muted">{choice.summary}</td>
            <td>
                <button type="button" class="link danger" on:click=move |_| { remove.dispatch(()); }>"Delete"</button>
                {move || remove.value().get().and_then(Result::err).map(|e| view! { <ErrorBox message=e.to_string()/> })}
            </td>
        </tr>
    }
}
