//! The anytime-valid verdict of a study (docs/metrics.md, "The verdict: when to stop"): which
//! model is best, with a guarantee that holds however often the researcher looks, and what is
//! still open. Pure: per-target NDCG in, a [`Decision`] out.
//!
//! Every pair of models (a, b) gets a confidence sequence for the mean over the study's
//! targets of d = NDCG(a) − NDCG(b), at level 1 − alpha / (M(M − 1)/2) so that all pairs hold
//! at once: the leader is chosen from the data and may change. The study is decided when one
//! model's sequences against every other lie above 0.
//!
//! Targets come in one of two orders. In the study's random order the rated targets are a
//! uniformly random sample, without replacement, of the targets to rate, and the sequence is
//! the betting one for sampling without replacement. In the adaptive order each target is
//! drawn with a known probability q among those not rated yet, and the sequence watches the
//! Horvitz-Thompson estimate (Σ of the seen d + d / q) / N, whose expectation given the past
//! is the mean over all N targets whatever the probabilities were: the importance weighting
//! that keeps the verdict valid however the order leans.
//!
//! A model whose NDCG on a target is undefined (nothing to find there) counts 0 on it, so
//! that every target enters every pair; where the whole target is undefined every difference
//! is 0, which leaves the sign of every mean, and so the verdict, as it was.

use std::num::NonZeroUsize;

use serde::Serialize;

use crate::metrics::{pairwise_alpha, Bounds, ConfidenceSequence};

/// The error rate of the verdict over all pairs at once.
pub const ALPHA: f64 = 0.05;

/// In the adaptive order, this share of the probability of the next draw is spread evenly
/// over the targets not rated yet. It keeps every probability at least this share of the
/// uniform one, so each importance-weighted observation stays within 1 / share of the mean's
/// range: the sequence needs known bounds.
pub const UNIFORM_SHARE: f64 = 0.5;

/// A sequence lies above 0 when its low end exceeds this: once every target is rated the
/// sequence is the exact mean, and rounding in its sum must not separate two tied models.
const ABOVE_ZERO: f64 = 1e-9;

/// How the targets to rate are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Uniformly random, fixed by the study.
    Random,
    /// Each next target drawn with probability leaning to where the leader and the models not
    /// yet separated from it recommend differently.
    Adaptive,
}

impl Order {
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Random => "random",
            Order::Adaptive => "adaptive",
        }
    }
}

/// Input the verdict cannot use; nothing was observed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecisionError {
    #[error("a target has {got} NDCG values for {models} models")]
    WrongLength { got: usize, models: usize },
    #[error("NDCG {0} is not within [0, 1]")]
    OutOfRange(f64),
    #[error("more targets observed than the {0} the study rates")]
    PopulationExceeded(usize),
    #[error("a target drawn in the adaptive order needs its probability (got {0:?})")]
    Probability(Option<f64>),
}

/// One pair's confidence sequence for the mean difference `first` − `second`.
#[derive(Debug, Clone)]
struct Pair {
    first: usize,
    second: usize,
    sequence: ConfidenceSequence,
    /// Σ d over the targets seen.
    seen: f64,
    /// Σ of what the sequence observed: d in the random order, the importance-weighted
    /// estimate in the adaptive one. Its average estimates the mean difference.
    observed: f64,
}

/// The verdict as it stands after the targets seen so far, fed one completed target at a
/// time in the order they were rated.
#[derive(Debug, Clone)]
pub struct Monitor {
    models: Vec<String>,
    order: Order,
    population: Option<NonZeroUsize>,
    pairs: Vec<Pair>,
    targets: usize,
}

impl Monitor {
    /// A verdict over `models` (at least two) at level 1 − [`ALPHA`]. `population` is the
    /// number of targets the study rates; the adaptive order needs it, the random one
    /// narrows with it (and without it treats the targets as a stream).
    ///
    /// # Panics
    /// With fewer than two models.
    pub fn new(models: Vec<String>, order: Order, population: Option<NonZeroUsize>) -> Monitor {
        let pair_alpha = pairwise_alpha(ALPHA, models.len());
        let (bounds, sequence_population) = match order {
            Order::Random => (Bounds::DIFFERENCE, population),
            // The estimate (Σ seen d + d / q) / N lies within ±1 / UNIFORM_SHARE: the seen
            // sum within ±(t − 1), d / q within ±(N − t + 1) / UNIFORM_SHARE.
            Order::Adaptive => (
                Bounds {
                    low: -1.0 / UNIFORM_SHARE,
                    high: 1.0 / UNIFORM_SHARE,
                },
                None,
            ),
        };
        let count = models.len();
        let pairs = (0..count)
            .flat_map(|first| (first + 1..count).map(move |second| (first, second)))
            .map(|(first, second)| Pair {
                first,
                second,
                sequence: ConfidenceSequence::new(bounds, pair_alpha, sequence_population),
                seen: 0.0,
                observed: 0.0,
            })
            .collect();
        Monitor {
            models,
            order,
            population,
            pairs,
            targets: 0,
        }
    }

    /// Takes the next completed target: each model's NDCG on it (`None` where undefined),
    /// and in the adaptive order the probability it was drawn with.
    pub fn observe(
        &mut self,
        ndcg: &[Option<f64>],
        probability: Option<f64>,
    ) -> Result<(), DecisionError> {
        if ndcg.len() != self.models.len() {
            return Err(DecisionError::WrongLength {
                got: ndcg.len(),
                models: self.models.len(),
            });
        }
        if let Some(bad) = ndcg.iter().flatten().find(|v| !(0.0..=1.0).contains(*v)) {
            return Err(DecisionError::OutOfRange(*bad));
        }
        if let Some(population) = self.population {
            if self.targets >= population.get() {
                return Err(DecisionError::PopulationExceeded(population.get()));
            }
        }
        let weight = match self.order {
            Order::Random => None,
            Order::Adaptive => {
                let population = self.population.map_or(0, NonZeroUsize::get);
                let remaining = (population - self.targets) as f64;
                // Below the floor the estimate could leave its bounds (a small tolerance for
                // the rounding of the probabilities' sum).
                let floor = UNIFORM_SHARE / remaining * (1.0 - 1e-9);
                match probability {
                    Some(q) if population > 0 && q >= floor && q <= 1.0 => {
                        Some((q, population as f64))
                    }
                    _ => return Err(DecisionError::Probability(probability)),
                }
            }
        };
        let value = |model: usize| ndcg[model].unwrap_or(0.0);
        for pair in &mut self.pairs {
            let difference = value(pair.first) - value(pair.second);
            let observation = match weight {
                None => difference,
                Some((q, population)) => ((pair.seen + difference / q) / population)
                    .clamp(-1.0 / UNIFORM_SHARE, 1.0 / UNIFORM_SHARE),
            };
            pair.sequence.observe(observation);
            pair.seen += difference;
            pair.observed += observation;
        }
        self.targets += 1;
        Ok(())
    }

    /// How many targets were observed.
    pub fn targets(&self) -> usize {
        self.targets
    }

    /// The sequence of `a` − `b`, as (estimate, low, high).
    fn between(&self, a: usize, b: usize) -> (f64, f64, f64) {
        let (first, second, sign) = if a < b { (a, b, 1.0) } else { (b, a, -1.0) };
        let pair = (self.pairs.iter())
            .find(|pair| pair.first == first && pair.second == second)
            .expect("every pair of models has a sequence");
        let estimate = if self.targets == 0 {
            0.0
        } else {
            pair.observed / self.targets as f64
        };
        let interval = pair.sequence.interval();
        if sign > 0.0 {
            (estimate, interval.low, interval.high)
        } else {
            (-estimate, -interval.high, -interval.low)
        }
    }

    /// The model every sequence puts above all others, if there is one.
    fn separated_leader(&self) -> Option<usize> {
        (0..self.models.len()).find(|&a| {
            (0..self.models.len())
                .filter(|&b| b != a)
                .all(|b| self.between(a, b).1 > ABOVE_ZERO)
        })
    }

    /// The leader (decided, or the model with the best estimated mean, ties by name) and the
    /// models whose sequence against it still reaches 0; `None` before the first target.
    pub fn contenders(&self) -> Option<(usize, Vec<usize>)> {
        if self.targets == 0 {
            return None;
        }
        let leader = self.separated_leader().unwrap_or_else(|| {
            // Σ_b (a − b) orders the models as their estimated means do.
            let score = |a: usize| -> f64 {
                (0..self.models.len())
                    .filter(|&b| b != a)
                    .map(|b| self.between(a, b).0)
                    .sum()
            };
            (0..self.models.len())
                .max_by(|&a, &b| {
                    score(a)
                        .total_cmp(&score(b))
                        .then_with(|| self.models[b].cmp(&self.models[a]))
                })
                .expect("at least two models")
        });
        let open = (0..self.models.len())
            .filter(|&b| b != leader && self.between(b, leader).2 >= -ABOVE_ZERO)
            .collect();
        Some((leader, open))
    }

    /// The verdict now.
    pub fn decision(&self) -> Decision {
        let level = 1.0 - ALPHA;
        let Some((leader, open)) = self.contenders() else {
            return Decision {
                level,
                decided: false,
                leader: None,
                open: self.models.clone(),
                sequences: Vec::new(),
                targets_rated: 0,
                targets_estimate: None,
                models: self.models.len(),
                separating: None,
            };
        };
        let mut sequences: Vec<Sequence> = (0..self.models.len())
            .filter(|&b| b != leader)
            .map(|b| {
                let (difference, low, high) = self.between(b, leader);
                Sequence {
                    model: self.models[b].clone(),
                    difference,
                    low,
                    high,
                }
            })
            .collect();
        sequences.sort_by(|x, y| {
            (y.difference.total_cmp(&x.difference)).then_with(|| x.model.cmp(&y.model))
        });
        let estimate = self.targets_estimate(leader, &open);
        let open_names: Vec<&String> = open.iter().map(|&b| &self.models[b]).collect();
        Decision {
            level,
            decided: open.is_empty(),
            leader: Some(self.models[leader].clone()),
            // Closest to the leader first, as the sequences are.
            open: (sequences.iter())
                .filter(|sequence| open_names.contains(&&sequence.model))
                .map(|sequence| sequence.model.clone())
                .collect(),
            sequences,
            targets_rated: self.targets,
            targets_estimate: estimate.map(|(targets, _)| targets),
            models: self.models.len(),
            separating: estimate.and_then(|(_, difference)| difference),
        }
    }

    /// About how many more targets would separate every open model from the leader, and the
    /// difference that needs them: each interval narrows about as 1/√n, so one of
    /// half-width h after t targets reaches |d| after t (h / |d|)². In the random order all
    /// targets rated pin every mean, so the count is at most the targets left (and then no
    /// difference is named: rating them all settles it).
    fn targets_estimate(&self, leader: usize, open: &[usize]) -> Option<(usize, Option<f64>)> {
        if open.is_empty() || self.targets < 2 {
            return None;
        }
        let left = (self.population).map(|n| n.get().saturating_sub(self.targets));
        let t = self.targets as f64;
        let mut worst: Option<(usize, Option<f64>)> = None;
        for &b in open {
            let (difference, low, high) = self.between(b, leader);
            let half_width = (high - low) / 2.0;
            let needed = if difference == 0.0 {
                None
            } else {
                let total = t * (half_width / difference).powi(2);
                Some((total - t).ceil().clamp(1.0, 1e9) as usize)
            };
            let needed = match (needed, left, self.order) {
                (Some(needed), Some(left), Order::Random) if needed < left => {
                    (needed, Some(difference.abs()))
                }
                (_, Some(left), Order::Random) => (left, None),
                (needed, _, _) => (needed?, Some(difference.abs())),
            };
            if worst.is_none_or(|(most, _)| needed.0 > most) {
                worst = Some(needed);
            }
        }
        worst.filter(|&(needed, _)| needed > 0)
    }
}

/// The leader against one other model: the mean of the other's NDCG minus the leader's, and
/// its confidence sequence now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sequence {
    pub model: String,
    pub difference: f64,
    pub low: f64,
    pub high: f64,
}

/// The verdict: the `decision` of the leaderboard JSON (README.md, "Knowing when to stop").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// 1 − alpha, for all pairs at once.
    pub level: f64,
    /// Every other model's sequence against the leader lies below 0.
    pub decided: bool,
    /// `None` before the first target.
    pub leader: Option<String>,
    /// The models not separated from the leader yet.
    pub open: Vec<String>,
    /// Every other model against the leader, closest first.
    pub sequences: Vec<Sequence>,
    pub targets_rated: usize,
    /// About how many more targets would separate the open models; `None` when decided or
    /// when there is no telling yet.
    pub targets_estimate: Option<usize>,
    #[serde(skip)]
    models: usize,
    /// The smallest difference `targets_estimate` would separate.
    #[serde(skip)]
    separating: Option<f64>,
}

impl Decision {
    /// The verdict in a sentence or two, as the dashboard and the leaderboard say it.
    pub fn in_words(&self) -> String {
        let percent = format!("{}%", (self.level * 100.0).round());
        let targets = |count: usize| {
            if count == 1 {
                "1 target".to_owned()
            } else {
                format!("{count} targets")
            }
        };
        let Some(leader) = &self.leader else {
            return format!(
                "No target is fully rated yet: the verdict ({percent} confidence, valid \
                 however often you look) starts with the first."
            );
        };
        if self.decided {
            return format!(
                "{leader} is the best of the {} models at {percent} confidence after {}; you \
                 can stop.",
                self.models,
                targets(self.targets_rated)
            );
        }
        let mut contenders = vec![leader.as_str()];
        contenders.extend(self.open.iter().map(String::as_str));
        let names = match contenders.split_last() {
            Some((last, rest)) if !rest.is_empty() => {
                format!("{} and {last}", rest.join(", "))
            }
            _ => leader.clone(),
        };
        let mut text = format!(
            "{names} are not separated yet at {percent} confidence after {}",
            targets(self.targets_rated)
        );
        match (self.targets_estimate, self.separating) {
            (Some(more), Some(difference)) => text.push_str(&format!(
                "; at the current rate about {more} more {} would separate a difference of \
                 {difference:.2}.",
                if more == 1 { "target" } else { "targets" },
            )),
            (Some(1), None) => text.push_str("; rating the last target would settle it."),
            (Some(more), None) => text.push_str(&format!(
                "; rating the {more} targets left would settle it."
            )),
            (None, _) => text.push('.'),
        }
        text
    }
}

/// The verdict over `ndcg[target][model]` in the order the targets were completed, in the
/// study's random order among `population` targets.
pub fn decide(
    models: Vec<String>,
    ndcg: &[Vec<Option<f64>>],
    population: Option<NonZeroUsize>,
) -> Result<Option<Decision>, DecisionError> {
    if models.len() < 2 {
        return Ok(None);
    }
    let mut monitor = Monitor::new(models, Order::Random, population);
    for target in ndcg {
        monitor.observe(target, None)?;
    }
    Ok(Some(monitor.decision()))
}

/// How differently two models rank the top `k` of a target, from 0 (the same papers in the
/// same order, which cannot tell the two apart) to 1 (nothing in the same place): the
/// positions that differ, each weighted by its NDCG discount 1 / log2(i + 1).
pub fn list_disagreement<K: PartialEq>(a: &[K], b: &[K], k: usize) -> f64 {
    let mut differing = 0.0;
    let mut total = 0.0;
    for position in 0..k {
        let discount = 1.0 / ((position + 2) as f64).log2();
        total += discount;
        if a.get(position) != b.get(position) {
            differing += discount;
        }
    }
    if total == 0.0 {
        0.0
    } else {
        differing / total
    }
}

/// The adaptive order's probability of drawing each target not rated yet, given how much
/// each can tell the contenders apart (`informativeness`, each in [0, 1]): a share
/// [`UNIFORM_SHARE`] spread evenly, the rest in proportion to the informativeness (evenly
/// too where no target is informative).
pub fn adaptive_probabilities(informativeness: &[f64]) -> Vec<f64> {
    let count = informativeness.len() as f64;
    let total: f64 = informativeness.iter().map(|u| u.max(0.0)).sum();
    (informativeness.iter())
        .map(|u| {
            let leaning = if total > 0.0 {
                u.max(0.0) / total
            } else {
                1.0 / count
            };
            UNIFORM_SHARE / count + (1.0 - UNIFORM_SHARE) * leaning
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(count: usize) -> Vec<String> {
        (0..count).map(|m| format!("m{m}")).collect()
    }

    #[test]
    fn fewer_than_two_models_have_no_verdict() {
        assert_eq!(decide(names(1), &[vec![Some(0.5)]], None), Ok(None));
    }

    #[test]
    fn before_any_target_everything_is_open() {
        let decision = decide(names(3), &[], NonZeroUsize::new(10))
            .unwrap()
            .unwrap();
        assert_eq!(decision.leader, None);
        assert!(!decision.decided);
        assert_eq!(decision.open, names(3));
        assert!(decision
            .in_words()
            .starts_with("No target is fully rated yet"));
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let mut monitor = Monitor::new(names(2), Order::Random, NonZeroUsize::new(1));
        assert_eq!(
            monitor.observe(&[Some(0.5)], None),
            Err(DecisionError::WrongLength { got: 1, models: 2 })
        );
        assert!(matches!(
            monitor.observe(&[Some(f64::NAN), Some(0.5)], None),
            Err(DecisionError::OutOfRange(value)) if value.is_nan()
        ));
        assert_eq!(
            monitor.observe(&[Some(1.5), Some(0.5)], None),
            Err(DecisionError::OutOfRange(1.5))
        );
        monitor.observe(&[Some(0.5), None], None).unwrap();
        assert_eq!(
            monitor.observe(&[Some(0.5), None], None),
            Err(DecisionError::PopulationExceeded(1))
        );
        let mut adaptive = Monitor::new(names(2), Order::Adaptive, NonZeroUsize::new(4));
        assert_eq!(
            adaptive.observe(&[Some(0.5), None], None),
            Err(DecisionError::Probability(None))
        );
        // Below half the uniform 1/4 the estimate could leave its bounds.
        assert_eq!(
            adaptive.observe(&[Some(0.5), None], Some(0.1)),
            Err(DecisionError::Probability(Some(0.1)))
        );
        assert_eq!(adaptive.observe(&[Some(0.5), None], Some(0.125)), Ok(()));
    }

    /// All targets rated pin every mean: the model best on average is decided.
    #[test]
    fn a_fully_rated_study_is_decided_for_its_best_model() {
        let ndcg: Vec<Vec<Option<f64>>> = (0..6)
            .map(|t| vec![Some(0.5), Some(0.4 + 0.01 * t as f64), None])
            .collect();
        let decision = decide(names(3), &ndcg, NonZeroUsize::new(6))
            .unwrap()
            .unwrap();
        assert!(decision.decided);
        assert_eq!(decision.leader.as_deref(), Some("m0"));
        assert_eq!(decision.open, Vec::<String>::new());
        assert_eq!(decision.targets_estimate, None);
        let m1 = &decision.sequences[0];
        assert_eq!(m1.model, "m1");
        assert!((m1.difference - (-0.075)).abs() < 1e-12);
        assert!((m1.low - m1.difference).abs() < 1e-12 && (m1.high - m1.difference).abs() < 1e-12);
        assert_eq!(
            decision.in_words(),
            "m0 is the best of the 3 models at 95% confidence after 6 targets; you can stop."
        );
    }

    /// Far from the end of a large study the estimate scales the interval: half-width h
    /// after t targets reaches the difference d after t (h / d)².
    #[test]
    fn an_open_verdict_estimates_the_targets_still_needed() {
        let ndcg: Vec<Vec<Option<f64>>> = (0..10)
            .map(|t| vec![Some(0.6), Some(if t % 2 == 0 { 0.45 } else { 0.65 })])
            .collect();
        let decision = decide(names(2), &ndcg, NonZeroUsize::new(1000))
            .unwrap()
            .unwrap();
        assert!(!decision.decided);
        assert_eq!(decision.open, ["m1"]);
        let sequence = &decision.sequences[0];
        assert!((sequence.difference - (-0.05)).abs() < 1e-12);
        let half_width = (sequence.high - sequence.low) / 2.0;
        let more = (10.0 * (half_width / 0.05).powi(2) - 10.0).ceil() as usize;
        assert_eq!(decision.targets_estimate, Some(more));
        assert_eq!(
            decision.in_words(),
            format!(
                "m0 and m1 are not separated yet at 95% confidence after 10 targets; at the \
                 current rate about {more} more targets would separate a difference of 0.05."
            )
        );
    }

    #[test]
    fn identical_lists_do_not_disagree() {
        assert_eq!(list_disagreement(&[1, 2, 3], &[1, 2, 3], 3), 0.0);
        assert_eq!(list_disagreement(&[1, 2, 3], &[4, 5, 6], 3), 1.0);
        // Only the first place differs: its discount 1 of 1 + 1/log2 3 + 1/2.
        let first = 1.0 / (1.0 + 1.0 / 3f64.log2() + 0.5);
        assert!((list_disagreement(&[1, 2, 3], &[9, 2, 3], 3) - first).abs() < 1e-15);
        assert_eq!(list_disagreement(&[1, 2], &[1, 2, 3], 2), 0.0);
    }

    #[test]
    fn adaptive_probabilities_sum_to_one_and_keep_the_floor() {
        let probabilities = adaptive_probabilities(&[0.0, 1.0, 0.5, 0.5]);
        assert!((probabilities.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert_eq!(probabilities, [0.125, 0.375, 0.25, 0.25]);
        assert_eq!(adaptive_probabilities(&[0.0, 0.0]), [0.5, 0.5]);
    }
}
