//! One file per route.

mod connector_edit;
mod connectors;
mod login;
mod not_found;

pub use connector_edit::{EditConnectorPage, NewConnectorPage};
pub use connectors::ConnectorsPage;
pub use login::LoginPage;
pub use not_found::NotFoundPage;
