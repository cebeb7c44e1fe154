//! Rate limits: a budget (a burst, then one call per refill interval) and who a bucket counts. The buckets live
//! in the database (`Store::take_rate_token`), so every replica counts against one budget: wallet login per
//! client address, contact links per workspace, Guard's tick hook as a whole and each client calling it, refused
//! dataset uploads and test messages per workspace.

use std::net::IpAddr;
use std::time::Duration;

use crate::model::WorkspaceId;

/// A burst of calls, then one per `refill`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Calls allowed at once after a quiet spell.
    pub burst: f64,
    /// One more call is allowed after this long.
    pub refill: Duration,
}

/// Whose calls one bucket counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// A client address asking for wallet-login nonces and verifications.
    WalletLogin(IpAddr),
    /// A workspace asking for contact-address links (each one an e-mail).
    ContactLinks(WorkspaceId),
    /// Guard's tick hook, whoever calls it with the right key.
    GuardHook,
    /// A client address calling the tick hook, before its key is compared: wrong keys are counted too, so a key
    /// cannot be guessed at speed.
    GuardHookClient(IpAddr),
    /// A workspace whose dataset uploads were refused (each refusal read and parsed a file).
    RefusedUploads(WorkspaceId),
    /// A workspace sending test messages to its schedules' receivers.
    TestMessages(WorkspaceId),
}

impl Caller {
    /// The bucket's key in the database.
    pub fn key(&self) -> String {
        match self {
            Self::WalletLogin(ip) => format!("wallet-login:{ip}"),
            Self::ContactLinks(workspace) => format!("contact-links:{workspace}"),
            Self::GuardHook => "guard-hook".into(),
            Self::GuardHookClient(ip) => format!("guard-hook-client:{ip}"),
            Self::RefusedUploads(workspace) => format!("refused-uploads:{workspace}"),
            Self::TestMessages(workspace) => format!("test-messages:{workspace}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_caller_has_a_bucket_of_its_own() {
        let (a, b): (IpAddr, IpAddr) = ("198.51.100.7".parse().unwrap(), "2001:db8::1".parse().unwrap());
        let keys = [Caller::WalletLogin(a), Caller::WalletLogin(b), Caller::GuardHook, Caller::GuardHookClient(a)]
            .map(|c| c.key());
        assert_eq!(
            keys,
            ["wallet-login:198.51.100.7", "wallet-login:2001:db8::1", "guard-hook", "guard-hook-client:198.51.100.7"]
        );
    }
}
