//! What an operator allows beyond the public internet: host names, IP addresses and CIDR ranges, read from a
//! comma-separated setting (`connector-allow`, `webhook-allow`), plus exact socket addresses the server itself
//! serves (the demo simulator).

use std::net::{IpAddr, SocketAddr};

/// An entry of an allow setting that is neither a host name, an IP address nor a CIDR range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{setting}: {entry:?} is not a host name, an IP address or a CIDR range ({reason})")]
pub struct AllowRuleError {
    /// The setting's name.
    pub setting: &'static str,
    /// The entry as written.
    pub entry: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// An IP range: an address and how many leading bits must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    network: IpAddr,
    prefix: u8,
}

impl Range {
    fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        match (self.network, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => leading_match(&net.octets(), &ip.octets(), self.prefix),
            (IpAddr::V6(net), IpAddr::V6(ip)) => leading_match(&net.octets(), &ip.octets(), self.prefix),
            _ => false,
        }
    }
}

/// An IPv4-mapped IPv6 address is its IPv4 address: a rule written either way matches both spellings.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

fn leading_match(a: &[u8], b: &[u8], bits: u8) -> bool {
    let whole = usize::from(bits / 8);
    let rest = bits % 8;
    if a[..whole] != b[..whole] {
        return false;
    }
    rest == 0 || {
        let mask = 0xffu8 << (8 - rest);
        a[whole] & mask == b[whole] & mask
    }
}

/// The destinations an operator allows besides public addresses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowRules {
    /// The setting they were read from, named in refusals.
    setting: &'static str,
    hosts: Vec<String>,
    ranges: Vec<Range>,
    sockets: Vec<SocketAddr>,
}

impl AllowRules {
    /// No exceptions; refusals name `setting` as the place to add one.
    pub fn none(setting: &'static str) -> Self {
        Self { setting, ..Self::default() }
    }

    /// Reads `setting`'s comma-separated entries: `host.name`, `10.0.0.5`, `[::1]`, `10.0.0.0/8`, `fd00::/8`.
    pub fn parse(setting: &'static str, text: &str) -> Result<Self, AllowRuleError> {
        let mut rules = Self::none(setting);
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let error = |reason| AllowRuleError { setting, entry: entry.to_string(), reason };
            let bare = entry.trim_start_matches('[').trim_end_matches(']');
            if entry.contains("://") {
                return Err(error("write the host alone, not a URL"));
            }
            if let Some((address, bits)) = bare.split_once('/') {
                let network: IpAddr = address.parse().map_err(|_| error("the part before / is not an IP address"))?;
                let prefix: u8 = bits.parse().map_err(|_| error("the prefix length is not a number"))?;
                let max = if network.is_ipv4() { 32 } else { 128 };
                if prefix > max {
                    return Err(error("the prefix length is longer than the address"));
                }
                rules.ranges.push(Range { network: canonical(network), prefix });
            } else if let Ok(ip) = bare.parse::<IpAddr>() {
                let ip = canonical(ip);
                rules.ranges.push(Range { network: ip, prefix: if ip.is_ipv4() { 32 } else { 128 } });
            } else if is_host_name(bare) {
                rules.hosts.push(bare.trim_end_matches('.').to_ascii_lowercase());
            } else {
                return Err(error("host names hold only letters, digits, '-' and '.'"));
            }
        }
        Ok(rules)
    }

    /// These rules and one exact address (an IP and a port) the server itself serves.
    pub fn with_socket(mut self, address: SocketAddr) -> Self {
        self.sockets.push(address);
        self
    }

    /// The setting refusals point to.
    pub fn setting(&self) -> &'static str {
        self.setting
    }

    /// Whether `ip`, reached as `host` (a name or an address as written in a URL), is allowed. `port` is known
    /// when the address is checked before connecting; a resolver sees names only, and exact socket rules then
    /// do not apply.
    pub fn allows(&self, host: &str, ip: IpAddr, port: Option<u16>) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']').trim_end_matches('.').to_ascii_lowercase();
        self.hosts.contains(&host)
            || self.ranges.iter().any(|range| range.contains(ip))
            || port
                .is_some_and(|port| self.sockets.iter().any(|s| canonical(s.ip()) == canonical(ip) && s.port() == port))
    }
}

fn is_host_name(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 253
        && text.split('.').filter(|label| !label.is_empty()).count() > 0
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn hosts_addresses_and_ranges_match_what_they_name() {
        let rules =
            AllowRules::parse("connector-allow", " gpu-box.lan, 10.0.0.0/8 ,[::1], 192.168.1.5,fd00::/16").unwrap();
        let table = [
            ("gpu-box.lan", "192.168.9.9", true),
            ("GPU-BOX.lan.", "192.168.9.9", true),
            ("other.lan", "192.168.9.9", false),
            ("10.200.0.1", "10.200.0.1", true),
            ("11.0.0.1", "11.0.0.1", false),
            ("[::1]", "::1", true),
            ("x", "::ffff:10.1.1.1", true),
            ("x", "192.168.1.5", true),
            ("x", "192.168.1.6", false),
            ("x", "fd00:1::1", true),
            ("x", "fd01::1", false),
            ("x", "127.0.0.1", false),
        ];
        for (host, address, allowed) in table {
            assert_eq!(rules.allows(host, ip(address), Some(80)), allowed, "{host} at {address}");
        }
    }

    #[test]
    fn a_socket_rule_allows_that_port_only_and_only_when_the_port_is_known() {
        let rules = AllowRules::none("connector-allow").with_socket("127.0.0.1:8100".parse().unwrap());
        assert!(rules.allows("127.0.0.1", ip("127.0.0.1"), Some(8100)));
        assert!(rules.allows("::ffff:127.0.0.1", ip("::ffff:127.0.0.1"), Some(8100)));
        assert!(!rules.allows("127.0.0.1", ip("127.0.0.1"), Some(8101)));
        assert!(!rules.allows("localhost", ip("127.0.0.1"), None));
    }

    #[test]
    fn malformed_entries_are_named() {
        for (text, reason) in [
            ("10.0.0.0/33", "the prefix length is longer than the address"),
            ("10.0.0/8", "the part before / is not an IP address"),
            ("10.0.0.0/x", "the prefix length is not a number"),
            ("http://host", "write the host alone, not a URL"),
            ("a b", "host names hold only letters, digits, '-' and '.'"),
        ] {
            let error = AllowRules::parse("connector-allow", text).unwrap_err();
            assert_eq!(error.reason, reason, "{text}");
            assert!(error.to_string().starts_with("connector-allow: "), "{error}");
        }
    }

    #[test]
    fn a_range_ignores_the_bits_past_its_prefix() {
        let rules = AllowRules::parse("connector-allow", "172.16.0.0/12").unwrap();
        assert!(rules.allows("x", ip("172.31.255.255"), None));
        assert!(!rules.allows("x", ip("172.32.0.0"), None));
    }
}
