//! The web app: one function builds it for `main` and for the tests, on any listener.

use std::net::TcpListener;

use actix_web::dev::Server;
use actix_web::{web, App, HttpResponse, HttpServer};
use askama::Template;
use sqlx::SqlitePool;

use crate::db;

/// Starts the app on `listener` (port 0 in tests); the returned server runs when awaited.
pub fn run(listener: TcpListener, pool: SqlitePool) -> std::io::Result<Server> {
    let pool = web::Data::new(pool);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(pool.clone())
            .route("/healthz", web::get().to(healthz))
            .route("/", web::get().to(dashboard))
    })
    .listen(listener)?
    .run();
    Ok(server)
}

async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain; charset=utf-8").body("ok")
}

#[derive(Template)]
#[template(path = "dashboard.html")]
struct DashboardPage {
    status: db::study::StudyStatus,
}

async fn dashboard(pool: web::Data<SqlitePool>) -> HttpResponse {
    let page = match db::study::status(&pool).await {
        Ok(status) => DashboardPage { status }.render(),
        Err(error) => {
            tracing::error!(%error, "cannot read the study status");
            return HttpResponse::InternalServerError().body("the study database failed");
        }
    };
    match page {
        Ok(html) => HttpResponse::Ok().content_type("text/html; charset=utf-8").body(html),
        Err(error) => {
            tracing::error!(%error, "cannot render the dashboard");
            HttpResponse::InternalServerError().body("cannot render the page")
        }
    }
}
