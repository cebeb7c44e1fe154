//! `/share/:id#TOKEN`: a shared report, read-only, for anyone with the link. The token stays in the URL
//! fragment, which browsers never send; the page reads it in the browser and presents it in the `x-share-token`
//! header of one request for this report. Nothing else of the workspace is reachable with it.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::charts::sampled_scatter;
use crate::report::ReportView;
use crate::ui::components::{
    DistributionCharts, ErrorBox, ExportButtons, HonestyNotes, PublicLayout, ResultsTable, StatCards, TimeSlices,
};
use crate::ui::report_source::ReportSource;

/// The share page.
#[component]
pub fn SharePage() -> impl IntoView {
    let id = use_params_map().with_untracked(|p| p.get("id").unwrap_or_default());
    let report = RwSignal::new(None::<Result<(ReportView, ReportSource), String>>);
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
                Some(Err(message)) => view! { <ErrorBox message/> }.into_any(),
                Some(Ok((view, source))) => view! { <SharedReportView view source/> }.into_any(),
            }}
        </PublicLayout>
    }
}

#[component]
fn SharedReportView(view: ReportView, source: ReportSource) -> impl IntoView {
    view! {
        <section class="run-header">
            <h2 id="run-title">{view.report.title.clone()}</h2>
            <p class="muted">
                <span class="mono">{view.connector.base_url.clone()}</span> " · "
                <span class="mono">{view.connector.model.clone()}</span> " · agent " {view.agent.name.clone()}
                " · max_tokens " {view.agent.token_budget} " · started " {view.report.created_at.clone()}
            </p>
        </section>
        <ExportButtons source=source.clone() iterations=view.iterations/>
        <div class="chart-box" inner_html=sampled_scatter(&view.scatter)></div>
        <StatCards stats=view.stats summary=view.summary/>
        <HonestyNotes notes=view.honesty/>
        <DistributionCharts histogram_svg=view.histogram_svg cdf_svg=view.cdf_svg/>
        <TimeSlices slices=view.slices svg=view.slices_svg/>
        <ResultsTable source first=view.first_page/>
    }
}

/// Reads the token from the URL fragment and fetches the report's view with it.
#[cfg(feature = "hydrate")]
async fn fetch_shared(id: String) -> Result<(ReportView, ReportSource), String> {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    let token = hash.trim_start_matches('#').to_string();
    if token.is_empty() {
        return Err("This link has no share token: copy the whole link, including the part after #.".into());
    }
    let view = crate::ui::report_source::public_get(&format!("/api/public/reports/{id}/view"), &token).await?;
    Ok((view, ReportSource::Shared { id, token }))
}
