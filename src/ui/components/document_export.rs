//! JSON and HTML export buttons of an A/B test's or a sweep's page. The page shows the document as the server
//! rendered it, so a click fetches the document's data and makes the file in the browser with the shared export
//! code (the same bytes a CLI command or a test makes). The fetch, the document's types and the export code travel
//! in a lazily loaded WASM chunk ([`make_document_file`]), not in the page's first load.

use leptos::prelude::*;

use super::export_buttons::save_file;
use crate::model::{AbTestId, SweepId};
use crate::ui::browser_error::BrowserError;

/// A document a page exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Document {
    /// An ended A/B test: `ab-test-<title>-<date>.json|html`, the JSON being its report.
    AbTest(AbTestId),
    /// A sweep: `sweep-<title>-<date>.json|html`, the JSON being the sweep as the API returns it.
    Sweep(SweepId),
}

impl Document {
    fn id_prefix(self) -> &'static str {
        match self {
            Self::AbTest(_) => "ab",
            Self::Sweep(_) => "sweep",
        }
    }
}

/// Fetches the document and makes its file, `(name, body)` (a lazily loaded chunk in the browser).
#[leptos::lazy]
async fn make_document_file(document: Document, as_html: bool) -> Result<(String, String), BrowserError> {
    let extension = if as_html { "html" } else { "json" };
    match document {
        Document::AbTest(id) => {
            let view = crate::lab::api::get_ab_test(id).await?;
            let report = view.report.ok_or(BrowserError::NeedsAction("the test has no report yet"))?;
            let name = crate::export::named_file("ab-test", &report.title, &report.created_at, extension);
            let body = if as_html { crate::lab::report::ab_to_html(&report) } else { pretty(&report)? };
            Ok((name, body))
        }
        Document::Sweep(id) => {
            let view = crate::capacity::api::get_sweep(id).await?;
            let created = crate::model::iso8601_utc(view.summary.created_at_ms);
            let name = crate::export::named_file("sweep", &view.summary.title, &created, extension);
            let body = if as_html { crate::capacity::report::sweep_to_html(&view) } else { pretty(&view)? };
            Ok((name, body))
        }
    }
}

fn pretty<T: serde::Serialize>(value: &T) -> Result<String, BrowserError> {
    serde_json::to_string_pretty(value).map_err(|e| BrowserError::Browser(e.to_string()))
}

/// `<prefix>-export-json` and `<prefix>-export-html` buttons.
#[component]
pub fn DocumentExportButtons(document: Document) -> impl IntoView {
    let failure = RwSignal::new(None::<BrowserError>);
    let save = move |as_html: bool| {
        leptos::task::spawn_local(async move {
            let media_type = if as_html { "text/html" } else { "application/json" };
            let saved = make_document_file(document, as_html)
                .await
                .and_then(|(name, body)| save_file(&name, media_type, &body));
            failure.set(saved.err());
        });
    };
    let prefix = document.id_prefix();
    view! {
        <div class="export-buttons" role="group" aria-label="Export">
            <span class="muted">"Export:"</span>
            <button type="button" id=format!("{prefix}-export-json") on:click=move |_| save(false)>"JSON"</button>
            <button type="button" id=format!("{prefix}-export-html") on:click=move |_| save(true)>"HTML"</button>
            {move || failure.get().map(|e| view! { <span class="error" role="alert">{format!("Export failed: {e}")}</span> })}
        </div>
    }
}
