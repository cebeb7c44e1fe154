//! The form that saves a workload by name: its kind (synthetic lengths, a shared prefix, multi-turn conversations),
//! the lengths it draws and how many requests it sends, with a seed. The server checks it as a run would and names
//! the field it refuses.

use leptos::prelude::*;

use super::datasets_panel::Shelf;
use super::length_fields::{LengthFields, LengthInputs};
use crate::model::{Checked, WorkloadId};
use crate::ui::components::SubmitRow;
use crate::workload::api::save_workload_form;
use crate::workload::model::{DatasetChoice, ThinkText, WorkloadFields};

/// A multi-turn user's think time, as typed.
#[derive(Clone, Copy)]
struct ThinkFields {
    kind: RwSignal<String>,
    ms: RwSignal<String>,
    max_ms: RwSignal<String>,
}

/// Every box of the form, each the text typed in it.
#[derive(Clone, Copy)]
struct Fields {
    name: RwSignal<String>,
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
    /// The boxes holding `text`.
    fn new(text: &WorkloadFields) -> Self {
        let boxed = |v: &String| RwSignal::new(v.clone());
        Self {
            name: boxed(&text.name),
            dataset: RwSignal::new(text.dataset.clone()),
            kind: boxed(&text.kind),
            requests: boxed(&text.requests),
            seed: boxed(&text.seed),
            input: LengthFields::new(&text.input),
            output: LengthFields::new(&text.output),
            groups: boxed(&text.groups),
            prefix_tokens: boxed(&text.prefix_tokens),
            users: boxed(&text.users),
            turns: boxed(&text.turns),
            follow_up: LengthFields::new(&text.follow_up),
            think: ThinkFields {
                kind: boxed(&text.think.kind),
                ms: boxed(&text.think.ms),
                max_ms: boxed(&text.think.max_ms),
            },
            recorded_outputs: RwSignal::new(text.recorded_outputs),
        }
    }

    /// What the boxes hold now.
    fn text(self) -> WorkloadFields {
        WorkloadFields {
            name: self.name.get_untracked(),
            kind: self.kind.get_untracked(),
            requests: self.requests.get_untracked(),
            seed: self.seed.get_untracked(),
            input: self.input.text(),
            output: self.output.text(),
            groups: self.groups.get_untracked(),
            prefix_tokens: self.prefix_tokens.get_untracked(),
            users: self.users.get_untracked(),
            turns: self.turns.get_untracked(),
            follow_up: self.follow_up.text(),
            think: ThinkText {
                kind: self.think.kind.get_untracked(),
                ms: self.think.ms.get_untracked(),
                max_ms: self.think.max_ms.get_untracked(),
            },
            dataset: self.dataset.get_untracked(),
            recorded_outputs: self.recorded_outputs.get_untracked(),
        }
    }

    /// Puts `text` in the boxes.
    fn fill(self, text: WorkloadFields) {
        self.name.set(text.name);
        self.dataset.set(text.dataset);
        self.kind.set(text.kind);
        self.requests.set(text.requests);
        self.seed.set(text.seed);
        self.input.fill(text.input);
        self.output.fill(text.output);
        self.groups.set(text.groups);
        self.prefix_tokens.set(text.prefix_tokens);
        self.users.set(text.users);
        self.turns.set(text.turns);
        self.follow_up.fill(text.follow_up);
        self.think.kind.set(text.think.kind);
        self.think.ms.set(text.think.ms);
        self.think.max_ms.set(text.think.max_ms);
        self.recorded_outputs.set(text.recorded_outputs);
    }
}

/// The form; `saved` goes up by one each time a workload is saved. A dataset workload picks one of the shelf's
/// datasets. While `edit` holds a saved workload, the form holds its boxes and saving replaces it.
#[component]
pub fn WorkloadForm(
    saved: RwSignal<u32>,
    shelf: Shelf,
    edit: RwSignal<Option<(WorkloadId, WorkloadFields)>>,
) -> impl IntoView {
    let fields = Fields::new(&WorkloadFields::default());
    Effect::new(move |_| {
        if let Some((_, text)) = edit.get() {
            fields.fill(text);
        }
    });
    let done_editing = move || {
        edit.set(None);
        fields.fill(WorkloadFields::default());
    };
    let save = Action::new(move |_: &()| {
        let id = edit.with_untracked(|e| e.as_ref().map(|(id, _)| *id));
        let typed = Checked(fields.text());
        async move { save_workload_form(id, typed).await }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = save.value().get() {
            if edit.with_untracked(Option::is_some) {
                done_editing();
            } else {
                fields.name.set(String::new());
            }
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
            {move || edit.with(|e| e.as_ref().map(|(_, text)| text.name.clone())).map(|name| view! {
                <p class="notice" id="editing-workload">{format!("Editing \u{201c}{name}\u{201d}: saving replaces it (runs that sent it keep their copy). ")}
                    <button type="button" class="link" id="cancel-edit" on:click=move |_| done_editing()>"Cancel"</button></p>
            })}
            <label>"Name" <input id="workload-name" bind:value=fields.name/></label>
            <label>"Kind"
                <select id="workload-kind" on:change=move |ev| kind.set(event_target_value(&ev)) prop:value=move || kind.get()>
                    <option value="synthetic">"Synthetic: prompts and answers of drawn token lengths"</option>
                    <option value="sharedPrefix">"Shared prefix: groups of requests with a common prefix"</option>
                    <option value="multiTurn">"Multi-turn: conversations, each turn carrying the ones before"</option>
                    <option value="dataset">"Dataset: an uploaded file's prompts, sent as written"</option>
                </select>
            </label>
            <div hidden=move || kind.get() != "dataset">
                <DatasetSelect shelf chosen=fields.dataset/>
                // Not `bind:checked`: a fourth section using it moved its code into every page's first load (1.9 KB
                // of gzip, past the budget); `event_target_checked` is already in the first chunk.
                <label class="inline"><input type="checkbox" id="workload-recorded-outputs"
                    prop:checked=move || fields.recorded_outputs.get()
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
fn DatasetSelect(shelf: Shelf, chosen: RwSignal<Option<DatasetChoice>>) -> impl IntoView {
    let choices = RwSignal::new(Vec::<DatasetChoice>::new());
    Effect::new(move |_| {
        if let Some(Ok(shelf)) = shelf.get() {
            choices.set(shelf.datasets.into_iter().map(|listing| listing.choice).collect());
        }
    });
    let pick = move |ev| {
        let id = event_target_value(&ev);
        chosen.set(choices.with_untracked(|list| list.iter().find(|c| c.id.to_string() == id).cloned()));
    };
    view! {
        <label>"Uploaded dataset"
            <select id="workload-dataset" on:change=pick
                prop:value=move || chosen.with(|c| c.as_ref().map(|c| c.id.to_string()).unwrap_or_default())>
                <option value="">"choose a dataset"</option>
                {move || choices.get().into_iter().map(|c| view! {
                    <option value=c.id.to_string()>{format!("{} ({} rows)", c.name, c.rows)}</option>
                }).collect_view()}
            </select>
        </label>
    }
}
