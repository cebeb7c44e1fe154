//! Bearer tokens (login links, sessions): 256 random bits, shown once, stored only as a keyed hash.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

use crate::config::Secret;

/// A freshly drawn token; its text goes to the user once, its hash to the database.
pub struct RandomToken(String);

impl RandomToken {
    /// 32 bytes from the OS generator, URL-safe base64.
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Self(URL_SAFE_NO_PAD.encode(bytes))
    }

    /// The token as the user receives it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Hashes tokens with a key derived from the server secret, so a copied database alone cannot
/// be used to forge or test tokens. Lookups are by hash, so no comparison of secrets happens in code.
#[derive(Clone)]
pub struct TokenHasher {
    key: [u8; 32],
}

impl TokenHasher {
    /// A hasher keyed from the server secret.
    pub fn new(secret: &Secret) -> Self {
        Self { key: secret.derive("token-hash/v1") }
    }

    /// The hex HMAC-SHA256 of a presented token.
    pub fn hash(&self, token: &str) -> String {
        #[expect(clippy::expect_used, reason = "HMAC-SHA256 accepts keys of any length")]
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("any key length");
        mac.update(token.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }
}
