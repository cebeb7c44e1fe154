//! Who may sign in with a wallet: the operator's `wallet-sign-in` setting, as a rule. Open (any wallet, a
//! workspace each), closed to new wallets (those with a workspace still sign in), or a list of addresses.

/// The setting's name, as refusals and errors say it.
pub const WALLET_SIGN_IN: &str = "wallet-sign-in";

/// Which wallets are let in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum WalletAdmission {
    /// Any wallet; a new one gets a workspace.
    #[default]
    Open,
    /// Wallets that already have a workspace; no new ones.
    Closed,
    /// These wallets only (EIP-55 addresses), new or not.
    Listed(Vec<String>),
}

/// Why a wallet whose signature was good is not let in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotAdmitted {
    /// The server takes no new wallets.
    #[error("this server takes no new wallets (its operator closed sign-in with the {WALLET_SIGN_IN} setting)")]
    ClosedToNewWallets,
    /// The wallet is not on the operator's list.
    #[error("this wallet is not among those this server lets in (the operator lists them in {WALLET_SIGN_IN})")]
    NotListed,
}

/// Why a `wallet-sign-in` setting cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdmissionError {
    /// A listed address is not a wallet address.
    #[error("{address:?}: {why}")]
    Address {
        /// The address as written.
        address: String,
        /// What is wrong with it.
        why: crate::model::AddressError,
    },
    /// Neither a word nor an address.
    #[error("open, closed, or the wallet addresses that may sign in")]
    Empty,
}

impl WalletAdmission {
    /// `open`, `closed`, or comma-separated wallet addresses.
    pub fn parse(text: &str) -> Result<Self, AdmissionError> {
        match text.trim() {
            "open" => Ok(Self::Open),
            "closed" => Ok(Self::Closed),
            list => {
                let addresses = list
                    .split(',')
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .map(|a| {
                        crate::model::eip55_address(a)
                            .map_err(|why| AdmissionError::Address { address: a.to_string(), why })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if addresses.is_empty() {
                    return Err(AdmissionError::Empty);
                }
                Ok(Self::Listed(addresses))
            }
        }
    }

    /// Whether the wallet at `address` (EIP-55), which has a workspace here or not, may sign in.
    pub fn admits(&self, address: &str, has_workspace: bool) -> Result<(), NotAdmitted> {
        match self {
            Self::Open => Ok(()),
            Self::Closed if has_workspace => Ok(()),
            Self::Closed => Err(NotAdmitted::ClosedToNewWallets),
            Self::Listed(addresses) if addresses.iter().any(|a| a.eq_ignore_ascii_case(address)) => Ok(()),
            Self::Listed(_) => Err(NotAdmitted::NotListed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTED: &str = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A";
    const OTHER: &str = "0x1563915e194D8CfBA1943570603F7606A3115508";

    #[test]
    fn each_setting_lets_in_whom_it_says() {
        let listed = WalletAdmission::parse(&format!(" {}, ", LISTED.to_lowercase())).unwrap();
        let table = [
            (WalletAdmission::Open, OTHER, false, Ok(())),
            (WalletAdmission::Closed, OTHER, true, Ok(())),
            (WalletAdmission::Closed, OTHER, false, Err(NotAdmitted::ClosedToNewWallets)),
            (listed.clone(), LISTED, false, Ok(())),
            (listed.clone(), LISTED, true, Ok(())),
            (listed, OTHER, true, Err(NotAdmitted::NotListed)),
        ];
        for (rule, address, has_workspace, expected) in table {
            assert_eq!(rule.admits(address, has_workspace), expected, "{rule:?} {address} {has_workspace}");
        }
    }

    #[test]
    fn the_setting_reads_its_three_forms_and_names_a_bad_address() {
        assert_eq!(WalletAdmission::parse("open"), Ok(WalletAdmission::Open));
        assert_eq!(WalletAdmission::parse("closed"), Ok(WalletAdmission::Closed));
        assert_eq!(WalletAdmission::parse(LISTED), Ok(WalletAdmission::Listed(vec![LISTED.into()])));
        assert!(WalletAdmission::parse("0x12, nope").unwrap_err().to_string().contains("\"0x12\""));
        assert!(WalletAdmission::parse(" , ").is_err());
    }
}
