//! Login sessions: a random token in a cookie that names an entry of the server's session
//! table. The cookie carries no claim a client could forge, only a token the server made and
//! still keeps.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use actix_web::cookie::Cookie;
use actix_web::HttpRequest;

use crate::web::tokens;

pub const SESSION_COOKIE: &str = "paperjudge_session";
const SESSION_TOKEN_BYTES: usize = 32;

/// How long a login lasts: a researcher rating every day logs in once a week.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// The cookie that carries a session's token (an empty token for the removal cookie).
pub fn session_cookie(request: &HttpRequest, token: String) -> Cookie<'static> {
    tokens::cookie(request, SESSION_COOKIE, token, SESSION_LIFETIME)
}

/// Open sessions by the SHA-256 digest of their token, with when each expires. Keeping the
/// digest, not the token, means the table's lookup time depends on nothing a client controls.
#[derive(Default)]
pub struct LoginSessions {
    expiry_by_digest: HashMap<[u8; 32], Instant>,
}

impl LoginSessions {
    /// Opens a session and answers its new token.
    pub fn open(&mut self, now: Instant) -> String {
        self.expiry_by_digest.retain(|_, expires| *expires > now);
        let token = tokens::random::<SESSION_TOKEN_BYTES>();
        self.expiry_by_digest
            .insert(tokens::sha256(token.as_bytes()), now + SESSION_LIFETIME);
        token
    }

    pub fn is_open(&self, token: &str, now: Instant) -> bool {
        self.expiry_by_digest
            .get(&tokens::sha256(token.as_bytes()))
            .is_some_and(|expires| *expires > now)
    }

    pub fn close(&mut self, token: &str) {
        self.expiry_by_digest
            .remove(&tokens::sha256(token.as_bytes()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_open_until_closed_or_expired() {
        let mut sessions = LoginSessions::default();
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
