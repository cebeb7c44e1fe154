//! `/share/:id#TOKEN`: a shared report, read-only, for anyone with the link. The token stays in the URL
//! fragment, which browsers never send; the page reads it in the browser and presents it in the `x-share-token`
//! header of one request for this report. Nothing else of the workspace is reachable with it.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::charts::latency_scatter;
use crate::report::SharedReport;
use crate::ui::components::{
    scatter_point, DistributionCharts, ErrorBox, ExportButtons, HonestyNotes, PublicLayout, ResultsTable, StatCards,
};

/// The share page.
#[component]
pub fn SharePage() -> impl IntoView {
    let id = use_params_map().with_untracked(|p| p.get("id").unwrap_or_default());
    let report = RwSignal::new(None::<Result<SharedReport, String>>);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let id = id.clone();
        leptos::task::spawn_local(async move { report.set(Some(fetch_shared(&id).await)) });
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = id;
    view! {
        <PublicLayout title="Shared report">
            {move || match report.get() {
                None => view! { <p id="share-loading">"Loading the shared report…"</p> }.into_any(),
                Some(Err(message)) => view! { <ErrorBox message/> }.into_any(),
                Some(Ok(shared)) => view! { <SharedReportView shared/> }.into_any(),
            }}
        </PublicLayout>
    }
}

#[component]
fn SharedReportView(shared: SharedReport) -> impl IntoView {
    let SharedReport { snapshot, summary } = shared;
    let points: Vec<_> = snapshot.results.iter().map(scatter_point).collect();
    view! {
        <section class="run-header">
            <h2 id="run-title">{snapshot.report.title.clone()}</h2>
            <p class="muted">
                <span class="mono">{snapshot.connector.base_url.clone()}</span> " · "
                <span class="mono">{snapshot.connector.model.clone()}</span> " · agent " {snapshot.agent.name.clone()}
                " · max_tokens " {snapshot.agent.token_budget} " · started " {snapshot.report.created_at.clone()}
            </p>
        </section>
        <ExportButtons snapshot=snapshot.clone()/>
        <div class="chart-box" inner_html=latency_scatter(&points)></div>
        <StatCards stats=snapshot.stats.clone() summary/>
        <HonestyNotes notes=snapshot.honesty.clone()/>
        <DistributionCharts results=snapshot.results.clone()/>
        <ResultsTable results=snapshot.results/>
    }
}

/// Reads the token from the URL fragment and fetches the report with it.
#[cfg(feature = "hydrate")]
async fn fetch_shared(id: &str) -> Result<SharedReport, String> {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    let token = hash.trim_start_matches('#');
    if token.is_empty() {
        return Err("This link has no share token: copy the whole link, including the part after #.".into());
    }
    let response = gloo_net::http::Request::get(&format!("/api/public/reports/{id}"))
        .header(crate::model::SHARE_TOKEN_HEADER, token)
        .send()
        .await
        .map_err(|e| format!("The report could not be loaded: {e}"))?;
    match response.status() {
        200 => response.json::<SharedReport>().await.map_err(|e| format!("The report could not be read: {e}")),
        404 => Err("This share link does not open a report: it was revoked, replaced, or mistyped.".into()),
        status => Err(format!("The report could not be loaded (HTTP {status}).")),
    }
}
