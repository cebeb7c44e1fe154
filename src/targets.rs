//! Turns what a user points at (a form's values, optionally backed by a stored connector) into a
//! [`RequestTarget`] the engine can call. Sits between the store and the engine; secrets never leave it except
//! inside the target.

use std::collections::BTreeMap;

use crate::engine::RequestTarget;
use crate::model::{BaseUrl, Connector, HeaderSet, HeaderValueChange, TestTarget, ValidationError, WorkspaceId};
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
) -> Result<RequestTarget, String> {
    let base_url = BaseUrl::parse(base_url).map_err(|e| format!("--base-url: {}", e.reason))?;
    let api_key = match api_key_env {
        Some(var) => {
            Some(std::env::var(var).map_err(|_| format!("--api-key-env: environment variable {var} is not set"))?)
        }
        None => None,
    };
    let mut parsed = BTreeMap::new();
    for raw in headers {
        let (name, value) = raw.split_once(':').ok_or_else(|| format!("--header {raw:?}: expected NAME:VALUE"))?;
        let name = crate::model::HeaderName::parse(name, "--header").map_err(|e| format!("--header: {}", e.reason))?;
        parsed.insert(name.as_str().to_string(), value.trim().to_string());
    }
    Ok(RequestTarget { base_url, api_key, headers: parsed })
}

/// A stored connector's browser-safe view and the target to call it with (URL, key, every header).
pub fn stored_target(stored: StoredConnector) -> (Connector, RequestTarget) {
    let target = RequestTarget {
        base_url: stored.base_url,
        api_key: stored.credentials.api_key,
        headers: stored.credentials.headers,
    };
    (stored.connector, target)
}

/// Builds the request target of a connection test. With `connectorId`, an omitted key and `null` credential
/// headers take the stored values; without it, they mean "none".
pub async fn resolve_test_target(
    store: &Store,
    sealer: &SecretBox,
    workspace: WorkspaceId,
    target: &TestTarget,
) -> Result<RequestTarget, ResolveError> {
    let base_url = BaseUrl::parse(&target.base_url)?;
    let headers = HeaderSet::parse(&target.headers)?;
    let stored = match target.connector_id {
        Some(id) => Some(store.open_connector(workspace, id, sealer).await?.credentials),
        None => None,
    };
    let typed_key = target.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty());
    let api_key = typed_key.map(str::to_string).or_else(|| stored.as_ref().and_then(|s| s.api_key.clone()));
    let mut resolved = BTreeMap::new();
    for (name, change) in headers.0 {
        let value = match change {
            HeaderValueChange::Set(v) => v,
            HeaderValueChange::KeepStored => {
                stored.as_ref().and_then(|s| s.headers.get(name.as_str()).cloned()).ok_or_else(|| {
                    ValidationError::new(format!("headers.{}", name.as_str()), "no stored value; enter the value")
                })?
            }
        };
        resolved.insert(name.as_str().to_string(), value);
    }
    Ok(RequestTarget { base_url, api_key, headers: resolved })
}
