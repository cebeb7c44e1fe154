//! A secret's bytes as they show inside a longer encoded text: hex, and base64 at each of the three alignments a
//! prefix can put them at (`base64("x-api-key: " + key)` holds the key at offset 11, which is 2 modulo 3).

use base64::engine::general_purpose::STANDARD_NO_PAD;
use base64::Engine as _;

/// The base64 characters that only the secret's bytes decide, for each alignment, in the standard and the
/// URL-safe alphabet. Whatever comes before or after the secret in an encoded text, one of these is in it.
pub(super) fn base64_cores(secret: &[u8]) -> Vec<String> {
    let mut cores = Vec::new();
    for alignment in 0..3usize {
        let mut bytes = vec![0u8; alignment];
        bytes.extend_from_slice(secret);
        let encoded = STANDARD_NO_PAD.encode(&bytes);
        // Base64 character i holds bits 6i..6i+6: the first free of the prefix and the last fully inside the
        // secret bound the part the secret alone decides.
        let first = (8 * alignment).div_ceil(6);
        let end = 8 * bytes.len() / 6;
        if first < end {
            let core = &encoded[first..end];
            cores.push(core.to_string());
            cores.push(core.replace('+', "-").replace('/', "_"));
        }
    }
    cores.sort();
    cores.dedup();
    cores
}

/// The secret's bytes in lower-case hex (matched in any case).
pub(super) fn hex(secret: &[u8]) -> String {
    secret.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE};

    #[test]
    fn the_secret_is_found_in_the_base64_of_any_text_around_it() {
        let key = "sk-CANARY-7f3a9c1e5b";
        let cores = base64_cores(key.as_bytes());
        for prefix in ["", "x", "xy", "x-api-key: ", "Authorization: Bearer "] {
            for suffix in ["", "!", "; more"] {
                let text = format!("{prefix}{key}{suffix}");
                for encoded in [STANDARD.encode(&text), URL_SAFE.encode(&text)] {
                    assert!(cores.iter().any(|core| encoded.contains(core.as_str())), "{text:?} -> {encoded}");
                }
            }
        }
    }

    #[test]
    fn hex_is_two_digits_a_byte() {
        assert_eq!(hex(b"sk-\x01"), "736b2d01");
    }
}
