//! The TLS proxy in front of the app (`--behind-tls`): which peers are it, and what it says of
//! the requests it passes on (the client, the host the browser asked for), which is believed
//! only on a connection from it. Anyone else can write those headers too.

use std::net::IpAddr;

use actix_web::http::header::HeaderMap;
use actix_web::{web, HttpRequest};

/// The proxy, if any: app data, from [`super::Access`].
#[derive(Debug, Clone, Default)]
pub struct Proxy {
    behind_tls: bool,
    /// The proxy's addresses; empty means any loopback address (a proxy on this machine).
    trusted: Vec<IpAddr>,
}

impl Proxy {
    pub fn new(behind_tls: bool, trusted: Vec<IpAddr>) -> Proxy {
        let trusted = trusted.into_iter().map(canonical).collect();
        Proxy {
            behind_tls,
            trusted,
        }
    }

    /// The proxy of the app that answers `request`.
    pub fn of(request: &HttpRequest) -> Option<&Proxy> {
        request
            .app_data::<web::Data<Proxy>>()
            .map(|proxy| &***proxy)
    }

    /// A proxy serves the app over HTTPS: the cookies are marked `Secure`, and the browser's
    /// origin is `https`.
    pub fn behind_tls(&self) -> bool {
        self.behind_tls
    }

    /// Whether `peer` (canonical, see [`canonical`]) is the proxy.
    pub fn is(&self, peer: IpAddr) -> bool {
        self.behind_tls
            && if self.trusted.is_empty() {
                peer.is_loopback()
            } else {
                self.trusted.contains(&peer)
            }
    }

    /// Whether `request` comes from the proxy, so that what it forwards is believed.
    pub fn sent(&self, request: &HttpRequest) -> bool {
        (request.peer_addr()).is_some_and(|peer| self.is(canonical(peer.ip())))
    }
}

/// An IPv4 address written as IPv6 (`::ffff:192.0.2.1`), as a dual-stack socket reports it,
/// is the IPv4 address.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// What a proxy forwards in `x_forwarded` (`x-forwarded-for`, `x-forwarded-host`), or
/// without that header as the `parameter` (`for`, `host`) of `Forwarded`: the right-most
/// entry of the last header, the one the proxy itself added (a client's own claims come
/// before it).
pub fn forwarded<'h>(
    headers: &'h HeaderMap,
    x_forwarded: &str,
    parameter: &str,
) -> Option<&'h str> {
    let last_entry = |name: &str| {
        headers
            .get_all(name)
            .filter_map(|value| value.to_str().ok())
            .last()
            .and_then(|value| value.rsplit(',').next())
            .map(str::trim)
    };
    if let Some(entry) = last_entry(x_forwarded) {
        return Some(entry);
    }
    let element = last_entry("forwarded")?;
    let value = element.split(';').find_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        name.eq_ignore_ascii_case(parameter).then_some(value)
    })?;
    Some(value.trim_matches('"'))
}
