//! The Leptos UI: the HTML shell, the router, and one page per route. Pages render what server functions
//! return; they compute nothing of substance.

mod components;
mod hooks;
mod pages;
mod report_source;
mod wallet;

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

use pages::{
    AbTestPage, ComparePage, ConnectorsPage, EditConnectorPage, GuardPage, GuardSetsPage, LoginPage, NewConnectorPage,
    NewRunPage, NewSchedulePage, NotFoundPage, RunPage, RunsPage, SchedulePage, SettingsPage, SharePage, SpecLabPage,
    SweepPage, SweepsPage,
};

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
        <Stylesheet id="leptos" href="/pkg/latency-guard.css"/>
        <Title text="latency-guard"/>
        <Router>
            <Routes fallback=NotFoundPage>
                <Route path=path!("/login") view=LoginPage/>
                <Route path=path!("/") view=ConnectorsPage/>
                <Route path=path!("/connectors") view=ConnectorsPage/>
                <Route path=path!("/connectors/new") view=NewConnectorPage/>
                <Route path=path!("/connectors/:id") view=EditConnectorPage/>
                <Route path=path!("/runs") view=RunsPage/>
                <Route path=path!("/runs/new") view=NewRunPage/>
                <Route path=path!("/runs/:id") view=RunPage/>
                <Route path=path!("/share/:id") view=SharePage/>
                <Route path=path!("/compare") view=ComparePage/>
                <Route path=path!("/spec-lab") view=SpecLabPage/>
                <Route path=path!("/spec-lab/ab/:id") view=AbTestPage/>
                <Route path=path!("/sweeps") view=SweepsPage/>
                <Route path=path!("/sweeps/:id") view=SweepPage/>
                <Route path=path!("/guard") view=GuardPage/>
                <Route path=path!("/settings") view=SettingsPage/>
                <Route path=path!("/guard/sets") view=GuardSetsPage/>
                <Route path=path!("/guard/schedules/new") view=NewSchedulePage/>
                <Route path=path!("/guard/schedules/:id") view=SchedulePage/>
            </Routes>
        </Router>
    }
}
