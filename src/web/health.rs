//! `GET /healthz`: answers `ok` while the server runs, for a proxy or a service manager to
//! poll; anyone may ask, with or without a password.

use actix_web::{web, HttpResponse};

pub const PATH: &str = "/healthz";

pub fn routes(config: &mut web::ServiceConfig) {
    config.route(PATH, web::get().to(healthz));
}

async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body("ok")
}
