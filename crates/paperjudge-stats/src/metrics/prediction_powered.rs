//! Prediction-powered estimates (docs/metrics.md, "Prediction-powered estimates"): a judge
//! grades many targets, the raters rate a random sample of them, and the judge's error
//! measured on that sample corrects its mean. The interval stays valid whatever the judge is
//! worth, and narrows the better it is.
//!
//! The sample: the judged targets J (a random sample of the library, every pooled pair of each
//! graded by the judge) and the rated ones H ⊂ J (the fully rated judged targets, rated in
//! `/next`'s random order: a uniform random subset of J). For each target the judge's value f
//! (a metric computed with the judge's stars) and, on H, the raters' value y. The estimand:
//! the library's mean of y.
//!
//! # How the leaderboard calls it
//!
//! Per model, one [`Judged`] per judged target (the same targets, in any order, for every
//! model): `judge` the model's NDCG under the judge's stars, `raters` its NDCG under the
//! raters' judgments where the target is fully rated, else `None`. An undefined NDCG counts 0
//! on both sides, as in the verdict: on an unrated target nobody knows whether the raters'
//! value would be defined, so a mean that skips undefined values cannot be estimated this way.
//! A model left out of a target's pool (pruning) has no value there: leave that target out of
//! the model's list, and out of every pair with it.
//!
//! - A model's mean: [`estimate_mean`] of its targets.
//! - Every pair of models: [`compare_pairs`] with each model's values per target (`None` where
//!   the model has none); each pair is estimated on the per-target differences
//!   (f_a − f_b, y_a − y_b) of the targets both have, tested with the t statistic of its
//!   estimate, and the p-values adjusted with Holm's method over all pairs, as the table's are.
//! - Below [`MIN_RATED`] rated targets, or with fewer than two judged targets outside H, the
//!   result is [`Unavailable`]: show the raters' figures alone.
//!
//! The JSON's `judge.pairs` takes `rho`, `lambda`, `half_width` and `half_width_human_only`
//! from [`PredictionPowered`], `worth_rated_targets` from
//! [`PredictionPowered::worth_rated_targets`] (its median over the pairs).
//!
//! # The estimate (PPI++, Angelopoulos, Duchi & Zrnic 2023)
//!
//! θ̂ = λ·mean_J(f) + mean_H(y − λf), with λ ≥ 0 tuned to the smallest variance. With
//! m = |J \ H| judged targets outside H and N = |J|, θ̂ = λ'·mean_U(f) + mean_H(y − λ'f) with
//! λ' = λ·m/N, the two terms independent (U = J \ H and H are disjoint), so
//! Var θ̂ = Var(y − λ'f)/n + λ'²·Var(f)/m, estimated with each part's sample variance (ddof 1).
//! Its minimum over λ is at the regression slope λ* = Cov(y, f)/Var(f), whatever n and N: the
//! classical regression estimator of double sampling (Cochran 1977, §12.6), with variance
//! Var(y)·(1 − ρ²·m/N)/n. λ is estimated as PPI++ does (`ppi_py`'s `_calc_lam_glm`): the
//! covariance over H (divided by n) over the variance of f over all of J (divided by N − 1), and
//! clipped to [0, 1]. The interval is the t interval with n − 1 degrees of freedom.
//!
//! A λ tuned on the rated targets fits them: the sample variance of y − λ'f is then too small
//! by a residual degree of freedom, and λ's own error adds to θ̂'s. With a tuned λ > 0 the
//! rectifier's variance is therefore taken with n − 2 degrees of freedom and times
//! 1 + 1/(n − 3), the small-sample variance of the regression estimator for normal data
//! (Cochran 1977, §7.9). Without it the leader's NDCG in the synthetic library was covered in
//! 93.1% of 4,000 studies at 20 rated targets (the raters' own t interval 94.0%); with it, 94.0%
//! (docs/metrics.md). With λ clipped to 0 the estimate is the raters' mean and its interval
//! theirs.

use super::resampling::holm;
use super::student_t::{t_quantile, t_two_sided_p};

/// The fewest rated targets with which a prediction-powered estimate is shown.
pub const MIN_RATED: usize = 20;

/// The fewest judged targets outside the rated ones: the judge's part of the variance needs
/// the sample variance of its values there.
pub const MIN_JUDGED_ONLY: usize = 2;

/// The level of the intervals.
const LEVEL: f64 = 0.95;

/// One judged target: the judge's value, and the raters' where the target is rated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judged {
    pub judge: f64,
    pub raters: Option<f64>,
}

/// Why a prediction-powered estimate is not given: the raters' figures alone are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    #[error("{rated} judged targets are rated; a prediction-powered estimate needs {MIN_RATED}")]
    TooFewRated { rated: usize },
    #[error("the judge graded {judged_only} targets beyond the rated ones; a prediction-powered estimate needs {MIN_JUDGED_ONLY}")]
    NothingBeyondRated { judged_only: usize },
}

/// The raters' figures alone over the rated targets: their mean and its t interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HumanOnly {
    pub estimate: f64,
    pub standard_error: f64,
    pub half_width: f64,
}

/// A prediction-powered estimate of a mean, beside the raters'-only one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PredictionPowered {
    /// λ·mean_J(f) + mean_H(y − λf).
    pub estimate: f64,
    /// The weight λ of the judge's mean over the judged targets, in [0, 1].
    pub lambda: f64,
    pub standard_error: f64,
    /// Of the t interval: |H| − 1.
    pub degrees_of_freedom: usize,
    /// Half the width of the 95% t interval.
    pub half_width: f64,
    /// The correlation of f and y over the rated targets; `None` when either is constant.
    pub rho: Option<f64>,
    /// |H| and |J|.
    pub rated: usize,
    pub judged: usize,
    /// The sample variance (ddof 1) over H of y − λ'f, λ' = λ·|J \ H| / |J| (before the
    /// small-sample correction of a tuned λ).
    pub rectifier_variance: f64,
    /// The sample variance (ddof 1) of f over the judged targets outside H.
    pub judge_variance: f64,
    pub human_only: HumanOnly,
}

impl PredictionPowered {
    /// The 95% interval.
    pub fn ci95(&self) -> [f64; 2] {
        [
            self.estimate - self.half_width,
            self.estimate + self.half_width,
        ]
    }

    /// How many rated targets the raters alone would need for the same width: |H| times the
    /// raters'-only variance over the prediction-powered one (the t quantiles aside). At least
    /// |H| is not promised: a judge tuned on a few targets can come out slightly worse.
    pub fn worth_rated_targets(&self) -> Option<f64> {
        let variance = self.standard_error * self.standard_error;
        let human = self.human_only.standard_error * self.human_only.standard_error;
        (variance > 0.0).then(|| self.rated as f64 * human / variance)
    }

    /// The two-sided p-value of the t test that the mean is 0 (for a pair: that the two models
    /// are equally good), from estimate / standard error with |H| − 1 degrees of freedom. An
    /// estimate of 0 with no spread at all has p = 1; any other without spread, p = 0.
    pub fn p_value(&self) -> f64 {
        if self.standard_error > 0.0 {
            t_two_sided_p(
                self.estimate / self.standard_error,
                self.degrees_of_freedom as f64,
            )
        } else if self.estimate == 0.0 {
            1.0
        } else {
            0.0
        }
    }
}

/// The mean and the sample variance (ddof 1; 0 for fewer than two values) of `values`.
fn mean_and_variance(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let (count, sum) = values
        .clone()
        .fold((0usize, 0.0), |(n, s), v| (n + 1, s + v));
    let mean = sum / count as f64;
    let squares: f64 = values.map(|v| (v - mean) * (v - mean)).sum();
    let variance = if count > 1 {
        squares / (count - 1) as f64
    } else {
        0.0
    };
    (mean, variance)
}

/// The PPI++ estimate of the mean of y from `targets`, λ tuned ([`estimate_mean_with`] with
/// `None`).
pub fn estimate_mean(targets: &[Judged]) -> Result<PredictionPowered, Unavailable> {
    estimate_mean_with(targets, None)
}

/// The estimate with the judge's weight λ given (clipped to [0, 1]), or tuned with `None`:
/// λ = Cov_H(y, f) / Var_J(f), clipped to [0, 1] (0 when the judge's values do not vary).
pub fn estimate_mean_with(
    targets: &[Judged],
    lambda: Option<f64>,
) -> Result<PredictionPowered, Unavailable> {
    let rated: Vec<(f64, f64)> = (targets.iter())
        .filter_map(|t| t.raters.map(|y| (y, t.judge)))
        .collect();
    let judged_only: Vec<f64> = (targets.iter())
        .filter(|t| t.raters.is_none())
        .map(|t| t.judge)
        .collect();
    let (n, m) = (rated.len(), judged_only.len());
    if n < MIN_RATED {
        return Err(Unavailable::TooFewRated { rated: n });
    }
    if m < MIN_JUDGED_ONLY {
        return Err(Unavailable::NothingBeyondRated { judged_only: m });
    }
    let total = n + m;
    let (y_mean, y_variance) = mean_and_variance(rated.iter().map(|&(y, _)| y));
    let (f_rated_mean, f_rated_variance) = mean_and_variance(rated.iter().map(|&(_, f)| f));
    let (f_all_mean, f_all_variance) = mean_and_variance(targets.iter().map(|t| t.judge));
    let covariance = (rated.iter())
        .map(|&(y, f)| (y - y_mean) * (f - f_rated_mean))
        .sum::<f64>();
    let tuned = lambda.is_none();
    let lambda = match lambda {
        Some(given) => given,
        // PPI++'s estimate: the covariance over H divided by n, the variance over J by N − 1.
        None if f_all_variance > 0.0 => covariance / n as f64 / f_all_variance,
        None => 0.0,
    }
    .clamp(0.0, 1.0);
    let estimate = y_mean - lambda * (f_rated_mean - f_all_mean);
    // The same estimate as λ'·mean_U(f) + mean_H(y − λ'f), whose two terms are independent.
    let disjoint = lambda * m as f64 / total as f64;
    let (_, rectifier_variance) = mean_and_variance(rated.iter().map(|&(y, f)| y - disjoint * f));
    let (_, judge_variance) = mean_and_variance(judged_only.iter().copied());
    let n_f = n as f64;
    let small_sample = if tuned && lambda > 0.0 {
        (n_f - 1.0) / (n_f - 2.0) * (1.0 + 1.0 / (n_f - 3.0))
    } else {
        1.0
    };
    let variance =
        rectifier_variance * small_sample / n_f + disjoint * disjoint * judge_variance / m as f64;
    let quantile = t_quantile(0.5 + LEVEL / 2.0, (n - 1) as f64);
    let standard_error = variance.sqrt();
    let human_error = (y_variance / n as f64).sqrt();
    let rho = (y_variance > 0.0 && f_rated_variance > 0.0)
        .then(|| covariance / (n - 1) as f64 / (y_variance * f_rated_variance).sqrt());
    Ok(PredictionPowered {
        estimate,
        lambda,
        standard_error,
        degrees_of_freedom: n - 1,
        half_width: quantile * standard_error,
        rho,
        rated: n,
        judged: total,
        rectifier_variance,
        judge_variance,
        human_only: HumanOnly {
            estimate: y_mean,
            standard_error: human_error,
            half_width: quantile * human_error,
        },
    })
}

/// A pair of models (by position, `a` before `b`) compared on the targets both have: the
/// estimate of the mean of a − b, its test, and Holm's adjustment over all pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct PairComparison {
    pub a: usize,
    pub b: usize,
    pub result: Result<PairTest, Unavailable>,
}

/// The prediction-powered estimate of a pair's mean difference and its paired t test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairTest {
    pub difference: PredictionPowered,
    pub p_value: f64,
    /// Adjusted by Holm's method over every pair that has a test.
    pub p_value_holm: f64,
}

/// Every pair (a, b), a < b, of `models[model][target]` (each model's value per judged target,
/// `None` where it has none), in the order (0, 1), (0, 2), …, (1, 2), …: the pair's
/// prediction-powered estimate of the mean of a − b over the targets both have, and its t
/// test, Holm-adjusted over the pairs tested.
///
/// # Panics
/// When the models' lists differ in length (they are per target).
pub fn compare_pairs(models: &[Vec<Option<Judged>>]) -> Vec<PairComparison> {
    let targets = models.first().map_or(0, Vec::len);
    assert!(
        models.iter().all(|values| values.len() == targets),
        "every model has one value per judged target"
    );
    let mut comparisons: Vec<PairComparison> = (0..models.len())
        .flat_map(|a| (a + 1..models.len()).map(move |b| (a, b)))
        .map(|(a, b)| {
            let differences: Vec<Judged> = (models[a].iter().zip(&models[b]))
                .filter_map(|(first, second)| {
                    let (first, second) = ((*first)?, (*second)?);
                    Some(Judged {
                        judge: first.judge - second.judge,
                        raters: first.raters.zip(second.raters).map(|(x, y)| x - y),
                    })
                })
                .collect();
            let result = estimate_mean(&differences).map(|difference| PairTest {
                difference,
                p_value: difference.p_value(),
                p_value_holm: f64::NAN,
            });
            PairComparison { a, b, result }
        })
        .collect();
    let tested: Vec<f64> = (comparisons.iter())
        .filter_map(|c| c.result.as_ref().ok().map(|test| test.p_value))
        .collect();
    let mut adjusted = holm(&tested).into_iter();
    for comparison in &mut comparisons {
        if let Ok(test) = &mut comparison.result {
            test.p_value_holm = adjusted.next().expect("one adjusted p-value per test");
        }
    }
    comparisons
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(rated: &[(f64, f64)], judged_only: &[f64]) -> Vec<Judged> {
        (rated.iter())
            .map(|&(y, f)| Judged {
                judge: f,
                raters: Some(y),
            })
            .chain(judged_only.iter().map(|&f| Judged {
                judge: f,
                raters: None,
            }))
            .collect()
    }

    #[test]
    fn too_few_rated_or_nothing_beyond_them_is_said() {
        let rated: Vec<(f64, f64)> = (0..19).map(|i| (f64::from(i), f64::from(i))).collect();
        assert_eq!(
            estimate_mean(&sample(&rated, &[1.0, 2.0])),
            Err(Unavailable::TooFewRated { rated: 19 })
        );
        let rated: Vec<(f64, f64)> = (0..20).map(|i| (f64::from(i), f64::from(i))).collect();
        assert_eq!(
            estimate_mean(&sample(&rated, &[1.0])),
            Err(Unavailable::NothingBeyondRated { judged_only: 1 })
        );
        assert_eq!(
            Unavailable::TooFewRated { rated: 3 }.to_string(),
            "3 judged targets are rated; a prediction-powered estimate needs 20"
        );
    }

    /// λ = 0 is the raters' mean and its t interval, whatever the judge says.
    #[test]
    fn a_weight_of_zero_is_the_raters_alone() {
        let rated: Vec<(f64, f64)> = (0..25)
            .map(|i| (f64::from(i % 7) / 7.0, f64::from(i % 3)))
            .collect();
        let estimate = estimate_mean_with(&sample(&rated, &[5.0, -3.0, 2.0]), Some(0.0)).unwrap();
        assert_eq!(estimate.estimate, estimate.human_only.estimate);
        assert_eq!(estimate.standard_error, estimate.human_only.standard_error);
        assert_eq!(estimate.worth_rated_targets(), Some(25.0));
    }

    /// A judge whose values equal the raters' on every target: the estimate is the mean of the
    /// judge's values over all judged targets, λ is 1.
    #[test]
    fn a_perfect_judge_gets_full_weight() {
        let values: Vec<f64> = (0..60).map(|i| f64::from((i * 37) % 11) / 10.0).collect();
        let rated: Vec<(f64, f64)> = values[..20].iter().map(|&v| (v, v)).collect();
        let estimate = estimate_mean(&sample(&rated, &values[20..])).unwrap();
        let all_mean = values.iter().sum::<f64>() / 60.0;
        assert!((estimate.estimate - all_mean).abs() < 1e-12);
        assert!(estimate.lambda > 0.95, "{estimate:?}");
        assert!(estimate.rho.unwrap() > 0.999_999);
        assert!(
            estimate.worth_rated_targets().unwrap() > 40.0,
            "{estimate:?}"
        );
    }

    #[test]
    fn pairs_are_tested_on_the_targets_both_have_and_adjusted_together() {
        let judged = |y: Option<f64>, f: f64| {
            Some(Judged {
                judge: f,
                raters: y,
            })
        };
        let models: Vec<Vec<Option<Judged>>> = (0..3)
            .map(|model| {
                (0..40)
                    .map(|t| {
                        let base = f64::from(t % 5) / 5.0;
                        let value = (base + 0.1 * f64::from(model)).min(1.0);
                        let rated = (t < 25).then_some(value);
                        // Model 2 was pruned from the last five targets.
                        (model < 2 || t < 35)
                            .then(|| judged(rated, value * 0.9))
                            .flatten()
                    })
                    .collect()
            })
            .collect();
        let comparisons = compare_pairs(&models);
        let pairs: Vec<(usize, usize)> = comparisons.iter().map(|c| (c.a, c.b)).collect();
        assert_eq!(pairs, [(0, 1), (0, 2), (1, 2)]);
        let tests: Vec<&PairTest> = (comparisons.iter())
            .map(|c| c.result.as_ref().unwrap())
            .collect();
        assert_eq!(tests[1].difference.judged, 35);
        assert_eq!(tests[0].difference.judged, 40);
        let raw: Vec<f64> = tests.iter().map(|t| t.p_value).collect();
        let adjusted: Vec<f64> = tests.iter().map(|t| t.p_value_holm).collect();
        assert_eq!(adjusted, holm(&raw));
    }
}
