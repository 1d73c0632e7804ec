//! The prediction-powered estimates with a judge, on synthetic libraries of known truth
//! (`paperjudge::simulation::judged_library`): star-level targets, each model's NDCG computed
//! by the project's metrics from a simulated rater's stars and a simulated judge's.
//!
//!     cargo run --release --example prediction_powered [studies]
//!
//! Prints (as Markdown tables): the coverage of the fixed-sample 95% intervals at 20, 40 and 80
//! rated targets of 300 judged, for a good, a noisy, a useless and a biased judge; and the best
//! a betting sequence (the verdict's) could do with the good judge, its mean over the library
//! known and its weight fixed: why the verdict with a judge is the raters' own
//! (docs/metrics.md, "The verdict with a judge").

use paperjudge::metrics::{pairwise_alpha, Bounds, ConfidenceSequence};
use paperjudge::simulation::judged_library::{Judge, JudgedLibrary, LibrarySpec};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// A number of a target from its models' values: a model's NDCG, a pair's difference.
type Quantity = fn(&[f64]) -> f64;

/// The four models' skills: m1 is 0.10 below the leader.
const SKILLS: [f64; 4] = [1.0, 0.64, 0.4, 0.1];

/// A lenient judge: quadratic kappa about 0.6 against the simulated rater, its per-target
/// differences correlated about 0.65 with the rater's.
const GOOD: Judge = Judge::Noisy {
    noise: 0.55,
    lenience: 1.0,
};

fn library(skills: &[f64], judge: Judge) -> JudgedLibrary {
    JudgedLibrary::new(&LibrarySpec {
        targets: 20_000,
        candidates: 30,
        skills: skills.to_vec(),
        k: 8,
        judge,
        seed: 2024,
    })
}

fn judges(toward: usize) -> [(&'static str, Judge); 4] {
    [
        ("good (lenient)", GOOD),
        (
            "noisy, kappa 0.6",
            Judge::Noisy {
                noise: 1.2,
                lenience: 0.0,
            },
        ),
        ("useless (random stars)", Judge::Useless),
        (
            "biased (one model +1 star)",
            Judge::Biased {
                noise: 0.55,
                lenience: 1.0,
                toward,
            },
        ),
    ]
}

/// "median (90th percentile)" of times by nearest rank, `None` counting as beyond the horizon.
fn median_and_p90(mut times: Vec<Option<usize>>) -> String {
    times.sort_by_key(|t| t.unwrap_or(usize::MAX));
    let at = |share: f64| {
        let index = ((share * times.len() as f64).ceil() as usize).max(1) - 1;
        times[index].map_or_else(|| "never".to_owned(), |t| t.to_string())
    };
    format!("{} ({})", at(0.5), at(0.9))
}

fn main() {
    let studies: u64 = std::env::args()
        .nth(1)
        .map_or(2_000, |n| n.parse().expect("a number of studies"));
    let skills = SKILLS;

    println!("## Coverage of the fixed-sample 95% intervals: {studies} studies per cell, 300 judged targets\n");
    println!("| judge | kappa | quantity | rated | covered (PPI) | covered (raters only) | half width PPI / raters only | mean lambda |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (name, judge) in judges(1) {
        let library = library(&skills, judge);
        let quantities: [(&str, Quantity); 2] = [
            ("NDCG of the leader", |v| v[0]),
            ("leader − next (0.10)", |v| v[0] - v[1]),
        ];
        for (quantity, value) in &quantities {
            for rated in [20, 40, 80] {
                let c = library.coverage(*value, 300, rated, 0..studies);
                println!(
                    "| {name} | {:.2} | {quantity} | {rated} | {:.3} | {:.3} | {:.3} / {:.3} | {:.2} |",
                    library.kappa,
                    c.rate(),
                    c.rate_human_only(),
                    c.mean_half_width(),
                    c.mean_half_width_human_only(),
                    c.mean_lambda()
                );
            }
        }
    }

    println!("\n## The best a betting sequence could do with the good judge: its mean over the library known, λ fixed\n");
    println!("Rated targets to separate the leader from m1 (median, 90th percentile of 400 studies), by the judge's weight λ (λ = 0: the raters alone).\n");
    println!("| m1 below the leader | regression slope | λ = 0 | λ = 0.25 | λ = 0.5 | λ = the slope | λ = 1 |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for skills in [SKILLS, [1.0, 0.9, 0.4, 0.1], [1.0, 0.95, 0.4, 0.1]] {
        oracle(&library(&skills, GOOD));
    }
}

/// The best a betting sequence could do with the judge: its mean over the library known
/// exactly (no interval to pay for), a fixed weight λ, the rectified values y − λ(f − μ_f)
/// independent draws within [−1 − λ(1 + μ_f), 1 + λ(1 − μ_f)]. The rated targets to separate
/// the leader from m1, median (90th percentile) of 400 studies, at one pair's level among 4
/// models.
fn oracle(library: &JudgedLibrary) {
    let y: Vec<f64> = library
        .targets
        .iter()
        .map(|t| t.raters[0] - t.raters[1])
        .collect();
    let f: Vec<f64> = library
        .targets
        .iter()
        .map(|t| t.judge[0] - t.judge[1])
        .collect();
    let count = y.len() as f64;
    let (y_mean, f_mean) = (y.iter().sum::<f64>() / count, f.iter().sum::<f64>() / count);
    let f_variance = f.iter().map(|v| (v - f_mean).powi(2)).sum::<f64>() / count;
    let covariance = (y.iter().zip(&f))
        .map(|(a, b)| (a - y_mean) * (b - f_mean))
        .sum::<f64>()
        / count;
    let best = covariance / f_variance;
    print!("| {:.3} | {best:.2} |", y_mean);
    for weight in [0.0, 0.25, 0.5, best, 1.0] {
        let bounds = Bounds {
            low: -1.0 - weight * (1.0 + f_mean),
            high: 1.0 + weight * (1.0 - f_mean),
        };
        let times: Vec<Option<usize>> = (0..400u64)
            .into_par_iter()
            .map(|seed| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let mut sequence = ConfidenceSequence::new(bounds, pairwise_alpha(0.05, 4));
                (1..=20_000).find(|_| {
                    let i = rng.random_range(0..y.len());
                    sequence.observe(y[i] - weight * (f[i] - f_mean)).low > 0.0
                })
            })
            .collect();
        print!(" {} |", median_and_p90(times));
    }
    println!();
}
