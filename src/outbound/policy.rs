//! Who may reach what, and the refusal a user reads when a destination is not theirs to reach.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use super::address::{internal_kind, InternalKind};
use super::lookup::Lookup;
use super::rules::AllowRules;

/// How far a request may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reach {
    /// Any address: the install's owner, a trusted workspace, the command line (run by the operator).
    Anywhere,
    /// Public addresses, and what the operator's allow setting names.
    PublicOnly,
}

/// Whose requests reach any address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// Everyone's: a process with no users but its operator (the command line, a test rig).
    Everyone,
    /// These owner identities' (the install owner, trusted wallets); every other owner's requests reach public
    /// addresses and the allowed exceptions only.
    Owners(Arc<Vec<String>>),
}

/// A destination this request may not reach.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct Refusal {
    /// The host as the URL names it.
    pub host: String,
    /// The address it is (or resolved to).
    pub ip: IpAddr,
    /// Why that address is not public.
    pub kind: InternalKind,
    /// The operator's setting that could allow it.
    pub setting: &'static str,
}

impl Refusal {
    /// The words a refused workspace reads. Only a workspace that reaches public addresses only is refused, so it
    /// never learns what a name resolves to here (the server's resolver would tell it the internal network's
    /// names): an address it typed is named with its kind, a name only as resolving to an address that is not
    /// public. The address and its kind stay in the server's log.
    fn describe(&self) -> String {
        let host = self.host.trim_start_matches('[').trim_end_matches(']');
        let is = if host.parse::<IpAddr>().is_ok_and(|ip| ip == self.ip) {
            format!("{host} is {}", self.kind)
        } else {
            format!("{host} resolves to an address that is not public")
        };
        format!(
            "refused: {is}; this workspace may reach public addresses only (the server's operator can allow a host \
             or range with the {} setting)",
            self.setting
        )
    }
}

/// Why a URL's destination could not be checked or was refused.
#[derive(Debug, thiserror::Error)]
pub enum AddressError {
    /// The URL has no host.
    #[error("the URL has no host")]
    NoHost,
    /// The URL names no port and its scheme has no default one.
    #[error("the URL has no port")]
    NoPort,
    /// The host name did not resolve.
    #[error("{host} could not be resolved: {source}")]
    Unresolvable {
        /// The host.
        host: String,
        /// What the resolver said.
        source: std::io::Error,
    },
    /// It resolved to nothing.
    #[error("{host} resolves to no address")]
    NoAddress {
        /// The host.
        host: String,
    },
    /// An address it resolved to is not public.
    #[error(transparent)]
    Refused(#[from] Refusal),
}

/// The one outbound-address policy: a reach, the operator's exceptions and how names are looked up.
#[derive(Clone)]
pub struct AddressPolicy {
    rules: Arc<AllowRules>,
    lookup: Arc<dyn Lookup>,
    trust: Trust,
}

impl std::fmt::Debug for AddressPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AddressPolicy").field("rules", &self.rules).field("trust", &self.trust).finish_non_exhaustive()
    }
}

impl AddressPolicy {
    /// A policy with these exceptions and this trust, resolving names with `lookup`.
    pub fn new(rules: AllowRules, trust: Trust, lookup: Arc<dyn Lookup>) -> Self {
        Self { rules: Arc::new(rules), lookup, trust }
    }

    /// How far the requests of a workspace owned by `owner` (an owner identity) may go.
    pub fn reach_of(&self, owner: &str) -> Reach {
        match &self.trust {
            Trust::Everyone => Reach::Anywhere,
            Trust::Owners(trusted) if trusted.iter().any(|t| t == owner) => Reach::Anywhere,
            Trust::Owners(_) => Reach::PublicOnly,
        }
    }

    /// The name lookup every check and every guarded connection uses.
    pub fn lookup(&self) -> &Arc<dyn Lookup> {
        &self.lookup
    }

    /// Whether `host` at `ip` (and `port`, when known) may be reached with `reach`.
    pub fn check(&self, reach: Reach, host: &str, ip: IpAddr, port: Option<u16>) -> Result<(), Refusal> {
        let Some(kind) = internal_kind(ip) else { return Ok(()) };
        if reach == Reach::Anywhere || self.rules.allows(host, ip, port) {
            return Ok(());
        }
        // The operator's log keeps what the workspace is not told: the address and its kind.
        tracing::info!(host, %ip, %kind, "refused an address that is not public");
        Err(Refusal { host: host.to_string(), ip, kind, setting: self.rules.setting() })
    }

    /// The host of `url` when it is an IP address (which no resolver sees), checked with the URL's port.
    pub fn check_literal(&self, reach: Reach, url: &url::Url) -> Result<(), Refusal> {
        let ip = match url.host() {
            Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
            Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
            _ => return Ok(()),
        };
        self.check(reach, url.host_str().unwrap_or_default(), ip, url.port_or_known_default())
    }

    /// Resolves `url`'s host once and checks every address it has; answers them, all allowed, with the URL's port,
    /// so the caller connects to what was checked and nothing is looked up twice.
    pub async fn resolve(&self, reach: Reach, url: &url::Url) -> Result<Vec<SocketAddr>, AddressError> {
        let host = url.host_str().ok_or(AddressError::NoHost)?;
        let port = url.port_or_known_default().ok_or(AddressError::NoPort)?;
        let ips: Vec<IpAddr> = match url.host() {
            Some(url::Host::Ipv4(v4)) => vec![IpAddr::V4(v4)],
            Some(url::Host::Ipv6(v6)) => vec![IpAddr::V6(v6)],
            _ => self
                .lookup
                .lookup(host)
                .await
                .map_err(|source| AddressError::Unresolvable { host: host.into(), source })?,
        };
        if ips.is_empty() {
            return Err(AddressError::NoAddress { host: host.into() });
        }
        for ip in &ips {
            self.check(reach, host, *ip, Some(port))?;
        }
        Ok(ips.into_iter().map(|ip| SocketAddr::new(ip, port)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbound::lookup::SystemLookup;

    fn policy(allow: &str) -> AddressPolicy {
        let trust = Trust::Owners(Arc::new(vec!["local:owner".into()]));
        AddressPolicy::new(AllowRules::parse("connector-allow", allow).unwrap(), trust, Arc::new(SystemLookup))
    }

    #[test]
    fn every_spelling_of_the_loopback_a_url_parser_accepts_is_refused() {
        let policy = policy("");
        for raw in [
            "http://127.0.0.1:8080/v1",
            "http://127.1:8080/v1",
            "http://0x7f000001:8080/v1",
            "http://2130706433:8080/v1",
            "http://0177.0.0.1:8080/v1",
            "http://0x7f.1:8080/v1",
            "http://[::1]:8080/v1",
            "http://[::ffff:127.0.0.1]:8080/v1",
            "http://[::127.0.0.1]:8080/v1",
            "http://[64:ff9b::7f00:1]:8080/v1",
            "http://0.0.0.0:8080/v1",
            "http://0:8080/v1",
            "http://169.254.169.254/latest/meta-data",
            "http://100.100.100.200/",
            "http://[fe80::1]/",
        ] {
            let url = url::Url::parse(raw).unwrap();
            let refusal = policy.check_literal(Reach::PublicOnly, &url).expect_err(raw);
            assert!(refusal.to_string().contains("connector-allow"), "{raw}: {refusal}");
            assert!(policy.check_literal(Reach::Anywhere, &url).is_ok(), "{raw}");
        }
        let public = url::Url::parse("http://8.8.8.8/v1").unwrap();
        assert!(policy.check_literal(Reach::PublicOnly, &public).is_ok());
    }

    #[test]
    fn a_refusal_says_what_the_address_is_and_which_setting_allows_it() {
        let url = url::Url::parse("http://2130706433:9/v1").unwrap();
        let refusal = policy("").check_literal(Reach::PublicOnly, &url).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "refused: 127.0.0.1 is a loopback address; this workspace may reach public addresses only (the \
             server's operator can allow a host or range with the connector-allow setting)"
        );
        let named = Refusal { host: "internal.lan".into(), ..refusal };
        let said = named.to_string();
        assert!(said.starts_with("refused: internal.lan resolves to an address that is not public;"), "{said}");
        assert!(!said.contains("127.0.0.1") && !said.contains("loopback"), "what the name resolves to is not said");
    }

    #[test]
    fn the_trusted_owners_reach_anywhere_and_everyone_else_public_addresses_only() {
        let policy = policy("");
        assert_eq!(policy.reach_of("local:owner"), Reach::Anywhere);
        assert_eq!(policy.reach_of("0xab@wallet.local"), Reach::PublicOnly);
        assert_eq!(policy.reach_of(""), Reach::PublicOnly);
        let everyone = AddressPolicy::new(AllowRules::none("x"), Trust::Everyone, Arc::new(SystemLookup));
        assert_eq!(everyone.reach_of("0xab@wallet.local"), Reach::Anywhere);
    }

    #[test]
    fn an_allowed_range_lets_its_addresses_through() {
        let policy = policy("127.0.0.0/8");
        let url = url::Url::parse("http://127.0.0.1:8080/v1").unwrap();
        assert!(policy.check_literal(Reach::PublicOnly, &url).is_ok());
        let v6 = url::Url::parse("http://[::1]:8080/v1").unwrap();
        assert!(policy.check_literal(Reach::PublicOnly, &v6).is_err());
    }
}
