//! `paperjudge simulate`: a fully rated study replayed as if rated target by target, under
//! each order and many seeds, stopping at the first decision. How many ratings that took,
//! and how often the decided leader was not the leader on all targets, is what a researcher
//! plans a study with, and what shows whether the adaptive order earns its place. Pure: the
//! study in, the summaries out.

use std::collections::HashSet;
use std::hash::Hash;
use std::num::NonZeroUsize;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::decision::{adaptive_probabilities, list_disagreement, DecisionError, Monitor, Order};
use crate::leaderboard::{self, Collection, Partial};
use crate::metrics::Settings;

/// One fully rated target of the study replayed.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayTarget<K> {
    /// Each model's NDCG on it, in the order of [`Replay::new`]'s models.
    pub ndcg: Vec<Option<f64>>,
    /// The ratings it takes: its pooled pairs.
    pub ratings: usize,
    /// Each model's top k, best first (empty without a list).
    pub lists: Vec<Vec<K>>,
}

/// What a target costs and tells in a replay.
#[derive(Debug, Clone)]
struct Replayed {
    ndcg: Vec<Option<f64>>,
    ratings: usize,
}

/// A study ready to replay.
#[derive(Debug, Clone)]
pub struct Replay {
    models: Vec<String>,
    targets: Vec<Replayed>,
    /// disagreement[target][a * M + b]: how differently models a and b rank its top k.
    disagreement: Vec<Vec<f64>>,
    /// The model with the best mean NDCG over all targets (undefined counting 0, as in the
    /// verdict); `None` when two share it.
    leader: Option<usize>,
}

/// Why a study cannot be replayed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    #[error("a replay compares at least two models; the study has {0}")]
    Models(usize),
    #[error("the study has no fully rated target to replay")]
    NoTargets,
    #[error(transparent)]
    Values(#[from] DecisionError),
}

impl Replay {
    /// The fully rated targets of `study` as the leaderboard scores them under `settings`:
    /// each model's NDCG (from the scoring step), its top k, and the pooled pairs it took to
    /// rate (the papers in the top pool depth of any list).
    pub fn of<K: Copy + Eq + Hash + Sync>(
        collection: &Collection<K>,
        settings: Settings,
    ) -> Result<Replay, ReplayError> {
        if collection.models.len() < 2 {
            return Err(ReplayError::Models(collection.models.len()));
        }
        let scores = leaderboard::score(collection, settings, Partial::Exclude);
        if scores.evaluated.is_empty() {
            return Err(ReplayError::NoTargets);
        }
        let (k, pool_depth) = (settings.k.get(), collection.pool_depth.get() as usize);
        let targets = (scores.evaluated.iter().enumerate())
            .map(|(index, &position)| {
                let lists = &collection.targets[position].lists;
                let pooled: HashSet<&K> = (lists.iter().flatten())
                    .flat_map(|list| list.iter().take(pool_depth))
                    .collect();
                ReplayTarget {
                    ndcg: (scores.by_model.iter())
                        .map(|model| model[index].ndcg)
                        .collect(),
                    ratings: pooled.len(),
                    lists: (lists.iter())
                        .map(|list| list.iter().flatten().take(k).copied().collect())
                        .collect(),
                }
            })
            .collect();
        Replay::new(collection.models.clone(), targets, k)
    }

    /// The study of `targets` among `models` (at least two), lists compared at cutoff `k`.
    pub fn new<K: PartialEq>(
        models: Vec<String>,
        targets: Vec<ReplayTarget<K>>,
        k: usize,
    ) -> Result<Replay, ReplayError> {
        let count = models.len();
        if count < 2 {
            return Err(ReplayError::Models(count));
        }
        if targets.is_empty() {
            return Err(ReplayError::NoTargets);
        }
        // The verdict checks every value; one trial run finds bad input before any seed does.
        let mut check = Monitor::new(models.clone(), Order::Random, None);
        for target in &targets {
            check.observe(&target.ndcg, None)?;
        }
        let disagreement = (targets.iter())
            .map(|target| {
                (0..count * count)
                    .map(|pair| {
                        let (a, b) = (pair / count, pair % count);
                        list_disagreement(&target.lists[a], &target.lists[b], k)
                    })
                    .collect()
            })
            .collect();
        let means: Vec<f64> = (0..count)
            .map(|model| {
                (targets.iter())
                    .map(|target| target.ndcg[model].unwrap_or(0.0))
                    .sum::<f64>()
            })
            .collect();
        let best = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let at_best: Vec<usize> = (0..count).filter(|&m| means[m] == best).collect();
        Ok(Replay {
            leader: (at_best.len() == 1).then(|| at_best[0]),
            models,
            targets: (targets.into_iter())
                .map(|target| Replayed {
                    ndcg: target.ndcg,
                    ratings: target.ratings,
                })
                .collect(),
            disagreement,
        })
    }

    pub fn targets(&self) -> usize {
        self.targets.len()
    }

    /// Every pooled pair of the study: what rating it all takes.
    pub fn ratings(&self) -> usize {
        self.targets.iter().map(|target| target.ratings).sum()
    }

    /// The leader on all targets, if one model is best alone.
    pub fn leader(&self) -> Option<&str> {
        self.leader.map(|m| self.models[m].as_str())
    }

    /// One replay in `order`, the draws seeded by `seed`, up to the first decision.
    pub fn run(&self, order: Order, seed: u64) -> Outcome {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let count = self.models.len();
        let mut monitor = Monitor::new(
            self.models.clone(),
            order,
            NonZeroUsize::new(self.targets.len()),
        );
        let mut remaining: Vec<usize> = (0..self.targets.len()).collect();
        let mut ratings = 0;
        while !remaining.is_empty() {
            let (index, probability) = match order {
                Order::Random => (rng.random_range(0..remaining.len()), None),
                Order::Adaptive => {
                    let contenders = monitor.contenders();
                    let informativeness: Vec<f64> = (remaining.iter())
                        .map(|&target| {
                            let disagreement = &self.disagreement[target];
                            match &contenders {
                                Some((leader, open)) => (open.iter())
                                    .map(|&other| disagreement[leader * count + other])
                                    .fold(0.0, f64::max),
                                None => disagreement.iter().copied().fold(0.0, f64::max),
                            }
                        })
                        .collect();
                    let probabilities = adaptive_probabilities(&informativeness);
                    let index = draw(&probabilities, rng.random::<f64>());
                    (index, Some(probabilities[index]))
                }
            };
            let target = &self.targets[remaining.swap_remove(index)];
            monitor
                .observe(&target.ndcg, probability)
                .expect("the replay's values were checked and its draws are its own");
            ratings += target.ratings;
            if let Some((leader, open)) = monitor.contenders() {
                if open.is_empty() {
                    return Outcome {
                        targets: monitor.targets(),
                        ratings,
                        decided: true,
                        wrong: self.leader != Some(leader),
                    };
                }
            }
        }
        Outcome {
            targets: monitor.targets(),
            ratings,
            decided: false,
            wrong: false,
        }
    }

    /// `seeds` replays in each of `orders`, summarised.
    pub fn simulate(&self, orders: &[Order], seeds: std::ops::Range<u64>) -> Vec<Summary> {
        (orders.iter())
            .map(|&order| {
                let outcomes: Vec<Outcome> = (seeds.clone().into_par_iter())
                    .map(|seed| self.run(order, seed))
                    .collect();
                Summary::of(order, &outcomes)
            })
            .collect()
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

/// How one replay ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Targets rated up to the decision (all of them when none came).
    pub targets: usize,
    pub ratings: usize,
    pub decided: bool,
    /// Decided for another model than the leader on all targets.
    pub wrong: bool,
}

/// The replays of one order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub order: Order,
    pub runs: usize,
    /// Runs that reached a decision before the targets ran out.
    pub decided: usize,
    /// Ratings to the decision (or to the end), median and 90th percentile (nearest rank).
    pub ratings_median: usize,
    pub ratings_p90: usize,
    pub targets_median: usize,
    pub targets_p90: usize,
    /// Runs decided for another model than the leader on all targets.
    pub wrong: usize,
    pub wrong_rate: f64,
}

impl Summary {
    fn of(order: Order, outcomes: &[Outcome]) -> Summary {
        let ratings: Vec<usize> = outcomes.iter().map(|o| o.ratings).collect();
        let targets: Vec<usize> = outcomes.iter().map(|o| o.targets).collect();
        let wrong = outcomes.iter().filter(|o| o.wrong).count();
        Summary {
            order,
            runs: outcomes.len(),
            decided: outcomes.iter().filter(|o| o.decided).count(),
            ratings_median: nearest_rank(&ratings, 0.5),
            ratings_p90: nearest_rank(&ratings, 0.9),
            targets_median: nearest_rank(&targets, 0.5),
            targets_p90: nearest_rank(&targets, 0.9),
            wrong,
            wrong_rate: if outcomes.is_empty() {
                0.0
            } else {
                wrong as f64 / outcomes.len() as f64
            },
        }
    }
}

/// The smallest value with at least share `p` of the values at or below it; 0 for none.
fn nearest_rank(values: &[usize], p: f64) -> usize {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.max(1) - 1).copied().unwrap_or(0)
}

/// The summaries as the terminal table of `paperjudge simulate`.
pub fn table(replay: &Replay, summaries: &[Summary]) -> String {
    let mut text = format!(
        "{} fully rated targets, {} ratings; leader on all targets: {}\n",
        replay.targets(),
        replay.ratings(),
        replay.leader().unwrap_or("none (a tie)")
    );
    let header = [
        "order", "runs", "decided", "ratings", "p90", "targets", "p90", "wrong",
    ];
    let rows: Vec<[String; 8]> = (summaries.iter())
        .map(|s| {
            [
                s.order.as_str().to_owned(),
                s.runs.to_string(),
                s.decided.to_string(),
                s.ratings_median.to_string(),
                s.ratings_p90.to_string(),
                s.targets_median.to_string(),
                s.targets_p90.to_string(),
                format!("{} ({:.1}%)", s.wrong, 100.0 * s.wrong_rate),
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
                if c == 0 {
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
         90th percentile; wrong: decided for another model than the leader on all targets\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn study(gap: f64) -> Replay {
        let targets = (0..40)
            .map(|t| ReplayTarget {
                ndcg: vec![
                    Some(0.5 + gap),
                    Some(0.5),
                    Some(if t % 2 == 0 { 0.2 } else { 0.4 }),
                ],
                ratings: 10,
                lists: vec![vec![1, 2, 3], vec![1, 2, 4], vec![5, 6, 7]],
            })
            .collect();
        Replay::new(vec!["a".into(), "b".into(), "c".into()], targets, 3).unwrap()
    }

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(nearest_rank(&[5, 1, 4, 2, 3], 0.5), 3);
        assert_eq!(nearest_rank(&(1..=200).collect::<Vec<_>>(), 0.9), 180);
        assert_eq!(nearest_rank(&[], 0.5), 0);
    }

    #[test]
    fn a_clear_gap_is_decided_early_for_the_right_model() {
        let replay = study(0.3);
        assert_eq!(replay.leader(), Some("a"));
        let outcome = replay.run(Order::Random, 7);
        assert!(outcome.decided && !outcome.wrong, "{outcome:?}");
        assert!(outcome.targets < 30, "{outcome:?}");
        assert_eq!(outcome.ratings, 10 * outcome.targets);
        for order in [Order::Random, Order::Adaptive] {
            assert_eq!(
                replay.run(order, 7),
                replay.run(order, 7),
                "the same seed replays the same"
            );
        }
        // The importance weights widen the adaptive order's observations to ±2: on 40
        // targets it needs more of them than the random order (see BENCHMARKS.md).
        let adaptive = replay.run(Order::Adaptive, 7);
        assert!(
            !adaptive.wrong && adaptive.targets > outcome.targets,
            "{adaptive:?}"
        );
    }

    #[test]
    fn a_tie_is_never_decided() {
        let replay = study(0.0);
        assert_eq!(replay.leader(), None);
        let summaries = replay.simulate(&[Order::Random], 0..5);
        assert_eq!(summaries[0].decided, 0);
        assert_eq!(summaries[0].ratings_median, 400);
        assert!(table(&replay, &summaries).contains("none (a tie)"));
    }
}
