//! The leaderboard per target, for fully rated targets only.
//!
//! - `GET /leaderboard/targets`: a targets × models matrix of NDCG@k, shaded by value.
//! - `GET /leaderboard/targets/{n}`: each model's top k for one target with the stars of each
//!   paper, and the raters' notes; 403 while the target's pool is not fully rated.
//!
//! Both unblind: they tell which model found which paper. Shown only once a target is fully
//! rated, they can never bias a rating still to come, and every later change of a rating of
//! that target is marked in the history as made with its provenance known (by the command
//! that makes it; the aggregate numbers give it away too). Neither writes anything. Both take the
//! leaderboard's options; `partial=include` does not apply here.

use actix_web::http::header::ContentType;
use actix_web::{web, HttpResponse};
use askama::Template;

use super::LeaderboardQuery;
use crate::domain::Progress;
use crate::domain::{Grade, PaperId, PaperKey};
use crate::leaderboard::{columns, Partial};
use crate::study::evaluation::{Evaluated, ModelOnTarget, TargetView};
use crate::study::papers::ListedPaper;
use crate::study::rating::RaterNote;
use crate::study::Study;
use crate::web::auth::Owner;
use crate::web::view::{self, Nav};
use crate::web::WebError;
use crate::words::page;

#[derive(Template)]
#[template(path = "leaderboard_targets.html")]
struct TargetMatrixPage {
    nav: Nav,
    settings_in_words: String,
    /// With raters: how one judgment per pair came from their stars.
    judgments: Option<String>,
    models: Vec<String>,
    rows: Vec<MatrixRow>,
    /// Targets left out because their pools are not fully rated.
    unfinished: i64,
    back: String,
}

/// A fully rated target and each model's NDCG@k on it.
struct MatrixRow {
    external_id: String,
    title: String,
    link: String,
    cells: Vec<MatrixCell>,
}

/// A value from 0 to 1 in a matrix (NDCG here; the lists' overlaps too): its number, and a
/// shade that only helps the eye.
pub struct MatrixCell {
    pub text: String,
    /// `shade-0` (0) to `shade-10` (1), or `shade-none` when undefined.
    pub shade: String,
}

impl MatrixCell {
    pub fn new(ndcg: Option<f64>) -> MatrixCell {
        match ndcg {
            Some(ndcg) => MatrixCell {
                text: page::number(Some(ndcg), 3),
                shade: format!("shade-{}", (ndcg.clamp(0.0, 1.0) * 10.0).round()),
            },
            None => MatrixCell {
                text: page::MISSING.to_owned(),
                shade: "shade-none".to_owned(),
            },
        }
    }
}

/// The owner's alone in a study with raters: a target's judgments would tell a rater the
/// others' stars.
pub async fn matrix(
    query: LeaderboardQuery,
    study: web::Data<Study>,
    _: Owner,
) -> Result<HttpResponse, WebError> {
    let query = LeaderboardQuery {
        per_target: true,
        partial: Partial::Exclude,
        ..query
    };
    let Evaluated { set, board } = super::asked(&study, &query).await?;
    // Listed in the order their papers were imported, as the target list is.
    let mut targets: Vec<_> = board.per_target.iter().collect();
    targets.sort_by_key(|target| set.targets[target.position].0);
    let rows = (targets.into_iter())
        .map(|target| {
            let (key, title) = &set.targets[target.position];
            MatrixRow {
                external_id: target.target.clone(),
                title: title.clone(),
                link: query.link(&format!("/leaderboard/targets/{}", key.0), &[]),
                cells: (0..board.models.len())
                    .map(|row| MatrixCell::new(target.value(row, columns::RANKING)))
                    .collect(),
            }
        })
        .collect();
    view::html(&TargetMatrixPage {
        nav: Nav::OWNER,
        settings_in_words: board.settings.describe(),
        judgments: board
            .judgments
            .as_ref()
            .map(|judgments| judgments.describe()),
        models: board.models.iter().map(|row| row.model.clone()).collect(),
        rows,
        unfinished: set.overview.active - set.overview.finished,
        back: query.link("/leaderboard", &[]),
    })
}

#[derive(Template)]
#[template(path = "leaderboard_target.html")]
struct TargetBreakdownPage {
    nav: Nav,
    target_id: i64,
    external_id: PaperId,
    title: String,
    progress: Progress,
    settings_in_words: String,
    /// With raters: how one judgment per pair came from their stars.
    judgments: Option<String>,
    k: usize,
    /// `None` while the target is not fully rated.
    lists: Option<Vec<ModelList>>,
    /// The raters' notes on its pairs (a fully rated target's only).
    notes: Vec<RaterNote>,
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
    external_id: PaperId,
    title: String,
    /// The paper's judgment on the target: whole stars, or with `judgments=mean` the mean of
    /// its raters' stars.
    stars: Option<Grade>,
    /// Unjudged because its raters could not judge it.
    cannot_judge: bool,
}

impl ModelList {
    fn new(model: &ModelOnTarget) -> ModelList {
        let number = |value| page::number(value, 3);
        ModelList {
            model: model.model.clone(),
            rank: model.rank,
            ndcg: number(model.scores.ndcg),
            judged_at_k: number(model.scores.judged_at_k),
            papers: model.papers.iter().map(PaperInList::new).collect(),
        }
    }
}

impl PaperInList {
    fn new(listed: &ListedPaper) -> PaperInList {
        PaperInList {
            position: listed.position,
            external_id: listed.paper.clone(),
            title: listed.title.clone(),
            stars: listed.judgment,
            cannot_judge: listed.cannot_judge,
        }
    }

    /// Filled and empty stars, e.g. `★★★☆☆` (a mean between two: the whole stars below it).
    fn glyphs(&self) -> String {
        let filled = self.stars.map_or(0, |grade| grade.get().floor() as usize);
        format!("{}{}", "★".repeat(filled), "☆".repeat(5 - filled))
    }
}

pub async fn target(
    query: LeaderboardQuery,
    study: web::Data<Study>,
    _: Owner,
    path: web::Path<i64>,
) -> Result<HttpResponse, WebError> {
    let query = LeaderboardQuery {
        per_target: true,
        partial: Partial::Exclude,
        ..query
    };
    let key = PaperKey(path.into_inner());
    let TargetView {
        target,
        progress,
        settings,
        judgments,
        models,
        notes,
    } = study.evaluation().target_view(key, &query.options).await?;
    let page = TargetBreakdownPage {
        nav: Nav::OWNER,
        target_id: key.0,
        external_id: target.external_id,
        title: target.title,
        progress,
        settings_in_words: settings.describe(),
        judgments: judgments.map(|judgments| judgments.describe()),
        k: settings.k.get(),
        lists: (models.as_ref()).map(|models| models.iter().map(ModelList::new).collect()),
        notes,
        back: query.link("/leaderboard/targets", &[]),
    };
    if page.lists.is_none() {
        return Ok(HttpResponse::Forbidden()
            .content_type(ContentType::html())
            .body(page.render()?));
    }
    view::html(&page)
}
