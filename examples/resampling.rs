//! Times the resampling of a realistic leaderboard, 8 models over 5,000 targets, 10,000
//! resamples each: the leaderboard's sums afresh (its Poisson bootstrap and sign-flip tests,
//! as the command line and a study's first load compute them), its intervals and tests from
//! them, one more target added (as after a rating that finishes one), and the bootstrap that
//! draws indices (the lists'); prints the median time of each over several runs, then every
//! interval and p-value to the last digit (to compare two builds' output with diff).
//!
//!     cargo run --release --example resampling [runs]

use std::time::{Duration, Instant};

use paperjudge::metrics::{additive, bootstrap_ci95_each};
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
    let names: Vec<String> = (0..=TARGETS).map(|target| format!("t{target}")).collect();
    let targets: Vec<&str> = names[..TARGETS].iter().map(String::as_str).collect();
    let values: Vec<Vec<Option<f64>>> = (models.iter())
        .map(|model| model.iter().map(|&value| Some(value)).collect())
        .collect();
    let order: Vec<usize> = (0..MODELS).collect();

    let (sums_time, sums) = median_time(runs, || {
        additive::Sums::of(&targets, MODELS, |model, target| values[model][target])
    });
    let (board_time, (intervals, comparisons)) = median_time(runs, || {
        let intervals: Vec<_> = (0..MODELS).map(|model| sums.ci95(model)).collect();
        (
            intervals,
            sums.compare_with_first(&order, &targets, &values),
        )
    });
    let (add_time, _) = median_time(runs, || {
        let mut more = sums.clone();
        more.add(
            &names[TARGETS],
            (0..MODELS).map(|model| Some(model as f64 / 8.0)),
        );
        more
    });
    let samples: Vec<&[f64]> = models.iter().map(Vec::as_slice).collect();
    let (indices_time, _) = median_time(runs, || bootstrap_ci95_each(&samples));
    println!(
        "{TARGETS} targets x {MODELS} models, median of {runs} runs: sums afresh \
         {sums_time:.3?}, intervals and tests from them {board_time:.3?}, one target added \
         {add_time:.3?}; the bootstrap of drawn indices {indices_time:.3?}"
    );
    for (model, interval) in intervals.iter().enumerate() {
        println!("model {model} ci95 {interval:?}");
    }
    for (model, comparison) in comparisons.iter().enumerate().skip(1) {
        println!("model {model} p {:?}", comparison.p_value);
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
