//! How host names become addresses: the system's resolver in the server, a scripted one in tests.

use futures::future::BoxFuture;
use std::net::IpAddr;

/// Resolves a host name to its addresses. The system's resolver in the server; tests script the answers.
pub trait Lookup: Send + Sync + 'static {
    /// Every address of `host`.
    fn lookup(&self, host: &str) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>>;
}

/// The operating system's resolver (`getaddrinfo`, through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(&self, host: &str) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
        let host = host.to_string();
        Box::pin(async move { Ok(tokio::net::lookup_host((host.as_str(), 0)).await?.map(|a| a.ip()).collect()) })
    }
}
