//! Access control for a study served beyond loopback: one password, a login form, sessions
//! kept in server memory, and failed logins slowed per client.
//!
//! With a password, every request but `/healthz`, the login page and its stylesheet needs a
//! session. A session is a random token in an `HttpOnly`, `SameSite=Strict` cookie (`Secure`
//! behind TLS) that names an entry of the server's session table: the cookie carries no claim
//! a client could forge, only a token the server made and still keeps. Sessions end at logout,
//! after [`SESSION_LIFETIME`], and when the server stops.
//!
//! Failed logins are counted per client. Behind the TLS proxy every connection comes from the
//! proxy, so there the client is the address the proxy appended to `X-Forwarded-For` (or
//! named in `Forwarded`), believed only when the connection comes from the proxy: see
//! [`Clients`].
//!
//! Without a password the app has no [`Auth`], nothing is asked, and `/login` does not exist:
//! the command line allows that only on a loopback address.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::cookie::{self, Cookie, SameSite};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{header, StatusCode};
use actix_web::middleware::Next;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use rand::Rng;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::answer::{accepts_json, see_other};
use super::csrf::{self, CsrfToken};
use super::{assets, health, WebError};

const LOGIN_PATH: &str = "/login";
const LOGOUT_PATH: &str = "/logout";

/// What anyone may fetch: the health check, and the login page with its stylesheet.
const PUBLIC_PATHS: [&str; 3] = [health::PATH, LOGIN_PATH, assets::STYLESHEET_PATH];

const SESSION_COOKIE: &str = "paperjudge_session";
const SESSION_TOKEN_BYTES: usize = 32;

/// How long a login lasts: a researcher rating every day logs in once a week.
const SESSION_LIFETIME: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Logins a client may try in any [`LOGIN_WINDOW`]; a success wipes its count.
const LOGINS_PER_WINDOW: usize = 5;
const LOGIN_WINDOW: Duration = Duration::from_secs(60);

/// The study's password. Only its SHA-256 digest is kept: comparing digests of equal length
/// in constant time says nothing, through timing, about the password's length or about how
/// much of a guess is right.
#[derive(Clone)]
pub struct Password {
    digest: [u8; 32],
}

impl Password {
    /// `None` for an empty password.
    pub fn new(text: &str) -> Option<Password> {
        (!text.is_empty()).then(|| Password {
            digest: sha256(text.as_bytes()),
        })
    }

    fn is(&self, guess: &str) -> bool {
        sha256(guess.as_bytes()).ct_eq(&self.digest).into()
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(hidden)")
    }
}

/// The password, the open sessions and the recent logins: one for the whole server.
pub struct Auth {
    password: Password,
    /// The app is served over HTTPS (by a proxy): the session cookie gets `Secure`.
    behind_tls: bool,
    clients: Clients,
    sessions: Mutex<Sessions>,
    logins: Mutex<LoginAttempts>,
}

impl Auth {
    pub fn new(password: Password, behind_tls: bool, clients: Clients) -> Auth {
        Auth {
            password,
            behind_tls,
            clients,
            sessions: Mutex::default(),
            logins: Mutex::default(),
        }
    }

    fn has_session(&self, request: &HttpRequest) -> bool {
        request
            .cookie(SESSION_COOKIE)
            .is_some_and(|cookie| lock(&self.sessions).is_open(cookie.value(), Instant::now()))
    }

    fn session_cookie(&self, token: String) -> Cookie<'static> {
        Cookie::build(SESSION_COOKIE, token)
            .path("/")
            .http_only(true)
            .same_site(SameSite::Strict)
            .secure(self.behind_tls)
            .max_age(cookie::time::Duration::seconds(
                SESSION_LIFETIME.as_secs() as i64
            ))
            .finish()
    }
}

/// A panic while a lock is held leaves at worst one session or attempt unrecorded, so a
/// poisoned lock is used as is.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Open sessions by the SHA-256 digest of their token, with when each expires. Keeping the
/// digest, not the token, means the table's lookup time depends on nothing a client controls.
#[derive(Default)]
struct Sessions {
    expiry_by_digest: HashMap<[u8; 32], Instant>,
}

impl Sessions {
    /// Opens a session and answers its new token.
    fn open(&mut self, now: Instant) -> String {
        self.expiry_by_digest.retain(|_, expires| *expires > now);
        let bytes: [u8; SESSION_TOKEN_BYTES] = rand::rng().random();
        let token: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        self.expiry_by_digest
            .insert(sha256(token.as_bytes()), now + SESSION_LIFETIME);
        token
    }

    fn is_open(&self, token: &str, now: Instant) -> bool {
        self.expiry_by_digest
            .get(&sha256(token.as_bytes()))
            .is_some_and(|expires| *expires > now)
    }

    fn close(&mut self, token: &str) {
        self.expiry_by_digest.remove(&sha256(token.as_bytes()));
    }
}

/// Recent login attempts per client. Every attempt counts until it succeeds; counting it
/// before the password is checked means parallel guesses cannot slip past the limit.
#[derive(Default)]
struct LoginAttempts {
    by_client: HashMap<IpAddr, VecDeque<Instant>>,
}

impl LoginAttempts {
    /// Counts an attempt by `client`, or answers how long it must wait for its next one.
    fn admit(&mut self, client: IpAddr, now: Instant) -> Result<(), Duration> {
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

    fn succeeded(&mut self, client: IpAddr) {
        self.by_client.remove(&client);
    }
}

/// How the client of a request is told: by the peer's address, or behind the TLS proxy by
/// what the proxy says.
#[derive(Debug, Clone, Default)]
pub struct Clients {
    behind_tls: bool,
    /// The proxy's addresses; empty means any loopback address.
    trusted_proxies: Vec<IpAddr>,
}

impl Clients {
    pub fn new(behind_tls: bool, trusted_proxies: Vec<IpAddr>) -> Clients {
        let trusted_proxies = trusted_proxies.into_iter().map(canonical).collect();
        Clients {
            behind_tls,
            trusted_proxies,
        }
    }

    /// Who counts as one client: its address, and for IPv6 its /64 network, which one host
    /// usually has whole. The address is the peer's, unless the peer is the TLS proxy and
    /// says whose request it passes on. A client cannot speak for itself: what it puts in
    /// those headers comes before the entry the proxy appends, and a connection that does not
    /// come from the proxy is taken at its own address.
    fn of(&self, request: &HttpRequest) -> IpAddr {
        let Some(peer) = request.peer_addr().map(|peer| canonical(peer.ip())) else {
            return IpAddr::V4(Ipv4Addr::UNSPECIFIED);
        };
        let forwarded = if self.is_proxy(peer) {
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

    fn is_proxy(&self, peer: IpAddr) -> bool {
        self.behind_tls
            && if self.trusted_proxies.is_empty() {
                peer.is_loopback()
            } else {
                self.trusted_proxies.contains(&peer)
            }
    }
}

/// An IPv4 address written as IPv6 (`::ffff:192.0.2.1`), as a dual-stack socket reports it,
/// is the IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The client a proxy names: the last entry of the last `X-Forwarded-For` (the one the proxy
/// appended), or without that header the last element's `for=` of `Forwarded`.
fn forwarded_client(headers: &header::HeaderMap) -> Option<IpAddr> {
    let last_value = |name: &str| {
        headers
            .get_all(name)
            .filter_map(|value| value.to_str().ok())
            .last()
            .and_then(|value| value.rsplit(',').next())
            .map(str::trim)
    };
    if let Some(entry) = last_value("x-forwarded-for") {
        return parse_node(entry);
    }
    let element = last_value("forwarded")?;
    let node = element.split(';').find_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        name.eq_ignore_ascii_case("for").then_some(value)
    })?;
    parse_node(node.trim_matches('"'))
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

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Registers the login and logout pages and the [`Auth`] the middleware checks, when there is
/// a password.
pub fn configure(auth: Option<web::Data<Auth>>) -> impl FnOnce(&mut web::ServiceConfig) {
    move |config| {
        if let Some(auth) = auth {
            config
                .app_data(auth)
                .service(
                    web::resource(LOGIN_PATH)
                        .route(web::get().to(login_page))
                        .route(web::post().to(log_in)),
                )
                .service(
                    web::resource(LOGOUT_PATH)
                        .route(web::get().to(logout_page))
                        .route(web::post().to(log_out)),
                );
        }
    }
}

/// The middleware: a request without a session goes to the login page (a browser) or gets a
/// 401 (the rating script, which shows the message).
pub async fn require_session(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let allowed = match request.app_data::<web::Data<Auth>>() {
        None => true,
        Some(auth) => PUBLIC_PATHS.contains(&request.path()) || auth.has_session(request.request()),
    };
    if allowed {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    // The rating script shows the error; a browser goes to the login page.
    let refusal = if accepts_json(request.request()) {
        request.error_response(WebError::NotLoggedIn)
    } else {
        request.into_response(see_other(LOGIN_PATH))
    };
    Ok(refusal.map_into_right_body())
}

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage<'a> {
    csrf_token: &'a str,
    /// Logged in: the page offers to log out instead.
    logged_in: bool,
    problem: Option<&'a str>,
}

fn page(
    status: StatusCode,
    csrf: &CsrfToken,
    logged_in: bool,
    problem: Option<&str>,
) -> Result<HttpResponse, WebError> {
    let html = LoginPage {
        csrf_token: csrf.value(),
        logged_in,
        problem,
    }
    .render()?;
    let mut response = HttpResponse::build(status)
        .content_type(header::ContentType::html())
        .body(html);
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}

async fn login_page(
    request: HttpRequest,
    auth: web::Data<Auth>,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    if auth.has_session(&request) {
        return Ok(see_other("/"));
    }
    page(StatusCode::OK, &csrf, false, None)
}

#[derive(Debug, Deserialize)]
struct LoginForm {
    password: Option<String>,
    csrf_token: Option<String>,
}

async fn log_in(
    request: HttpRequest,
    auth: web::Data<Auth>,
    csrf: CsrfToken,
    form: web::Form<LoginForm>,
) -> Result<HttpResponse, WebError> {
    // The token first, so that another site cannot spend a visitor's attempts.
    csrf::verify(&request, form.csrf_token.as_deref())?;
    let client = auth.clients.of(&request);
    let now = Instant::now();
    if let Err(wait) = lock(&auth.logins).admit(client, now) {
        let seconds = wait.as_millis().div_ceil(1000).max(1);
        let problem =
            format!("Too many login attempts from your address: try again in {seconds} seconds.");
        let mut response = page(StatusCode::TOO_MANY_REQUESTS, &csrf, false, Some(&problem))?;
        response.headers_mut().insert(
            header::RETRY_AFTER,
            header::HeaderValue::from(seconds as u64),
        );
        return Ok(response);
    }
    if !auth
        .password
        .is(form.password.as_deref().unwrap_or_default())
    {
        tracing::warn!(%client, "a login with a wrong password");
        return page(
            StatusCode::UNAUTHORIZED,
            &csrf,
            false,
            Some("That password is wrong."),
        );
    }
    lock(&auth.logins).succeeded(client);
    let token = lock(&auth.sessions).open(now);
    let mut response = see_other("/");
    response
        .add_cookie(&auth.session_cookie(token))
        .map_err(|error| WebError::Internal(Box::new(error)))?;
    Ok(response)
}

async fn logout_page(csrf: CsrfToken) -> Result<HttpResponse, WebError> {
    page(StatusCode::OK, &csrf, true, None)
}

#[derive(Debug, Deserialize)]
struct LogoutForm {
    csrf_token: Option<String>,
}

async fn log_out(
    request: HttpRequest,
    auth: web::Data<Auth>,
    form: web::Form<LogoutForm>,
) -> Result<HttpResponse, WebError> {
    csrf::verify(&request, form.csrf_token.as_deref())?;
    if let Some(cookie) = request.cookie(SESSION_COOKIE) {
        lock(&auth.sessions).close(cookie.value());
    }
    let mut response = see_other(LOGIN_PATH);
    response
        .add_removal_cookie(&auth.session_cookie(String::new()))
        .map_err(|error| WebError::Internal(Box::new(error)))?;
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLIENT: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));

    #[test]
    fn only_the_password_itself_matches() {
        let password = Password::new("correct horse").expect("not empty");
        assert!(password.is("correct horse"));
        assert!(!password.is("correct hors"));
        assert!(!password.is("correct horse "));
        assert!(!password.is(""));
        assert!(Password::new("").is_none());
        assert_eq!(format!("{password:?}"), "Password(hidden)");
    }

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

    #[test]
    fn sessions_open_until_closed_or_expired() {
        let mut sessions = Sessions::default();
        let start = Instant::now();
        let first = sessions.open(start);
        let second = sessions.open(start);
        assert_eq!(first.len(), 2 * SESSION_TOKEN_BYTES);
        assert_ne!(first, second);
        assert!(sessions.is_open(&first, start));
        assert!(!sessions.is_open(&first.to_uppercase(), start));
        assert!(!sessions.is_open("", start));
        sessions.close(&first);
        assert!(!sessions.is_open(&first, start));
        assert!(sessions.is_open(&second, start + SESSION_LIFETIME - Duration::from_secs(1)));
        assert!(!sessions.is_open(&second, start + SESSION_LIFETIME));
    }
}
