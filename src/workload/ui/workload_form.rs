//! The form that saves a workload by name: its kind (synthetic lengths, a shared prefix, multi-turn conversations),
//! the lengths it draws and how many requests it sends, with a seed. The server checks it as a run would and names
//! the field it refuses.

use leptos::prelude::*;

use super::datasets_panel::Datasets;
use super::length_fields::{LengthFields, LengthInputs};
use crate::error::AppError;
use crate::model::{Checked, ThinkTime, Workload, WorkloadFile};
use crate::ui::components::{invalid, number, SubmitRow};
use crate::workload::api::save_workload;
use crate::workload::model::{DatasetChoice, WorkloadInput};

/// A multi-turn user's think time, as typed.
#[derive(Clone, Copy)]
struct ThinkFields {
    kind: RwSignal<String>,
    ms: RwSignal<String>,
    max_ms: RwSignal<String>,
}

impl ThinkFields {
    fn read(self) -> Result<ThinkTime, AppError> {
        let ms = || number(&self.ms.get_untracked(), "workload.think.ms");
        Ok(match self.kind.get_untracked().as_str() {
            "uniform" => ThinkTime::Uniform {
                min_ms: number(&self.ms.get_untracked(), "workload.think.minMs")?,
                max_ms: number(&self.max_ms.get_untracked(), "workload.think.maxMs")?,
            },
            "exponential" => {
                ThinkTime::Exponential { mean_ms: number(&self.ms.get_untracked(), "workload.think.meanMs")? }
            }
            _ => ThinkTime::Fixed { ms: ms()? },
        })
    }
}

/// Every field of the form.
#[derive(Clone, Copy)]
struct Fields {
    /// The uploaded dataset a dataset workload sends.
    dataset: RwSignal<Option<DatasetChoice>>,
    kind: RwSignal<String>,
    requests: RwSignal<String>,
    seed: RwSignal<String>,
    input: LengthFields,
    output: LengthFields,
    groups: RwSignal<String>,
    prefix_tokens: RwSignal<String>,
    users: RwSignal<String>,
    turns: RwSignal<String>,
    follow_up: LengthFields,
    think: ThinkFields,
    /// A dataset's ShareGPT rows ask their recorded answers' lengths.
    recorded_outputs: RwSignal<bool>,
}

impl Fields {
    /// The workload typed. The first message of a conversation and a shared prefix's suffix are `input`.
    fn read(self) -> Result<Workload, AppError> {
        let requests = || number(&self.requests.get_untracked(), "workload.requests");
        let seed = number(&self.seed.get_untracked(), "workload.seed")?;
        Ok(match self.kind.get_untracked().as_str() {
            "sharedPrefix" => Workload::SharedPrefix {
                groups: number(&self.groups.get_untracked(), "workload.groups")?,
                prefix_tokens: number(&self.prefix_tokens.get_untracked(), "workload.prefixTokens")?,
                suffix: self.input.read("workload.suffix")?,
                output: self.output.read("workload.output")?,
                requests: requests()?,
                seed,
            },
            "dataset" => {
                let Some(dataset) = self.dataset.get_untracked() else {
                    return Err(invalid("workload.file", "choose an uploaded dataset".into()));
                };
                // The server puts its own record of the dataset here (its name, format and rows).
                let file = WorkloadFile {
                    path: dataset.name,
                    format: dataset.format,
                    rows: dataset.rows,
                    skipped: 0,
                    uploaded: Some(dataset.id),
                };
                Workload::Dataset {
                    file,
                    requests: requests()?,
                    output: Some(self.output.read("workload.output")?),
                    seed,
                    recorded_outputs: self.recorded_outputs.get_untracked(),
                }
            }
            "multiTurn" => Workload::MultiTurn {
                users: number(&self.users.get_untracked(), "workload.users")?,
                turns: number(&self.turns.get_untracked(), "workload.turns")?,
                first: self.input.read("workload.first")?,
                follow_up: self.follow_up.read("workload.followUp")?,
                output: self.output.read("workload.output")?,
                think: self.think.read()?,
                seed,
            },
            _ => Workload::Synthetic {
                input: self.input.read("workload.input")?,
                output: self.output.read("workload.output")?,
                requests: requests()?,
                seed,
            },
        })
    }
}

/// The form; `saved` goes up by one each time a workload is saved. A dataset workload picks one of `datasets`.
#[component]
pub fn WorkloadForm(saved: RwSignal<u32>, datasets: Datasets) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let text = |v: &str| RwSignal::new(v.to_string());
    let fields = Fields {
        dataset: RwSignal::new(None),
        kind: text("synthetic"),
        requests: text("20"),
        seed: text("1"),
        input: LengthFields::fixed(256),
        output: LengthFields::fixed(64),
        groups: text("2"),
        prefix_tokens: text("512"),
        users: text("4"),
        turns: text("3"),
        follow_up: LengthFields::fixed(64),
        think: ThinkFields { kind: text("fixed"), ms: text("0"), max_ms: text("1000") },
        recorded_outputs: RwSignal::new(false),
    };
    let save = Action::new(move |_: &()| {
        let input = fields.read().map(|spec| WorkloadInput { name: name.get_untracked(), spec });
        async move { save_workload(None, Checked(input?)).await }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = save.value().get() {
            name.set(String::new());
            saved.update(|n| *n += 1);
        }
    });
    let kind = fields.kind;
    let is = move |k: &'static str| move || kind.get() == k;
    let first_label = move || match kind.get().as_str() {
        "sharedPrefix" => "Each request's own suffix, after its group's prefix",
        "multiTurn" => "Each conversation's first message",
        _ => "Prompt length",
    };
    view! {
        <form class="connector-form" id="workload-form" on:submit=move |ev| { ev.prevent_default(); save.dispatch(()); } novalidate>
            <label>"Name" <input id="workload-name" bind:value=name/></label>
            <label>"Kind"
                <select id="workload-kind" on:change=move |ev| kind.set(event_target_value(&ev)) prop:value=move || kind.get()>
                    <option value="synthetic">"Synthetic: prompts and answers of drawn token lengths"</option>
                    <option value="sharedPrefix">"Shared prefix: groups of requests with a common prefix"</option>
                    <option value="multiTurn">"Multi-turn: conversations, each turn carrying the ones before"</option>
                    <option value="dataset">"Dataset: an uploaded file's prompts, sent as written"</option>
                </select>
            </label>
            <div hidden=move || kind.get() != "dataset">
                <DatasetSelect datasets chosen=fields.dataset/>
                // Not `bind:checked`: a fourth section using it moved its code into every page's first load (1.9 KB
                // of gzip, past the budget); `event_target_checked` is already in the first chunk.
                <label class="inline"><input type="checkbox" id="workload-recorded-outputs"
                    on:change=move |ev| fields.recorded_outputs.set(event_target_checked(&ev))/>
                    " A ShareGPT row without output_tokens asks its recorded answer's length (counted by the server's tokenizer)"</label>
            </div>
            <div class="prices">
                <Show when=move || kind.get() != "multiTurn">
                    <label>"Requests" <input id="workload-requests" inputmode="numeric" bind:value=fields.requests/></label>
                </Show>
                <label>"Seed (the same seed sends the same prompts)" <input id="workload-seed" inputmode="numeric" bind:value=fields.seed/></label>
            </div>
            <Show when=is("sharedPrefix")>
                <div class="prices">
                    <label>"Groups" <input id="workload-groups" inputmode="numeric" bind:value=fields.groups/></label>
                    <label>"Prefix tokens (per group)" <input id="workload-prefix-tokens" inputmode="numeric" bind:value=fields.prefix_tokens/></label>
                </div>
            </Show>
            <Show when=is("multiTurn")>
                <div class="prices">
                    <label>"Conversations" <input id="workload-users" inputmode="numeric" bind:value=fields.users/></label>
                    <label>"Turns each" <input id="workload-turns" inputmode="numeric" bind:value=fields.turns/></label>
                    <label>"Think time"
                        <select id="think-kind" on:change=move |ev| fields.think.kind.set(event_target_value(&ev)) prop:value=move || fields.think.kind.get()>
                            <option value="fixed">"fixed"</option>
                            <option value="uniform">"uniform"</option>
                            <option value="exponential">"exponential"</option>
                        </select>
                    </label>
                    <label>{move || match fields.think.kind.get().as_str() { "uniform" => "At least (ms)", "exponential" => "Mean (ms)", _ => "Milliseconds" }}
                        <input id="think-ms" inputmode="numeric" bind:value=fields.think.ms/></label>
                    <Show when=move || fields.think.kind.get() == "uniform">
                        <label>"At most (ms)" <input id="think-max-ms" inputmode="numeric" bind:value=fields.think.max_ms/></label>
                    </Show>
                </div>
            </Show>
            <div hidden=is("dataset")>
                {move || view! { <LengthInputs id="input" label=first_label() length=fields.input/> }}
            </div>
            <Show when=is("multiTurn")>
                <LengthInputs id="follow-up" label="Each later message" length=fields.follow_up/>
            </Show>
            <LengthInputs id="output" label=move || if kind.get() == "dataset" {
                    "Answer length of a row that gives none (max_tokens, with ignore_eos where the server takes it)"
                } else {
                    "Answer length (max_tokens, with ignore_eos where the server takes it)"
                } length=fields.output/>
            <SubmitRow id="save-workload" label="Save workload" pending=save.pending()
                error=Signal::derive(move || save.value().get().and_then(Result::err).map(|e| e.to_string()))/>
        </form>
    }
}

/// The uploaded datasets to choose from, once listed (read in an effect, so the form waits on nothing).
#[component]
fn DatasetSelect(datasets: Datasets, chosen: RwSignal<Option<DatasetChoice>>) -> impl IntoView {
    let choices = RwSignal::new(Vec::<DatasetChoice>::new());
    Effect::new(move |_| {
        if let Some(Ok(list)) = datasets.get() {
            choices.set(list.into_iter().map(|listing| listing.choice).collect());
        }
    });
    let pick = move |ev| {
        let id = event_target_value(&ev);
        chosen.set(choices.with_untracked(|list| list.iter().find(|c| c.id.to_string() == id).cloned()));
    };
    view! {
        <label>"Uploaded dataset"
            <select id="workload-dataset" on:change=pick>
                <option value="">"choose a dataset"</option>
                {move || choices.get().into_iter().map(|c| view! {
                    <option value=c.id.to_string()>{format!("{} ({} rows)", c.name, c.rows)}</option>
                }).collect_view()}
            </select>
        </label>
    }
}
