//! An A/B test's export buttons: the report is already on the page, so each file is made at once in the browser
//! by the shared export code (the same bytes the `spec-lab ab --out` command writes).

use leptos::prelude::*;

use super::export_buttons::save_file;
use crate::report::AbReport;

/// The file name of an export: `ab-test-<title>-<date>.<extension>`.
fn file_name(report: &AbReport, extension: &str) -> String {
    crate::export::named_file("ab-test", &report.title, &report.created_at, extension)
}

/// JSON and HTML buttons for `report`.
#[component]
pub fn AbExportButtons(report: AbReport) -> impl IntoView {
    let report = StoredValue::new(report);
    let failure = RwSignal::new(None::<String>);
    let save = move |html: bool| {
        let result = report.with_value(|r| {
            if html {
                save_file(&file_name(r, "html"), "text/html", &crate::export::ab_to_html(r))
            } else {
                save_file(
                    &file_name(r, "json"),
                    "application/json",
                    &serde_json::to_string_pretty(r).unwrap_or_default(),
                )
            }
        });
        failure.set(result.err());
    };
    view! {
        <div class="export-buttons" role="group" aria-label="Export">
            <span class="muted">"Export:"</span>
            <button type="button" id="ab-export-json" on:click=move |_| save(false)>"JSON"</button>
            <button type="button" id="ab-export-html" on:click=move |_| save(true)>"HTML"</button>
            {move || failure.get().map(|e| view! { <span class="error" role="alert">{format!("Export failed: {e}")}</span> })}
        </div>
    }
}
