//! Which IP addresses are not public: the IANA special-purpose ranges a service open to the internet must not let a
//! user reach, in every spelling an address can take once parsed (IPv4-mapped, IPv4-compatible, NAT64, 6to4 and
//! Teredo IPv6 addresses carry an IPv4 address inside and are judged by it).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not a public one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InternalKind {
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10/8`, `172.16/12`, `192.168/16`, `fc00::/7`, the deprecated site-local `fec0::/10` and local-use NAT64.
    Private,
    /// `169.254/16`, `fe80::/10`.
    LinkLocal,
    /// `100.64/10`: carrier-grade NAT, shared by a provider's customers.
    Shared,
    /// `0.0.0.0/8`, `::`: "this host" (Linux connects `0.0.0.0` to the loopback).
    Unspecified,
    /// `224/4`, `ff00::/8`, `255.255.255.255`.
    Multicast,
    /// `192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`.
    Documentation,
    /// `198.18/15`, `2001:2::/48`.
    Benchmarking,
    /// Everything else set aside by IANA: `192.0.0/24`, `240/4`, the 6to4 relay anycast, `100::/64`,
    /// IPv4-compatible IPv6 addresses.
    Reserved,
}

impl fmt::Display for InternalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Loopback => "a loopback address",
            Self::Private => "a private address",
            Self::LinkLocal => "a link-local address",
            Self::Shared => "a shared (carrier-grade NAT) address",
            Self::Unspecified => "an unspecified address (this host)",
            Self::Multicast => "a multicast or broadcast address",
            Self::Documentation => "a documentation address",
            Self::Benchmarking => "a benchmarking address",
            Self::Reserved => "a reserved address",
        })
    }
}

/// Why `ip` is not public, or `None` for a public address.
pub fn internal_kind(ip: IpAddr) -> Option<InternalKind> {
    match ip {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => v6_kind(v6),
    }
}

fn v4_kind(ip: Ipv4Addr) -> Option<InternalKind> {
    let [a, b, c, _] = ip.octets();
    let kind = match (a, b, c) {
        (0, ..) => InternalKind::Unspecified,
        (127, ..) => InternalKind::Loopback,
        (10, ..) | (172, 16..=31, _) | (192, 168, _) => InternalKind::Private,
        (169, 254, _) => InternalKind::LinkLocal,
        (100, 64..=127, _) => InternalKind::Shared,
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => InternalKind::Documentation,
        (198, 18..=19, _) => InternalKind::Benchmarking,
        (224..=239, ..) => InternalKind::Multicast,
        _ if ip.is_broadcast() => InternalKind::Multicast,
        (240..=255, ..) | (192, 0, 0) | (192, 88, 99) => InternalKind::Reserved,
        _ => return None,
    };
    Some(kind)
}

fn v6_kind(ip: Ipv6Addr) -> Option<InternalKind> {
    let s = ip.segments();
    let embedded = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    if ip.is_unspecified() {
        return Some(InternalKind::Unspecified);
    }
    if ip.is_loopback() {
        return Some(InternalKind::Loopback);
    }
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_kind(v4);
    }
    let kind = match s {
        // IPv4-compatible (`::a.b.c.d`, deprecated by RFC 4291): never a real destination, so never reachable.
        [0, 0, 0, 0, 0, 0, ..] => return v4_kind(embedded(s[6], s[7])).or(Some(InternalKind::Reserved)),
        // NAT64, well-known prefix: the gateway forwards to the embedded IPv4 address.
        [0x64, 0xff9b, 0, 0, 0, 0, ..] => return v4_kind(embedded(s[6], s[7])),
        // Local-use NAT64 (RFC 8215): a network's own translator, whatever it embeds.
        [0x64, 0xff9b, 1, ..] => InternalKind::Private,
        // 6to4: the IPv4 address follows the prefix.
        [0x2002, high, low, ..] => return v4_kind(embedded(high, low)),
        [0x2001, 0xdb8, ..] => InternalKind::Documentation,
        [0x2001, 2, 0, ..] => InternalKind::Benchmarking,
        // Teredo: the client's IPv4 address is the last 32 bits, inverted.
        [0x2001, 0, ..] => return v4_kind(embedded(!s[6], !s[7])),
        [0x100, 0, 0, 0, ..] => InternalKind::Reserved,
        [first, ..] if first & 0xfe00 == 0xfc00 => InternalKind::Private,
        [first, ..] if first & 0xffc0 == 0xfe80 => InternalKind::LinkLocal,
        [first, ..] if first & 0xffc0 == 0xfec0 => InternalKind::Private,
        [first, ..] if first & 0xff00 == 0xff00 => InternalKind::Multicast,
        _ => return None,
    };
    Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Option<InternalKind> {
        internal_kind(text.parse().unwrap())
    }

    #[test]
    fn every_special_range_in_every_spelling_is_named() {
        use InternalKind::*;
        let table: &[(&str, Option<InternalKind>)] = &[
            ("127.0.0.1", Some(Loopback)),
            ("127.255.255.254", Some(Loopback)),
            ("0.0.0.0", Some(Unspecified)),
            ("0.1.2.3", Some(Unspecified)),
            ("10.1.2.3", Some(Private)),
            ("172.16.0.1", Some(Private)),
            ("172.31.255.255", Some(Private)),
            ("192.168.1.1", Some(Private)),
            ("169.254.169.254", Some(LinkLocal)),
            ("100.64.0.1", Some(Shared)),
            ("100.127.255.255", Some(Shared)),
            ("192.0.2.1", Some(Documentation)),
            ("198.51.100.7", Some(Documentation)),
            ("203.0.113.9", Some(Documentation)),
            ("198.18.0.1", Some(Benchmarking)),
            ("224.0.0.1", Some(Multicast)),
            ("255.255.255.255", Some(Multicast)),
            ("240.0.0.1", Some(Reserved)),
            ("192.0.0.8", Some(Reserved)),
            ("::1", Some(Loopback)),
            ("::", Some(Unspecified)),
            ("::ffff:127.0.0.1", Some(Loopback)),
            ("::ffff:10.0.0.1", Some(Private)),
            ("::127.0.0.1", Some(Loopback)),
            ("::169.254.169.254", Some(LinkLocal)),
            ("::8.8.8.8", Some(Reserved)),
            ("64:ff9b::127.0.0.1", Some(Loopback)),
            ("64:ff9b::a9fe:a9fe", Some(LinkLocal)),
            ("64:ff9b:1::1", Some(Private)),
            ("2002:7f00:1::", Some(Loopback)),
            ("2002:c0a8:101::1", Some(Private)),
            ("2001:0:4136:e378:8000:63bf:80ff:fffe", Some(Loopback)),
            ("fd00::1", Some(Private)),
            ("fc00::1", Some(Private)),
            ("fe80::1", Some(LinkLocal)),
            ("fec0::1", Some(Private)),
            ("ff02::1", Some(Multicast)),
            ("2001:db8::1", Some(Documentation)),
            ("100::1", Some(Reserved)),
            // Public, in the same spellings.
            ("8.8.8.8", None),
            ("1.1.1.1", None),
            ("172.32.0.1", None),
            ("100.128.0.1", None),
            ("::ffff:8.8.8.8", None),
            ("64:ff9b::808:808", None),
            ("2002:808:808::", None),
            ("2606:4700:4700::1111", None),
        ];
        for (text, expected) in table {
            assert_eq!(kind(text), *expected, "{text}");
        }
    }
}
