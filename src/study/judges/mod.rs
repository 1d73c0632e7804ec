//! Machine judges (docs/metrics.md, "Machine judges"): a judge gives a pooled pair one whole
//! star from 1 to 5, the question a rater answers, from the two papers' texts alone. Its grades
//! (the interface calls them judgments) are the raters' partner, never their replacement: kept
//! apart from the ratings (their own tables, their own SQL in [`store`]), they never finish a
//! target, never enter the leaderboard's judgments, never show on a rating page, and per pair
//! reach only the owner, on fully rated targets only.
//!
//! - [`run`]: a run grades the pairs a judge has not graded through a model endpoint
//!   ([`endpoint`], with the [`prompt`]); [`jobs`]: runs from the browser.
//! - Grades imported from a file (`import judgments`) are written by `Study::import`.
//! - [`audit`]: how far to trust a judge, against the raters.

mod audit;
pub mod endpoint;
mod jobs;
pub mod prompt;
pub mod run;
mod store;

use serde::Serialize;

use super::{Refusal, Study, StudyError};
use crate::domain::{JudgeName, PaperId, Stars};
use crate::import::judgments::StagedGrade;
use crate::import::Summary;

pub use audit::{Disagreement, JudgeAudit};
pub use jobs::{JudgeRuns, RunJobReport, RunState, RUNS_KEPT};
pub use run::{Example, RunProgress, RunReport, RunRequest, KEY_VARIABLE};

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
    /// Pooled pairs of the targets being rated that it graded.
    pub pairs_judged: i64,
    /// Targets being rated whose every pooled pair it graded.
    pub targets_judged: i64,
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

impl Study {
    /// Every judge, by name, with its progress over the study's targets.
    pub async fn judges(&self) -> Result<Vec<JudgeSummary>, StudyError> {
        let rows = self
            .read(async |conn| Ok(store::progress(&mut *conn).await?))
            .await?;
        Ok(rows
            .into_iter()
            .map(|row| JudgeSummary {
                name: row.name,
                model: row.model,
                endpoint: row.endpoint,
                prompt_sha256: row.prompt_sha256,
                pairs_judged: row.pairs_judged,
                targets_judged: row.targets_judged,
            })
            .collect())
    }

    /// Removes the judge named `name` with all its grades (nothing else changes); refused for
    /// a name the study has no judge of.
    pub async fn remove_judge(&self, name: &JudgeName) -> Result<(), StudyError> {
        self.write(async |conn| match store::remove(&mut *conn, name).await? {
            true => Ok(()),
            false => Err(Refusal::UnknownJudge(name.clone()).into()),
        })
        .await
    }

    /// Every grade of every judge (of `judge` alone, if named), by judge, target and paper:
    /// `paperjudge export judgments`.
    pub async fn judgment_rows(
        &self,
        judge: Option<&JudgeName>,
    ) -> Result<Vec<JudgmentRow>, StudyError> {
        let rows = self
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

/// Writes the grades of an import of the judge named `judge` (added if the study has none)
/// inside the import's transaction: the summary of the file. A judge that grades through a
/// model takes no imported grades: its grades all come from its runs.
pub(super) fn write_imported(
    conn: &rusqlite::Connection,
    judge: &JudgeName,
    grades: &[StagedGrade],
    read: u64,
) -> Result<Summary, StudyError> {
    let now = crate::study::db::now_rfc3339();
    let id = store::imported_judge_directly(conn, judge, &now)?.map_err(|model| {
        Refusal::JudgeGradesThroughModel {
            judge: judge.clone(),
            model,
        }
    })?;
    let written = store::write_grades_directly(conn, id, grades, &now)?;
    let mut summary = Summary::new("judgments");
    summary.read = read;
    summary.added = written.added;
    summary.updated = written.updated;
    summary.unchanged = written.unchanged;
    Ok(summary)
}
