//! A judge chosen on rated targets (docs/metrics.md, "A judge chosen on rated targets"): how
//! the prediction-powered interval fares when the judge (its prompt, its model) was picked
//! among several for its agreement with the raters on a tuning set of rated targets, and those
//! targets then also correct it, or are left out of the rated ones (judged only).
//!
//! Each study draws its judged targets from a [`JudgedLibrary`] (the first `rated` of them
//! rated, the first `tuning` of those the tuning set). A prompt is the library's judge plus
//! noise of its own on every target (the prompts are equally good: whatever one wins is chance,
//! the case where choosing overfits most). The chosen prompt is the one whose values are
//! closest to the raters' on the tuning set (least squares), and the study estimates a pair of
//! models' mean NDCG difference (or a model's mean NDCG) with it, under each [`Rule`]; the
//! library's own is the truth the 95% interval must cover.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::judged_library::{JudgedLibrary, LibraryTarget};
use crate::metrics::{estimate_mean, Judged};

/// What becomes of the tuning targets in the estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// They are rated targets like the others, and correct the judge.
    Reused,
    /// They count as judged only: the rated targets that correct the judge are the others.
    LeftOut,
}

/// The studies to run.
#[derive(Debug, Clone, PartialEq)]
pub struct TunedSpec {
    /// Judged targets per study, the first `rated` of them rated, the first `tuning` of those
    /// the tuning set.
    pub judged: usize,
    pub rated: usize,
    pub tuning: usize,
    /// How many prompts the judge is chosen among (1: no choice).
    pub prompts: Vec<usize>,
    /// The sd of each prompt's own noise on a target's value, in units of the sd of the
    /// judge's values over the library.
    pub prompt_noise: f64,
    pub studies: usize,
    pub seed: u64,
}

/// How one rule fared, choosing among so many prompts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TunedRow {
    pub prompts: usize,
    pub rule: Rule,
    /// The share of studies whose 95% interval covered the truth.
    pub coverage: f64,
    pub mean_half_width: f64,
    /// Studies without an estimate (too few rated).
    pub unavailable: usize,
}

/// Every rule under every number of prompts of `spec`, over its studies of `library`, for the
/// quantity `value` of a target's models' values (a model's NDCG, a pair's difference).
///
/// # Panics
/// With a number of prompts of 0, or fewer rated targets than the tuning set.
pub fn simulate(
    library: &JudgedLibrary,
    spec: &TunedSpec,
    value: impl Fn(&[f64]) -> f64 + Sync,
) -> Vec<TunedRow> {
    assert!(spec.prompts.iter().all(|&k| k > 0) && spec.tuning <= spec.rated);
    let value = &value;
    let truth = value(&library.means);
    let judge_sd = {
        let values: Vec<f64> = library.targets.iter().map(|t| value(&t.judge)).collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64).sqrt()
    };
    let noise = spec.prompt_noise * judge_sd;
    let most = spec.prompts.iter().copied().max().unwrap_or(1);
    // Per study: for each number of prompts and rule, (covered, half width), or none.
    let outcomes: Vec<Vec<[Outcome; 2]>> = (0..spec.studies)
        .into_par_iter()
        .map(|study| {
            let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
            rng.set_stream(study as u64);
            let draws: Vec<&LibraryTarget> = library.draw(spec.judged, &mut rng);
            let prompts: Vec<Vec<f64>> = (0..most)
                .map(|_| {
                    (draws.iter())
                        .map(|target| value(&target.judge) + noise * normal(&mut rng))
                        .collect()
                })
                .collect();
            let raters: Vec<f64> = draws.iter().map(|target| value(&target.raters)).collect();
            (spec.prompts.iter())
                .map(|&count| {
                    let chosen = (0..count)
                        .min_by(|&p, &q| {
                            let misfit = |prompt: &[f64]| -> f64 {
                                (0..spec.tuning)
                                    .map(|t| (raters[t] - prompt[t]).powi(2))
                                    .sum()
                            };
                            misfit(&prompts[p]).total_cmp(&misfit(&prompts[q]))
                        })
                        .expect("a prompt at least");
                    [Rule::Reused, Rule::LeftOut].map(|rule| {
                        let first_rated = match rule {
                            Rule::Reused => 0,
                            Rule::LeftOut => spec.tuning,
                        };
                        let targets: Vec<Judged> = (0..spec.judged)
                            .map(|t| Judged {
                                judge: prompts[chosen][t],
                                raters: (first_rated..spec.rated).contains(&t).then_some(raters[t]),
                            })
                            .collect();
                        let estimate = estimate_mean(&targets).ok()?;
                        let [low, high] = estimate.ci95();
                        Some((low <= truth && truth <= high, estimate.half_width))
                    })
                })
                .collect()
        })
        .collect();
    let mut rows = Vec::new();
    for (at, &prompts) in spec.prompts.iter().enumerate() {
        for (index, rule) in [Rule::Reused, Rule::LeftOut].into_iter().enumerate() {
            let estimated: Vec<(bool, f64)> = (outcomes.iter())
                .filter_map(|study| study[at][index])
                .collect();
            let count = estimated.len().max(1) as f64;
            rows.push(TunedRow {
                prompts,
                rule,
                coverage: estimated.iter().filter(|(covered, _)| *covered).count() as f64 / count,
                mean_half_width: estimated.iter().map(|(_, width)| width).sum::<f64>() / count,
                unavailable: spec.studies - estimated.len(),
            });
        }
    }
    rows
}

/// Of one study under one rule: whether its interval covered the truth, and its half-width;
/// `None` without an estimate.
type Outcome = Option<(bool, f64)>;

/// A normal draw (Box-Muller).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    use rand::Rng;
    let (u, v): (f64, f64) = (rng.random::<f64>().max(f64::MIN_POSITIVE), rng.random());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}
