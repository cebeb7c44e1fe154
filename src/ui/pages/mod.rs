//! One file per route.

mod connector_edit;
mod connectors;
mod not_found;

pub use connector_edit::{EditConnectorPage, NewConnectorPage};
pub use connectors::ConnectorsPage;
pub use not_found::NotFoundPage;
