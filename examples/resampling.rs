//! Times the resampling of a realistic leaderboard: the bootstrap interval of 8 models and
//! the sign-flip test of 7 of them against the leader, over 5,000 targets, 10,000 resamples
//! each; prints the median time of each over several runs, then every interval and p-value to
//! the last digit (to compare two builds' output with diff).
//!
//!     cargo run --release --example resampling [runs]

use std::time::{Duration, Instant};

use paperjudge::metrics::{bootstrap_ci95_each, sign_flip_p_values_each};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const TARGETS: usize = 5_000;
const MODELS: usize = 8;

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .map_or(5, |n| n.parse().expect("runs"));
    // Per-target NDCG: each model a little worse than the one before; a model often lists
    // what the leader lists, which ties them on that target.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let leader: Vec<f64> = (0..TARGETS).map(|_| rng.random::<f64>()).collect();
    let models: Vec<Vec<f64>> = (0..MODELS)
        .map(|model| {
            (leader.iter())
                .map(|&value| {
                    if model == 0 || rng.random_bool(0.3) {
                        value
                    } else {
                        (value - 0.02 * model as f64 * rng.random::<f64>()).clamp(0.0, 1.0)
                    }
                })
                .collect()
        })
        .collect();
    let differences: Vec<Vec<f64>> = (models[1..].iter())
        .map(|model| model.iter().zip(&models[0]).map(|(m, l)| m - l).collect())
        .collect();
    let samples: Vec<&[f64]> = models.iter().map(Vec::as_slice).collect();
    let sets: Vec<&[f64]> = differences.iter().map(Vec::as_slice).collect();

    let (bootstrap_time, intervals) = median_time(runs, || bootstrap_ci95_each(&samples));
    let (sign_flip_time, p_values) = median_time(runs, || sign_flip_p_values_each(&sets));
    println!(
        "{TARGETS} targets x {MODELS} models, median of {runs} runs: \
         bootstrap {bootstrap_time:.3?}, sign-flip {sign_flip_time:.3?}"
    );
    for (model, interval) in intervals.iter().enumerate() {
        println!("model {model} ci95 {interval:?}");
    }
    for (model, p) in p_values.iter().enumerate() {
        println!("model {} p {p:?}", model + 1);
    }
}

fn median_time<T>(runs: usize, work: impl Fn() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(runs);
    let mut result = None;
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        result = Some(work());
        times.push(started.elapsed());
    }
    times.sort();
    (times[times.len() / 2], result.expect("at least one run"))
}
