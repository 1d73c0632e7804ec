//! `GET /targets/{n}`: the target paper, the study's guidelines, then its pooled papers in the
//! stored blind order, each with the rater's stars (or "can't judge") and note.
//!
//! Blind: the page is built from the pool and the ratings only. It never reads a model, rank,
//! score or list, so nothing about where a paper came from can reach the page.

use actix_web::{web, HttpResponse};
use askama::Template;

use super::auth::Signed;
use super::csrf::CsrfToken;
use super::view::{self, Nav, PaperView, RenderedMarkdown};
use super::WebError;
use crate::domain::Progress;
use crate::domain::{Answer, Note, PaperKey, Stars};
use crate::study::papers::PooledPaper;
use crate::study::rating::RatingPage as Page;
use crate::study::Study;

/// `GET /targets/{target}`.
pub fn routes(config: &mut web::ServiceConfig) {
    config.route("/targets/{target}", web::get().to(show));
}

/// One step of the rating scale, with what it means (the re-check page shows the same).
pub struct ScaleStep {
    pub value: u8,
    pub label: &'static str,
    /// Filled and empty stars, e.g. `★★★☆☆` for 3.
    pub glyphs: String,
    pub guidance: &'static str,
}

pub fn scale() -> Vec<ScaleStep> {
    Stars::all()
        .map(|stars| {
            let filled = usize::from(stars.get());
            ScaleStep {
                value: stars.get(),
                label: stars.label(),
                glyphs: format!("{}{}", "★".repeat(filled), "☆".repeat(5 - filled)),
                guidance: stars.guidance(),
            }
        })
        .collect()
}

/// A pooled paper at its place in the blind order.
pub struct PooledPaperView {
    pub paper: PaperView,
    /// 1-based display position.
    pub position: usize,
    pub answer: Option<Answer>,
    /// The rater's note, empty without one.
    pub note: String,
}

impl PooledPaperView {
    fn new(position: usize, pooled: PooledPaper) -> PooledPaperView {
        let (answer, note) = match pooled.rating {
            Some(rating) => (Some(rating.answer), rating.note),
            None => (None, None),
        };
        PooledPaperView {
            paper: pooled.paper.into(),
            position,
            answer,
            note: note.map(|note| note.to_string()).unwrap_or_default(),
        }
    }

    pub fn has_stars(&self, value: &u8) -> bool {
        (self.answer.and_then(Answer::stars)).is_some_and(|stars| stars.get() == *value)
    }

    pub fn cannot_judge(&self) -> bool {
        self.answer == Some(Answer::CannotJudge)
    }

    /// The answer as the `data-stars` attribute holds it: 1 to 5, `cannot-judge`, or empty
    /// when unrated.
    pub fn stars_attribute(&self) -> String {
        self.answer
            .map(|answer| answer.to_string())
            .unwrap_or_default()
    }

    pub fn status(&self) -> String {
        match self.answer {
            Some(Answer::CannotJudge) => "Marked: can't judge".to_owned(),
            Some(answer) => format!("Rated {}", answer.label()),
            None => "Not rated yet".to_owned(),
        }
    }
}

#[derive(Template)]
#[template(path = "rating.html")]
struct RatingPage {
    nav: Nav,
    target_id: i64,
    target: PaperView,
    papers: Vec<PooledPaperView>,
    progress: Progress,
    next_target: Option<i64>,
    scale: Vec<ScaleStep>,
    /// The study's guidelines, above the scale; `None` without any.
    guidelines: Option<RenderedMarkdown>,
    /// The longest note, for the note boxes and their script.
    note_limit: usize,
    csrf_token: String,
    /// In a study with raters, the rater whose page this is (their own stars only): the forms
    /// name them, so that a change from a page of someone else's session is refused.
    rater: Option<String>,
}

async fn show(
    study: web::Data<Study>,
    Signed(rater): Signed,
    target: web::Path<i64>,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    let key = PaperKey(target.into_inner());
    let Page {
        target,
        papers,
        progress,
        next_target,
        with_raters,
        guidelines,
    } = study.rating().page(key, &rater).await?;
    let page = RatingPage {
        nav: Nav::of(&rater),
        target_id: key.0,
        target: target.into(),
        papers: (papers.into_iter().enumerate())
            .map(|(index, pooled)| PooledPaperView::new(index + 1, pooled))
            .collect(),
        progress,
        next_target: next_target.map(|next| next.0),
        scale: scale(),
        guidelines: guidelines.map(|guidelines| view::render_markdown(guidelines.as_str())),
        note_limit: Note::MAX_CHARS,
        csrf_token: csrf.value().to_owned(),
        rater: with_raters.then(|| rater.name.to_string()),
    };
    let mut response = view::html(&page)?;
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}
