//! The per-target view of the leaderboard: each model's top k for one target, with the stars
//! of each paper and the model's scores there.
//!
//! Seeing which model ranked which paper, and how a paper was rated, unblinds the target. Once
//! every pooled paper of it is rated that can no longer bias a rating of it, so the view shows
//! the lists of a fully rated target only; every later change of a rating of that target is
//! marked in the history as made with its provenance known (`db::rating::set`). The view
//! writes nothing.

use std::collections::HashMap;

use super::Handle;
use crate::domain::PaperKey;
use crate::domain::Progress;
use crate::leaderboard::{self, LeaderboardOptions, Partial};
use crate::metrics::{Judgments, Settings, TargetScores};
use crate::study::db;
use crate::study::error::{Refusal, StudyError};
use crate::study::papers::{ListedPaper, Paper};
use crate::study::rating::RaterNote;

/// One target under the leaderboard's options.
#[derive(Debug, Clone)]
pub struct TargetView {
    pub target: Paper,
    pub progress: Progress,
    pub settings: Settings,
    /// In a study with raters, how one judgment per pair came from their stars.
    pub judgments: Option<Judgments>,
    /// Every model on the target, in the leaderboard's order; `None` while the target is not
    /// fully rated.
    pub models: Option<Vec<ModelOnTarget>>,
    /// The raters' notes on its pairs, by paper and rater; empty while the target is not fully
    /// rated (a note would tell a rater still rating it another's judgment).
    pub notes: Vec<RaterNote>,
}

/// One model on the target: its rank on the leaderboard, its scores on the target, its top k.
#[derive(Debug, Clone)]
pub struct ModelOnTarget {
    pub model: String,
    pub rank: usize,
    pub scores: TargetScores,
    pub papers: Vec<ListedPaper>,
}

impl Handle<'_> {
    /// The view of `target` under `options` (`partial` does not apply: the view is of a fully
    /// rated target); refused when the paper is no target being rated.
    pub async fn target_view(
        &self,
        target: PaperKey,
        options: &LeaderboardOptions,
    ) -> Result<TargetView, StudyError> {
        let (paper, progress) = (self.study.db)
            .read(async |conn| {
                let paper = crate::study::papers::get(&mut *conn, target).await?;
                let progress = db::targets::progress(&mut *conn, target).await?;
                Ok(paper.zip(progress))
            })
            .await?
            .ok_or(Refusal::NoSuchTarget(target))?;
        let set = self.current_set(options.list_depth()).await?;
        let settings = options.settings(set.collection.pool_depth);
        let mut view = TargetView {
            target: paper,
            progress,
            settings,
            judgments: set.has_raters.then(|| options.judgments()),
            models: None,
            notes: Vec::new(),
        };
        let Some(listed) =
            db::evaluation::top_lists(self.study.db.connections(), target, settings.k.get())
                .await?
        else {
            return Ok(view);
        };
        view.notes = crate::study::rating::notes(self.study.db.connections(), target, None).await?;
        let evaluated = self.leaderboard(options, Partial::Exclude).await?;
        let (set, board) = (&evaluated.set, &evaluated.board);
        let collection = set.collection(&options.judgments())?;
        // This target alone is scored; the board gives the models' order and ranks.
        let position = set.position_of(target);
        let on_target = position.map(|p| &collection.targets[p]);
        let answered = |paper: PaperKey| {
            position.is_some_and(|p| set.ratings[p].iter().any(|rated| rated.paper == paper))
        };
        let scores: HashMap<&str, TargetScores> = match on_target {
            Some(input) => {
                let scores = leaderboard::score_target(input, &board.settings);
                (collection.models.iter().map(String::as_str))
                    .zip(scores)
                    .collect()
            }
            None => HashMap::new(),
        };
        let mut papers_by_model: HashMap<String, Vec<ListedPaper>> = HashMap::new();
        for mut paper in listed {
            paper.judgment = on_target.and_then(|input| input.judgments.get(&paper.key).copied());
            paper.cannot_judge = paper.judgment.is_none() && answered(paper.key);
            papers_by_model
                .entry(paper.model.clone())
                .or_default()
                .push(paper);
        }
        view.models = Some(
            (board.models.iter())
                .map(|row| ModelOnTarget {
                    model: row.model.clone(),
                    rank: row.rank,
                    scores: scores.get(row.model.as_str()).copied().unwrap_or_default(),
                    papers: papers_by_model.remove(&row.model).unwrap_or_default(),
                })
                .collect(),
        );
        Ok(view)
    }
}
