//! Access control for a study served beyond loopback: one password, a login form, sessions
//! kept in server memory, and failed logins slowed per client.
//!
//! With a password, every request but `/healthz`, the login page and its stylesheet needs a
//! session ([`session`]): a random token in an `HttpOnly`, `SameSite=Strict` cookie (`Secure`
//! behind TLS). Sessions end at logout, after [`session::SESSION_LIFETIME`], and when the
//! server stops. Failed logins are counted per client ([`throttle`]); [`handlers`] has the
//! login and logout pages.
//!
//! Without a password the app has no [`Auth`], nothing is asked, and `/login` does not exist:
//! the command line allows that only on a loopback address.

mod handlers;
mod password;
mod session;
mod throttle;

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, HttpRequest};

use super::answer::{accepts_json, see_other};
use super::{assets, health, WebError};
use session::{LoginSessions, SESSION_COOKIE};
use throttle::LoginAttempts;

pub use password::Password;
pub use throttle::Clients;

const LOGIN_PATH: &str = "/login";
const LOGOUT_PATH: &str = "/logout";

/// What anyone may fetch: the health check, and the login page with its stylesheet.
const PUBLIC_PATHS: [&str; 3] = [health::PATH, LOGIN_PATH, assets::STYLESHEET_PATH];

/// The password, the open sessions and the recent logins: one for the whole server.
pub struct Auth {
    password: Password,
    clients: Clients,
    sessions: Mutex<LoginSessions>,
    logins: Mutex<LoginAttempts>,
}

impl Auth {
    pub fn new(password: Password, clients: Clients) -> Auth {
        Auth {
            password,
            clients,
            sessions: Mutex::default(),
            logins: Mutex::default(),
        }
    }

    fn sessions(&self) -> MutexGuard<'_, LoginSessions> {
        lock(&self.sessions)
    }

    fn logins(&self) -> MutexGuard<'_, LoginAttempts> {
        lock(&self.logins)
    }

    fn is_logged_in(&self, request: &HttpRequest) -> bool {
        request
            .cookie(SESSION_COOKIE)
            .is_some_and(|cookie| self.sessions().is_open(cookie.value(), Instant::now()))
    }
}

/// A panic while a lock is held leaves at worst one session or attempt unrecorded, so a
/// poisoned lock is used as is.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `/login` and `/logout` with the [`Auth`] the middleware checks, when there is a password.
pub fn routes(auth: Option<web::Data<Auth>>) -> impl FnOnce(&mut web::ServiceConfig) {
    move |config| {
        if let Some(auth) = auth {
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
}

/// The middleware: a request without a session goes to the login page (a browser) or gets a
/// 401 (the rating script, which shows the message).
pub async fn require_session(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let allowed = match request.app_data::<web::Data<Auth>>() {
        None => true,
        Some(auth) => {
            PUBLIC_PATHS.contains(&request.path()) || auth.is_logged_in(request.request())
        }
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
