//! The login and logout pages and forms.

use std::time::Instant;

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpMessage, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::session::{session_cookie, SESSION_COOKIE};
use super::throttle::{login_name, TooMany};
use super::{Auth, Signed, LOGIN_PATH};
use crate::domain::{RaterId, RaterName};
use crate::study::raters::Credential;
use crate::study::Study;
use crate::web::answer::see_other;
use crate::web::csrf::{self, CsrfToken};
use crate::web::view::Nav;
use crate::web::{tokens, WebError};

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage<'a> {
    nav: Nav,
    csrf_token: &'a str,
    /// Logged in: the page offers to log out instead.
    logged_in: bool,
    /// The study has raters: the form asks whose name, too.
    raters: bool,
    /// The owner signs in with a password (given to `serve`).
    owner_password: bool,
    problem: Option<&'a str>,
}

/// What the login form shows, besides the problem.
#[derive(Clone, Copy)]
struct Form {
    logged_in: bool,
    raters: bool,
    owner_password: bool,
}

impl Form {
    async fn of(auth: &Auth, study: &Study, logged_in: bool) -> Result<Form, WebError> {
        Ok(Form {
            logged_in,
            raters: study.raters().has_active().await?,
            owner_password: auth.password.is_some(),
        })
    }
}

fn page(
    status: StatusCode,
    csrf: &CsrfToken,
    form: Form,
    problem: Option<&str>,
) -> Result<HttpResponse, WebError> {
    let html = LoginPage {
        nav: Nav::OWNER,
        csrf_token: csrf.value(),
        logged_in: form.logged_in,
        raters: form.raters,
        owner_password: form.owner_password,
        problem,
    }
    .render()?;
    let mut response = HttpResponse::build(status)
        .content_type(header::ContentType::html())
        .body(html);
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}

/// There is no login page while nothing is asked (no password, loopback, no raters).
async fn asked(auth: &Auth, study: &Study) -> Result<(), WebError> {
    match auth.asks(study).await? {
        true => Ok(()),
        false => Err(WebError::no_such_page()),
    }
}

pub async fn login_page(
    request: HttpRequest,
    auth: web::Data<Auth>,
    study: web::Data<Study>,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    asked(&auth, &study).await?;
    if request.extensions().contains::<Signed>() {
        return Ok(see_other("/"));
    }
    page(
        StatusCode::OK,
        &csrf,
        Form::of(&auth, &study, false).await?,
        None,
    )
}

#[derive(Debug, Deserialize)]
pub struct LoginForm {
    /// The rater's name; empty or missing for the owner.
    rater: Option<String>,
    password: Option<String>,
    csrf_token: Option<String>,
}

pub async fn log_in(
    request: HttpRequest,
    auth: web::Data<Auth>,
    study: web::Data<Study>,
    csrf: CsrfToken,
    form: web::Form<LoginForm>,
) -> Result<HttpResponse, WebError> {
    asked(&auth, &study).await?;
    // The token first, so that another site cannot spend a visitor's attempts.
    csrf::verify(&request, form.csrf_token.as_deref())?;
    let shown = Form::of(&auth, &study, false).await?;
    let client = auth.clients.of(&request);
    let now = Instant::now();
    let typed = form.rater.as_deref().map(str::trim).unwrap_or_default();
    let counted_as = match typed {
        "" => RaterName::owner().likeness(),
        name => login_name(name),
    };
    let admitted = auth.logins().admit(client, &counted_as, now);
    let attempt = match admitted {
        Ok(attempt) => attempt,
        Err(too_many) => {
            let (wait, whose) = match too_many {
                TooMany::FromClient(wait) => (wait, "from your address"),
                TooMany::AtName(wait) => (wait, "at this name"),
            };
            let seconds = wait.as_millis().div_ceil(1000).max(1);
            let problem =
                format!("Too many login attempts {whose}: try again in {seconds} seconds.");
            let mut response = page(StatusCode::TOO_MANY_REQUESTS, &csrf, shown, Some(&problem))?;
            response.headers_mut().insert(
                header::RETRY_AFTER,
                header::HeaderValue::from(seconds as u64),
            );
            return Ok(response);
        }
    };
    let password = form.password.as_deref().unwrap_or_default();
    // The owner leaves the name empty, or gives theirs.
    let name = (form.rater.as_deref().map(str::trim))
        .filter(|name| !name.is_empty() && *name != RaterName::owner().as_str());
    let signed_in: Option<(RaterId, Credential)> = match name {
        None => (auth.password.as_ref())
            .filter(|owner| owner.is(password))
            .map(|_| (RaterId::OWNER, Credential::OWNER)),
        Some(name) => match RaterName::new(name) {
            Ok(name) => (study.raters().sign_in(&name, password).await?)
                .map(|(rater, credential)| (rater.id, credential)),
            Err(_) => None,
        },
    };
    let Some((rater, credential)) = signed_in else {
        tracing::warn!(%client, "a login with a wrong name or password");
        let problem = match (name, shown.raters) {
            (None, false) => "That password is wrong.",
            (None, true) if !shown.owner_password => {
                "Give your name as a rater, and your password."
            }
            _ => "That name or password is wrong.",
        };
        return page(StatusCode::UNAUTHORIZED, &csrf, shown, Some(problem));
    };
    auth.logins().succeeded(&attempt);
    // A browser signing in again (as someone else, on a shared machine) ends the session it
    // had: two cookies never name two people.
    let mut sessions = auth.sessions();
    if let Some(cookie) = request.cookie(SESSION_COOKIE) {
        sessions.close(cookie.value());
    }
    let token = sessions.open(rater, credential, now);
    drop(sessions);
    let mut response = see_other("/");
    tokens::set_cookie(&mut response, &session_cookie(&request, token))?;
    Ok(response)
}

pub async fn logout_page(
    auth: web::Data<Auth>,
    study: web::Data<Study>,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    asked(&auth, &study).await?;
    page(
        StatusCode::OK,
        &csrf,
        Form::of(&auth, &study, true).await?,
        None,
    )
}

#[derive(Debug, Deserialize)]
pub struct LogoutForm {
    csrf_token: Option<String>,
}

pub async fn log_out(
    request: HttpRequest,
    auth: web::Data<Auth>,
    study: web::Data<Study>,
    form: web::Form<LogoutForm>,
) -> Result<HttpResponse, WebError> {
    asked(&auth, &study).await?;
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
