//! The shapes of an answer, each made one way: a page is [`super::view::html`], a redirect is
//! [`see_other`], an answer that is JSON for the rating script and a redirect for a plain form
//! is [`ByAccept`], and a failure is a [`super::WebError`], which
//! [`super::error::answer_errors_by_accept`] answers as JSON or as the error page.
//!
//! Which form a request gets is decided by [`accepts_json`] alone: the rating script asks for
//! `application/json`, and a browser following a link or posting a form never does.

use actix_web::body::EitherBody;
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse, Responder};
use serde::Serialize;

/// Whether the request accepts `application/json` (the rating script's requests do).
pub fn accepts_json(request: &HttpRequest) -> bool {
    request
        .headers()
        .get_all(header::ACCEPT)
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|media_range| {
            let media_type = media_range.split(';').next().unwrap_or_default().trim();
            media_type.eq_ignore_ascii_case("application/json")
        })
}

/// A 303 to `location`: after a form, the browser fetches the page there with `GET`.
pub fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish()
}

/// The answer of a handler that serves both the rating script and a plain form: `json`, with
/// status 200, when the request accepts JSON, else `html` (a page or a [`see_other`]).
pub struct ByAccept<T> {
    pub json: T,
    pub html: HttpResponse,
}

impl<T: Serialize> Responder for ByAccept<T> {
    type Body = EitherBody<<web::Json<T> as Responder>::Body>;

    fn respond_to(self, request: &HttpRequest) -> HttpResponse<Self::Body> {
        if accepts_json(request) {
            web::Json(self.json)
                .respond_to(request)
                .map_into_left_body()
        } else {
            self.html.map_into_right_body()
        }
    }
}
