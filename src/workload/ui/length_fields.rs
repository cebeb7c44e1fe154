//! A token length's fields in the workload form: how it is drawn (fixed, uniform, normal or log-normal; an
//! empirical histogram is given in a workload file or through the API) and its parameters, each a box whose text
//! is a [`LengthText`] (read into a distribution by the model). The server checks the distribution again and names
//! the field when it refuses one.

use leptos::prelude::*;

use crate::workload::model::LengthText;

/// The boxes of one length, each the text typed in it.
#[derive(Clone, Copy)]
pub struct LengthFields {
    kind: RwSignal<String>,
    tokens: RwSignal<String>,
    min: RwSignal<String>,
    max: RwSignal<String>,
    /// A normal's mean or a log-normal's median.
    center: RwSignal<String>,
    /// A normal's standard deviation or a log-normal's σ.
    spread: RwSignal<String>,
}

impl LengthFields {
    /// The boxes holding `text`.
    pub fn new(text: &LengthText) -> Self {
        let boxed = |v: &String| RwSignal::new(v.clone());
        Self {
            kind: boxed(&text.kind),
            tokens: boxed(&text.tokens),
            min: boxed(&text.min),
            max: boxed(&text.max),
            center: boxed(&text.center),
            spread: boxed(&text.spread),
        }
    }

    /// What the boxes hold now.
    pub fn text(self) -> LengthText {
        LengthText {
            kind: self.kind.get_untracked(),
            tokens: self.tokens.get_untracked(),
            min: self.min.get_untracked(),
            max: self.max.get_untracked(),
            center: self.center.get_untracked(),
            spread: self.spread.get_untracked(),
        }
    }

    /// Puts `text` in the boxes.
    pub fn fill(self, text: LengthText) {
        self.kind.set(text.kind);
        self.tokens.set(text.tokens);
        self.min.set(text.min);
        self.max.set(text.max);
        self.center.set(text.center);
        self.spread.set(text.spread);
    }
}

/// The fields of `length`, their ids starting with `id` (`input-kind`, `input-tokens`, …).
#[component]
pub fn LengthInputs(
    id: &'static str,
    #[prop(into)] label: Signal<&'static str>,
    length: LengthFields,
) -> impl IntoView {
    let LengthFields { kind, tokens, min, max, center, spread } = length;
    let is = move |k: &'static str| move || kind.get() == k;
    let ranged = move || kind.get() != "fixed";
    let shaped = move || matches!(kind.get().as_str(), "normal" | "logNormal");
    let log = move || kind.get() == "logNormal";
    view! {
        <fieldset class="length" id=id>
            <legend>{move || label.get()}</legend>
            <label>"Drawn"
                <select id=format!("{id}-kind") on:change=move |ev| kind.set(event_target_value(&ev)) prop:value=move || kind.get()>
                    <option value="fixed">"fixed"</option>
                    <option value="uniform">"uniform"</option>
                    <option value="normal">"normal (clipped)"</option>
                    <option value="logNormal">"log-normal (clipped)"</option>
                </select>
            </label>
            <Show when=is("fixed")>
                <label>"Tokens" <input id=format!("{id}-tokens") inputmode="numeric" bind:value=tokens/></label>
            </Show>
            <Show when=shaped>
                <label>{move || if log() { "Median" } else { "Mean" }}
                    <input id=format!("{id}-center") inputmode="decimal" bind:value=center/></label>
                <label>{move || if log() { "σ of the log" } else { "Standard deviation" }}
                    <input id=format!("{id}-spread") inputmode="decimal" bind:value=spread/></label>
            </Show>
            <Show when=ranged>
                <label>"At least" <input id=format!("{id}-min") inputmode="numeric" bind:value=min/></label>
                <label>"At most" <input id=format!("{id}-max") inputmode="numeric" bind:value=max/></label>
            </Show>
        </fieldset>
    }
}
