//! The web app: one function builds it for `main` and for the tests, on any listener.
//!
//! Pages are rendered on the server and work without JavaScript; `static/rating.js` makes the
//! rating page keyboard-first. Handlers are thin: they read the request, ask the study one
//! command or query (`crate::study::Study`, the app data), and answer one template per page
//! ([`view::html`]), a redirect or JSON ([`answer`]), or a [`WebError`] (a study's error
//! converted in one place, `error.rs`). Each module registers its own routes; this one only
//! assembles them with the middleware.

mod answer;
mod assets;
mod auth;
mod checks;
mod csrf;
mod dashboard;
mod downloads;
mod error;
mod guidelines;
mod health;
mod hosts;
mod import;
mod judges;
mod leaderboard;
mod lists;
mod methods;
mod papers;
mod proxy;
mod pruning;
mod raters;
mod rating_page;
mod ratings;
mod request_log;
mod security;
mod target_list;
mod tokens;
mod upload;
mod view;

use std::net::{IpAddr, TcpListener};

use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};

use crate::domain::ByteSize;
use crate::study::Study;

pub use auth::Password;
pub use error::WebError;
pub use hosts::HostName;

/// The largest form body accepted (413 above it) but where a route says otherwise (a rating
/// with its note, the guidelines); a rating form without a note is about 150 bytes.
const FORM_LIMIT_BYTES: usize = 4 * 1024;

/// How forms of at most `limit` bytes are read: a larger one is 413, one that cannot be read
/// 400, each saying so.
fn form_config(limit: usize) -> web::FormConfig {
    web::FormConfig::default()
        .limit(limit)
        .error_handler(error::unreadable_form)
}

/// Who may use the app, and how it is reached.
#[derive(Debug, Clone, Default)]
pub struct Access {
    /// The owner signs in with this password; `None`: the owner does not sign in, and while
    /// the study has no raters everyone is let in, which the command line allows only on a
    /// loopback address.
    pub password: Option<Password>,
    /// The app is served beyond loopback: every visitor signs in (as the owner or a rater),
    /// whatever the study's raters.
    pub beyond_loopback: bool,
    /// A proxy serves the app over HTTPS: the cookies are marked `Secure`, and the proxy's
    /// `X-Forwarded-For` names the client (for slowing down password guessing).
    pub behind_tls: bool,
    /// The addresses of the TLS proxy, the only peers whose `X-Forwarded-For` (and
    /// `X-Forwarded-Host`) is believed; empty means loopback addresses (a proxy on this
    /// machine).
    pub trusted_proxies: Vec<IpAddr>,
    /// The names the app answers to besides the loopback names on its port (`serve --host`,
    /// which the command line allows only with a password or behind TLS); any other gets 421
    /// (DNS rebinding, see `hosts`).
    pub hosts: Vec<HostName>,
    /// The largest upload `POST /import` takes (413 above it).
    pub max_upload: ByteSize,
    /// How long an upload may send nothing before it is ended (408); `None`: a minute (the
    /// tests shorten it).
    pub upload_idle: Option<std::time::Duration>,
}

/// Starts the app on `listener` (port 0 in tests) for `study`; the returned server runs when
/// awaited.
pub fn run(listener: TcpListener, study: Study, access: Access) -> std::io::Result<Server> {
    // The loopback names are answered on the port bound, known once it is (port 0 in tests).
    let port = listener.local_addr()?.port();
    let answered = web::Data::new(hosts::Answered::new(access.hosts, port));
    // One for all workers: the study's write queue and the evaluation it keeps are shared.
    let study = web::Data::new(study);
    let proxy = proxy::Proxy::new(access.behind_tls, access.trusted_proxies);
    let form_secret = web::Data::new(csrf::FormSecret::default());
    let clients = auth::Clients::new(proxy.clone());
    let proxy = web::Data::new(proxy);
    // One for all workers: sessions and login attempts are shared.
    let auth = web::Data::new(auth::Auth::new(
        access.password,
        access.beyond_loopback,
        clients,
    ));
    let server = HttpServer::new(move || {
        App::new()
            .app_data(study.clone())
            .app_data(proxy.clone())
            .app_data(answered.clone())
            .app_data(form_secret.clone())
            .app_data(form_config(FORM_LIMIT_BYTES))
            .app_data(web::PathConfig::default().error_handler(error::unknown_path))
            .app_data(web::QueryConfig::default().error_handler(error::unreadable_query))
            .configure(auth::routes(auth.clone()))
            .wrap(from_fn(auth::require_session))
            // A request from another site is refused before anything else is asked of it.
            .wrap(from_fn(csrf::guard))
            .wrap(from_fn(methods::head_and_not_allowed))
            // Before anything, a request must be for a name this server answers to.
            .wrap(from_fn(hosts::guard))
            // Every error, a handler's or a refusal of the middleware above, is answered as
            // the request accepts: JSON or the error page.
            .wrap(from_fn(error::answer_errors_by_accept))
            // The headers wrap everything, so that every refusal and redirect carries them too.
            .wrap(security::headers())
            // Outside everything: every request's span, and its line once it is answered.
            .wrap(from_fn(request_log::log_request))
            .configure(routes)
            .configure(import::routes(upload::UploadLimit {
                size: access.max_upload,
                idle: access.upload_idle.unwrap_or(upload::UPLOAD_IDLE),
            }))
            .service(methods::every_other_address())
    })
    .listen(listener)?
    .run();
    Ok(server)
}

fn routes(config: &mut web::ServiceConfig) {
    config
        .configure(dashboard::routes)
        .configure(health::routes)
        .configure(target_list::routes)
        .configure(papers::routes)
        .configure(guidelines::routes)
        .configure(rating_page::routes)
        .configure(ratings::routes)
        .configure(leaderboard::routes)
        .configure(checks::routes)
        .configure(judges::routes)
        .configure(lists::routes)
        .configure(pruning::routes)
        .configure(raters::routes)
        .configure(downloads::routes)
        .configure(assets::routes);
}
