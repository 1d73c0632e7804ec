//! The secrets the app hands to browsers, made and checked one way for the login session
//! (`auth`) and the browser session with its form tokens (`csrf`): random tokens in hex, the
//! cookies that carry them, and comparison in constant time.

use std::time::Duration;

use actix_web::cookie::{self, Cookie, SameSite};
use actix_web::{HttpRequest, HttpResponse};
use rand::Rng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::proxy::Proxy;
use super::WebError;

/// Whether the app that answers `request` is served over HTTPS by a proxy.
pub fn behind_tls(request: &HttpRequest) -> bool {
    Proxy::of(request).is_some_and(Proxy::behind_tls)
}

/// A new token of `BYTES` random bytes, in lowercase hex.
pub fn random<const BYTES: usize>() -> String {
    let bytes: [u8; BYTES] = rand::rng().random();
    hex::encode(bytes)
}

/// Whether `text` has the form of a token of `bytes` bytes made by [`random`].
pub fn is_well_formed(text: &str, bytes: usize) -> bool {
    text.len() == 2 * bytes && text.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// Whether two secrets are equal. Constant time: how long the comparison takes says nothing
/// about how much of a guess is right (only whether the lengths differ, and every token of a
/// kind has the same length).
pub fn same(secret: &[u8], guess: &[u8]) -> bool {
    secret.ct_eq(guess).into()
}

pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(sha256(bytes))
}

/// A cookie that only the app's own pages send and that no script reads: `HttpOnly`,
/// `SameSite=Strict`, for the whole site, kept for `lifetime`, and `Secure` behind TLS.
pub fn cookie(
    request: &HttpRequest,
    name: &'static str,
    value: String,
    lifetime: Duration,
) -> Cookie<'static> {
    Cookie::build(name, value)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(behind_tls(request))
        .max_age(cookie::time::Duration::seconds(
            i64::try_from(lifetime.as_secs()).unwrap_or(i64::MAX),
        ))
        .finish()
}

/// Gives the browser `cookie` with the answer.
pub fn set_cookie(response: &mut HttpResponse, cookie: &Cookie<'_>) -> Result<(), WebError> {
    (response.add_cookie(cookie)).map_err(|error| WebError::Internal(Box::new(error)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_tokens_are_well_formed_and_differ() {
        let (first, second) = (random::<32>(), random::<32>());
        assert!(is_well_formed(&first, 32), "{first}");
        assert_ne!(first, second);
        assert!(!is_well_formed(&first, 16));
    }

    #[test]
    fn only_hex_of_the_right_length_is_well_formed() {
        assert!(!is_well_formed("", 32));
        assert!(!is_well_formed(&"g".repeat(64), 32));
        assert!(!is_well_formed(&"a".repeat(63), 32));
        assert!(is_well_formed(&"0123456789abcdef".repeat(4), 32));
    }

    #[test]
    fn secrets_are_the_same_only_when_equal() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"ab"));
        assert!(!same(b"abc", b""));
    }
}
