//! Downloads: the leaderboard as CSV and JSON for the options in the address, byte for byte
//! what `paperjudge leaderboard --format csv|json` prints, and the ratings CSV and qrels of
//! `paperjudge export`. In a study with raters, a rater downloads their own ratings only, and
//! the qrels (everyone's judgments) are the owner's.

use actix_web::http::header;
use actix_web::{web, HttpResponse};
use serde::Deserialize;

use super::auth::{Owner, Signed};
use super::leaderboard::{self, LeaderboardQuery};
use super::WebError;
use crate::export;
use crate::metrics::{Judgments, Relevance};
use crate::study::Study;

/// The leaderboard's CSV and JSON, the ratings CSV and the qrels.
pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/leaderboard.csv", web::get().to(leaderboard_csv))
        .route("/leaderboard.json", web::get().to(leaderboard_json))
        .route("/export/ratings.csv", web::get().to(ratings_csv))
        .route("/export/qrels.txt", web::get().to(qrels));
}

/// `GET /leaderboard.csv`: one row per model, or with `per_target=1` one row per model and
/// target, as `--format csv [--per-target]`.
pub async fn leaderboard_csv(
    query: LeaderboardQuery,
    study: web::Data<Study>,
    signed: Signed,
) -> Result<HttpResponse, WebError> {
    query.allowed_for(&signed)?;
    let board = leaderboard::asked(&study, &query).await?.board;
    let csv = if query.per_target {
        board.per_target_csv()
    } else {
        board.to_csv()
    };
    Ok(download("text/csv; charset=utf-8", "leaderboard.csv", csv))
}

/// `GET /leaderboard.json`, as `--format json [--per-target]`.
pub async fn leaderboard_json(
    query: LeaderboardQuery,
    study: web::Data<Study>,
    signed: Signed,
) -> Result<HttpResponse, WebError> {
    query.allowed_for(&signed)?;
    // A rater reads it blind to the others (their leaders, whether they rated).
    let board = leaderboard::asked(&study, &query)
        .await?
        .seen_by(signed.rater_only());
    Ok(download(
        "application/json",
        "leaderboard.json",
        board.to_json(query.per_target),
    ))
}

/// `GET /export/ratings.csv`: the ratings CSV of `paperjudge export ratings`; a rater's own
/// ratings in a study with raters.
pub async fn ratings_csv(
    study: web::Data<Study>,
    signed: Signed,
) -> Result<HttpResponse, WebError> {
    let rows = study.rating().ratings(signed.rater_only()).await?;
    let mut csv = Vec::new();
    export::ratings_csv(&rows, &mut csv).map_err(|error| WebError::Internal(Box::new(error)))?;
    Ok(download("text/csv; charset=utf-8", "ratings.csv", csv))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QrelsQuery {
    #[serde(default)]
    relevance: Relevance,
    /// As the leaderboard's `judgments`.
    judgments: Option<String>,
    /// `finished`: the fully rated targets' pairs only, the leaderboard's; `all` (the
    /// default) every rated pair.
    targets: Option<String>,
}

/// `GET /export/qrels.txt[?relevance=stars][&judgments=...][&targets=finished]`: the qrels of
/// `paperjudge export qrels`.
pub async fn qrels(
    study: web::Data<Study>,
    _: Owner,
    query: web::Query<QrelsQuery>,
) -> Result<HttpResponse, WebError> {
    let judgments = match query.judgments.as_deref().filter(|text| !text.is_empty()) {
        Some(text) => text.parse::<Judgments>().map_err(WebError::BadRequest)?,
        None => Judgments::default(),
    };
    let judged = match query.targets.as_deref() {
        None | Some("") | Some("all") => study.rating().judged_pairs(&judgments).await?,
        Some("finished") => {
            study
                .rating()
                .judged_pairs_of_finished_targets(&judgments)
                .await?
        }
        Some(other) => {
            return Err(WebError::BadRequest(format!(
                "targets must be all or finished, got {other:?}"
            )))
        }
    };
    let mut qrels = Vec::new();
    export::qrels(&judged, query.relevance, &mut qrels)
        .map_err(|error| WebError::Internal(Box::new(error)))?;
    Ok(download("text/plain; charset=utf-8", "qrels.txt", qrels))
}

/// A file to save under `filename`.
fn download(content_type: &'static str, filename: &str, body: impl Into<Vec<u8>>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, content_type))
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"paperjudge-{filename}\""),
        ))
        .body(body.into())
}
