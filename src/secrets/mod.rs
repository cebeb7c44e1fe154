//! Secret material below the store: sealing connector credentials at rest and hashing bearer tokens.
//! Everything here is keyed from the server secret ([`crate::config::Secret`]).

mod sealing;
mod tokens;

pub use sealing::{SealError, SecretBox};
pub use tokens::{RandomToken, TokenHasher};
