//! `/judges`: the study's machine judges, each with its progress and its audit against the
//! raters, and a form that starts a judge run (`POST /judges/run`), followed on its page
//! (`/judges/runs/{job}`, and its JSON for the page's script); `/judges/{name}/disagreements`:
//! the pairs of fully rated targets where a judge and the raters differ most. The form's "Try"
//! starts a trial on the tuning set instead; the trials are listed, each with its
//! disagreements (`/judges/trials/{id}/disagreements`) and a form that makes a judge of it
//! (`POST /judges/trials/{id}/judge`).
//!
//! The owner's alone: a judge's grade of a pair reaches nobody before the pair's target is
//! fully rated, and then only the owner (see `crate::study::judges`).

use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::{Deserialize, Serialize};

use super::answer::see_other;
use super::auth::Owner;
use super::csrf::{self, CsrfToken};
use super::leaderboard::LeaderboardQuery;
use super::view::{self, Nav};
use super::WebError;
use crate::domain::{JudgeModel, JudgeName};
use crate::study::import::JobId;
use crate::study::judges::endpoint::EndpointUrl;
use crate::study::judges::prompt::{Prompt, MAX_TEMPLATE_BYTES};
use crate::study::judges::{
    CommandLine, Disagreement, EndpointRequest, Grading, JudgeAudit, JudgeSummary, Purpose,
    RunJobReport, RunRequest, RunState, TrialSummary, KEY_VARIABLE, RUNS_KEPT, TUNING_TARGETS,
};
use crate::study::Study;
use crate::words;

/// Requests in flight of a run from the browser, unless the form says otherwise.
const DEFAULT_CONCURRENCY: usize = 4;

/// How long one request of a run from the browser may take.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// The largest form to start a run accepted: a prompt as long as the command line takes
/// ([`MAX_TEMPLATE_BYTES`]), sent with every line break as CR LF and every byte
/// percent-encoded (a line break then takes 6 bytes, each of its two characters 3), and the
/// other fields beside it.
const RUN_FORM_LIMIT_BYTES: usize = 6 * MAX_TEMPLATE_BYTES + 16 * 1024;

/// `/judges`, `POST /judges/run`, a run's page and JSON, a judge's disagreements.
pub fn routes(config: &mut web::ServiceConfig) {
    let run_form = web::FormConfig::default()
        .limit(RUN_FORM_LIMIT_BYTES)
        .error_handler(super::error::unreadable_form);
    config
        .route("/judges", web::get().to(page))
        .service(
            web::resource("/judges/run")
                .app_data(run_form)
                .route(web::post().to(start)),
        )
        .route("/judges/runs/{job:[0-9a-f]+}.json", web::get().to(run_json))
        .route("/judges/runs/{job:[0-9a-f]+}", web::get().to(run_page))
        .route(
            "/judges/trials/{id:[0-9]+}/disagreements",
            web::get().to(trial_disagreements),
        )
        .route(
            "/judges/trials/{id:[0-9]+}/judge",
            web::post().to(from_trial),
        )
        .route("/judges/{name}/disagreements", web::get().to(disagreements));
}

/// The address of a run's page.
fn run_path(job: &JobId) -> String {
    format!("/judges/runs/{job}")
}

/// What a judge's name keeps as it is in an address: letters, digits and `-._~` (RFC 3986's
/// unreserved characters); a `/` of a model's name, and everything else, is percent-encoded.
const NAME_IN_PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The address of a judge's disagreements.
fn disagreements_path(name: &JudgeName) -> String {
    let encoded = percent_encoding::utf8_percent_encode(name.as_str(), NAME_IN_PATH);
    format!("/judges/{encoded}/disagreements")
}

#[derive(Template)]
#[template(path = "judges.html")]
struct JudgesPage {
    nav: Nav,
    csrf_token: String,
    judges: Vec<JudgeView>,
    /// Every trial, the best first.
    trials: Vec<TrialSummary>,
    default_tuning_targets: usize,
    default_prompt: String,
    default_concurrency: usize,
    /// The address of the run going on now, if one was started from the browser.
    running: Option<String>,
}

/// A judge with its audit, as the page shows it.
struct JudgeView {
    summary: JudgeSummary,
    audit: JudgeAudit,
    disagreements: String,
}

impl JudgesPage {
    fn number(&self, value: &Option<f64>) -> String {
        words::page::number(*value, 2)
    }

    fn percent(&self, value: &Option<f64>) -> String {
        words::page::percent(*value, 0)
    }

    /// Beside α, which shows the missing value already: nothing when there is no interval.
    fn interval(&self, value: &Option<[f64; 2]>) -> String {
        value.map_or_else(String::new, |ends| words::page::interval(ends, 2))
    }

    fn short_sha(&self, sha: &Option<String>) -> String {
        sha.as_deref()
            .map_or_else(String::new, |sha| sha.chars().take(12).collect())
    }

    fn seconds(&self, value: &Option<f64>) -> String {
        words::page::number(*value, 2)
    }
}

async fn page(
    study: web::Data<Study>,
    _: Owner,
    query: LeaderboardQuery,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    let summaries = study.judges().list().await?;
    let audits = study.evaluation().judge_audits(&query.options).await?;
    let judges = (summaries.into_iter().zip(audits))
        .map(|(summary, audit)| JudgeView {
            disagreements: disagreements_path(&summary.name),
            summary,
            audit,
        })
        .collect();
    let mut response = view::html(&JudgesPage {
        nav: Nav::OWNER,
        csrf_token: csrf.value().to_owned(),
        judges,
        trials: study.evaluation().trials().await?,
        default_tuning_targets: TUNING_TARGETS,
        default_prompt: Prompt::default_prompt().template().to_owned(),
        default_concurrency: DEFAULT_CONCURRENCY,
        running: study.judges().running().as_ref().map(run_path),
    })?;
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}

/// Every field optional here, so that a missing one gets a 400 naming it (and a missing token
/// a 403).
#[derive(Debug, Deserialize)]
pub struct RunForm {
    csrf_token: Option<String>,
    endpoint: Option<String>,
    model: Option<String>,
    name: Option<String>,
    prompt: Option<String>,
    concurrency: Option<String>,
    /// `trial` for the "Try" button; the judge's run otherwise.
    purpose: Option<String>,
    tuning_targets: Option<String>,
    stop_below_alpha: Option<String>,
}

/// An optional field of a form: `None` when absent or blank, else parsed by `parse` (`None`:
/// refused with `what` it must be).
fn optional<T>(
    value: Option<&str>,
    field: &str,
    what: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Option<T>, WebError> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => parse(text)
            .map(Some)
            .ok_or_else(|| WebError::BadRequest(format!("{field} must be {what}; got {text:?}"))),
    }
}

/// Starts a judge run as `paperjudge judge` would, and answers 303 to its page; 409 while
/// another runs.
async fn start(
    request: HttpRequest,
    study: web::Data<Study>,
    _: Owner,
    form: web::Form<RunForm>,
) -> Result<HttpResponse, WebError> {
    let form = form.into_inner();
    csrf::verify(&request, form.csrf_token.as_deref())?;
    let required = |value: Option<String>, field: &str| -> Result<String, WebError> {
        value
            .map(|value| value.trim().to_owned())
            .filter(|value| !value.is_empty())
            .ok_or_else(|| WebError::BadRequest(format!("the form needs the field `{field}`")))
    };
    let endpoint = EndpointUrl::parse(&required(form.endpoint, "endpoint")?)
        .map_err(|invalid| WebError::BadRequest(invalid.to_string()))?;
    let model = JudgeModel::new(&required(form.model, "model")?)
        .map_err(|invalid| WebError::BadRequest(invalid.to_string()))?;
    let name = match form.name.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(name) => Some(
            JudgeName::new(name).map_err(|invalid| WebError::BadRequest(invalid.to_string()))?,
        ),
    };
    let concurrency = optional(
        form.concurrency.as_deref(),
        "concurrency",
        "a whole number from 1 to 64",
        |text| text.parse().ok().filter(|n| (1..=64).contains(n)),
    )?
    .unwrap_or(DEFAULT_CONCURRENCY);
    let tuning_targets = optional(
        form.tuning_targets.as_deref(),
        "tuning_targets",
        "a whole number from 1 to 10000",
        |text| text.parse().ok().filter(|n| (1..=10_000).contains(n)),
    )?;
    let stop_below_alpha = optional(
        form.stop_below_alpha.as_deref(),
        "stop_below_alpha",
        "a number from -1 to 1",
        |text| text.parse().ok().filter(|x: &f64| (-1.0..=1.0).contains(x)),
    )?;
    let purpose = match (form.purpose.as_deref(), stop_below_alpha) {
        (Some("trial"), _) => Purpose::Trial,
        (_, Some(threshold)) => Purpose::JudgeUnlessBelow(threshold),
        _ => Purpose::Judge,
    };
    // The browser sends line breaks as CR LF: the template is the one typed.
    let prompt = form
        .prompt
        .map(|prompt| prompt.replace("\r\n", "\n"))
        .filter(|prompt| {
            !prompt.trim().is_empty() && *prompt != Prompt::default_prompt().template()
        });
    let job = study
        .evaluation()
        .start_judge_run(RunRequest {
            grading: Grading::Endpoint(EndpointRequest {
                endpoint,
                model,
                prompt,
                key: std::env::var(KEY_VARIABLE).ok(),
            }),
            name,
            concurrency,
            limit: None,
            timeout: TIMEOUT,
            purpose,
            tuning_targets,
        })
        .await?;
    Ok(see_other(&run_path(&job)))
}

/// The form that makes a judge from a trial.
#[derive(Debug, Deserialize)]
pub struct FromTrialForm {
    csrf_token: Option<String>,
    name: Option<String>,
}

/// Makes the judge `name` from the trial of the address, as `paperjudge judge ... --from-trial`
/// does (the trial's grades kept, the rest of the study graded with what it graded with), and
/// answers 303 to the run's page.
async fn from_trial(
    request: HttpRequest,
    study: web::Data<Study>,
    _: Owner,
    id: web::Path<i64>,
    form: web::Form<FromTrialForm>,
) -> Result<HttpResponse, WebError> {
    let form = form.into_inner();
    csrf::verify(&request, form.csrf_token.as_deref())?;
    let name = (form.name.as_deref().map(str::trim))
        .filter(|name| !name.is_empty())
        .ok_or_else(|| WebError::BadRequest("the form needs the field `name`".to_owned()))?;
    let name = JudgeName::new(name).map_err(|invalid| WebError::BadRequest(invalid.to_string()))?;
    let id = id.into_inner();
    let (trial, _) = study.evaluation().trial_audit(id).await?;
    let grading = match (trial.model, trial.endpoint, trial.command) {
        (Some(model), Some(endpoint), _) => Grading::Endpoint(EndpointRequest {
            endpoint: EndpointUrl::parse(&endpoint)
                .map_err(|invalid| WebError::BadRequest(invalid.to_string()))?,
            model: JudgeModel::new(&model)
                .map_err(|invalid| WebError::BadRequest(invalid.to_string()))?,
            prompt: None,
            key: std::env::var(KEY_VARIABLE).ok(),
        }),
        (_, _, Some(command)) => {
            Grading::Command(CommandLine::parse(&command).map_err(WebError::BadRequest)?)
        }
        _ => {
            return Err(WebError::BadRequest(format!(
                "trial {id} names neither a model nor a command"
            )))
        }
    };
    let job = study
        .evaluation()
        .start_judge_run(RunRequest {
            grading,
            name: Some(name),
            concurrency: DEFAULT_CONCURRENCY,
            limit: None,
            timeout: TIMEOUT,
            purpose: Purpose::FromTrial(id),
            tuning_targets: None,
        })
        .await?;
    Ok(see_other(&run_path(&job)))
}

/// A run as its page and its JSON show it.
#[derive(Debug, Serialize)]
struct RunView {
    job: String,
    judge: Option<String>,
    state: &'static str,
    pairs_done: u64,
    pairs_total: u64,
    failed: u64,
    summary: String,
}

impl RunView {
    fn new(report: RunJobReport) -> RunView {
        RunView {
            job: report.id.to_string(),
            judge: report.judge.map(|judge| judge.to_string()),
            state: report.state.as_str(),
            pairs_done: report.pairs_done,
            pairs_total: report.pairs_total,
            failed: report.failed,
            summary: report.summary,
        }
    }

    fn is_running(&self) -> bool {
        self.state == RunState::Running.as_str()
    }
}

#[derive(Template)]
#[template(path = "judge_run.html")]
struct RunPage {
    nav: Nav,
    run: RunView,
}

/// The run of the address, or a 404 that says why there is none.
fn run_of(study: &Study, id: &str) -> Result<RunView, WebError> {
    let report = JobId::parse(id).and_then(|id| study.judges().job(&id));
    report.map(RunView::new).ok_or_else(|| {
        WebError::NotFound(format!(
            "there is no judge run {id} on this server: it keeps the last {RUNS_KEPT} runs \
             until it stops, and this one is not among them (the server may have been \
             restarted). Every grade a run stored is in the study: /judges shows them"
        ))
    })
}

async fn run_page(
    study: web::Data<Study>,
    _: Owner,
    id: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    view::html(&RunPage {
        nav: Nav::OWNER,
        run: run_of(&study, &id)?,
    })
}

async fn run_json(
    study: web::Data<Study>,
    _: Owner,
    id: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    Ok(HttpResponse::Ok().json(run_of(&study, &id)?))
}

#[derive(Template)]
#[template(path = "judge_disagreements.html")]
struct DisagreementsPage {
    nav: Nav,
    /// The judge's name, or "trial N".
    judge: String,
    pairs: Vec<Disagreement>,
}

async fn disagreements(
    study: web::Data<Study>,
    _: Owner,
    name: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let judge = JudgeName::new(&name).map_err(|invalid| WebError::NotFound(invalid.to_string()))?;
    let pairs = study.evaluation().judge_disagreements(&judge).await?;
    view::html(&DisagreementsPage {
        nav: Nav::OWNER,
        judge: judge.to_string(),
        pairs,
    })
}

/// A trial's disagreements, as a judge's.
async fn trial_disagreements(
    study: web::Data<Study>,
    _: Owner,
    id: web::Path<i64>,
) -> Result<HttpResponse, WebError> {
    let id = id.into_inner();
    let pairs = study.evaluation().trial_disagreements(id).await?;
    view::html(&DisagreementsPage {
        nav: Nav::OWNER,
        judge: format!("trial {id}"),
        pairs,
    })
}
