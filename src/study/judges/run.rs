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

use super::Handle;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::endpoint::{shortened, Endpoint, EndpointUrl};
use super::grader::command::{CommandGrader, CommandLine};
use super::grader::endpoint::EndpointGrader;
use super::grader::{Answered, Gate, Grader, Heard, Identity, Outcome, Pair, Stop};
use super::lease::{Lease, Place, RENEW_EVERY};
use super::prompt::{FilledPrompt, Prompt};
use super::store;
use crate::domain::{JudgeModel, JudgeName, PaperId, PaperKey, Stars};
use crate::study::db;
use crate::study::error::{Refusal, StudyError};
use crate::study::evaluation::EvaluationSet;
use crate::study::Study;
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
    /// What the run is for: a judge, or a trial on the tuning set (the evaluation makes it the
    /// judges' [`Aim`]).
    pub purpose: Purpose,
    /// The tuning set's size asked for (`--tuning-targets`); by default the set as it is, or
    /// [`super::trial::TUNING_TARGETS`].
    pub tuning_targets: Option<usize>,
}

/// What a run is for.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Purpose {
    /// A judge grades every pair it has not graded.
    #[default]
    Judge,
    /// As a judge, and the tuning set first: the run stops there when the upper end of α's 95%
    /// interval on it is below this (`--stop-below-alpha`).
    JudgeUnlessBelow(f64),
    /// A judge made from the trial of this id: its grades kept, the rest graded.
    FromTrial(i64),
    /// A trial: the tuning set's pairs alone, no judge (`--trial`).
    Trial,
}

/// What a run is for, as the judges run it: a [`Purpose`] with what it needs, so that a run
/// that checks α cannot be started without the raters' set it compares its grades with (the
/// evaluation's, as [`crate::study::evaluation::Handle::run_judge`] gives it).
pub(in crate::study) enum Aim {
    Judge,
    JudgeUnlessBelow {
        threshold: f64,
        /// The set of the run's start, when the tuning set is fully rated.
        raters: Arc<EvaluationSet>,
    },
    FromTrial(i64),
    Trial,
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

impl Handle<'_> {
    /// Checks what a run asks (refused: nothing asked), takes the judge's lease (a trial, no
    /// judge, takes none), finds the pairs it grades and, if there are any, starts its grader.
    /// `aim` stands for `request.purpose`.
    pub(super) async fn prepare_run(
        &self,
        request: &RunRequest,
        aim: Aim,
        place: Place,
    ) -> Result<PreparedRun, StudyError> {
        let (default_name, asking) = match &request.grading {
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
        if let Aim::Trial = aim {
            return self.prepare_trial(request, asking).await;
        }
        let name = match &request.name {
            Some(name) => name.clone(),
            None => JudgeName::new(&default_name).map_err(|invalid| {
                Refusal::InvalidJudgeRun(format!("{invalid}: name the judge with --name"))
            })?,
        };
        let lease = self.take_run(&name, place).await?;
        match self.prepare_judge(request, aim, asking, &name).await {
            Ok((grader, judge_id, pairs, checkpoint)) => Ok(PreparedRun {
                name,
                grader,
                keeper: Keeper::Judge { lease, judge_id },
                pairs,
                checkpoint,
            }),
            Err(refused) => {
                lease.end().await;
                Err(refused)
            }
        }
    }

    /// The grader of a judge run, the judge's id if the study has it, the pairs it grades
    /// (the tuning set's first, for `--stop-below-alpha`), and where to check α.
    async fn prepare_judge(
        &self,
        request: &RunRequest,
        aim: Aim,
        asking: Asking,
        name: &JudgeName,
    ) -> Result<
        (
            Grader,
            Option<i64>,
            Vec<(PaperKey, PaperKey)>,
            Option<Checkpoint>,
        ),
        StudyError,
    > {
        let existing = self
            .study
            .db
            .read(async |conn| Ok(store::find(&mut *conn, name).await?))
            .await?;
        let trial = match aim {
            Aim::FromTrial(id) => Some(self.trial_for_judge(id, existing.is_some(), name).await?),
            _ => None,
        };
        // Without a prompt given, a judge goes on with its own (made, perhaps, with an earlier
        // default), one from a trial takes the trial's, and a new one the default.
        let own = (existing.as_ref().and_then(|judge| judge.prompt.clone()))
            .or_else(|| trial.as_ref().and_then(|trial| trial.prompt.clone()));
        let mut grader = self.grader(asking, own.as_deref(), request.timeout).await?;
        if let Some(judge) = &existing {
            grader.identity().check_same(judge)?;
        }
        let mut judge_id = existing.as_ref().map(|judge| judge.id);
        if let Some(trial) = &trial {
            judge_id = Some(self.judge_from_trial(&grader, trial, name).await?);
        }
        let mut pairs = self
            .study
            .db
            .read(async |conn| Ok(store::pairs_to_grade(&mut *conn, judge_id).await?))
            .await?;
        let checkpoint = match aim {
            Aim::JudgeUnlessBelow { threshold, raters } => {
                let (_, tuning) = self.tuning_set(request.tuning_targets).await?;
                let first: Vec<(PaperKey, PaperKey)> = (pairs.iter())
                    .filter(|(target, _)| tuning.contains(target))
                    .copied()
                    .collect();
                pairs.retain(|(target, _)| !tuning.contains(target));
                let left = first.len();
                pairs.splice(0..0, first);
                Some(Checkpoint {
                    threshold,
                    tuning,
                    left,
                    raters,
                })
            }
            _ => None,
        };
        if let Some(limit) = request.limit {
            pairs.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        }
        if let (Grader::Command(command), false) = (&mut grader, pairs.is_empty()) {
            command.start().map_err(Refusal::InvalidJudgeRun)?;
        }
        Ok((grader, judge_id, pairs, checkpoint))
    }

    /// The grader of what a run asks: an endpoint with the prompt given, or else `own` (the
    /// judge's or the trial's), or else the default, filled with the guidelines in force; or a
    /// command, not started yet.
    pub(super) async fn grader(
        &self,
        asking: Asking,
        own: Option<&str>,
        timeout: Duration,
    ) -> Result<Grader, StudyError> {
        Ok(match asking {
            Asking::Endpoint(endpoint, given) => {
                let own = own
                    .map(Prompt::new)
                    .transpose()
                    .map_err(Refusal::InvalidPrompt)?;
                let prompt = given.or(own).unwrap_or_else(Prompt::default_prompt);
                // The guidelines are read once: every pair of the run is asked under them.
                let current = self
                    .study
                    .db
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
            Asking::Command(line) => Grader::Command(Box::new(CommandGrader::new(line, timeout))),
        })
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
            keeper,
            pairs,
            checkpoint,
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
            study: self.study,
            keeper,
            settings: None,
            failures_in_a_row: 0,
            renew_at: tokio::time::Instant::now() + RENEW_EVERY,
            started,
            checkpoint,
            gate: None,
            report: &mut report,
            progress: &progress,
        };
        let ran = match run.checked().await {
            Ok(Ok(())) => run.grade(grader, pairs, concurrency.max(1)).await,
            checked => checked,
        };
        let Run { keeper, .. } = run;
        keeper.end(self.study).await;
        if let Err(Stop(why)) = ran? {
            report.stopped = Some(why);
        }
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }
}

/// What a run asks, before the judge's own prompt is known.
pub(super) enum Asking {
    Endpoint(Endpoint, Option<Prompt>),
    Command(CommandLine),
}

/// A run checked and ready: its judge (or trial) and grader, the pairs it grades, and where
/// its grades go.
pub(super) struct PreparedRun {
    pub name: JudgeName,
    pub grader: Grader,
    pub keeper: Keeper,
    pub pairs: Vec<(PaperKey, PaperKey)>,
    pub checkpoint: Option<Checkpoint>,
}

/// Where a run's grades go.
pub(super) enum Keeper {
    /// A judge's: the run holds its lease; its id once the study has it.
    Judge { lease: Lease, judge_id: Option<i64> },
    /// A trial's.
    Trial { id: i64 },
}

impl Keeper {
    /// Lets go of the judge's lease; forgets a trial that stored nothing.
    pub(super) async fn end(self, study: &Study) {
        match self {
            Keeper::Judge { lease, .. } => lease.end().await,
            Keeper::Trial { id } => {
                let forgotten = study
                    .db
                    .write(async |conn| {
                        if store::trial(&mut *conn, id)
                            .await?
                            .is_some_and(|t| t.graded == 0)
                        {
                            store::remove_trial(&mut *conn, id).await?;
                        }
                        Ok(())
                    })
                    .await;
                if let Err(error) = forgotten {
                    tracing::warn!(%error, "a trial without grades was not removed");
                }
            }
        }
    }
}

/// Where a judge run with `--stop-below-alpha` checks its agreement: once the tuning set's
/// pairs are all handled.
pub(super) struct Checkpoint {
    threshold: f64,
    tuning: Vec<PaperKey>,
    /// The tuning set's pairs still to be handled.
    left: usize,
    /// The raters' judgments α is read against: the set of the run's start, when the tuning
    /// set's targets were fully rated already.
    raters: Arc<EvaluationSet>,
}

/// A run going on: where it stores, and what it has done.
struct Run<'a, P: RunProgress> {
    study: &'a Study,
    keeper: Keeper,
    /// How the grader asks, to be stored with the run's next grades; `None` once they are.
    settings: Option<String>,
    failures_in_a_row: u64,
    /// When the lease is renewed next, unless a write of grades renews it first.
    renew_at: tokio::time::Instant,
    started: Instant,
    checkpoint: Option<Checkpoint>,
    /// Opens the way past the checkpoint, once it is passed.
    gate: Option<tokio::sync::oneshot::Sender<()>>,
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
        // With a checkpoint, the tuning set's pairs alone until it is passed.
        let gate = (self.checkpoint.as_ref()).map(|checkpoint| {
            let (open, opened) = tokio::sync::oneshot::channel();
            self.gate = Some(open);
            Gate {
                after: checkpoint.left,
                open: opened,
            }
        });
        asking.spawn(grader.ask_all(self.study.clone(), keys, concurrency, heard, gate));
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
                    let Keeper::Judge { lease, .. } = &self.keeper else {
                        continue;
                    };
                    let renewed = self.study.db.write(async |conn| lease.renew(conn).await).await;
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
        let mut tuning_handled = 0;
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
            if (self.checkpoint.as_ref()).is_some_and(|at| at.tuning.contains(&pair.keys.0)) {
                tuning_handled += 1;
            }
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
        if let Some(stop) = stop {
            return Ok(Err(stop));
        }
        if let Some(checkpoint) = &mut self.checkpoint {
            checkpoint.left = checkpoint.left.saturating_sub(tuning_handled);
        }
        self.checked().await
    }

    /// With `--stop-below-alpha`, once the tuning set's pairs are all handled: the stop when
    /// the upper end of α's 95% interval on them is below the threshold (checked once).
    async fn checked(&mut self) -> Result<Result<(), Stop>, StudyError> {
        let (Some(checkpoint), Keeper::Judge { judge_id, .. }) = (&self.checkpoint, &self.keeper)
        else {
            return Ok(Ok(()));
        };
        if checkpoint.left > 0 {
            return Ok(Ok(()));
        }
        let alpha = match judge_id {
            Some(id) => {
                self.study
                    .judges()
                    .alpha_on(*id, &checkpoint.tuning, &checkpoint.raters)
                    .await?
            }
            None => None,
        };
        let threshold = checkpoint.threshold;
        let targets = checkpoint.tuning.len();
        self.checkpoint = None;
        let checked = match alpha {
            Some((alpha, [low, high])) if high < threshold => Err(Stop(format!(
                "on the tuning set ({targets} {}), α is {} with its 95% interval [{}, {}], whose \
                 upper end is below --stop-below-alpha {threshold}: the judge agrees too little \
                 with the raters to be worth the rest of the study, so the run stopped there \
                 (its grades stay)",
                plural(targets as u64, "target", "targets"),
                crate::words::terminal::number(Some(alpha)),
                crate::words::terminal::number(Some(low)),
                crate::words::terminal::number(Some(high)),
            ))),
            _ => Ok(()),
        };
        if let Some(open) = self.gate.take().filter(|_| checked.is_ok()) {
            let _ = open.send(());
        }
        Ok(checked)
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
                .db
                .write(async |conn| self.store_in(conn, grades, identity).await)
                .await;
            match stored {
                Ok(Ok(id)) => {
                    if let Keeper::Judge { judge_id, .. } = &mut self.keeper {
                        *judge_id = Some(id);
                    }
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

    /// The work of [`Run::store`], inside its transaction: the judge's (or the trial's) id.
    async fn store_in(
        &self,
        conn: &mut sqlx::SqliteConnection,
        grades: &[Grade],
        identity: &Identity,
    ) -> Result<Result<i64, Stop>, StudyError> {
        let now = crate::study::db::now_rfc3339();
        let (lease, judge_id) = match &self.keeper {
            Keeper::Judge { lease, judge_id } => (lease, judge_id),
            Keeper::Trial { id } => {
                let seconds = self.started.elapsed().as_secs_f64();
                let settings = self.settings.as_deref();
                store::store_trial_grades(&mut *conn, *id, grades, seconds, settings, &now).await?;
                return Ok(Ok(*id));
            }
        };
        if !lease.renew(conn).await? {
            return Ok(Err(self.lease_lost()));
        }
        let name = &lease.judge;
        let id = match *judge_id {
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
        let judge = match &self.keeper {
            Keeper::Judge { lease, .. } => lease.judge.as_str(),
            Keeper::Trial { .. } => "",
        };
        Stop(format!(
            "another run of the judge {judge:?} took it over, as this run had not been heard from \
             for {} s (its machine asleep, or the study held by an import): this run stopped, \
             and stores nothing more",
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
