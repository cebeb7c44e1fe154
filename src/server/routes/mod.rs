//! The routes axum serves beside the Leptos pages and server functions: login links, wallet login, contact-address
//! links, live run events, dataset uploads, the home page's demo run, public share reads, the Guard tick hook and the service's own `/metrics`. Each handler takes the parts of the state it needs and calls one domain
//! function; replies, statuses and headers are decided here and nowhere below.

mod contact_link;
mod dataset_upload;
mod demo_run;
mod guard_hook;
mod live_events;
mod login;
mod service_metrics;
mod shared_reports;
mod upload_body;
mod wallet_login;

pub use contact_link::contact_link_routes;
pub use dataset_upload::dataset_upload;
pub use demo_run::demo_run;
pub use guard_hook::guard_tick_hook;
pub use live_events::live_events;
pub use login::login_routes;
pub use service_metrics::service_metrics;
pub use shared_reports::{
    shared_export, shared_iterations, shared_report, shared_report_page, shared_report_view, shared_table,
};
pub use wallet_login::wallet_login_routes;
