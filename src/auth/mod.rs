//! Authentication: one-time login links, server-side sessions and share-token checks, over the store and the
//! keyed token hash. Knows nothing of HTTP: cookies, redirects and headers belong to the edge
//! (`server::routes::login`, `server::middleware::session`, `server::routes::shared_reports`).

mod links;
mod shares;

pub use links::{create_login_link, end_session, find_session, redeem_login_link, NewSession, Session};
pub use shares::open_shared_report;
