//! The HTTP edge: startup as a value that tests can build on port 0, the router, the middleware layers and the
//! axum routes. The only module that knows axum; everything below it is called with plain values.

mod allocator;
mod app;
mod middleware;
mod router;
mod routes;

pub use allocator::give_memory_back;
pub use app::{build_state, build_state_in, Application, StartupError, Surroundings};
pub use router::router;
