//! JSON and HTML export buttons for a document already on the page (an A/B test, a sweep): each file is made at
//! once in the browser by the shared export code (the same bytes a CLI command or a test makes).

use leptos::prelude::*;

use super::export_buttons::save_file;
use crate::report::{AbReport, SweepView};

/// `<prefix>-export-json` and `<prefix>-export-html` buttons saving `<kind>-<title>-<date>.json|html`.
#[component]
fn JsonHtmlButtons(
    prefix: &'static str,
    kind: &'static str,
    title: String,
    created_at: String,
    json: Callback<(), String>,
    html: Callback<(), String>,
) -> impl IntoView {
    let failure = RwSignal::new(None::<String>);
    let named = StoredValue::new((title, created_at));
    let save = move |as_html: bool| {
        let (extension, media_type, body) =
            if as_html { ("html", "text/html", html.run(())) } else { ("json", "application/json", json.run(())) };
        let name = named.with_value(|(title, created)| crate::export::named_file(kind, title, created, extension));
        failure.set(save_file(&name, media_type, &body).err());
    };
    view! {
        <div class="export-buttons" role="group" aria-label="Export">
            <span class="muted">"Export:"</span>
            <button type="button" id=format!("{prefix}-export-json") on:click=move |_| save(false)>"JSON"</button>
            <button type="button" id=format!("{prefix}-export-html") on:click=move |_| save(true)>"HTML"</button>
            {move || failure.get().map(|e| view! { <span class="error" role="alert">{format!("Export failed: {e}")}</span> })}
        </div>
    }
}

/// An A/B test's exports: `ab-test-<title>-<date>.json|html`.
#[component]
pub fn AbExportButtons(report: AbReport) -> impl IntoView {
    let (title, created_at) = (report.title.clone(), report.created_at.clone());
    let report = StoredValue::new(report);
    let json = Callback::new(move |()| report.with_value(|r| serde_json::to_string_pretty(r).unwrap_or_default()));
    let html = Callback::new(move |()| report.with_value(crate::export::ab_to_html));
    view! { <JsonHtmlButtons prefix="ab" kind="ab-test" title created_at json html/> }
}

/// A sweep's exports: `sweep-<title>-<date>.json|html` (the JSON is the sweep as the API returns it).
#[component]
pub fn SweepExportButtons(view: SweepView) -> impl IntoView {
    let (title, created_at) = (view.summary.title.clone(), crate::model::iso8601_utc(view.summary.created_at_ms));
    let view_value = StoredValue::new(view);
    let json = Callback::new(move |()| view_value.with_value(|v| serde_json::to_string_pretty(v).unwrap_or_default()));
    let html = Callback::new(move |()| view_value.with_value(crate::export::sweep_to_html));
    view! { <JsonHtmlButtons prefix="sweep" kind="sweep" title created_at json html/> }
}
