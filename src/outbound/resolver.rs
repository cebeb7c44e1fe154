//! The resolver a guarded HTTP client connects through: it looks a name up once, checks every
//! address, and hands the connector exactly those addresses. A name that answers a public address when a
//! connector is saved and the loopback when it is used (DNS rebinding) is refused at use, because the check sits
//! where the connection's own lookup happens.

use std::net::SocketAddr;
use std::sync::Arc;

use super::policy::{AddressPolicy, Reach};

/// reqwest's resolver for clients that may reach public addresses only.
pub struct GuardedResolver {
    policy: AddressPolicy,
}

impl GuardedResolver {
    /// Checks every connection's addresses against `policy` with [`Reach::PublicOnly`].
    pub fn new(policy: AddressPolicy) -> Arc<Self> {
        Arc::new(Self { policy })
    }
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.policy.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let ips = policy.lookup().lookup(&host).await?;
            for ip in &ips {
                policy.check(Reach::PublicOnly, &host, *ip, None)?;
            }
            let addresses: reqwest::dns::Addrs = Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addresses)
        })
    }
}
