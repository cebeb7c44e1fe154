//! What the account feature does: a workspace's account page (`account`), issuing an API token and finding the
//! session it opens (`api_tokens`), the owner's contact address and the link that confirms it (`contact_email`),
//! and signing in with a wallet (`siwe` checks the message, `eip1271` a contract wallet's signature,
//! `wallet_login` the whole sign-in and who may still be signed in).

mod account;
mod api_tokens;
mod contact_email;
mod eip1271;
mod siwe;
mod wallet_login;

pub use account::account_of;
pub use api_tokens::{create_api_token, session_for_api_token, CreateTokenError};
pub use contact_email::{
    confirm_contact_link, contact_address, start_contact_verification, ContactError, ContactMessage,
    CONTACT_LINK_BUDGET, CONTACT_LINK_PATH, CONTACT_LINK_TTL_MS,
};
pub use eip1271::{is_valid_signature_call, ContractWallets, EIP1271_MAGIC};
pub use siwe::{
    check_message, check_signed_message, wallet_identity, CheckedMessage, ParsedMessage, SiwePolicy, SiweRejection,
    MAX_MESSAGE_BYTES,
};
pub use wallet_login::{
    issue_siwe_nonce, login_with_wallet, siwe_policy, still_admitted, WalletLoginError, WalletSession,
    SIWE_NONCE_TTL_MS, SIWE_STATEMENT, WALLET_LOGIN_BUDGET,
};
