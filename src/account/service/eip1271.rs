//! Smart-contract wallets (EIP-1271): when an ordinary signature does not recover the message's address, the
//! contract at that address is asked, through the chain node named by `siwe-rpc-url`, whether the signature is
//! valid for the message's EIP-191 hash: `isValidSignature(bytes32, bytes)` must return its magic value
//! `0x1626ba7e`. The node's URL may carry an API key: it is never logged or shown.

use serde_json::{json, Value};
use std::time::Duration;

use super::siwe::{CheckedMessage, ParsedMessage, SiweRejection};

/// `bytes4(keccak256("isValidSignature(bytes32,bytes)"))`: the selector, and the value a valid signature returns.
pub const EIP1271_MAGIC: [u8; 4] = [0x16, 0x26, 0xba, 0x7e];

/// The longest contract-wallet signature accepted, in bytes (multisig signatures are a few hundred).
const MAX_CONTRACT_SIGNATURE_BYTES: usize = 8_192;

/// Asks contract wallets through one chain node. Cheap to clone.
#[derive(Clone)]
pub struct ContractWallets {
    rpc_url: String,
    http: reqwest::Client,
}

impl std::fmt::Debug for ContractWallets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContractWallets").field("rpc_url", &"[hidden]").finish()
    }
}

/// The call data of `isValidSignature(hash, signature)` (Solidity ABI: selector, the hash, the offset of the
/// dynamic `bytes`, its length, its bytes padded to a 32-byte boundary).
pub fn is_valid_signature_call(hash: &[u8; 32], signature: &[u8]) -> Vec<u8> {
    let word = |n: usize| {
        let mut w = [0u8; 32];
        w[24..].copy_from_slice(&(n as u64).to_be_bytes());
        w
    };
    let mut data = Vec::with_capacity(4 + 32 * 3 + signature.len().div_ceil(32) * 32);
    data.extend_from_slice(&EIP1271_MAGIC);
    data.extend_from_slice(hash);
    data.extend_from_slice(&word(64));
    data.extend_from_slice(&word(signature.len()));
    data.extend_from_slice(signature);
    data.resize(data.len() + (32 - signature.len() % 32) % 32, 0);
    data
}

/// Whether an `eth_call` result says "valid": a returned `bytes4` equal to the magic value (left-aligned in its
/// word). An empty result (no contract at the address) is not valid.
pub fn says_valid(result: &str) -> bool {
    let hex = result.trim_start_matches("0x");
    hex.len() >= 8 && hex::decode(&hex[..8]).is_ok_and(|b| b == EIP1271_MAGIC)
}

impl ContractWallets {
    /// Checks through the node at `rpc_url`, each request within `timeout`.
    pub fn new(rpc_url: &str, timeout: Duration) -> Result<Self, reqwest::Error> {
        let http = reqwest::Client::builder().timeout(timeout).build()?;
        Ok(Self { rpc_url: rpc_url.to_string(), http })
    }

    async fn rpc(&self, method: &str, params: Value) -> Result<Value, SiweRejection> {
        let unchecked = |what: String| SiweRejection::ContractUnchecked(what);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        // reqwest's errors name the URL; the URL may hold a key, so only the kind of failure is kept.
        let reply = self.http.post(&self.rpc_url).json(&body).send().await.map_err(|e| {
            unchecked(format!(
                "the chain node did not answer {method} ({})",
                if e.is_timeout() { "timed out" } else { "connection failed" }
            ))
        })?;
        let status = reply.status();
        let reply: Value = reply
            .json()
            .await
            .map_err(|_| unchecked(format!("the chain node's answer to {method} is not JSON-RPC (HTTP {status})")))?;
        match (reply.get("result"), reply.get("error")) {
            (Some(result), _) => Ok(result.clone()),
            (None, Some(error)) => Err(SiweRejection::ContractUnchecked(format!(
                "the chain node refused {method}: {}",
                error.get("message").and_then(Value::as_str).unwrap_or("no reason given")
            ))),
            (None, None) => Err(unchecked(format!("the chain node's answer to {method} has no result"))),
        }
    }

    /// Whether the contract wallet at the message's address accepts `signature` (hex) for the message.
    pub async fn verify(&self, message: &ParsedMessage, signature: &str) -> Result<CheckedMessage, SiweRejection> {
        let digits = signature.trim().trim_start_matches("0x");
        let bytes = hex::decode(digits)
            .ok()
            .filter(|b| !b.is_empty() && b.len() <= MAX_CONTRACT_SIGNATURE_BYTES)
            .ok_or_else(|| SiweRejection::SignatureFormat(signature.chars().take(20).collect::<String>() + "…"))?;
        let chain = self.rpc("eth_chainId", json!([])).await?;
        let rpc_chain = chain
            .as_str()
            .and_then(|c| u64::from_str_radix(c.trim_start_matches("0x"), 16).ok())
            .ok_or_else(|| SiweRejection::ContractUnchecked(format!("eth_chainId answered {chain}")))?;
        if rpc_chain != message.chain_id() {
            return Err(SiweRejection::RpcChain { rpc: rpc_chain, message: message.chain_id() });
        }
        let call = json!({
            "to": format!("0x{}", hex::encode(message.address_bytes())),
            "data": format!("0x{}", hex::encode(is_valid_signature_call(&message.eip191_hash(), &bytes))),
        });
        match self.rpc("eth_call", json!([call, "latest"])).await {
            Ok(result) if result.as_str().is_some_and(says_valid) => Ok(message.accepted()),
            Ok(_) => Err(SiweRejection::NotAccepted),
            // A contract that reverts (or a node that says so) does not accept the signature.
            Err(SiweRejection::ContractUnchecked(reason)) if reason.contains("revert") => {
                Err(SiweRejection::NotAccepted)
            }
            Err(other) => Err(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selector_is_keccak_of_the_signature_and_the_call_is_abi_encoded() {
        use sha3::{Digest, Keccak256};
        assert_eq!(Keccak256::digest(b"isValidSignature(bytes32,bytes)")[..4], EIP1271_MAGIC);
        let data = is_valid_signature_call(&[0xaa; 32], &[1, 2, 3]);
        let hex = hex::encode(&data);
        assert_eq!(data.len(), 4 + 32 * 4);
        assert_eq!(&hex[..8], "1626ba7e");
        assert_eq!(&hex[8..72], "aa".repeat(32));
        assert_eq!(&hex[72..136], format!("{:064x}", 64));
        assert_eq!(&hex[136..200], format!("{:064x}", 3));
        assert_eq!(&hex[200..], format!("010203{}", "0".repeat(58)));
        assert_eq!(is_valid_signature_call(&[0; 32], &[7; 64]).len(), 4 + 32 * 3 + 64, "no padding on a boundary");
    }

    #[test]
    fn only_the_magic_value_is_valid() {
        assert!(says_valid(&format!("0x1626ba7e{}", "0".repeat(56))));
        assert!(!says_valid(&format!("0x{}", "0".repeat(64))));
        assert!(!says_valid("0x"));
        assert!(!says_valid("0xffffffff"));
    }
}
