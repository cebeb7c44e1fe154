//! Authentication: one-time login links, server-side sessions and the request guards. Knows the store; knows
//! nothing of pages.

mod guard;
mod login;

pub use guard::{require_session, same_origin_writes, Session, SESSION_COOKIE};
pub use login::{create_login_link, login_routes};
