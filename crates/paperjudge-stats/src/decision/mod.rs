//! The anytime-valid verdict of a study (docs/metrics.md, "The verdict"): which model
//! recommends best for the library the targets stand for, with a guarantee that holds however
//! often the researcher looks; which models are out; and how far each model still open can be
//! from the leader. Pure: per-target NDCG in, a [`Decision`] out.
//!
//! The rated targets are independent draws from the library (they were chosen without looking
//! at the models' lists, and are rated in the study's random order), so each model's
//! per-target NDCG is an independent draw too. Every pair of models (a, b) gets a confidence
//! sequence for the mean of d = NDCG(a) − NDCG(b) over that population, at level
//! 1 − alpha / (M(M − 1)/2) so that all pairs hold at once: the leader is chosen from the data
//! and may change. Rating every chosen target never pins that mean, so a study that cannot
//! tell two models apart says so however many targets it rated.
//!
//! A model ruled out may be pruned from the pools built afterwards (`paperjudge prune`); on a
//! target whose pool left it out it has no NDCG, and every pair with it skips that target:
//! which targets skip is decided before they are rated, so each pair still sees independent
//! draws. A model whose NDCG on a target is undefined (nothing to find there) counts 0 on it.
//!
//! `paperjudge simulate --order adaptive` draws each next target with replacement, leaning to
//! targets where the contenders' lists differ, and weighs each difference by the inverse of
//! its probability ([`Monitor::observe`]'s `weight`), so that every observation still has the
//! population's mean as its expectation.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use serde::{Serialize, Serializer};

use crate::metrics::{pairwise_alpha, Bounds, ConfidenceSequence, Interval};

mod words;

/// The error rate of the verdict over all pairs at once.
pub const ALPHA: f64 = 0.05;

/// In the adaptive order, this share of the probability of the next draw is spread evenly
/// over the targets. It keeps every probability at least this share of the uniform one, so
/// each importance-weighted observation stays within 1 / share of the difference's range: the
/// sequence needs known bounds.
pub const UNIFORM_SHARE: f64 = 0.5;

/// A sequence lies above 0 when its low end exceeds this, so that the rounding of a grid
/// point that is exactly 0 never separates two models.
const ABOVE_ZERO: f64 = 1e-9;

/// The most targets an estimate looks ahead: far more than anyone rates for one study.
const ESTIMATE_LIMIT: usize = 10_000;

/// How the targets to rate are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Uniformly random, fixed by the study.
    Random,
    /// Each next target drawn with replacement, with probability leaning to where the leader
    /// and the models not yet separated from it recommend differently (`simulate` only).
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

/// How close to the leader a model must be shown to be to count as equivalent: the verdict's
/// `--margin` (`?margin=`), 0 for none. A distance in NDCG, in [0, 1).
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd)]
pub struct Margin(f64);

impl Margin {
    pub const NONE: Margin = Margin(0.0);

    pub fn get(self) -> f64 {
        self.0
    }
}

impl Eq for Margin {}

impl Hash for Margin {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // A margin is finite and never −0: equal margins have equal bits.
        self.0.to_bits().hash(state);
    }
}

impl FromStr for Margin {
    type Err = String;

    fn from_str(text: &str) -> Result<Margin, String> {
        let refuse = || {
            format!("margin must be a difference in NDCG from 0 to below 1, such as 0.02 (got {text:?})")
        };
        let value: f64 = text.trim().parse().map_err(|_| refuse())?;
        if !(0.0..1.0).contains(&value) {
            return Err(refuse());
        }
        // 0.0 + value turns −0 into 0.
        Ok(Margin(0.0 + value))
    }
}

impl fmt::Display for Margin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Serialize for Margin {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.0)
    }
}

/// The targets still to come: the chosen ones not fully rated yet, and the papers with
/// recommendations that could still be chosen (0 while the study rates every one).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TargetsAhead {
    pub left: usize,
    pub choosable: usize,
}

/// Input the verdict cannot use; nothing was observed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecisionError {
    #[error("a target has {got} NDCG values for {models} models")]
    WrongLength { got: usize, models: usize },
    #[error("NDCG {0} is not within [0, 1]")]
    OutOfRange(f64),
    #[error("a target drawn in the adaptive order needs its weight, 1 / (targets × probability), at most {max} (got {got:?})", max = 1.0 / UNIFORM_SHARE)]
    Weight { got: Option<f64> },
}

/// One pair's confidence sequence for the mean difference `first` − `second`.
#[derive(Debug, Clone)]
struct Pair {
    first: usize,
    second: usize,
    sequence: ConfidenceSequence,
    /// Σ of what the sequence observed, Σ of its squares, and how many: the mean and spread
    /// seen so far.
    observed: f64,
    squares: f64,
    count: usize,
}

/// The verdict as it stands after the targets seen so far, fed one completed target at a
/// time in the order they were rated.
#[derive(Debug, Clone)]
pub struct Monitor {
    models: Vec<String>,
    order: Order,
    margin: Margin,
    pairs: Vec<Pair>,
    targets: usize,
}

/// One pair seen from `a`: the mean of `a` − `b` estimated, and its sequence now.
#[derive(Debug, Clone, Copy)]
struct Between {
    estimate: f64,
    interval: Interval,
    count: usize,
}

impl Monitor {
    /// A verdict over `models` (at least two) at level 1 − [`ALPHA`], an open model within
    /// `margin` of the leader counting as equivalent to it.
    ///
    /// # Panics
    /// With fewer than two models.
    pub fn new(models: Vec<String>, order: Order, margin: Margin) -> Monitor {
        let pair_alpha = pairwise_alpha(ALPHA, models.len());
        let bounds = match order {
            Order::Random => Bounds::DIFFERENCE,
            // A difference weighted by at most 1 / UNIFORM_SHARE.
            Order::Adaptive => Bounds {
                low: -1.0 / UNIFORM_SHARE,
                high: 1.0 / UNIFORM_SHARE,
            },
        };
        let count = models.len();
        let pairs = (0..count)
            .flat_map(|first| (first + 1..count).map(move |second| (first, second)))
            .map(|(first, second)| Pair {
                first,
                second,
                sequence: ConfidenceSequence::new(bounds, pair_alpha),
                observed: 0.0,
                squares: 0.0,
                count: 0,
            })
            .collect();
        Monitor {
            models,
            order,
            margin,
            pairs,
            targets: 0,
        }
    }

    /// Takes the next completed target: each model's NDCG on it (an undefined NDCG given as
    /// 0), `None` for a model its pool left out (every pair with that model skips the
    /// target). In the adaptive order `weight` is 1 / (R q), q the probability the target
    /// was drawn with among the R targets of the population.
    pub fn observe(
        &mut self,
        ndcg: &[Option<f64>],
        weight: Option<f64>,
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
        let weight = match (self.order, weight) {
            (Order::Random, None) => 1.0,
            // Rounding of the probabilities' sum may put a weight a hair above its bound.
            (Order::Adaptive, Some(w)) if w > 0.0 && w <= (1.0 / UNIFORM_SHARE) * (1.0 + 1e-9) => w,
            (_, got) => return Err(DecisionError::Weight { got }),
        };
        let limit = 1.0 / UNIFORM_SHARE;
        for pair in &mut self.pairs {
            let (Some(first), Some(second)) = (ndcg[pair.first], ndcg[pair.second]) else {
                continue;
            };
            let observation = match self.order {
                Order::Random => first - second,
                Order::Adaptive => ((first - second) * weight).clamp(-limit, limit),
            };
            pair.sequence.observe(observation);
            pair.observed += observation;
            pair.squares += observation * observation;
            pair.count += 1;
        }
        self.targets += 1;
        Ok(())
    }

    /// How many targets were observed.
    pub fn targets(&self) -> usize {
        self.targets
    }

    /// The sequence of `a` − `b`.
    fn between(&self, a: usize, b: usize) -> Between {
        let (first, second, flip) = if a < b { (a, b, false) } else { (b, a, true) };
        let pair = (self.pairs.iter())
            .find(|pair| pair.first == first && pair.second == second)
            .expect("every pair of models has a sequence");
        let estimate = match pair.count {
            0 => 0.0,
            count => pair.observed / count as f64,
        };
        let interval = pair.sequence.interval();
        if flip {
            Between {
                estimate: -estimate,
                interval: Interval {
                    low: -interval.high,
                    high: -interval.low,
                },
                count: pair.count,
            }
        } else {
            Between {
                estimate,
                interval,
                count: pair.count,
            }
        }
    }

    /// The confidence sequence of model `a` − model `b` now (by their positions).
    ///
    /// # Panics
    /// When `a` or `b` is not a model's position, or they are the same.
    pub fn interval(&self, a: usize, b: usize) -> Interval {
        assert!(a != b, "a model has no sequence against itself");
        self.between(a, b).interval
    }

    /// Whether some other model is better than `b` at the level: b is not the best.
    fn is_out(&self, b: usize) -> bool {
        (0..self.models.len()).any(|a| a != b && self.between(a, b).interval.low > ABOVE_ZERO)
    }

    /// The leader and the state of every other model; `None` before the first target.
    pub fn standing(&self) -> Option<Standing> {
        if self.targets == 0 {
            return None;
        }
        let count = self.models.len();
        let out: Vec<bool> = (0..count).map(|b| self.is_out(b)).collect();
        // The leader: the model every sequence puts above all others if there is one (it is
        // the only model not out), else the best estimated mean among the models not out
        // (Σ_b (a − b) orders them as their means do), ties by name.
        let candidates: Vec<usize> = match (0..count).filter(|&m| !out[m]).collect::<Vec<_>>() {
            none if none.is_empty() => (0..count).collect(),
            some => some,
        };
        let score = |a: usize| -> f64 {
            (candidates.iter())
                .filter(|&&b| b != a)
                .map(|&b| self.between(a, b).estimate)
                .sum()
        };
        let leader = (candidates.iter().copied())
            .max_by(|&a, &b| {
                score(a)
                    .total_cmp(&score(b))
                    .then_with(|| self.models[b].cmp(&self.models[a]))
            })
            .expect("at least two models");
        let margin = self.margin.get();
        let states = (0..count)
            .map(|b| {
                if b == leader {
                    State::Leader
                } else if out[b] {
                    State::Out
                } else {
                    let interval = self.between(b, leader).interval;
                    if margin > 0.0 && interval.low > -margin && interval.high < margin {
                        State::Equivalent
                    } else {
                        State::Open
                    }
                }
            })
            .collect();
        Some(Standing { leader, states })
    }

    /// The verdict now, with the targets still to come.
    pub fn decision(&self, ahead: TargetsAhead) -> Decision {
        let level = 1.0 - ALPHA;
        let Some(Standing { leader, states }) = self.standing() else {
            return Decision {
                level,
                decided: false,
                leader: None,
                margin: self.margin,
                open: self.models.clone(),
                equivalent: Vec::new(),
                out: Vec::new(),
                sequences: Vec::new(),
                targets_rated: 0,
                targets_left: ahead.left,
                targets_estimate: None,
                models: self.models.len(),
                choosable: ahead.choosable,
                beyond: None,
            };
        };
        let mut sequences: Vec<(Sequence, State)> = (0..self.models.len())
            .filter(|&b| b != leader)
            .map(|b| {
                let between = self.between(b, leader);
                let sequence = Sequence {
                    model: self.models[b].clone(),
                    difference: between.estimate,
                    low: between.interval.low,
                    high: between.interval.high,
                    targets: between.count,
                };
                (sequence, states[b])
            })
            .collect();
        sequences.sort_by(|(x, _), (y, _)| {
            (y.difference.total_cmp(&x.difference)).then_with(|| x.model.cmp(&y.model))
        });
        let named = |wanted: State| -> Vec<String> {
            (sequences.iter())
                .filter(|(_, state)| *state == wanted)
                .map(|(sequence, _)| sequence.model.clone())
                .collect()
        };
        let (open, equivalent, out) = (
            named(State::Open),
            named(State::Equivalent),
            named(State::Out),
        );
        let open_positions: Vec<usize> = (0..self.models.len())
            .filter(|&b| states[b] == State::Open)
            .collect();
        let estimate = self.targets_estimate(leader, &open_positions);
        Decision {
            level,
            decided: open.is_empty(),
            leader: Some(self.models[leader].clone()),
            margin: self.margin,
            open,
            equivalent,
            out,
            sequences: sequences
                .into_iter()
                .map(|(sequence, _)| sequence)
                .collect(),
            targets_rated: self.targets,
            targets_left: ahead.left,
            targets_estimate: estimate.clone().ok().flatten(),
            models: self.models.len(),
            choosable: ahead.choosable,
            beyond: estimate.err(),
        }
    }

    /// About how many more fully rated targets would settle every open model (separate it
    /// from the leader, or with a margin show it equivalent), if the targets to come differ as
    /// those seen did: each open pair's own sequence, continued from where it is, is fed
    /// differences alternating one standard deviation either side of the mean seen, until it
    /// settles. `Err` names an open model that would not settle within [`ESTIMATE_LIMIT`]
    /// targets (as one that scores exactly like the leader never does without a margin).
    fn targets_estimate(&self, leader: usize, open: &[usize]) -> Result<Option<usize>, String> {
        let margin = self.margin.get();
        let mut most = None;
        for &b in open {
            let (first, second) = (b.min(leader), b.max(leader));
            let pair = (self.pairs.iter())
                .find(|pair| pair.first == first && pair.second == second)
                .expect("every pair of models has a sequence");
            let settled = |interval: Interval| {
                interval.low > ABOVE_ZERO
                    || interval.high < -ABOVE_ZERO
                    || (margin > 0.0 && interval.low > -margin && interval.high < margin)
            };
            match pair.targets_to_settle(settled) {
                Some(more) => most = Some(most.map_or(more, |most: usize| most.max(more))),
                None => return Err(self.models[b].clone()),
            }
        }
        Ok(most)
    }
}

impl Pair {
    /// How many more rated targets the pair's sequence, continued from where it stands, takes
    /// to be `settled`, if the differences to come alternate one standard deviation either
    /// side of their mean so far. `None` beyond [`ESTIMATE_LIMIT`].
    fn targets_to_settle(&self, settled: impl Fn(Interval) -> bool) -> Option<usize> {
        let count = self.count.max(1) as f64;
        let mean = self.observed / count;
        let deviation = (self.squares / count - mean * mean).max(0.0).sqrt();
        let bounds = self.sequence.bounds();
        let mut sequence = self.sequence.clone();
        (1..=ESTIMATE_LIMIT).find(|step| {
            let sign = if step % 2 == 0 { 1.0 } else { -1.0 };
            let next = (mean + sign * deviation).clamp(bounds.low, bounds.high);
            settled(sequence.observe(next))
        })
    }
}

/// Where a model stands against the leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Leader,
    /// Some model is better at the level.
    Out,
    /// Within the margin of the leader at the level.
    Equivalent,
    /// Neither.
    Open,
}

/// The leader (by position among the models) and every model's state, the leader's
/// included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    pub leader: usize,
    pub states: Vec<State>,
}

impl Standing {
    /// No model is open: the leader is best, or every other is out or equivalent.
    pub fn decided(&self) -> bool {
        !self.states.contains(&State::Open)
    }

    /// The positions of the models ruled out.
    pub fn out(&self) -> impl Iterator<Item = usize> + '_ {
        (self.states.iter().enumerate())
            .filter(|(_, state)| **state == State::Out)
            .map(|(model, _)| model)
    }
}

/// Another model against the leader: the mean of its NDCG minus the leader's and its
/// confidence sequence now, over the targets both were pooled on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sequence {
    pub model: String,
    pub difference: f64,
    pub low: f64,
    pub high: f64,
    /// The targets this pair saw.
    #[serde(skip)]
    pub targets: usize,
}

/// The verdict: the `decision` of the leaderboard JSON (docs/metrics.md, "The verdict").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// 1 − alpha, for all pairs at once.
    pub level: f64,
    /// No model is open: the leader is best, or every other is out or equivalent to it.
    pub decided: bool,
    /// `None` before the first target.
    pub leader: Option<String>,
    /// 0 for none.
    pub margin: Margin,
    /// The models neither out nor equivalent, closest to the leader first.
    pub open: Vec<String>,
    /// The models whose sequence against the leader lies within the margin.
    pub equivalent: Vec<String>,
    /// The models some other model is better than at the level.
    pub out: Vec<String>,
    /// Every other model against the leader, closest first.
    pub sequences: Vec<Sequence>,
    pub targets_rated: usize,
    /// Chosen targets not fully rated yet.
    pub targets_left: usize,
    /// About how many more fully rated targets would settle every open model if they differ
    /// as those seen did (more than `targets_left` when more must be chosen); `None` when
    /// decided, before the first target, or when it would take more than 10,000.
    pub targets_estimate: Option<usize>,
    #[serde(skip)]
    models: usize,
    /// Papers with recommendations that could still be chosen as targets.
    #[serde(skip)]
    choosable: usize,
    /// An open model that would not settle within [`ESTIMATE_LIMIT`] targets (see
    /// [`Monitor::targets_estimate`]).
    #[serde(skip)]
    beyond: Option<String>,
}

impl Decision {
    /// The number of pairs the level is shared by.
    pub fn pairs(&self) -> usize {
        self.models * self.models.saturating_sub(1) / 2
    }

    /// How many more targets to choose (beyond those left) to settle it, if any.
    pub fn targets_to_choose(&self) -> Option<usize> {
        self.targets_estimate
            .filter(|&estimate| estimate > self.targets_left)
            .map(|estimate| estimate - self.targets_left)
    }
}

/// The verdict over `ndcg[target][model]` in the order the targets were completed (see
/// [`Monitor::observe`] for the values), in the study's random order.
pub fn decide(
    models: Vec<String>,
    ndcg: &[Vec<Option<f64>>],
    margin: Margin,
    ahead: TargetsAhead,
) -> Result<Option<Decision>, DecisionError> {
    if models.len() < 2 {
        return Ok(None);
    }
    let mut monitor = Monitor::new(models, Order::Random, margin);
    for target in ndcg {
        monitor.observe(target, None)?;
    }
    Ok(Some(monitor.decision(ahead)))
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

/// The adaptive order's probability of drawing each target, given how much each can tell
/// the contenders apart (`informativeness`, each in [0, 1]): a share [`UNIFORM_SHARE`] spread
/// evenly, the rest in proportion to the informativeness (evenly too where no target is
/// informative).
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
    use super::words::distance;
    use super::*;

    fn names(count: usize) -> Vec<String> {
        (0..count).map(|m| format!("m{m}")).collect()
    }

    #[test]
    fn fewer_than_two_models_have_no_verdict() {
        assert_eq!(
            decide(
                names(1),
                &[vec![Some(0.5)]],
                Margin::NONE,
                TargetsAhead::default()
            ),
            Ok(None)
        );
    }

    #[test]
    fn margins_are_read_strictly() {
        assert_eq!("0.02".parse::<Margin>().map(Margin::get), Ok(0.02));
        assert_eq!("-0".parse::<Margin>().map(|m| m.get().to_bits()), Ok(0));
        for bad in ["1", "-0.1", "NaN", "inf", "", "0.02x"] {
            let error = bad.parse::<Margin>().unwrap_err();
            assert!(
                error.starts_with("margin must be a difference in NDCG"),
                "{error}"
            );
        }
    }

    #[test]
    fn before_any_target_everything_is_open() {
        let ahead = TargetsAhead {
            left: 10,
            choosable: 0,
        };
        let decision = decide(names(3), &[], Margin::NONE, ahead).unwrap().unwrap();
        assert_eq!(decision.leader, None);
        assert!(!decision.decided);
        assert_eq!(decision.open, names(3));
        assert_eq!(decision.targets_left, 10);
        assert!(decision
            .in_words()
            .starts_with("No target is fully rated yet"));
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let mut monitor = Monitor::new(names(2), Order::Random, Margin::NONE);
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
        assert_eq!(
            monitor.observe(&[Some(0.5), Some(0.0)], Some(1.0)),
            Err(DecisionError::Weight { got: Some(1.0) })
        );
        let mut adaptive = Monitor::new(names(2), Order::Adaptive, Margin::NONE);
        assert_eq!(
            adaptive.observe(&[Some(0.5), Some(0.0)], None),
            Err(DecisionError::Weight { got: None })
        );
        assert_eq!(
            adaptive.observe(&[Some(0.5), Some(0.0)], Some(2.5)),
            Err(DecisionError::Weight { got: Some(2.5) })
        );
        assert_eq!(adaptive.observe(&[Some(0.5), Some(0.0)], Some(2.0)), Ok(()));
        assert_eq!(adaptive.targets(), 1);
    }

    /// Two models with the same scores on every target, rated to the end of a study of 500
    /// targets: the verdict never calls either best (the old verdict for the mean over the
    /// chosen targets did, once they were all rated).
    #[test]
    fn equal_models_stay_open_however_many_targets_are_rated() {
        let ndcg: Vec<Vec<Option<f64>>> = (0..500)
            .map(|t| {
                let value = f64::from(t % 7) / 7.0;
                vec![Some(value), Some(value)]
            })
            .collect();
        let decision = decide(names(2), &ndcg, Margin::NONE, TargetsAhead::default())
            .unwrap()
            .unwrap();
        assert!(!decision.decided);
        assert_eq!(decision.open, ["m1"]);
        assert_eq!(decision.targets_estimate, None);
        assert!(
            decision.in_words().ends_with(
                "If the targets to come differ as those so far, m1 and m0 would take more than \
                 10000 targets to tell apart: a margin (such as --margin 0.02) says when two \
                 models are close enough for either to do."
            ),
            "{}",
            decision.in_words()
        );
        // With a margin, 500 identical targets show them equivalent.
        let margin = "0.1".parse().unwrap();
        let decision = decide(names(2), &ndcg, margin, TargetsAhead::default())
            .unwrap()
            .unwrap();
        assert!(decision.decided);
        assert_eq!(decision.equivalent, ["m1"]);
        assert_eq!(
            decision.in_words(),
            "m1 is within 0.1 of m0 at 95% confidence after 500 targets: any of m0 and m1 \
             will do; you can stop."
        );
    }

    /// A model far below the others is out early; the two close ones stay open, each with
    /// how far it can still be from the leader.
    #[test]
    fn a_far_model_is_out_and_the_close_ones_open() {
        let ndcg: Vec<Vec<Option<f64>>> = (0..40)
            .map(|t| {
                let wobble = if t % 2 == 0 { 0.1 } else { -0.1 };
                vec![Some(0.6 + wobble), Some(0.58 - wobble), Some(0.05)]
            })
            .collect();
        let ahead = TargetsAhead {
            left: 25,
            choosable: 10_000,
        };
        let decision = decide(names(3), &ndcg, Margin::NONE, ahead)
            .unwrap()
            .unwrap();
        assert!(!decision.decided);
        assert_eq!(decision.leader.as_deref(), Some("m0"));
        assert_eq!(decision.open, ["m1"]);
        assert_eq!(decision.out, ["m2"]);
        assert_eq!(decision.equivalent, Vec::<String>::new());
        let m1 = &decision.sequences[0];
        assert!((m1.difference - (-0.02)).abs() < 1e-12);
        let words = decision.in_words();
        let expected_start = format!(
            "m0 leads after 40 targets. Not yet separated from it at 95% confidence: m1 (at \
             most {} below, at most {} above). m2 is out. About ",
            distance(-m1.low),
            distance(m1.high)
        );
        assert!(words.starts_with(&expected_start), "{words}");
        // A mean difference of 0.02 with a spread of 0.2 takes hundreds of targets more.
        let more = decision.targets_estimate.unwrap();
        assert!((100..10_000).contains(&more), "{more}");
        assert!(more > 25);
        assert_eq!(decision.targets_to_choose(), Some(more - 25));
        assert!(
            words.ends_with(&format!(
                "About {more} more targets would settle it if they differ as those so far. Rate \
                 the 25 left and choose about {} more.",
                more - 25
            )),
            "{words}"
        );
    }

    /// A pair skips the targets whose pool left one of its models out: the pruned model's
    /// sequences stop where they were, the others go on.
    #[test]
    fn a_model_left_out_of_a_pool_skips_that_target() {
        let mut monitor = Monitor::new(names(3), Order::Random, Margin::NONE);
        for _ in 0..10 {
            monitor
                .observe(&[Some(0.9), Some(0.5), Some(0.1)], None)
                .unwrap();
        }
        let before = monitor.between(2, 0);
        for _ in 0..10 {
            monitor
                .observe(&[Some(0.9), Some(0.5), None], None)
                .unwrap();
        }
        let after = monitor.between(2, 0);
        assert_eq!(after.count, 10);
        assert_eq!(after.interval, before.interval);
        assert_eq!(monitor.between(1, 0).count, 20);
        assert_eq!(monitor.targets(), 20);
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
