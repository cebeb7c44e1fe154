//! Who is calling: one-time login links, server-side sessions, what an API token's scope lets it call, and
//! share-token checks, over the store and the keyed token hash. Wallet sign-in, API tokens' issue and the contact
//! address are the account feature's (`src/account`). Knows nothing of HTTP: cookies, redirects and headers belong
//! to the edge (`server::routes::login`, `server::middleware::session`, `server::routes::shared_reports`).

mod links;
mod scopes;
mod shares;

pub(crate) use links::open_session;
pub use links::{create_login_link, end_session, find_session, redeem_login_link, Credential, NewSession, Session};
pub use scopes::{needs as token_needs, refusal as token_scope_refusal, Needs};
pub use shares::open_shared_report;
