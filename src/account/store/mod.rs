//! The account feature's tables, as `impl Store` blocks: API tokens (`api_tokens`), the owner's contact address
//! and its confirmation links (`contacts`), and the one-time nonces of wallet sign-in (`siwe_nonces`).

mod api_tokens;
mod contacts;
mod siwe_nonces;

pub use api_tokens::{ApiTokenRecord, TokenRefusal};
pub use siwe_nonces::NonceUse;
