//! `paperjudge simulate --judge NAME`: the study replayed (or resampled) as without a judge,
//! each simulated study watched twice on the same draws: by the raters' own verdict, and by
//! the verdict with the judge (docs/metrics.md, "Prediction-powered estimates"), whose grades
//! of every target of the simulated study are known before its first rating (a judge is
//! cheap). What the judge saves is the difference: rated targets and ratings to the first
//! decision, and the half-width of the closest pair's difference after 20, 40 and 80 rated
//! targets.
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

use super::{nearest_rank, Plan, Replay, ReplayError, SAME_MEAN};
use crate::decision::{Monitor, Order, Standing, State};
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
    pub fn of<K: Copy + Eq + Hash + Sync>(
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

/// The simulated studies of one plan with the judge, beside the same draws without it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeSummary {
    pub judge: String,
    pub order: Order,
    pub resample: bool,
    pub runs: usize,
    /// Judged targets of a simulated study (a replay: the study's; resampled: those drawn that
    /// the judge graded).
    pub targets_judged_median: usize,
    pub decided: usize,
    pub decided_without_judge: usize,
    /// Rated targets to the first decision (all of them when none came), median.
    pub human_targets_median: usize,
    pub human_targets_median_without_judge: usize,
    pub human_targets_p90: usize,
    pub human_targets_p90_without_judge: usize,
    pub ratings_median: usize,
    pub ratings_median_without_judge: usize,
    /// The median, over the studies, of the ratings the same draws took without the judge
    /// less those they took with it.
    pub ratings_saved_median: i64,
    pub wrong: usize,
    pub wrong_without_judge: usize,
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

/// One simulated study, watched with the judge and without, with the judged targets it had
/// and the pair's half-widths at [`HALF_WIDTHS_AT`] (with the judge, without).
struct Simulated {
    with: Watched,
    without: Watched,
    judged: usize,
    widths: Vec<Option<(f64, f64)>>,
}

/// How one simulated study ended, watched by one verdict.
#[derive(Debug, Clone, Copy)]
struct Watched {
    targets: usize,
    ratings: usize,
    decided: bool,
    wrong: bool,
}

impl Replay {
    /// `seeds` simulated studies under `plan` (random order, no pruning), each watched with
    /// the judge `judge` and without it on the same draws.
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
        let median = |values: Vec<i64>| nearest_rank(&values, 0.5) as usize;
        let p90 = |values: Vec<i64>| nearest_rank(&values, 0.9) as usize;
        let with = |f: fn(&Watched) -> usize| -> Vec<i64> {
            runs.iter().map(|run| f(&run.with) as i64).collect()
        };
        let without = |f: fn(&Watched) -> usize| -> Vec<i64> {
            runs.iter().map(|run| f(&run.without) as i64).collect()
        };
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
        Ok(JudgeSummary {
            judge: judge.name.clone(),
            order: plan.order,
            resample: plan.resample,
            runs: runs.len(),
            targets_judged_median: median(runs.iter().map(|run| run.judged as i64).collect()),
            decided: runs.iter().filter(|run| run.with.decided).count(),
            decided_without_judge: runs.iter().filter(|run| run.without.decided).count(),
            human_targets_median: median(with(|w| w.targets)),
            human_targets_median_without_judge: median(without(|w| w.targets)),
            human_targets_p90: p90(with(|w| w.targets)),
            human_targets_p90_without_judge: p90(without(|w| w.targets)),
            ratings_median: median(with(|w| w.ratings)),
            ratings_median_without_judge: median(without(|w| w.ratings)),
            ratings_saved_median: nearest_rank(
                &(runs.iter())
                    .map(|run| run.without.ratings as i64 - run.with.ratings as i64)
                    .collect::<Vec<_>>(),
                0.5,
            ),
            wrong: runs.iter().filter(|run| run.with.wrong).count(),
            wrong_without_judge: runs.iter().filter(|run| run.without.wrong).count(),
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

    /// One simulated study: the draws `run` makes under `plan` and `seed`, watched with the
    /// judge and without; the judged targets; the pair's half-widths at [`HALF_WIDTHS_AT`].
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
        let judged: Vec<Vec<Option<f64>>> = if plan.resample {
            (drawn.iter())
                .filter_map(|&index| judge.rated[index].clone())
                .collect()
        } else {
            (judge.rated.iter().flatten().cloned())
                .chain(judge.unrated.iter().cloned())
                .collect()
        };
        let with = self.watch(&drawn, Some((judge, &judged)));
        let without = self.watch(&drawn, None);
        let widths = HALF_WIDTHS_AT
            .iter()
            .map(|&rated| {
                let (a, b) = pair?;
                self.half_widths(&drawn, judge, plan.resample, rated, a, b)
            })
            .collect();
        Simulated {
            with,
            without,
            judged: judged.len(),
            widths,
        }
    }

    /// The raters' verdict (with the judge's values of `judged`, when given) fed the targets
    /// `drawn` in order, up to its first decision.
    fn watch(
        &self,
        drawn: &[usize],
        judge: Option<(&JudgeValues, &[Vec<Option<f64>>])>,
    ) -> Watched {
        let margin = self.margin;
        let mut monitor = match judge {
            Some((_, judged)) => Monitor::with_judge(self.models.clone(), margin, judged)
                .expect("the judge's values are NDCG, one per model"),
            None => Monitor::new(self.models.clone(), Order::Random, margin),
        };
        let best = self.best();
        let top = self.means[best[0]];
        let all = vec![true; self.models.len()];
        let (mut ratings, mut wrong) = (0, false);
        for (step, &index) in drawn.iter().enumerate() {
            let (ndcg, cost) = self.targets[index].rated_with(&all, &self.settings);
            match judge {
                Some((values, _)) => monitor.observe_rated(&ndcg, values.rated[index].as_deref()),
                None => monitor.observe(&ndcg, None),
            }
            .expect("the study's values are NDCG");
            ratings += cost;
            let standing = monitor.standing().expect("a target was observed");
            wrong |= best.iter().any(|&m| standing.states[m] == State::Out);
            if standing.decided() {
                wrong |= self.declared_wrongly(&standing, &best, top);
                return Watched {
                    targets: step + 1,
                    ratings,
                    decided: true,
                    wrong,
                };
            }
        }
        Watched {
            targets: drawn.len(),
            ratings,
            decided: false,
            wrong,
        }
    }

    /// Whether a decision named a model that is not best (or, with a margin, not within it of
    /// the best), or named one best of a tie.
    fn declared_wrongly(&self, standing: &Standing, best: &[usize], top: f64) -> bool {
        let margin = self.margin.get();
        (standing.states.iter().enumerate())
            .filter(|(_, state)| matches!(state, State::Leader | State::Equivalent))
            .any(|(model, _)| self.means[model] < top - margin - SAME_MEAN)
            || (margin == 0.0 && best.len() > 1)
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
        "With the judge {} ({} judged targets per simulated study, median; {} draws, random \
         order, no pruning): rated targets to the first decision, median {} (p90 {}) against \
         {} (p90 {}) without it; ratings {} against {} (saved, median over the same draws: \
         {}); decided {} and {} of {}; wrong {} and {}.\n",
        summary.judge,
        summary.targets_judged_median,
        if summary.resample {
            "resampled"
        } else {
            "replayed"
        },
        summary.human_targets_median,
        summary.human_targets_p90,
        summary.human_targets_median_without_judge,
        summary.human_targets_p90_without_judge,
        summary.ratings_median,
        summary.ratings_median_without_judge,
        summary.ratings_saved_median,
        summary.decided,
        summary.decided_without_judge,
        summary.runs,
        summary.wrong,
        summary.wrong_without_judge,
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
