//! The A/B form of the Spec Lab page: a baseline and a candidate connector, the prompts or a saved workload, and the
//! sweep (concurrency levels and temperatures, comma-separated). Starting opens the test's page.

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use crate::api::connectors::list_connectors;
use crate::error::AppError;
use crate::lab::api::start_ab_test;
use crate::lab::model::{AbPlanInput, AbTestInput};
use crate::model::{Checked, Connector, ConnectorId, PromptHeads};
use crate::ui::components::{invalid, number, SubmitRow};
use crate::ui::hooks::resource;
use crate::wire::JsonWire;
use crate::workload::api::workload_choices;
use crate::workload::model::WorkloadChoice;
use crate::workload::ui::{picked_workload, prompts_and_iterations, WorkloadPicker};

/// "1, 4, 16" as numbers; the error names `field` and the piece that is not one.
fn list<T: std::str::FromStr>(raw: &str, field: &str) -> Result<Vec<T>, AppError> {
    raw.split(',').map(str::trim).filter(|p| !p.is_empty()).map(|p| number(p, field)).collect()
}

fn connector(raw: &str, field: &str) -> Result<ConnectorId, AppError> {
    raw.parse().map_err(|_| invalid(field, "choose a connector".into()))
}

/// The connectors and saved workloads the page's probe and form pick from: one resource for both, read once.
pub type PickLists = Resource<(Result<Vec<Connector>, AppError>, Result<Vec<WorkloadChoice>, AppError>), JsonWire>;

/// Reads the page's pick lists.
pub fn pick_lists() -> PickLists {
    resource(|| (), |_| async { (list_connectors().await, workload_choices().await) })
}

/// The form.
#[component]
pub fn AbForm(lists: PickLists) -> impl IntoView {
    let (baseline, candidate) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    // A saved workload's id, or empty for the prompts typed here.
    let workload = RwSignal::new(String::new());
    let prompts = RwSignal::new("Count from one to twenty.\nWrite a haiku about latency.".to_string());
    let iterations = RwSignal::new("10".to_string());
    let max_tokens = RwSignal::new("128".to_string());
    let warmup = RwSignal::new("1".to_string());
    let concurrencies = RwSignal::new("1".to_string());
    let temperatures = RwSignal::new("0".to_string());
    let input = move || -> Result<AbTestInput, AppError> {
        let workload_id = picked_workload(&workload.get())?;
        let (prompts, iterations) = prompts_and_iterations(workload_id, &prompts.get(), &iterations.get())?;
        Ok(AbTestInput {
            baseline_connector_id: connector(&baseline.get(), "baselineConnectorId")?,
            candidate_connector_id: connector(&candidate.get(), "candidateConnectorId")?,
            plan: AbPlanInput {
                title: None,
                prompts,
                iterations,
                warmup: number(&warmup.get(), "warmup")?,
                max_tokens: number(&max_tokens.get(), "maxTokens")?,
                temperatures: list(&temperatures.get(), "temperatures")?,
                concurrencies: list(&concurrencies.get(), "concurrencies")?,
                timeout_ms: None,
                system_prompt: None,
                workload: None,
                workload_id,
                prompt_heads: PromptHeads::Unique,
            },
        })
    };
    let start = Action::new(|input: &Result<AbTestInput, AppError>| {
        let input = input.clone();
        async move { start_ab_test(Checked(input?)).await }
    });
    let prompted = move || !workload.get().is_empty();
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(test)) = start.value().get() {
            navigate(&format!("/spec-lab/ab/{}", test.id), Default::default());
        }
    });
    let pick = move |id: &'static str, label: &'static str, chosen: RwSignal<String>, list: Vec<Connector>| {
        view! {
            <label>{label}
                <select id=id on:change=move |ev| chosen.set(event_target_value(&ev)) prop:value=move || chosen.get()>
                    <option value="">"Choose a connector…"</option>
                    {list.into_iter().map(|c| {
                        let engine = c.server_kind.map_or(String::new(), |k| format!(" · {}", k.label()));
                        view! { <option value=c.id.to_string()>{format!("{} ({}){engine}", c.name, c.model)}</option> }
                    }).collect_view()}
                </select>
            </label>
        }
    };
    view! {
        <form class="connector-form" id="ab-form" novalidate on:submit=move |ev| { ev.prevent_default(); start.dispatch(input()); }>
            <Suspense fallback=|| view! { <p>"Loading connectors…"</p> }>
                {move || Suspend::new(async move {
                    let (list, workloads) = lists.await;
                    let list = list.unwrap_or_default();
                    view! { <div class="prices">
                        {pick("ab-baseline", "Baseline (e.g. speculative decoding off)", baseline, list.clone())}
                        {pick("ab-candidate", "Candidate (e.g. speculative decoding on)", candidate, list)}
                    </div>
                    <WorkloadPicker id="ab-workload" chosen=workload choices=workloads.unwrap_or_default()/> }
                })}
            </Suspense>
            // A workload's requests replace the prompts and their iterations: each made once, sent to both arms.
            <label hidden=prompted>"Prompts, one per line" <textarea id="ab-prompts" rows="3" bind:value=prompts></textarea></label>
            <div class="prices">
                <label hidden=prompted>"Iterations per prompt, per arm" <input id="ab-iterations" inputmode="numeric" bind:value=iterations/></label>
                <label>"max_tokens" <input id="ab-max-tokens" inputmode="numeric" bind:value=max_tokens/></label>
                <label>"Warm-ups per arm and cell" <input id="ab-warmup" inputmode="numeric" bind:value=warmup/></label>
                <label>"Concurrency levels (comma-separated)" <input id="ab-concurrencies" bind:value=concurrencies/></label>
                <label>"Temperatures (comma-separated)" <input id="ab-temperatures" bind:value=temperatures/></label>
            </div>
            <p class="hint">"Requests go in rounds: one round to one arm, the same prompts to the other, the arm that goes first \
                alternating, so drift hits both alike. Probe both connectors first to record their servers' metrics."</p>
            <SubmitRow id="start-ab" label="Start A/B test" pending=start.pending()
                error=Signal::derive(move || start.value().get().and_then(Result::err).map(|e| e.to_string()))/>
        </form>
    }
}
