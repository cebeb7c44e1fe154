//! Any unknown path.

use leptos::prelude::*;
use leptos_meta::Title;

/// "Not found", with the status set during SSR.
#[component]
pub fn NotFoundPage() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! { <Title text="Not found · latency-guard"/><main class="content"><h1>"Not found"</h1><p><a href="/connectors">"Back to connectors"</a></p></main> }
}
