//! The audit of the judges against the raters, and the pairs they disagree on most: owner's
//! views, over fully rated targets only (a judge's grade of a pair still to be rated would
//! anchor the rater who reads it).

use super::Handle;
use std::collections::HashMap;
use std::sync::Arc;

use super::store::{self, GradesOf, JudgeRecord};
use super::JudgeVersion;
use crate::checks::judges::{audit, JudgeInput};
use crate::checks::ranking;
use crate::domain::{JudgeName, PaperId, PaperKey, Stars};
use crate::leaderboard::{LeaderboardOptions, Partial, TargetInput};
use crate::metrics::Settings;
use crate::study::error::StudyError;
use crate::study::evaluation::EvaluationSet;
use crate::study::rating::RaterNote;

pub use crate::checks::judges::JudgeAudit;

/// A pair of a fully rated target where a judge and the raters differ, with both papers'
/// texts, for reading the judge's mistakes.
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    pub target: PaperId,
    pub target_title: String,
    pub target_abstract: String,
    pub paper: PaperId,
    pub paper_title: String,
    pub paper_abstract: String,
    /// The raters' judgment (the lower median of their stars).
    pub raters: Stars,
    pub judge: Stars,
    /// The raters' notes on the pair, by rater.
    pub notes: Vec<RaterNote>,
}

impl Disagreement {
    /// How many stars apart the two are.
    pub fn gap(&self) -> u8 {
        self.raters.get().abs_diff(self.judge.get())
    }
}

/// The disagreements a view lists at most.
pub const DISAGREEMENTS_SHOWN: usize = 50;

impl Handle<'_> {
    /// The grades of `of` of the pairs of fully rated targets, by target and paper, in one
    /// read of the study.
    pub(super) async fn finished_grades(
        &self,
        of: GradesOf,
    ) -> Result<Vec<(PaperKey, PaperKey, Stars)>, StudyError> {
        (self.study.db)
            .read(async |conn| Ok(store::grades_of_finished_targets(&mut *conn, of).await?))
            .await
    }

    /// The audit of every judge, by name, under the leaderboard's `options`, against the
    /// raters' judgments in `raters` (a set of at least the options' depth).
    pub(in crate::study) async fn audits(
        &self,
        options: &LeaderboardOptions,
        raters: &EvaluationSet,
    ) -> Result<Vec<JudgeAudit>, StudyError> {
        let judges: Vec<JudgeRecord> = self
            .study
            .db
            .read(async |conn| Ok(store::all(&mut *conn).await?))
            .await?;
        let settings = options.settings(raters.collection.pool_depth);
        let mut audits = Vec::with_capacity(judges.len());
        for judge in judges {
            audits.push(
                self.audit_of(raters, &judge, &settings, options.list_depth())
                    .await?,
            );
        }
        Ok(audits)
    }

    /// The audit of one judge, as [`Handle::audits`]; refused for a name the study has no
    /// judge of.
    pub(in crate::study) async fn audit(
        &self,
        name: &JudgeName,
        options: &LeaderboardOptions,
        raters: &EvaluationSet,
    ) -> Result<JudgeAudit, StudyError> {
        let judge = self.named(name).await?;
        let settings = options.settings(raters.collection.pool_depth);
        self.audit_of(raters, &judge, &settings, options.list_depth())
            .await
    }

    /// The pairs of fully rated targets where the judge `name` and the raters differ most,
    /// the largest gap first (then by target and paper), at most [`DISAGREEMENTS_SHOWN`]; the
    /// raters' judgments are those in `raters`.
    pub(in crate::study) async fn disagreements(
        &self,
        name: &JudgeName,
        raters: &EvaluationSet,
    ) -> Result<Vec<Disagreement>, StudyError> {
        let judge = self.named(name).await?;
        let graded = self.finished_grades(GradesOf::Judge(judge.id)).await?;
        self.disagreements_in(raters, graded).await
    }

    /// The pairs of `graded` (a judge's or a trial's grades of fully rated targets) where the
    /// grade and the raters of `raters` differ most, as [`Handle::disagreements`] lists them.
    pub(super) async fn disagreements_in(
        &self,
        raters: &EvaluationSet,
        graded: Vec<(PaperKey, PaperKey, Stars)>,
    ) -> Result<Vec<Disagreement>, StudyError> {
        let mut compared: Vec<(PaperKey, PaperKey, Stars, Stars)> = (compared(raters, graded))
            .into_iter()
            .filter(|(_, _, raters, judge)| raters != judge)
            .collect();
        compared.sort_by_key(|&(target, paper, raters, judge)| {
            (
                std::cmp::Reverse(raters.get().abs_diff(judge.get())),
                target,
                paper,
            )
        });
        compared.truncate(DISAGREEMENTS_SHOWN);
        self.study
            .db
            .read(async |conn| {
                let mut shown = Vec::with_capacity(compared.len());
                for (target, paper, raters, judge) in compared {
                    let notes =
                        crate::study::rating::notes(&mut *conn, target, Some(paper)).await?;
                    let (Some(target), Some(paper)) = (
                        store::paper_text(&mut *conn, target).await?,
                        store::paper_text(&mut *conn, paper).await?,
                    ) else {
                        return Err(StudyError::unreadable("a judge's grade names no paper"));
                    };
                    shown.push(Disagreement {
                        target: target.external_id,
                        target_title: target.title,
                        target_abstract: target.abstract_text,
                        paper: paper.external_id,
                        paper_title: paper.title,
                        paper_abstract: paper.abstract_text,
                        raters,
                        judge,
                        notes,
                    });
                }
                Ok(shown)
            })
            .await
    }

    /// The pairs of fully rated targets the judge graded that have a judgment of the raters in
    /// whole stars: (target, paper, the raters' judgment, the judge's grade).
    async fn compared_pairs(
        &self,
        set: &EvaluationSet,
        judge: &JudgeRecord,
    ) -> Result<Vec<(PaperKey, PaperKey, Stars, Stars)>, StudyError> {
        let graded = self.finished_grades(GradesOf::Judge(judge.id)).await?;
        Ok(compared(set, graded))
    }

    async fn audit_of(
        &self,
        set: &EvaluationSet,
        judge: &JudgeRecord,
        settings: &Settings,
        depth: usize,
    ) -> Result<JudgeAudit, StudyError> {
        let pairs = (self.compared_pairs(set, judge).await?.into_iter())
            .map(|(_, _, raters, judge)| (raters, judge))
            .collect();
        let models = set.collection.models.clone();
        let judged = self
            .judged(&JudgeVersion::of(judge), &models, set, depth)
            .await?;
        let settings = *settings;
        let finished: Vec<&TargetInput<PaperKey>> =
            (set.collection.targets.iter().map(Arc::as_ref))
                .filter(|target| Partial::Exclude.evaluates(target))
                .collect();
        let raters_ndcg: Vec<Option<f64>> = (0..models.len())
            .map(|model| ranking::mean_ndcg(&finished, model, &settings))
            .collect();
        let input = JudgeInput {
            name: judge.name.clone(),
            pairs,
            judge_ndcg: {
                let judged: Vec<&TargetInput<PaperKey>> =
                    judged.collection.targets.iter().map(Arc::as_ref).collect();
                (0..models.len())
                    .map(|model| ranking::mean_ndcg(&judged, model, &settings))
                    .collect()
            },
            targets_judged: judged.collection.targets.len(),
            models,
            raters_ndcg,
        };
        // The alpha interval's resamples keep the cores busy for a moment.
        Ok(crate::blocking::run(move || audit(&input, &settings)).await)
    }
}

/// The pairs of `graded` whose target is fully rated in `set` and that have a judgment of the
/// raters in whole stars: (target, paper, the raters' judgment, the grade).
pub(super) fn compared(
    set: &EvaluationSet,
    graded: Vec<(PaperKey, PaperKey, Stars)>,
) -> Vec<(PaperKey, PaperKey, Stars, Stars)> {
    let position: HashMap<PaperKey, usize> = (set.targets.iter().enumerate())
        .map(|(position, (key, _))| (*key, position))
        .collect();
    graded
        .into_iter()
        .filter_map(|(target, paper, stars)| {
            let input = &set.collection.targets[*position.get(&target)?];
            let raters = input.judgments.get(&paper)?.as_stars()?;
            input.fully_rated.then_some((target, paper, raters, stars))
        })
        .collect()
}

/// The agreement of `pairs` (the raters' judgment, the grade) alone: the audit without a
/// ranking of the models, as a trial and `--stop-below-alpha` read it.
pub(super) async fn agreement_of(
    name: JudgeName,
    pairs: Vec<(Stars, Stars)>,
    settings: Settings,
) -> JudgeAudit {
    let input = JudgeInput {
        name,
        pairs,
        models: Vec::new(),
        judge_ndcg: Vec::new(),
        targets_judged: 0,
        raters_ndcg: Vec::new(),
    };
    // The alpha interval's resamples keep the cores busy for a moment.
    crate::blocking::run(move || audit(&input, &settings)).await
}
