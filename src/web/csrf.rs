//! Protection against cross-site request forgery, by double submit: a random token lives in a
//! cookie and in a hidden field of every form, and a POST counts only when both are equal.
//!
//! Another site can make a browser post to paperjudge, but it can read neither the cookie nor
//! the page, so it cannot fill in the field; `SameSite=Strict` keeps the cookie off such posts
//! in the first place, and `HttpOnly` keeps it from scripts.

use std::future::{ready, Ready};

use actix_web::cookie::{Cookie, SameSite};
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest, HttpResponse};
use rand::Rng;

use super::WebError;

const COOKIE_NAME: &str = "paperjudge_csrf";
const TOKEN_BYTES: usize = 32;

/// Whether the app's cookies are marked `Secure`: a proxy serves it over HTTPS.
#[derive(Debug, Clone, Copy)]
pub struct SecureCookies(pub bool);

/// The CSRF token of the browser that sent a request: the one in its cookie, or a new one.
pub struct CsrfToken {
    value: String,
    is_new: bool,
    secure: bool,
}

impl CsrfToken {
    fn of(request: &HttpRequest) -> CsrfToken {
        let secure =
            (request.app_data::<web::Data<SecureCookies>>()).is_some_and(|secure| secure.0);
        let (value, is_new) = match request.cookie(COOKIE_NAME) {
            Some(cookie) if is_well_formed(cookie.value()) => (cookie.value().to_owned(), false),
            _ => (new_token(), true),
        };
        CsrfToken {
            value,
            is_new,
            secure,
        }
    }

    /// The value for the hidden `csrf_token` field of the page's forms.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// Gives the browser the cookie, if it did not send this token.
    pub fn set_cookie_on(&self, response: &mut HttpResponse) -> Result<(), WebError> {
        if !self.is_new {
            return Ok(());
        }
        let cookie = Cookie::build(COOKIE_NAME, self.value.clone())
            .path("/")
            .http_only(true)
            .same_site(SameSite::Strict)
            .secure(self.secure)
            .finish();
        response
            .add_cookie(&cookie)
            .map_err(|error| WebError::Internal(Box::new(error)))
    }
}

impl FromRequest for CsrfToken {
    type Error = actix_web::Error;
    type Future = Ready<Result<CsrfToken, actix_web::Error>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(CsrfToken::of(request)))
    }
}

/// Accepts a POST whose `csrf_token` field equals the token in the browser's cookie.
pub fn verify(request: &HttpRequest, submitted: Option<&str>) -> Result<(), WebError> {
    let cookie = request.cookie(COOKIE_NAME).ok_or(WebError::Forbidden)?;
    let submitted = submitted.ok_or(WebError::Forbidden)?;
    if is_well_formed(cookie.value())
        && constant_time_eq(cookie.value().as_bytes(), submitted.as_bytes())
    {
        Ok(())
    } else {
        Err(WebError::Forbidden)
    }
}

fn new_token() -> String {
    let bytes: [u8; TOKEN_BYTES] = rand::rng().random();
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn is_well_formed(token: &str) -> bool {
    token.len() == 2 * TOKEN_BYTES && token.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// Compares without an early exit, so the time taken says nothing about how many leading bytes
/// of a guess are right. (The length is no secret: every token has the same.)
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0_u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_tokens_are_well_formed_and_differ() {
        let (first, second) = (new_token(), new_token());
        assert!(is_well_formed(&first), "{first}");
        assert_ne!(first, second);
    }

    #[test]
    fn only_equal_tokens_compare_equal() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(!constant_time_eq(b"", b"a"));
    }

    #[test]
    fn malformed_cookies_are_not_tokens() {
        assert!(!is_well_formed(""));
        assert!(!is_well_formed(&"g".repeat(64)));
        assert!(!is_well_formed(&"a".repeat(63)));
        assert!(is_well_formed(&"0123456789abcdef".repeat(4)));
    }
}
