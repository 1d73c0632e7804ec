//! `GET /`: how far the study is, the way to continue rating, and the top of the leaderboard.

use actix_web::{web, HttpResponse};
use askama::Template;
use sqlx::SqlitePool;

use super::leaderboard::{self, LeaderboardQuery, RowView};
use super::{view, WebError};
use crate::db;
use crate::db::targets::Progress;

#[derive(Template)]
#[template(path = "dashboard.html")]
struct DashboardPage {
    pairs: Progress,
    targets: Progress,
    /// The cutoff of the leaderboard's default settings.
    k: usize,
    /// The top of the leaderboard under the default settings; empty until ratings exist.
    leaders: Vec<RowView>,
}

/// How many models the dashboard shows of the leaderboard.
const LEADERS_SHOWN: usize = 3;

pub async fn show(pool: web::Data<SqlitePool>) -> Result<HttpResponse, WebError> {
    let status = db::study::status(&pool).await?;
    let board = leaderboard::compute(&pool, &LeaderboardQuery::default()).await?;
    let leaders = if board.targets.evaluated > 0 {
        board
            .models
            .iter()
            .take(LEADERS_SHOWN)
            .map(RowView::new)
            .collect()
    } else {
        Vec::new()
    };
    view::html(&DashboardPage {
        pairs: Progress {
            rated: status.rated_pairs,
            total: status.pooled_pairs,
        },
        targets: Progress {
            rated: status.targets_finished,
            total: status.targets,
        },
        k: board.settings.k.get(),
        leaders,
    })
}
