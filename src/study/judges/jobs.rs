//! Judge runs of this process: one at a time, and those started from the browser followed as
//! jobs (`/judges/runs/{job}`), the last [`RUNS_KEPT`] kept in memory until the process ends.

use super::Handle;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::lease::Place;
use super::run::{Aim, RunProgress, RunReport, RunRequest};
use crate::domain::JudgeName;
use crate::study::error::{Refusal, StudyError};
use crate::study::import::JobId;

/// Runs remembered, the running one among them.
pub const RUNS_KEPT: usize = 16;

/// The judge runs of a study in this process, shared by its clones.
#[derive(Debug, Default)]
pub struct JudgeRuns(Mutex<Runs>);

#[derive(Debug, Default)]
struct Runs {
    /// Whether a run holds the slot.
    running: bool,
    /// Runs started from the browser, the newest last.
    kept: VecDeque<Arc<RunJob>>,
    /// The run from the browser going on now.
    running_job: Option<JobId>,
}

impl JudgeRuns {
    fn lock(&self) -> MutexGuard<'_, Runs> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The one run of the process, held until dropped.
struct RunSlot(Arc<JudgeRuns>);

impl Drop for RunSlot {
    fn drop(&mut self) {
        self.0.lock().running = false;
    }
}

/// Claims the slot of the one run, or refuses while another run holds it.
fn claim(runs: &Arc<JudgeRuns>) -> Result<RunSlot, Refusal> {
    let mut state = runs.lock();
    if state.running {
        return Err(Refusal::JudgeRunning);
    }
    state.running = true;
    Ok(RunSlot(runs.clone()))
}

/// Where a run from the browser is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    Running,
    Done,
    Failed,
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Done => "done",
            RunState::Failed => "failed",
        }
    }
}

/// A run started from the browser, as its page follows it.
#[derive(Debug)]
pub struct RunJob {
    pub id: JobId,
    pub judge: Mutex<Option<JudgeName>>,
    pairs_total: AtomicU64,
    pairs_done: AtomicU64,
    not_stored: AtomicU64,
    ended: Mutex<Option<(RunState, String)>>,
}

/// A run's page at a moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunJobReport {
    pub id: JobId,
    pub judge: Option<JudgeName>,
    pub state: RunState,
    pub pairs_done: u64,
    pub pairs_total: u64,
    /// Pairs done without a stored grade (no grade in the reply, or a failed request).
    pub failed: u64,
    pub summary: String,
}

impl RunJob {
    fn new() -> RunJob {
        RunJob {
            id: JobId::random(),
            judge: Mutex::new(None),
            pairs_total: AtomicU64::new(0),
            pairs_done: AtomicU64::new(0),
            not_stored: AtomicU64::new(0),
            ended: Mutex::new(None),
        }
    }

    pub fn report(&self) -> RunJobReport {
        let ended = self
            .ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let (state, summary) = ended.unwrap_or((RunState::Running, String::new()));
        RunJobReport {
            id: self.id.clone(),
            judge: self
                .judge
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
            state,
            pairs_done: self.pairs_done.load(Ordering::Relaxed),
            pairs_total: self.pairs_total.load(Ordering::Relaxed),
            failed: self.not_stored.load(Ordering::Relaxed),
            summary,
        }
    }

    fn end(&self, state: RunState, summary: String) {
        *self.ended.lock().unwrap_or_else(PoisonError::into_inner) = Some((state, summary));
    }
}

/// A run's job hears how it goes.
impl RunProgress for Arc<RunJob> {
    fn started(&self, judge: &JudgeName, pairs: u64) {
        *self.judge.lock().unwrap_or_else(PoisonError::into_inner) = Some(judge.clone());
        self.pairs_total.store(pairs, Ordering::Relaxed);
    }

    fn done(&self, stored: bool) {
        self.pairs_done.fetch_add(1, Ordering::Relaxed);
        if !stored {
            self.not_stored.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Handle<'_> {
    /// Grades, as the judge `request` names, every pooled pair of the study's targets that it
    /// has not graded, through its grader; `progress` hears how it goes. Refused (and nothing
    /// asked) while another run of this process goes on, for a prompt or a command that cannot
    /// be used, a judge of that name that grades otherwise, or one that runs elsewhere.
    /// `aim`: what `request.purpose` asks, with the raters' set a run that checks α needs.
    pub(in crate::study) async fn run(
        &self,
        request: RunRequest,
        aim: Aim,
        progress: impl RunProgress,
    ) -> Result<RunReport, StudyError> {
        let _slot = claim(&self.study.judge_runs)?;
        let prepared = (self.prepare_run(&request, aim, Place::CommandLine)).await?;
        self.run_prepared(prepared, request.concurrency, progress)
            .await
    }

    /// Starts a judge run in the background (the browser's `/judges`), refused while another
    /// runs in this process: the job that follows it. `aim` as for [`Handle::run`].
    pub(in crate::study) async fn start_run(
        &self,
        request: RunRequest,
        aim: Aim,
    ) -> Result<JobId, StudyError> {
        let slot = claim(&self.study.judge_runs)?;
        // Refused before it starts, as the command line refuses it: the form is answered.
        let prepared = self.prepare_run(&request, aim, Place::Browser).await?;
        let job = Arc::new(RunJob::new());
        job.started(&prepared.name, prepared.pairs.len() as u64);
        {
            let mut runs = self.study.judge_runs.lock();
            runs.running_job = Some(job.id.clone());
            runs.kept.push_back(job.clone());
            while runs.kept.len() > RUNS_KEPT {
                runs.kept.pop_front();
            }
        }
        let (study, followed) = (self.study.clone(), job.clone());
        tokio::spawn(async move {
            let ended =
                (study
                    .judges()
                    .run_prepared(prepared, request.concurrency, followed.clone()))
                .await;
            drop(slot);
            let (state, summary) = match ended {
                Ok(report) => ended_report(&report),
                Err(error) => {
                    tracing::warn!(%error, "a judge run from the browser failed");
                    (RunState::Failed, failure_words(&error))
                }
            };
            followed.end(state, summary);
            let mut runs = study.judge_runs.lock();
            if runs.running_job.as_ref() == Some(&followed.id) {
                runs.running_job = None;
            }
        });
        Ok(job.id.clone())
    }

    /// The run from the browser going on now, if one is.
    pub fn running(&self) -> Option<JobId> {
        self.study.judge_runs.lock().running_job.clone()
    }

    /// The run from the browser `id`, if this process remembers it.
    pub fn job(&self, id: &JobId) -> Option<RunJobReport> {
        let runs = self.study.judge_runs.lock();
        let job = runs.kept.iter().find(|job| &job.id == id)?;
        Some(job.report())
    }
}

/// How a run that ended says so on its page.
fn ended_report(report: &RunReport) -> (RunState, String) {
    let mut summary = report.summary();
    match &report.stopped {
        Some(why) => {
            summary.push_str(". Stopped: ");
            summary.push_str(why);
            (RunState::Failed, summary)
        }
        None => (RunState::Done, summary),
    }
}

/// A run that could not go on for a reason the run itself did not name (a stop names the
/// judge removed, a full disk, an import that held the study, another run that took the judge
/// over), in words for its page: a refusal says why; a failure of the study file is logged.
fn failure_words(error: &StudyError) -> String {
    match error {
        StudyError::Refused(refusal) => refusal.to_string(),
        StudyError::DiskFull(_) => {
            "the disk holding the study is full: the grades stored before stay; free some space \
             and run the judge again"
                .to_owned()
        }
        StudyError::Busy(_) => {
            "an import held the study too long: the grades stored before stay; run the judge \
             again"
                .to_owned()
        }
        StudyError::Unreadable(_) => {
            "the study file holds rows that are not what they should be (the server's log says \
             which); the grades stored before stay"
                .to_owned()
        }
        StudyError::Internal(_) => {
            "the study file could not be read or written (the server's log says why); the grades \
             stored before stay"
                .to_owned()
        }
    }
}
