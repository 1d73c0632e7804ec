//! What can go wrong while answering a request, the HTTP status each cause maps to, and the
//! answer it gets: the error page, or `{"error": message}` for a request that accepts JSON.
//!
//! Handlers, extractors and middleware just return a [`WebError`]; the page is its
//! [`ResponseError`] answer, and [`answer_errors_by_accept`] turns it into JSON where the
//! request asks for that (the rating script), so no handler decides that itself.
//!
//! The message of a client error says what to fix and is shown as is (escaped). An internal
//! cause is logged with `tracing` and never shown: the person gets a generic message.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::{PathError, QueryPayloadError, UrlencodedError};
use actix_web::http::header::{self, ContentType};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, ResponseError};
use askama::Template;

use super::answer::accepts_json;
use super::auth::Signed;
use super::view::Nav;
use crate::domain::ByteSize;
use crate::study::{Refusal, StudyError};

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// 400: the request is malformed; the message names the field and what is wrong with it.
    #[error("{0}")]
    BadRequest(String),
    /// 401: a password protects the study and the request has no session (a browser is sent
    /// to the login page instead).
    #[error("you are not logged in (or your session ended): reload the page to log in")]
    NotLoggedIn,
    /// 403: the form's CSRF token is missing or does not match the browser's cookie.
    #[error("the form's security token is missing or out of date: reload the page and try again")]
    Forbidden,
    /// 403: a rater asks for what is the owner's alone in a study with raters (every rater's
    /// stars, the study checks, the per-target views, managing the study).
    #[error(
        "you are signed in as the rater {0:?}: this is for the study's owner only, since it \
         would show other raters' stars or change the study for everyone"
    )]
    OwnerOnly(String),
    /// 403: a rater's change the study refuses (a target that has its raters), or one that is
    /// not the signed-in rater's own; the message says which.
    #[error("{0}")]
    Refused(String),
    /// 403: the browser says the request comes from another site (the detail says how).
    #[error(
        "refused: this request comes from another site ({0}); paperjudge takes changes only \
         from its own pages"
    )]
    CrossSite(String),
    /// 404: the message says what was not found; made by [`WebError::no_such_page`] and
    /// from a study's refusal of a target that is none.
    #[error("{0}")]
    NotFound(String),
    /// 421: the request is for a host this server does not answer to (see `web::hosts`);
    /// `answered` says, in words, which it does.
    #[error(
        "this server does not answer to the host {host:?}: it answers to {answered}, so that no \
         other site can reach the study through a name of its own that points at this machine \
         (DNS rebinding); `paperjudge serve --host NAME` adds a name, with a password or \
         --behind-tls"
    )]
    Misdirected { host: String, answered: String },
    /// 405: the address exists, but not for this method; `allow` lists the methods it takes.
    #[error("this address takes {allow}, not {method}")]
    MethodNotAllowed { method: String, allow: String },
    /// 413
    #[error("the form is larger than the {limit} bytes accepted")]
    PayloadTooLarge { limit: usize },
    /// 413: an upload larger than `serve --max-upload`.
    #[error(
        "the upload is larger than the {limit} this server accepts, so nothing was imported \
         (`paperjudge serve --max-upload SIZE` sets the limit, or import the files with \
         `paperjudge import`)"
    )]
    UploadTooLarge { limit: ByteSize },
    /// 408: a request's body fell silent before its end (an upload); the message says what
    /// became of it.
    #[error("{0}")]
    Stalled(String),
    /// 409: the study is busy with something that must end first (an import from the
    /// browser); the message says what.
    #[error("{0}")]
    Conflict(String),
    /// 503: another process (an import) holds the study's write lock; worth another try.
    #[error(
        "an import is running, so this change was NOT saved: save it again once the import has \
         finished"
    )]
    ImportRunning,
    /// 507: the disk holding the study is full.
    #[error(
        "the server's disk is full, so this change was NOT saved: free some space on the \
         server, then save it again"
    )]
    DiskFull,
    /// 500: the database or a template failed. Logged, never shown.
    #[error("something went wrong on the server; its log has the details")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// 500 while changing something: as `Internal`, saying that the change was not made.
    #[error(
        "something went wrong on the server, so this change was NOT saved; its log has the details"
    )]
    ChangeFailed(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// How long a client should wait before it sends a change refused with 503 again.
const RETRY_AFTER_SECONDS: u32 = 2;

/// A study's error as the answer says it: a refusal with its reason (404 for a target or a
/// judge that is none, 409 while an import or a judge runs, 403 for a change that is not the rater's, 400 otherwise), 503 while another process holds the write lock, 507 for a full
/// disk, 500 for the rest.
impl From<StudyError> for WebError {
    fn from(error: StudyError) -> WebError {
        match error {
            StudyError::Refused(
                refusal @ (Refusal::NoSuchTarget(_)
                | Refusal::UnknownJudge(_)
                | Refusal::UnknownTrial(_)),
            ) => WebError::NotFound(refusal.to_string()),
            StudyError::Refused(
                refusal @ (Refusal::ImportRunning
                | Refusal::JudgeRunning
                | Refusal::JudgeRunsElsewhere { .. }),
            ) => WebError::Conflict(refusal.to_string()),
            StudyError::Refused(refusal) if refusal.is_forbidden() => {
                WebError::Refused(refusal.to_string())
            }
            StudyError::Refused(refusal) => WebError::BadRequest(refusal.to_string()),
            StudyError::DiskFull(cause) => {
                tracing::error!(%cause, "the study's disk is full");
                WebError::DiskFull
            }
            StudyError::Busy(cause) => {
                tracing::warn!(%cause, "another process holds the study's write lock");
                WebError::ImportRunning
            }
            StudyError::Unreadable(cause) | StudyError::Internal(cause) => {
                WebError::Internal(cause)
            }
        }
    }
}

impl From<askama::Error> for WebError {
    fn from(error: askama::Error) -> WebError {
        WebError::Internal(Box::new(error))
    }
}

impl WebError {
    /// The answer for an address no route matches.
    pub fn no_such_page() -> WebError {
        WebError::NotFound("there is no page at this address".to_owned())
    }

    /// This error as the answer to a request that changes something: an internal failure
    /// says that the change was not made.
    pub fn of_change(error: impl Into<WebError>) -> WebError {
        let error = error.into();
        match error {
            WebError::Internal(cause) => WebError::ChangeFailed(cause),
            other => other,
        }
    }

    fn log_internal_cause(&self) {
        if let WebError::Internal(cause) | WebError::ChangeFailed(cause) = self {
            tracing::error!(%cause, "a request failed");
        }
    }

    /// The answer's status with the headers that go with it.
    fn response_builder(&self) -> actix_web::HttpResponseBuilder {
        let mut builder = HttpResponse::build(self.status_code());
        match self {
            WebError::ImportRunning => {
                builder.insert_header((header::RETRY_AFTER, RETRY_AFTER_SECONDS));
            }
            WebError::MethodNotAllowed { allow, .. } => {
                builder.insert_header((header::ALLOW, allow.as_str()));
            }
            _ => {}
        }
        builder
    }

    /// This error as `{"error": message}`, for a client that accepts JSON.
    fn json_response(&self) -> HttpResponse {
        self.response_builder()
            .json(serde_json::json!({ "error": self.to_string() }))
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    nav: Nav,
    status: StatusCode,
    message: &'a str,
}

impl ResponseError for WebError {
    fn status_code(&self) -> StatusCode {
        match self {
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::NotLoggedIn => StatusCode::UNAUTHORIZED,
            WebError::Forbidden
            | WebError::CrossSite(_)
            | WebError::OwnerOnly(_)
            | WebError::Refused(_) => StatusCode::FORBIDDEN,
            WebError::NotFound(_) => StatusCode::NOT_FOUND,
            WebError::Misdirected { .. } => StatusCode::MISDIRECTED_REQUEST,
            WebError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            WebError::PayloadTooLarge { .. } | WebError::UploadTooLarge { .. } => {
                StatusCode::PAYLOAD_TOO_LARGE
            }
            WebError::Stalled(_) => StatusCode::REQUEST_TIMEOUT,
            WebError::Conflict(_) => StatusCode::CONFLICT,
            WebError::ImportRunning => StatusCode::SERVICE_UNAVAILABLE,
            WebError::DiskFull => StatusCode::INSUFFICIENT_STORAGE,
            WebError::Internal(_) | WebError::ChangeFailed(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The error page as it is before anyone is known to ask: `error_response` is not told who
    /// asks, and [`answer_errors_by_accept`] renders it again for a rater.
    fn error_response(&self) -> HttpResponse {
        self.log_internal_cause();
        self.page_response(Nav::OWNER)
    }
}

impl WebError {
    /// The error page, with the navigation of who asks.
    fn page_response(&self, nav: Nav) -> HttpResponse {
        let message = self.to_string();
        let page = ErrorPage {
            nav,
            status: self.status_code(),
            message: &message,
        };
        match page.render() {
            Ok(html) => self
                .response_builder()
                .content_type(ContentType::html())
                .body(html),
            Err(error) => {
                tracing::error!(%error, "cannot render the error page");
                self.response_builder()
                    .content_type(ContentType::plaintext())
                    .body(message)
            }
        }
    }
}

/// The middleware that answers every [`WebError`] as the request accepts it: for a request
/// that accepts JSON, `{"error": message}` with the same status and headers; else the error
/// page, with the navigation of who asks. A rater's error page links to no page of the owner's
/// (the middleware of sign-in, inside this one, has said who asks by then).
///
/// It sees the errors of handlers, extractors and of the middleware inside it, which answer
/// their refusals as responses (`ServiceRequest::error_response`), never as `Err`.
pub async fn answer_errors_by_accept(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let wants_json = accepts_json(request.request());
    let response = next.call(request).await?;
    let rater = (response.request().extensions())
        .get::<Signed>()
        .map(|Signed(rater)| rater.clone())
        .filter(|rater| !rater.is_owner());
    let answer = (response.response().error())
        .and_then(|error| error.as_error::<WebError>())
        .and_then(|error| match (wants_json, &rater) {
            (true, _) => Some(error.json_response()),
            (false, Some(rater)) => Some(error.page_response(Nav::of(rater))),
            (false, None) => None,
        });
    Ok(match answer {
        Some(answer) => response.into_response(answer).map_into_right_body(),
        None => response.map_into_left_body(),
    })
}

/// A path parameter that is not an id (`/targets/abc`) names no page.
pub fn unknown_path(_: PathError, _: &HttpRequest) -> actix_web::Error {
    WebError::no_such_page().into()
}

pub fn unreadable_form(error: UrlencodedError, _: &HttpRequest) -> actix_web::Error {
    let error = match error {
        UrlencodedError::Overflow { limit, .. } => WebError::PayloadTooLarge { limit },
        UrlencodedError::ContentType => {
            WebError::BadRequest("send the form as application/x-www-form-urlencoded".to_owned())
        }
        other => WebError::BadRequest(format!("the form cannot be read: {other}")),
    };
    error.into()
}

pub fn unreadable_query(error: QueryPayloadError, _: &HttpRequest) -> actix_web::Error {
    WebError::BadRequest(format!("the address's query cannot be read: {error}")).into()
}
