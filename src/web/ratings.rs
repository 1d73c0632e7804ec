//! `POST /targets/{n}/ratings` and `POST /targets/{n}/undo`: every change of a rating.
//!
//! Each change commits (durably: WAL with `synchronous = FULL`) before the answer is sent, so
//! "saved" on the page means saved. The answer is JSON when the request accepts it (the
//! rating script), else a 303 back to the paper on the rating page (a plain form). A change
//! that could not be saved gets an error saying so: 503 while an import holds the study, 507
//! when the disk is full, 500 otherwise.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use sqlx::{SqliteConnection, SqlitePool};

use super::csrf::{self, BrowserSession};
use super::error::accepts_json;
use super::rating_page::no_such_target;
use super::{view, WebError};
use crate::db;
use crate::db::ratings::{Source, Undone};
use crate::db::targets::Progress;
use crate::db::WriteQueue;
use crate::domain::{PaperId, Stars};

/// The rating form as posted; every field is optional here so that a missing one gets a 400
/// naming it (and a missing token a 403) instead of a generic parse error.
#[derive(Debug, Deserialize)]
pub struct RatingForm {
    paper: Option<String>,
    stars: Option<String>,
    csrf_token: Option<String>,
}

/// A valid rating request: which paper, and its new stars (`None` clears the rating).
struct RatingChange {
    paper: String,
    stars: Option<Stars>,
}

impl RatingChange {
    fn parse(paper: Option<String>, stars: Option<String>) -> Result<RatingChange, WebError> {
        let paper = paper
            .filter(|paper| !paper.is_empty())
            .ok_or_else(|| WebError::BadRequest("missing field: paper (the paper's id)".into()))?;
        let stars = match stars.as_deref() {
            None | Some("") => {
                return Err(WebError::BadRequest(
                    "missing field: stars (1 to 5, or clear)".into(),
                ))
            }
            Some("clear") => None,
            Some(text) => Some(text.parse::<Stars>().map_err(|_| {
                WebError::BadRequest(format!("stars must be 1 to 5, or clear; got {text:?}"))
            })?),
        };
        Ok(RatingChange { paper, stars })
    }
}

#[derive(Debug, Serialize)]
struct SavedAnswer<'a> {
    saved: bool,
    paper: &'a str,
    stars: Option<u8>,
    target_progress: Progress,
}

pub async fn rate(
    request: HttpRequest,
    pool: web::Data<SqlitePool>,
    write_queue: web::Data<WriteQueue>,
    target: web::Path<i64>,
    form: web::Form<RatingForm>,
) -> Result<HttpResponse, actix_web::Error> {
    let target = PaperId(target.into_inner());
    let RatingForm {
        paper,
        stars,
        csrf_token,
    } = form.into_inner();
    let saved = async {
        let browser = csrf::verify(&request, csrf_token.as_deref())?;
        let change = RatingChange::parse(paper, stars)?;
        let progress = save_rating(&pool, &write_queue, target, &change, &browser).await?;
        Ok::<_, WebError>((change, progress))
    }
    .await;
    let (change, progress) = saved.map_err(|error| error.of_change().answer_for(&request))?;
    Ok(if accepts_json(&request) {
        HttpResponse::Ok().json(SavedAnswer {
            saved: true,
            paper: &change.paper,
            stars: change.stars.map(Stars::get),
            target_progress: progress,
        })
    } else {
        back_to_paper(target, Some(&change.paper))
    })
}

/// Stores the change and answers the target's progress after it, in one durable transaction.
async fn save_rating(
    pool: &SqlitePool,
    write_queue: &WriteQueue,
    target: PaperId,
    change: &RatingChange,
    browser: &BrowserSession,
) -> Result<Progress, WebError> {
    let mut tx = write_queue.begin(pool).await?;
    let saved = store_rating(&mut tx, target, change, browser).await;
    tx.finish(saved).await
}

async fn store_rating(
    conn: &mut SqliteConnection,
    target: PaperId,
    change: &RatingChange,
    browser: &BrowserSession,
) -> Result<Progress, WebError> {
    target_progress(conn, target).await?;
    let not_in_pool = || {
        WebError::BadRequest(format!(
            "paper {:?} is not in the pool of this target",
            change.paper
        ))
    };
    let paper = db::papers::key_of(&mut *conn, &change.paper)
        .await?
        .ok_or_else(not_in_pool)?;
    if !db::blind_pool::contains(&mut *conn, target, paper).await? {
        return Err(not_in_pool());
    }
    let rated_at = db::now_rfc3339();
    let source = Source::Web {
        browser: &browser.history_tag(),
    };
    db::ratings::set(conn, target, paper, change.stars, &rated_at, source).await?;
    target_progress(conn, target).await
}

#[derive(Debug, Deserialize)]
pub struct UndoForm {
    csrf_token: Option<String>,
}

/// What an undo did: the paper whose rating went back, and to which stars. `undone` is false
/// with a `paper` when another rater (or an import) changed that paper after this browser's
/// change: their rating stays, and `stars` is it.
#[derive(Debug, Serialize)]
struct UndoAnswer {
    undone: bool,
    paper: Option<String>,
    stars: Option<u8>,
    target_progress: Progress,
}

/// Reverts the last change this browser session made on this target; see
/// [`db::ratings::undo_last_web_change`] for how undos walk back through the history.
pub async fn undo(
    request: HttpRequest,
    pool: web::Data<SqlitePool>,
    write_queue: web::Data<WriteQueue>,
    target: web::Path<i64>,
    form: web::Form<UndoForm>,
) -> Result<HttpResponse, actix_web::Error> {
    let target = PaperId(target.into_inner());
    let undone = async {
        let browser = csrf::verify(&request, form.csrf_token.as_deref())?;
        let mut tx = write_queue.begin(&pool).await?;
        let undone = undo_last_change(&mut tx, target, &browser).await;
        tx.finish(undone).await
    }
    .await
    .map_err(|error| error.of_change().answer_for(&request))?;
    Ok(if accepts_json(&request) {
        HttpResponse::Ok().json(&undone)
    } else {
        back_to_paper(target, undone.paper.as_deref())
    })
}

async fn undo_last_change(
    conn: &mut SqliteConnection,
    target: PaperId,
    browser: &BrowserSession,
) -> Result<UndoAnswer, WebError> {
    target_progress(conn, target).await?;
    let rated_at = db::now_rfc3339();
    let undone =
        db::ratings::undo_last_web_change(conn, target, &browser.history_tag(), &rated_at).await?;
    let (undone, paper, stars) = match undone {
        None => (false, None, None),
        Some(Undone::Reverted(reverted)) => (true, Some(reverted.paper), reverted.change.current),
        Some(Undone::Superseded { paper, kept }) => (false, Some(paper), kept),
    };
    let paper = match paper {
        Some(paper) => db::papers::get(&mut *conn, paper)
            .await?
            .map(|paper| paper.external_id),
        None => None,
    };
    Ok(UndoAnswer {
        undone,
        paper,
        stars: stars.map(Stars::get),
        target_progress: target_progress(conn, target).await?,
    })
}

/// The target's progress; a 404 when the paper is no target.
async fn target_progress(
    conn: &mut SqliteConnection,
    target: PaperId,
) -> Result<Progress, WebError> {
    db::targets::progress(conn, target)
        .await?
        .ok_or_else(|| no_such_target(target))
}

/// The 303 of a plain form: back to the rating page, at the paper when there is one.
fn back_to_paper(target: PaperId, paper: Option<&str>) -> HttpResponse {
    let fragment = paper
        .map(|paper| format!("#{}", view::anchor(paper)))
        .unwrap_or_default();
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, format!("/targets/{}{fragment}", target.0)))
        .finish()
}
