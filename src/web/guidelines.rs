//! `GET /guidelines`: the study's guidelines for rating, for everyone who may rate; the owner
//! also gets an editor with a preview. `POST /guidelines` (the owner's: a rater gets 403)
//! previews a draft (`action=preview`) or saves it: as a new version (`study.guidelines().set`),
//! or, empty, as a clear. A draft that cannot be saved comes back in the editor with what is
//! wrong, so that nothing written is lost.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::answer::see_other;
use super::auth::{Owner, Signed};
use super::csrf::{self, CsrfToken};
use super::view::{self, Nav, RenderedMarkdown};
use super::WebError;
use crate::domain::Guidelines;
use crate::study::guidelines::CurrentGuidelines;
use crate::study::Study;

/// The largest form of the guidelines: 20,000 characters of four bytes each, every byte
/// percent-encoded, with room for the other fields.
const GUIDELINES_FORM_LIMIT_BYTES: usize = 256 * 1024;

/// `GET /guidelines` and `POST /guidelines`.
pub fn routes(config: &mut web::ServiceConfig) {
    config.service(
        web::resource("/guidelines")
            .app_data(super::form_config(GUIDELINES_FORM_LIMIT_BYTES))
            .route(web::get().to(show))
            .route(web::post().to(change)),
    );
}

#[derive(Template)]
#[template(path = "guidelines.html")]
struct GuidelinesPage {
    nav: Nav,
    /// The guidelines in force, rendered; `None` without any.
    current: Option<InForce>,
    /// The owner's editor; `None` for a rater.
    editor: Option<Editor>,
}

/// The guidelines in force as the page shows them.
struct InForce {
    version: i64,
    /// The day they were set (`2026-12-01`).
    set_on: String,
    html: RenderedMarkdown,
}

impl InForce {
    fn of(guidelines: &CurrentGuidelines) -> InForce {
        InForce {
            version: guidelines.version.0,
            set_on: guidelines.set_at.get(..10).unwrap_or_default().to_owned(),
            html: view::render_markdown(guidelines.markdown.as_str()),
        }
    }
}

/// The owner's editor: the text in it, its preview, and what keeps it from being saved.
struct Editor {
    draft: String,
    preview: Option<RenderedMarkdown>,
    problem: Option<String>,
    limit: usize,
    csrf_token: String,
}

async fn show(
    study: web::Data<Study>,
    Signed(rater): Signed,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    let current = study.guidelines().current().await?;
    let editor = rater.is_owner().then(|| Editor {
        draft: (current.as_ref())
            .map(|guidelines| guidelines.markdown.as_str().to_owned())
            .unwrap_or_default(),
        preview: None,
        problem: None,
        limit: Guidelines::MAX_CHARS,
        csrf_token: csrf.value().to_owned(),
    });
    let page = GuidelinesPage {
        nav: Nav::of(&rater),
        current: current.as_ref().map(InForce::of),
        editor,
    };
    let mut response = view::html(&page)?;
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}

/// Every field optional here, so that a missing one gets a 400 naming it (and a missing token a
/// 403).
#[derive(Debug, Deserialize)]
pub struct GuidelinesForm {
    markdown: Option<String>,
    csrf_token: Option<String>,
    /// `preview` or `save` (the default).
    action: Option<String>,
}

async fn change(
    request: HttpRequest,
    study: web::Data<Study>,
    _: Owner,
    csrf: CsrfToken,
    form: web::Form<GuidelinesForm>,
) -> Result<HttpResponse, WebError> {
    let GuidelinesForm {
        markdown,
        csrf_token,
        action,
    } = form.into_inner();
    csrf::verify(&request, csrf_token.as_deref()).map_err(WebError::of_change)?;
    let draft = markdown.ok_or_else(|| {
        WebError::BadRequest("missing field: markdown (the guidelines' text)".to_owned())
    })?;
    let preview = match action.as_deref() {
        None | Some("save") => false,
        Some("preview") => true,
        Some(other) => {
            return Err(WebError::BadRequest(format!(
                "action must be preview or save, got {other:?}"
            )))
        }
    };
    let editing = |preview: Option<RenderedMarkdown>, problem: Option<String>| Editor {
        draft: draft.clone(),
        preview,
        problem,
        limit: Guidelines::MAX_CHARS,
        csrf_token: csrf.value().to_owned(),
    };
    let guidelines = if draft.trim().is_empty() {
        None
    } else {
        match Guidelines::new(&draft) {
            Ok(guidelines) => Some(guidelines),
            Err(invalid) => {
                let editor = editing(None, Some(format!("{invalid}.")));
                return again(&study, editor, StatusCode::BAD_REQUEST, csrf).await;
            }
        }
    };
    if preview {
        let html = guidelines.as_ref().map_or_else(
            || view::render_markdown(""),
            |guidelines| view::render_markdown(guidelines.as_str()),
        );
        return again(&study, editing(Some(html), None), StatusCode::OK, csrf).await;
    }
    match &guidelines {
        Some(guidelines) => study.guidelines().set(guidelines).await,
        None => study.guidelines().clear().await,
    }
    .map_err(WebError::of_change)?;
    Ok(see_other("/guidelines"))
}

/// The page again with the owner's `editor` (a preview, or a draft that cannot be saved).
async fn again(
    study: &Study,
    editor: Editor,
    status: StatusCode,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    let current = study.guidelines().current().await?;
    let page = GuidelinesPage {
        nav: Nav::OWNER,
        current: current.as_ref().map(InForce::of),
        editor: Some(editor),
    };
    let mut response = view::html(&page)?;
    response.head_mut().status = status;
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}
