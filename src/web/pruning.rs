//! `POST /prune`: pruning on or off, as `paperjudge prune on|off` (see `study.pruning().set`).

use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;

use super::answer::see_other;
use super::auth::Owner;
use super::{csrf, WebError};
use crate::study::Study;

/// `POST /prune`.
pub fn routes(config: &mut web::ServiceConfig) {
    config.route("/prune", web::post().to(set));
}

/// Every field optional here, so that a missing one gets a 400 naming it (and a missing token a
/// 403).
#[derive(Debug, Deserialize)]
pub struct PruneForm {
    /// `on` or `off`.
    prune: Option<String>,
    csrf_token: Option<String>,
    /// The page the form was on: `/` (the default) or `/leaderboard`.
    back: Option<String>,
}

/// Turns pruning on or off and answers 303 back to the page the form was on.
async fn set(
    request: HttpRequest,
    study: web::Data<Study>,
    _: Owner,
    form: web::Form<PruneForm>,
) -> Result<HttpResponse, WebError> {
    let form = form.into_inner();
    csrf::verify(&request, form.csrf_token.as_deref())?;
    let on = match form.prune.as_deref() {
        Some("on") => true,
        Some("off") => false,
        None | Some("") => {
            return Err(WebError::BadRequest(
                "missing field: prune (on or off)".to_owned(),
            ))
        }
        Some(other) => {
            return Err(WebError::BadRequest(format!(
                "prune must be on or off, got {other:?}"
            )))
        }
    };
    let back = match form.back.as_deref() {
        Some("/leaderboard") => "/leaderboard",
        _ => "/",
    };
    study.pruning().set(on).await.map_err(WebError::of_change)?;
    Ok(see_other(back))
}
