//! Protection against cross-site request forgery, in two layers, and the browser sessions it
//! rests on.
//!
//! Every browser gets a session: a random id in a long-lived cookie, `HttpOnly` (no script
//! reads it) and `SameSite=Strict`. Each form of a page carries a token, the HMAC-SHA256 of
//! that id under a secret of the study, and a request that changes something counts only when
//! its token is the one for the cookie it came with. Another site can make a browser post
//! here, and a page on another port of the same host can even plant a cookie of its choosing,
//! but without the study's secret neither can make the token that goes with a cookie.
//!
//! Before that, [`guard`] refuses every request that changes something and that the browser
//! says comes from elsewhere: a `Sec-Fetch-Site` other than `same-origin` or `none` (a page
//! on another port of this host is `same-site`, and refused), or an `Origin` that is not this
//! server's.
//!
//! The session also scopes undo: each web change records which session made it.

use std::future::{ready, Ready};

use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::{web, FromRequest, HttpRequest, HttpResponse};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::{hosts, tokens, WebError};
use crate::study::Study;

const COOKIE_NAME: &str = "paperjudge_browser";
const BROWSER_ID_BYTES: usize = 32;

/// How long a browser keeps its session: 400 days, the longest Chromium keeps any cookie, so
/// that undo reaches the changes of earlier days.
const COOKIE_LIFETIME: Duration = Duration::from_secs(400 * 24 * 60 * 60);

/// The study's secret for the tokens, read from the database by [`guard`] on the first
/// request (the app is built before anything can be awaited).
#[derive(Debug, Default)]
pub struct FormSecret(tokio::sync::OnceCell<Vec<u8>>);

/// The browser that sent a request, by its session id.
pub struct BrowserSession {
    id: String,
}

impl BrowserSession {
    /// How the rating history names this session: the SHA-256 of its id, in hex. The study
    /// file travels (copies, backups, mail); the id itself, which the cookie carries, does not.
    pub fn history_tag(&self) -> String {
        tokens::sha256_hex(self.id.as_bytes())
    }
}

/// The browser session and CSRF token of a page's forms: the session in the request's cookie,
/// or a new one.
pub struct CsrfToken {
    token: String,
    /// The cookie of a browser that sent none (or a malformed one).
    new_cookie: Option<actix_web::cookie::Cookie<'static>>,
}

impl CsrfToken {
    fn of(request: &HttpRequest) -> Result<CsrfToken, WebError> {
        let sent = (request.cookie(COOKIE_NAME))
            .map(|cookie| cookie.value().to_owned())
            .filter(|id| is_browser_id(id));
        let (browser, new_cookie) = match sent {
            Some(id) => (id, None),
            None => {
                let id = tokens::random::<BROWSER_ID_BYTES>();
                let cookie = tokens::cookie(request, COOKIE_NAME, id.clone(), COOKIE_LIFETIME);
                (id, Some(cookie))
            }
        };
        Ok(CsrfToken {
            token: token_for(form_secret(request)?, &browser),
            new_cookie,
        })
    }

    /// The value for the hidden `csrf_token` field of the page's forms.
    pub fn value(&self) -> &str {
        &self.token
    }

    /// Gives the browser its session cookie, if it did not send one.
    pub fn set_cookie_on(&self, response: &mut HttpResponse) -> Result<(), WebError> {
        match &self.new_cookie {
            Some(cookie) => tokens::set_cookie(response, cookie),
            None => Ok(()),
        }
    }
}

impl FromRequest for CsrfToken {
    type Error = actix_web::Error;
    type Future = Ready<Result<CsrfToken, actix_web::Error>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(CsrfToken::of(request).map_err(actix_web::Error::from))
    }
}

/// Accepts a form whose `csrf_token` field is the token of the browser session in its cookie,
/// and answers that session.
pub fn verify(request: &HttpRequest, submitted: Option<&str>) -> Result<BrowserSession, WebError> {
    let cookie = request.cookie(COOKIE_NAME).ok_or(WebError::Forbidden)?;
    let submitted = submitted.ok_or(WebError::Forbidden)?;
    if !is_browser_id(cookie.value()) {
        return Err(WebError::Forbidden);
    }
    let expected = token_for(form_secret(request)?, cookie.value());
    if tokens::same(expected.as_bytes(), submitted.as_bytes()) {
        Ok(BrowserSession {
            id: cookie.value().to_owned(),
        })
    } else {
        Err(WebError::Forbidden)
    }
}

/// The middleware: refuses a cross-site request that would change something (403), and
/// loads the study's [`FormSecret`] on the first request.
pub async fn guard(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let checked = match same_origin(request.request()) {
        Ok(()) => load_form_secret(&request).await,
        Err(refusal) => Err(refusal),
    };
    if let Err(error) = checked {
        return Ok(request.error_response(error).map_into_right_body());
    }
    Ok(next.call(request).await?.map_into_left_body())
}

/// `Ok` for a request that changes nothing, or that the browser says comes from one of this
/// server's own pages (a request without these headers comes from no browser, and the token
/// decides).
fn same_origin(request: &HttpRequest) -> Result<(), WebError> {
    if request.method().is_safe() {
        return Ok(());
    }
    let headers = request.headers();
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or_default();
        if !matches!(site, "same-origin" | "none") {
            return Err(WebError::CrossSite(format!("Sec-Fetch-Site: {site}")));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        let own = own_origin(request);
        if !normalized_origin(origin).eq_ignore_ascii_case(&own) {
            return Err(WebError::CrossSite(format!(
                "Origin: {origin}; this server is {own}"
            )));
        }
    }
    Ok(())
}

/// This server's origin as the browser sees it: the scheme (HTTPS behind the TLS proxy) and
/// the host the request was sent to (as the proxy forwards it, see [`hosts::browser_host`]).
fn own_origin(request: &HttpRequest) -> String {
    let info = request.connection_info();
    let scheme = if tokens::behind_tls(request) {
        "https"
    } else {
        info.scheme()
    };
    normalized_origin(&format!("{scheme}://{}", hosts::browser_host(request)))
}

/// An origin without the port its scheme implies (browsers leave it out; a `Host` may not).
fn normalized_origin(origin: &str) -> String {
    for (scheme, port) in [("http://", ":80"), ("https://", ":443")] {
        let has_scheme = origin
            .get(..scheme.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(scheme));
        if let Some(without_port) = origin.strip_suffix(port).filter(|_| has_scheme) {
            return without_port.to_owned();
        }
    }
    origin.to_owned()
}

async fn load_form_secret(request: &ServiceRequest) -> Result<(), WebError> {
    let (Some(secret), Some(study)) = (
        request.app_data::<web::Data<FormSecret>>().cloned(),
        request.app_data::<web::Data<Study>>().cloned(),
    ) else {
        return Ok(());
    };
    secret.0.get_or_try_init(|| study.form_secret()).await?;
    Ok(())
}

fn form_secret(request: &HttpRequest) -> Result<&[u8], WebError> {
    request
        .app_data::<web::Data<FormSecret>>()
        .and_then(|secret| secret.0.get())
        .map(Vec::as_slice)
        .ok_or_else(|| WebError::Internal("the study's form secret is not loaded".into()))
}

/// The token of a browser session: HMAC-SHA256 of its id under the study's secret, in hex.
fn token_for(secret: &[u8], browser: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(browser.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

fn is_browser_id(id: &str) -> bool {
    tokens::is_well_formed(id, BROWSER_ID_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_depends_on_the_key_and_the_browser() {
        let browser = "0123456789abcdef".repeat(4);
        let token = token_for(b"key", &browser);
        assert_eq!(token.len(), 64);
        assert_eq!(token, token_for(b"key", &browser));
        assert_ne!(token, token_for(b"other key", &browser));
        assert_ne!(token, token_for(b"key", &"f".repeat(64)));
    }

    #[test]
    fn default_ports_are_left_out_of_origins() {
        assert_eq!(normalized_origin("http://x.org:80"), "http://x.org");
        assert_eq!(normalized_origin("https://x.org:443"), "https://x.org");
        assert_eq!(normalized_origin("http://x.org:443"), "http://x.org:443");
        assert_eq!(
            normalized_origin("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080"
        );
    }
}
