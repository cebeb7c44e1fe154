//! Layers around every route (and which client a request came from): request logging, the same-origin check on writes, the session check, and
//! 400 (not 500) for server-function arguments that do not decode.

mod api_errors;
mod client;
mod request_log;
mod session;

pub use api_errors::undecodable_arguments_are_bad_requests;
pub use client::client_address;
pub use request_log::log_request;
pub(super) use session::session_token;
pub use session::{require_session, same_origin_writes, SESSION_COOKIE};
