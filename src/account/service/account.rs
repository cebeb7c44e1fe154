//! Whose workspace a session acts for, in the terms a person recognises.

use super::siwe::wallet_address_of;
use crate::account::model::{AccountView, SignedInAs};
use crate::model::WorkspaceId;
use crate::store::{Store, StoreError, LOCAL_OWNER};

/// The signed-in workspace's name, owner and contact address; `email_enabled` says whether this server sends mail.
pub async fn account_of(store: &Store, workspace: WorkspaceId, email_enabled: bool) -> Result<AccountView, StoreError> {
    let found = store.get_workspace(workspace).await?;
    let signed_in_as = match wallet_address_of(&found.owner) {
        Some(address) => SignedInAs::Wallet { address },
        None if found.owner == LOCAL_OWNER => SignedInAs::InstallOwner,
        None => SignedInAs::Other { identity: found.owner.clone() },
    };
    let contact_email = store.owner_contact(workspace).await?;
    Ok(AccountView { workspace_name: found.name, signed_in_as, contact_email, email_enabled })
}
