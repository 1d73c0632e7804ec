//! `POST /targets/{n}/ratings` and `POST /targets/{n}/undo`: every change of a rating.
//!
//! The handlers read the form and check its token; the study's command
//! (`study.rating().rate`, `study.rating().undo`) applies the rules and commits the change
//! durably before the answer is sent, so "saved" on the page means saved.
//! The answer is JSON when the request accepts it (the rating script), else a 303 back to the
//! paper on the rating page (a plain form). A change that could not be saved gets an error
//! saying so: 503 while an import holds the study, 507 when the disk is full, 500 otherwise.

use actix_web::{web, HttpRequest};
use serde::{Deserialize, Serialize};

use super::answer::{see_other, ByAccept};
use super::auth::Signed;
use super::{csrf, view, WebError};
use crate::domain::Progress;
use crate::domain::{Answer, Note, PaperId, PaperKey};
use crate::study::raters::Rater;
use crate::study::rating::{Edit, Rating};
use crate::study::Study;

/// The largest rating form: a note of 2,000 characters of four bytes each, every byte
/// percent-encoded, with room for the other fields.
const RATING_FORM_LIMIT_BYTES: usize = 32 * 1024;

/// `POST /targets/{target}/ratings` and `POST /targets/{target}/undo`.
pub fn routes(config: &mut web::ServiceConfig) {
    config
        .service(
            web::resource("/targets/{target}/ratings")
                .app_data(super::form_config(RATING_FORM_LIMIT_BYTES))
                .route(web::post().to(rate)),
        )
        .route("/targets/{target}/undo", web::post().to(undo));
}

/// The rating form as posted; every field is optional here so that a missing one gets a 400
/// naming it (and a missing token a 403) instead of a generic parse error.
#[derive(Debug, Deserialize)]
pub struct RatingForm {
    paper: Option<String>,
    /// 1 to 5, `cannot-judge`, or `clear`; may be absent when `note` is given.
    stars: Option<String>,
    /// The rater's note; empty removes it. Absent: the note stays as it is.
    note: Option<String>,
    csrf_token: Option<String>,
    /// Whose rating page the form is on (a study with raters writes it): a page a rater opened
    /// before another signed in on the same browser changes nothing.
    rater: Option<String>,
}

/// Refuses (403) a form from the page of another rater than the one signed in.
pub(super) fn own_page(page: Option<&str>, signed: &Rater) -> Result<(), WebError> {
    match page {
        Some(page) if page != signed.name.as_str() => Err(WebError::Refused(format!(
            "you are signed in as {:?}, and a rater changes and undoes only their own ratings; \
             this page was {page:?}'s: reload it",
            signed.name.as_str()
        ))),
        _ => Ok(()),
    }
}

/// A valid rating request: which paper, and what to change of its rating.
struct RatingChange {
    paper: PaperId,
    edit: Edit,
}

impl RatingChange {
    fn parse(
        paper: Option<String>,
        stars: Option<String>,
        note: Option<String>,
    ) -> Result<RatingChange, WebError> {
        let paper = paper
            .filter(|paper| !paper.is_empty())
            .ok_or_else(|| WebError::BadRequest("missing field: paper (the paper's id)".into()))?;
        let note = note
            .map(|note| Note::new(&note))
            .transpose()
            .map_err(|invalid| WebError::BadRequest(invalid.to_string()))?;
        let edit = match (stars.as_deref(), note) {
            (None | Some(""), None) => {
                return Err(WebError::BadRequest(
                    "missing field: stars (1 to 5, cannot-judge, or clear), or note".into(),
                ))
            }
            (None | Some(""), Some(note)) => Edit::Note(note),
            (Some("clear"), Some(Some(_))) => {
                return Err(WebError::BadRequest(
                    "a cleared rating has no note: send stars=clear without one".into(),
                ))
            }
            (Some("clear"), _) => Edit::Clear,
            (Some(text), note) => Edit::Answer {
                answer: text.parse::<Answer>().map_err(|_| {
                    WebError::BadRequest(format!(
                        "stars must be 1 to 5, cannot-judge, or clear; got {text:?}"
                    ))
                })?,
                note,
            },
        };
        Ok(RatingChange {
            paper: PaperId::given(&paper),
            edit,
        })
    }
}

/// A rating as the rating script reads it: stars (`null` for none), whether the rater cannot
/// judge the pair, the note (`null` for none).
#[derive(Debug, Serialize)]
struct RatingJson {
    stars: Option<u8>,
    cannot_judge: bool,
    note: Option<Note>,
}

impl RatingJson {
    fn of(rating: Option<Rating>) -> RatingJson {
        let (answer, note) = match rating {
            Some(rating) => (Some(rating.answer), rating.note),
            None => (None, None),
        };
        RatingJson {
            stars: answer.and_then(Answer::stars).map(|stars| stars.get()),
            cannot_judge: answer == Some(Answer::CannotJudge),
            note,
        }
    }
}

#[derive(Debug, Serialize)]
struct SavedAnswer {
    saved: bool,
    paper: PaperId,
    #[serde(flatten)]
    rating: RatingJson,
    target_progress: Progress,
}

async fn rate(
    request: HttpRequest,
    study: web::Data<Study>,
    Signed(rater): Signed,
    target: web::Path<i64>,
    form: web::Form<RatingForm>,
) -> Result<ByAccept<SavedAnswer>, WebError> {
    let target = PaperKey(target.into_inner());
    let RatingForm {
        paper,
        stars,
        note,
        csrf_token,
        rater: page,
    } = form.into_inner();
    let browser = csrf::verify(&request, csrf_token.as_deref()).map_err(WebError::of_change)?;
    own_page(page.as_deref(), &rater)?;
    let change = RatingChange::parse(paper, stars, note)?;
    let tag = browser.history_tag();
    let (rating, progress) = (study
        .rating()
        .rate(target, &change.paper, change.edit, &tag, &rater)
        .await)
        .map_err(WebError::of_change)?;
    Ok(ByAccept {
        html: back_to_paper(target, Some(&change.paper)),
        json: SavedAnswer {
            saved: true,
            paper: change.paper,
            rating: RatingJson::of(rating),
            target_progress: progress,
        },
    })
}

#[derive(Debug, Deserialize)]
pub struct UndoForm {
    csrf_token: Option<String>,
    /// Whose rating page the form is on, as in [`RatingForm`].
    rater: Option<String>,
}

/// What an undo did, as the rating script reads it; see [`crate::study::Undo`].
#[derive(Debug, Serialize)]
struct UndoAnswer {
    undone: bool,
    paper: Option<PaperId>,
    #[serde(flatten)]
    rating: RatingJson,
    target_progress: Progress,
}

/// Reverts the last change the rater signed in made on this target in this browser session.
async fn undo(
    request: HttpRequest,
    study: web::Data<Study>,
    Signed(rater): Signed,
    target: web::Path<i64>,
    form: web::Form<UndoForm>,
) -> Result<ByAccept<UndoAnswer>, WebError> {
    let target = PaperKey(target.into_inner());
    let browser =
        csrf::verify(&request, form.csrf_token.as_deref()).map_err(WebError::of_change)?;
    own_page(form.rater.as_deref(), &rater)?;
    let undo = (study
        .rating()
        .undo(target, &browser.history_tag(), &rater)
        .await)
        .map_err(WebError::of_change)?;
    Ok(ByAccept {
        html: back_to_paper(target, undo.paper.as_ref()),
        json: UndoAnswer {
            undone: undo.undone,
            paper: undo.paper,
            rating: RatingJson::of(undo.rating),
            target_progress: undo.progress,
        },
    })
}

/// The 303 of a plain form: back to the rating page, at the paper when there is one.
fn back_to_paper(target: PaperKey, paper: Option<&PaperId>) -> actix_web::HttpResponse {
    let fragment = paper
        .map(|paper| format!("#{}", view::anchor(paper.as_str())))
        .unwrap_or_default();
    see_other(&format!("/targets/{}{fragment}", target.0))
}
