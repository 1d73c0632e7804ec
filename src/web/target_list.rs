//! `GET /targets`: every target with its progress; `GET /next`: the way to the next one.

use actix_web::http::header;
use actix_web::{web, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sqlx::SqlitePool;

use super::{view, WebError};
use crate::db;
use crate::db::targets::TargetSummary;

/// Which targets `/targets` lists: `?show=unfinished` hides the fully rated ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Show {
    #[default]
    All,
    Unfinished,
}

#[derive(Debug, Deserialize)]
pub struct ListQuery {
    #[serde(default)]
    show: Show,
}

#[derive(Template)]
#[template(path = "targets.html")]
struct TargetsPage {
    targets: Vec<TargetSummary>,
    only_unfinished: bool,
    finished: usize,
    total: usize,
}

pub async fn show(
    pool: web::Data<SqlitePool>,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, WebError> {
    let all = db::targets::all(&**pool).await?;
    let finished = all.iter().filter(|t| t.progress().is_finished()).count();
    let total = all.len();
    let only_unfinished = query.show == Show::Unfinished;
    let targets = all
        .into_iter()
        .filter(|target| !only_unfinished || !target.progress().is_finished())
        .collect();
    view::html(&TargetsPage {
        targets,
        only_unfinished,
        finished,
        total,
    })
}

/// 303 to the first target with unrated pairs, or to the dashboard when every pair is rated.
pub async fn next(pool: web::Data<SqlitePool>) -> Result<HttpResponse, WebError> {
    let location = match db::targets::first_with_unrated(&**pool).await? {
        Some(target) => format!("/targets/{}", target.0),
        None => "/".to_owned(),
    };
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish())
}
