//! Slowing down password guessing: login attempts counted per client, and how the client of
//! a request is told, by its address or, behind the TLS proxy, by what the proxy says.
//!
//! Behind the TLS proxy every connection comes from the proxy, so there the client is the
//! address the proxy appended to `X-Forwarded-For` (or named in `Forwarded`), believed only
//! when the connection comes from the proxy.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::{Duration, Instant};

use actix_web::http::header;
use actix_web::HttpRequest;

use crate::web::proxy::{self, canonical, Proxy};

/// Logins a client may try in any [`LOGIN_WINDOW`]; a success wipes its count.
const LOGINS_PER_WINDOW: usize = 5;
const LOGIN_WINDOW: Duration = Duration::from_secs(60);

/// Recent login attempts per client. Every attempt counts until it succeeds; counting it
/// before the password is checked means parallel guesses cannot slip past the limit.
#[derive(Default)]
pub struct LoginAttempts {
    by_client: HashMap<IpAddr, VecDeque<Instant>>,
}

impl LoginAttempts {
    /// Counts an attempt by `client`, or answers how long it must wait for its next one.
    pub fn admit(&mut self, client: IpAddr, now: Instant) -> Result<(), Duration> {
        let is_recent = |at: &Instant| now.duration_since(*at) < LOGIN_WINDOW;
        // Forget clients with no recent attempt, so the table holds only the last window.
        self.by_client
            .retain(|_, attempts| attempts.back().is_some_and(is_recent));
        let attempts = self.by_client.entry(client).or_default();
        while attempts.front().is_some_and(|at| !is_recent(at)) {
            attempts.pop_front();
        }
        match attempts.front() {
            Some(oldest) if attempts.len() >= LOGINS_PER_WINDOW => {
                Err(LOGIN_WINDOW - now.duration_since(*oldest))
            }
            _ => {
                attempts.push_back(now);
                Ok(())
            }
        }
    }

    pub fn succeeded(&mut self, client: IpAddr) {
        self.by_client.remove(&client);
    }
}

/// How the client of a request is told: by the peer's address, or behind the TLS proxy by
/// what the proxy says.
#[derive(Debug, Clone, Default)]
pub struct Clients {
    proxy: Proxy,
}

impl Clients {
    pub fn new(proxy: Proxy) -> Clients {
        Clients { proxy }
    }

    /// Who counts as one client: its address, and for IPv6 its /64 network, which one host
    /// usually has whole. The address is the peer's, unless the peer is the TLS proxy and
    /// says whose request it passes on. A client cannot speak for itself: what it puts in
    /// those headers comes before the entry the proxy appends, and a connection that does not
    /// come from the proxy is taken at its own address.
    pub fn of(&self, request: &HttpRequest) -> IpAddr {
        let Some(peer) = request.peer_addr().map(|peer| canonical(peer.ip())) else {
            return IpAddr::V4(Ipv4Addr::UNSPECIFIED);
        };
        let forwarded = if self.proxy.is(peer) {
            let client = forwarded_client(request.headers());
            if client.is_none() {
                tracing::warn!(
                    %peer,
                    "the TLS proxy did not say whose request it passes on: set X-Forwarded-For"
                );
            }
            client
        } else {
            None
        };
        client_network(forwarded.unwrap_or(peer))
    }
}

/// The client a proxy names: the last entry of the last `X-Forwarded-For` (the one the proxy
/// appended), or without that header the last element's `for=` of `Forwarded`.
fn forwarded_client(headers: &header::HeaderMap) -> Option<IpAddr> {
    parse_node(proxy::forwarded(headers, "x-forwarded-for", "for")?)
}

/// An address as proxies write it: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1` or
/// `[2001:db8::1]:4711`.
fn parse_node(node: &str) -> Option<IpAddr> {
    let node = node.trim();
    node.parse::<IpAddr>()
        .ok()
        .or_else(|| node.parse::<SocketAddr>().ok().map(|socket| socket.ip()))
        .or_else(|| {
            let inner = node.strip_prefix('[')?.strip_suffix(']')?;
            inner.parse::<IpAddr>().ok()
        })
        .map(canonical)
}

fn client_network(ip: IpAddr) -> IpAddr {
    match canonical(ip) {
        IpAddr::V6(ip) => IpAddr::V6(Ipv6Addr::from_bits(ip.to_bits() & !u128::from(u64::MAX))),
        ipv4 => ipv4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLIENT: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));

    #[test]
    fn the_sixth_attempt_in_a_minute_waits_for_the_first_to_expire() {
        let mut logins = LoginAttempts::default();
        let start = Instant::now();
        for second in 0..5 {
            let at = start + Duration::from_secs(second);
            assert_eq!(logins.admit(CLIENT, at), Ok(()), "attempt at {second} s");
        }
        let sixth = start + Duration::from_secs(10);
        assert_eq!(logins.admit(CLIENT, sixth), Err(Duration::from_secs(50)));
        let other = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 2));
        assert_eq!(logins.admit(other, sixth), Ok(()));
        // A minute after the first attempt, one more is allowed, and only one.
        let later = start + LOGIN_WINDOW;
        assert_eq!(logins.admit(CLIENT, later), Ok(()));
        assert_eq!(logins.admit(CLIENT, later), Err(Duration::from_secs(1)));
    }

    #[test]
    fn a_success_clears_the_count_and_old_clients_are_forgotten() {
        let mut logins = LoginAttempts::default();
        let start = Instant::now();
        for _ in 0..4 {
            logins.admit(CLIENT, start).expect("admitted");
        }
        logins.succeeded(CLIENT);
        for _ in 0..5 {
            logins
                .admit(CLIENT, start)
                .expect("admitted after a success");
        }
        let other = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 2));
        logins.admit(other, start + LOGIN_WINDOW).expect("admitted");
        assert_eq!(logins.by_client.len(), 1);
    }

    #[test]
    fn an_ipv6_client_is_its_slash_64() {
        let ip = |text: &str| text.parse::<IpAddr>().expect("an address");
        assert_eq!(client_network(ip("192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(client_network(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(
            client_network(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")),
            ip("2001:db8:1:2::")
        );
    }

    #[test]
    fn the_client_is_the_entry_the_proxy_appended() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = header::HeaderMap::new();
            for (name, value) in pairs {
                map.append(
                    header::HeaderName::from_static(name),
                    header::HeaderValue::from_static(value),
                );
            }
            map
        };
        let ip = |text: &str| text.parse::<IpAddr>().expect("an address");
        let client = |pairs| forwarded_client(&headers(pairs));
        assert_eq!(
            client(&[("x-forwarded-for", "192.0.2.7")]),
            Some(ip("192.0.2.7"))
        );
        assert_eq!(
            client(&[("x-forwarded-for", "10.0.0.1, 192.0.2.7")]),
            Some(ip("192.0.2.7"))
        );
        assert_eq!(
            client(&[
                ("x-forwarded-for", "10.0.0.1"),
                ("x-forwarded-for", "198.51.100.1, [2001:db8::5]:4711")
            ]),
            Some(ip("2001:db8::5"))
        );
        assert_eq!(
            client(&[(
                "forwarded",
                "for=10.0.0.1, for=\"192.0.2.60:8080\";proto=https"
            )]),
            Some(ip("192.0.2.60"))
        );
        assert_eq!(
            client(&[("x-forwarded-for", "::ffff:192.0.2.9")]),
            Some(ip("192.0.2.9"))
        );
        assert_eq!(client(&[("x-forwarded-for", "unknown")]), None);
        assert_eq!(client(&[]), None);
    }
}
