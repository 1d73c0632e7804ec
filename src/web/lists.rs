//! `GET /lists` and `/lists.json`: what the models' lists say, under the options in the address
//! (`k`, `rbo-p`, `partial`), exactly as `paperjudge lists` computes them
//! (`study.lists().view`).
//!
//! Open to everyone who may use the app, raters too: the view reads the lists of fully rated
//! targets only, so it names no paper's provenance on a target anyone still rates (see
//! [`crate::lists`]). `partial=include` adds the targets still being rated: the owner's, for
//! planning (403 for a rater), and the page then says what that gives away.

use std::future::{ready, Ready};
use std::sync::Arc;

use actix_web::dev::Payload;
use actix_web::http::header::ContentType;
use actix_web::{web, FromRequest, HttpRequest, HttpResponse};
use askama::Template;

use super::auth::Signed;
use super::leaderboard::MatrixCell;
use super::view::{self, Nav};
use super::WebError;
use crate::leaderboard::Partial;
use crate::lists::{Lists, ListsOptions, Pair, READS_LISTS_ONLY};
use crate::study::Study;
use crate::words;

/// `/lists` and `/lists.json`.
pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/lists", web::get().to(show))
        .route("/lists.json", web::get().to(json));
}

/// The options an address asks for; a wrong one is a 400 naming it.
struct ListsQuery(ListsOptions);

impl ListsQuery {
    /// Parses a query string; an empty value counts as left out, the last of a repeated
    /// parameter wins.
    fn parse(query_string: &str) -> Result<ListsQuery, WebError> {
        let pairs = web::Query::<Vec<(String, String)>>::from_query(query_string)
            .map_err(|error| WebError::BadRequest(format!("the address cannot be read: {error}")))?
            .into_inner();
        let mut options = ListsOptions::default();
        for (name, value) in pairs.iter().filter(|(_, value)| !value.is_empty()) {
            match options.read(name, value) {
                Some(read) => read.map_err(WebError::BadRequest)?,
                None => {
                    return Err(WebError::BadRequest(format!(
                        "{name:?} is not a parameter of the lists; the parameters are: {}",
                        ListsOptions::PARAMETERS
                    )))
                }
            }
        }
        Ok(ListsQuery(options))
    }
}

impl ListsQuery {
    /// The options, for `rater`: the targets still being rated are the owner's to include
    /// (403 for a rater, as on the leaderboard).
    fn allowed_for(self, Signed(rater): &Signed) -> Result<ListsOptions, WebError> {
        if self.0.partial == Partial::Include && !rater.is_owner() {
            return Err(WebError::OwnerOnly(rater.name.to_string()));
        }
        Ok(self.0)
    }
}

impl FromRequest for ListsQuery {
    type Error = WebError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(ListsQuery::parse(request.query_string()))
    }
}

async fn json(
    query: ListsQuery,
    study: web::Data<Study>,
    signed: Signed,
) -> Result<HttpResponse, WebError> {
    let options = query.allowed_for(&signed)?;
    let lists = study.lists().view(&options).await?;
    Ok(HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(lists.to_json()))
}

#[derive(Template)]
#[template(path = "lists.html")]
struct ListsPage {
    nav: Nav,
    lists: Arc<Lists>,
    reads_lists_only: &'static str,
    scope_in_words: String,
    /// With the targets still being rated included: what that gives away.
    unblinding: Option<String>,
    /// This view without the targets still being rated.
    blind_link: String,
    /// When no target is fully rated yet: this view with the targets still being rated.
    include_link: Option<String>,
    /// What to say instead of the numbers: no lists yet.
    empty: Option<&'static str>,
    /// The same view as JSON.
    json_link: String,
    /// Each pair's Jaccard, then its RBO, as matrices.
    matrices: [Matrix; 2],
    /// The options form's values: the ones asked for, empty for a default.
    form_k: String,
    form_rbo_p: String,
    /// The owner's choice to include the targets still being rated.
    form_include_partial: bool,
}

/// Models against models, one measure in every cell; a model against itself has none.
struct Matrix {
    id: &'static str,
    caption: String,
    models: Vec<String>,
    rows: Vec<(String, Vec<MatrixCell>)>,
}

impl Matrix {
    fn new(
        lists: &Lists,
        id: &'static str,
        caption: String,
        measure: fn(&Pair) -> Option<f64>,
    ) -> Matrix {
        let count = lists.models.len();
        // Pairs come a before b, in the models' order.
        let pair_of = |a: usize, b: usize| {
            let (a, b) = (a.min(b), a.max(b));
            a * count - a * (a + 1) / 2 + (b - a - 1)
        };
        Matrix {
            id,
            caption,
            models: lists.models.clone(),
            rows: (0..count)
                .map(|a| {
                    let cells = (0..count)
                        .map(|b| {
                            MatrixCell::new(
                                (a != b)
                                    .then(|| measure(&lists.pairs[pair_of(a, b)]))
                                    .flatten(),
                            )
                        })
                        .collect();
                    (lists.models[a].clone(), cells)
                })
                .collect(),
        }
    }
}

impl ListsPage {
    fn number(&self, value: &Option<f64>) -> String {
        words::page::number(*value, 3)
    }

    fn percent(&self, value: &Option<f64>) -> String {
        words::page::percent(*value, 1)
    }

    fn interval(&self, ends: &Option<[f64; 2]>) -> String {
        words::page::interval_or_missing(*ends, 3)
    }

    fn count(&self, count: &u64) -> String {
        words::thousands(*count as i64)
    }
}

async fn show(
    query: ListsQuery,
    study: web::Data<Study>,
    signed: Signed,
) -> Result<HttpResponse, WebError> {
    let options = query.allowed_for(&signed)?;
    let lists = study.lists().view(&options).await?;
    let query = options.query();
    let k = lists.settings.k;
    let p = lists.settings.rbo_p;
    let link_with = |partial| {
        let query = ListsOptions { partial, ..options }.query();
        match query.is_empty() {
            true => "/lists".to_owned(),
            false => format!("/lists?{query}"),
        }
    };
    let targets = &lists.targets;
    let none_finished =
        !lists.models.is_empty() && targets.count == 0 && targets.still_being_rated > 0;
    view::html(&ListsPage {
        nav: Nav::of(&signed.0),
        reads_lists_only: READS_LISTS_ONLY,
        scope_in_words: lists.scope_in_words(),
        unblinding: lists.unblinding(),
        blind_link: link_with(Partial::Exclude),
        include_link: none_finished.then(|| link_with(Partial::Include)),
        empty: lists.emptiness(),
        json_link: if query.is_empty() {
            "/lists.json".to_owned()
        } else {
            format!("/lists.json?{query}")
        },
        matrices: [
            Matrix::new(
                &lists,
                "jaccard",
                format!(
                    "Jaccard of the top {k}: the papers both lists hold, of those either holds; \
                     the mean over the targets, darker for more alike."
                ),
                |pair| pair.jaccard,
            ),
            Matrix::new(
                &lists,
                "rbo",
                format!(
                    "Rank-biased overlap (extrapolated, p = {p}) of the top {k}: agreement \
                     weighted toward the first ranks; the mean over the targets, darker for \
                     more alike."
                ),
                |pair| pair.rbo,
            ),
        ],
        form_k: options.k.map(|k| k.to_string()).unwrap_or_default(),
        form_rbo_p: options.rbo_p.map(|p| p.to_string()).unwrap_or_default(),
        form_include_partial: options.partial == Partial::Include,
        lists,
    })
}
