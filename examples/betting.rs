//! How the verdict's betting strategy was chosen: each candidate confidence sequence fed
//! simulated per-target NDCG differences, at the level one pair gets among several models;
//! for each, the targets it takes to separate a difference from 0 (median and 90th
//! percentile over many studies), and under a null how many studies ever exclude 0.
//!
//!     cargo run --release --example betting [studies]
//!
//! Differences are drawn independently, normal around the difference with the spread given,
//! clipped to [-1, 1] (symmetric around 0 under the null, so its mean stays 0).

use paperjudge::metrics::{pairwise_alpha, Betting, Bounds, ConfidenceSequence, GRID_STEPS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// The most targets one simulated study rates.
const HORIZON: usize = 400;

const STRATEGIES: [(&str, Betting); 5] = [
    (
        "plug-in, truncation 0.5 (confseq's hedged_cs)",
        Betting::PlugIn { truncation: 0.5 },
    ),
    (
        "plug-in, truncation 0.9",
        Betting::PlugIn { truncation: 0.9 },
    ),
    (
        "aGRAPA, truncation 0.75",
        Betting::Agrapa { truncation: 0.75 },
    ),
    (
        "aGRAPA, truncation 0.9 (the verdict's)",
        Betting::Agrapa { truncation: 0.9 },
    ),
    (
        "tuned to 65 targets, truncation 0.9",
        Betting::Tuned {
            planned: 65,
            truncation: 0.9,
        },
    ),
];

/// A difference between two models, how widely it varies from target to target, and the
/// number of models whose pairs share alpha = 0.05.
struct Scenario {
    name: &'static str,
    difference: f64,
    spread: f64,
    models: usize,
}

const SCENARIOS: [Scenario; 5] = [
    Scenario {
        name: "7 models, 0.64 apart, sd 0.20",
        difference: 0.64,
        spread: 0.2,
        models: 7,
    },
    Scenario {
        name: "7 models, 0.16 apart, sd 0.15",
        difference: 0.16,
        spread: 0.15,
        models: 7,
    },
    Scenario {
        name: "7 models, 0.16 apart, sd 0.20",
        difference: 0.16,
        spread: 0.2,
        models: 7,
    },
    Scenario {
        name: "6 models, 0.30 apart, sd 0.25",
        difference: 0.3,
        spread: 0.25,
        models: 6,
    },
    Scenario {
        name: "2 models, equal, sd 0.20 (null)",
        difference: 0.0,
        spread: 0.2,
        models: 2,
    },
];

/// A normal draw (Box-Muller).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let (u, v): (f64, f64) = (rng.random::<f64>().max(f64::MIN_POSITIVE), rng.random());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// The targets one study took to exclude 0, if it did within the horizon.
fn targets_to_separate(scenario: &Scenario, betting: Betting, seed: u64) -> Option<usize> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let alpha = pairwise_alpha(0.05, scenario.models);
    let mut sequence =
        ConfidenceSequence::with_betting(Bounds::DIFFERENCE, alpha, betting, GRID_STEPS);
    (1..=HORIZON).find(|_| {
        let d = (scenario.difference + scenario.spread * normal(&mut rng)).clamp(-1.0, 1.0);
        !sequence.observe(d).contains(0.0)
    })
}

fn main() {
    let studies: u64 = std::env::args()
        .nth(1)
        .map_or(200, |n| n.parse().expect("a number of studies"));
    println!("{studies} studies per cell, at most {HORIZON} targets each; alpha 0.05 shared by the pairs\n");
    print!("| strategy |");
    for scenario in &SCENARIOS {
        print!(" {} |", scenario.name);
    }
    println!();
    println!("|{}", " --- |".repeat(SCENARIOS.len() + 1));
    for (name, betting) in STRATEGIES {
        print!("| {name} |");
        for scenario in &SCENARIOS {
            let mut times: Vec<Option<usize>> = (0..studies)
                .into_par_iter()
                .map(|seed| targets_to_separate(scenario, betting, seed))
                .collect();
            if scenario.difference == 0.0 {
                let wrong = times.iter().filter(|t| t.is_some()).count();
                print!(" {wrong} of {studies} ever exclude 0 |");
                continue;
            }
            times.sort_by_key(|t| t.unwrap_or(usize::MAX));
            let at = |share: f64| {
                let index = ((share * studies as f64).ceil() as usize).max(1) - 1;
                times[index].map_or_else(|| format!(">{HORIZON}"), |t| t.to_string())
            };
            print!(" {} (p90 {}) |", at(0.5), at(0.9));
        }
        println!();
    }
}
