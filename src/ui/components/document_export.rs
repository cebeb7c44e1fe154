//! JSON and HTML export buttons of an A/B test's or a sweep's page. The page shows the document as the server
//! rendered it, so a click fetches the document's data (for HTML, the page's parts as the server renders them for a
//! file) and makes the file in the browser with the shared export code (the same bytes a CLI command or a test
//! makes). The fetch, the document's types and the export code travel in a lazily loaded WASM chunk
//! ([`make_document_file`]), not in the page's first load.

use leptos::prelude::*;

use super::save_file;
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
    match (document, as_html) {
        (Document::AbTest(id), false) => {
            let view = crate::lab::api::get_ab_test(id).await?;
            let report = view.report.ok_or(BrowserError::NeedsAction("the test has no report yet"))?;
            Ok((crate::export::named_file("ab-test", &report.title, &report.created_at, extension), pretty(&report)?))
        }
        (Document::AbTest(id), true) => {
            let page = crate::lab::api::get_ab_test_page(id).await?;
            if page.report.is_none() {
                return Err(BrowserError::NeedsAction("the test has no report yet"));
            }
            let created = crate::model::iso8601_utc(page.summary.created_at_ms);
            let name = crate::export::named_file("ab-test", &page.summary.title, &created, extension);
            Ok((name, crate::export::job_page_file(&page.summary.title, crate::lab::model::AB_TEST_FILE, &page)))
        }
        (Document::Sweep(id), false) => {
            let view = crate::capacity::api::get_sweep(id).await?;
            let created = crate::model::iso8601_utc(view.summary.created_at_ms);
            Ok((crate::export::named_file("sweep", &view.summary.title, &created, extension), pretty(&view)?))
        }
        (Document::Sweep(id), true) => {
            let page = crate::capacity::api::get_sweep_file(id).await?;
            let created = crate::model::iso8601_utc(page.summary.created_at_ms);
            let name = crate::export::named_file("sweep", &page.summary.title, &created, extension);
            Ok((name, crate::export::job_page_file(&page.summary.title, "sweep", &page)))
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
