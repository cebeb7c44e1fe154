//! Who is signed in, as the sidebar and the workspace settings page show it.

use serde::{Deserialize, Serialize};

use crate::model::ValidationError;

/// The longest workspace name.
pub const MAX_WORKSPACE_NAME_CHARS: usize = 80;

/// A workspace name as entered: trimmed, 1–80 characters, something visible, no control characters.
pub fn validate_workspace_name(name: &str) -> Result<String, ValidationError> {
    crate::model::display_name(name, "name", MAX_WORKSPACE_NAME_CHARS)
}

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
    /// An owner identity of no kind this version signs in (kept by an earlier or later version, or made by a
    /// script): shown as it is stored rather than failing the page.
    Other {
        /// The stored identity.
        identity: String,
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
    /// The owner's verified contact address for alert e-mail, if one was set.
    pub contact_email: Option<String>,
    /// Whether this server sends e-mail at all (`smtp-url` is set).
    pub email_enabled: bool,
}

impl AccountView {
    /// The sidebar's short line: a wallet's short address, or "install owner".
    pub fn short_label(&self) -> String {
        match &self.signed_in_as {
            SignedInAs::InstallOwner => "install owner".into(),
            SignedInAs::Wallet { address } => crate::model::short_address(address),
            SignedInAs::Other { identity } => identity.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workspace_name_is_trimmed_and_bounded() {
        assert_eq!(validate_workspace_name("  Perf team ").unwrap(), "Perf team");
        for bad in ["", "   ", "a\nb", &"x".repeat(81)] {
            assert_eq!(validate_workspace_name(bad).unwrap_err().field, "name", "{bad:?}");
        }
        let wallet = AccountView {
            workspace_name: "w".into(),
            contact_email: None,
            email_enabled: false,
            signed_in_as: SignedInAs::Wallet { address: "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A".into() },
        };
        assert_eq!(wallet.short_label(), "0x19E7…ff2A");
    }
}
