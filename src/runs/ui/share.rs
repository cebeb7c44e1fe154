//! `/share/:id#TOKEN`: a shared report, read-only, for anyone with the link. The token stays in the URL
//! fragment, which browsers never send; the page reads it in the browser and presents it in the `x-share-token`
//! header of one request for this report. Nothing else of the workspace is reachable with it.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::runs::report::ReportPage;
use crate::runs::ui::ReportSource;
use crate::runs::ui::{ExportButtons, ResultsTable};
use crate::ui::browser_error::BrowserError;
use crate::ui::components::{ErrorBox, PublicLayout, ServerPart};

/// The share page.
#[component]
pub fn SharePage() -> impl IntoView {
    let id = use_params_map().with_untracked(|p| p.get("id").unwrap_or_default());
    let report = RwSignal::new(None::<Result<(ReportPage, ReportSource), BrowserError>>);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let id = id.clone();
        leptos::task::spawn_local(async move { report.set(Some(fetch_shared(id).await)) });
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = id;
    view! {
        <PublicLayout title="Shared report">
            {move || match report.get() {
                None => view! { <p id="share-loading">"Loading the shared report…"</p> }.into_any(),
                Some(Err(error)) => view! { <ErrorBox message=error.to_string()/> }.into_any(),
                Some(Ok((page, source))) => view! { <SharedReportView page source/> }.into_any(),
            }}
        </PublicLayout>
    }
}

/// The report's header, figures, notes and charts come rendered by the server; the page holds the export
/// buttons and the table.
#[component]
fn SharedReportView(page: ReportPage, source: ReportSource) -> impl IntoView {
    view! {
        <ServerPart html=page.header/>
        <ExportButtons source=source.clone() iterations=page.iterations/>
        <div class="chart-box" inner_html=page.scatter.into_string()></div>
        <ServerPart html=page.body/>
        <ResultsTable source first=page.first_page/>
    }
}

/// Reads the token from the URL fragment and fetches the report's page with it.
#[cfg(feature = "hydrate")]
async fn fetch_shared(id: String) -> Result<(ReportPage, ReportSource), BrowserError> {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    let token = hash.trim_start_matches('#').to_string();
    if token.is_empty() {
        return Err(BrowserError::NeedsAction(
            "This link has no share token: copy the whole link, including the part after #.",
        ));
    }
    let page = crate::runs::ui::report_source::public_get(&format!("/api/public/reports/{id}/page"), &token).await?;
    Ok((page, ReportSource::Shared { id, token }))
}
