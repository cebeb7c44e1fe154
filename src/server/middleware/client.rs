//! Which client a request came from, for the budgets counted per client: the last entry of the configured proxy
//! header (`client-ip-header`), else the peer address.

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use crate::config::Settings;

/// The client a request counts against.
pub fn client_address(parts: &Parts, settings: &Settings) -> IpAddr {
    let from_proxy = settings.client_ip_header.as_ref().and_then(|name| {
        let values = parts.headers.get_all(name).iter().filter_map(|v| v.to_str().ok());
        values.flat_map(|v| v.split(',')).next_back().and_then(|last| last.trim().parse().ok())
    });
    let peer = || parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(addr)| addr.ip());
    from_proxy.or_else(peer).unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}
