//! Turns what a user points at (a form's values, optionally backed by a stored connector) into a
//! [`RequestTarget`] the engine can call. Sits between the store and the engine; secrets never leave it except
//! inside the target.

use std::collections::BTreeMap;

use crate::engine::{HttpClient, RequestTarget};
use crate::model::{
    credentials_kept_for, BaseUrl, Connector, ConnectorId, HeaderSet, HeaderValueChange, TestTarget, ValidationError,
    WorkspaceId,
};
use crate::outbound::{AddressPolicy, Reach};
use crate::secrets::SecretBox;
use crate::store::{Store, StoreError, StoredConnector};

/// Why a target could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// A field of the target is invalid.
    #[error("{0}")]
    Invalid(#[from] ValidationError),
    /// The stored connector could not be read.
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// The target a command line names: `--base-url`, the key read from the environment variable `--api-key-env`
/// names (a key never goes on the command line, where `ps` and shell history would keep it) and `--header
/// NAME:VALUE` pairs. The error names the option.
pub fn command_line_target(
    base_url: &str,
    api_key_env: Option<&str>,
    headers: &[String],
) -> Result<RequestTarget, ValidationError> {
    let base_url = BaseUrl::parse(base_url).map_err(|e| ValidationError::new("--base-url", e.reason))?;
    let api_key = match api_key_env {
        Some(var) => Some(
            std::env::var(var)
                .map_err(|_| ValidationError::new("--api-key-env", format!("environment variable {var} is not set")))?,
        ),
        None => None,
    };
    let mut parsed = BTreeMap::new();
    for raw in headers {
        let (name, value) = raw
            .split_once(':')
            .ok_or_else(|| ValidationError::new("--header", format!("{raw:?}: expected NAME:VALUE")))?;
        let name = crate::model::HeaderName::parse(name, "--header")?;
        parsed.insert(name.as_str().to_string(), value.trim().to_string());
    }
    // The command line is the operator's: it reaches any address.
    Ok(RequestTarget { base_url, api_key, headers: parsed, reach: Reach::Anywhere })
}

/// A stored connector's browser-safe view and the target to call it with (URL, key, every header), reaching as
/// far as `reach`.
pub fn stored_target(stored: StoredConnector, reach: Reach) -> (Connector, RequestTarget) {
    let target = RequestTarget {
        base_url: stored.base_url,
        api_key: stored.credentials.api_key,
        headers: stored.credentials.headers,
        reach,
    };
    (stored.connector, target)
}

/// How far `workspace`'s requests may go, as `addresses` trusts its owner.
pub async fn workspace_reach(
    store: &Store,
    addresses: &AddressPolicy,
    workspace: WorkspaceId,
) -> Result<Reach, StoreError> {
    Ok(addresses.reach_of(&store.get_workspace(workspace).await?.owner))
}

/// A connector of `workspace`, opened to be called, with the reach its workspace has.
pub async fn open_target(
    store: &Store,
    sealer: &SecretBox,
    addresses: &AddressPolicy,
    workspace: WorkspaceId,
    id: ConnectorId,
) -> Result<(Connector, RequestTarget), StoreError> {
    let reach = workspace_reach(store, addresses, workspace).await?;
    Ok(stored_target(store.open_connector(workspace, id, sealer).await?, reach))
}

/// Fails with a validation error of `field` when `target` is a destination its workspace may not reach (see
/// [`HttpClient::refusal`]).
pub async fn refuse_unreachable(http: &HttpClient, target: &RequestTarget, field: &str) -> Result<(), ValidationError> {
    match http.refusal(target).await {
        Some(refusal) => Err(ValidationError::new(field, refusal.to_string())),
        None => Ok(()),
    }
}

/// Refuses to save a connector of `workspace` at `base_url` when the workspace may not reach it (it is checked
/// again at every use: a name may resolve elsewhere later).
pub async fn refuse_unreachable_base_url(
    store: &Store,
    http: &HttpClient,
    workspace: WorkspaceId,
    base_url: &BaseUrl,
) -> Result<(), ResolveError> {
    let reach = workspace_reach(store, http.addresses(), workspace).await?;
    let target = RequestTarget { base_url: base_url.clone(), api_key: None, headers: BTreeMap::new(), reach };
    Ok(refuse_unreachable(http, &target, "baseUrl").await?)
}

/// Builds the request target of a connection test. With `connectorId`, an omitted key and `null` credential
/// headers take the stored values, but only for the stored base URL's origin (a stored key never goes to an
/// address the caller typed); without it, they mean "none".
pub async fn resolve_test_target(
    store: &Store,
    sealer: &SecretBox,
    addresses: &AddressPolicy,
    workspace: WorkspaceId,
    target: &TestTarget,
) -> Result<RequestTarget, ResolveError> {
    let base_url = BaseUrl::parse(&target.base_url)?;
    let headers = HeaderSet::parse(&target.headers)?;
    let reach = workspace_reach(store, addresses, workspace).await?;
    let stored = match target.connector_id {
        Some(id) => Some(store.open_connector(workspace, id, sealer).await?),
        None => None,
    };
    let moved = |field: &str| stored.as_ref().and_then(|s| credentials_kept_for(&s.base_url, &base_url, field));
    let stored = stored.as_ref().map(|s| &s.credentials);
    let typed_key = target.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty());
    let stored_key = stored.and_then(|s| s.api_key.clone());
    if typed_key.is_none() && stored_key.is_some() {
        if let Some(refused) = moved("apiKey") {
            return Err(refused.into());
        }
    }
    let api_key = typed_key.map(str::to_string).or(stored_key);
    let mut resolved = BTreeMap::new();
    for (name, change) in headers.0 {
        let value = match change {
            HeaderValueChange::Set(v) => v,
            HeaderValueChange::KeepStored => {
                if let Some(refused) = moved(&format!("headers.{}", name.as_str())) {
                    return Err(refused.into());
                }
                stored.and_then(|s| s.headers.get(name.as_str()).cloned()).ok_or_else(|| {
                    ValidationError::new(format!("headers.{}", name.as_str()), "no stored value; enter the value")
                })?
            }
        };
        resolved.insert(name.as_str().to_string(), value);
    }
    Ok(RequestTarget { base_url, api_key, headers: resolved, reach })
}
