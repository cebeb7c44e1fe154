//! Authentication: one-time login links, Sign-In with Ethereum messages, server-side sessions and share-token
//! checks, over the store and the keyed token hash. Knows nothing of HTTP: cookies, redirects and headers belong to the edge
//! (`server::routes::login`, `server::middleware::session`, `server::routes::shared_reports`).

mod account;
mod api_tokens;
mod contact_email;
mod eip1271;
mod links;
mod scopes;
mod shares;
mod siwe;
mod wallet_login;

pub use account::account_of;
pub use api_tokens::{create_api_token, session_for_api_token, CreateTokenError};
pub use contact_email::{
    confirm_contact_link, contact_address, start_contact_verification, ContactError, ContactMessage,
    CONTACT_LINK_BUDGET, CONTACT_LINK_PATH, CONTACT_LINK_TTL_MS,
};
pub use eip1271::{is_valid_signature_call, ContractWallets, EIP1271_MAGIC};
pub use links::{create_login_link, end_session, find_session, redeem_login_link, Credential, NewSession, Session};
pub use scopes::{needs as token_needs, refusal as token_scope_refusal, Needs};
pub use shares::open_shared_report;
pub use siwe::{
    check_message, check_signed_message, wallet_identity, CheckedMessage, ParsedMessage, SiwePolicy, SiweRejection,
    MAX_MESSAGE_BYTES,
};
pub use wallet_login::{
    issue_siwe_nonce, login_with_wallet, siwe_policy, still_admitted, WalletLoginError, WalletSession,
    SIWE_NONCE_TTL_MS, SIWE_STATEMENT, WALLET_LOGIN_BUDGET,
};
