//! Sealing of connector credentials at rest: AES-256-GCM under a key derived from the server secret, with the
//! row's identity as associated data, so a sealed value copied onto another row does not open.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use rand::RngCore;

use crate::config::Secret;

/// Why a sealed value did not open.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// Not base64, or too short to hold a nonce.
    #[error("sealed value is malformed")]
    Malformed,
    /// Wrong key, wrong row, or tampered ciphertext.
    #[error("sealed value does not open with this server secret (was the secret changed?)")]
    WrongKeyOrTampered,
}

/// Seals and opens small secrets.
#[derive(Clone)]
pub struct SecretBox {
    cipher: Aes256Gcm,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox([redacted])")
    }
}

const NONCE_LEN: usize = 12;

impl SecretBox {
    /// A box keyed from the server secret.
    pub fn new(secret: &Secret) -> Self {
        let key = secret.derive("connector-secrets/aes-256-gcm/v1");
        Self { cipher: Aes256Gcm::new(&key.into()) }
    }

    /// Encrypts `plaintext` bound to `context` (e.g. `workspace/connector`); base64 of nonce || ciphertext.
    pub fn seal(&self, plaintext: &[u8], context: &str) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        #[expect(clippy::expect_used, reason = "AES-GCM encryption fails only for inputs beyond 64 GiB")]
        let sealed = self
            .cipher
            .encrypt(Nonce::from_slice(&nonce), Payload { msg: plaintext, aad: context.as_bytes() })
            .expect("small plaintext");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        STANDARD.encode(out)
    }

    /// Decrypts what [`SecretBox::seal`] produced for the same `context`.
    pub fn open(&self, sealed: &str, context: &str) -> Result<Vec<u8>, SealError> {
        let bytes = STANDARD.decode(sealed).map_err(|_| SealError::Malformed)?;
        if bytes.len() < NONCE_LEN {
            return Err(SealError::Malformed);
        }
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        self.cipher
            .decrypt(Nonce::from_slice(nonce), Payload { msg: ciphertext, aad: context.as_bytes() })
            .map_err(|_| SealError::WrongKeyOrTampered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_what_it_sealed_and_hides_the_plaintext() {
        let boxed = SecretBox::new(&Secret::generate());
        let sealed = boxed.seal(b"sk-canary", "ws/c1");
        assert!(!sealed.contains("sk-canary"));
        assert_eq!(boxed.open(&sealed, "ws/c1").unwrap(), b"sk-canary");
    }

    #[test]
    fn refuses_another_rows_context_and_another_secret() {
        let secret = Secret::generate();
        let sealed = SecretBox::new(&secret).seal(b"k", "ws/c1");
        assert!(matches!(SecretBox::new(&secret).open(&sealed, "ws/c2"), Err(SealError::WrongKeyOrTampered)));
        assert!(matches!(
            SecretBox::new(&Secret::generate()).open(&sealed, "ws/c1"),
            Err(SealError::WrongKeyOrTampered)
        ));
        assert!(matches!(SecretBox::new(&secret).open("%%", "ws/c1"), Err(SealError::Malformed)));
    }
}
