//! The pages are lazily loaded routes, in sections: each section's pages travel in one WASM chunk of their own
//! (split out by `scripts/wasm-split`), so the first chunk holds the framework, the router, the shell and the code
//! most sections share. A section is a group of pages used together (a report and its comparison, the Guard
//! pages), because one chunk per page would cut the code into hundreds of small shared pieces that compress far
//! worse than a few large ones. The home page with the connector list, the forms, Guard's schedules, a run's report
//! and the sweeps are sections of their own: each is visited alone, and the lists (the alert feed among them) no
//! longer carry the forms' code, nor Spec Lab's pages the sweep form's.
//!
//! Each section's loader is named `<name>_section`: the splitter counts the users of shared code by that name
//! (`scripts/wasm-split/src/main.rs`).
//!
//! The server preloads the chunks of the page it renders (Leptos' `HydrationScripts` reads the split manifest), so
//! a first visit does not wait for them one after the other; moving to a page of another section fetches that
//! section once. On the server a lazy route is an ordinary one.

use std::future::Future;

use leptos::prelude::*;
use leptos_router::LazyRoute;

use super::pages::{ConnectorsPage, EditConnectorPage, NewConnectorPage};
use crate::account::ui::{LoginPage, SettingsPage};
use crate::capacity::ui::{SweepPage, SweepsPage};
use crate::guard::ui::{GuardPage, GuardSetsPage, NewSchedulePage, SchedulePage, ScheduleSettingsPage};
use crate::home::ui::HomePage;
use crate::lab::ui::{AbTestPage, SpecLabPage};
use crate::runs::ui::{ComparePage, NewRunPage, RunPage, RunsPage, SharePage};
use crate::workload::ui::WorkloadsPage;

/// `lazy_section!(Section in loader, preload { Route => Page, … })`: the enum `Section` of the section's pages, the
/// lazily loaded `loader` that renders one of them, and a route type per page whose view calls the loader. Each page
/// reads its own route parameters and starts its own resources, so a route carries no data.
///
/// `preload` is the function `#[lazy]` generates in the browser to fetch the loader's chunk (`__preload_<loader>`).
/// The router awaits it before hydrating the page: without it the page's view would still be loading when the
/// router hydrates, and it would be built anew beside the server's HTML instead of taking it over.
macro_rules! lazy_section {
    ($(#[$doc:meta])* $section:ident in $loader:ident, $preload:ident { $($route:ident => $page:ident),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        #[allow(clippy::enum_variant_names, reason = "each variant is named after the page component it renders")]
        enum $section {
            $($page),*
        }

        #[::leptos::lazy]
        fn $loader(page: $section) -> AnyView {
            match page {
                $($section::$page => view! { <$page/> }.into_any()),*
            }
        }

        $(
            #[doc = concat!("The lazily loaded route of [`", stringify!($page), "`].")]
            pub struct $route;

            impl LazyRoute for $route {
                fn data() -> Self {
                    $route
                }

                fn view(_this: Self) -> impl Future<Output = AnyView> {
                    $loader($section::$page)
                }

                async fn preload() {
                    #[cfg(feature = "hydrate")]
                    $preload().await;
                }
            }
        )*
    };
}

lazy_section! {
    /// Signing in and the workspace's settings.
    WorkspaceSection in workspace_section, __preload_workspace_section { LoginRoute => LoginPage, SettingsRoute => SettingsPage }
}

lazy_section! {
    /// The home page and the connector list: where a login lands, and its first step's next page.
    ConnectorsSection in connectors_section, __preload_connectors_section {
        HomeRoute => HomePage,
        ConnectorsRoute => ConnectorsPage,
    }
}

lazy_section! {
    /// The connector form, new and edited.
    ConnectorFormSection in connector_form_section, __preload_connector_form_section {
        NewConnectorRoute => NewConnectorPage,
        EditConnectorRoute => EditConnectorPage,
    }
}

lazy_section! {
    /// The report list.
    RunsSection in runs_section, __preload_runs_section { RunsRoute => RunsPage }
}

lazy_section! {
    /// The saved workloads and their form.
    WorkloadsSection in workloads_section, __preload_workloads_section { WorkloadsRoute => WorkloadsPage }
}

lazy_section! {
    /// The new-run form.
    NewRunSection in new_run_section, __preload_new_run_section { NewRunRoute => NewRunPage }
}

lazy_section! {
    /// A run's report, as its owner sees it (followed live while it runs).
    ReportSection in report_section, __preload_report_section { RunRoute => RunPage }
}

lazy_section! {
    /// A shared report, and the comparison of two.
    SharedReportSection in shared_report_section, __preload_shared_report_section {
        ShareRoute => SharePage,
        CompareRoute => ComparePage,
    }
}

lazy_section! {
    /// Spec Lab and its A/B tests.
    LabSection in lab_section, __preload_lab_section { SpecLabRoute => SpecLabPage, AbTestRoute => AbTestPage }
}

lazy_section! {
    /// Sweeps and their reports.
    SweepsSection in sweeps_section, __preload_sweeps_section { SweepsRoute => SweepsPage, SweepRoute => SweepPage }
}

lazy_section! {
    /// Guard: the alert feed and the sets.
    GuardSection in guard_section, __preload_guard_section { GuardRoute => GuardPage, GuardSetsRoute => GuardSetsPage }
}

lazy_section! {
    /// Guard's schedule form: a new schedule, and an existing one's settings.
    ScheduleFormSection in schedule_form_section, __preload_schedule_form_section {
        NewScheduleRoute => NewSchedulePage,
        ScheduleSettingsRoute => ScheduleSettingsPage,
    }
}

lazy_section! {
    /// A Guard schedule: its baseline, Run now, history, evaluations and deliveries (its form is a page of its own,
    /// so reading a schedule does not download the form).
    ScheduleSection in schedule_section, __preload_schedule_section { ScheduleRoute => SchedulePage }
}
