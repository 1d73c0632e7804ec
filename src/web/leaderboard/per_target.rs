//! The leaderboard per target, for fully rated targets only.
//!
//! - `GET /leaderboard/targets`: a targets × models matrix of NDCG@k, shaded by value.
//! - `GET /leaderboard/targets/{n}`: each model's top k for one target with the stars of each
//!   paper; 403 while the target's pool is not fully rated.
//!
//! Both unblind: they tell which model found which paper. Shown only once a target is fully
//! rated, they can never bias a rating still to come; a target they showed is recorded as
//! unblinded, so that a later change of its ratings is marked in the history. Both take the
//! leaderboard's options; `partial=include` does not apply here.

use std::collections::HashMap;

use actix_web::http::header::ContentType;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use sqlx::SqlitePool;

use super::LeaderboardQuery;
use crate::db;
use crate::db::targets::Progress;
use crate::db::unblinded::ListedPaper;
use crate::domain::{PaperId, Stars};
use crate::evaluation::{self, PerTarget, Scope};
use crate::leaderboard::Partial;
use crate::web::{view, WebError};

#[derive(Template)]
#[template(path = "leaderboard_targets.html")]
struct TargetMatrixPage {
    settings_in_words: String,
    models: Vec<String>,
    rows: Vec<MatrixRow>,
    /// Targets left out because their pools are not fully rated.
    unfinished: usize,
    back: String,
}

/// A fully rated target and each model's NDCG@k on it.
struct MatrixRow {
    external_id: String,
    title: String,
    link: String,
    cells: Vec<MatrixCell>,
}

struct MatrixCell {
    text: String,
    /// `shade-0` (NDCG 0) to `shade-10` (NDCG 1), or `shade-none` when undefined.
    shade: String,
}

impl MatrixCell {
    fn new(ndcg: Option<f64>) -> MatrixCell {
        match ndcg {
            Some(ndcg) => MatrixCell {
                text: format!("{ndcg:.3}"),
                shade: format!("shade-{}", (ndcg.clamp(0.0, 1.0) * 10.0).round()),
            },
            None => MatrixCell {
                text: "–".to_owned(),
                shade: "shade-none".to_owned(),
            },
        }
    }
}

pub async fn matrix(
    request: HttpRequest,
    pool: web::Data<SqlitePool>,
) -> Result<HttpResponse, WebError> {
    let query = LeaderboardQuery {
        per_target: true,
        partial: Partial::Exclude,
        ..LeaderboardQuery::parse(request.query_string())?
    };
    let settings = evaluation::settings(&pool, &query.options).await?;
    let scope = Scope {
        per_target: PerTarget::All,
        partial: Partial::Exclude,
    };
    let board = evaluation::leaderboard(&pool, settings, scope).await?;
    // Per-target rows come target by target, models in leaderboard order.
    let mut ndcg_by_target: HashMap<&str, Vec<Option<f64>>> = HashMap::new();
    for row in board.per_target.iter().flatten() {
        ndcg_by_target
            .entry(&row.target)
            .or_default()
            .push(row.ndcg);
    }
    let targets = db::targets::list(&**pool, db::targets::Listing::EVERY_TARGET).await?;
    let (finished, unfinished): (Vec<_>, Vec<_>) =
        (targets.into_iter()).partition(|target| target.progress().is_finished());
    let rows = (finished.into_iter())
        .filter_map(|target| {
            let cells = ndcg_by_target.get(target.external_id.as_str())?;
            Some(MatrixRow {
                link: query.link(&format!("/leaderboard/targets/{}", target.id), &[]),
                cells: cells.iter().copied().map(MatrixCell::new).collect(),
                external_id: target.external_id,
                title: target.title,
            })
        })
        .collect();
    view::html(&TargetMatrixPage {
        settings_in_words: board.settings.describe(),
        models: board.models.iter().map(|row| row.model.clone()).collect(),
        rows,
        unfinished: unfinished.len(),
        back: query.link("/leaderboard", &[]),
    })
}

#[derive(Template)]
#[template(path = "leaderboard_target.html")]
struct TargetBreakdownPage {
    target_id: i64,
    external_id: String,
    title: String,
    progress: Progress,
    settings_in_words: String,
    k: usize,
    /// `None` while the target is not fully rated.
    lists: Option<Vec<ModelList>>,
    back: String,
}

/// One model on the target: its NDCG@k and Judged@k there, and its top k.
struct ModelList {
    model: String,
    rank: usize,
    ndcg: String,
    judged_at_k: String,
    papers: Vec<PaperInList>,
}

struct PaperInList {
    position: i64,
    external_id: String,
    title: String,
    stars: Option<Stars>,
}

impl PaperInList {
    fn new(listed: ListedPaper) -> PaperInList {
        PaperInList {
            position: listed.position,
            external_id: listed.paper,
            title: listed.title,
            stars: listed.stars.and_then(Stars::new),
        }
    }

    /// Filled and empty stars, e.g. `★★★☆☆`.
    fn glyphs(&self) -> String {
        let filled = self.stars.map_or(0, |stars| usize::from(stars.get()));
        format!("{}{}", "★".repeat(filled), "☆".repeat(5 - filled))
    }
}

pub async fn target(
    request: HttpRequest,
    pool: web::Data<SqlitePool>,
    path: web::Path<i64>,
) -> Result<HttpResponse, WebError> {
    let query = LeaderboardQuery {
        per_target: true,
        partial: Partial::Exclude,
        ..LeaderboardQuery::parse(request.query_string())?
    };
    let key = PaperId(path.into_inner());
    let no_such_target = || WebError::NotFound("there is no target with this id".to_owned());
    let paper = db::papers::get(&**pool, key)
        .await?
        .ok_or_else(no_such_target)?;
    let progress = db::targets::progress(&**pool, key)
        .await?
        .ok_or_else(no_such_target)?;
    let settings = evaluation::settings(&pool, &query.options).await?;
    let mut page = TargetBreakdownPage {
        target_id: key.0,
        external_id: paper.external_id,
        title: paper.title,
        progress,
        settings_in_words: settings.describe(),
        k: settings.k.get(),
        lists: None,
        back: query.link("/leaderboard/targets", &[]),
    };
    let Some(listed) = db::unblinded::top_lists(&pool, key, settings.k.get()).await? else {
        return Ok(HttpResponse::Forbidden()
            .content_type(ContentType::html())
            .body(page.render()?));
    };
    let scope = Scope {
        per_target: PerTarget::Only(key),
        partial: Partial::Exclude,
    };
    let board = evaluation::leaderboard(&pool, settings, scope).await?;
    let mut papers_by_model: HashMap<String, Vec<PaperInList>> = HashMap::new();
    for paper in listed {
        (papers_by_model.entry(paper.model.clone()).or_default()).push(PaperInList::new(paper));
    }
    let scores: HashMap<&str, _> = (board.per_target.iter().flatten())
        .filter(|row| row.target == page.external_id)
        .map(|row| (row.model.as_str(), (row.ndcg, row.judged_at_k)))
        .collect();
    let number = |value: Option<f64>| value.map_or_else(|| "–".to_owned(), |v| format!("{v:.3}"));
    let lists = (board.models.iter())
        .map(|row| {
            let (ndcg, judged_at_k) = scores.get(row.model.as_str()).copied().unwrap_or_default();
            ModelList {
                model: row.model.clone(),
                rank: row.rank,
                ndcg: number(ndcg),
                judged_at_k: number(judged_at_k),
                papers: papers_by_model.remove(&row.model).unwrap_or_default(),
            }
        })
        .collect();
    page.lists = Some(lists);
    view::html(&page)
}
