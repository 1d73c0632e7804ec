//! Anytime-valid confidence sequences for a mean: a running interval that covers the mean at
//! every number of observations at once, with probability at least 1 − alpha. A researcher
//! may look after every rated target and stop whenever the verdict looks settled; a
//! fixed-sample interval looked at that way covers far less often than it claims, a
//! confidence sequence does not (docs/metrics.md, "The verdict").
//!
//! The mean is that of independent draws from one bounded distribution (Waudby-Smith &
//! Ramdas 2023, "Estimating means of bounded random variables by betting"): for the verdict,
//! the per-target differences of targets drawn from the library. Nothing here assumes a
//! finite population, so the interval never closes on the mean of the observations seen: it
//! speaks for the distribution they come from.
//!
//! For each candidate mean m a gambler bets against "the mean is m", and a candidate stays in
//! the interval until the capital exceeds 1/alpha (Ville's inequality bounds the chance that a
//! fair game ever gets there, whatever the bets, as long as each is sized before its
//! observation is seen). Candidates are a grid of `steps + 1` evenly spaced means over the
//! observations' range, and each end moves out by one step, as in the authors' `confseq`
//! package (`betting_cs`, `breaks = steps`), whose numbers these reproduce: the grid cannot
//! see between its points, and that step keeps the interval valid. (With one exception of
//! probability below alpha: where the data contradict every mean of the running interval,
//! confseq's interval turns empty and this one stays as it was.)
//!
//! How the gambler sizes the bets ([`Betting`]) changes how fast the interval narrows, never
//! its validity. The default was chosen by simulation (`cargo run --release --example
//! betting`, BENCHMARKS.md): aGRAPA bets truncated at 0.9 of the largest safe stake.

/// Candidate means a sequence tries, over the observations' range, less one: `confseq`'s
/// default, 0.002 apart on the [-1, 1] of NDCG differences.
pub const GRID_STEPS: usize = 1_000;

/// How a sequence sizes its bet on the next observation, from the observations before it.
/// Every strategy gives a valid sequence; they differ in how soon it narrows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Betting {
    /// The approximate growth-rate adaptive plug-in (aGRAPA) of Waudby-Smith & Ramdas (2023):
    /// against a candidate m, the stake (μ̂ − m) / (σ̂² + (μ̂ − m)²), from the regularised mean
    /// μ̂ and variance σ̂² so far, on one capital process that bets up or down as the data
    /// lean. Truncated at `truncation` of the largest safe stake (1/m up, 1/(1 − m) down on
    /// [0, 1]).
    Agrapa { truncation: f64 },
    /// The hedged capital process with the predictable plug-in stake
    /// sqrt(2 log(2 / alpha) / (σ̂² t log(1 + t))) both ways, half the capital on each:
    /// `confseq`'s `hedged_cs` (its truncation 1/2).
    PlugIn { truncation: f64 },
    /// The hedged process with the stake tuned to a planned number of observations n:
    /// sqrt(2 log(2 / alpha) / (σ̂² n)). Valid whatever n is; narrowest near n.
    Tuned { planned: usize, truncation: f64 },
}

impl Betting {
    /// The verdict's strategy.
    pub const DEFAULT: Betting = Betting::Agrapa { truncation: 0.9 };

    fn truncation(self) -> f64 {
        match self {
            Betting::Agrapa { truncation }
            | Betting::PlugIn { truncation }
            | Betting::Tuned { truncation, .. } => truncation,
        }
    }
}

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

    /// Half the interval's width.
    pub fn half_width(self) -> f64 {
        (self.high - self.low) / 2.0
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

/// The interval on [0, 1] of the candidates kept, `first` to `last` on a grid `step` apart,
/// one step wider at each end (the grid cannot see between its points).
fn grid_interval(first: Option<usize>, last: Option<usize>, step: f64) -> Interval {
    match (first, last) {
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
    }
}

/// The running confidence sequence of one mean, fed one observation at a time in the order
/// they arrived.
///
/// ```
/// use paperjudge_stats::metrics::{Bounds, ConfidenceSequence};
///
/// let mut sequence = ConfidenceSequence::new(Bounds::DIFFERENCE, 0.05);
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
    betting: Betting,
    steps: usize,
    /// The candidate means still inside the running interval, in increasing order. The
    /// others can never move the interval again, which is the running intersection of the
    /// intervals so far.
    candidates: Vec<Candidate>,
    observed: usize,
    /// Σ x over the observations so far, on [0, 1].
    sum: f64,
    /// Σ (x_i − x̄_i)², x̄_i the regularised mean after observation i.
    squared_deviations: f64,
    /// The interval on [0, 1]; each end only ever moves inward (the running intersection).
    unit_interval: Interval,
}

/// A candidate mean i / steps (on [0, 1]) and what the gambler's capital against it has
/// become: `upward` the process that bets on a higher mean (aGRAPA's one process, which may
/// bet either way), `downward` the hedged strategies' bet on a lower mean.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    index: usize,
    /// The mean, i / steps: with the two limits below, worked out once rather than at every
    /// observation (the divisions were most of an observation's time; the same values).
    mean: f64,
    /// The largest stakes that cannot lose everything on any observation in [0, 1]
    /// (truncated), up and down (a division by 0 gives an infinite limit, which never binds).
    most_up: f64,
    most_down: f64,
    upward: f64,
    downward: f64,
}

impl ConfidenceSequence {
    /// A sequence at level 1 − `alpha` for the mean of independent observations within
    /// `bounds`, with the verdict's bets ([`Betting::DEFAULT`]). Before any observation the
    /// interval is `bounds`.
    ///
    /// # Panics
    /// When `alpha` is not in (0, 1) or `bounds` is not a finite range with low < high.
    pub fn new(bounds: Bounds, alpha: f64) -> Self {
        Self::with_betting(bounds, alpha, Betting::DEFAULT, GRID_STEPS)
    }

    /// A sequence with the bets of `betting` and `steps + 1` candidate means: fewer are
    /// faster and wider by up to a step at each end, never less valid.
    ///
    /// # Panics
    /// As [`ConfidenceSequence::new`], when `steps` is 0, or when the truncation is not in
    /// (0, 1) (a stake of the whole safe amount can lose everything on one observation).
    pub fn with_betting(bounds: Bounds, alpha: f64, betting: Betting, steps: usize) -> Self {
        assert!(alpha > 0.0 && alpha < 1.0, "alpha {alpha} is not in (0, 1)");
        assert!(
            bounds.low.is_finite() && bounds.high.is_finite() && bounds.low < bounds.high,
            "{bounds:?} is not a range"
        );
        assert!(steps > 0, "a grid needs at least one step");
        let truncation = betting.truncation();
        assert!(
            truncation > 0.0 && truncation < 1.0,
            "truncation {truncation} is not in (0, 1)"
        );
        ConfidenceSequence {
            bounds,
            alpha,
            betting,
            steps,
            candidates: (0..=steps)
                .map(|index| {
                    let mean = index as f64 * (1.0 / steps as f64);
                    Candidate {
                        index,
                        mean,
                        most_up: truncation / mean,
                        most_down: truncation / (1.0 - mean),
                        upward: 1.0,
                        downward: 1.0,
                    }
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
    /// When `value` lies outside the bounds (or is NaN).
    pub fn observe(&mut self, value: f64) -> Interval {
        let bounds = self.bounds;
        assert!(
            bounds.low <= value && value <= bounds.high,
            "observation {value} outside [{}, {}]",
            bounds.low,
            bounds.high
        );
        let x = bounds.to_unit(value).clamp(0.0, 1.0);
        // Every bet is sized before x is seen, from the observations before it: the mean and
        // the variance regularised by one pseudo-observation of mean 1/2 and variance 1/4.
        let t = self.observed + 1;
        let mean_before = (0.5 + self.sum) / t as f64;
        let variance_before = (0.25 + self.squared_deviations) / t as f64;
        let hedged_stake = match self.betting {
            Betting::Agrapa { .. } => 0.0,
            Betting::PlugIn { .. } => {
                let t = t as f64;
                (2.0 * (2.0 / self.alpha).ln() / (variance_before * t * (1.0 + t).ln())).sqrt()
            }
            Betting::Tuned { planned, .. } => {
                (2.0 * (2.0 / self.alpha).ln() / (variance_before * planned.max(1) as f64)).sqrt()
            }
        };
        let threshold = 1.0 / self.alpha;
        let step = 1.0 / self.steps as f64;
        let (mut first_kept, mut last_kept) = (None, None);
        for candidate in &mut self.candidates {
            let (m, most_up, most_down) = (candidate.mean, candidate.most_up, candidate.most_down);
            let wealth = match self.betting {
                Betting::Agrapa { .. } => {
                    let gap = mean_before - m;
                    let stake = (gap / (variance_before + gap * gap)).clamp(-most_down, most_up);
                    candidate.upward *= 1.0 + stake * (x - m);
                    candidate.upward
                }
                Betting::PlugIn { .. } | Betting::Tuned { .. } => {
                    candidate.upward *= 1.0 + hedged_stake.min(most_up) * (x - m);
                    candidate.downward *= 1.0 - hedged_stake.min(most_down) * (x - m);
                    (0.5 * candidate.upward).max(0.5 * candidate.downward)
                }
            };
            if wealth <= threshold {
                first_kept.get_or_insert(candidate.index);
                last_kept = Some(candidate.index);
            }
        }
        self.sum += x;
        self.observed = t;
        let mean_after = (0.5 + self.sum) / (t + 1) as f64;
        self.squared_deviations += (x - mean_after) * (x - mean_after);

        let interval = grid_interval(first_kept, last_kept, step);
        let Interval { low, high } = Interval {
            low: self.unit_interval.low.max(interval.low),
            high: self.unit_interval.high.min(interval.high),
        };
        self.unit_interval = Interval { low, high };
        self.candidates
            .retain(|candidate| low <= candidate.mean && candidate.mean <= high);
        self.interval()
    }

    /// The interval after the observations so far, in the observations' units.
    pub fn interval(&self) -> Interval {
        Interval {
            low: self.bounds.at_unit(self.unit_interval.low),
            high: self.bounds.at_unit(self.unit_interval.high),
        }
    }

    /// Where its observations lie.
    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// How many observations the sequence has taken.
    pub fn observed(&self) -> usize {
        self.observed
    }
}

/// The running interval after each of `observations`, in order: a
/// [`ConfidenceSequence`] with the verdict's bets fed them one by one.
///
/// # Panics
/// As [`ConfidenceSequence::new`] and [`ConfidenceSequence::observe`].
pub fn confidence_sequence(observations: &[f64], bounds: Bounds, alpha: f64) -> Vec<Interval> {
    let mut sequence = ConfidenceSequence::new(bounds, alpha);
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
        for betting in [
            Betting::DEFAULT,
            Betting::PlugIn { truncation: 0.5 },
            Betting::Tuned {
                planned: 100,
                truncation: 0.9,
            },
        ] {
            let mut sequence =
                ConfidenceSequence::with_betting(Bounds::DIFFERENCE, 0.05, betting, GRID_STEPS);
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
            assert!(
                previous.contains(1.0 / 6.0) && previous.high - previous.low < 0.3,
                "{betting:?}: {previous:?}"
            );
        }
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
        );
        let on_stars = confidence_sequence(&stars, bounds, 0.1);
        for (unit, stars) in on_unit.iter().zip(&on_stars) {
            assert!((1.0 + 4.0 * unit.low - stars.low).abs() < 1e-12);
            assert!((1.0 + 4.0 * unit.high - stars.high).abs() < 1e-12);
        }
    }

    /// Seeing the same values again and again never pins the mean: the interval keeps a
    /// width however many observations came (the mean of a distribution, not of a list).
    #[test]
    fn many_observations_narrow_the_interval_without_closing_it() {
        let values = [0.5, -0.25, 0.0, 1.0, -1.0, 0.25, 0.75, 0.0];
        let observations: Vec<f64> = values.iter().copied().cycle().take(400).collect();
        let intervals = confidence_sequence(&observations, Bounds::DIFFERENCE, 0.05);
        let (after_8, last) = (intervals[7], intervals[399]);
        assert!(last.half_width() < after_8.half_width());
        assert!(last.half_width() > 0.05, "{last:?}");
        assert!(last.contains(0.15625));
    }

    #[test]
    #[should_panic(expected = "outside [-1, 1]")]
    fn an_observation_outside_the_bounds_is_a_bug() {
        ConfidenceSequence::new(Bounds::DIFFERENCE, 0.05).observe(1.5);
    }

    #[test]
    #[should_panic(expected = "truncation 1 is not in (0, 1)")]
    fn a_stake_of_everything_is_refused() {
        let betting = Betting::Agrapa { truncation: 1.0 };
        ConfidenceSequence::with_betting(Bounds::DIFFERENCE, 0.05, betting, GRID_STEPS);
    }
}
