//! The evaluation path: a study's ratings and lists become the numbers of the leaderboard in
//! four steps, each named for what it does.
//!
//! 1. **load**: [`EvaluationSet::load`] reads one revision of the study, as typed rows
//!    ([`db::evaluation`]), with the order its targets were completed in, into memory;
//! 2. **score**: [`leaderboard::score`] scores every model on every evaluated target;
//! 3. **resample**: [`leaderboard::resample`] compares the models: means, bootstrap intervals,
//!    sign-flip tests against the leader, and the anytime-valid verdict
//!    ([`leaderboard::verdict`]) from the same scores;
//! 4. **render**: [`Leaderboard::to_json`], [`Leaderboard::to_csv`], [`Leaderboard::to_table`]
//!    and the web's pages.
//!
//! The queries here ([`Handle::leaderboard`], [`Handle::target_view`], [`Handle::checks`],
//! [`Handle::current_set`]) all go through what the study keeps of the evaluation
//! ([`Evaluations`]): the set of the current revision and the leaderboards of recent options,
//! so that a page view does the work only after something changed, and a command that asks
//! once does it once.

mod cache;
mod judges;
mod kept;
mod set;
pub(in crate::study) mod store;
mod target_view;

use std::sync::Arc;
use std::time::Instant;

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::checks::{
    self, ranking, AnswersInput, Checks, History, RaterRanking, RatersInput, TimedRecheck,
};
use crate::domain::{JudgeName, PaperKey, RaterId, Stars};
use crate::leaderboard::{
    self, Collection, JudgedTargets, Kept, Leaderboard, LeaderboardOptions, Partial, RaterLeader,
    TargetInput,
};
use crate::metrics::{Judgments, Settings};
use crate::study::db;
use crate::study::error::StudyError;
use crate::study::Study;

pub use cache::Evaluations;
pub use set::{Earlier, EvaluationSet};
pub use target_view::{ModelOnTarget, TargetView};

/// A leaderboard with the set it was computed from.
#[derive(Debug, Clone)]
pub struct Evaluated {
    pub set: Arc<EvaluationSet>,
    pub board: Arc<Leaderboard>,
}

impl Evaluated {
    /// The leaderboard as `rater` may read it (`None`: the owner, who reads it whole). A rater
    /// is blind to whether another rated: the targets left out as partly rated are those they
    /// rated a part of and the others are without ratings for them, so that no count moves
    /// when someone else rates (the evaluated targets, fully rated, are everyone's to see);
    /// and each rater's own leader is the owner's to see.
    pub fn seen_by(&self, rater: Option<RaterId>) -> Arc<Leaderboard> {
        let Some(rater) = rater else {
            return self.board.clone();
        };
        let mut board = self.board.clone();
        let seen = Arc::make_mut(&mut board);
        seen.by_rater = None;
        if seen.partial == Partial::Exclude {
            // Fully rated as the judgments asked for count it: with `rater:NAME`, once that
            // rater rated it whole too.
            let finished_by_asked = |finished_by: &[RaterId]| match &seen.judgments {
                Some(Judgments::Rater(name)) => {
                    (self.set.rater(name)).is_ok_and(|asked| finished_by.contains(&asked))
                }
                _ => true,
            };
            let partly_rated = (self.set.collection.targets.iter())
                .zip(&self.set.ratings)
                .zip(&self.set.finished_by)
                .filter(|((target, ratings), finished_by)| {
                    !(target.fully_rated && finished_by_asked(finished_by))
                        && ratings.iter().any(|rated| rated.rater == rater)
                })
                .count();
            let not_evaluated = seen.targets.unrated + seen.targets.partly_rated;
            seen.targets.partly_rated = partly_rated;
            seen.targets.unrated = not_evaluated.saturating_sub(partly_rated);
        }
        board
    }
}

/// The evaluation's queries (`study.evaluation()`): the leaderboard, its per-target view, the
/// checks, and the set they are computed from.
#[derive(Debug, Clone, Copy)]
pub struct Handle<'s> {
    /// The study, whose judges the evaluation asks for their grades.
    study: &'s Study,
}

impl<'s> Handle<'s> {
    pub(in crate::study) fn new(study: &'s Study) -> Handle<'s> {
        Handle { study }
    }

    /// Compares every model on the targets rated now (with `partial`, also those partly
    /// rated), as the options ask: load, score, resample (or what is kept of them, while the
    /// study has not changed). Nothing is written: a view records nothing (see
    /// [`db::rating::set`] for when a change is made with its provenance known).
    pub async fn leaderboard(
        &self,
        options: &LeaderboardOptions,
        partial: Partial,
    ) -> Result<Evaluated, StudyError> {
        let (evaluated, _) = (self.study.evaluations)
            .leaderboard(self.study, options, partial)
            .await?;
        Ok(evaluated)
    }

    /// The judged targets of the judge named `name` (refused for a name the study has no
    /// judge of), beside the evaluation set of at least `depth` they were read with: what
    /// `paperjudge simulate --judge` replays. The evaluation asks the judges' handle for the
    /// judge's grades over its set (as it gives it its set for the audits: `judges.rs`).
    pub async fn judged_targets(
        &self,
        name: &JudgeName,
        depth: usize,
    ) -> Result<(Arc<EvaluationSet>, JudgedTargets<PaperKey>), StudyError> {
        let judges = self.study.judges();
        let judge = judges.version(name).await?;
        let set = self.current_set(depth).await?;
        let judged = (judges.judged(&judge, &set.collection.models, &set, set.depth)).await?;
        Ok((set, judged))
    }

    /// The set of the study's current revision, holding at least `depth` of every list: what
    /// `paperjudge simulate` replays.
    pub async fn current_set(&self, depth: usize) -> Result<Arc<EvaluationSet>, StudyError> {
        self.study.evaluations.set(self.study, depth).await
    }

    /// The study checks under `options` (the leaderboard's), over fully rated targets or,
    /// with `partial`, every target with a rating; the judges' audit of the judge `options`
    /// names, or of every judge.
    pub async fn checks(
        &self,
        options: &LeaderboardOptions,
        partial: Partial,
    ) -> Result<Checks, StudyError> {
        let set = self.current_set(checks::LIST_DEPTH).await?;
        let raters = set.clone();
        let settings = options.settings(set.collection.pool_depth);
        let (judgments, rechecks, progress, versions) = (self.study.db)
            .read(async |conn| {
                Ok((
                    db::recheck::judgments(&mut *conn).await?,
                    db::recheck::rechecks(&mut *conn).await?,
                    db::recheck::recheck_progress(&mut *conn, None).await?,
                    super::guidelines::versions(conn).await?,
                ))
            })
            .await?;
        let history = History {
            judgments: (judgments.iter())
                .filter_map(|judgment| {
                    let at = seconds(&judgment.changed_at)?;
                    Some((judgment.rater_id, at, Stars::new(judgment.stars)?))
                })
                .collect(),
            rechecks: (rechecks.iter())
                .filter_map(|recheck| {
                    Some(TimedRecheck {
                        rater: recheck.rater_id,
                        then: Stars::new(recheck.stars_then)?,
                        now: Stars::new(recheck.stars)?,
                        rated_at: seconds(&recheck.rated_at),
                    })
                })
                .collect(),
            rated_pairs: progress.rated_in_finished,
        };
        // The kappa and alpha intervals' resamples keep the cores busy for a moment: off the
        // async workers, with the targets in a thread of their own.
        let judgments = options.judgments();
        let mut checks = crate::blocking::run(move || {
            let asked = set.collection(&judgments)?;
            let evaluated: Vec<usize> = (asked.targets.iter().enumerate())
                .filter(|(_, target)| partial.evaluates(target))
                .map(|(position, _)| position)
                .collect();
            let collection = Collection {
                models: asked.models.clone(),
                targets: (evaluated.iter())
                    .map(|&position| asked.targets[position].clone())
                    .collect(),
                total: asked.total,
                pool_depth: asked.pool_depth,
                // The checks read no verdict, and the filtered targets no longer match the
                // order.
                completion: None,
            };
            let raters = set.has_raters.then(|| {
                let targets: Vec<&TargetInput<PaperKey>> =
                    collection.targets.iter().map(Arc::as_ref).collect();
                let input = RatersInput {
                    names: set.raters.clone(),
                    ratings: (evaluated.iter())
                        .map(|&position| set.ratings[position].clone())
                        .collect(),
                    consensus: (0..collection.models.len())
                        .map(|model| ranking::mean_ndcg(&targets, model, &settings))
                        .collect(),
                    models: collection.models.clone(),
                    rankings: rater_rankings(&set, &settings, partial),
                };
                (judgments.clone(), input)
            });
            // "Can't judge" and the guidelines' versions are read over the targets checked
            // whatever their judgments: a target every rater could not judge has none.
            let answered: Vec<usize> = (asked.targets.iter().enumerate())
                .filter(|(_, target)| target.fully_rated || partial == Partial::Include)
                .map(|(position, _)| position)
                .collect();
            let answers = AnswersInput {
                models: &asked.models,
                targets: (answered.iter())
                    .map(|&position| (&*asked.targets[position], set.ratings[position].as_slice()))
                    .collect(),
                raters: &set.raters,
                versions: &versions,
            };
            Ok::<_, StudyError>(Checks::of(
                &collection,
                &history,
                settings,
                partial,
                raters,
                &answers,
            ))
        })
        .await?;
        // The judges are audited over fully rated targets, whatever `partial` says: the one
        // the options name (refused when the study has no judge of that name), or every one.
        checks.judges = match &options.judge {
            Some(name) => vec![self.study.judges().audit(name, options, &raters).await?],
            None => self.study.judges().audits(options, &raters).await?,
        };
        Ok(checks)
    }
}

/// Each rater's own ranking of the models: their stars alone (`rater:NAME`), over the targets
/// they rated whole (with `partial`, every target they rated), for every rater with a rating.
fn rater_rankings(set: &EvaluationSet, settings: &Settings, partial: Partial) -> Vec<RaterRanking> {
    let rated: Vec<RaterId> = {
        let mut rated: Vec<RaterId> = (set.ratings.iter().flatten())
            .filter(|rated| rated.stars().is_some())
            .map(|rated| rated.rater)
            .collect();
        rated.sort_unstable();
        rated.dedup();
        rated
    };
    (set.raters.iter())
        .filter(|(id, _)| rated.contains(id))
        .filter_map(|(_, name)| {
            let collection = set.collection(&Judgments::Rater(name.clone())).ok()?;
            let targets: Vec<&TargetInput<PaperKey>> = (collection.targets.iter().map(Arc::as_ref))
                .filter(|target| partial.evaluates(target))
                .collect();
            Some(RaterRanking {
                rater: name.clone(),
                targets: targets.len(),
                ndcg: (0..collection.models.len())
                    .map(|model| ranking::mean_ndcg(&targets, model, settings))
                    .collect(),
            })
        })
        .collect()
}

/// Scores and resamples in a blocking thread: the work keeps the cores busy for a while, and
/// the async workers go on serving the rating pages meanwhile. With raters, the board says
/// which judgments it used; refused for a rater the study has not. With a judge's targets
/// (`judged`), its NDCG is prediction-powered ([`leaderboard::with_judge`]; the verdict stays
/// the raters' own).
///
/// `earlier`: what the board of the same options kept on the set this one was made from
/// (see [`EvaluationSet::earlier`]), taken up where the targets did not change. Answers the
/// board, and without a judge what it keeps for the next one.
async fn evaluate(
    set: &Arc<EvaluationSet>,
    options: &LeaderboardOptions,
    partial: Partial,
    judged: Option<JudgedTargets<PaperKey>>,
    earlier: Option<Arc<Kept>>,
) -> Result<(Leaderboard, Option<Arc<Kept>>), StudyError> {
    let set = set.clone();
    let settings = options.settings(set.collection.pool_depth);
    let margin = options.margin();
    let judgments = options.judgments();
    crate::blocking::run(move || {
        let started = Instant::now();
        let collection = set.collection(&judgments)?;
        let scores = match (&earlier, &set.earlier) {
            (Some(earlier), Some(lineage)) => {
                leaderboard::score_again(&collection, &earlier.scores, &lineage.positions)
            }
            _ => leaderboard::score(&collection, settings, partial),
        };
        tracing::debug!(elapsed = ?started.elapsed(), again = earlier.is_some(), "scored");
        let resampled =
            leaderboard::resample_again(&collection, scores, margin, earlier.as_deref());
        tracing::debug!(elapsed = ?started.elapsed(), "resampled");
        let (mut board, kept) = (resampled.board, resampled.kept);
        if set.has_raters {
            board.by_rater = Some(
                (rater_rankings(&set, &settings, partial).into_iter())
                    .map(|own| RaterLeader {
                        leader: ranking::leader(&collection.models, &own.ndcg),
                        rater: own.rater,
                        targets: own.targets,
                    })
                    .collect(),
            );
            board.judgments = Some(judgments);
        }
        if let Some(judged) = &judged {
            board = leaderboard::with_judge(board, &collection, judged);
            tracing::debug!(elapsed = ?started.elapsed(), "with the judge");
            return Ok((board, None));
        }
        Ok((board, Some(Arc::new(kept))))
    })
    .await
}

/// Seconds since 1970 of an RFC 3339 time.
fn seconds(text: &str) -> Option<i64> {
    OffsetDateTime::parse(text, &Rfc3339)
        .ok()
        .map(OffsetDateTime::unix_timestamp)
}
