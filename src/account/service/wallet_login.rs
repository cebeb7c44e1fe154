//! Wallet login end to end, without HTTP: a nonce issued (stored, single use, short-lived) with what a client needs
//! to build the EIP-4361 message, and a signed message turned into a session — checked (`check_signed_message`),
//! its nonce consumed, the wallet's workspace created on first login.

use rand::distributions::{Alphanumeric, DistString};
use std::time::Duration;

use super::eip1271::ContractWallets;
use super::siwe::{check_message, wallet_address_of, wallet_identity, SiwePolicy, SiweRejection};
use crate::account::store::NonceUse;
use crate::auth::{open_session, NewSession};
use crate::model::{iso8601_utc, short_address, NonceGrant, NotAdmitted, WalletAdmission, WorkspaceId};
use crate::rate_limit::Budget;
use crate::secrets::TokenHasher;
use crate::store::{Store, StoreError};

/// How long a nonce may wait for its signed message.
pub const SIWE_NONCE_TTL_MS: i64 = 10 * 60 * 1000;

/// Each client address may ask for 20 nonces or verifications at once, then one every 3 s: far more than a person
/// signing in needs (one of each), far less than a script guessing would want.
pub const WALLET_LOGIN_BUDGET: Budget = Budget { burst: 20.0, refill: Duration::from_secs(3) };

/// Whether the workspace a session or an API token opens still belongs to someone `admission` lets in: checked on
/// every use, not only at sign-in, so an operator who takes a wallet off `wallet-sign-in`'s list ends its sessions
/// and tokens at once (and lets them work again by listing it again). `closed` keeps every wallet that has a
/// workspace, and the install owner is never a wallet: only a list needs the workspace's owner read.
pub async fn still_admitted(
    store: &Store,
    admission: &WalletAdmission,
    workspace: WorkspaceId,
) -> Result<Result<(), NotAdmitted>, StoreError> {
    if !matches!(admission, WalletAdmission::Listed(_)) {
        return Ok(Ok(()));
    }
    let owner = store.get_workspace(workspace).await?.owner;
    Ok(match wallet_address_of(&owner) {
        Some(address) => admission.admits(&address, true),
        None => Ok(()),
    })
}

/// The statement the browser's message carries.
pub const SIWE_STATEMENT: &str = "Sign in to latency-guard.";

/// What a wallet login's message must say at a server reached at `public_base`: its authority as the domain,
/// `{public_base}/login` as the URI, `chain_ids`, a minute of clock skew, and the nonce's lifetime as its oldest age.
pub fn siwe_policy(public_base: &str, chain_ids: &[u64]) -> SiwePolicy {
    let domain = url::Url::parse(public_base)
        .ok()
        .map(|u| match (u.host_str(), u.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_string(),
            (None, _) => String::new(),
        })
        .unwrap_or_default();
    SiwePolicy {
        domain,
        uri: format!("{}/login", public_base.trim_end_matches('/')),
        chain_ids: chain_ids.to_vec(),
        skew_ms: 60_000,
        max_age_ms: SIWE_NONCE_TTL_MS,
    }
}

/// Issues a nonce under `policy` at `now_ms`.
pub async fn issue_siwe_nonce(store: &Store, policy: &SiwePolicy, now_ms: i64) -> Result<NonceGrant, StoreError> {
    let nonce = Alphanumeric.sample_string(&mut rand::rngs::OsRng, 17);
    let expires = now_ms + SIWE_NONCE_TTL_MS;
    store.issue_siwe_nonce(&nonce, now_ms, expires).await?;
    Ok(NonceGrant {
        nonce,
        domain: policy.domain.clone(),
        uri: policy.uri.clone(),
        chain_id: policy.chain_ids.first().copied().unwrap_or(1),
        chain_ids: policy.chain_ids.clone(),
        statement: SIWE_STATEMENT.into(),
        version: "1".into(),
        issued_at: iso8601_utc(now_ms),
        expiration_time: iso8601_utc(expires),
    })
}

/// Why a wallet login was refused (the 401's reason) or could not be completed.
#[derive(Debug, thiserror::Error)]
pub enum WalletLoginError {
    /// The message or its signature.
    #[error("{0}")]
    Rejected(#[from] SiweRejection),
    /// The nonce was not issued here, was used already, or expired.
    #[error("{}", match .0 {
        NonceUse::Unknown => "the nonce was not issued by this server",
        NonceUse::AlreadyUsed => "the nonce was already used (a replayed message)",
        NonceUse::Expired => "the nonce expired; ask for a new one",
        NonceUse::Consumed => "the nonce was accepted",
    })]
    Nonce(NonceUse),
    /// The signature was good, but the operator does not let this wallet in (a 403).
    #[error("{0}")]
    NotAdmitted(#[from] NotAdmitted),
    /// The database failed (a 500, not a refusal).
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// A wallet logged in: its session and address.
pub struct WalletSession {
    /// The new session (its token goes to the browser once).
    pub session: NewSession,
    /// The signer, EIP-55.
    pub address: String,
}

/// Checks a signed message — an ordinary wallet's signature, else, when `contracts` is set, a smart-contract
/// wallet's (EIP-1271) — consumes its nonce, and opens a session lasting `ttl` in the wallet's own workspace (created
/// on its first login, owned by `<lowercase address>@wallet.local`) when `admission` lets the wallet in.
pub async fn login_with_wallet(
    store: &Store,
    tokens: &TokenHasher,
    (policy, contracts, admission): (&SiwePolicy, Option<&ContractWallets>, &WalletAdmission),
    (message, signature): (&str, &str),
    now_ms: i64,
    ttl: Duration,
) -> Result<WalletSession, WalletLoginError> {
    let parsed = check_message(policy, message, now_ms)?;
    let checked = match (parsed.verify_eoa(signature), contracts) {
        (Ok(checked), _) => checked,
        (
            Err(SiweRejection::WrongSigner | SiweRejection::SignatureFormat(_) | SiweRejection::RecoveryByte(_)),
            Some(contracts),
        ) => contracts.verify(&parsed, signature).await?,
        (Err(rejection), _) => return Err(rejection.into()),
    };
    match store.consume_siwe_nonce(&checked.nonce, now_ms).await? {
        NonceUse::Consumed => {}
        refused => return Err(WalletLoginError::Nonce(refused)),
    }
    let address = checked.address;
    let identity = wallet_identity(&address);
    let has_workspace = store.workspace_of_owner(&identity).await?.is_some();
    admission.admits(&address, has_workspace)?;
    let (workspace, _) = store.ensure_workspace(&identity, &short_address(&address), now_ms).await?;
    let session = open_session(store, tokens, workspace.id, now_ms, ttl).await?;
    Ok(WalletSession { session, address })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_binds_the_public_authority_and_the_login_uri() {
        let policy = siwe_policy("https://bench.example:8443/", &[1, 8453]);
        assert_eq!(
            (policy.domain.as_str(), policy.uri.as_str()),
            ("bench.example:8443", "https://bench.example:8443/login")
        );
        assert_eq!(policy.chain_ids, [1, 8453]);
        assert_eq!(siwe_policy("http://127.0.0.1:3000", &[1]).domain, "127.0.0.1:3000");
    }
}
