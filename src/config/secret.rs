//! The server secret: the root of session hashing and of the key that seals connector credentials.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::path::Path;

/// 32 or more bytes of key material; `Debug` never prints it.
#[derive(Clone)]
pub struct Secret(Vec<u8>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl Secret {
    /// Parses a secret given as text: 64+ hex characters, or any 32+ character string used as-is.
    pub fn from_text(text: &str) -> Result<Self, super::ValueError> {
        let text = text.trim();
        if let Ok(bytes) = hex::decode(text) {
            if bytes.len() >= 32 {
                return Ok(Self(bytes));
            }
        }
        if text.len() >= 32 {
            return Ok(Self(text.as_bytes().to_vec()));
        }
        Err(super::ValueError::Rule(
            "the secret must be at least 32 characters (e.g. 64 hex digits from `openssl rand -hex 32`)",
        ))
    }

    /// A fresh random secret.
    pub fn generate() -> Self {
        use rand::RngCore;
        let mut bytes = vec![0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Self(bytes)
    }

    /// Reads `path`, or generates a secret and writes it there (mode 0600) when the file does not exist.
    pub fn load_or_create(path: &Path) -> std::io::Result<Self> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::from_text(&text).map_err(|reason| {
                std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{}: {reason}", path.display()))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let secret = Self::generate();
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                write_private(path, &hex::encode(&secret.0))?;
                Ok(secret)
            }
            Err(e) => Err(e),
        }
    }

    /// A 32-byte key for one purpose, derived so that keys of different purposes are unrelated.
    pub fn derive(&self, purpose: &str) -> [u8; 32] {
        #[expect(clippy::expect_used, reason = "HMAC-SHA256 accepts keys of any length")]
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("any key length");
        mac.update(b"latency-guard/");
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(text.as_bytes())?;
    file.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_secret() {
        let s = Secret::from_text("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef").unwrap();
        assert_eq!(format!("{s:?}"), "Secret([redacted])");
    }

    #[test]
    fn derived_keys_differ_by_purpose_and_are_stable() {
        let s = Secret::generate();
        assert_ne!(s.derive("a"), s.derive("b"));
        assert_eq!(s.derive("a"), s.derive("a"));
    }

    #[test]
    fn is_generated_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret.key");
        let first = Secret::load_or_create(&path).unwrap();
        let second = Secret::load_or_create(&path).unwrap();
        assert_eq!(first.derive("x"), second.derive("x"));
    }
}
