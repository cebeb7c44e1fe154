//! The create/edit form of a connector, with "Test connection" and "Save". Secrets typed here go to the server
//! once; stored ones are never sent back, only whether they exist.

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;
use std::collections::BTreeMap;

use super::ConnectionTestPanel;
use crate::api::connectors::{create_connector, test_connector, update_connector};
use crate::error::AppError;
use crate::model::{
    is_credential_header, Checked, Connector, ConnectorId, ConnectorInput, TestTarget, ValidationError,
};

/// One editable header row.
#[derive(Clone)]
struct HeaderRow {
    key: usize,
    name: RwSignal<String>,
    value: RwSignal<String>,
    /// A credential header whose value is stored on the server; an empty value keeps it.
    stored_secret: bool,
}

/// A header row with a fresh key from `next_key`.
fn header_row(next_key: StoredValue<usize>, name: String, value: String, stored_secret: bool) -> HeaderRow {
    let key = next_key.get_value();
    next_key.set_value(key + 1);
    HeaderRow { key, name: RwSignal::new(name), value: RwSignal::new(value), stored_secret }
}

fn parse_price(raw: &str, field: &str) -> Result<Option<f64>, AppError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(None);
    }
    raw.parse::<f64>()
        .map(Some)
        .map_err(|_| AppError::Invalid(ValidationError::new(field, format!("{raw:?} is not a number"))))
}

/// The form; `existing` is `None` for a new connector.
#[component]
pub fn ConnectorForm(existing: Option<Connector>) -> impl IntoView {
    let id: Option<ConnectorId> = existing.as_ref().map(|c| c.id);
    let has_stored_key = existing.as_ref().is_some_and(|c| c.has_api_key);
    let name = RwSignal::new(existing.as_ref().map(|c| c.name.clone()).unwrap_or_default());
    let base_url = RwSignal::new(existing.as_ref().map(|c| c.base_url.clone()).unwrap_or_default());
    let model = RwSignal::new(existing.as_ref().map(|c| c.model.clone()).unwrap_or_default());
    let api_key = RwSignal::new(String::new());
    let clear_key = RwSignal::new(false);
    let price_in = RwSignal::new(
        existing.as_ref().and_then(|c| c.input_price_per_mtok).map(|p| p.to_string()).unwrap_or_default(),
    );
    let price_out = RwSignal::new(
        existing.as_ref().and_then(|c| c.output_price_per_mtok).map(|p| p.to_string()).unwrap_or_default(),
    );
    let next_key = StoredValue::new(0usize);
    let rows = RwSignal::new(
        existing
            .as_ref()
            .map(|c| {
                c.headers
                    .iter()
                    .map(|h| header_row(next_key, h.name.clone(), h.value.clone().unwrap_or_default(), h.secret))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default(),
    );

    let headers = move || -> BTreeMap<String, Option<String>> {
        rows.get()
            .iter()
            .filter(|r| !r.name.get().trim().is_empty())
            .map(|r| {
                let value = r.value.get();
                let value = if value.is_empty() && r.stored_secret { None } else { Some(value) };
                (r.name.get().trim().to_string(), value)
            })
            .collect()
    };
    let key_input = move || Some(api_key.get()).filter(|k| !k.trim().is_empty());
    let form_input = move || -> Result<ConnectorInput, AppError> {
        Ok(ConnectorInput {
            name: name.get(),
            base_url: base_url.get(),
            api_key: key_input(),
            clear_api_key: clear_key.get(),
            model: model.get(),
            headers: headers(),
            input_price_per_mtok: parse_price(&price_in.get(), "inputPricePerMtok")?,
            output_price_per_mtok: parse_price(&price_out.get(), "outputPricePerMtok")?,
        })
    };

    let test = Action::new(move |target: &TestTarget| test_connector(Checked(target.clone())));
    let save = Action::new(move |input: &Result<ConnectorInput, AppError>| {
        let input = input.clone();
        async move {
            let input = Checked(input?);
            match id {
                Some(id) => update_connector(id, input).await,
                None => create_connector(input).await,
            }
        }
    });
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(_)) = save.value().get() {
            navigate("/connectors", Default::default());
        }
    });

    let on_test = move |_| {
        test.dispatch(TestTarget {
            connector_id: if clear_key.get() { None } else { id },
            base_url: base_url.get(),
            api_key: key_input(),
            model: model.get(),
            headers: headers(),
        });
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        save.dispatch(form_input());
    };

    view! {
        <form class="connector-form" on:submit=on_submit novalidate>
            <label>"Name" <input id="name" name="name" required bind:value=name/></label>
            <label>
                "Base URL"
                <input id="base-url" name="baseUrl" placeholder="https://api.openai.com/v1" bind:value=base_url/>
                <small>"Requests go to {base URL}/chat/completions; a ?api-version=… query is kept."</small>
            </label>
            <KeyFields api_key clear_key has_stored_key/>
            <label>"Model" <input id="model" name="model" placeholder="gpt-4o-mini" bind:value=model/></label>
            <HeadersFieldset rows next_key/>
            <div class="prices">
                <label>"Input price (USD / 1M tokens)" <input id="price-in" inputmode="decimal" bind:value=price_in/></label>
                <label>"Output price (USD / 1M tokens)" <input id="price-out" inputmode="decimal" bind:value=price_out/></label>
            </div>
            <div class="actions">
                <button type="button" id="test-connection" on:click=on_test disabled=move || test.pending().get()>
                    {move || if test.pending().get() { "Testing…" } else { "Test connection" }}
                </button>
                <button type="submit" id="save" class="primary" disabled=move || save.pending().get()>
                    {move || if save.pending().get() { "Saving…" } else { "Save" }}
                </button>
            </div>
            {move || test.value().get().map(|result| view! { <ConnectionTestPanel result/> })}
            {move || match save.value().get() {
                Some(Err(e)) => Some(view! { <div id="save-error" class="error" role="alert">{e.to_string()}</div> }),
                _ => None,
            }}
        </form>
    }
}

/// The extra headers, one editable row each; a credential header's value is masked, and a stored one is kept
/// when left blank.
#[component]
fn HeadersFieldset(rows: RwSignal<Vec<HeaderRow>>, next_key: StoredValue<usize>) -> impl IntoView {
    let add_header = move |_| rows.update(|r| r.push(header_row(next_key, String::new(), String::new(), false)));
    view! {
        <fieldset>
            <legend>"Extra headers (sent after the defaults)"</legend>
            <For each=move || rows.get() key=|r| r.key let:row>
                {
                    let secret = move || row.stored_secret || is_credential_header(&row.name.get());
                    let key = row.key;
                    view! {
                        <div class="header-row">
                            <input class="header-name" placeholder="api-version" bind:value=row.name/>
                            <input
                                class="header-value"
                                type=move || if secret() { "password" } else { "text" }
                                placeholder=move || if row.stored_secret { "•••••• stored; blank keeps it" } else { "value" }
                                bind:value=row.value
                            />
                            <button type="button" class="link" on:click=move |_| rows.update(|r| r.retain(|x| x.key != key))>"Remove"</button>
                        </div>
                    }
                }
            </For>
            <button type="button" id="add-header" on:click=add_header>"Add header"</button>
        </fieldset>
    }
}

/// The write-only API key, and for a stored one the choice to remove it.
#[component]
fn KeyFields(api_key: RwSignal<String>, clear_key: RwSignal<bool>, has_stored_key: bool) -> impl IntoView {
    let placeholder = if has_stored_key { "•••••• stored; leave blank to keep it" } else { "optional" };
    view! {
        <label>
            "API key"
            <input id="api-key" name="apiKey" type="password" autocomplete="off" placeholder=placeholder bind:value=api_key/>
            <small>"Write-only: stored encrypted, sent as Authorization: Bearer …, never shown again."</small>
        </label>
        {has_stored_key.then(|| view! {
            <label class="inline"><input type="checkbox" id="clear-key" bind:checked=clear_key/> "Remove the stored key"</label>
        })}
    }
}
