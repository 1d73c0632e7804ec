//! `/import`: a study from the browser alone. The page holds one form per kind of file
//! (papers, recommendations, ratings) and, while the study has no recommendations, its pool
//! depth; an upload (`POST /import`, see [`super::upload`]) becomes a job whose page
//! (`/import/{job}`, and `/import/{job}.json` for its script) follows it to its summary line,
//! or to every problem of the files with its file, line and column. Importing is the owner's
//! alone in a study with raters (a rater gets 403), as every change of the study for everyone.

use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::{Deserialize, Serialize};

use super::answer::see_other;
use super::auth::Owner;
use super::csrf::{self, CsrfToken};
use super::upload::{self, job_path, UploadLimit};
use super::view::{self, Nav};
use super::WebError;
use crate::domain::PoolDepth;
use crate::formats::Problem;
use crate::study::import::{JobFailure, JobId, JobReport, JobState, Outcome, JOBS_KEPT};
use crate::study::Study;
use crate::words::{plural, thousands};

/// `GET` and `POST /import`, `POST /import/settings`, `GET /import/{job}` and its JSON.
pub fn routes(limit: UploadLimit) -> impl FnOnce(&mut web::ServiceConfig) {
    move |config| {
        config
            .app_data(web::Data::new(limit))
            .service(
                web::resource("/import")
                    .route(web::get().to(page))
                    .route(web::post().to(upload::upload)),
            )
            .route("/import/settings", web::post().to(settings))
            .route("/import/{job:[0-9a-f]+}.json", web::get().to(job_json))
            .route("/import/{job:[0-9a-f]+}", web::get().to(job_page));
    }
}

#[derive(Template)]
#[template(path = "import.html")]
struct ImportPage {
    nav: Nav,
    csrf_token: String,
    /// The largest upload, in words.
    max_upload: String,
    max_upload_bytes: u64,
    /// "40,000 papers and 6,400,000 recommendations of 8 models".
    holds: String,
    pool_depth: u32,
    /// The pool depth may still change: no recommendations yet.
    depth_open: bool,
    max_depth: u32,
    /// The address of the import running now.
    running: Option<String>,
}

async fn page(
    study: web::Data<Study>,
    _: Owner,
    limit: web::Data<UploadLimit>,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    let status = study.status().await?;
    let count = |count: i64, one: &'static str, many: &'static str| {
        format!("{} {}", thousands(count), plural(count, one, many))
    };
    let holds = format!(
        "{} and {} of {}",
        count(status.papers, "paper", "papers"),
        count(status.recommendations, "recommendation", "recommendations"),
        count(status.models, "model", "models"),
    );
    let mut response = view::html(&ImportPage {
        nav: Nav::OWNER,
        csrf_token: csrf.value().to_owned(),
        max_upload: limit.size.to_string(),
        max_upload_bytes: limit.size.bytes(),
        holds,
        pool_depth: status.pool_depth,
        depth_open: status.recommendations == 0,
        max_depth: PoolDepth::MAX,
        running: study.import().running().as_ref().map(job_path),
    })?;
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}

/// Every field optional here, so that a missing one gets a 400 naming it (and a missing token a
/// 403).
#[derive(Debug, Deserialize)]
pub struct SettingsForm {
    pool_depth: Option<String>,
    csrf_token: Option<String>,
}

/// Sets the pool depth, as `paperjudge init --pool-depth N`, and answers 303 back.
async fn settings(
    request: HttpRequest,
    study: web::Data<Study>,
    _: Owner,
    form: web::Form<SettingsForm>,
) -> Result<HttpResponse, WebError> {
    let form = form.into_inner();
    csrf::verify(&request, form.csrf_token.as_deref())?;
    let text = form.pool_depth.unwrap_or_default();
    let depth = (text.trim().parse().ok())
        .and_then(PoolDepth::new)
        .ok_or_else(|| {
            WebError::BadRequest(format!(
                "the pool depth must be a whole number from 1 to {}; got {text:?}",
                PoolDepth::MAX
            ))
        })?;
    (study.pool().set_depth(depth).await).map_err(WebError::of_change)?;
    Ok(see_other("/import"))
}

/// A job as its page and its JSON show it.
#[derive(Debug, Serialize)]
struct JobView {
    job: String,
    kind: Option<&'static str>,
    state: &'static str,
    files: Vec<String>,
    /// The file being read or written, from 1, while one is.
    file: Option<usize>,
    bytes: u64,
    rows: u64,
    /// The summary line once done, "nothing was written: " and why once failed, empty before.
    summary: String,
    /// Why nothing was written, once failed.
    #[serde(skip)]
    failure: String,
    problems: Vec<ProblemView>,
    /// Problems found beyond those listed.
    unreported: u64,
}

#[derive(Debug, Serialize)]
struct ProblemView {
    file: String,
    /// The first line it is on.
    line: Option<u64>,
    column: Option<String>,
    message: String,
    /// For the same problem on several lines: how many, and the first of them.
    #[serde(flatten)]
    repeated: Option<Repeated>,
    /// Where in its file it is, as the page says it after the file's name: ", line 3", ", 6
    /// lines (1, 2, 3, 4, 5, 6)" or " (the whole file)".
    #[serde(skip)]
    place_after_file: String,
}

#[derive(Debug, Serialize)]
struct Repeated {
    count: u64,
    lines: Vec<u64>,
}

impl ProblemView {
    fn new(file: &str, problem: &Problem) -> ProblemView {
        let place_after_file = match problem.line {
            None => " (the whole file)".to_owned(),
            Some(line) if problem.count < 2 => format!(", line {line}"),
            Some(_) => format!(
                ", {} lines ({})",
                thousands_u64(problem.count),
                problem.lines_named()
            ),
        };
        ProblemView {
            file: file.to_owned(),
            line: problem.line,
            column: problem.field.clone(),
            message: problem.message.clone(),
            repeated: (problem.count > 1).then(|| Repeated {
                count: problem.count,
                lines: problem.lines.clone(),
            }),
            place_after_file,
        }
    }
}

impl JobView {
    fn new(report: JobReport) -> JobView {
        let (summary, failure, problems, unreported) = match &report.outcome {
            None => (String::new(), String::new(), Vec::new(), 0),
            Some(Outcome::Done(summary)) => (summary.to_string(), String::new(), Vec::new(), 0),
            Some(Outcome::Failed(failure)) => {
                let invalid = match failure {
                    JobFailure::Invalid(invalid) => invalid.files(),
                    _ => &[],
                };
                let problems = (invalid.iter())
                    .flat_map(|file| {
                        (file.problems.iter())
                            .map(|problem| ProblemView::new(&file.source, problem))
                    })
                    .collect();
                let unreported = invalid.iter().map(|file| file.unreported).sum();
                let failure = failure.to_string();
                (
                    format!("nothing was written: {failure}"),
                    failure,
                    problems,
                    unreported,
                )
            }
        };
        let reading = matches!(report.state, JobState::Reading | JobState::Writing);
        JobView {
            job: report.id.to_string(),
            kind: report.kind,
            state: report.state.as_str(),
            file: reading.then_some(report.file + 1),
            files: report.files,
            bytes: report.bytes,
            rows: report.rows,
            summary,
            failure,
            problems,
            unreported,
        }
    }

    fn is_finished(&self) -> bool {
        matches!(self.state, "done" | "failed")
    }

    /// Where the job is, in words: "Reading model-3.run (file 3 of 8): 1,234,567 rows read".
    fn progress_in_words(&self) -> String {
        let file = |index: usize| {
            let name = self.files.get(index - 1).map_or("", String::as_str);
            match self.files.len() {
                1 => name.to_owned(),
                count => format!("{name} (file {index} of {count})"),
            }
        };
        let rows = thousands(self.rows as i64);
        match (self.state, self.file) {
            ("uploading", _) => format!("Uploading: {} bytes received", thousands_u64(self.bytes)),
            ("reading", Some(index)) => format!("Reading {}: {rows} rows read", file(index)),
            ("writing", Some(index)) => {
                format!("Writing {} to the study ({rows} rows read)", file(index))
            }
            ("done", _) => "Done".to_owned(),
            _ => "Failed".to_owned(),
        }
    }
}

fn thousands_u64(count: u64) -> String {
    thousands(i64::try_from(count).unwrap_or(i64::MAX))
}

#[derive(Template)]
#[template(path = "import_job.html")]
struct JobPage {
    nav: Nav,
    job: JobView,
    progress: String,
    /// After a list import, what the study rates now.
    study_in_words: Option<String>,
}

/// The job of the address, or a 404 that says why there is none.
fn job_of(study: &Study, id: &str) -> Result<JobView, WebError> {
    let report = JobId::parse(id).and_then(|id| study.import().job(&id));
    report.map(JobView::new).ok_or_else(|| {
        WebError::NotFound(format!(
            "there is no import {id} on this server: it keeps the last {JOBS_KEPT} imports until \
             it stops, and this one is not among them (the server may have been restarted). \
             Whatever an import wrote is in the study: the dashboard and the import page show \
             what it holds"
        ))
    })
}

async fn job_page(
    study: web::Data<Study>,
    _: Owner,
    id: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let job = job_of(&study, &id)?;
    let study_in_words = match (job.state, job.kind) {
        ("done", Some("recommendations")) => Some(study.targets().overview().await?.in_words()),
        _ => None,
    };
    view::html(&JobPage {
        nav: Nav::OWNER,
        progress: job.progress_in_words(),
        job,
        study_in_words,
    })
}

async fn job_json(
    study: web::Data<Study>,
    _: Owner,
    id: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    Ok(HttpResponse::Ok().json(job_of(&study, &id)?))
}
