//! Accounts: who is signed in, API tokens, workspace quotas and what a workspace keeps at most, wallet sign-in (the SIWE message, who may sign in).

pub(in crate::model) mod api_token;
pub(in crate::model) mod holdings;
pub(in crate::model) mod quota;
pub(in crate::model) mod siwe_message;
pub(in crate::model) mod wallet_admission;

pub use api_token::{
    ApiTokenInput, ApiTokenState, ApiTokenView, NewApiToken, TokenScope, API_TOKEN_PREFIX, MAX_TOKEN_DAYS,
    MAX_TOKEN_NAME_CHARS,
};
pub use holdings::Holding;
pub use quota::WorkspaceQuota;
pub use siwe_message::{eip55_address, hex_utf8, short_address, siwe_message_text, AddressError, NonceGrant};
pub use wallet_admission::{AdmissionError, NotAdmitted, WalletAdmission, WALLET_SIGN_IN};
