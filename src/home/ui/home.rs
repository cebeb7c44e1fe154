//! `/`: the page the server renders (first steps, recent runs, Guard), and what a demo run that did not start says
//! (`?demo=no-demo|not-started`, set by the demo run's form route).

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::home::api::get_home_page;
use crate::ui::components::{ErrorBox, Layout, ServerPart};
use crate::ui::hooks::resource;

/// The home page.
#[component]
pub fn HomePage() -> impl IntoView {
    let page = resource(|| (), |_| get_home_page());
    let query = use_query_map();
    let demo_failure = move || {
        query.with(|q| match q.get("demo").as_deref() {
            Some("no-demo") => Some(
                "This install serves no demo simulator (LATENCY_GUARD_DEMO_SIMULATOR is off), or its connector was \
                 deleted: add a connector of your own endpoint instead.",
            ),
            Some("not-started") => Some(
                "The demo run did not start: the server refused it or could not record it (its log says which). \
                 New run, with the demo connector chosen, shows the reason.",
            ),
            _ => None,
        })
    };
    view! {
        <Layout title="Home">
            {move || demo_failure().map(|text| view! { <ErrorBox message=text.to_string()/> })}
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match page.await {
                        Ok(html) => view! { <ServerPart html/> }.into_any(),
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                    }
                })}
            </Suspense>
        </Layout>
    }
}
