//! The Leptos UI: the HTML shell, the router, and one page per route. Pages render what server functions
//! return; they compute nothing of substance.

pub(crate) mod browser_error;
pub(crate) mod components;
pub(crate) mod hooks;
mod lazy_pages;
mod pages;

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

use lazy_pages::{
    AbTestRoute, CompareRoute, ConnectorsRoute, EditConnectorRoute, GuardRoute, GuardSetsRoute, HomeRoute, LoginRoute,
    NewConnectorRoute, NewRunRoute, NewScheduleRoute, RunRoute, RunsRoute, ScheduleRoute, ScheduleSettingsRoute,
    SettingsRoute, ShareRoute, SpecLabRoute, SweepRoute, SweepsRoute, WorkloadsRoute,
};
use leptos_router::Lazy;
use pages::NotFoundPage;

/// The document around the app, rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                // In the shell, not through leptos_meta in `App`: a meta component before the router does not
                // hydrate when the routes are lazy (`hydrate_lazy`). Each page sets its own title.
                <link rel="stylesheet" id="leptos" href="/pkg/latency-guard.css"/>
                // The Copy buttons beside secrets shown once (`public/assets/copy.js`): a few lines of plain script.
                <script src="/assets/copy.js" defer></script>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The application: routes to pages.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    view! {
        <Router>
            <Routes fallback=NotFoundPage>
                <Route path=path!("/login") view={Lazy::<LoginRoute>::new()}/>
                <Route path=path!("/") view={Lazy::<HomeRoute>::new()}/>
                <Route path=path!("/connectors") view={Lazy::<ConnectorsRoute>::new()}/>
                <Route path=path!("/connectors/new") view={Lazy::<NewConnectorRoute>::new()}/>
                <Route path=path!("/connectors/:id") view={Lazy::<EditConnectorRoute>::new()}/>
                <Route path=path!("/runs") view={Lazy::<RunsRoute>::new()}/>
                <Route path=path!("/runs/new") view={Lazy::<NewRunRoute>::new()}/>
                <Route path=path!("/runs/:id") view={Lazy::<RunRoute>::new()}/>
                <Route path=path!("/workloads") view={Lazy::<WorkloadsRoute>::new()}/>
                <Route path=path!("/share/:id") view={Lazy::<ShareRoute>::new()}/>
                <Route path=path!("/compare") view={Lazy::<CompareRoute>::new()}/>
                <Route path=path!("/spec-lab") view={Lazy::<SpecLabRoute>::new()}/>
                <Route path=path!("/spec-lab/ab/:id") view={Lazy::<AbTestRoute>::new()}/>
                <Route path=path!("/sweeps") view={Lazy::<SweepsRoute>::new()}/>
                <Route path=path!("/sweeps/:id") view={Lazy::<SweepRoute>::new()}/>
                <Route path=path!("/guard") view={Lazy::<GuardRoute>::new()}/>
                <Route path=path!("/settings") view={Lazy::<SettingsRoute>::new()}/>
                <Route path=path!("/guard/sets") view={Lazy::<GuardSetsRoute>::new()}/>
                <Route path=path!("/guard/schedules/new") view={Lazy::<NewScheduleRoute>::new()}/>
                <Route path=path!("/guard/schedules/:id") view={Lazy::<ScheduleRoute>::new()}/>
                <Route path=path!("/guard/schedules/:id/settings") view={Lazy::<ScheduleSettingsRoute>::new()}/>
            </Routes>
        </Router>
    }
}
