//! The Sign-In with Ethereum message a wallet signs, built the same way in the browser (the login page) and in
//! tests: the server's nonce grant plus the wallet's address, in EIP-4361's exact line layout. The server never
//! trusts this builder — it checks the received text with the `siwe` crate — so a mistake here shows up as a
//! refused login in the tests, not as a weaker check.

use serde::{Deserialize, Serialize};
use sha3::{Digest, Keccak256};

/// A nonce and everything a client needs to build the message around it (`POST /auth/siwe/nonce`'s reply).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NonceGrant {
    /// The nonce (17 letters and digits), valid once until `expirationTime`.
    pub nonce: String,
    /// The domain the message must name (this server's public authority).
    pub domain: String,
    /// The URI the message must name.
    pub uri: String,
    /// The chain id to put in the message (the first one accepted).
    pub chain_id: u64,
    /// Every chain id accepted.
    pub chain_ids: Vec<u64>,
    /// A statement to put in the message.
    pub statement: String,
    /// `1`.
    pub version: String,
    /// Now, ISO 8601 UTC (the message's `Issued At`).
    pub issued_at: String,
    /// When the nonce expires, ISO 8601 UTC (the message's `Expiration Time`).
    pub expiration_time: String,
}

/// Why an address cannot go into a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    /// Not `0x` + 40 hex digits.
    #[error("the wallet's account {0:?} is not an Ethereum address (0x and 40 hex digits)")]
    Malformed(String),
    /// Mixed case that is not the EIP-55 checksum: a mistyped address.
    #[error("the address {0} has a wrong EIP-55 checksum (mixed case that does not match)")]
    Checksum(String),
}

/// `address` in EIP-55 mixed-case form. All-lowercase or all-uppercase input (what wallets often return) is
/// accepted; mixed case must already be the checksum.
pub fn eip55_address(address: &str) -> Result<String, AddressError> {
    let malformed = || AddressError::Malformed(address.chars().take(50).collect());
    let digits = address.strip_prefix("0x").or_else(|| address.strip_prefix("0X")).ok_or_else(malformed)?;
    if digits.len() != 40 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(malformed());
    }
    let lower = digits.to_ascii_lowercase();
    let hash = Keccak256::digest(lower.as_bytes());
    let checksummed: String = lower
        .chars()
        .enumerate()
        .map(|(i, c)| {
            let nibble = (hash[i / 2] >> if i % 2 == 0 { 4 } else { 0 }) & 0x0f;
            if c.is_ascii_alphabetic() && nibble >= 8 {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect();
    let single_case = digits == lower || digits == digits.to_ascii_uppercase();
    if !single_case && digits != checksummed {
        return Err(AddressError::Checksum(address.to_string()));
    }
    Ok(format!("0x{checksummed}"))
}

/// The EIP-4361 text for `address` (any case) under `grant`.
pub fn siwe_message_text(grant: &NonceGrant, address: &str) -> Result<String, AddressError> {
    let address = eip55_address(address)?;
    let NonceGrant { domain, statement, uri, version, chain_id, nonce, issued_at, expiration_time, .. } = grant;
    Ok(format!(
        "{domain} wants you to sign in with your Ethereum account:\n{address}\n\n{statement}\n\nURI: {uri}\n\
         Version: {version}\nChain ID: {chain_id}\nNonce: {nonce}\nIssued At: {issued_at}\n\
         Expiration Time: {expiration_time}"
    ))
}

/// The short form a person recognises an address by: `0x19E7…Ff2A`.
pub fn short_address(address: &str) -> String {
    if address.len() <= 12 {
        return address.to_string();
    }
    format!("{}…{}", &address[..6], &address[address.len() - 4..])
}

/// `text` as the `0x`-hex of its UTF-8 bytes, the form `personal_sign` takes.
pub fn hex_utf8(text: &str) -> String {
    let mut out = String::with_capacity(2 + text.len() * 2);
    out.push_str("0x");
    for byte in text.bytes() {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The grant behind the signed vectors of `auth::siwe`'s tests (made by an independent implementation).
#[cfg(test)]
pub(crate) fn example_grant() -> NonceGrant {
    NonceGrant {
        nonce: "abcdefgh12345678".into(),
        domain: "localhost:8080".into(),
        uri: "http://localhost:8080/login".into(),
        chain_id: 1,
        chain_ids: vec![1],
        statement: "Sign in to the benchmark service.".into(),
        version: "1".into(),
        issued_at: "2030-01-01T00:00:00Z".into(),
        expiration_time: "2030-01-01T00:10:00Z".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eip55_matches_the_specifications_examples() {
        // EIP-55's own test cases.
        for expected in [
            "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
            "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
            "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
        ] {
            assert_eq!(eip55_address(&expected.to_lowercase()).unwrap(), expected);
            assert_eq!(eip55_address(expected).unwrap(), expected);
        }
        assert_eq!(
            eip55_address("0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED").unwrap(),
            "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
        );
    }

    #[test]
    fn a_bad_address_says_what_is_wrong() {
        assert!(matches!(eip55_address("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"), Err(AddressError::Checksum(_))));
        for bad in
            ["", "5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "0x5aaeb6", "0xzzaeb6053f3e94c9b9a09f33669435e7ef1beaed"]
        {
            assert!(matches!(eip55_address(bad), Err(AddressError::Malformed(_))), "{bad:?}");
        }
    }

    #[test]
    fn the_message_has_eip4361s_layout() {
        let grant = example_grant();
        // The text of auth::siwe's vectors, signed there by an independent implementation.
        let expected = "localhost:8080 wants you to sign in with your Ethereum account:\n\
            0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A\n\nSign in to the benchmark service.\n\n\
            URI: http://localhost:8080/login\nVersion: 1\nChain ID: 1\nNonce: abcdefgh12345678\n\
            Issued At: 2030-01-01T00:00:00Z\nExpiration Time: 2030-01-01T00:10:00Z";
        assert_eq!(siwe_message_text(&grant, "0x19e7e376e7c213b7e7e7e46cc70a5dd086daff2a").unwrap(), expected);
        assert_eq!(short_address("0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"), "0x19E7…ff2A");
        assert_eq!(hex_utf8("hi\n"), "0x68690a");
    }
}
