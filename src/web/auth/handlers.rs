//! The login and logout pages and forms.

use std::time::Instant;

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::session::{session_cookie, SESSION_COOKIE};
use super::{Auth, LOGIN_PATH};
use crate::web::answer::see_other;
use crate::web::csrf::{self, CsrfToken};
use crate::web::{tokens, WebError};

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage<'a> {
    csrf_token: &'a str,
    /// Logged in: the page offers to log out instead.
    logged_in: bool,
    problem: Option<&'a str>,
}

fn page(
    status: StatusCode,
    csrf: &CsrfToken,
    logged_in: bool,
    problem: Option<&str>,
) -> Result<HttpResponse, WebError> {
    let html = LoginPage {
        csrf_token: csrf.value(),
        logged_in,
        problem,
    }
    .render()?;
    let mut response = HttpResponse::build(status)
        .content_type(header::ContentType::html())
        .body(html);
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}

pub async fn login_page(
    request: HttpRequest,
    auth: web::Data<Auth>,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    if auth.is_logged_in(&request) {
        return Ok(see_other("/"));
    }
    page(StatusCode::OK, &csrf, false, None)
}

#[derive(Debug, Deserialize)]
pub struct LoginForm {
    password: Option<String>,
    csrf_token: Option<String>,
}

pub async fn log_in(
    request: HttpRequest,
    auth: web::Data<Auth>,
    csrf: CsrfToken,
    form: web::Form<LoginForm>,
) -> Result<HttpResponse, WebError> {
    // The token first, so that another site cannot spend a visitor's attempts.
    csrf::verify(&request, form.csrf_token.as_deref())?;
    let client = auth.clients.of(&request);
    let now = Instant::now();
    if let Err(wait) = auth.logins().admit(client, now) {
        let seconds = wait.as_millis().div_ceil(1000).max(1);
        let problem =
            format!("Too many login attempts from your address: try again in {seconds} seconds.");
        let mut response = page(StatusCode::TOO_MANY_REQUESTS, &csrf, false, Some(&problem))?;
        response.headers_mut().insert(
            header::RETRY_AFTER,
            header::HeaderValue::from(seconds as u64),
        );
        return Ok(response);
    }
    if !auth
        .password
        .is(form.password.as_deref().unwrap_or_default())
    {
        tracing::warn!(%client, "a login with a wrong password");
        return page(
            StatusCode::UNAUTHORIZED,
            &csrf,
            false,
            Some("That password is wrong."),
        );
    }
    auth.logins().succeeded(client);
    let token = auth.sessions().open(now);
    let mut response = see_other("/");
    tokens::set_cookie(&mut response, &session_cookie(&request, token))?;
    Ok(response)
}

pub async fn logout_page(csrf: CsrfToken) -> Result<HttpResponse, WebError> {
    page(StatusCode::OK, &csrf, true, None)
}

#[derive(Debug, Deserialize)]
pub struct LogoutForm {
    csrf_token: Option<String>,
}

pub async fn log_out(
    request: HttpRequest,
    auth: web::Data<Auth>,
    form: web::Form<LogoutForm>,
) -> Result<HttpResponse, WebError> {
    csrf::verify(&request, form.csrf_token.as_deref())?;
    if let Some(cookie) = request.cookie(SESSION_COOKIE) {
        auth.sessions().close(cookie.value());
    }
    let mut response = see_other(LOGIN_PATH);
    let mut removal = session_cookie(&request, String::new());
    removal.make_removal();
    tokens::set_cookie(&mut response, &removal)?;
    Ok(response)
}
