//! Which client a request came from, for the budgets counted per client and for `/metrics`' loopback rule: the last
//! entry of the configured proxy header (`client-ip-header`), else the peer address. The entry may be spelled as
//! proxies spell it — `203.0.113.9`, `203.0.113.9:4711`, `2001:db8::1`, `[2001:db8::1]:4711`, or RFC 7239's
//! `for=…` (`Forwarded: for="[2001:db8::1]:4711";proto=https`). An entry in none of these forms (`unknown`, an
//! obfuscated `_node`, garbage) is a client nobody can name: never the peer, which behind a proxy on the same host
//! is loopback and would open `/metrics` and share the proxy's own budget.

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use crate::config::Settings;

/// What stands for a client the proxy named in a form that is not an address: not loopback, and one budget for all
/// such clients.
pub const UNNAMED_CLIENT: IpAddr = IpAddr::V4(Ipv4Addr::UNSPECIFIED);

/// The client a request counts against.
pub fn client_address(parts: &Parts, settings: &Settings) -> IpAddr {
    let peer = || parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(addr)| addr.ip());
    let named = settings.client_ip_header.as_ref().and_then(|name| {
        let values = parts.headers.get_all(name).iter();
        // A value that is not even text is a named client in no readable form.
        let entries = values.map(|v| v.to_str().unwrap_or("\u{0}")).flat_map(|v| v.split(','));
        entries.map(str::trim).rfind(|e| !e.is_empty())
    });
    match named {
        Some(entry) => parse_client_entry(entry).unwrap_or(UNNAMED_CLIENT),
        None => peer().unwrap_or(UNNAMED_CLIENT),
    }
}

/// One entry of a proxy's client header as an address: bare, with a port, bracketed IPv6 with or without a port, or
/// an RFC 7239 element whose `for` parameter is one of those (quoted or not). `None` for anything else.
pub fn parse_client_entry(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    let node = match entry.split(';').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        name.trim().eq_ignore_ascii_case("for").then_some(value.trim())
    }) {
        Some(value) => value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value),
        None if entry.contains('=') => return None,
        None => entry,
    };
    if let Ok(ip) = node.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Some(rest) = node.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        let port_ok = after.is_empty() || after.strip_prefix(':').is_some_and(is_port);
        return port_ok.then(|| inside.parse::<std::net::Ipv6Addr>().ok().map(IpAddr::V6)).flatten();
    }
    let (host, port) = node.rsplit_once(':')?;
    (is_port(port)).then(|| host.parse::<Ipv4Addr>().ok().map(IpAddr::V4)).flatten()
}

fn is_port(text: &str) -> bool {
    !text.is_empty() && text.len() <= 5 && text.bytes().all(|b| b.is_ascii_digit()) && text.parse::<u16>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxys_entry_is_read_in_every_usual_form_and_nothing_else_is_an_address() {
        let v4 = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        let table: [(&str, Option<IpAddr>); 22] = [
            ("203.0.113.9", v4("203.0.113.9")),
            (" 203.0.113.9 ", v4("203.0.113.9")),
            ("203.0.113.9:4711", v4("203.0.113.9")),
            ("2001:db8::1", v4("2001:db8::1")),
            ("::1", v4("::1")),
            ("[::1]", v4("::1")),
            ("[2001:db8::1]:4711", v4("2001:db8::1")),
            ("for=192.0.2.60", v4("192.0.2.60")),
            ("For=192.0.2.60;proto=http;by=203.0.113.43", v4("192.0.2.60")),
            ("proto=https;for=\"192.0.2.60:8080\"", v4("192.0.2.60")),
            ("for=\"[2001:db8:cafe::17]:4711\"", v4("2001:db8:cafe::17")),
            ("for=\"[2001:db8:cafe::17]\"", v4("2001:db8:cafe::17")),
            ("for=unknown", None),
            ("for=_hidden", None),
            ("proto=https;by=203.0.113.43", None),
            ("unknown", None),
            ("203.0.113.9:port", None),
            ("203.0.113.9:99999", None),
            ("[::1]x", None),
            ("[not-v6]:80", None),
            ("localhost", None),
            ("2001:db8::1:80:", None),
        ];
        for (entry, expected) in table {
            assert_eq!(parse_client_entry(entry), expected, "{entry:?}");
        }
    }

    #[test]
    fn an_unreadable_entry_is_never_loopback() {
        assert!(!UNNAMED_CLIENT.is_loopback());
    }
}
