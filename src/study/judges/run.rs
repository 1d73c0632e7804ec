//! A judge run: every pooled pair of the study's targets that the judge has not graded, sent
//! to a model endpoint, each grade stored as it arrives.
//!
//! The pairs go in the study's order (`/next`'s order of the targets, each target's blind
//! order), `concurrency` requests in flight at most. A grade is committed on its own as soon as
//! it arrives: a run killed loses at most the requests in flight, and the next run asks only
//! for the pairs still without a grade. A reply that is no grade is not stored, and counted
//! with an example; a request that fails for a moment (a timeout, no connection, 429, a 5xx)
//! is tried again after a while, [`ATTEMPTS`] times in all; one that cannot succeed (the key
//! refused, an unknown model, the endpoint gone) stops the run with one sentence that says
//! why.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use rand::Rng;

use super::endpoint::{parse_stars, shortened, CallError, Endpoint, JsonForm};
use super::prompt::{PairTexts, Prompt};
use super::store;
use crate::domain::{JudgeName, PaperId, PaperKey, Stars};
use crate::study::{Refusal, Study, StudyError};
use crate::words::plural;

/// The environment variable that may hold the endpoint's bearer key, which both faces read
/// (kept off the command line and out of forms, where others could read it).
pub const KEY_VARIABLE: &str = "PAPERJUDGE_JUDGE_KEY";

/// Tries of one request, the first included.
pub const ATTEMPTS: u32 = 5;

/// The first wait before a request is tried again; each next one twice as long, at most
/// [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The longest `Retry-After` heeded.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// Failed pairs in a row that stop a run: an endpoint that fails every request is not asked
/// for every pair.
const FAILURES_IN_A_ROW: u64 = 10;

/// Examples kept of replies that were no grade, and of failed requests.
const EXAMPLES: usize = 3;

/// What a run is asked to do.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// The API base, e.g. `http://127.0.0.1:8081/v1`.
    pub endpoint: String,
    pub model: String,
    /// The judge's name; by default the model's.
    pub name: Option<JudgeName>,
    /// The prompt's template; by default [`Prompt::default_prompt`].
    pub prompt: Option<String>,
    /// Requests in flight at most.
    pub concurrency: usize,
    /// Pairs asked for at most in this run.
    pub limit: Option<u64>,
    /// How long one request may take.
    pub timeout: Duration,
    /// The bearer key (`PAPERJUDGE_JUDGE_KEY`): sent, never stored or printed.
    pub key: Option<String>,
}

/// What a run tells as it goes: the command line's progress bar, the browser's page of a run.
pub trait RunProgress: Send + Sync + 'static {
    /// The run grades `pairs` pairs as the judge `judge`.
    fn started(&self, judge: &JudgeName, pairs: u64) {
        let _ = (judge, pairs);
    }

    /// A pair is done: its grade stored (`stored`), or not.
    fn done(&self, stored: bool) {
        let _ = stored;
    }
}

/// A run nobody follows.
impl RunProgress for () {}

/// A reply or failure shown as an example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    pub target: PaperId,
    pub paper: PaperId,
    /// The reply's content, or why the request failed.
    pub what: String,
}

/// What a run did.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    pub judge: JudgeName,
    /// The pairs the run set out to grade (at most `--limit`).
    pub pairs: u64,
    pub stored: u64,
    /// Replies that were no grade (not JSON, no `stars`, a number outside 1..5): not stored.
    pub not_grades: u64,
    pub not_grade_examples: Vec<Example>,
    /// Requests that failed after every try: not stored.
    pub failed: u64,
    pub failed_examples: Vec<Example>,
    /// Why the run stopped before its last pair, if it did.
    pub stopped: Option<String>,
    /// The form of JSON output the endpoint took, once one did.
    pub json_form: Option<JsonForm>,
    pub seconds: f64,
}

impl RunReport {
    /// One line: what was stored, what was not, and the rate.
    pub fn summary(&self) -> String {
        let rate = if self.seconds > 0.0 {
            self.stored as f64 / self.seconds
        } else {
            0.0
        };
        let mut line = format!(
            "judge {}: {} of {} {} graded and stored in {:.1} s ({rate:.2} a second)",
            self.judge,
            self.stored,
            self.pairs,
            plural(self.pairs, "pair", "pairs"),
            self.seconds
        );
        if self.not_grades > 0 {
            line.push_str(&format!(
                "; {} {} no grade (not stored)",
                self.not_grades,
                plural(self.not_grades, "reply was", "replies were")
            ));
        }
        if self.failed > 0 {
            line.push_str(&format!(
                "; {} {} after {ATTEMPTS} tries (not stored)",
                self.failed,
                plural(self.failed, "request failed", "requests failed")
            ));
        }
        line
    }
}

/// How one pair went.
enum Outcome {
    Graded(Stars),
    NotAGrade(String),
    Failed(CallError),
}

/// Why a run cannot go on: said in one sentence.
struct Stop(String);

impl Study {
    /// Grades, as the judge `request` names, every pooled pair of the study's targets that it
    /// has not graded, through the model endpoint; `progress` hears how it goes. Refused (and
    /// nothing asked) for a prompt or address that cannot be used, or a judge of that name
    /// that grades with another model or prompt.
    pub async fn run_judge(
        &self,
        request: RunRequest,
        progress: impl RunProgress,
    ) -> Result<RunReport, StudyError> {
        let slot = super::jobs::claim(&self.judge_runs)?;
        let prepared = self.prepare_run(&request).await?;
        self.run_prepared(slot, prepared, request.concurrency, progress)
            .await
    }

    /// Checks what a run asks (refused: nothing asked of the endpoint) and finds the pairs it
    /// grades.
    pub(super) async fn prepare_run(
        &self,
        request: &RunRequest,
    ) -> Result<PreparedRun, StudyError> {
        let prompt = match &request.prompt {
            Some(template) => Prompt::new(template).map_err(Refusal::InvalidPrompt)?,
            None => Prompt::default_prompt(),
        };
        let endpoint = Endpoint::new(
            &request.endpoint,
            &request.model,
            request.key.clone(),
            request.timeout,
        )
        .map_err(Refusal::InvalidJudgeRun)?;
        let name = match &request.name {
            Some(name) => name.clone(),
            None => JudgeName::new(endpoint.model()).map_err(|invalid| {
                Refusal::InvalidJudgeRun(format!("{invalid}: name the judge with --name"))
            })?,
        };
        let existing = self
            .read(async |conn| Ok(store::find(&mut *conn, &name).await?))
            .await?;
        if let Some(judge) = &existing {
            check_same_judge(judge, &endpoint, &prompt)?;
        }
        let judge_id = existing.as_ref().map(|judge| judge.id);
        let mut pairs = self
            .read(async |conn| Ok(store::pairs_to_grade(&mut *conn, judge_id).await?))
            .await?;
        if let Some(limit) = request.limit {
            pairs.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        }
        Ok(PreparedRun {
            name,
            prompt,
            endpoint,
            judge_id,
            pairs,
        })
    }

    /// Runs what [`Study::prepare_run`] prepared, in the slot of the process's one run, held
    /// until it ends.
    pub(super) async fn run_prepared(
        &self,
        _slot: super::jobs::RunSlot,
        prepared: PreparedRun,
        concurrency: usize,
        progress: impl RunProgress,
    ) -> Result<RunReport, StudyError> {
        let started = Instant::now();
        let PreparedRun {
            name,
            prompt,
            endpoint,
            judge_id,
            pairs,
        } = prepared;
        let mut report = RunReport {
            judge: name.clone(),
            pairs: pairs.len() as u64,
            stored: 0,
            not_grades: 0,
            not_grade_examples: Vec::new(),
            failed: 0,
            failed_examples: Vec::new(),
            stopped: None,
            json_form: None,
            seconds: 0.0,
        };
        progress.started(&name, report.pairs);
        let mut pairs: VecDeque<(PaperKey, PaperKey)> = pairs.into();
        let mut judge_id = judge_id;
        let grader = Grader {
            study: self,
            endpoint: &endpoint,
            prompt: &prompt,
        };
        // The first pair alone finds the form of JSON output the endpoint takes.
        let Some(first) = pairs.pop_front() else {
            return Ok(report);
        };
        let (took, outcome) = grader.probe(first).await?;
        let form = match took {
            Ok(form) => form,
            Err(Stop(why)) => {
                report.stopped = Some(why);
                report.seconds = started.elapsed().as_secs_f64();
                return Ok(report);
            }
        };
        report.json_form = Some(form);
        let new_judge = NewJudge {
            name: &name,
            endpoint: &endpoint,
            prompt: &prompt,
            form,
        };
        let settled = (self.settle(
            &mut report,
            &mut judge_id,
            &new_judge,
            first,
            outcome,
            &progress,
        ))
        .await?;
        if let Err(Stop(why)) = settled {
            report.stopped = Some(why);
            pairs.clear();
        }
        let mut answers = stream::iter(pairs)
            .map(|pair| async move { (pair, grader.grade(pair, form).await) })
            .buffer_unordered(concurrency.max(1));
        let mut failures_in_a_row = 0;
        while let Some((pair, outcome)) = answers.next().await {
            let outcome = outcome?;
            failures_in_a_row = match outcome {
                Outcome::Failed(_) => failures_in_a_row + 1,
                _ => 0,
            };
            let settled = self
                .settle(
                    &mut report,
                    &mut judge_id,
                    &new_judge,
                    pair,
                    outcome,
                    &progress,
                )
                .await?;
            let stop = match settled {
                Err(Stop(why)) => Some(why),
                Ok(()) if failures_in_a_row >= FAILURES_IN_A_ROW => Some(format!(
                    "{FAILURES_IN_A_ROW} requests in a row failed after {ATTEMPTS} tries each \
                     (the last: {}); stopped",
                    report
                        .failed_examples
                        .last()
                        .map_or("", |e| e.what.as_str())
                )),
                Ok(()) => None,
            };
            if let Some(why) = stop {
                // Dropping the stream cancels the requests in flight.
                report.stopped = Some(why);
                break;
            }
        }
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// Takes the outcome of one pair into the report: a grade is stored (the judge added with
    /// the first), the rest counted; a failure that no later request can escape stops the run.
    async fn settle(
        &self,
        report: &mut RunReport,
        judge_id: &mut Option<i64>,
        new_judge: &NewJudge<'_>,
        pair: (PaperKey, PaperKey),
        outcome: Outcome,
        progress: &impl RunProgress,
    ) -> Result<Result<(), Stop>, StudyError> {
        match outcome {
            Outcome::Graded(stars) => {
                *judge_id = Some(self.store_grade(*judge_id, new_judge, pair, stars).await?);
                report.stored += 1;
                progress.done(true);
                Ok(Ok(()))
            }
            Outcome::NotAGrade(reply) => {
                report.not_grades += 1;
                if report.not_grade_examples.len() < EXAMPLES {
                    report
                        .not_grade_examples
                        .push(self.example(pair, reply).await?);
                }
                progress.done(false);
                Ok(Ok(()))
            }
            Outcome::Failed(error) => {
                if let Some(stop) = fatal(&error, new_judge.endpoint).await {
                    return Ok(Err(stop));
                }
                report.failed += 1;
                if report.failed_examples.len() < EXAMPLES {
                    report
                        .failed_examples
                        .push(self.example(pair, error.to_string()).await?);
                }
                progress.done(false);
                Ok(Ok(()))
            }
        }
    }

    /// Stores one grade in a transaction of its own (the judge added, or its endpoint and
    /// settings brought up to date, with the first grade of a run): the judge's id. A grade
    /// that arrives while an import holds the study waits for it.
    async fn store_grade(
        &self,
        judge_id: Option<i64>,
        judge: &NewJudge<'_>,
        pair: (PaperKey, PaperKey),
        stars: Stars,
    ) -> Result<i64, StudyError> {
        let settings = super::endpoint::settings_json(judge.form);
        let mut waited = Duration::ZERO;
        loop {
            let stored = self
                .write(async |conn| {
                    let now = crate::study::db::now_rfc3339();
                    let id = match judge_id {
                        Some(id) => id,
                        None => match store::find(&mut *conn, judge.name).await? {
                            Some(found) => found.id,
                            None => {
                                let added = store::EndpointJudge {
                                    name: judge.name,
                                    model: judge.endpoint.model(),
                                    endpoint: judge.endpoint.base(),
                                    prompt: judge.prompt.template(),
                                    prompt_sha256: &judge.prompt.sha256(),
                                    settings: &settings,
                                };
                                store::add_endpoint_judge(&mut *conn, &added, &now).await?
                            }
                        },
                    };
                    if judge_id.is_none() {
                        store::update_endpoint(&mut *conn, id, judge.endpoint.base(), &settings)
                            .await?;
                    }
                    store::store_grade(&mut *conn, id, pair, stars, &now).await?;
                    Ok(id)
                })
                .await;
            match stored {
                // An import holds the study: the grade waits for it, as a rating is retried.
                Err(StudyError::Busy(_)) if waited < STORE_WAIT => {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    waited += Duration::from_secs(1);
                }
                stored => return stored,
            }
        }
    }

    /// A pair and what it answered, by the papers' ids.
    async fn example(
        &self,
        (target, paper): (PaperKey, PaperKey),
        what: String,
    ) -> Result<Example, StudyError> {
        let ids = self
            .read(async |conn| {
                Ok((
                    store::paper_text(&mut *conn, target).await?,
                    store::paper_text(&mut *conn, paper).await?,
                ))
            })
            .await?;
        let id = |text: Option<store::PaperText>| {
            text.map_or_else(|| PaperId::given("?"), |text| text.external_id)
        };
        Ok(Example {
            target: id(ids.0),
            paper: id(ids.1),
            what: crate::terminal::escape(&shortened(what.trim(), 200)).into_owned(),
        })
    }
}

/// A run checked and ready: its judge, prompt and endpoint, and the pairs it grades.
pub(super) struct PreparedRun {
    pub name: JudgeName,
    prompt: Prompt,
    endpoint: Endpoint,
    /// The judge's id, when the study has it already.
    judge_id: Option<i64>,
    pub pairs: Vec<(PaperKey, PaperKey)>,
}

/// How long a grade waits for an import that holds the study before the run gives up.
const STORE_WAIT: Duration = Duration::from_secs(300);

/// What a judge added by a run is.
struct NewJudge<'a> {
    name: &'a JudgeName,
    endpoint: &'a Endpoint,
    prompt: &'a Prompt,
    form: JsonForm,
}

/// A judge's grades come from one model and one prompt: a run under its name must ask the
/// same.
fn check_same_judge(
    judge: &store::JudgeRecord,
    endpoint: &Endpoint,
    prompt: &Prompt,
) -> Result<(), Refusal> {
    let Some(model) = &judge.model else {
        return Err(Refusal::JudgeImported(judge.name.clone()));
    };
    let sha = prompt.sha256();
    let differs = if model != endpoint.model() {
        Some(format!(
            "the model {model:?}, and this run asks {:?}",
            endpoint.model()
        ))
    } else if judge.prompt_sha256.as_deref() != Some(sha.as_str()) {
        Some(format!(
            "a prompt of SHA-256 {}…, and this run's is {}…",
            judge
                .prompt_sha256
                .as_deref()
                .unwrap_or("")
                .get(..12)
                .unwrap_or(""),
            &sha[..12]
        ))
    } else {
        None
    };
    match differs {
        Some(differs) => Err(Refusal::JudgeChanged {
            judge: judge.name.clone(),
            differs,
        }),
        None => Ok(()),
    }
}

/// The failure of a request that no later request escapes: the key refused, the model or the
/// address unknown, the endpoint gone. `None` for a failure of this pair alone.
async fn fatal(error: &CallError, endpoint: &Endpoint) -> Option<Stop> {
    let url = endpoint.base();
    let why =
        match error {
            CallError::Status {
                status: 401 | 403,
                message,
                ..
            } => format!(
            "the endpoint {url} refused the key (HTTP {}: {message}): set PAPERJUDGE_JUDGE_KEY to \
             a key it accepts",
            if matches!(error, CallError::Status { status: 401, .. }) { 401 } else { 403 }
        ),
            CallError::Status { status: 404, .. } => {
                let served = match endpoint.models().await {
                    Some(models) if !models.is_empty() => {
                        format!("; it serves {}", models.join(", "))
                    }
                    _ => String::new(),
                };
                format!(
                "the endpoint {url} does not know the model {:?} or the address ({error}){served}",
                endpoint.model()
            )
            }
            CallError::Unreachable(why) => format!(
            "cannot reach the endpoint {url} ({why}) after {ATTEMPTS} tries: is the server running?"
        ),
            _ => return None,
        };
    Some(Stop(why))
}

/// The requests of one run.
#[derive(Clone, Copy)]
struct Grader<'a> {
    study: &'a Study,
    endpoint: &'a Endpoint,
    prompt: &'a Prompt,
}

impl Grader<'_> {
    /// The first pair: asked in OpenAI's form of JSON output, and in llama-cpp-python's if the
    /// endpoint refuses that one (llama-cpp-python answers it with 500): the form the endpoint
    /// took, or why the run cannot go on, and the pair's outcome.
    async fn probe(
        &self,
        pair: (PaperKey, PaperKey),
    ) -> Result<(Result<JsonForm, Stop>, Outcome), StudyError> {
        let prompt = self.prompt_of(pair).await?;
        let (form, reply) = match self.endpoint.complete(&prompt, JsonForm::Schema).await {
            Err(
                refused @ CallError::Status {
                    status: 400 | 415 | 422 | 500 | 501,
                    ..
                },
            ) => {
                let reply = self.with_retries(&prompt, JsonForm::Object).await;
                if let Err(error) = &reply {
                    let why = format!(
                        "the endpoint {} answered JSON output asked as json_schema with {refused} \
                         and as json_object with {error}; stopped",
                        self.endpoint.base()
                    );
                    return Ok((Err(Stop(why)), outcome(reply)));
                }
                (JsonForm::Object, reply)
            }
            // Nothing listens there: no use trying again and again before saying so.
            Err(CallError::Unreachable(why)) => {
                let why = format!(
                    "cannot reach the endpoint {} ({why}): is the server running, and is this \
                     its address?",
                    self.endpoint.base()
                );
                return Ok((
                    Err(Stop(why)),
                    Outcome::Failed(CallError::Unreachable(String::new())),
                ));
            }
            Err(error) if error.is_transient() => (
                JsonForm::Schema,
                self.with_retries(&prompt, JsonForm::Schema).await,
            ),
            reply => (JsonForm::Schema, reply),
        };
        let took = match &reply {
            Ok(_) => Ok(form),
            Err(error) => Err(fatal(error, self.endpoint).await.unwrap_or_else(|| {
                Stop(format!(
                    "the first request to the endpoint {} failed ({error}); stopped",
                    self.endpoint.base()
                ))
            })),
        };
        Ok((took, outcome(reply)))
    }

    /// One pair, in the form of JSON output the endpoint takes.
    async fn grade(
        &self,
        pair: (PaperKey, PaperKey),
        form: JsonForm,
    ) -> Result<Outcome, StudyError> {
        let prompt = self.prompt_of(pair).await?;
        Ok(outcome(self.with_retries(&prompt, form).await))
    }

    /// The prompt of a pair, from the two papers' texts.
    async fn prompt_of(&self, (target, paper): (PaperKey, PaperKey)) -> Result<String, StudyError> {
        let (target, candidate) = self
            .study
            .read(async |conn| {
                Ok((
                    store::paper_text(&mut *conn, target).await?,
                    store::paper_text(&mut *conn, paper).await?,
                ))
            })
            .await?;
        let (Some(target), Some(candidate)) = (target, candidate) else {
            return Err(StudyError::unreadable("a pooled pair names no paper"));
        };
        Ok(self.prompt.render(PairTexts {
            target_title: &target.title,
            target_abstract: &target.abstract_text,
            candidate_title: &candidate.title,
            candidate_abstract: &candidate.abstract_text,
        }))
    }

    /// A request, tried again after a while while it fails for a moment, [`ATTEMPTS`] times in
    /// all.
    async fn with_retries(&self, prompt: &str, form: JsonForm) -> Result<String, CallError> {
        let mut attempt = 1;
        loop {
            let reply = self.endpoint.complete(prompt, form).await;
            match reply {
                Err(error) if error.is_transient() && attempt < ATTEMPTS => {
                    tokio::time::sleep(backoff(attempt, &error)).await;
                    attempt += 1;
                }
                reply => return reply,
            }
        }
    }
}

fn outcome(reply: Result<String, CallError>) -> Outcome {
    match reply {
        Ok(content) => match parse_stars(&content) {
            Ok(stars) => Outcome::Graded(stars),
            Err(why) => Outcome::NotAGrade(format!("{why}: {content:?}")),
        },
        Err(error) => Outcome::Failed(error),
    }
}

/// The wait before try `attempt + 1`: the endpoint's `Retry-After` if it gave one (at most
/// [`MAX_RETRY_AFTER`]), else [`FIRST_BACKOFF`] doubled with each try (at most
/// [`MAX_BACKOFF`]), give or take a quarter so that requests failed together are not tried
/// again together.
fn backoff(attempt: u32, error: &CallError) -> Duration {
    if let CallError::Status {
        retry_after: Some(after),
        ..
    } = error
    {
        return (*after).min(MAX_RETRY_AFTER);
    }
    let doubled = FIRST_BACKOFF.saturating_mul(1 << (attempt - 1).min(16));
    doubled
        .min(MAX_BACKOFF)
        .mul_f64(rand::rng().random_range(0.75..1.25))
}
