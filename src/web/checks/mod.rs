//! `GET /checks` and `/checks.json`: can the leaderboard's verdict be trusted (pool bias, the
//! rater's consistency, variant sensitivity, time and drift), under the leaderboard's options
//! in the address; and `GET /checks/recheck` with its `POST`: one already rated pair at a
//! time, blind and without its rating, whose answer is stored apart from the ratings.
//!
//! The numbers come from the study's query (`study.evaluation().checks`), exactly as
//! `paperjudge checks` computes them.

mod chart;

use actix_web::http::header::ContentType;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::answer::see_other;
use super::auth::{Owner, Signed};
use super::csrf::{self, CsrfToken};
use super::leaderboard::LeaderboardQuery;
use super::rating_page::{scale, ScaleStep};
use super::view::{self, Nav, PaperView};
use super::WebError;
use crate::checks::{self, Checks, ModelBias, Variant, VersionReport};
use crate::domain::{PaperId, Stars};
use crate::study::recheck::{Recheck, RecheckProgress};
use crate::study::Study;
use crate::words;
use chart::BarChart;

pub const RECHECK_PATH: &str = "/checks/recheck";

/// `/checks`, `/checks.json` and `/checks/recheck`.
pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/checks", web::get().to(show))
        .route("/checks.json", web::get().to(json))
        .route(RECHECK_PATH, web::get().to(show_recheck))
        .route(RECHECK_PATH, web::post().to(record_recheck));
}

/// The checks the address asks for; `sort`, `order` and `per_target` change nothing here.
async fn asked(study: &Study, query: LeaderboardQuery) -> Result<Checks, WebError> {
    Ok(study
        .evaluation()
        .checks(&query.options, query.partial)
        .await?)
}

/// The checks read every rater's stars and times: the owner's alone in a study with raters.
async fn json(
    query: LeaderboardQuery,
    study: web::Data<Study>,
    _: Owner,
) -> Result<HttpResponse, WebError> {
    let checks = asked(&study, query).await?;
    Ok(HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(checks.to_json()))
}

#[derive(Template)]
#[template(path = "checks.html")]
struct ChecksPage {
    nav: Nav,
    checks: Checks,
    k: usize,
    settings_in_words: String,
    /// The address of the same checks as JSON.
    json_link: String,
    progress: RecheckProgress,
    per_day: Option<BarChart>,
    seconds: Option<BarChart>,
    /// The values of k of the variants, the sensitivity table's columns.
    variant_ks: Vec<usize>,
    /// The sensitivity table's rows: one per gain, ideal and unjudged, a variant per k.
    variant_rows: Vec<Vec<Variant>>,
}

impl ChecksPage {
    fn number(&self, value: &Option<f64>) -> String {
        words::page::number(*value, 3)
    }

    fn percent(&self, value: &Option<f64>) -> String {
        words::page::percent(*value, 0)
    }

    fn signed(&self, value: &Option<f64>) -> String {
        words::page::signed(*value, 3)
    }

    fn rank_moves(&self, row: &ModelBias) -> bool {
        row.rank != row.rank_without
    }

    /// The ranking in one line, for the tooltip of its cell.
    fn ranking(&self, variant: &Variant) -> String {
        let names: Vec<&str> = (variant.ranking.iter())
            .map(|placed| placed.model.as_str())
            .collect();
        names.join(" › ")
    }

    /// The share of the stars given under `version` that are `at + 1` stars.
    fn star_share(&self, version: &VersionReport, at: &usize) -> String {
        words::page::percent(version.stars_shares.map(|shares| shares[*at]), 0)
    }

    /// The day of an RFC 3339 time (`2026-12-01`).
    fn day<'a>(&self, at: &'a str) -> &'a str {
        at.get(..10).unwrap_or(at)
    }

    fn interval(&self) -> String {
        words::page::interval_or_missing(self.checks.consistency.kappa_ci95, 2)
    }
}

async fn show(
    request: HttpRequest,
    query: LeaderboardQuery,
    study: web::Data<Study>,
    _: Owner,
) -> Result<HttpResponse, WebError> {
    let checks = asked(&study, query).await?;
    let progress = study.recheck().progress(None).await?;
    let query = request.query_string();
    let mut variant_ks: Vec<usize> = (checks.sensitivity.variants.iter())
        .map(|variant| variant.k)
        .collect();
    variant_ks.sort_unstable();
    variant_ks.dedup();
    // The variants come gain by ideal by unjudged by k.
    let variant_rows = (checks.sensitivity.variants)
        .chunks(variant_ks.len().max(1))
        .map(<[Variant]>::to_vec)
        .collect();
    view::html(&ChecksPage {
        nav: Nav::OWNER,
        k: checks.settings.metrics.k.get(),
        settings_in_words: checks.settings.metrics.describe(),
        json_link: if query.is_empty() {
            "/checks.json".to_owned()
        } else {
            format!("/checks.json?{query}")
        },
        progress,
        per_day: BarChart::per_day(&checks.timing),
        seconds: BarChart::seconds(&checks.timing),
        variant_ks,
        variant_rows,
        checks,
    })
}

#[derive(Template)]
#[template(path = "recheck.html")]
struct RecheckPage {
    nav: Nav,
    /// The pair to re-check: none when every rated pair of the finished targets is done.
    pair: Option<(PaperView, PaperView)>,
    progress: RecheckProgress,
    suggested: i64,
    scale: Vec<ScaleStep>,
    csrf_token: String,
    /// In a study with raters, the rater whose page this is: the form says so, so that it
    /// changes nothing once another rater signed in on the same browser.
    rater: Option<String>,
}

/// Blind: the page shows the target and the paper as the rating page does, and never their
/// stored rating; it reads no model, list, rank or score. Each rater re-checks their own
/// ratings.
async fn show_recheck(
    study: web::Data<Study>,
    Signed(rater): Signed,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    let Recheck {
        progress,
        pair,
        with_raters,
    } = study.recheck().page(&rater).await?;
    let page = RecheckPage {
        nav: Nav::of(&rater),
        pair: pair.map(|(target, paper)| (target.into(), paper.into())),
        progress,
        suggested: checks::suggested_rechecks(progress.rated_in_finished),
        scale: scale(),
        csrf_token: csrf.value().to_owned(),
        rater: with_raters.then(|| rater.name.to_string()),
    };
    let mut response = view::html(&page)?;
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}

/// The re-check form as posted; every field optional so that a missing one gets a 400 naming
/// it (and a missing token a 403).
#[derive(Debug, Deserialize)]
pub struct RecheckForm {
    target: Option<String>,
    paper: Option<String>,
    stars: Option<String>,
    csrf_token: Option<String>,
    /// Whose re-check page the form is on (a study with raters writes it).
    rater: Option<String>,
}

/// Stores the answer apart from the ratings, durably, then shows the next pair.
async fn record_recheck(
    request: HttpRequest,
    study: web::Data<Study>,
    Signed(rater): Signed,
    form: web::Form<RecheckForm>,
) -> Result<HttpResponse, WebError> {
    let RecheckForm {
        target,
        paper,
        stars,
        csrf_token,
        rater: page,
    } = form.into_inner();
    let browser = csrf::verify(&request, csrf_token.as_deref()).map_err(WebError::of_change)?;
    super::ratings::own_page(page.as_deref(), &rater)?;
    let field = |value: Option<String>, name: &str| {
        value
            .filter(|value| !value.is_empty())
            .ok_or_else(|| WebError::BadRequest(format!("missing field: {name}")))
    };
    let target = field(target, "target (the target's id)")?;
    let paper = field(paper, "paper (the paper's id)")?;
    let stars = field(stars, "stars (1 to 5)")?;
    let stars: Stars = stars
        .parse()
        .map_err(|_| WebError::BadRequest(format!("stars must be 1 to 5; got {stars:?}")))?;
    let (target, paper) = (PaperId::given(&target), PaperId::given(&paper));
    (study
        .recheck()
        .record(&target, &paper, stars, &browser.history_tag(), &rater)
        .await)
        .map_err(WebError::of_change)?;
    Ok(see_other(RECHECK_PATH))
}
