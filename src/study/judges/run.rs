//! A judge run: every pooled pair of the study's targets that the judge has not graded, sent
//! to a model endpoint, each grade stored as it arrives.
//!
//! The pairs go in the study's order (`/next`'s order of the targets, each target's blind
//! order), `concurrency` requests in flight at most. The requests go on in a task of their own
//! ([`ask_all`]), which reads the pairs' texts a few dozen at a time and holds no connection to
//! the study while it waits on the network; the run stores what they answer, every grade that
//! has arrived in one transaction in its turn on the study's write queue, between the raters'
//! ratings. A run killed loses at most the requests in flight and the grades of one turn, and
//! the next run asks only for the pairs still without a grade. A reply that is no grade is not
//! stored, and counted with an example; a request that fails for a moment (a timeout, no
//! connection, 429, a 5xx) is tried again after a while (the endpoint's `Retry-After`, if it
//! gives one), [`ATTEMPTS`] times in all; one that cannot succeed (the key refused, an unknown
//! model, a redirect, the endpoint gone), the judge removed, a full disk, stop the run with one
//! sentence that says why.
//!
//! A run holds its judge's [`lease`](super::lease) from before its first request to its end,
//! and each of its writes checks that it still does: one judge runs in one place at a time.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future;
use futures_util::stream::{self, StreamExt};
use rand::Rng;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::endpoint::{parse_stars, shortened, CallError, Endpoint, EndpointUrl, JsonForm};
use super::lease::{Lease, Place, RENEW_EVERY};
use super::prompt::{FilledPrompt, PairTexts, Prompt};
use super::store;
use crate::domain::{GuidelinesVersion, JudgeModel, JudgeName, PaperId, PaperKey, Stars};
use crate::study::db;
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

/// Pairs whose texts are read at a time, in one read of the study.
const TEXTS_AT_A_TIME: usize = 64;

/// Grades stored at most in one transaction: those that arrived while the last was written.
const GRADES_AT_A_TIME: usize = 256;

/// How long grades wait for an import that holds the study before the run gives up.
const STORE_WAIT: Duration = Duration::from_secs(300);

/// What a run is asked to do.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// The API base, e.g. `http://127.0.0.1:8081/v1`.
    pub endpoint: EndpointUrl,
    pub model: JudgeModel,
    /// The judge's name; by default the model's.
    pub name: Option<JudgeName>,
    /// The prompt's template; by default the judge's own, or for a new judge
    /// [`Prompt::default_prompt`].
    pub prompt: Option<String>,
    /// Requests in flight at most.
    pub concurrency: usize,
    /// Pairs asked for at most in this run.
    pub limit: Option<u64>,
    /// How long one request may take, from connecting to the reply's last byte.
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
                "; {} {} (not stored)",
                self.failed,
                plural(self.failed, "request failed", "requests failed")
            ));
        }
        line
    }
}

/// A pair of the run: its keys and its papers' ids.
#[derive(Debug, Clone)]
struct Pair {
    keys: (PaperKey, PaperKey),
    target: PaperId,
    paper: PaperId,
}

/// A pair, asked with its prompt.
struct Asked {
    pair: Pair,
    prompt: String,
}

/// A pair, and how it went.
struct Answered {
    pair: Pair,
    outcome: Outcome,
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
    /// nothing asked) for a prompt that cannot be used, a judge of that name that grades with
    /// another model or prompt, or one that runs elsewhere.
    pub async fn run_judge(
        &self,
        request: RunRequest,
        progress: impl RunProgress,
    ) -> Result<RunReport, StudyError> {
        let slot = super::jobs::claim(&self.judge_runs)?;
        let prepared = self.prepare_run(&request, Place::CommandLine).await?;
        self.run_prepared(slot, prepared, request.concurrency, progress)
            .await
    }

    /// Checks what a run asks (refused: nothing asked of the endpoint), takes the judge's lease
    /// and finds the pairs it grades.
    pub(super) async fn prepare_run(
        &self,
        request: &RunRequest,
        place: Place,
    ) -> Result<PreparedRun, StudyError> {
        let given = (request.prompt.as_deref())
            .map(Prompt::new)
            .transpose()
            .map_err(Refusal::InvalidPrompt)?;
        let endpoint = Endpoint::new(
            request.endpoint.clone(),
            request.model.clone(),
            request.key.clone(),
            request.timeout,
        )
        .map_err(Refusal::InvalidJudgeRun)?;
        let name = match &request.name {
            Some(name) => name.clone(),
            None => JudgeName::new(endpoint.model().as_str()).map_err(|invalid| {
                Refusal::InvalidJudgeRun(format!("{invalid}: name the judge with --name"))
            })?,
        };
        let lease = self.take_run(&name, place).await?;
        let found = async {
            let existing = self
                .read(async |conn| Ok(store::find(&mut *conn, &name).await?))
                .await?;
            // Without a prompt given, a judge goes on with its own (made, perhaps, with an
            // earlier default), and a new one takes the default.
            let own = (existing.as_ref())
                .and_then(|judge| judge.prompt.as_deref())
                .map(Prompt::new)
                .transpose()
                .map_err(Refusal::InvalidPrompt)?;
            let prompt = given.or(own).unwrap_or_else(Prompt::default_prompt);
            // The guidelines are read once: every pair of the run is asked under them.
            let current = self
                .read(async |conn| Ok(db::guidelines::current(&mut *conn).await?))
                .await?;
            let prompt = FilledPrompt::new(
                prompt,
                (current.as_ref()).map(|row| (row.version, row.markdown.as_deref())),
            );
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
            Ok::<_, StudyError>((prompt, judge_id, pairs))
        };
        match found.await {
            Ok((prompt, judge_id, pairs)) => Ok(PreparedRun {
                name,
                prompt: Arc::new(prompt),
                endpoint: Arc::new(endpoint),
                judge_id,
                pairs,
                lease,
            }),
            Err(refused) => {
                lease.end().await;
                Err(refused)
            }
        }
    }

    /// Runs what [`Study::prepare_run`] prepared, in the slot of the process's one run, held
    /// until it ends, and lets go of the judge's lease.
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
            lease,
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
        let mut run = Run {
            study: self,
            lease,
            endpoint,
            prompt,
            judge_id,
            settings: None,
            failures_in_a_row: 0,
            renew_at: tokio::time::Instant::now() + RENEW_EVERY,
            report: &mut report,
            progress: &progress,
        };
        let ran = run.grade(pairs, concurrency.max(1)).await;
        let Run { lease, .. } = run;
        lease.end().await;
        if let Err(Stop(why)) = ran? {
            report.stopped = Some(why);
        }
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// The pairs with the keys `keys`, each with its prompt, in one read of the study.
    async fn asked(
        &self,
        prompt: &FilledPrompt,
        keys: &[(PaperKey, PaperKey)],
    ) -> Result<Vec<Asked>, StudyError> {
        let papers: Vec<PaperKey> = (keys.iter())
            .flat_map(|&(target, paper)| [target, paper])
            .collect();
        let texts = self
            .read(async |conn| Ok(store::paper_texts(&mut *conn, &papers).await?))
            .await?;
        let text_of = |key: PaperKey| {
            (texts.iter())
                .find(|text| text.id == key)
                .ok_or_else(|| StudyError::unreadable("a pooled pair names no paper"))
        };
        (keys.iter())
            .map(|&(target_key, paper_key)| {
                let (target, candidate) = (text_of(target_key)?, text_of(paper_key)?);
                Ok(Asked {
                    prompt: prompt.render(PairTexts {
                        target_title: &target.title,
                        target_abstract: &target.abstract_text,
                        candidate_title: &candidate.title,
                        candidate_abstract: &candidate.abstract_text,
                    }),
                    pair: Pair {
                        keys: (target_key, paper_key),
                        target: target.external_id.clone(),
                        paper: candidate.external_id.clone(),
                    },
                })
            })
            .collect()
    }
}

/// A run checked and ready: its judge, prompt and endpoint, the pairs it grades, and the
/// judge's lease.
pub(super) struct PreparedRun {
    pub name: JudgeName,
    prompt: Arc<FilledPrompt>,
    endpoint: Arc<Endpoint>,
    /// The judge's id, when the study has it already.
    judge_id: Option<i64>,
    pub pairs: Vec<(PaperKey, PaperKey)>,
    lease: Lease,
}

/// A run going on: what it asks with, the judge it stores as, and what it has done.
struct Run<'a, P: RunProgress> {
    study: &'a Study,
    lease: Lease,
    endpoint: Arc<Endpoint>,
    prompt: Arc<FilledPrompt>,
    /// The judge's id, once the study has it.
    judge_id: Option<i64>,
    /// The requests' settings, stored with the run's first grades; `None` once they are.
    settings: Option<String>,
    failures_in_a_row: u64,
    /// When the lease is renewed next, unless a write of grades renews it first.
    renew_at: tokio::time::Instant,
    report: &'a mut RunReport,
    progress: &'a P,
}

impl<P: RunProgress> Run<'_, P> {
    /// Grades `keys`, `concurrency` requests in flight at most: the first alone (which finds
    /// the form of JSON output the endpoint takes), then the rest.
    async fn grade(
        &mut self,
        keys: Vec<(PaperKey, PaperKey)>,
        concurrency: usize,
    ) -> Result<Result<(), Stop>, StudyError> {
        let Some((&first, rest)) = keys.split_first() else {
            return Ok(Ok(()));
        };
        let asked = (self.study.asked(&self.prompt, &[first]).await?)
            .pop()
            .expect("one pair asked");
        let endpoint = self.endpoint.clone();
        let (took, outcome) = match self.renewing(probe(&endpoint, &asked.prompt)).await? {
            Ok(probed) => probed,
            Err(stop) => return Ok(Err(stop)),
        };
        let form = match took {
            Ok(form) => form,
            Err(stop) => return Ok(Err(stop)),
        };
        self.report.json_form = Some(form);
        self.settings = Some(super::endpoint::settings_json(form));
        let first = Answered {
            pair: asked.pair,
            outcome,
        };
        if let Err(stop) = self.settle(vec![first]).await? {
            return Ok(Err(stop));
        }
        if rest.is_empty() {
            return Ok(Ok(()));
        }
        let (answers, mut answered) = mpsc::unbounded_channel();
        // Dropped with the run, which cancels the requests in flight.
        let mut asking = JoinSet::new();
        asking.spawn(ask_all(
            self.study.clone(),
            self.endpoint.clone(),
            self.prompt.clone(),
            rest.to_vec(),
            concurrency,
            form,
            answers,
        ));
        loop {
            let next = match self.renewing(answered.recv()).await? {
                Ok(next) => next,
                Err(stop) => return Ok(Err(stop)),
            };
            let Some(next) = next else {
                return Ok(Ok(()));
            };
            let mut batch = vec![next?];
            while batch.len() < GRADES_AT_A_TIME {
                match answered.try_recv() {
                    Ok(next) => batch.push(next?),
                    Err(_) => break,
                }
            }
            if let Err(stop) = self.settle(batch).await? {
                return Ok(Err(stop));
            }
        }
    }

    /// `work`'s outcome, the judge's lease renewed every [`RENEW_EVERY`] meanwhile: or why the
    /// run lost it.
    async fn renewing<T>(
        &mut self,
        work: impl Future<Output = T>,
    ) -> Result<Result<T, Stop>, StudyError> {
        let mut work = std::pin::pin!(work);
        loop {
            tokio::select! {
                done = &mut work => return Ok(Ok(done)),
                () = tokio::time::sleep_until(self.renew_at) => {
                    self.renew_at = tokio::time::Instant::now() + RENEW_EVERY;
                    let renewed = self.study.write(async |conn| self.lease.renew(conn).await).await;
                    match renewed {
                        Ok(true) => {}
                        Ok(false) => return Ok(Err(self.lease_lost())),
                        // An import holds the study, or the disk is full: the grades' next
                        // write says so, and renews the lease if it can.
                        Err(StudyError::Busy(_) | StudyError::DiskFull(_)) => {}
                        Err(error) => return Err(error),
                    }
                }
            }
        }
    }

    /// Takes the outcomes of `batch` into the report: its grades stored in one transaction,
    /// the rest counted; or why the run cannot go on.
    async fn settle(&mut self, batch: Vec<Answered>) -> Result<Result<(), Stop>, StudyError> {
        let mut grades = Vec::new();
        let mut stop = None;
        for Answered { pair, outcome } in batch {
            match outcome {
                Outcome::Graded(stars) => {
                    self.failures_in_a_row = 0;
                    grades.push((pair.keys, stars));
                }
                Outcome::NotAGrade(reply) => {
                    self.failures_in_a_row = 0;
                    self.report.not_grades += 1;
                    if self.report.not_grade_examples.len() < EXAMPLES {
                        self.report.not_grade_examples.push(example(pair, &reply));
                    }
                    self.progress.done(false);
                }
                Outcome::Failed(error) => {
                    if stop.is_none() {
                        let endpoint = self.endpoint.clone();
                        let fatal = fatal(&error, &endpoint);
                        if let Some(fatal) = self.renewing(fatal).await?.unwrap_or_else(Some) {
                            stop = Some(fatal);
                            continue;
                        }
                    }
                    self.failures_in_a_row += 1;
                    self.report.failed += 1;
                    let what = error.to_string();
                    if self.report.failed_examples.len() < EXAMPLES {
                        self.report.failed_examples.push(example(pair, &what));
                    }
                    self.progress.done(false);
                    if stop.is_none() && self.failures_in_a_row >= FAILURES_IN_A_ROW {
                        stop = Some(Stop(format!(
                            "{FAILURES_IN_A_ROW} requests in a row failed (the last: {}); stopped",
                            crate::terminal::escape(&shortened(&what, 200))
                        )));
                    }
                }
            }
        }
        if !grades.is_empty() {
            if let Err(stop) = self.store(&grades).await? {
                return Ok(Err(stop));
            }
            self.report.stored += grades.len() as u64;
            for _ in &grades {
                self.progress.done(true);
            }
        }
        Ok(stop.map_or(Ok(()), Err))
    }

    /// Stores `grades` in one transaction (the judge added with its first, its endpoint and
    /// settings brought up to date with the run's first), if the run still holds the judge's
    /// lease and the judge is still the run's. Grades that arrive while an import holds the
    /// study wait for it.
    async fn store(
        &mut self,
        grades: &[((PaperKey, PaperKey), Stars)],
    ) -> Result<Result<(), Stop>, StudyError> {
        let mut waited = Duration::ZERO;
        loop {
            let stored = self
                .study
                .write(async |conn| self.store_in(conn, grades).await)
                .await;
            match stored {
                Ok(Ok(id)) => {
                    self.judge_id = Some(id);
                    self.settings = None;
                    self.renew_at = tokio::time::Instant::now() + RENEW_EVERY;
                    return Ok(Ok(()));
                }
                Ok(Err(stop)) => return Ok(Err(stop)),
                // An import holds the study: the grades wait for it, as a rating is retried.
                Err(StudyError::Busy(_)) if waited < STORE_WAIT => {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    waited += Duration::from_secs(1);
                }
                Err(StudyError::Busy(_)) => {
                    return Ok(Err(Stop(format!(
                        "an import has held the study for {} minutes, so the grades received \
                         since could not be stored; the run stopped (the grades stored before \
                         stay): run the judge again once the import has ended",
                        STORE_WAIT.as_secs() / 60
                    ))))
                }
                Err(StudyError::DiskFull(_)) => {
                    return Ok(Err(Stop(
                        "the disk holding the study is full, so the grades received since the \
                         last ones stored could not be stored; the run stopped (the grades \
                         stored before stay): free some space, then run the judge again"
                            .to_owned(),
                    )))
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// The work of [`Run::store`], inside its transaction: the judge's id.
    async fn store_in(
        &self,
        conn: &mut sqlx::SqliteConnection,
        grades: &[((PaperKey, PaperKey), Stars)],
    ) -> Result<Result<i64, Stop>, StudyError> {
        if !self.lease.renew(conn).await? {
            return Ok(Err(self.lease_lost()));
        }
        let name = &self.lease.judge;
        let now = crate::study::db::now_rfc3339();
        let id = match self.judge_id {
            Some(id) if store::exists(conn, id).await? => id,
            Some(_) => {
                return Ok(Err(Stop(format!(
                    "the judge {name:?} was removed during this run (`judges remove`): the run \
                     stopped, and stores nothing more"
                ))))
            }
            None => match store::find(&mut *conn, name).await? {
                // Added since the run began, though the lease kept other runs off it.
                Some(found) => match check_same_judge(&found, &self.endpoint, &self.prompt) {
                    Ok(()) => found.id,
                    Err(differs) => return Ok(Err(Stop(format!("{differs}; stopped")))),
                },
                None => {
                    let added = store::EndpointJudge {
                        name,
                        model: self.endpoint.model().as_str(),
                        endpoint: self.endpoint.url().as_str(),
                        prompt: self.prompt.prompt.template(),
                        prompt_sha256: &self.prompt.prompt.sha256(),
                        guidelines: self.prompt.guidelines,
                        settings: self.settings.as_deref().unwrap_or_default(),
                    };
                    store::add_endpoint_judge(&mut *conn, &added, &now).await?
                }
            },
        };
        if let Some(settings) = &self.settings {
            store::update_endpoint(&mut *conn, id, self.endpoint.url().as_str(), settings).await?;
        }
        store::store_grades(&mut *conn, id, grades, self.prompt.guidelines, &now).await?;
        Ok(Ok(id))
    }

    fn lease_lost(&self) -> Stop {
        Stop(format!(
            "another run of the judge {:?} took it over, as this run had not been heard from \
             for {} s (its machine asleep, or the study held by an import): this run stopped, \
             and stores nothing more",
            self.lease.judge,
            super::lease::LAPSES_AFTER.as_secs()
        ))
    }
}

/// Asks the endpoint for every pair of `keys`, `concurrency` requests in flight at most, and
/// sends what each answered to `answers`: the pairs' texts read a few dozen at a time, each read
/// done before anything waits on the network.
async fn ask_all(
    study: Study,
    endpoint: Arc<Endpoint>,
    prompt: Arc<FilledPrompt>,
    keys: Vec<(PaperKey, PaperKey)>,
    concurrency: usize,
    form: JsonForm,
    answers: mpsc::UnboundedSender<Result<Answered, StudyError>>,
) {
    let (ready, to_ask) = mpsc::channel::<Asked>(concurrency);
    let failed = answers.clone();
    let read = async move {
        for chunk in keys.chunks(TEXTS_AT_A_TIME) {
            match study.asked(&prompt, chunk).await {
                Ok(asked) => {
                    for one in asked {
                        if ready.send(one).await.is_err() {
                            return;
                        }
                    }
                }
                Err(error) => {
                    let _ = failed.send(Err(error));
                    return;
                }
            }
        }
    };
    let to_ask = stream::unfold(to_ask, |mut to_ask| async move {
        to_ask.recv().await.map(|asked| (asked, to_ask))
    });
    let ask = (to_ask)
        .map(|asked| {
            let endpoint = &endpoint;
            async move {
                let first = endpoint.complete(&asked.prompt, form).await;
                let reply = tried_again(endpoint, &asked.prompt, form, 1, first).await;
                Answered {
                    pair: asked.pair,
                    outcome: outcome(reply),
                }
            }
        })
        .buffer_unordered(concurrency)
        .for_each(|answered| {
            let _ = answers.send(Ok(answered));
            future::ready(())
        });
    future::join(read, ask).await;
}

/// A pair and what it answered, as an example.
fn example(pair: Pair, what: &str) -> Example {
    Example {
        target: pair.target,
        paper: pair.paper,
        what: crate::terminal::escape(&shortened(what.trim(), 200)).into_owned(),
    }
}

/// A judge's grades come from one model and one prompt, filled with one version of the
/// guidelines: a run under its name must ask the same.
fn check_same_judge(
    judge: &store::JudgeRecord,
    endpoint: &Endpoint,
    filled: &FilledPrompt,
) -> Result<(), Refusal> {
    let Some(model) = &judge.model else {
        return Err(Refusal::JudgeImported(judge.name.clone()));
    };
    let sha = filled.prompt.sha256();
    let differs = if model != endpoint.model().as_str() {
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
    } else if judge.guidelines != filled.guidelines {
        let version = |version: Option<GuidelinesVersion>| {
            version.map_or_else(|| "none".to_owned(), |version| format!("version {version}"))
        };
        Some(format!(
            "the study's guidelines of then ({}), and the guidelines in force are {} (a judge \
             reads them through its prompt's {{guidelines}})",
            version(judge.guidelines),
            version(filled.guidelines)
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
/// address unknown, a redirect, the endpoint gone. `None` for a failure of this pair alone.
async fn fatal(error: &CallError, endpoint: &Endpoint) -> Option<Stop> {
    let url = endpoint.url();
    let why = match error {
        CallError::Status {
            status: status @ (401 | 403),
            message,
            ..
        } => format!(
            "the endpoint {url} refused the key (HTTP {status}: {message}): set \
             PAPERJUDGE_JUDGE_KEY to a key it accepts"
        ),
        CallError::Status { status: 404, .. } => {
            let served = match endpoint.models_served().await {
                Some(models) => format!("; it serves {models}"),
                None => String::new(),
            };
            format!(
                "the endpoint {url} does not know the model {:?} or the address ({error}){served}",
                endpoint.model()
            )
        }
        CallError::Redirected { .. } => format!(
            "the endpoint {url} answered {error}: paperjudge follows no redirect; give the \
             address it leads to as the endpoint, if you trust it"
        ),
        CallError::Unreachable(why) => format!(
            "cannot reach the endpoint {url} ({why}) after {ATTEMPTS} tries: is the server \
             running?"
        ),
        _ => return None,
    };
    Some(Stop(why))
}

/// The first pair: asked in OpenAI's form of JSON output, and in llama-cpp-python's if the
/// endpoint refuses that one (llama-cpp-python answers it with 500), [`ATTEMPTS`] tries in
/// all: the form the endpoint took, or why the run cannot go on, and the pair's outcome.
async fn probe(endpoint: &Endpoint, prompt: &str) -> (Result<JsonForm, Stop>, Outcome) {
    let (form, reply) = match endpoint.complete(prompt, JsonForm::Schema).await {
        Err(
            refused @ CallError::Status {
                status: 400 | 415 | 422 | 500 | 501,
                ..
            },
        ) => {
            let first = endpoint.complete(prompt, JsonForm::Object).await;
            let reply = tried_again(endpoint, prompt, JsonForm::Object, 2, first).await;
            if let Err(error) = &reply {
                let why = format!(
                    "the endpoint {} answered JSON output asked as json_schema with {refused} \
                     and as json_object with {error}; stopped",
                    endpoint.url()
                );
                return (Err(Stop(why)), outcome(reply));
            }
            (JsonForm::Object, reply)
        }
        // Nothing listens there: no use trying again and again before saying so.
        Err(CallError::Unreachable(why)) => {
            let why = format!(
                "cannot reach the endpoint {} ({why}): is the server running, and is this its \
                 address?",
                endpoint.url()
            );
            return (
                Err(Stop(why)),
                Outcome::Failed(CallError::Unreachable(String::new())),
            );
        }
        first => (
            JsonForm::Schema,
            tried_again(endpoint, prompt, JsonForm::Schema, 1, first).await,
        ),
    };
    let took = match &reply {
        Ok(_) => Ok(form),
        Err(error) => Err(fatal(error, endpoint).await.unwrap_or_else(|| {
            Stop(format!(
                "the first request to the endpoint {} failed ({error}); stopped",
                endpoint.url()
            ))
        })),
    };
    (took, outcome(reply))
}

/// `reply`, the answer to try `attempt`, or the answer to the tries after it while it fails
/// for a moment, each after the wait [`backoff`] says: [`ATTEMPTS`] tries in all.
async fn tried_again(
    endpoint: &Endpoint,
    prompt: &str,
    form: JsonForm,
    mut attempt: u32,
    mut reply: Result<String, CallError>,
) -> Result<String, CallError> {
    loop {
        match reply {
            Err(error) if error.is_transient() && attempt < ATTEMPTS => {
                tokio::time::sleep(backoff(attempt, &error)).await;
                attempt += 1;
                reply = endpoint.complete(prompt, form).await;
            }
            reply => return reply,
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
