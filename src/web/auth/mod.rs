//! Access control: who may use the app, signed in as whom. A study served with a password
//! (the owner's), or beyond loopback, or with raters, asks every visitor to sign in: as the
//! owner with the password, or as one of the raters with their name and password. Sessions
//! are kept in server memory, and failed sign-ins are slowed per client.
//!
//! A session ([`session`]) is a random token in an `HttpOnly`, `SameSite=Strict` cookie
//! (`Secure` behind TLS), naming who signed in. Sessions end at logout, after
//! [`session::SESSION_LIFETIME`], when the server stops, when the browser signs in again (as
//! anyone), and for a rater once they are removed or their password changes (`paperjudge
//! raters remove|password`: the next request of their session finds it so). Failed
//! sign-ins are counted per client ([`throttle`]); [`handlers`] has the login and logout pages.
//!
//! Without a password, beyond loopback or raters nothing is asked: every visitor is the owner,
//! and `/login` is no page. Raters added while the server runs are asked for from the next
//! request on. Every handler learns who asks from [`Signed`]; a page only the owner may see
//! in a study with raters asks for [`Owner`].

mod handlers;
mod password;
mod session;
mod throttle;

use std::future::{ready, Ready};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};

use super::answer::{accepts_json, see_other};
use super::{assets, health, WebError};
use crate::study::raters::Rater;
use crate::study::Study;
use session::{LoginSessions, SESSION_COOKIE};
use throttle::LoginAttempts;

pub use password::Password;
pub use throttle::Clients;

const LOGIN_PATH: &str = "/login";
const LOGOUT_PATH: &str = "/logout";

/// What anyone may fetch: the health check, and the login page with its stylesheet.
const PUBLIC_PATHS: [&str; 3] = [health::PATH, LOGIN_PATH, assets::STYLESHEET_PATH];

/// The owner's password, whether signing in is asked for whatever the raters, the open
/// sessions and the recent logins: one for the whole server.
pub struct Auth {
    password: Option<Password>,
    /// Every visitor signs in even without raters: there is a password, or the app is served
    /// beyond loopback (where a study whose raters were all removed must not open to anyone).
    always: bool,
    clients: Clients,
    sessions: Mutex<LoginSessions>,
    logins: Mutex<LoginAttempts>,
}

impl Auth {
    pub fn new(password: Option<Password>, always: bool, clients: Clients) -> Auth {
        Auth {
            always: always || password.is_some(),
            password,
            clients,
            sessions: Mutex::default(),
            logins: Mutex::default(),
        }
    }

    /// Whether visitors sign in: always with a password or beyond loopback, else while the
    /// study has raters.
    async fn asks(&self, study: &Study) -> Result<bool, WebError> {
        Ok(self.always || study.raters().has_active().await?)
    }

    fn sessions(&self) -> MutexGuard<'_, LoginSessions> {
        lock(&self.sessions)
    }

    fn logins(&self) -> MutexGuard<'_, LoginAttempts> {
        lock(&self.logins)
    }

    /// Who signed in with the request's session, while they may: `None` without a session, or
    /// for a rater removed since or whose password changed since (the session then ends).
    async fn signed_in(
        &self,
        request: &HttpRequest,
        study: &Study,
    ) -> Result<Option<Rater>, WebError> {
        let Some(cookie) = request.cookie(SESSION_COOKIE) else {
            return Ok(None);
        };
        let Some((id, credential)) = self.sessions().rater(cookie.value(), Instant::now()) else {
            return Ok(None);
        };
        let rater = study.raters().signed_in(id, &credential).await?;
        if rater.is_none() {
            self.sessions().close(cookie.value());
        }
        Ok(rater)
    }
}

/// A panic while a lock is held leaves at worst one session or attempt unrecorded, so a
/// poisoned lock is used as is.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `/login` and `/logout`, with the [`Auth`] the middleware checks (they are no pages while
/// nothing is asked).
pub fn routes(auth: web::Data<Auth>) -> impl FnOnce(&mut web::ServiceConfig) {
    move |config| {
        config
            .app_data(auth)
            .service(
                web::resource(LOGIN_PATH)
                    .route(web::get().to(handlers::login_page))
                    .route(web::post().to(handlers::log_in)),
            )
            .service(
                web::resource(LOGOUT_PATH)
                    .route(web::get().to(handlers::logout_page))
                    .route(web::post().to(handlers::log_out)),
            );
    }
}

/// The middleware: tells the handlers who asks ([`Signed`]). While visitors sign in, a request
/// without a session goes to the login page (a browser) or gets a 401 (the rating script,
/// which shows the message); without sign-in, every visitor is the owner.
pub async fn require_session(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let (Some(auth), Some(study)) = (
        request.app_data::<web::Data<Auth>>().cloned(),
        request.app_data::<web::Data<Study>>().cloned(),
    ) else {
        return Ok(next.call(request).await?.map_into_left_body());
    };
    // The health check and the stylesheet ask nothing of the study, nor of who asks.
    if [health::PATH, assets::STYLESHEET_PATH].contains(&request.path()) {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    let signed = async {
        if !auth.asks(&study).await? {
            return Ok(Some(Rater::owner()));
        }
        auth.signed_in(request.request(), &study).await
    };
    let signed = match signed.await {
        Ok(signed) => signed,
        Err(error) => return Ok(request.error_response(error).map_into_right_body()),
    };
    let public = PUBLIC_PATHS.contains(&request.path());
    if let Some(rater) = signed {
        request.extensions_mut().insert(Signed(rater));
    }
    if public || request.extensions().contains::<Signed>() {
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

/// Who asks: the owner, or the rater signed in (the middleware [`require_session`] says).
#[derive(Debug, Clone)]
pub struct Signed(pub Rater);

impl Signed {
    /// The rater whose own ratings a page shows, or `None` for the owner, who sees the study
    /// whole.
    pub fn rater_only(&self) -> Option<crate::domain::RaterId> {
        (!self.0.is_owner()).then_some(self.0.id)
    }
}

impl FromRequest for Signed {
    type Error = WebError;
    type Future = Ready<Result<Signed, WebError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            request
                .extensions()
                .get::<Signed>()
                .cloned()
                .ok_or(WebError::NotLoggedIn),
        )
    }
}

/// The owner asks: what a page of the whole study (every rater's stars, the study checks, the
/// per-target views) needs in a study with raters. Refused (403) for a rater.
#[derive(Debug, Clone)]
pub struct Owner;

impl FromRequest for Owner {
    type Error = WebError;
    type Future = Ready<Result<Owner, WebError>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        ready(match Signed::from_request(request, payload).into_inner() {
            Ok(Signed(rater)) if rater.is_owner() => Ok(Owner),
            Ok(Signed(rater)) => Err(WebError::OwnerOnly(rater.name.to_string())),
            Err(error) => Err(error),
        })
    }
}
