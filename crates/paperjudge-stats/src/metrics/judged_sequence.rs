//! The confidence sequence of a mean with a judge (docs/metrics.md, "The verdict with a
//! judge"): valid at every stopping time, for any judge, and narrower than the raters' own
//! sequence where the judge's values explain the raters' and the raters' spread, not the
//! range of their values, limits the evidence.
//!
//! Two parts joined by a union bound, at levels `alpha_judge` + `alpha_rated`:
//! - the judge's mean μ_f over the library, from every judged target in the study's order: a
//!   betting sequence ([`ConfidenceSequence`]) of the judge's values, clamped to
//!   [−`clamp`, `clamp`] (a fixed function of the judge's value, so that one target on which the
//!   judge is very wrong cannot stretch the range the bets must survive), [L, U];
//! - a betting sequence over the rated targets, in the order they were rated, of the mean μ of
//!   the raters' values y, fed the rectified values y − λ_t(f − c), where f is the clamped
//!   judge's value of the target, λ_t ∈ [0, 1] is chosen from the earlier rated targets only,
//!   and c is L where the bet is on a higher mean and U where it is on a lower one.
//!
//! Why it is valid. Let x*_t = y_t − λ_t(f_t − μ_f): the rated targets are independent draws
//! from the library, so E[x*_t | earlier targets] = μ, and x*_t lies within
//! [−1 − 2λ_t·clamp, 1 + 2λ_t·clamp] (for y in [−1, 1]). A gambler's capital against a candidate
//! m, Π (1 + s_t(x*_t − m)), with stakes s_t chosen from the earlier rated targets and small
//! enough to keep every factor positive on that range, is then a nonnegative martingale when
//! m = μ, which exceeds 1/`alpha_rated` with probability at most `alpha_rated` (Ville). The
//! sequence computes the capital with x_t = y_t − λ_t(f_t − L) when s_t ≥ 0 and
//! x_t = y_t − λ_t(f_t − U) when s_t < 0: on the event that μ_f lies in [L, U] at every time
//! (probability at least 1 − `alpha_judge`), each of its factors is at most the corresponding
//! one of x*, so its capital never exceeds the martingale's. Neither λ_t nor s_t may look at L,
//! U or the judged targets' values (which include the rated targets'): they come from the rated
//! targets before t and from counts alone.
//!
//! What it costs. The rectified values range wider than y, and a gambler's stake is limited by
//! how far an observation can fall; where the raters' values are far from the candidate means
//! compared with their spread, the raters' own sequence already bets as much as that limit
//! allows, and the judge has nothing to add (a bound on the growth of any such capital,
//! docs/metrics.md). λ_t is therefore chosen to maximise an estimate of the capital's growth
//! against the mean 0, range and the judge's interval included: it goes to 0 where the judge
//! cannot help, and then the sequence is the raters' own at level `alpha_rated`.

use super::confidence_sequence::{grid_interval, Bounds, ConfidenceSequence, Interval, GRID_STEPS};

/// How far apart the candidate weights λ are: 0, 0.05, …, 1.
const WEIGHT_STEP: f64 = 0.05;

/// Rated targets before the judge's weight may leave 0: the covariance of the raters' and the
/// judge's values needs a few.
const WEIGHT_WARM_UP: usize = 10;

/// The largest share of the largest safe stake bet (as the raters' sequences, aGRAPA).
const TRUNCATION: f64 = 0.9;

/// A candidate mean on the grid and the capital against it.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    index: usize,
    capital: f64,
}

/// Running sums of the rated targets' values.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Moments {
    pub(super) count: usize,
    pub(super) y: f64,
    pub(super) f: f64,
    pub(super) yy: f64,
    pub(super) ff: f64,
    pub(super) yf: f64,
}

impl Moments {
    pub(super) fn add(&mut self, y: f64, f: f64) {
        self.count += 1;
        self.y += y;
        self.f += f;
        self.yy += y * y;
        self.ff += f * f;
        self.yf += y * f;
    }

    /// Means, variances and covariance (ddof 0).
    fn summary(&self) -> Summary {
        let n = self.count.max(1) as f64;
        let (y, f) = (self.y / n, self.f / n);
        Summary {
            y,
            f,
            var_y: (self.yy / n - y * y).max(0.0),
            var_f: (self.ff / n - f * f).max(0.0),
            cov: self.yf / n - y * f,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Summary {
    y: f64,
    f: f64,
    var_y: f64,
    var_f: f64,
    cov: f64,
}

/// The running confidence sequence of the library's mean of the raters' values y ∈ [−1, 1]
/// with a judge, fed judged targets ([`JudgedSequence::observe_judged`]) and rated ones
/// ([`JudgedSequence::observe_rated`]) as they come.
#[derive(Debug, Clone)]
pub struct JudgedSequence {
    clamp: f64,
    alpha_rated: f64,
    judge_mean: ConfidenceSequence,
    /// Σ of the clamped judge's values over the judged targets, for the estimate.
    judged_sum: f64,
    candidates: Vec<Candidate>,
    /// The running interval where [−1, 1] maps to [0, 1]; each end only moves inward.
    unit_interval: Interval,
    /// The rated targets the judge graded: their raters' and judge's values.
    rated: Moments,
    /// Every rated target.
    rated_count: usize,
    /// On the unit scale: Σ y, Σ (y − λ_s f) with the weights they got, and the regularised
    /// squared deviations of those rectified values, the variance the stakes are sized by.
    raters_sum: f64,
    rectified_sum: f64,
    rectified_squares: f64,
    /// The weight the next rated target gets.
    weight: f64,
}

impl JudgedSequence {
    /// A sequence at level 1 − (`alpha_judge` + `alpha_rated`) for the mean of values in
    /// [−1, 1] (a difference of two NDCG), the judge's values clamped to [−`clamp`, `clamp`].
    ///
    /// # Panics
    /// When an alpha is not in (0, 1) or their sum is not below 1, or `clamp` is not in
    /// (0, 1].
    pub fn new(alpha_judge: f64, alpha_rated: f64, clamp: f64) -> JudgedSequence {
        assert!(
            alpha_judge > 0.0 && alpha_rated > 0.0 && alpha_judge + alpha_rated < 1.0,
            "alphas {alpha_judge} and {alpha_rated} do not make a level"
        );
        assert!(
            clamp > 0.0 && clamp <= 1.0,
            "clamp {clamp} is not in (0, 1]"
        );
        JudgedSequence {
            clamp,
            alpha_rated,
            judge_mean: ConfidenceSequence::new(
                Bounds {
                    low: -clamp,
                    high: clamp,
                },
                alpha_judge,
            ),
            judged_sum: 0.0,
            candidates: (0..=GRID_STEPS)
                .map(|index| Candidate {
                    index,
                    capital: 1.0,
                })
                .collect(),
            unit_interval: Interval {
                low: 0.0,
                high: 1.0,
            },
            rated: Moments::default(),
            rated_count: 0,
            raters_sum: 0.0,
            rectified_sum: 0.0,
            rectified_squares: 0.0,
            weight: 0.0,
        }
    }

    fn clamped(&self, judge: f64) -> f64 {
        judge.clamp(-self.clamp, self.clamp)
    }

    /// Takes the judge's value of the next judged target, in the study's order. Every rated
    /// target that [`JudgedSequence::observe_rated`] gets a judge's value for must be one.
    ///
    /// # Panics
    /// When `judge` is not in [−1, 1].
    pub fn observe_judged(&mut self, judge: f64) {
        assert!(
            (-1.0..=1.0).contains(&judge),
            "judge's value {judge} outside [-1, 1]"
        );
        let f = self.clamped(judge);
        self.judged_sum += f;
        self.judge_mean.observe(f);
    }

    /// The interval of the judge's (clamped) mean over the library now.
    pub fn judge_interval(&self) -> Interval {
        self.judge_mean.interval()
    }

    /// How many judged and rated targets it took.
    pub fn judged(&self) -> usize {
        self.judge_mean.observed()
    }

    pub fn rated(&self) -> usize {
        self.rated_count
    }

    /// The weight λ the next rated target's judge's value gets.
    pub fn weight(&self) -> f64 {
        self.weight
    }

    /// Takes the next rated target: the raters' value y and the judge's (`None` for a target
    /// the judge did not grade: then y alone, as the raters' sequence takes it), and returns
    /// the interval after it.
    ///
    /// # Panics
    /// When a value is outside [−1, 1] or NaN.
    pub fn observe_rated(&mut self, raters: f64, judge: Option<f64>) -> Interval {
        let interval = self.observe_weighted(raters, judge, self.weight);
        self.weight = self.next_weight();
        interval
    }

    /// [`JudgedSequence::observe_rated`] with the judge's weight given.
    fn observe_weighted(&mut self, raters: f64, judge: Option<f64>, weight: f64) -> Interval {
        assert!(
            (-1.0..=1.0).contains(&raters),
            "raters' value {raters} outside [-1, 1]"
        );
        let (weight, f) = match judge {
            Some(judge) => {
                assert!(
                    (-1.0..=1.0).contains(&judge),
                    "judge's value {judge} outside [-1, 1]"
                );
                (weight, self.clamped(judge))
            }
            None => (0.0, 0.0),
        };
        let judge_interval = self.judge_mean.interval();
        let rectified = raters - weight * f;
        // The capital is computed where y ∈ [−1, 1] maps to [0, 1], as the raters' sequence
        // computes it (with weight 0 the two are the same to the bit); a rectified value may
        // fall outside [0, 1] there.
        let unit = |value: f64| (value - -1.0) / 2.0;
        // Sized before the target is seen, from the rated targets before it: the raters' mean
        // and the rectified values' variance, each regularised by one pseudo-observation (mean
        // 1/2, variance 1/4: the middle and the half range of y), as the raters' sequence does.
        let t = self.rated_count + 1;
        let mean_before = (0.5 + self.raters_sum) / t as f64;
        let variance_before = (0.25 + self.rectified_squares) / t as f64;
        // Where the capital's observation can fall: y in [−1, 1], less λ(f − c) with f and c in
        // [−clamp, clamp], so within [−1 − 2λ·clamp, 1 + 2λ·clamp]: on the unit scale, λ·clamp
        // beyond [0, 1] on either side.
        let reach = weight * self.clamp;
        let (low, high) = (0.0 - reach, 1.0 + reach);
        let observed_up = unit(rectified + weight * judge_interval.low);
        let observed_down = unit(rectified + weight * judge_interval.high);
        let step = 1.0 / GRID_STEPS as f64;
        let threshold = 1.0 / self.alpha_rated;
        let (mut first_kept, mut last_kept) = (None, None);
        for candidate in &mut self.candidates {
            let m = candidate.index as f64 * step;
            let gap = mean_before - m;
            let stake = (gap / (variance_before + gap * gap))
                .clamp(-TRUNCATION / (high - m), TRUNCATION / (m - low));
            let observed = if stake >= 0.0 {
                observed_up
            } else {
                observed_down
            };
            candidate.capital *= 1.0 + stake * (observed - m);
            if candidate.capital <= threshold {
                first_kept.get_or_insert(candidate.index);
                last_kept = Some(candidate.index);
            }
        }
        let found = grid_interval(first_kept, last_kept, step);
        let (low, high) = (
            self.unit_interval.low.max(found.low),
            self.unit_interval.high.min(found.high),
        );
        self.unit_interval = Interval { low, high };
        self.candidates.retain(|candidate| {
            let m = candidate.index as f64 * step;
            low <= m && m <= high
        });

        // Only the targets the judge graded tell how its values go with the raters'.
        if judge.is_some() {
            self.rated.add(raters, f);
        }
        self.rated_count += 1;
        self.raters_sum += unit(raters);
        let rectified = unit(rectified);
        self.rectified_sum += rectified;
        let mean_after = (0.5 + self.rectified_sum) / (t + 1) as f64;
        self.rectified_squares += (rectified - mean_after) * (rectified - mean_after);
        self.interval()
    }

    /// The interval now.
    pub fn interval(&self) -> Interval {
        Interval {
            low: -1.0 + 2.0 * self.unit_interval.low,
            high: -1.0 + 2.0 * self.unit_interval.high,
        }
    }

    /// The prediction-powered estimate of the mean now: the raters' mean over the rated
    /// targets less λ times how far the judge's mean over the graded ones among them lies from
    /// its mean over every judged target (a rated target the judge did not grade corrects
    /// nothing).
    pub fn estimate(&self) -> f64 {
        if self.rated_count == 0 {
            return 0.0;
        }
        let raters = 2.0 * self.raters_sum / self.rated_count as f64 - 1.0;
        let judged = self.judge_mean.observed();
        if judged == 0 {
            return raters;
        }
        let judged_mean = self.judged_sum / judged as f64;
        let gap = self.rated.f - self.rated.count as f64 * judged_mean;
        raters - self.weight * gap / self.rated_count as f64
    }

    /// The raters' and the judge's values so far on the rated targets it graded: means, standard
    /// deviations and correlation, from which the verdict projects the targets to come.
    pub fn rated_summary(&self) -> ([f64; 2], [f64; 2], f64) {
        let s = self.rated.summary();
        let correlation = if s.var_y > 0.0 && s.var_f > 0.0 {
            (s.cov / (s.var_y * s.var_f).sqrt()).clamp(-1.0, 1.0)
        } else {
            0.0
        };
        ([s.y, s.f], [s.var_y.sqrt(), s.var_f.sqrt()], correlation)
    }

    /// The weight of the next rated target: of 0, 0.05, …, 1, the one with the largest
    /// estimated growth of the capital against the mean 0 (the verdict's question), from the
    /// rated targets so far and the number of judged ones, never from their judge's mean.
    fn next_weight(&self) -> f64 {
        if self.rated.count < WEIGHT_WARM_UP {
            return 0.0;
        }
        let s = self.rated.summary();
        let gap = s.y.abs().max(0.01);
        // The judge's interval will be about this wide on either side (an empirical-Bernstein
        // guess from the spread of the rated targets' judge's values and the judged count).
        let judged = self.judge_mean.observed().max(1) as f64;
        let alpha_judge_guess = self.alpha_rated / 9.0;
        let judge_margin = (2.0 * s.var_f * (2.0 / alpha_judge_guess).ln() / judged).sqrt();
        let growth = |weight: f64| -> f64 {
            let gap = gap - weight * judge_margin;
            if gap <= 0.0 {
                return 0.0;
            }
            let variance = s.var_y - 2.0 * weight * s.cov + weight * weight * s.var_f;
            let most = TRUNCATION / (1.0 + 2.0 * weight * self.clamp);
            let stake = (gap / (variance + gap * gap)).min(most);
            stake * gap - stake * stake * (variance + gap * gap) / 2.0
        };
        let steps = (1.0 / WEIGHT_STEP).round() as usize;
        (0..=steps)
            .map(|i| i as f64 * WEIGHT_STEP)
            .fold((0.0, growth(0.0)), |(best, most), weight| {
                let now = growth(weight);
                if now > most {
                    (weight, now)
                } else {
                    (best, most)
                }
            })
            .0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a judge's value (or with weight 0 throughout), the sequence is the raters' own
    /// betting sequence at `alpha_rated`, to the last bit.
    #[test]
    fn without_the_judge_it_is_the_raters_sequence() {
        let values: Vec<f64> = (0..300)
            .map(|i| f64::from((i * 37) % 21) / 10.0 - 1.0)
            .collect();
        let mut judged = JudgedSequence::new(0.001, 0.009, 0.5);
        let mut raters = ConfidenceSequence::new(Bounds::DIFFERENCE, 0.009);
        for &value in &values {
            assert_eq!(judged.observe_rated(value, None), raters.observe(value));
        }
    }

    /// With the judge's weight held at 1 and few judged targets (its interval wide), a judge
    /// that says 0.1 more than the raters: the interval covers the raters' mean throughout in
    /// all but 2 of 300 studies at level 0.9. Shifting each bet by the other end of the
    /// judge's interval missed it in 267.
    #[test]
    fn the_judges_interval_shifts_each_bet_the_cautious_way() {
        use rand::{Rng, SeedableRng};
        let mut missed = 0;
        for seed in 0..300 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut draw = || {
                let y = if rng.random::<bool>() { 0.4 } else { -0.4 };
                let noise: f64 = rng.random_range(-0.05..0.05);
                (y, y + 0.1 + noise)
            };
            let draws: Vec<(f64, f64)> = (0..100).map(|_| draw()).collect();
            let mut sequence = JudgedSequence::new(0.05, 0.05, 0.5);
            for &(_, f) in &draws {
                sequence.observe_judged(f);
            }
            let mut ever_missed = false;
            for &(y, f) in &draws {
                ever_missed |= !sequence.observe_weighted(y, Some(f), 1.0).contains(0.0);
            }
            missed += usize::from(ever_missed);
        }
        assert!(missed <= 30, "{missed} of 300 missed");
    }

    #[test]
    fn a_useless_judge_keeps_its_weight_near_zero() {
        let mut sequence = JudgedSequence::new(0.001, 0.009, 0.5);
        for i in 0..200 {
            sequence.observe_judged(f64::from(i % 2) * 0.4 - 0.2);
        }
        for i in 0..100 {
            let y = f64::from((i * 7) % 11) / 10.0 - 0.4;
            let f = f64::from(i % 2) * 0.4 - 0.2;
            sequence.observe_rated(y, Some(f));
        }
        assert!(sequence.weight() <= 0.1, "{}", sequence.weight());
    }
}
