//! Whose workspace a session acts for, in the terms a person recognises.

use super::siwe::wallet_address_of;
use crate::model::WorkspaceId;
use crate::model::{AccountView, SignedInAs};
use crate::store::{Store, StoreError, LOCAL_OWNER};

/// The signed-in workspace's name and owner.
pub async fn account_of(store: &Store, workspace: WorkspaceId) -> Result<AccountView, StoreError> {
    let found = store.get_workspace(workspace).await?;
    let signed_in_as = match wallet_address_of(&found.owner) {
        Some(address) => SignedInAs::Wallet { address },
        None if found.owner == LOCAL_OWNER => SignedInAs::InstallOwner,
        None => return Err(StoreError::Corrupt(format!("workspace owner {:?} is of no known kind", found.owner))),
    };
    Ok(AccountView { workspace_name: found.name, signed_in_as })
}
