//! Anytime-valid confidence sequences for a mean: a running interval that covers the mean at
//! every number of observations at once, with probability at least 1 − alpha. A researcher
//! may look after every rated target and stop whenever the verdict looks settled; a
//! fixed-sample interval looked at that way covers far less often than it claims, a
//! confidence sequence does not (docs/metrics.md, "The verdict: when to stop").
//!
//! The sequence is the betting one of Waudby-Smith & Ramdas (2023, "Estimating means of
//! bounded random variables by betting", the hedged capital process with predictable plug-in
//! bets), and for a finite population sampled without replacement (the chosen targets, rated
//! in a random order) its version of Waudby-Smith & Ramdas (2020, "Confidence sequences for
//! sampling without replacement"), which narrows to the exact mean once every member is seen.
//!
//! For each candidate mean m a gambler bets against "the mean is m", both ways at once, and a
//! candidate stays in the interval until the capital exceeds 1/alpha (Ville's inequality
//! bounds the chance that a fair game ever gets there). Candidates are a grid of `steps + 1`
//! evenly spaced means over the observations' range, and each end moves out by one step, as
//! in the authors' `confseq` package (`hedged_cs`, `breaks = steps`), whose numbers these
//! reproduce: the grid cannot see between its points, and that step keeps the interval valid.
//! (With one exception of probability below alpha: where the data contradict every mean of
//! the running interval, confseq's interval turns empty and this one stays as it was.)

use std::num::NonZeroUsize;

/// Candidate means a sequence tries, over the observations' range, less one: `confseq`'s
/// default, 0.002 apart on the [-1, 1] of NDCG differences.
pub const GRID_STEPS: usize = 1_000;

/// Share of the capital bet on the mean being above the candidate (θ); the rest bets on it
/// being below.
const UPWARD_SHARE: f64 = 0.5;

/// At most this fraction of the capital is staked on one observation: `confseq`'s truncation,
/// which keeps a bet from ruining the gambler whatever the observation.
const LARGEST_STAKE: f64 = 0.5;

/// Where every observation lies, known before the first one: [-1, 1] for differences of two
/// NDCG values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub low: f64,
    pub high: f64,
}

impl Bounds {
    /// The range of a difference of two values in [0, 1], such as two models' NDCG@k.
    pub const DIFFERENCE: Bounds = Bounds {
        low: -1.0,
        high: 1.0,
    };

    /// `value` mapped to [0, 1], where the sequence is computed.
    fn to_unit(self, value: f64) -> f64 {
        (value - self.low) / (self.high - self.low)
    }

    /// The value that [`Bounds::to_unit`] maps to `unit`.
    fn at_unit(self, unit: f64) -> f64 {
        self.low + (self.high - self.low) * unit
    }
}

/// A closed interval `[low, high]` of means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

impl Interval {
    pub fn contains(self, value: f64) -> bool {
        self.low <= value && value <= self.high
    }
}

/// The significance level of each of the M(M − 1)/2 pairwise sequences among `models`
/// models, so that all of them hold at once with probability 1 − `alpha` (Bonferroni: the
/// leader is chosen from the data and may change, so every pair needs its sequence).
///
/// # Panics
/// With fewer than two models: there is no pair.
pub fn pairwise_alpha(alpha: f64, models: usize) -> f64 {
    assert!(models >= 2, "pairs need at least two models");
    alpha / (models * (models - 1) / 2) as f64
}

/// The running confidence sequence of one mean, fed one observation at a time in the order
/// they arrived.
///
/// ```
/// use paperjudge::metrics::{Bounds, ConfidenceSequence};
///
/// let mut sequence = ConfidenceSequence::new(Bounds::DIFFERENCE, 0.05, None);
/// for difference in [0.25, 0.5, 0.0, 0.25, 0.75, 0.5, 0.25, 0.5] {
///     sequence.observe(difference);
/// }
/// let interval = sequence.interval();
/// assert!(interval.low < 0.375 && 0.375 < interval.high);
/// ```
#[derive(Debug, Clone)]
pub struct ConfidenceSequence {
    bounds: Bounds,
    alpha: f64,
    population: Option<NonZeroUsize>,
    steps: usize,
    /// The candidate means still inside the running interval, in increasing order. The
    /// others can never move the interval again: the candidates kept at one time form an
    /// interval, since the capital bet on a higher mean only falls as the candidate rises and
    /// the one bet on a lower mean only grows.
    candidates: Vec<Candidate>,
    observed: usize,
    /// Σ x over the observations so far, on [0, 1].
    sum: f64,
    /// Σ (x_i − x̄_i)², x̄_i the regularised mean after observation i.
    squared_deviations: f64,
    /// The interval on [0, 1]; each end only ever moves inward (the running intersection).
    unit_interval: Interval,
}

/// A candidate mean i / steps (on [0, 1]) and what the gambler's bets against it, on a
/// higher and on a lower mean, have become.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    index: usize,
    upward: f64,
    downward: f64,
}

impl ConfidenceSequence {
    /// A sequence at level 1 − `alpha` for the mean of observations within `bounds`: of a
    /// stream, or, with `population` = Some(N), of N fixed values observed in a uniformly
    /// random order without replacement. Before any observation the interval is `bounds`.
    ///
    /// # Panics
    /// When `alpha` is not in (0, 1) or `bounds` is not a finite range with low < high.
    pub fn new(bounds: Bounds, alpha: f64, population: Option<NonZeroUsize>) -> Self {
        Self::with_grid(bounds, alpha, population, GRID_STEPS)
    }

    /// [`ConfidenceSequence::new`] with `steps + 1` candidate means instead of
    /// [`GRID_STEPS`] + 1: fewer is faster and wider by up to a step at each end, never
    /// less valid.
    ///
    /// # Panics
    /// As [`ConfidenceSequence::new`], and when `steps` is 0.
    pub fn with_grid(
        bounds: Bounds,
        alpha: f64,
        population: Option<NonZeroUsize>,
        steps: usize,
    ) -> Self {
        assert!(alpha > 0.0 && alpha < 1.0, "alpha {alpha} is not in (0, 1)");
        assert!(
            bounds.low.is_finite() && bounds.high.is_finite() && bounds.low < bounds.high,
            "{bounds:?} is not a range"
        );
        assert!(steps > 0, "a grid needs at least one step");
        ConfidenceSequence {
            bounds,
            alpha,
            population,
            steps,
            candidates: (0..=steps)
                .map(|index| Candidate {
                    index,
                    upward: 1.0,
                    downward: 1.0,
                })
                .collect(),
            observed: 0,
            sum: 0.0,
            squared_deviations: 0.0,
            unit_interval: Interval {
                low: 0.0,
                high: 1.0,
            },
        }
    }

    /// Takes the next observation and returns the interval after it.
    ///
    /// # Panics
    /// When `value` lies outside the bounds (or is NaN), or when a population of N has
    /// already given N observations.
    pub fn observe(&mut self, value: f64) -> Interval {
        let bounds = self.bounds;
        assert!(
            bounds.low <= value && value <= bounds.high,
            "observation {value} outside [{}, {}]",
            bounds.low,
            bounds.high
        );
        if let Some(population) = self.population {
            assert!(
                self.observed < population.get(),
                "all {population} members of the population were already observed"
            );
        }
        let x = bounds.to_unit(value).clamp(0.0, 1.0);
        // The bet is sized before x is seen, from the observations before it.
        let stake = self.next_stake();
        let sum_before = self.sum;
        let t = self.observed + 1;
        let threshold = 1.0 / self.alpha;
        let step = 1.0 / self.steps as f64;
        let mut first_kept = None;
        let mut last_kept = None;
        // Without replacement the mean of the values not yet seen moves as values are seen:
        // (N·m − Σ x) / (N − t + 1) for a candidate m, which is impossible outside [0, 1].
        let (scale, seen, remaining) = match self.population {
            Some(n) => (n.get() as f64, sum_before, (n.get() - (t - 1)) as f64),
            None => (1.0, 0.0, 1.0),
        };
        for candidate in &mut self.candidates {
            let remaining_mean = (scale * (candidate.index as f64 * step) - seen) / remaining;
            // Truncated as `confseq` does; the lower limits only bind for an impossible
            // candidate, whose capital does not count.
            let upward = (stake.min(LARGEST_STAKE / remaining_mean))
                .max(-LARGEST_STAKE / (1.0 - remaining_mean));
            let downward = (stake.min(LARGEST_STAKE / (1.0 - remaining_mean)))
                .max(-LARGEST_STAKE / remaining_mean);
            candidate.upward *= 1.0 + upward * (x - remaining_mean);
            candidate.downward *= 1.0 - downward * (x - remaining_mean);
            let possible = (0.0..=1.0).contains(&remaining_mean);
            let wealth =
                (UPWARD_SHARE * candidate.upward).max((1.0 - UPWARD_SHARE) * candidate.downward);
            if possible && wealth <= threshold {
                first_kept.get_or_insert(candidate.index);
                last_kept = Some(candidate.index);
            }
        }
        self.sum += x;
        self.observed = t;
        let mean_estimate = ((0.5 + self.sum) / (t + 1) as f64).min(1.0);
        self.squared_deviations += (x - mean_estimate) * (x - mean_estimate);

        let mut interval = match (first_kept, last_kept) {
            (Some(first), Some(last)) => Interval {
                low: (first as f64 * step - step).max(0.0),
                high: (last as f64 * step + step).min(1.0),
            },
            // No candidate left: the grid missed a sequence narrower than its step (or, with
            // probability below alpha, the data contradict every mean in the interval, where
            // confseq's running intersection would cross).
            _ => Interval {
                low: 0.0,
                high: 1.0,
            },
        };
        if let Some(n) = self.population {
            // What the values seen already imply, whatever the unseen ones are.
            let n = n.get() as f64;
            interval.low = interval.low.max(self.sum / n);
            interval.high = interval.high.min(1.0 - (t as f64 - self.sum) / n);
        }
        let Interval { low, high } = Interval {
            low: self.unit_interval.low.max(interval.low),
            high: self.unit_interval.high.min(interval.high),
        };
        self.unit_interval = Interval { low, high };
        self.candidates.retain(|candidate| {
            let mean = candidate.index as f64 * step;
            low <= mean && mean <= high
        });
        self.interval()
    }

    /// The interval after the observations so far, in the observations' units.
    pub fn interval(&self) -> Interval {
        Interval {
            low: self.bounds.at_unit(self.unit_interval.low),
            high: self.bounds.at_unit(self.unit_interval.high),
        }
    }

    /// How many observations the sequence has taken.
    pub fn observed(&self) -> usize {
        self.observed
    }

    /// The predictable plug-in bet before observation t (λ_t of the paper, before
    /// truncation): sqrt(2 log(1 / (alpha θ)) / (σ̂²_{t−1} t log(1 + t))), where σ̂² is the
    /// variance regularised by one pseudo-observation of variance 1/4.
    fn next_stake(&self) -> f64 {
        let t = (self.observed + 1) as f64;
        let variance = (0.25 + self.squared_deviations) / t;
        let log_level = (1.0 / (self.alpha * UPWARD_SHARE)).ln();
        (2.0 * log_level / (t * (1.0 + t).ln() * variance)).sqrt()
    }
}

/// The running interval after each of `observations`, in order: a
/// [`ConfidenceSequence`] fed them one by one.
///
/// # Panics
/// As [`ConfidenceSequence::new`] and [`ConfidenceSequence::observe`].
pub fn confidence_sequence(
    observations: &[f64],
    bounds: Bounds,
    alpha: f64,
    population: Option<NonZeroUsize>,
) -> Vec<Interval> {
    let mut sequence = ConfidenceSequence::new(bounds, alpha, population);
    (observations.iter())
        .map(|&value| sequence.observe(value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_alpha_splits_alpha_over_the_pairs() {
        assert_eq!(pairwise_alpha(0.05, 2), 0.05);
        assert_eq!(pairwise_alpha(0.05, 8), 0.05 / 28.0);
    }

    #[test]
    fn the_interval_starts_as_the_bounds_and_only_narrows() {
        let mut sequence = ConfidenceSequence::new(Bounds::DIFFERENCE, 0.05, None);
        assert_eq!(
            sequence.interval(),
            Interval {
                low: -1.0,
                high: 1.0
            }
        );
        let mut previous = sequence.interval();
        for t in 0..300 {
            let now = sequence.observe(if t % 3 == 0 { 0.5 } else { 0.0 });
            assert!(previous.low <= now.low && now.high <= previous.high);
            previous = now;
        }
        assert_eq!(sequence.observed(), 300);
        assert!(previous.contains(1.0 / 6.0) && previous.high - previous.low < 0.3);
    }

    #[test]
    fn other_bounds_give_the_same_interval_rescaled() {
        let unit: Vec<f64> = (0..80).map(|i| f64::from(i % 5) / 4.0).collect();
        let stars: Vec<f64> = unit.iter().map(|u| 1.0 + 4.0 * u).collect();
        let bounds = Bounds {
            low: 1.0,
            high: 5.0,
        };
        let on_unit = confidence_sequence(
            &unit,
            Bounds {
                low: 0.0,
                high: 1.0,
            },
            0.1,
            None,
        );
        let on_stars = confidence_sequence(&stars, bounds, 0.1, None);
        for (unit, stars) in on_unit.iter().zip(&on_stars) {
            assert!((1.0 + 4.0 * unit.low - stars.low).abs() < 1e-12);
            assert!((1.0 + 4.0 * unit.high - stars.high).abs() < 1e-12);
        }
    }

    /// Once every member of a population is seen its mean is known exactly.
    #[test]
    fn a_fully_seen_population_pins_its_mean() {
        let values = [0.5, -0.25, 0.0, 1.0, -1.0, 0.25, 0.75, 0.0];
        let population = NonZeroUsize::new(values.len());
        let last = *confidence_sequence(&values, Bounds::DIFFERENCE, 0.05, population)
            .last()
            .unwrap();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        assert!((last.low - mean).abs() < 1e-12 && (last.high - mean).abs() < 1e-12);
    }

    #[test]
    #[should_panic(expected = "outside [-1, 1]")]
    fn an_observation_outside_the_bounds_is_a_bug() {
        ConfidenceSequence::new(Bounds::DIFFERENCE, 0.05, None).observe(1.5);
    }

    #[test]
    #[should_panic(expected = "already observed")]
    fn a_population_cannot_give_more_than_its_members() {
        let mut sequence = ConfidenceSequence::new(Bounds::DIFFERENCE, 0.05, NonZeroUsize::new(1));
        sequence.observe(0.0);
        sequence.observe(0.0);
    }
}
