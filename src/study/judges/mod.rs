//! Machine judges (docs/metrics.md, "Machine judges"): a judge gives a pooled pair one whole
//! star from 1 to 5, the question a rater answers, from the two papers' texts alone. Its grades
//! (the interface calls them judgments) are the raters' partner, never their replacement: kept
//! apart from the ratings (their own tables, their own SQL in [`store`]), they never finish a
//! target, never enter the leaderboard's judgments, never show on a rating page, and per pair
//! reach only the owner, on fully rated targets only.
//!
//! - [`run`]: a run grades the pairs a judge has not graded through its [`grader`] (a model
//!   endpoint, [`endpoint`], with the [`prompt`]; or a local command), holding the judge's
//!   [`lease`] (one place at a time); [`jobs`]: the runs of this process, one at a time, those
//!   from the browser followed as jobs.
//! - Grades imported from a file (`import judgments`) are written by `Study::import`.
//! - [`audit`]: how far to trust a judge, against the raters; [`trial`]: a judge tried on the
//!   tuning set before it grades the study.

mod audit;
pub mod endpoint;
pub mod grader;
mod jobs;
mod lease;
pub mod prompt;
pub mod run;
pub(in crate::study) mod store;
mod trial;

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use serde::Serialize;

use super::error::{Refusal, StudyError};
use super::evaluation::EvaluationSet;
use super::Study;
use crate::domain::{Grade, JudgeName, PaperId, PaperKey, Stars};
use crate::leaderboard::{Collection, JudgedTargets, TargetInput};
use crate::study::db;
use crate::study::import::judgments::StagedGrade;
use crate::study::import::Summary;
use store::JudgeRecord;

pub use audit::{Disagreement, JudgeAudit};
pub use grader::command::CommandLine;
pub use jobs::{JudgeRuns, RunJobReport, RunState, RUNS_KEPT};
pub(in crate::study) use run::Aim;
pub use run::{
    EndpointRequest, Example, Grading, Purpose, RunProgress, RunReport, RunRequest, ATTEMPTS,
    KEY_VARIABLE,
};
pub use trial::{TrialFindings, TrialReport, TrialSummary, TUNING_TARGETS};

/// A judge and how much of the study it graded, as `paperjudge judges list` and `/judges`
/// show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JudgeSummary {
    pub name: JudgeName,
    /// The model it grades with; `None` for a judge whose grades were imported.
    pub model: Option<String>,
    /// The endpoint it was last run against.
    pub endpoint: Option<String>,
    pub prompt_sha256: Option<String>,
    /// The command line of a judge that is a local command.
    pub command: Option<String>,
    /// Pooled pairs of the targets being rated that it graded.
    pub pairs_judged: i64,
    /// Targets being rated whose every pooled pair it graded.
    pub targets_judged: i64,
}

/// What the judges' progress was last read at: the study's revision counter (which every
/// change of a pool or of the targets being rated moves: imports, choices, pruning, the pool
/// depth; a rating changes neither, so raters rating do not make the owner's next view count
/// the grades again) and each judge's id and revision (which every grade stored moves).
#[derive(Debug, Clone, PartialEq, Eq)]
struct ProgressKey {
    study: i64,
    judges: Vec<(i64, i64)>,
}

/// The judges' progress as last read, with what it was read at.
#[derive(Debug, Default)]
pub(in crate::study) struct KeptProgress(Mutex<Option<(ProgressKey, Vec<store::Graded>)>>);

impl KeptProgress {
    fn get(&self, key: &ProgressKey) -> Option<Vec<store::Graded>> {
        let kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        (kept.as_ref())
            .filter(|(kept_key, _)| kept_key == key)
            .map(|(_, graded)| graded.clone())
    }

    fn keep(&self, key: ProgressKey, graded: Vec<store::Graded>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some((key, graded));
    }
}

/// The judges' commands and queries (`study.judges()`): the judges and their grades, their
/// runs and trials, their audits against the raters.
#[derive(Debug, Clone, Copy)]
pub struct Handle<'s> {
    /// The study: a run in the background takes a clone of it.
    study: &'s Study,
}

impl<'s> Handle<'s> {
    pub(in crate::study) fn new(study: &'s Study) -> Handle<'s> {
        Handle { study }
    }
}

/// A judge's grade as `paperjudge export judgments` writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgmentRow {
    pub target: PaperId,
    pub paper: PaperId,
    pub judge: JudgeName,
    pub stars: Stars,
    pub explanation: Option<String>,
    pub judged_at: String,
    /// The pair's target is fully rated: its numbers are out, and the grade can anchor no
    /// rating of it.
    pub target_finished: bool,
}

impl Handle<'_> {
    /// The names of the study's judges, in order: a lookup of one small table, for the pages
    /// that offer a choice of judge.
    pub async fn names(&self) -> Result<Vec<JudgeName>, StudyError> {
        let judges = self
            .study
            .db
            .read(async |conn| Ok(store::all(&mut *conn).await?))
            .await?;
        Ok(judges.into_iter().map(|judge| judge.name).collect())
    }

    /// Every judge, by name, with its progress over the study's targets. The progress is an
    /// aggregate over every grade (tens of milliseconds over 100,000), and the owner's
    /// dashboard shows it on every visit: it is kept (see [`KeptProgress`]) and read again
    /// only once a grade, a pool or the targets being rated may have changed it.
    pub async fn list(&self) -> Result<Vec<JudgeSummary>, StudyError> {
        let kept = &self.study.judge_progress;
        self.study
            .db
            .read(async |conn| {
                let judges = store::all(&mut *conn).await?;
                let key = ProgressKey {
                    study: db::evaluation::revision(&mut *conn).await?.study,
                    judges: (judges.iter())
                        .map(|judge| (judge.id, judge.revision))
                        .collect(),
                };
                let graded = match kept.get(&key) {
                    Some(graded) => graded,
                    None => {
                        let graded = store::graded(&mut *conn).await?;
                        kept.keep(key, graded.clone());
                        graded
                    }
                };
                Ok((judges.into_iter())
                    .map(|judge| {
                        let of_judge = graded.iter().find(|graded| graded.judge_id == judge.id);
                        JudgeSummary {
                            name: judge.name,
                            model: judge.model,
                            endpoint: judge.endpoint,
                            prompt_sha256: judge.prompt_sha256,
                            command: judge.command,
                            pairs_judged: of_judge.map_or(0, |graded| graded.pairs),
                            targets_judged: of_judge.map_or(0, |graded| graded.targets),
                        }
                    })
                    .collect())
            })
            .await
    }

    /// Removes the judge named `name` with all its grades (nothing else changes); refused for
    /// a name the study has no judge of.
    pub async fn remove(&self, name: &JudgeName) -> Result<(), StudyError> {
        self.study
            .db
            .write(async |conn| match store::remove(&mut *conn, name).await? {
                true => Ok(()),
                false => Err(Refusal::UnknownJudge(name.clone()).into()),
            })
            .await
    }

    /// Every grade of every judge (of `judge` alone, if named), by judge, target and paper:
    /// `paperjudge export judgments`.
    pub async fn grades(&self, judge: Option<&JudgeName>) -> Result<Vec<JudgmentRow>, StudyError> {
        let rows = self
            .study
            .db
            .read(async |conn| {
                if let Some(name) = judge {
                    if store::find(&mut *conn, name).await?.is_none() {
                        return Err(Refusal::UnknownJudge(name.clone()).into());
                    }
                }
                Ok(store::grade_rows(&mut *conn, judge).await?)
            })
            .await?;
        rows.into_iter()
            .map(|row| {
                let stars = Stars::new(row.stars)
                    .ok_or_else(|| StudyError::unreadable("a judge's grade out of 1..5"))?;
                Ok(JudgmentRow {
                    target: row.target,
                    paper: row.paper,
                    judge: row.judge,
                    stars,
                    explanation: row.explanation,
                    judged_at: row.judged_at,
                    target_finished: row.target_finished,
                })
            })
            .collect()
    }
}

/// Writes the grades of an import of the judge named `judge` (added if the study has none and
/// the file holds a grade) inside the import's transaction: the summary of the file. A judge
/// that grades through a model takes no imported grades: its grades all come from its runs;
/// nor does a judge being run.
pub(super) fn write_imported(
    conn: &rusqlite::Connection,
    judge: &JudgeName,
    grades: &[StagedGrade],
    read: u64,
) -> Result<Summary, StudyError> {
    let now = crate::study::db::now_rfc3339();
    if let Some(run) = store::run_of_directly(conn, judge)? {
        run.refuse_if_held(lease::unix_now())?;
    }
    let mut summary = Summary::new("judgments");
    summary.read = read;
    let id = match store::judge_directly(conn, judge)? {
        Some((_, Some(grades_with))) => {
            return Err(Refusal::JudgeGradesThroughModel {
                judge: judge.clone(),
                grades_with,
            }
            .into())
        }
        Some((id, None)) => id,
        None if grades.is_empty() => return Ok(summary),
        None => store::add_imported_judge_directly(conn, judge, &now)?,
    };
    let written = store::write_grades_directly(conn, id, grades, &now)?;
    summary.added = written.added;
    summary.updated = written.updated;
    summary.unchanged = written.unchanged;
    Ok(summary)
}

/// A judge as what is computed with it depends on it: a judge removed and added again is
/// another one, and its revision moves with every change of its grades.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeVersion {
    id: i64,
    pub name: JudgeName,
    revision: i64,
}

impl JudgeVersion {
    fn of(record: &JudgeRecord) -> Self {
        JudgeVersion {
            id: record.id,
            name: record.name.clone(),
            revision: record.revision,
        }
    }
}

impl Handle<'_> {
    async fn named(&self, name: &JudgeName) -> Result<JudgeRecord, StudyError> {
        self.study
            .db
            .read(async |conn| {
                store::find(&mut *conn, name)
                    .await?
                    .ok_or_else(|| Refusal::UnknownJudge(name.clone()).into())
            })
            .await
    }

    /// The judge named `name` as it is now; refused for a name the study has no judge of.
    pub(in crate::study) async fn version(
        &self,
        name: &JudgeName,
    ) -> Result<JudgeVersion, StudyError> {
        Ok(JudgeVersion::of(&self.named(name).await?))
    }

    /// The judged targets of `judge` with its grades and the lists of `models` (the
    /// evaluation set's order), cut at `depth`.
    pub(in crate::study) async fn judged(
        &self,
        judge: &JudgeVersion,
        models: &[String],
        set: &EvaluationSet,
        depth: usize,
    ) -> Result<JudgedTargets<PaperKey>, StudyError> {
        let judged = store::load_judged(self.study.path(), judge.id, depth).await?;
        let name = judge.name.clone();
        let position_of_model: HashMap<_, usize> = (judged.models.iter())
            .filter_map(|(id, name)| Some((*id, models.iter().position(|known| known == name)?)))
            .collect();
        let position_of_target: HashMap<PaperKey, usize> = (judged.targets.iter().enumerate())
            .map(|(position, (key, _))| (*key, position))
            .collect();
        let mut targets: Vec<TargetInput<PaperKey>> = (judged.targets.iter())
            .map(|(_, external_id)| TargetInput {
                target: external_id.clone(),
                fully_rated: true,
                judgments: HashMap::new(),
                lists: vec![None; models.len()],
                left_out: Vec::new(),
            })
            .collect();
        for (target, paper, stars) in judged.grades {
            if let Some(&at) = position_of_target.get(&target) {
                targets[at].judgments.insert(paper, Grade::from(stars));
            }
        }
        for (target, model, papers) in judged.lists {
            if let (Some(&at), Some(&model)) = (
                position_of_target.get(&target),
                position_of_model.get(&model),
            ) {
                targets[at].lists[model] = Some(papers);
            }
        }
        for (target, model) in judged.left_out {
            if let (Some(&at), Some(&model)) = (
                position_of_target.get(&target),
                position_of_model.get(&model),
            ) {
                targets[at].left_out.push(model);
            }
        }
        let in_set_position: HashMap<PaperKey, usize> = (set.targets.iter().enumerate())
            .map(|(position, (key, _))| (*key, position))
            .collect();
        let in_raters = (judged.targets.iter())
            .map(|(key, _)| in_set_position.get(key).copied())
            .collect();
        let tuning = (judged.tuning.iter())
            .filter_map(|key| position_of_target.get(key).copied())
            .collect();
        Ok(JudgedTargets {
            name,
            collection: Collection::of(models.to_vec(), targets, set.collection.pool_depth),
            in_raters,
            tuning,
        })
    }
}
