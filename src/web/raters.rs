//! `GET /raters` (the owner's): the study's raters, each with their progress, and the rating
//! plan in words. Read only: raters are added, removed and given passwords with `paperjudge
//! raters`, which the page says. A rater gets 403, as on every page of the whole study.

use actix_web::{web, HttpResponse};
use askama::Template;

use super::auth::Owner;
use super::view::{self, Nav};
use super::WebError;
use crate::study::raters::RaterProgress;
use crate::study::Study;
use crate::words::{capitalized, thousands};

/// `GET /raters`.
pub fn routes(config: &mut web::ServiceConfig) {
    config.route("/raters", web::get().to(show));
}

#[derive(Template)]
#[template(path = "raters.html")]
struct RatersPage {
    nav: Nav,
    plan_in_words: String,
    raters: Vec<RaterView>,
}

/// A rater's row: their name and counts as the page writes them.
struct RaterView {
    name: String,
    ratings: String,
    targets_finished: String,
    targets_in_progress: String,
    active: bool,
}

impl From<RaterProgress> for RaterView {
    fn from(rater: RaterProgress) -> RaterView {
        RaterView {
            name: rater.name.as_str().to_owned(),
            ratings: thousands(rater.ratings),
            targets_finished: thousands(rater.targets_finished),
            targets_in_progress: thousands(rater.targets_in_progress),
            active: rater.active,
        }
    }
}

async fn show(study: web::Data<Study>, _: Owner) -> Result<HttpResponse, WebError> {
    let raters = study.raters().list().await?;
    view::html(&RatersPage {
        nav: Nav::OWNER,
        plan_in_words: capitalized(&raters.plan.in_words()),
        raters: raters.raters.into_iter().map(RaterView::from).collect(),
    })
}
