//! Why the lists view resamples its targets in batches (docs/metrics.md, "The lists"): the
//! bootstrap intervals of every pair of 8 models (28 pairs, Jaccard and RBO: 56 means) over
//! study L's 40,000 targets, resampled target by target, against the same targets dealt into
//! the view's 500 batches; 10,000 resamples each. Prints the time of each.
//!
//!     cargo run --release --example lists_intervals [targets]

use std::time::Instant;

use paperjudge::lists::BATCHES;
use paperjudge::metrics::bootstrap_ci95_each;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MEANS: usize = 56;

fn main() {
    let targets: usize = std::env::args()
        .nth(1)
        .map_or(40_000, |n| n.parse().expect("a number of targets"));
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let columns: Vec<Vec<f64>> = (0..MEANS)
        .map(|_| (0..targets).map(|_| rng.random::<f64>()).collect())
        .collect();
    let batched: Vec<Vec<f64>> = (columns.iter())
        .map(|values| {
            let batches = targets.min(BATCHES);
            let mut sums = vec![0.0; batches];
            for (position, value) in values.iter().enumerate() {
                sums[position % batches] += value;
            }
            sums
        })
        .collect();
    for (name, columns) in [("in 500 batches", &batched), ("target by target", &columns)] {
        let columns: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        let started = Instant::now();
        let intervals = bootstrap_ci95_each(&columns);
        println!(
            "{MEANS} means of {targets} targets, {name}: {:.2} s ({} intervals)",
            started.elapsed().as_secs_f64(),
            intervals.iter().flatten().count()
        );
    }
}
