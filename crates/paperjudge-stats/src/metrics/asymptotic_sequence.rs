//! An asymptotic confidence sequence of a mean, with or without a judge (docs/metrics.md,
//! "The verdict with a judge"): the measured alternative to the betting sequences, valid only
//! as the number of rated targets grows, never below [`BURN_IN`] of them.
//!
//! Without a judge it is the asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha,
//! Kennedy & Ramdas (2024, "Time-uniform central limit theory and asymptotic confidence
//! sequences"): the running mean ± σ̂·sqrt((t + 1/ρ²)(ln(1 + tρ²) + 2 ln(1/α)))/t, the normal
//! mixture boundary of a Brownian motion with the sample standard deviation plugged in.
//!
//! With a judge it follows Kilian, Cortinovis & Caron (2025, "Anytime-valid, Bayes-assisted,
//! prediction-powered inference") for the PPI++ estimate θ̂_t = ȳ_H − λ̂(f̄_H − f̄_J), here
//! with the judged targets J fixed while the rated ones H grow inside them. With
//! e = y − λf, t(θ̂_t − μ) = Σ_{i≤t}(e_i − E e) + tλ(f̄_J − E f): a random walk of variance σ_e²
//! per step, plus t times one normal term of variance τ² = λ(2 Cov(y, f) − λ Var f)/N (its
//! covariance with the walk included). Approximated by σ_e·W(t) + tτZ, a Brownian motion with
//! a random drift, that process divided by (1 + tc²), c = τ/σ_e, is a Brownian motion run at
//! the clock φ(t) = t/(1 + tc²) (its covariance at s ≤ t is φ(s)). The mixture boundary of
//! that motion gives |θ̂_t − μ| ≤ σ_e(1 + tc²)·sqrt((φ + 1/ρ²)(ln(1 + φρ²) + 2 ln(1/α)))/t:
//! for c = 0 the boundary above, and for t → ∞ a width that stays about τ·sqrt(2 ln(1/α)):
//! rating every judged target does not pin the library's mean.

use super::confidence_sequence::Interval;
use super::judged_sequence::Moments;

/// Rated targets before the sequence says anything: its validity is asymptotic, and a spread
/// estimated from a handful of targets is too often too small.
pub const BURN_IN: usize = 20;

/// The number of rated targets the mixture is tuned to be narrowest at.
const TUNED_TO: f64 = 60.0;

/// The running asymptotic confidence sequence of the mean of y ∈ [−1, 1], with or without a
/// judge.
#[derive(Debug, Clone)]
pub struct AsymptoticSequence {
    alpha: f64,
    with_judge: bool,
    rho_squared: f64,
    /// The judged targets' values (as f; y unused) and the rated targets' y and f.
    judged: Moments,
    rated: Moments,
    interval: Interval,
    estimate: f64,
}

impl AsymptoticSequence {
    /// A sequence at level 1 − `alpha`, using the judge's values or not.
    ///
    /// # Panics
    /// When `alpha` is not in (0, 1).
    pub fn new(alpha: f64, with_judge: bool) -> AsymptoticSequence {
        assert!(alpha > 0.0 && alpha < 1.0, "alpha {alpha} is not in (0, 1)");
        let log = -2.0 * alpha.ln();
        AsymptoticSequence {
            alpha,
            with_judge,
            rho_squared: (log + (log + 1.0).ln()) / TUNED_TO,
            judged: Moments::default(),
            rated: Moments::default(),
            interval: Interval {
                low: -1.0,
                high: 1.0,
            },
            estimate: 0.0,
        }
    }

    /// Takes the judge's value of one more judged target.
    pub fn observe_judged(&mut self, judge: f64) {
        self.judged.add(0.0, judge);
    }

    /// Takes a rated target (one of the judged, with its judge's value; a rated target the
    /// judge did not grade counts with the judge's mean over the judged targets, which it
    /// leaves out of the correction) and returns the interval after it.
    pub fn observe_rated(&mut self, raters: f64, judge: Option<f64>) -> Interval {
        let f = match judge {
            Some(judge) if self.with_judge => judge,
            _ if self.judged.count > 0 => self.judged.f / self.judged.count as f64,
            _ => 0.0,
        };
        self.rated.add(raters, f);
        let r = &self.rated;
        let n = r.count as f64;
        let (y_mean, f_mean) = (r.y / n, r.f / n);
        let denominator = (n - 1.0).max(1.0);
        let var_y = ((r.yy - n * y_mean * y_mean) / denominator).max(0.0);
        let var_f_rated = ((r.ff - n * f_mean * f_mean) / denominator).max(0.0);
        let cov = (r.yf - n * y_mean * f_mean) / denominator;
        let big_n = self.judged.count as f64;
        let (judged_mean, var_f) = if self.with_judge && big_n > 1.0 {
            let mean = self.judged.f / big_n;
            (
                mean,
                ((self.judged.ff - big_n * mean * mean) / (big_n - 1.0)).max(0.0),
            )
        } else {
            (f_mean, 0.0)
        };
        let lambda = if var_f > 0.0 {
            (cov * (n - 1.0) / n / var_f).clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.estimate = y_mean - lambda * (f_mean - judged_mean);
        if (n as usize) < BURN_IN {
            return self.interval;
        }
        let var_e = (var_y - 2.0 * lambda * cov + lambda * lambda * var_f_rated).max(1e-12);
        let tau_squared = if big_n > 0.0 {
            (lambda * (2.0 * cov - lambda * var_f) / big_n).max(0.0)
        } else {
            0.0
        };
        let c_squared = tau_squared / var_e;
        let stretch = 1.0 + n * c_squared;
        let clock = n / stretch;
        let rho2 = self.rho_squared;
        let radius = var_e.sqrt() * stretch / n
            * ((clock + 1.0 / rho2) * ((1.0 + clock * rho2).ln() - 2.0 * self.alpha.ln())).sqrt();
        self.interval = Interval {
            low: self.interval.low.max(self.estimate - radius),
            high: self.interval.high.min(self.estimate + radius),
        };
        if self.interval.low > self.interval.high {
            // The running intersection crossed (the data left every mean of the interval): keep
            // the point where they met rather than an empty interval.
            let middle = (self.interval.low + self.interval.high) / 2.0;
            self.interval = Interval {
                low: middle,
                high: middle,
            };
        }
        self.interval
    }

    pub fn interval(&self) -> Interval {
        self.interval
    }

    /// The estimate now (the raters' mean without a judge).
    pub fn estimate(&self) -> f64 {
        self.estimate
    }
}
