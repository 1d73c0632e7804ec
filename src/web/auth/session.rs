//! Login sessions: a random token in a cookie that names an entry of the server's session
//! table, with who signed in (the owner or a rater) and the credential they signed in with
//! (so that a new password ends the session). The cookie carries no claim a client could
//! forge, only a token the server made and still keeps.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use actix_web::cookie::Cookie;
use actix_web::HttpRequest;

use crate::domain::RaterId;
use crate::study::raters::Credential;
use crate::web::tokens;

pub const SESSION_COOKIE: &str = "paperjudge_session";
const SESSION_TOKEN_BYTES: usize = 32;

/// How long a login lasts: a researcher rating every day logs in once a week.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// The cookie that carries a session's token (an empty token for the removal cookie).
pub fn session_cookie(request: &HttpRequest, token: String) -> Cookie<'static> {
    tokens::cookie(request, SESSION_COOKIE, token, SESSION_LIFETIME)
}

/// Open sessions by the SHA-256 digest of their token, with who signed in, with which
/// credential, and when each expires. Keeping the digest, not the token, means the table's
/// lookup time depends on nothing a client controls.
#[derive(Default)]
pub struct LoginSessions {
    by_digest: HashMap<[u8; 32], (RaterId, Credential, Instant)>,
}

impl LoginSessions {
    /// Opens a session of `rater`, signed in with `credential`, and answers its new token.
    pub fn open(&mut self, rater: RaterId, credential: Credential, now: Instant) -> String {
        self.by_digest.retain(|_, (_, _, expires)| *expires > now);
        let token = tokens::random::<SESSION_TOKEN_BYTES>();
        self.by_digest.insert(
            tokens::sha256(token.as_bytes()),
            (rater, credential, now + SESSION_LIFETIME),
        );
        token
    }

    /// Who signed in with the session of `token`, and with which credential, while it is open.
    pub fn rater(&self, token: &str, now: Instant) -> Option<(RaterId, Credential)> {
        self.by_digest
            .get(&tokens::sha256(token.as_bytes()))
            .filter(|(_, _, expires)| *expires > now)
            .map(|(rater, credential, _)| (*rater, *credential))
    }

    pub fn close(&mut self, token: &str) {
        self.by_digest.remove(&tokens::sha256(token.as_bytes()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_open_until_closed_or_expired() {
        let mut sessions = LoginSessions::default();
        let start = Instant::now();
        let first = sessions.open(RaterId::OWNER, Credential::OWNER, start);
        let second = sessions.open(RaterId(2), Credential::OWNER, start);
        assert_eq!(first.len(), 2 * SESSION_TOKEN_BYTES);
        assert_ne!(first, second);
        assert_eq!(
            sessions.rater(&first, start),
            Some((RaterId::OWNER, Credential::OWNER))
        );
        assert_eq!(sessions.rater(&first.to_uppercase(), start), None);
        assert_eq!(sessions.rater("", start), None);
        sessions.close(&first);
        assert_eq!(sessions.rater(&first, start), None);
        let almost = start + SESSION_LIFETIME - Duration::from_secs(1);
        assert_eq!(
            sessions.rater(&second, almost).map(|(rater, _)| rater),
            Some(RaterId(2))
        );
        assert_eq!(sessions.rater(&second, start + SESSION_LIFETIME), None);
    }
}
