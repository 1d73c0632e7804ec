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

use crate::domain::RaterName;
use crate::web::proxy::{self, canonical, Proxy};

/// Failed logins a client, or a name, may have in any [`LOGIN_WINDOW`].
const LOGINS_PER_WINDOW: usize = 5;
const LOGIN_WINDOW: Duration = Duration::from_secs(60);

/// Recent login attempts, per client and per name signed in as (the owner's is `owner`).
/// Every attempt counts from before its password is checked, so that parallel guesses cannot
/// slip past the limit; a success then takes its own attempt back from its client's count and
/// clears its name's, and nothing else: a rater who knows their own password cannot wipe the
/// failures of their guesses at another's.
#[derive(Default)]
pub struct LoginAttempts {
    by_client: HashMap<IpAddr, VecDeque<Instant>>,
    by_name: HashMap<String, VecDeque<Instant>>,
}

/// An attempt counted, for [`LoginAttempts::succeeded`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    client: IpAddr,
    name: String,
    at: Instant,
}

/// Why an attempt was not admitted, and how long to wait for the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TooMany {
    /// From this client.
    FromClient(Duration),
    /// At this name.
    AtName(Duration),
}

impl LoginAttempts {
    /// Counts an attempt by `client` to sign in as `name` (its [`login_name`]), or answers
    /// which limit it met and how long to wait.
    pub fn admit(&mut self, client: IpAddr, name: &str, now: Instant) -> Result<Attempt, TooMany> {
        let is_recent = |at: &Instant| now.duration_since(*at) < LOGIN_WINDOW;
        // Forget clients and names with no recent attempt, so the tables hold only the last
        // window.
        self.by_client
            .retain(|_, attempts| attempts.back().is_some_and(is_recent));
        self.by_name
            .retain(|_, attempts| attempts.back().is_some_and(is_recent));
        let wait = |attempts: &mut VecDeque<Instant>| {
            while attempts.front().is_some_and(|at| !is_recent(at)) {
                attempts.pop_front();
            }
            match attempts.front() {
                Some(oldest) if attempts.len() >= LOGINS_PER_WINDOW => {
                    Some(LOGIN_WINDOW - now.duration_since(*oldest))
                }
                _ => None,
            }
        };
        let by_client = self.by_client.entry(client).or_default();
        if let Some(wait) = wait(by_client) {
            return Err(TooMany::FromClient(wait));
        }
        let by_name = self.by_name.entry(name.to_owned()).or_default();
        if let Some(wait) = wait(by_name) {
            return Err(TooMany::AtName(wait));
        }
        by_name.push_back(now);
        self.by_client.entry(client).or_default().push_back(now);
        Ok(Attempt {
            client,
            name: name.to_owned(),
            at: now,
        })
    }

    /// `attempt` signed in: it was no failure, and its name's failures are forgotten.
    pub fn succeeded(&mut self, attempt: &Attempt) {
        if let Some(attempts) = self.by_client.get_mut(&attempt.client) {
            if let Some(index) = attempts.iter().position(|at| *at == attempt.at) {
                attempts.remove(index);
            }
        }
        self.by_name.remove(&attempt.name);
    }
}

/// The name a login attempt counts against: a rater's as a person sees it (so that `ann` and
/// `Ann` share one count, see [`RaterName::likeness`]), or as typed when it is no name.
pub fn login_name(name: &str) -> String {
    match RaterName::new(name) {
        Ok(name) => name.likeness(),
        Err(_) => name.to_owned(),
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

    /// Who counts as one client: its address, for IPv6 its /64 network, which one host
    /// usually has whole, and for any loopback address (127.0.0.0/8, ::1) this machine. The address is the peer's, unless the peer is the TLS proxy and
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
        // Every user of this machine may connect from any of them.
        ip if ip.is_loopback() => IpAddr::V4(Ipv4Addr::LOCALHOST),
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
            let name = format!("name {second}");
            assert!(
                logins.admit(CLIENT, &name, at).is_ok(),
                "attempt at {second} s"
            );
        }
        let sixth = start + Duration::from_secs(10);
        assert_eq!(
            logins.admit(CLIENT, "another", sixth),
            Err(TooMany::FromClient(Duration::from_secs(50)))
        );
        let other = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 2));
        assert!(logins.admit(other, "another", sixth).is_ok());
        // A minute after the first attempt, one more is allowed, and only one.
        let later = start + LOGIN_WINDOW;
        assert!(logins.admit(CLIENT, "more", later).is_ok());
        assert_eq!(
            logins.admit(CLIENT, "more", later),
            Err(TooMany::FromClient(Duration::from_secs(1)))
        );
    }

    #[test]
    fn a_name_has_five_failures_a_minute_from_any_client() {
        let mut logins = LoginAttempts::default();
        let start = Instant::now();
        for client in 1..=5 {
            let client = IpAddr::V4(Ipv4Addr::new(192, 0, 2, client));
            assert!(logins.admit(client, "bo", start).is_ok());
        }
        let sixth = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 6));
        assert_eq!(
            logins.admit(sixth, "bo", start),
            Err(TooMany::AtName(LOGIN_WINDOW))
        );
        assert!(logins.admit(sixth, "ann", start).is_ok());
    }

    #[test]
    fn a_success_clears_its_own_name_only() {
        let mut logins = LoginAttempts::default();
        let start = Instant::now();
        for _ in 0..4 {
            logins.admit(CLIENT, "bo", start).expect("admitted");
        }
        let own = logins.admit(CLIENT, "ann", start).expect("admitted");
        logins.succeeded(&own);
        // Ann's success was no failure of the address, and leaves Bo's failures counted.
        assert!(logins.admit(CLIENT, "bo", start).is_ok());
        assert_eq!(
            logins.admit(CLIENT, "bo", start),
            Err(TooMany::FromClient(LOGIN_WINDOW))
        );
        let other = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 2));
        assert_eq!(
            logins.admit(other, "bo", start),
            Err(TooMany::AtName(LOGIN_WINDOW))
        );
        logins
            .admit(other, "cleo", start + LOGIN_WINDOW)
            .expect("admitted");
        assert_eq!(logins.by_client.len(), 1);
        assert_eq!(logins.by_name.len(), 1);
    }

    #[test]
    fn a_login_counts_against_the_name_as_a_person_sees_it() {
        assert_eq!(login_name("Ann"), login_name("ann"));
        assert_eq!(login_name("Jose\u{301}"), login_name("Jos\u{e9}"));
        assert_eq!(login_name(" "), " ");
    }

    #[test]
    fn an_ipv6_client_is_its_slash_64_and_loopback_is_one_client() {
        let ip = |text: &str| text.parse::<IpAddr>().expect("an address");
        assert_eq!(client_network(ip("192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(client_network(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(
            client_network(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")),
            ip("2001:db8:1:2::")
        );
        for loopback in [
            "127.0.0.1",
            "127.0.0.2",
            "127.255.1.9",
            "::1",
            "::ffff:127.0.0.3",
        ] {
            assert_eq!(client_network(ip(loopback)), ip("127.0.0.1"), "{loopback}");
        }
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
