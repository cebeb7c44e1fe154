//! A token length's fields in the workload form: how it is drawn (fixed, uniform, normal or log-normal; an
//! empirical histogram is given in a workload file or through the API) and its parameters, read into a
//! [`LengthDist`]. The server checks the distribution again and names the field when it refuses one.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::LengthDist;
use crate::ui::components::number;

/// The fields of one length, as typed.
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
    /// A fixed length of `tokens`, with a range around it ready for the other shapes.
    pub fn fixed(tokens: u32) -> Self {
        let text = |n: u32| RwSignal::new(n.to_string());
        Self {
            kind: RwSignal::new("fixed".into()),
            tokens: text(tokens),
            min: text((tokens / 2).max(1)),
            max: text(tokens * 2),
            center: text(tokens),
            spread: RwSignal::new(if tokens > 1 { (tokens / 4).max(1).to_string() } else { "1".into() }),
        }
    }

    /// The distribution typed; `field` names it in a refusal (`workload.input`).
    pub fn read(self, field: &str) -> Result<LengthDist, AppError> {
        let at = |name: &str| format!("{field}.{name}");
        let min = || number(&self.min.get_untracked(), &at("min"));
        let max = || number(&self.max.get_untracked(), &at("max"));
        Ok(match self.kind.get_untracked().as_str() {
            "uniform" => LengthDist::Uniform { min: min()?, max: max()? },
            "normal" => LengthDist::Normal {
                mean: number(&self.center.get_untracked(), &at("mean"))?,
                sd: number(&self.spread.get_untracked(), &at("sd"))?,
                min: min()?,
                max: max()?,
            },
            "logNormal" => LengthDist::LogNormal {
                median: number(&self.center.get_untracked(), &at("median"))?,
                sigma: number(&self.spread.get_untracked(), &at("sigma"))?,
                min: min()?,
                max: max()?,
            },
            _ => LengthDist::Fixed { tokens: number(&self.tokens.get_untracked(), &at("tokens"))? },
        })
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
