//! Sign-In with Ethereum: whether a signed EIP-4361 message logs its address in here. The checks that need no
//! storage — the exact signed text is a well-formed message in canonical form, for this server's domain and login
//! URI, on an allowed chain, inside its time window, and its EIP-191 signature recovers the message's address —
//! live in [`check_signed_message`]; that its nonce was issued here, unused and unexpired is the store's
//! (`Store::consume_siwe_nonce`). Parsing and recovery are the `siwe` crate's (k256), never hand-written curve code.

use std::str::FromStr;

/// The largest message accepted, in bytes (a real one is a few hundred; the cap keeps parsing bounded).
pub const MAX_MESSAGE_BYTES: usize = 4_096;

/// What a message must say to log in here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiwePolicy {
    /// This server's public authority, `host[:port]` (the message's domain).
    pub domain: String,
    /// The login URI the message must name.
    pub uri: String,
    /// Chain ids accepted (EIP-155).
    pub chain_ids: Vec<u64>,
    /// Clock difference tolerated between the wallet and the server, ms.
    pub skew_ms: i64,
    /// How old an issued-at may be, ms (the nonce's lifetime).
    pub max_age_ms: i64,
}

/// Why a signed message does not log in. Each text is the short reason the 401 carries and the log records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SiweRejection {
    /// Over [`MAX_MESSAGE_BYTES`].
    #[error("the message is larger than {MAX_MESSAGE_BYTES} bytes")]
    Oversized,
    /// Not an EIP-4361 message.
    #[error("not a Sign-In with Ethereum message: {0}")]
    Malformed(String),
    /// Parsed, but not in the canonical form whose bytes the signature must cover (extra spaces, CRLF, …).
    #[error("the message is not in EIP-4361's exact form (line endings, spacing or field order differ)")]
    NotCanonical,
    /// Another site's message.
    #[error("the message is for {0}, not this server")]
    Domain(String),
    /// Another login URI.
    #[error("the message names the URI {0}, not this server's login")]
    Uri(String),
    /// A chain not allowed here.
    #[error("chain id {0} is not accepted here")]
    Chain(u64),
    /// Issued in the future (beyond the skew) or too long ago.
    #[error("the message was issued at {0}, outside the accepted window")]
    IssuedAt(String),
    /// Past its expiration time.
    #[error("the message expired at {0}")]
    Expired(String),
    /// Before its not-before time.
    #[error("the message is not valid before {0}")]
    NotYetValid(String),
    /// The signature is not 65 bytes of hex.
    #[error("the signature is not 65 bytes of hex (0x + 130 hex digits): {0}")]
    SignatureFormat(String),
    /// v is not 27, 28, 0 or 1.
    #[error("the signature's recovery byte is {0}; 27, 28, 0 or 1 expected")]
    RecoveryByte(u8),
    /// The signature does not recover the message's address (another key, a changed message, or a high-s form),
    /// and no contract-wallet check is configured.
    #[error("the signature is not the message's address's (another key, a changed message, or a non-canonical high-s signature); smart-contract wallets (EIP-1271) are checked only when this server has siwe-rpc-url")]
    WrongSigner,
    /// Neither the address's key nor a contract wallet at the address accepts the signature.
    #[error("neither the address's key nor a contract wallet at it (EIP-1271) accepts the signature")]
    NotAccepted,
    /// The chain node behind `siwe-rpc-url` serves another chain than the message names.
    #[error("siwe-rpc-url serves chain {rpc}, but the message names chain {message}")]
    RpcChain {
        /// The node's chain id.
        rpc: u64,
        /// The message's.
        message: u64,
    },
    /// The contract wallet could not be asked (the node failed or answered nonsense).
    #[error("the contract wallet could not be checked: {0}")]
    ContractUnchecked(String),
}

/// A message that passed every check that needs no storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedMessage {
    /// The signer, EIP-55.
    pub address: String,
    /// The nonce the message carries (the store checks it was issued here and consumes it).
    pub nonce: String,
    /// The chain id.
    pub chain_id: u64,
}

fn unix_ms(t: &siwe::TimeStamp) -> i64 {
    i64::try_from(t.as_ref().unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

/// A message that passed every check but its signature's.
#[derive(Debug, Clone)]
pub struct ParsedMessage(siwe::Message);

impl ParsedMessage {
    /// The message's chain id.
    pub fn chain_id(&self) -> u64 {
        self.0.chain_id
    }

    /// The message's address, as 20 bytes.
    pub fn address_bytes(&self) -> [u8; 20] {
        self.0.address
    }

    /// The EIP-191 hash the wallet signed (what a contract wallet's `isValidSignature` is asked about).
    pub fn eip191_hash(&self) -> [u8; 32] {
        // Rendering a parsed message cannot fail; a zero hash would only make a contract refuse.
        self.0.eip191_hash().unwrap_or([0; 32])
    }

    /// The message as logged in: its address (EIP-55), nonce and chain.
    pub fn accepted(&self) -> CheckedMessage {
        CheckedMessage { address: siwe::eip55(&self.0.address), nonce: self.0.nonce.clone(), chain_id: self.0.chain_id }
    }

    /// Checks an ordinary wallet's (EOA) signature: `0x` + 130 hex digits recovering the message's address.
    pub fn verify_eoa(&self, signature: &str) -> Result<CheckedMessage, SiweRejection> {
        let bytes = signature_bytes(signature)?;
        self.0.verify_eip191(&bytes).map_err(|_| SiweRejection::WrongSigner)?;
        Ok(self.accepted())
    }
}

/// Checks `text` (the exact bytes the wallet signed) and `signature` (`0x` + 130 hex digits) against `policy` at
/// `now_ms`, as an ordinary wallet's signature.
pub fn check_signed_message(
    policy: &SiwePolicy,
    text: &str,
    signature: &str,
    now_ms: i64,
) -> Result<CheckedMessage, SiweRejection> {
    check_message(policy, text, now_ms)?.verify_eoa(signature)
}

/// Checks everything about `text` but its signature: size, EIP-4361 form (canonical), domain, URI, chain, times.
pub fn check_message(policy: &SiwePolicy, text: &str, now_ms: i64) -> Result<ParsedMessage, SiweRejection> {
    if text.len() > MAX_MESSAGE_BYTES {
        return Err(SiweRejection::Oversized);
    }
    // ERC-4361 allows an optional `scheme://` before the domain; the parser (siwe 0.6.1) does not, and would call the
    // domain invalid. Said plainly instead: the login page and common libraries send the form without it.
    let first_line = text.lines().next().unwrap_or_default();
    if first_line.split(' ').next().is_some_and(|domain| domain.contains("://")) {
        return Err(SiweRejection::Malformed(
            "a scheme before the domain (https://…) is not supported here; send the message without it".into(),
        ));
    }
    let message = siwe::Message::from_str(text).map_err(|e| SiweRejection::Malformed(e.to_string()))?;
    // siwe hashes the message as it renders it; requiring the render to be the received text makes the signature
    // cover exactly the bytes the wallet showed and the fields read here.
    if message.to_string() != text {
        return Err(SiweRejection::NotCanonical);
    }
    if message.domain.as_str() != policy.domain {
        return Err(SiweRejection::Domain(message.domain.to_string()));
    }
    if message.uri.as_str() != policy.uri {
        return Err(SiweRejection::Uri(message.uri.to_string()));
    }
    if !policy.chain_ids.contains(&message.chain_id) {
        return Err(SiweRejection::Chain(message.chain_id));
    }
    let issued = unix_ms(&message.issued_at);
    if issued > now_ms + policy.skew_ms || issued < now_ms - policy.max_age_ms - policy.skew_ms {
        return Err(SiweRejection::IssuedAt(message.issued_at.to_string()));
    }
    if let Some(expires) = &message.expiration_time {
        if unix_ms(expires) + policy.skew_ms <= now_ms {
            return Err(SiweRejection::Expired(expires.to_string()));
        }
    }
    if let Some(not_before) = &message.not_before {
        if unix_ms(not_before) > now_ms + policy.skew_ms {
            return Err(SiweRejection::NotYetValid(not_before.to_string()));
        }
    }
    Ok(ParsedMessage(message))
}

/// The 65 bytes of a hex signature; v must be 27/28 (wallets) or 0/1 (some libraries).
fn signature_bytes(signature: &str) -> Result<[u8; 65], SiweRejection> {
    let digits = signature.trim().strip_prefix("0x").unwrap_or(signature.trim());
    let clipped: String = signature.chars().take(20).collect();
    let bytes: [u8; 65] = hex::decode(digits)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| SiweRejection::SignatureFormat(format!("{clipped}…")))?;
    match bytes[64] {
        0 | 1 | 27 | 28 => Ok(bytes),
        other => Err(SiweRejection::RecoveryByte(other)),
    }
}

/// The identity a wallet logs in as: `<lowercase address>@wallet.local`, the owner of the workspace it gets.
pub fn wallet_identity(address: &str) -> String {
    format!("{}@wallet.local", address.to_lowercase())
}

/// The EIP-55 address of a wallet identity (`None` for any other identity).
pub fn wallet_address_of(identity: &str) -> Option<String> {
    identity.strip_suffix("@wallet.local").and_then(|address| crate::model::eip55_address(address).ok())
}

#[cfg(test)]
mod tests {
    //! Vectors made with Python's eth-account 0.14.0 (an implementation independent of the crate under test) from
    //! the throwaway key 0x11…11 (32 bytes of 0x11; address 0x19E7…Ff2A) and, for "another key", 0x22…22:
    //! `Account.from_key(key).sign_message(encode_defunct(text=message)).signature.hex()`; the high-s form is
    //! (r, n − s, v flipped) of the first. `../shared/PROTOCOLS.md` §5.3 lists the first one too.
    use super::*;

    const ADDRESS: &str = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A";
    const SIGNATURE: &str = "0x9f490bebb43e78318f80d38f531b3cc297cffdb693c2046b4c95613b6ababf6f47bd7dbc3f6d910bc3ade0fa996db707b8d9f6299d725cf4dcd1135e652651471c";
    const OTHER_KEY: &str = "0xc750e0a8c3c5cc375a07fcd93e72358de49800cf54f5d4fe3acab5a57e5a466a0e0fa5d6f2f75f744c489cd458641b0fa8cab0e4edc5bcac7bc96fb449edf4b11b";
    const HIGH_S: &str = "0x9f490bebb43e78318f80d38f531b3cc297cffdb693c2046b4c95613b6ababf6fb8428243c0926ef43c521f05669248f701d4e6bd11d64346e3014b2e6b0feffa1b";
    const CHAIN_5: &str = "0xc9bc1cfafb4b19f9f2b9d44e8126eef289a0f8a2fa2d08fb3a3f43f8c7a614d9795821b9b7058cd68e927adf986135e87f33a999ca5963f41cd80a78d850a8971b";
    const EVIL_DOMAIN: &str = "0xb9ecf32db227eeb01dcde83b89d743ab001929629dc20ce2b7440c3739f8d8664529bd018cc95f83f37b89b3c6a7360c2a7322a3ef2c21f685bad5d0c87890e71c";
    const OTHER_URI: &str = "0x2025d6c70ecaf6ad95e849b6080782f674399e3c3d024bdfb6cda5a9e5e6e58337741788c8e2b35d0d4397a9a99d67c85febaa9772bf70f09a23ec2ddea0a57a1c";
    const CRLF: &str = "0x357184e15cd2c8054d703f8977d2d35dd617920b2f71ee6650209598c65f7329447210f44070225daf25dfced3bf53fb3d2bb5cf29b9d5a0d3e99b6faec206821b";

    /// 2030-01-01T00:05:00Z: inside the vectors' window.
    const NOW: i64 = 1_893_456_300_000;

    fn message(domain: &str, uri: &str, chain: u64) -> String {
        format!(
            "{domain} wants you to sign in with your Ethereum account:\n{ADDRESS}\n\nSign in to the benchmark service.\n\n\
             URI: {uri}\nVersion: 1\nChain ID: {chain}\nNonce: abcdefgh12345678\nIssued At: 2030-01-01T00:00:00Z\n\
             Expiration Time: 2030-01-01T00:10:00Z"
        )
    }

    fn good() -> String {
        message("localhost:8080", "http://localhost:8080/login", 1)
    }

    fn policy() -> SiwePolicy {
        SiwePolicy {
            domain: "localhost:8080".into(),
            uri: "http://localhost:8080/login".into(),
            chain_ids: vec![1],
            skew_ms: 60_000,
            max_age_ms: 600_000,
        }
    }

    #[test]
    fn the_independent_vector_logs_in_with_v_as_27_28_or_0_1() {
        let checked = check_signed_message(&policy(), &good(), SIGNATURE, NOW).unwrap();
        assert_eq!(checked, CheckedMessage { address: ADDRESS.into(), nonce: "abcdefgh12345678".into(), chain_id: 1 });
        let v_as_one = format!("{}01", &SIGNATURE[..SIGNATURE.len() - 2]);
        assert_eq!(check_signed_message(&policy(), &good(), &v_as_one, NOW).unwrap().address, ADDRESS);
        assert_eq!(wallet_identity(ADDRESS), "0x19e7e376e7c213b7e7e7e46cc70a5dd086daff2a@wallet.local");
        assert_eq!(wallet_address_of(&wallet_identity(ADDRESS)).as_deref(), Some(ADDRESS));
        assert_eq!(wallet_address_of("local:owner"), None);
    }

    /// ERC-4361's own example messages (ethereum/ERCs, ERCS/erc-4361.md): the plain one with resources and the one
    /// with a port parse and pass every check but the signature's; the one with a scheme is refused in words.
    #[test]
    fn the_official_examples_parse() {
        let examples = [
            ("example.com", "https://example.com wants you to sign in with your Ethereum account:"),
            ("example.com", "example.com wants you to sign in with your Ethereum account:"),
            ("example.com:3388", "example.com:3388 wants you to sign in with your Ethereum account:"),
        ];
        for (domain, first_line) in examples {
            let text = format!(
                "{first_line}\n0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2\n\n\
                 I accept the ExampleOrg Terms of Service: https://{domain}/tos\n\nURI: https://{domain}/login\n\
                 Version: 1\nChain ID: 1\nNonce: 32891756\nIssued At: 2021-09-30T16:25:24Z\nResources:\n\
                 - ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/\n\
                 - https://example.com/my-web2-claim.json"
            );
            let policy = SiwePolicy {
                domain: domain.into(),
                uri: format!("https://{domain}/login"),
                chain_ids: vec![1],
                skew_ms: 60_000,
                max_age_ms: 600_000,
            };
            if first_line.starts_with("https://") {
                let refused = check_message(&policy, &text, 1_633_019_124_000).unwrap_err().to_string();
                assert!(refused.contains("a scheme before the domain (https://…) is not supported"), "{refused}");
                continue;
            }
            let parsed = check_message(&policy, &text, 1_633_019_124_000).unwrap_or_else(|e| panic!("{domain}: {e}"));
            assert_eq!(parsed.accepted().address, "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2");
            assert_eq!(parsed.accepted().nonce, "32891756");
        }
    }

    #[test]
    fn the_browsers_message_builder_makes_text_the_independent_signature_covers() {
        let grant = crate::model::example_grant();
        let built = crate::model::siwe_message_text(&grant, &ADDRESS.to_lowercase()).unwrap();
        assert_eq!(check_signed_message(&policy(), &built, SIGNATURE, NOW).unwrap().address, ADDRESS);
    }

    #[test]
    fn another_key_a_changed_message_or_a_high_s_signature_is_refused() {
        let check = |text: &str, signature: &str| check_signed_message(&policy(), text, signature, NOW);
        assert_eq!(check(&good(), OTHER_KEY), Err(SiweRejection::WrongSigner));
        let tampered = good().replace("Sign in to the benchmark service.", "Sign in to the benchmark service!");
        assert_eq!(check(&tampered, SIGNATURE), Err(SiweRejection::WrongSigner));
        assert_eq!(check(&good(), HIGH_S), Err(SiweRejection::WrongSigner), "policy: only low-s (EIP-2) signatures");
        assert!(matches!(check(&good(), "0x1234"), Err(SiweRejection::SignatureFormat(_))));
        assert!(matches!(check(&good(), &format!("{}zz", &SIGNATURE[..130])), Err(SiweRejection::SignatureFormat(_))));
        let v_as_29 = format!("{}1d", &SIGNATURE[..SIGNATURE.len() - 2]);
        assert_eq!(check(&good(), &v_as_29), Err(SiweRejection::RecoveryByte(29)));
    }

    #[test]
    fn validly_signed_messages_for_another_site_uri_or_chain_are_refused() {
        let check = |text: String, signature: &str| check_signed_message(&policy(), &text, signature, NOW);
        assert_eq!(
            check(message("evil.example", "http://localhost:8080/login", 1), EVIL_DOMAIN),
            Err(SiweRejection::Domain("evil.example".into()))
        );
        assert_eq!(
            check(message("localhost:8080", "http://localhost:8080/elsewhere", 1), OTHER_URI),
            Err(SiweRejection::Uri("http://localhost:8080/elsewhere".into()))
        );
        assert_eq!(
            check(message("localhost:8080", "http://localhost:8080/login", 5), CHAIN_5),
            Err(SiweRejection::Chain(5))
        );
        let allowing_5 = SiwePolicy { chain_ids: vec![1, 5], ..policy() };
        let on_5 = message("localhost:8080", "http://localhost:8080/login", 5);
        assert_eq!(check_signed_message(&allowing_5, &on_5, CHAIN_5, NOW).unwrap().chain_id, 5);
    }

    #[test]
    fn time_bounds_hold_within_the_skew() {
        let check = |now: i64| check_signed_message(&policy(), &good(), SIGNATURE, now);
        let expiry = 1_893_456_600_000; // 2030-01-01T00:10:00Z
        assert!(check(expiry + 59_000).is_ok(), "within a minute of skew");
        assert!(matches!(check(expiry + 60_000), Err(SiweRejection::Expired(_))));
        let issued = 1_893_456_000_000; // 2030-01-01T00:00:00Z
        assert!(matches!(check(issued - 61_000), Err(SiweRejection::IssuedAt(_))), "issued in the future");
        let strict = SiwePolicy { max_age_ms: 60_000, skew_ms: 0, ..policy() };
        assert!(matches!(
            check_signed_message(&strict, &good(), SIGNATURE, issued + 61_000),
            Err(SiweRejection::IssuedAt(_))
        ));
    }

    #[test]
    fn malformed_crlf_and_oversized_messages_are_refused_before_any_signature_check() {
        let check = |text: &str| check_signed_message(&policy(), text, SIGNATURE, NOW);
        assert!(matches!(check("hello"), Err(SiweRejection::Malformed(_))));
        let crlf = good().replace('\n', "\r\n");
        let refused = check_signed_message(&policy(), &crlf, CRLF, NOW).unwrap_err();
        assert!(matches!(refused, SiweRejection::Malformed(_) | SiweRejection::NotCanonical), "{refused:?}");
        let lowercase = good().replace(ADDRESS, &ADDRESS.to_lowercase());
        assert!(matches!(check(&lowercase), Err(SiweRejection::Malformed(_))), "EIP-55 addresses only");
        assert_eq!(check(&"a".repeat(MAX_MESSAGE_BYTES + 1)), Err(SiweRejection::Oversized));
        let trailing = format!("{}\n", good());
        assert!(matches!(check(&trailing), Err(SiweRejection::NotCanonical | SiweRejection::Malformed(_))));
    }
}
