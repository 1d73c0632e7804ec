//! `GET /targets`: the targets being rated with their progress, a page at a time;
//! `GET /next`: the way to the next one; `POST /targets`: choose or drop a target.

use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use rand::{Rng, SeedableRng};
use serde::Deserialize;

use super::answer::see_other;
use super::auth::{Owner, Signed};
use super::view::{self, Nav};
use super::{csrf, WebError};
use crate::domain::PaperId;
use crate::study::targets::{DropRule, Listing, TargetSummary};
use crate::study::Study;

/// Targets per page of `/targets`: a study of a few hundred targets fits on one page, and a
/// page of a study that rates every paper of a large library stays small.
const TARGETS_PER_PAGE: i64 = 500;

/// `GET` and `POST /targets`, and `GET /next`.
pub fn routes(config: &mut web::ServiceConfig) {
    config
        .service(
            web::resource("/targets")
                .route(web::get().to(show))
                .route(web::post().to(choose)),
        )
        .route("/next", web::get().to(next));
}

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
    /// 1-based.
    page: Option<u32>,
    /// After a random choice from the library's page: how many, and the seed.
    sampled: Option<usize>,
    seed: Option<u64>,
}

#[derive(Template)]
#[template(path = "targets.html")]
struct TargetsPage {
    nav: Nav,
    targets: Vec<TargetSummary>,
    only_unfinished: bool,
    finished: i64,
    total: i64,
    choice_in_words: String,
    /// 1-based positions of the first and last target shown.
    first_shown: i64,
    last_shown: i64,
    previous_page: Option<String>,
    next_page: Option<String>,
    /// After a random choice, for the owner: how to choose the same again.
    sampled: Option<String>,
}

/// The study's targets with its progress for the owner; for a rater, the targets they took,
/// with their own progress only, and those they may take (without counts).
async fn show(
    study: web::Data<Study>,
    signed: Signed,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, WebError> {
    let page = i64::from(query.page.unwrap_or(1));
    if page < 1 {
        return Err(WebError::BadRequest(
            "page must be a whole number from 1 up".to_owned(),
        ));
    }
    let only_unfinished = query.show == Show::Unfinished;
    let offset = (page - 1) * TARGETS_PER_PAGE;
    // One more than shown tells whether another page follows.
    let listing = Listing {
        only_unfinished,
        offset,
        limit: TARGETS_PER_PAGE + 1,
    };
    let list = study.targets().list(listing, signed.rater_only()).await?;
    let (overview, mut targets) = (list.overview, list.targets);
    // A rater's counts are of the targets they took: no other rater's doing moves them.
    let (finished, total) = match signed.rater_only() {
        None => (overview.finished, overview.active),
        Some(rater) => {
            let own = study.targets().rater_overview(rater).await?;
            (own.finished, own.targets)
        }
    };
    let has_next = targets.len() as i64 > TARGETS_PER_PAGE;
    targets.truncate(TARGETS_PER_PAGE as usize);
    let link = |page: i64| {
        let show = if only_unfinished {
            "show=unfinished&"
        } else {
            ""
        };
        format!("/targets?{show}page={page}")
    };
    view::html(&TargetsPage {
        nav: Nav::of(&signed.0),
        first_shown: offset + 1,
        last_shown: offset + targets.len() as i64,
        previous_page: (page > 1).then(|| link(page - 1)),
        next_page: has_next.then(|| link(page + 1)),
        targets,
        only_unfinished,
        finished,
        total,
        choice_in_words: overview.in_words(),
        sampled: match (signed.rater_only(), query.sampled, query.seed) {
            (None, Some(count), Some(seed)) => Some(format!(
                "{count} {} chosen at random with seed {seed}: paperjudge targets choose \
                 --sample {count} --seed {seed} chooses the same from the same study.",
                crate::words::plural(count, "target", "targets")
            )),
            _ => None,
        },
    })
}

/// 303 to the next target that needs the rater signed in, in the study's random order (which
/// they then take), or to the dashboard when none does.
async fn next(study: web::Data<Study>, Signed(rater): Signed) -> Result<HttpResponse, WebError> {
    let location = match study.targets().next(&rater).await? {
        Some(next) => format!("/targets/{}", next.target.id),
        None => "/".to_owned(),
    };
    Ok(see_other(&location))
}

/// The form of `POST /targets`; every field optional here so that a missing one gets a 400
/// naming it (and a missing token a 403).
#[derive(Debug, Deserialize)]
pub struct ChoiceForm {
    paper: Option<String>,
    /// `choose` (the default), `drop`, or `sample` (with `count`).
    action: Option<String>,
    /// How many targets `sample` chooses at random.
    count: Option<String>,
    /// The seed of `sample`, as `--seed`; without it, one drawn at random.
    seed: Option<String>,
    csrf_token: Option<String>,
    /// The search the form was on, to go back to.
    q: Option<String>,
    page: Option<String>,
    with: Option<String>,
}

/// What a `POST /targets` asks for.
enum ChoiceAction {
    Choose(String),
    Drop(String),
    /// How many, and the seed asked for.
    Sample(usize, Option<u64>),
}

impl ChoiceForm {
    fn action(&self) -> Result<ChoiceAction, WebError> {
        let paper = || {
            (self.paper.as_deref().map(str::trim))
                .filter(|paper| !paper.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| WebError::BadRequest("missing field: paper (the paper's id)".into()))
        };
        match self.action.as_deref() {
            None | Some("") | Some("choose") => Ok(ChoiceAction::Choose(paper()?)),
            Some("drop") => Ok(ChoiceAction::Drop(paper()?)),
            Some("sample") => {
                let count = self.count.as_deref().unwrap_or_default();
                let count = (count.parse::<usize>().ok())
                    .filter(|&count| count >= 1)
                    .ok_or_else(|| {
                        WebError::BadRequest(format!(
                            "count (how many targets to choose at random) must be a whole \
                             number from 1 up, got {count:?}"
                        ))
                    })?;
                let seed = match self.seed.as_deref().map(str::trim) {
                    None | Some("") => None,
                    Some(seed) => Some(seed.parse::<u64>().map_err(|_| {
                        WebError::BadRequest(format!(
                            "seed must be a whole number from 0 to {}, got {seed:?}",
                            u64::MAX
                        ))
                    })?),
                };
                Ok(ChoiceAction::Sample(count, seed))
            }
            Some(other) => Err(WebError::BadRequest(format!(
                "action must be choose, drop or sample, got {other:?}"
            ))),
        }
    }
}

/// `POST /targets`: choose the paper as a target to rate (the study's first choice switches it
/// from rating every candidate to rating the chosen ones), or drop a chosen target that has no
/// ratings yet, and answer 303 back to the search the form was on; or choose `count` more
/// targets at random among the papers with recommendations not chosen yet (as `paperjudge
/// targets choose --sample N --seed S`), and answer 303 to the dashboard, or with a `seed`
/// field (the library page's form) to the targets, which say the seed.
async fn choose(
    request: HttpRequest,
    study: web::Data<Study>,
    _: Owner,
    form: web::Form<ChoiceForm>,
) -> Result<HttpResponse, WebError> {
    let form = form.into_inner();
    csrf::verify(&request, form.csrf_token.as_deref())?;
    let action = form.action()?;
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let paper = match action {
        ChoiceAction::Drop(paper) => {
            let ids = [PaperId::given(&paper)];
            (study.targets().drop(&ids, DropRule::OnlyUnrated).await)
                .map_err(WebError::of_change)?;
            paper
        }
        ChoiceAction::Choose(paper) => {
            let ids = [PaperId::given(&paper)];
            (study.targets().choose(&ids, rng).await).map_err(WebError::of_change)?;
            paper
        }
        ChoiceAction::Sample(count, asked) => {
            // A seed short enough to note down, when none is asked for.
            let seed = asked.unwrap_or_else(|| rng.random_range(0..1_000_000));
            (study.targets().choose_sample(count, seed, rng).await).map_err(WebError::of_change)?;
            if form.seed.is_none() {
                return Ok(see_other("/"));
            }
            return Ok(see_other(&format!("/targets?sampled={count}&seed={seed}")));
        }
    };
    let mut parameters = Vec::new();
    let q = form.q.unwrap_or_default();
    if !q.is_empty() {
        parameters.push(format!("q={}", super::papers::encode_query_value(&q)));
    }
    if form.with.as_deref() == Some("recommendations") {
        parameters.push("with=recommendations".to_owned());
    }
    if !parameters.is_empty() {
        if let Some(page) = form.page.and_then(|page| page.parse::<u32>().ok()) {
            parameters.push(format!("page={page}"));
        }
    }
    let mut back = String::from("/papers");
    if !parameters.is_empty() {
        back.push_str(&format!("?{}", parameters.join("&")));
    }
    back.push_str(&format!("#{}", view::anchor(&paper)));
    Ok(see_other(&back))
}
