//! The axum application: shared state, the router (pages, server functions, login, assets), request logging
//! and startup as a value that tests can build on port 0.

mod api_errors;
mod app;
mod request_log;
mod state;

pub use app::{build_state, router, Application, StartupError};
pub use state::AppState;
