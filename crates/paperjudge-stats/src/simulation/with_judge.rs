//! `paperjudge simulate --judge NAME`: what a judge gives a study (docs/metrics.md,
//! "Prediction-powered estimates"). The study is replayed (or resampled) as without a judge,
//! its grades of every target of the simulated study known before the first rating (a judge
//! is cheap): the half-width of the closest pair's difference after 20, 40 and 80 rated
//! targets, prediction-powered and the raters' alone. The verdict, and so the ratings to a
//! decision, are the raters' own ([`crate::leaderboard::VERDICT_WITH_A_JUDGE`]): the plain
//! simulation's.
//!
//! The judged sample J of a simulated study: in a replay, every judged target of the study
//! (the rated ones among them in the replay's order); resampled, the targets drawn, each
//! with its judge's grades (they travel with their target).

use std::hash::Hash;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use super::{nearest_rank, Plan, Replay, ReplayError};
use crate::decision::Order;
use crate::leaderboard::{self, Collection, JudgedTargets, Partial};
use crate::metrics::{self, estimate_mean, Judged};

/// The rated targets after which the half-widths are given.
const HALF_WIDTHS_AT: [usize; 3] = [20, 40, 80];

/// A judge's NDCG of every model on the targets of a replay.
#[derive(Debug, Clone)]
pub struct JudgeValues {
    pub name: String,
    /// For each target of the replay, in its order, the judge's NDCG of each model (undefined:
    /// 0; `None` for a model the pool left out); `None` for a target the judge did not grade
    /// whole.
    rated: Vec<Option<Vec<Option<f64>>>>,
    /// The judged targets that are not fully rated: in a replay, part of J all along.
    unrated: Vec<Vec<Option<f64>>>,
}

impl JudgeValues {
    /// The judge's values of `judged` for the fully rated targets of `raters` that a replay
    /// of it takes (those the scoring evaluates, in order).
    pub fn of<K: Copy + Eq + Hash + Send + Sync>(
        raters: &Collection<K>,
        judged: &JudgedTargets<K>,
        settings: crate::metrics::Settings,
    ) -> JudgeValues {
        let models = raters.models.len();
        let scores = leaderboard::score(&judged.collection, settings, Partial::Exclude);
        let mut by_raters_position = std::collections::HashMap::new();
        let mut unrated = Vec::new();
        for (index, &position) in scores.evaluated.iter().enumerate() {
            let target = &judged.collection.targets[position];
            let values: Vec<Option<f64>> = (0..models)
                .map(|model| {
                    (target.pooled(model)).then(|| scores.ndcg(model, index).unwrap_or(0.0))
                })
                .collect();
            match judged.in_raters[position] {
                Some(at) if raters.targets[at].fully_rated => {
                    by_raters_position.insert(at, values);
                }
                _ => unrated.push(values),
            }
        }
        let evaluated = leaderboard::score(raters, settings, Partial::Exclude).evaluated;
        JudgeValues {
            name: judged.name.to_string(),
            rated: (evaluated.iter())
                .map(|position| by_raters_position.remove(position))
                .collect(),
            unrated,
        }
    }
}

/// The simulated studies of one plan with the judge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeSummary {
    pub judge: String,
    pub resample: bool,
    pub runs: usize,
    /// Judged targets of a simulated study (a replay: the study's; resampled: those drawn that
    /// the judge graded).
    pub targets_judged_median: usize,
    /// The closest pair of models over the study (the best and the next), and the 95%
    /// half-width of their mean difference after some rated targets, with the judge
    /// (prediction-powered) and without (the raters' t interval), medians over the studies.
    pub pair: Option<[String; 2]>,
    pub half_widths: Vec<HalfWidths>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HalfWidths {
    pub rated: usize,
    pub with_judge: f64,
    pub without_judge: f64,
}

/// One simulated study: the judged targets it had and the pair's half-widths at
/// [`HALF_WIDTHS_AT`] (with the judge, without).
struct Simulated {
    judged: usize,
    widths: Vec<Option<(f64, f64)>>,
}

impl Replay {
    /// `seeds` simulated studies under `plan` (random order, no pruning), each with the judge
    /// `judge`.
    pub fn simulate_with_judge(
        &self,
        plan: Plan,
        judge: &JudgeValues,
        seeds: std::ops::Range<u64>,
    ) -> Result<JudgeSummary, ReplayError> {
        if plan.order != Order::Random || plan.prune {
            return Err(ReplayError::JudgeRandomOrderOnly);
        }
        self.check(plan)?;
        let pair = self.closest_pair();
        let runs: Vec<Simulated> = (seeds.into_par_iter())
            .map(|seed| self.run_with_judge(plan, judge, seed, pair))
            .collect();
        let half_widths = (HALF_WIDTHS_AT.iter().enumerate())
            .filter_map(|(at, &rated)| {
                let mut with: Vec<f64> = Vec::new();
                let mut without: Vec<f64> = Vec::new();
                for run in &runs {
                    let (judged, human) = run.widths[at]?;
                    with.push(judged);
                    without.push(human);
                }
                Some(HalfWidths {
                    rated,
                    with_judge: metrics::median(&mut with)?,
                    without_judge: metrics::median(&mut without)?,
                })
            })
            .collect();
        let judged: Vec<i64> = runs.iter().map(|run| run.judged as i64).collect();
        Ok(JudgeSummary {
            judge: judge.name.clone(),
            resample: plan.resample,
            runs: runs.len(),
            targets_judged_median: nearest_rank(&judged, 0.5) as usize,
            pair: pair.map(|(a, b)| [self.models[a].clone(), self.models[b].clone()]),
            half_widths,
        })
    }

    /// The best model over the study's targets and the next best.
    fn closest_pair(&self) -> Option<(usize, usize)> {
        let mut ranked: Vec<usize> = (0..self.models.len()).collect();
        ranked.sort_by(|&a, &b| self.means[b].total_cmp(&self.means[a]));
        Some((*ranked.first()?, *ranked.get(1)?))
    }

    /// One simulated study: the draws `run` makes under `plan` and `seed`; the judged targets;
    /// the pair's half-widths at [`HALF_WIDTHS_AT`].
    fn run_with_judge(
        &self,
        plan: Plan,
        judge: &JudgeValues,
        seed: u64,
        pair: Option<(usize, usize)>,
    ) -> Simulated {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut order: Vec<usize> = (0..self.targets.len()).collect();
        order.shuffle(&mut rng);
        // The same draws as `run`: the shuffled study, or draws with replacement after it.
        let drawn: Vec<usize> = if plan.resample {
            (0..plan.targets)
                .map(|_| rng.random_range(0..self.targets.len()))
                .collect()
        } else {
            order.into_iter().take(plan.targets).collect()
        };
        let judged = if plan.resample {
            (drawn.iter())
                .filter(|&&index| judge.rated[index].is_some())
                .count()
        } else {
            judge.rated.iter().flatten().count() + judge.unrated.len()
        };
        let widths = HALF_WIDTHS_AT
            .iter()
            .map(|&rated| {
                let (a, b) = pair?;
                self.half_widths(&drawn, judge, plan.resample, rated, a, b)
            })
            .collect();
        Simulated { judged, widths }
    }

    /// The 95% half-widths of the mean difference a − b after the first `rated` targets of
    /// `drawn`: prediction-powered with the judge's values over J, and the raters' alone;
    /// `None` where there are not that many, or the estimate is not available.
    fn half_widths(
        &self,
        drawn: &[usize],
        judge: &JudgeValues,
        resample: bool,
        rated: usize,
        a: usize,
        b: usize,
    ) -> Option<(f64, f64)> {
        if drawn.len() < rated {
            return None;
        }
        let difference = |values: &[Option<f64>]| Some(values[a]? - values[b]?);
        let rated_part = (drawn[..rated].iter()).filter_map(|&index| {
            Some(Judged {
                judge: difference(judge.rated[index].as_deref()?)?,
                raters: Some(difference(&self.targets[index].ndcg)?),
            })
        });
        let sample: Vec<Judged> = if resample {
            let judged_only = (drawn[rated..].iter())
                .filter_map(|&index| difference(judge.rated[index].as_deref()?))
                .map(|judge| Judged {
                    judge,
                    raters: None,
                });
            rated_part.chain(judged_only).collect()
        } else {
            let rated_set: std::collections::HashSet<usize> =
                drawn[..rated].iter().copied().collect();
            let judged_only = (judge.rated.iter().enumerate())
                .filter(|(index, _)| !rated_set.contains(index))
                .filter_map(|(_, values)| difference(values.as_deref()?))
                .chain(judge.unrated.iter().filter_map(|values| difference(values)))
                .map(|judge| Judged {
                    judge,
                    raters: None,
                });
            rated_part.chain(judged_only).collect()
        };
        let estimate = estimate_mean(&sample).ok()?;
        Some((estimate.half_width, estimate.human_only.half_width))
    }
}

/// The summary with the judge as lines under the table of `paperjudge simulate`.
pub fn in_words(summary: &JudgeSummary) -> String {
    let mut text = format!(
        "With the judge {} ({} judged targets per simulated study, median; {} {} draws, random \
         order, no pruning): the decisions are the table's above, the raters' own verdict's \
         (docs/metrics.md, \"The verdict with a judge\"); what the judge gives is narrower \
         intervals.\n",
        summary.judge,
        summary.targets_judged_median,
        summary.runs,
        if summary.resample {
            "resampled"
        } else {
            "replayed"
        },
    );
    if let Some([a, b]) = &summary.pair {
        for widths in &summary.half_widths {
            text.push_str(&format!(
                "{a} − {b} after {} rated targets: 95% half-width {:.4} with the judge, {:.4} \
                 without (medians)\n",
                widths.rated, widths.with_judge, widths.without_judge
            ));
        }
    }
    text
}
