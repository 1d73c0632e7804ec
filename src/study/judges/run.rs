//! A judge run: every pooled pair of the study's targets that the judge has not graded, asked
//! of its [grader](super::grader) (a model endpoint, or a local command), each grade stored as
//! it arrives.
//!
//! The pairs go in the study's order (`/next`'s order of the targets, each target's blind
//! order), `concurrency` outstanding at most. The grader asks in a task of its own, which reads
//! the pairs' texts a few dozen at a time and holds no connection to the study while it waits;
//! the run stores what it hears, every grade that has arrived in one transaction in its turn
//! on the study's write queue, between the raters' ratings. A run killed loses at most the
//! pairs outstanding and the grades of one turn, and the next run asks only for the pairs still
//! without a grade. A reply that is no grade is not stored, and counted with an example; a pair
//! that failed is counted likewise, and [`FAILURES_IN_A_ROW`] stop the run; the grader's own
//! stops (an endpoint that refuses the key, a command that crashed), the judge removed, a full
//! disk, stop the run with one sentence that says why.
//!
//! A run holds its judge's [`lease`](super::lease) from before its first request to its end,
//! and each of its writes checks that it still does: one judge runs in one place at a time.

use std::future::Future;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::endpoint::{shortened, Endpoint, EndpointUrl};
use super::grader::command::{CommandGrader, CommandLine};
use super::grader::endpoint::EndpointGrader;
use super::grader::{Answered, Grader, Heard, Identity, Outcome, Pair, Stop};
use super::lease::{Lease, Place, RENEW_EVERY};
use super::prompt::{FilledPrompt, Prompt};
use super::store;
use crate::domain::{JudgeModel, JudgeName, PaperId, PaperKey, Stars};
use crate::study::db;
use crate::study::{Refusal, Study, StudyError};
use crate::words::plural;

pub use super::grader::endpoint::ATTEMPTS;

/// The environment variable that may hold the endpoint's bearer key, which both faces read
/// (kept off the command line and out of forms, where others could read it).
pub const KEY_VARIABLE: &str = "PAPERJUDGE_JUDGE_KEY";

/// Failed pairs in a row that stop a run: an endpoint that fails every request is not asked
/// for every pair.
const FAILURES_IN_A_ROW: u64 = 10;

/// Examples kept of replies that were no grade, and of failed requests.
const EXAMPLES: usize = 3;

/// Grades stored at most in one transaction: those that arrived while the last was written.
const GRADES_AT_A_TIME: usize = 256;

/// How long grades wait for an import that holds the study before the run gives up.
const STORE_WAIT: Duration = Duration::from_secs(300);

/// What a run is asked to do.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// How the judge grades.
    pub grading: Grading,
    /// The judge's name; by default the model's, or the command line.
    pub name: Option<JudgeName>,
    /// Pairs outstanding at most: requests in flight, or lines sent to the command and not
    /// answered yet.
    pub concurrency: usize,
    /// Pairs asked for at most in this run.
    pub limit: Option<u64>,
    /// How long one request may take, from connecting to the reply's last byte; how long a
    /// command may answer nothing while lines are outstanding.
    pub timeout: Duration,
}

/// How a judge grades.
#[derive(Debug, Clone)]
pub enum Grading {
    /// Through an OpenAI-compatible chat-completions endpoint.
    Endpoint(EndpointRequest),
    /// A local command, started once (see [`super::grader::command`]).
    Command(CommandLine),
}

/// A judge that grades through an endpoint.
#[derive(Debug, Clone)]
pub struct EndpointRequest {
    /// The API base, e.g. `http://127.0.0.1:8081/v1`.
    pub endpoint: EndpointUrl,
    pub model: JudgeModel,
    /// The prompt's template; by default the judge's own, or for a new judge
    /// [`Prompt::default_prompt`].
    pub prompt: Option<String>,
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

impl Study {
    /// Checks what a run asks (refused: nothing asked), takes the judge's lease, finds the
    /// pairs it grades and, if there are any, starts its grader.
    pub(super) async fn prepare_run(
        &self,
        request: &RunRequest,
        place: Place,
    ) -> Result<PreparedRun, StudyError> {
        let (name, grading) = match &request.grading {
            Grading::Endpoint(asked) => {
                let given = (asked.prompt.as_deref())
                    .map(Prompt::new)
                    .transpose()
                    .map_err(Refusal::InvalidPrompt)?;
                let endpoint = Endpoint::new(
                    asked.endpoint.clone(),
                    asked.model.clone(),
                    asked.key.clone(),
                    request.timeout,
                )
                .map_err(Refusal::InvalidJudgeRun)?;
                (
                    endpoint.model().as_str().to_owned(),
                    Asking::Endpoint(endpoint, given),
                )
            }
            Grading::Command(line) => (line.as_str().to_owned(), Asking::Command(line.clone())),
        };
        let name = match &request.name {
            Some(name) => name.clone(),
            None => JudgeName::new(&name).map_err(|invalid| {
                Refusal::InvalidJudgeRun(format!("{invalid}: name the judge with --name"))
            })?,
        };
        let lease = self.take_run(&name, place).await?;
        let found = async {
            let existing = self
                .read(async |conn| Ok(store::find(&mut *conn, &name).await?))
                .await?;
            let mut grader = match grading {
                Asking::Endpoint(endpoint, given) => {
                    // Without a prompt given, a judge goes on with its own (made, perhaps,
                    // with an earlier default), and a new one takes the default.
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
                    Grader::Endpoint(EndpointGrader {
                        endpoint: endpoint.into(),
                        prompt: prompt.into(),
                    })
                }
                Asking::Command(line) => {
                    Grader::Command(Box::new(CommandGrader::new(line, request.timeout)))
                }
            };
            if let Some(judge) = &existing {
                grader.identity().check_same(judge)?;
            }
            let judge_id = existing.as_ref().map(|judge| judge.id);
            let mut pairs = self
                .read(async |conn| Ok(store::pairs_to_grade(&mut *conn, judge_id).await?))
                .await?;
            if let Some(limit) = request.limit {
                pairs.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
            }
            if let (Grader::Command(command), false) = (&mut grader, pairs.is_empty()) {
                command.start().map_err(Refusal::InvalidJudgeRun)?;
            }
            Ok::<_, StudyError>((grader, judge_id, pairs))
        };
        match found.await {
            Ok((grader, judge_id, pairs)) => Ok(PreparedRun {
                name,
                grader,
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

    /// Runs what [`Study::prepare_run`] prepared, and lets go of the judge's lease.
    pub(super) async fn run_prepared(
        &self,
        prepared: PreparedRun,
        concurrency: usize,
        progress: impl RunProgress,
    ) -> Result<RunReport, StudyError> {
        let started = Instant::now();
        let PreparedRun {
            name,
            grader,
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
            seconds: 0.0,
        };
        progress.started(&name, report.pairs);
        let mut run = Run {
            study: self,
            lease,
            judge_id,
            settings: None,
            failures_in_a_row: 0,
            renew_at: tokio::time::Instant::now() + RENEW_EVERY,
            report: &mut report,
            progress: &progress,
        };
        let ran = run.grade(grader, pairs, concurrency.max(1)).await;
        let Run { lease, .. } = run;
        lease.end().await;
        if let Err(Stop(why)) = ran? {
            report.stopped = Some(why);
        }
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }
}

/// What a run asks, before the judge's own prompt is known.
enum Asking {
    Endpoint(Endpoint, Option<Prompt>),
    Command(CommandLine),
}

/// A run checked and ready: its judge and grader, the pairs it grades, and the judge's lease.
pub(super) struct PreparedRun {
    pub name: JudgeName,
    grader: Grader,
    /// The judge's id, when the study has it already.
    judge_id: Option<i64>,
    pub pairs: Vec<(PaperKey, PaperKey)>,
    lease: Lease,
}

/// A run going on: the judge it stores as, and what it has done.
struct Run<'a, P: RunProgress> {
    study: &'a Study,
    lease: Lease,
    /// The judge's id, once the study has it.
    judge_id: Option<i64>,
    /// How the grader asks, to be stored with the run's next grades; `None` once they are.
    settings: Option<String>,
    failures_in_a_row: u64,
    /// When the lease is renewed next, unless a write of grades renews it first.
    renew_at: tokio::time::Instant,
    report: &'a mut RunReport,
    progress: &'a P,
}

/// A grade as a run stores it: the pair's keys, the stars and the explanation if any.
pub(super) type Grade = ((PaperKey, PaperKey), Stars, Option<String>);

impl<P: RunProgress> Run<'_, P> {
    /// Grades `keys` through `grader`, `concurrency` outstanding at most.
    async fn grade(
        &mut self,
        grader: Grader,
        keys: Vec<(PaperKey, PaperKey)>,
        concurrency: usize,
    ) -> Result<Result<(), Stop>, StudyError> {
        if keys.is_empty() {
            return Ok(Ok(()));
        }
        let (heard, mut hearing) = mpsc::unbounded_channel();
        // Dropped with the run, which cancels what is outstanding (and kills a command).
        let mut asking = JoinSet::new();
        let identity = grader.identity();
        asking.spawn(grader.ask_all(self.study.clone(), keys, concurrency, heard));
        loop {
            let next = match self.renewing(hearing.recv()).await? {
                Ok(next) => next,
                Err(stop) => return Ok(Err(stop)),
            };
            let Some(next) = next else {
                return Ok(Ok(()));
            };
            let mut batch = vec![next];
            while batch.len() < GRADES_AT_A_TIME {
                match hearing.try_recv() {
                    Ok(next) => batch.push(next),
                    Err(_) => break,
                }
            }
            if let Err(stop) = self.settle(batch, &identity).await? {
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

    /// Takes what was heard in `batch` into the report: its grades stored in one transaction,
    /// the rest counted; or why the run cannot go on.
    async fn settle(
        &mut self,
        batch: Vec<Heard>,
        identity: &Identity,
    ) -> Result<Result<(), Stop>, StudyError> {
        let mut grades: Vec<Grade> = Vec::new();
        let mut stop = None;
        for heard in batch {
            let Answered { pair, outcome } = match heard {
                Heard::Answered(answered) => answered,
                Heard::Settings(settings) => {
                    self.settings = Some(settings);
                    continue;
                }
                Heard::Stopped(why) => {
                    stop.get_or_insert(why);
                    continue;
                }
                Heard::Failed(error) => return Err(error),
            };
            match outcome {
                Outcome::Graded { stars, explanation } => {
                    self.failures_in_a_row = 0;
                    grades.push((pair.keys, stars, explanation));
                }
                Outcome::NotAGrade(reply) => {
                    self.failures_in_a_row = 0;
                    self.report.not_grades += 1;
                    if self.report.not_grade_examples.len() < EXAMPLES {
                        self.report.not_grade_examples.push(example(pair, &reply));
                    }
                    self.progress.done(false);
                }
                Outcome::Failed(why) => {
                    self.failures_in_a_row += 1;
                    self.report.failed += 1;
                    if self.report.failed_examples.len() < EXAMPLES {
                        self.report.failed_examples.push(example(pair, &why));
                    }
                    self.progress.done(false);
                    if stop.is_none() && self.failures_in_a_row >= FAILURES_IN_A_ROW {
                        stop = Some(Stop(format!(
                            "{FAILURES_IN_A_ROW} requests in a row failed (the last: {}); stopped",
                            crate::terminal::escape(&shortened(&why, 200))
                        )));
                    }
                }
            }
        }
        if !grades.is_empty() {
            if let Err(stop) = self.store(&grades, identity).await? {
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
        grades: &[Grade],
        identity: &Identity,
    ) -> Result<Result<(), Stop>, StudyError> {
        let mut waited = Duration::ZERO;
        loop {
            let stored = self
                .study
                .write(async |conn| self.store_in(conn, grades, identity).await)
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
        grades: &[Grade],
        identity: &Identity,
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
                Some(found) => match identity.check_same(&found) {
                    Ok(()) => found.id,
                    Err(differs) => return Ok(Err(Stop(format!("{differs}; stopped")))),
                },
                None => {
                    let source = identity.source(self.settings.as_deref());
                    store::add_judge(&mut *conn, name, &source, &now).await?
                }
            },
        };
        if let (Some(settings), Identity::Endpoint { endpoint, .. }) = (&self.settings, identity) {
            store::update_endpoint(&mut *conn, id, endpoint, settings).await?;
        }
        store::store_grades(&mut *conn, id, grades, identity.guidelines(), &now).await?;
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

/// A pair and what it answered, as an example.
fn example(pair: Pair, what: &str) -> Example {
    Example {
        target: pair.target,
        paper: pair.paper,
        what: crate::terminal::escape(&shortened(what.trim(), 200)).into_owned(),
    }
}
