//! The names the server answers to, against DNS rebinding.
//!
//! A page of any site can have its own name point at this machine once a browser has loaded
//! it (`evil.example` resolving to 127.0.0.1): the browser then sends the page's requests here
//! and hands it the answers, as if they came from the page's own site, so that the page reads
//! every page and its forms' tokens, and its posts come with its own origin, which the CSRF
//! checks take for this server's. What gives it away is the `Host`, which names the page's
//! site. So the app answers only the names it knows, and 421 to any other: `localhost` and the
//! loopback addresses on the port it listens on, and the names given with `serve --host` (on
//! any port: behind a proxy the port is the proxy's), which the command line takes only with a
//! password or behind TLS.
//!
//! Behind the TLS proxy the browser's name may come in `X-Forwarded-Host` or `Forwarded:
//! host=`, believed only from the proxy; every name a request gives must be one the app
//! answers to, and the forwarded one is the origin of its forms ([`browser_host`]).
//!
//! `/healthz` is answered whatever the name: it says `ok` and nothing else, and a service
//! manager or a container's probe asks by whatever address it has.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::{web, HttpRequest};

use super::proxy::{self, Proxy};
use super::{health, WebError};

/// A host name or IP address the server answers to, without a port: lowercase, without the
/// trailing dot of a fully qualified name, an IPv6 address in brackets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostName(String);

impl HostName {
    /// `name` as compared: `None` unless it can be a host name or an IP address.
    /// `name` as compared: `None` unless it can be a host name or an IP address (IPv6 in
    /// brackets, as a `Host` writes it).
    fn normalized(name: &str) -> Option<HostName> {
        let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
        if let Some(v6) = name
            .strip_prefix('[')
            .and_then(|rest| rest.strip_suffix(']'))
        {
            return HostName::of_v6(v6);
        }
        let is_name = !name.is_empty()
            && (name.bytes()).all(|byte| byte.is_ascii_alphanumeric() || b".-_".contains(&byte));
        is_name.then_some(HostName(name))
    }

    fn of_v6(address: &str) -> Option<HostName> {
        let address: Ipv6Addr = address.parse().ok()?;
        Some(HostName(format!("[{address}]")))
    }

    /// Whether this is `localhost` or a loopback address (127.0.0.0/8, `[::1]`).
    fn is_loopback(&self) -> bool {
        let address = match self
            .0
            .strip_prefix('[')
            .and_then(|rest| rest.strip_suffix(']'))
        {
            Some(v6) => v6.parse::<Ipv6Addr>().ok().map(IpAddr::V6),
            None => self.0.parse::<Ipv4Addr>().ok().map(IpAddr::V4),
        };
        self.0 == "localhost" || address.is_some_and(|ip| proxy::canonical(ip).is_loopback())
    }
}

/// A name for `serve --host`, as a person gives it.
impl FromStr for HostName {
    type Err = String;

    fn from_str(text: &str) -> Result<HostName, String> {
        if text.is_empty() {
            return Err("the name is empty".to_owned());
        }
        // An IPv6 address may be given without its brackets.
        let name = HostName::of_v6(text).or_else(|| HostName::normalized(text));
        name.ok_or_else(|| {
            if text.contains("://") || text.contains(':') {
                "give the name alone, without a scheme or a port (lab.example)".to_owned()
            } else {
                "a name holds letters, digits, '.', '-' and '_' only".to_owned()
            }
        })
    }
}

impl fmt::Display for HostName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The names the app answers to: app data.
#[derive(Debug)]
pub struct Answered {
    /// The names of `--host`, on any port.
    names: Vec<HostName>,
    /// The port the app listens on, the one the loopback names must name.
    port: u16,
}

impl Answered {
    pub fn new(names: Vec<HostName>, port: u16) -> Answered {
        Answered { names, port }
    }

    /// Whether `authority` (`name`, `name:port`, `[v6]:port`, as a `Host` writes it) names
    /// this server. Without a port it is port 80, the port of `http`.
    fn answers(&self, authority: &str) -> bool {
        let (name, port) = match authority.rsplit_once(':') {
            Some((name, port)) if !port.contains(']') => (name, Some(port)),
            _ => (authority, None),
        };
        let port = match port {
            None => Some(80),
            Some(digits) if digits.bytes().all(|byte| byte.is_ascii_digit()) => {
                digits.parse::<u16>().ok()
            }
            Some(_) => None,
        };
        let (Some(name), Some(port)) = (HostName::normalized(name), port) else {
            return false;
        };
        self.names.contains(&name) || (name.is_loopback() && port == self.port)
    }

    /// The names answered, in words, for the refusal.
    fn in_words(&self) -> String {
        let mut words = format!("localhost, 127.0.0.1 or [::1] on port {}", self.port);
        if !self.names.is_empty() {
            let names: Vec<String> = self.names.iter().map(HostName::to_string).collect();
            words.push_str(&format!(", or {} on any port", names.join(" or ")));
        }
        words
    }

    /// `Ok` if every name `request` gives for this server is one it answers to.
    fn check(&self, request: &HttpRequest) -> Result<(), WebError> {
        let names = requested_names(request)?;
        match names.into_iter().find(|name| !self.answers(name)) {
            None => Ok(()),
            Some(unanswered) => Err(WebError::Misdirected {
                host: unanswered.to_owned(),
                answered: self.in_words(),
            }),
        }
    }
}

/// The names a request gives for the server it is sent to: its `Host` (or for want of one the
/// authority of its address), and, from the TLS proxy, the host it forwards.
fn requested_names(request: &HttpRequest) -> Result<Vec<&str>, WebError> {
    let mut names = vec![own_host(request)?];
    names.extend(forwarded_host(request));
    Ok(names)
}

/// The request's `Host`, or the authority of its address (absolute form).
fn own_host(request: &HttpRequest) -> Result<&str, WebError> {
    let mut hosts = request.headers().get_all(header::HOST);
    match (hosts.next(), hosts.next()) {
        (Some(host), None) => Ok(host.to_str().unwrap_or("(not text)")),
        (Some(_), Some(_)) => Err(WebError::BadRequest(
            "the request names its host twice (two Host headers)".to_owned(),
        )),
        (None, _) => (request.uri().authority())
            .map(|authority| authority.as_str())
            .ok_or_else(|| {
                WebError::BadRequest(
                    "the request names no host (no Host header): say which server it is for"
                        .to_owned(),
                )
            }),
    }
}

/// The host the TLS proxy says the browser asked for, if the request comes from it and it says.
fn forwarded_host(request: &HttpRequest) -> Option<&str> {
    let from_proxy = Proxy::of(request).is_some_and(|proxy| proxy.sent(request));
    from_proxy.then(|| proxy::forwarded(request.headers(), "x-forwarded-host", "host"))?
}

/// The host the browser sent the request to, for the origin of this server's pages: the one
/// the TLS proxy forwards, else the request's own. (The middleware has checked both.)
pub fn browser_host(request: &HttpRequest) -> &str {
    forwarded_host(request)
        .or_else(|| own_host(request).ok())
        .unwrap_or_default()
}

/// The middleware: 421 for a request to a name this server does not answer to (400 for one
/// that names none), but for the health check.
pub async fn guard(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let checked = match request.app_data::<web::Data<Answered>>() {
        Some(answered) if request.path() != health::PATH => answered.check(request.request()),
        _ => Ok(()),
    };
    if let Err(refusal) = checked {
        return Ok(request.error_response(refusal).map_into_right_body());
    }
    Ok(next.call(request).await?.map_into_left_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(names: &[&str]) -> Answered {
        let names = names
            .iter()
            .map(|name| name.parse().expect("a name"))
            .collect();
        Answered::new(names, 8080)
    }

    #[test]
    fn loopback_names_are_answered_on_the_port_only() {
        let loopback = answered(&[]);
        for host in [
            "localhost:8080",
            "LOCALHOST:8080",
            "localhost.:8080",
            "127.0.0.1:8080",
            "127.1.2.3:8080",
            "[::1]:8080",
            "[0:0:0:0:0:0:0:1]:8080",
            "[::ffff:127.0.0.1]:8080",
        ] {
            assert!(loopback.answers(host), "{host}");
        }
        for host in [
            "localhost",
            "localhost:80",
            "localhost:8081",
            "localhost:+8080",
            "localhost:",
            "::1:8080",
            "[::1]",
            "[::2]:8080",
            "evil.example:8080",
            "localhost.evil.example:8080",
            "192.0.2.1:8080",
            "0.0.0.0:8080",
            "localhost..:8080",
            "local host:8080",
            "",
        ] {
            assert!(!loopback.answers(host), "{host}");
        }
        assert_eq!(
            answered(&[]).in_words(),
            "localhost, 127.0.0.1 or [::1] on port 8080"
        );
    }

    #[test]
    fn the_names_of_host_are_answered_on_any_port() {
        let named = answered(&["lab.example", "192.0.2.7", "2001:db8::7"]);
        for host in [
            "lab.example",
            "lab.example:8080",
            "Lab.Example.:443",
            "192.0.2.7:8080",
            "[2001:db8::7]",
            "[2001:DB8:0::7]:8443",
            "localhost:8080",
        ] {
            assert!(named.answers(host), "{host}");
        }
        for host in [
            "lab.example.org",
            "evil.example",
            "192.0.2.8",
            "[2001:db8::8]",
        ] {
            assert!(!named.answers(host), "{host}");
        }
        assert_eq!(
            named.in_words(),
            "localhost, 127.0.0.1 or [::1] on port 8080, or lab.example or 192.0.2.7 or \
             [2001:db8::7] on any port"
        );
    }

    #[test]
    fn a_host_name_is_a_name_or_an_address_without_a_port() {
        let parsed = |text: &str| text.parse::<HostName>().map(|name| name.to_string());
        assert_eq!(parsed("Lab.Example."), Ok("lab.example".to_owned()));
        assert_eq!(parsed("paperjudge_1"), Ok("paperjudge_1".to_owned()));
        assert_eq!(parsed("[2001:DB8::1]"), Ok("[2001:db8::1]".to_owned()));
        assert_eq!(parsed("2001:db8::1"), Ok("[2001:db8::1]".to_owned()));
        let without_port = "give the name alone, without a scheme or a port (lab.example)";
        assert_eq!(parsed("lab.example:8080"), Err(without_port.to_owned()));
        assert_eq!(parsed("https://lab.example"), Err(without_port.to_owned()));
        assert_eq!(parsed(""), Err("the name is empty".to_owned()));
        for bad in ["lab example", "*.example", "lab.example/", "."] {
            assert_eq!(
                parsed(bad),
                Err("a name holds letters, digits, '.', '-' and '_' only".to_owned()),
                "{bad}"
            );
        }
    }
}
