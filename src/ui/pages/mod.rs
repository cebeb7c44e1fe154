//! One file per route.

mod compare;
mod connector_edit;
mod connectors;
mod not_found;
mod run_new;
mod run_view;
mod runs;
mod share;
mod workloads;

pub use compare::ComparePage;
pub use connector_edit::{EditConnectorPage, NewConnectorPage};
pub use connectors::ConnectorsPage;
pub use not_found::NotFoundPage;
pub use run_new::NewRunPage;
pub use run_view::RunPage;
pub use runs::RunsPage;
pub use share::SharePage;
pub use workloads::WorkloadsPage;
