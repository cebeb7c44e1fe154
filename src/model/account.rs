//! Who is signed in, as the sidebar and the workspace settings page show it.

use serde::{Deserialize, Serialize};

/// How the workspace's owner signs in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum SignedInAs {
    /// The install's owner, through the printed one-time links.
    InstallOwner,
    /// A wallet, through Sign-In with Ethereum.
    Wallet {
        /// EIP-55.
        address: String,
    },
}

/// The signed-in workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountView {
    /// The workspace's display name.
    pub workspace_name: String,
    /// Its owner.
    pub signed_in_as: SignedInAs,
}

impl AccountView {
    /// The sidebar's short line: a wallet's short address, or "install owner".
    pub fn short_label(&self) -> String {
        match &self.signed_in_as {
            SignedInAs::InstallOwner => "install owner".into(),
            SignedInAs::Wallet { address } => super::short_address(address),
        }
    }
}
