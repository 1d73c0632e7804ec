//! `paperjudge simulate`: a fully rated study replayed as if rated target by target, many
//! times, stopping at the first decision of the verdict. How many ratings and targets that
//! took, how often the decision was wrong, and how many ratings pruning saved is what a
//! researcher plans a study with. Pure: the study in, the summaries out.
//!
//! Two worlds. A replay (the default) rates the study's own targets in a random order, as its
//! rater could have: at most as many targets as it has. A resampled study (`--resample`)
//! draws each target with replacement from the fully rated ones: a library whose truth is the
//! study's means, from which a study of any size (`--targets`) can be drawn, and whose best
//! model is known. In both, a wrong decision is one that rules out a model with the best mean
//! over the study's targets, or calls a model best (or, with a margin, equivalent) that is not.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::decision::{adaptive_probabilities, list_disagreement, Margin, Monitor, Order, State};
use crate::domain::Grade;
use crate::leaderboard::{self, Collection, Partial};
use crate::metrics::{self, Settings};

pub mod judged_library;
pub mod tuned_judge;
pub mod with_judge;

/// Two means closer than this count as equal: the best models of a study are those within it
/// of the best mean.
const SAME_MEAN: f64 = 1e-12;

/// One fully rated target as a replay needs it, its papers numbered from 0.
#[derive(Debug, Clone)]
struct Replayed {
    /// Each model's NDCG as the study pooled the target (an undefined one as 0; `None` for a
    /// model its pool left out).
    ndcg: Vec<Option<f64>>,
    /// Each model's top pool depth: what its list adds to the pool (nothing for a model the
    /// study's pool left out).
    pooled: Vec<Vec<u32>>,
    /// Each model's list as the scoring reads it (empty without a list).
    lists: Vec<Vec<u32>>,
    judgments: HashMap<u32, Grade>,
    /// disagreement[a * M + b]: how differently models a and b rank its top k.
    disagreement: Vec<f64>,
}

impl Replayed {
    /// The pool of this target when only the models of `pooled` (by position) were pooled.
    fn pool(&self, pooled: &[bool]) -> HashSet<u32> {
        (self.pooled.iter().zip(pooled))
            .filter(|(_, &in_pool)| in_pool)
            .flat_map(|(papers, _)| papers.iter().copied())
            .collect()
    }

    /// Each model's NDCG (`None` for a model left out of the pool) and the ratings the target
    /// takes, when only the models of `pooled` were pooled: the judgments of the papers their
    /// lists brought, as a rater of that pool would have given them.
    fn rated_with(&self, pooled: &[bool], settings: &Settings) -> (Vec<Option<f64>>, usize) {
        let pool = self.pool(pooled);
        if pooled.iter().all(|&in_pool| in_pool) {
            return (self.ndcg.clone(), pool.len());
        }
        let judgments: HashMap<u32, Grade> = (self.judgments.iter())
            .filter(|(paper, _)| pool.contains(paper))
            .map(|(&paper, &stars)| (paper, stars))
            .collect();
        let ndcg = (self.lists.iter().zip(pooled).zip(&self.ndcg))
            .map(|((list, &in_pool), as_pooled)| {
                (in_pool && as_pooled.is_some()).then(|| {
                    (metrics::evaluate_target(list, &judgments, settings).ndcg).unwrap_or(0.0)
                })
            })
            .collect();
        (ndcg, pool.len())
    }
}

/// A study ready to replay.
#[derive(Debug, Clone)]
pub struct Replay {
    models: Vec<String>,
    settings: Settings,
    /// The verdict's margin: models within it of the leader count as equivalent.
    margin: Margin,
    targets: Vec<Replayed>,
    /// Each model's mean NDCG over all targets (an undefined NDCG counting 0, as in the
    /// verdict): the truth of the resampled world.
    means: Vec<f64>,
}

/// Why a study cannot be replayed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    #[error("a replay compares at least two models; the study has {0}")]
    Models(usize),
    #[error("the study has no fully rated target to replay")]
    NoTargets,
    #[error("a replay rates each of the study's {study} fully rated targets at most once, so it cannot rate {asked}: add --resample to draw targets with replacement")]
    TooManyTargets { asked: usize, study: usize },
    #[error("the adaptive order draws targets with replacement: add --resample")]
    AdaptiveNeedsResample,
    #[error(
        "a judge's intervals are simulated in random order without pruning: leave out \
         --prune and --order adaptive"
    )]
    JudgeRandomOrderOnly,
}

/// How to simulate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub order: Order,
    /// Targets pooled after a model is out leave it out.
    pub prune: bool,
    /// Draw targets with replacement instead of replaying the study's own.
    pub resample: bool,
    /// Targets per simulated study.
    pub targets: usize,
}

impl Replay {
    /// The fully rated targets of `study` as the leaderboard scores them under `settings`:
    /// each model's NDCG (from the scoring step), its top pool depth, its list, and the
    /// judgments; the verdict watches them with `margin`.
    pub fn of<K: Copy + Eq + Hash + Send + Sync>(
        collection: &Collection<K>,
        settings: Settings,
        margin: Margin,
    ) -> Result<Replay, ReplayError> {
        let count = collection.models.len();
        if count < 2 {
            return Err(ReplayError::Models(count));
        }
        let scores = leaderboard::score(collection, settings, Partial::Exclude);
        if scores.evaluated.is_empty() {
            return Err(ReplayError::NoTargets);
        }
        let (k, pool_depth) = (settings.k.get(), collection.pool_depth.get() as usize);
        let targets: Vec<Replayed> = (scores.evaluated.iter().enumerate())
            .map(|(index, &position)| {
                let target = &collection.targets[position];
                let mut numbers: HashMap<K, u32> = HashMap::new();
                let mut number = |paper: K| {
                    let next = numbers.len() as u32;
                    *numbers.entry(paper).or_insert(next)
                };
                let lists: Vec<Vec<u32>> = (target.lists.iter())
                    .map(|list| list.iter().flatten().map(|&paper| number(paper)).collect())
                    .collect();
                let judgments = (target.judgments.iter())
                    .map(|(&paper, &stars)| (number(paper), stars))
                    .collect();
                let pooled = (lists.iter().enumerate())
                    .map(|(model, list)| match target.pooled(model) {
                        true => list.iter().take(pool_depth).copied().collect(),
                        false => Vec::new(),
                    })
                    .collect();
                let disagreement = (0..count * count)
                    .map(|pair| {
                        let (a, b) = (pair / count, pair % count);
                        list_disagreement(&lists[a], &lists[b], k)
                    })
                    .collect();
                Replayed {
                    ndcg: (0..count)
                        .map(|model| {
                            target
                                .pooled(model)
                                .then(|| scores.ndcg(model, index).unwrap_or(0.0))
                        })
                        .collect(),
                    pooled,
                    lists,
                    judgments,
                    disagreement,
                }
            })
            .collect();
        // Over the targets that pooled the model (all of them, unless the study pruned).
        let means = (0..count)
            .map(|model| {
                let values: Vec<f64> = targets.iter().filter_map(|t| t.ndcg[model]).collect();
                values.iter().sum::<f64>() / values.len().max(1) as f64
            })
            .collect();
        Ok(Replay {
            models: collection.models.clone(),
            settings,
            margin,
            targets,
            means,
        })
    }

    pub fn targets(&self) -> usize {
        self.targets.len()
    }

    /// Every pooled pair of the study: what rating it all takes.
    pub fn ratings(&self) -> usize {
        let all = vec![true; self.models.len()];
        (self.targets.iter())
            .map(|target| target.pool(&all).len())
            .sum()
    }

    /// The models with the best mean over the study's targets.
    fn best(&self) -> Vec<usize> {
        let top = self.means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (0..self.models.len())
            .filter(|&m| self.means[m] >= top - SAME_MEAN)
            .collect()
    }

    /// The leader over the study's targets, if one model is best alone.
    pub fn leader(&self) -> Option<&str> {
        match self.best()[..] {
            [only] => Some(self.models[only].as_str()),
            _ => None,
        }
    }

    /// Checks that `plan` can be simulated on this study.
    pub fn check(&self, plan: Plan) -> Result<(), ReplayError> {
        if plan.order == Order::Adaptive && !plan.resample {
            return Err(ReplayError::AdaptiveNeedsResample);
        }
        if !plan.resample && plan.targets > self.targets.len() {
            return Err(ReplayError::TooManyTargets {
                asked: plan.targets,
                study: self.targets.len(),
            });
        }
        Ok(())
    }

    /// One simulated study under `plan`, the draws seeded by `seed`, up to the first
    /// decision.
    pub fn run(&self, plan: Plan, seed: u64) -> Outcome {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let count = self.models.len();
        let mut monitor = Monitor::new(self.models.clone(), plan.order, self.margin);
        let mut order: Vec<usize> = (0..self.targets.len()).collect();
        order.shuffle(&mut rng);
        // A replay takes the study's targets in this order, and ends with them.
        let mut replayed = order.into_iter();
        let best = self.best();
        let top = self.means[best[0]];
        let mut pooled = vec![true; count];
        let (mut ratings, mut wrong) = (0, false);
        for step in 0..plan.targets {
            let (index, weight) = match (plan.order, plan.resample) {
                (Order::Random, false) => match replayed.next() {
                    Some(index) => (index, None),
                    None => break,
                },
                (Order::Random, true) => (rng.random_range(0..self.targets.len()), None),
                (Order::Adaptive, _) => {
                    let standing = monitor.standing();
                    let informativeness: Vec<f64> = (self.targets.iter())
                        .map(|target| match &standing {
                            Some(standing) => (standing.states.iter().enumerate())
                                .filter(|(_, state)| **state == State::Open)
                                .map(|(other, _)| {
                                    target.disagreement[standing.leader * count + other]
                                })
                                .fold(0.0, f64::max),
                            None => target.disagreement.iter().copied().fold(0.0, f64::max),
                        })
                        .collect();
                    let probabilities = adaptive_probabilities(&informativeness);
                    let index = draw(&probabilities, rng.random::<f64>());
                    let weight = 1.0 / (self.targets.len() as f64 * probabilities[index]);
                    (index, Some(weight))
                }
            };
            let (ndcg, cost) = self.targets[index].rated_with(&pooled, &self.settings);
            monitor
                .observe(&ndcg, weight)
                .expect("the study's values are NDCG and the weights the draws' own");
            ratings += cost;
            let standing = monitor.standing().expect("a target was observed");
            wrong |= best.iter().any(|&m| standing.states[m] == State::Out);
            if plan.prune {
                for model in standing.out() {
                    pooled[model] = false;
                }
            }
            if standing.decided() {
                let declared = (standing.states.iter().enumerate())
                    .filter(|(_, state)| matches!(state, State::Leader | State::Equivalent))
                    .map(|(model, _)| model);
                let margin = self.margin.get();
                wrong |= declared
                    .clone()
                    .any(|model| self.means[model] < top - margin - SAME_MEAN)
                    || (margin == 0.0 && best.len() > 1);
                return Outcome {
                    targets: step + 1,
                    ratings,
                    decided: true,
                    wrong,
                };
            }
        }
        Outcome {
            targets: monitor.targets(),
            ratings,
            decided: false,
            wrong,
        }
    }

    /// `seeds` simulated studies under `plan`, summarised; with pruning, beside each study the
    /// same draws without pruning, for the ratings pruning saved.
    pub fn simulate(&self, plan: Plan, seeds: std::ops::Range<u64>) -> Summary {
        let outcomes: Vec<(Outcome, Option<Outcome>)> = (seeds.into_par_iter())
            .map(|seed| {
                let outcome = self.run(plan, seed);
                let unpruned = plan.prune.then(|| {
                    self.run(
                        Plan {
                            prune: false,
                            ..plan
                        },
                        seed,
                    )
                });
                (outcome, unpruned)
            })
            .collect();
        Summary::of(plan, &outcomes)
    }
}

/// The index `u` (uniform in [0, 1)) falls on among `probabilities` laid end to end.
fn draw(probabilities: &[f64], u: f64) -> usize {
    let mut cumulative = 0.0;
    for (index, p) in probabilities.iter().enumerate() {
        cumulative += p;
        if u < cumulative {
            return index;
        }
    }
    probabilities.len() - 1
}

/// How one simulated study ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Targets rated up to the decision (all of the study's when none came).
    pub targets: usize,
    pub ratings: usize,
    pub decided: bool,
    /// A best model was ruled out, or the decision named a model that is not best (or, with
    /// a margin, not within it of the best).
    pub wrong: bool,
}

/// The simulated studies of one plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub order: Order,
    pub prune: bool,
    pub resample: bool,
    pub runs: usize,
    /// Studies that reached a decision within their targets.
    pub decided: usize,
    /// Ratings to the decision (or to the end), median and 90th percentile (nearest rank).
    pub ratings_median: usize,
    pub ratings_p90: usize,
    pub targets_median: usize,
    pub targets_p90: usize,
    /// Studies whose decision was wrong.
    pub wrong: usize,
    pub wrong_rate: f64,
    /// With pruning: the median, over the studies, of the ratings the same draws took without
    /// pruning less those they took with it; `None` without pruning.
    pub ratings_saved_median: Option<i64>,
}

impl Summary {
    fn of(plan: Plan, outcomes: &[(Outcome, Option<Outcome>)]) -> Summary {
        let ratings: Vec<i64> = outcomes.iter().map(|(o, _)| o.ratings as i64).collect();
        let targets: Vec<i64> = outcomes.iter().map(|(o, _)| o.targets as i64).collect();
        let saved: Vec<i64> = (outcomes.iter())
            .filter_map(|(pruned, unpruned)| {
                unpruned.map(|unpruned| unpruned.ratings as i64 - pruned.ratings as i64)
            })
            .collect();
        let wrong = outcomes.iter().filter(|(o, _)| o.wrong).count();
        Summary {
            order: plan.order,
            prune: plan.prune,
            resample: plan.resample,
            runs: outcomes.len(),
            decided: outcomes.iter().filter(|(o, _)| o.decided).count(),
            ratings_median: nearest_rank(&ratings, 0.5) as usize,
            ratings_p90: nearest_rank(&ratings, 0.9) as usize,
            targets_median: nearest_rank(&targets, 0.5) as usize,
            targets_p90: nearest_rank(&targets, 0.9) as usize,
            wrong,
            wrong_rate: if outcomes.is_empty() {
                0.0
            } else {
                wrong as f64 / outcomes.len() as f64
            },
            ratings_saved_median: plan.prune.then(|| nearest_rank(&saved, 0.5)),
        }
    }
}

/// The smallest value with at least share `p` of the values at or below it; 0 for none.
fn nearest_rank(values: &[i64], p: f64) -> i64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.max(1) - 1).copied().unwrap_or(0)
}

/// The summaries as the terminal table of `paperjudge simulate`.
pub fn table(replay: &Replay, targets: usize, summaries: &[Summary]) -> String {
    let mut text = format!(
        "{} fully rated targets, {} ratings; best mean over them: {}; {targets} targets per \
         simulated study\n",
        replay.targets(),
        replay.ratings(),
        replay.leader().unwrap_or("none (a tie)")
    );
    let header = [
        "order", "draws", "prune", "runs", "decided", "ratings", "p90", "targets", "p90", "wrong",
        "saved",
    ];
    let rows: Vec<[String; 11]> = (summaries.iter())
        .map(|s| {
            [
                s.order.as_str().to_owned(),
                if s.resample { "resampled" } else { "replayed" }.to_owned(),
                if s.prune { "on" } else { "off" }.to_owned(),
                s.runs.to_string(),
                s.decided.to_string(),
                s.ratings_median.to_string(),
                s.ratings_p90.to_string(),
                s.targets_median.to_string(),
                s.targets_p90.to_string(),
                format!("{} ({:.1}%)", s.wrong, 100.0 * s.wrong_rate),
                s.ratings_saved_median
                    .map_or_else(|| "-".to_owned(), |saved| saved.to_string()),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .fold(header[c].len(), usize::max)
        })
        .collect();
    let line = |cells: Vec<&str>| -> String {
        let padded: Vec<String> = (cells.iter().zip(&widths).enumerate())
            .map(|(c, (cell, &w))| {
                if c < 3 {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        padded.join("  ").trim_end().to_owned() + "\n"
    };
    text.push_str(&line(header.to_vec()));
    for row in &rows {
        text.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    text.push_str(
        "ratings and targets: to the first decision (all of them when none came), median and \
         90th percentile; wrong: a best model ruled out, or another declared best; saved: the \
         median of the ratings pruning saved on the same draws\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{PoolDepth, Stars};
    use crate::leaderboard::TargetInput;

    /// 40 targets; model a finds the relevant paper 1 at the top, b at the second place, c
    /// never (its own papers are unrated-as-irrelevant). With `gap` false, a and b both
    /// place it first.
    fn study(gap: bool) -> Collection<u32> {
        let targets = (0..40)
            .map(|t| TargetInput {
                target: format!("T{t}"),
                fully_rated: true,
                judgments: [(1, 5), (2, 1), (3, 1), (4, 2), (5, 1)]
                    .into_iter()
                    .map(|(paper, stars)| (paper, Stars::new(stars).unwrap().into()))
                    .collect(),
                lists: vec![
                    Some(vec![1, 2]),
                    Some(if gap { vec![2, 1] } else { vec![1, 3] }),
                    Some(vec![4, 5]),
                ],
                left_out: Vec::new(),
            })
            .collect();
        Collection::of(
            vec!["a".into(), "b".into(), "c".into()],
            targets,
            PoolDepth::new(2).unwrap(),
        )
    }

    fn replay(gap: bool) -> Replay {
        let settings = Settings {
            k: std::num::NonZeroUsize::new(2).unwrap(),
            ..Settings::default()
        };
        Replay::of(&study(gap), settings, Margin::NONE).unwrap()
    }

    const RANDOM: Plan = Plan {
        order: Order::Random,
        prune: false,
        resample: false,
        targets: 40,
    };

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(nearest_rank(&[5, 1, 4, 2, 3], 0.5), 3);
        assert_eq!(nearest_rank(&(1..=200).collect::<Vec<_>>(), 0.9), 180);
        assert_eq!(nearest_rank(&[], 0.5), 0);
    }

    #[test]
    fn a_clear_gap_is_decided_early_for_the_right_model() {
        let replay = replay(true);
        assert_eq!(replay.leader(), Some("a"));
        assert_eq!(replay.ratings(), 40 * 4);
        let outcome = replay.run(RANDOM, 7);
        assert!(outcome.decided && !outcome.wrong, "{outcome:?}");
        assert!(outcome.targets < 30, "{outcome:?}");
        assert_eq!(outcome.ratings, 4 * outcome.targets);
        assert_eq!(
            replay.run(RANDOM, 7),
            outcome,
            "the same seed replays the same"
        );
    }

    /// c is out first; with pruning its papers 4 and 5 leave the later pools, and the study
    /// ends with fewer ratings on the same draws.
    #[test]
    fn pruning_saves_the_ratings_of_a_model_out() {
        let replay = replay(true);
        let pruned = Plan {
            prune: true,
            ..RANDOM
        };
        let (with, without) = (replay.run(pruned, 3), replay.run(RANDOM, 3));
        assert!(with.decided && !with.wrong && without.decided);
        assert!(with.ratings < without.ratings, "{with:?} {without:?}");
        let summary = replay.simulate(pruned, 0..10);
        assert!(summary.ratings_saved_median.unwrap() > 0, "{summary:?}");
        assert_eq!(summary.wrong, 0);
    }

    #[test]
    fn a_tie_is_never_decided() {
        let replay = replay(false);
        assert_eq!(replay.leader(), None);
        let summary = replay.simulate(RANDOM, 0..5);
        assert_eq!(summary.decided, 0);
        assert_eq!(summary.ratings_median, 40 * 5);
        let text = table(&replay, 40, &[summary]);
        assert!(text.contains("none (a tie)"), "{text}");
    }

    #[test]
    fn plans_the_study_cannot_hold_are_refused() {
        let replay = replay(true);
        assert_eq!(
            replay.check(Plan {
                targets: 41,
                ..RANDOM
            }),
            Err(ReplayError::TooManyTargets {
                asked: 41,
                study: 40
            })
        );
        assert_eq!(
            replay.check(Plan {
                order: Order::Adaptive,
                ..RANDOM
            }),
            Err(ReplayError::AdaptiveNeedsResample)
        );
        let resampled = Plan {
            resample: true,
            targets: 400,
            ..RANDOM
        };
        assert_eq!(replay.check(resampled), Ok(()));
        let outcome = replay.run(resampled, 1);
        assert!(outcome.decided && outcome.targets < 400);
    }
}
