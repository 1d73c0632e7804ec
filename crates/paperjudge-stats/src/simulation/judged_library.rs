//! A synthetic library whose truth is known, for checking the prediction-powered estimates
//! (docs/metrics.md, "Prediction-powered estimates") on data shaped like a study's: stars,
//! pools and NDCG, not abstract numbers.
//!
//! Every target has candidate papers of a latent relevance. Each model ranks the candidates
//! by its own noisy view of that relevance (more skill, less noise; a component shared by all
//! models makes them agree on some wrong papers, as real models do) and lists its top k; the
//! pool is the union of the lists. The simulated rater gives each pooled paper the stars its
//! relevance falls into, with a little noise of their own; the judge gives stars from a
//! noisier view ([`Judge`]), so that its quality, measured as the raters measure it (quadratic
//! kappa against the rater over pooled pairs), is a knob. Each model's NDCG on a target is
//! computed by the project's own [`metrics::evaluate_target`] with the default settings, once
//! with the rater's stars (the raters' value y) and once with the judge's (the judge's value f);
//! an undefined NDCG (nothing relevant in the pool) counts 0, as in the verdict.
//!
//! A study is then targets drawn i.i.d. from the library ([`JudgedLibrary::draw`]): the
//! library's own means are the truth every interval must cover.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::domain::Stars;
use crate::metrics::{self, quadratic_weighted_kappa, Judged, Settings};

/// Where a paper's latent relevance (plus the grader's noise) crosses into 2, 3, 4 and 5
/// stars: about 40% of candidates get 1 star, 8% get 5.
const STAR_THRESHOLDS: [f64; 4] = [-0.3, 0.5, 1.05, 1.75];

/// The simulated rater's own noise on the latent relevance.
const RATER_NOISE: f64 = 0.3;

/// How much the targets differ in how much they have to find (sd of a shift of every
/// candidate's relevance).
const RICHNESS: f64 = 0.7;

/// The weight of the noise every model shares (papers all models wrongly like).
const SHARED_NOISE: f64 = 0.7;

/// How the judge grades a pooled paper.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Judge {
    /// Stars from the latent relevance, shifted up by `lenience` (a judge that grades more
    /// generously than the rater, as machine judges tend to) plus noise of sd `noise` (the
    /// rater's is 0.3): the larger either, the lower its kappa against the rater.
    Noisy { noise: f64, lenience: f64 },
    /// Stars uniformly at random, independent of everything.
    Useless,
    /// As `Noisy`, and one star more (at most 5) for every paper in this model's top k: a
    /// judge that favours one model.
    Biased {
        noise: f64,
        lenience: f64,
        toward: usize,
    },
}

/// What a library is made of.
#[derive(Debug, Clone, PartialEq)]
pub struct LibrarySpec {
    /// Targets in the library (studies draw from them with replacement).
    pub targets: usize,
    /// Candidate papers per target.
    pub candidates: usize,
    /// Each model's skill: the weight of the latent relevance in its scores, against noise of
    /// weight 1.
    pub skills: Vec<f64>,
    /// The cutoff k and the pool depth.
    pub k: usize,
    pub judge: Judge,
    pub seed: u64,
}

/// One target of the library: each model's NDCG with the rater's stars and with the judge's.
#[derive(Debug, Clone, PartialEq)]
pub struct LibraryTarget {
    pub raters: Vec<f64>,
    pub judge: Vec<f64>,
}

/// A synthetic library with its truth.
#[derive(Debug, Clone)]
pub struct JudgedLibrary {
    pub targets: Vec<LibraryTarget>,
    /// Each model's mean NDCG over the library (the raters' values): the truth.
    pub means: Vec<f64>,
    /// The judge's quadratic-weighted kappa against the rater, over every pooled pair.
    pub kappa: f64,
}

/// A normal draw (Box-Muller).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let (u, v): (f64, f64) = (rng.random::<f64>().max(f64::MIN_POSITIVE), rng.random());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

fn stars_of(relevance: f64) -> Stars {
    let above = STAR_THRESHOLDS.iter().filter(|&&t| relevance > t).count();
    Stars::new(1 + above as i64).expect("1 to 5 stars")
}

impl JudgedLibrary {
    /// The library `spec` describes; the same spec gives the same library.
    ///
    /// # Panics
    /// With fewer than two models, no target, or fewer candidates than k.
    pub fn new(spec: &LibrarySpec) -> JudgedLibrary {
        assert!(spec.skills.len() >= 2 && spec.targets > 0 && spec.candidates >= spec.k);
        let settings = Settings {
            k: NonZeroUsize::new(spec.k).expect("k is at least 1"),
            ..Settings::default()
        };
        let made: Vec<(LibraryTarget, [[u64; 5]; 5])> = (0..spec.targets)
            .into_par_iter()
            .map(|target| {
                let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
                rng.set_stream(target as u64);
                Self::target(spec, &settings, &mut rng)
            })
            .collect();
        let mut confusion = [[0u64; 5]; 5];
        for (_, table) in &made {
            for (row, counts) in confusion.iter_mut().zip(table) {
                for (cell, count) in row.iter_mut().zip(counts) {
                    *cell += count;
                }
            }
        }
        let targets: Vec<LibraryTarget> = made.into_iter().map(|(target, _)| target).collect();
        let models = spec.skills.len();
        let means = (0..models)
            .map(|m| targets.iter().map(|t| t.raters[m]).sum::<f64>() / targets.len() as f64)
            .collect();
        JudgedLibrary {
            targets,
            means,
            kappa: quadratic_weighted_kappa(&confusion).unwrap_or(0.0),
        }
    }

    fn target(
        spec: &LibrarySpec,
        settings: &Settings,
        rng: &mut ChaCha8Rng,
    ) -> (LibraryTarget, [[u64; 5]; 5]) {
        let shift = RICHNESS * normal(rng);
        let relevance: Vec<f64> = (0..spec.candidates).map(|_| shift + normal(rng)).collect();
        let shared: Vec<f64> = (0..spec.candidates).map(|_| normal(rng)).collect();
        let lists: Vec<Vec<usize>> = (spec.skills.iter())
            .map(|&skill| {
                let scores: Vec<f64> = (0..spec.candidates)
                    .map(|c| skill * relevance[c] + SHARED_NOISE * shared[c] + normal(rng))
                    .collect();
                let mut order: Vec<usize> = (0..spec.candidates).collect();
                order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
                order.truncate(spec.k);
                order
            })
            .collect();
        let mut pool: Vec<usize> = lists.iter().flatten().copied().collect();
        pool.sort_unstable();
        pool.dedup();
        let rater: HashMap<usize, Stars> = (pool.iter())
            .map(|&paper| {
                (
                    paper,
                    stars_of(relevance[paper] + RATER_NOISE * normal(rng)),
                )
            })
            .collect();
        let judge: HashMap<usize, Stars> = (pool.iter())
            .map(|&paper| {
                let stars = match spec.judge {
                    Judge::Useless => Stars::new(rng.random_range(1..=5)).expect("1 to 5"),
                    Judge::Noisy { noise, lenience } => {
                        stars_of(relevance[paper] + lenience + noise * normal(rng))
                    }
                    Judge::Biased {
                        noise,
                        lenience,
                        toward,
                    } => {
                        let stars = stars_of(relevance[paper] + lenience + noise * normal(rng));
                        match lists[toward].contains(&paper) {
                            true => Stars::new(i64::from(stars.get().min(4)) + 1).expect("<= 5"),
                            false => stars,
                        }
                    }
                };
                (paper, stars)
            })
            .collect();
        let mut confusion = [[0u64; 5]; 5];
        for paper in &pool {
            let (r, j) = (rater[paper].get(), judge[paper].get());
            confusion[usize::from(r) - 1][usize::from(j) - 1] += 1;
        }
        let ndcg = |judgments: &HashMap<usize, Stars>| -> Vec<f64> {
            (lists.iter())
                .map(|list| {
                    (metrics::evaluate_target(list, judgments, settings).ndcg).unwrap_or(0.0)
                })
                .collect()
        };
        let target = LibraryTarget {
            raters: ndcg(&rater),
            judge: ndcg(&judge),
        };
        (target, confusion)
    }

    /// `count` targets drawn uniformly with replacement, by `rng`: a study's judged targets in
    /// the order they are rated.
    pub fn draw<'a>(&'a self, count: usize, rng: &mut ChaCha8Rng) -> Vec<&'a LibraryTarget> {
        (0..count)
            .map(|_| &self.targets[rng.random_range(0..self.targets.len())])
            .collect()
    }
}

/// A study's judged targets drawn from the library, the first `rated` of them rated (the
/// draws' order is the study's random order).
fn study_sample(
    draws: &[&LibraryTarget],
    rated: usize,
    value: impl Fn(&[f64]) -> f64,
) -> Vec<Judged> {
    (draws.iter().enumerate())
        .map(|(position, target)| Judged {
            judge: value(&target.judge),
            raters: (position < rated).then(|| value(&target.raters)),
        })
        .collect()
}

/// Of many studies, how often the fixed-sample 95% intervals covered the library's truth.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Coverage {
    pub studies: usize,
    /// Studies whose prediction-powered interval covered the truth, and whose raters'-only t
    /// interval did.
    pub covered: usize,
    pub covered_human_only: usize,
    /// Studies without a prediction-powered estimate (too few rated, nothing beyond them).
    pub unavailable: usize,
    /// Σ of the half widths, prediction-powered and raters' only, and of λ.
    pub half_width_sum: f64,
    pub half_width_human_only_sum: f64,
    pub lambda_sum: f64,
}

impl Coverage {
    pub fn rate(&self) -> f64 {
        self.covered as f64 / self.studies as f64
    }

    pub fn rate_human_only(&self) -> f64 {
        self.covered_human_only as f64 / self.studies as f64
    }

    pub fn mean_half_width(&self) -> f64 {
        self.half_width_sum / (self.studies - self.unavailable).max(1) as f64
    }

    pub fn mean_half_width_human_only(&self) -> f64 {
        self.half_width_human_only_sum / (self.studies - self.unavailable).max(1) as f64
    }

    pub fn mean_lambda(&self) -> f64 {
        self.lambda_sum / (self.studies - self.unavailable).max(1) as f64
    }
}

impl JudgedLibrary {
    /// The coverage of the fixed-sample intervals of `value` of a target (a model's NDCG, a
    /// pair's difference: a function of the models' values) over studies with `judged` targets
    /// of which `rated` are rated, one per seed.
    pub fn coverage(
        &self,
        value: impl Fn(&[f64]) -> f64 + Sync,
        judged: usize,
        rated: usize,
        seeds: std::ops::Range<u64>,
    ) -> Coverage {
        let truth =
            self.targets.iter().map(|t| value(&t.raters)).sum::<f64>() / self.targets.len() as f64;
        (seeds.into_par_iter())
            .map(|seed| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let draws = self.draw(judged, &mut rng);
                let sample = study_sample(&draws, rated, &value);
                let mut one = Coverage {
                    studies: 1,
                    ..Coverage::default()
                };
                match metrics::estimate_mean(&sample) {
                    Ok(estimate) => {
                        let [low, high] = estimate.ci95();
                        one.covered = usize::from(low <= truth && truth <= high);
                        let human = estimate.human_only;
                        one.covered_human_only =
                            usize::from((human.estimate - truth).abs() <= human.half_width);
                        one.half_width_sum = estimate.half_width;
                        one.half_width_human_only_sum = human.half_width;
                        one.lambda_sum = estimate.lambda;
                    }
                    Err(_) => one.unavailable = 1,
                }
                one
            })
            .reduce(Coverage::default, |a, b| Coverage {
                studies: a.studies + b.studies,
                covered: a.covered + b.covered,
                covered_human_only: a.covered_human_only + b.covered_human_only,
                unavailable: a.unavailable + b.unavailable,
                half_width_sum: a.half_width_sum + b.half_width_sum,
                half_width_human_only_sum: a.half_width_human_only_sum
                    + b.half_width_human_only_sum,
                lambda_sum: a.lambda_sum + b.lambda_sum,
            })
    }
}
