//! `paperjudge status`: the study's counts in one read, and its raters' progress.

use serde::Serialize;

use crate::domain::TargetChoice;
use crate::study::db::{self, Database};
use crate::study::error::StudyError;
use crate::study::raters::{progress, RaterProgress};

/// The counts `paperjudge status` prints. Targets, pairs and progress are those of the
/// targets rated now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StudyStatus {
    pub papers: i64,
    pub models: i64,
    /// The targets to rate now: the chosen ones, or every candidate.
    pub targets: i64,
    pub recommendations: i64,
    pub pooled_pairs: i64,
    pub rated_pairs: i64,
    pub targets_finished: i64,
    pub pool_depth: u32,
    /// Papers with recommendations, chosen or not.
    pub candidate_targets: i64,
    pub target_choice: TargetChoice,
    pub targets_partly_rated: i64,
    /// Targets chosen before any model recommended for them: nothing to rate yet.
    pub targets_without_recommendations: i64,
    /// Rating changes (by a rater, an undo or an import) of a target that had been fully
    /// rated before: its numbers were out, and they tell which models listed the paper.
    pub judgments_with_provenance_known: i64,
    /// Whether pools built from now on leave out the models ruled out (`paperjudge prune`).
    pub pruning: bool,
    /// The models pruned, by name.
    pub pruned_models: Vec<String>,
    /// The raters besides the owner, by name, with their progress (removed ones too).
    pub raters: Vec<RaterProgress>,
}

/// The counts `paperjudge status` prints, from one read of the study.
pub(super) async fn read(db: &Database) -> Result<StudyStatus, StudyError> {
    db.read(async |conn| {
        let (papers, models, recommendations, judgments_with_provenance_known) =
            db::study::counts(&mut *conn).await?;
        let overview = db::targets::overview(&mut *conn).await?;
        let pool_depth = db::study::pool_depth(&mut *conn).await?.get();
        let pruning = db::pruning::is_on(&mut *conn).await?;
        let pruned_models = (db::pruning::pruned(&mut *conn).await?)
            .into_iter()
            .map(|(_, name)| name)
            .collect();
        let raters = progress(conn).await?;
        Ok(StudyStatus {
            papers,
            models,
            targets: overview.active,
            recommendations,
            pooled_pairs: overview.pairs.total,
            rated_pairs: overview.pairs.rated,
            targets_finished: overview.finished,
            pool_depth,
            candidate_targets: overview.candidates,
            target_choice: overview.choice,
            targets_partly_rated: overview.partly_rated,
            targets_without_recommendations: overview.without_pool,
            judgments_with_provenance_known,
            pruning,
            pruned_models,
            raters,
        })
    })
    .await
}
