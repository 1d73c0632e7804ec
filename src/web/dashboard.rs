//! `GET /`: how far the study is, the way to continue rating, and the top of the leaderboard.

use actix_web::{web, HttpResponse};
use askama::Template;
use sqlx::SqlitePool;

use super::{view, WebError};
use crate::db;
use crate::db::targets::Progress;

#[derive(Template)]
#[template(path = "dashboard.html")]
struct DashboardPage {
    pairs: Progress,
    targets: Progress,
    // The top of the leaderboard goes here once `crate::evaluation` exists; until then the
    // template shows the note that it appears once ratings exist.
}

pub async fn show(pool: web::Data<SqlitePool>) -> Result<HttpResponse, WebError> {
    let status = db::study::status(&pool).await?;
    view::html(&DashboardPage {
        pairs: Progress {
            rated: status.rated_pairs,
            total: status.pooled_pairs,
        },
        targets: Progress {
            rated: status.targets_finished,
            total: status.targets,
        },
    })
}
