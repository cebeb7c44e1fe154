//! What a form sends: what it holds itself (its prompts), or one of the workspace's saved workloads, named by id (the
//! browser never reads a workload itself, only its name and its parameters in words).

use leptos::prelude::*;
use leptos_router::components::A;

use crate::error::AppError;
use crate::model::WorkloadId;
use crate::ui::components::{invalid, number};
use crate::workload::model::WorkloadChoice;

/// A `<select id=id>` of the form's own prompts (value "") and each saved workload, its parameters in the option's
/// title; the chosen value goes to `chosen`.
#[component]
pub fn WorkloadPicker(id: &'static str, chosen: RwSignal<String>, choices: Vec<WorkloadChoice>) -> impl IntoView {
    view! {
        <label>"Send " <A href="/workloads">"(workloads)"</A>
            <select id=id on:change=move |ev| chosen.set(event_target_value(&ev)) prop:value=move || chosen.get()>
                <option value="">"the prompts below"</option>
                {choices.into_iter().map(|c| view! {
                    <option value=c.id.to_string() title=c.summary>{format!("workload: {}", c.name)}</option>
                }).collect_view()}
            </select>
        </label>
    }
}

/// The saved workload a picker's value names: `None` for "" (the form's own prompts).
pub fn picked_workload(value: &str) -> Result<Option<WorkloadId>, AppError> {
    match value {
        "" => Ok(None),
        id => id.parse().map(Some).map_err(|_| invalid("workloadId", "choose a saved workload".into())),
    }
}

/// What a form of prompts × iterations sends beside the workload it picked: with one, no prompts and one iteration
/// (each of the workload's requests is sent once); without, each non-blank line of `prompts`, `iterations` times.
pub fn prompts_and_iterations(
    workload: Option<WorkloadId>,
    prompts: &str,
    iterations: &str,
) -> Result<(Vec<String>, u32), AppError> {
    match workload {
        Some(_) => Ok((vec![], 1)),
        None => Ok((
            prompts.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect(),
            number(iterations, "iterations")?,
        )),
    }
}
