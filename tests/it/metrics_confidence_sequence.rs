//! The betting confidence sequence against the authors' `confseq` package on fixed inputs
//! (tests/fixtures/confseq, made by its reference.py), and its coverage over simulated
//! monitored studies: under a null, the share of studies whose sequence ever excludes the
//! true mean stays at or below alpha, however long they are watched.

use std::num::NonZeroUsize;

use paperjudge::metrics::{Bounds, ConfidenceSequence, Interval};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Deserialize;

/// The grid is the same as confseq's, so the intervals agree but for rounding.
const TOLERANCE: f64 = 1e-12;

#[derive(Deserialize)]
struct Reference {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    alpha: f64,
    population: Option<usize>,
    breaks: usize,
    observations: Vec<f64>,
    low: Vec<f64>,
    high: Vec<f64>,
}

fn reference() -> Reference {
    let text = include_str!("../fixtures/confseq/reference.json");
    serde_json::from_str(text).expect("the fixture parses")
}

const UNIT: Bounds = Bounds {
    low: 0.0,
    high: 1.0,
};

#[test]
fn agrees_with_confseq() {
    for case in reference().cases {
        let population = case.population.and_then(NonZeroUsize::new);
        let mut sequence = ConfidenceSequence::with_grid(UNIT, case.alpha, population, case.breaks);
        for (t, &x) in case.observations.iter().enumerate() {
            let interval = sequence.observe(x);
            assert!(
                (interval.low - case.low[t]).abs() <= TOLERANCE
                    && (interval.high - case.high[t]).abs() <= TOLERANCE,
                "{} after {} observations: [{}, {}] against confseq's [{}, {}]",
                case.name,
                t + 1,
                interval.low,
                interval.high,
                case.low[t],
                case.high[t]
            );
        }
    }
}

/// NDCG differences on [-1, 1] give confseq's interval for (d + 1) / 2, mapped back.
#[test]
fn agrees_with_confseq_on_ndcg_differences() {
    let case = (reference().cases.into_iter())
        .find(|case| case.name == "ndcg_differences_mostly_ties")
        .unwrap();
    let mut sequence = ConfidenceSequence::new(Bounds::DIFFERENCE, case.alpha, None);
    for (t, &x) in case.observations.iter().enumerate() {
        let interval = sequence.observe(2.0 * x - 1.0);
        assert!((interval.low - (2.0 * case.low[t] - 1.0)).abs() <= TOLERANCE);
        assert!((interval.high - (2.0 * case.high[t] - 1.0)).abs() <= TOLERANCE);
    }
}

const STUDIES: u64 = 1_000;
const ALPHA: f64 = 0.05;

/// Of `STUDIES` simulated studies, how many have a sequence that misses `mean` at some time.
/// `study(seed)` gives a study's observations in the order they arrive.
fn ever_missing(
    mean: f64,
    population: Option<usize>,
    study: impl Fn(&mut ChaCha8Rng) -> Vec<f64> + Sync,
) -> u64 {
    (0..STUDIES)
        .into_par_iter()
        .filter(|&seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let observations = study(&mut rng);
            let mut sequence = ConfidenceSequence::new(
                Bounds::DIFFERENCE,
                ALPHA,
                population.and_then(NonZeroUsize::new),
            );
            (observations.into_iter())
                .map(|d| sequence.observe(d))
                .any(|interval: Interval| !interval.contains(mean))
        })
        .count() as u64
}

#[track_caller]
fn assert_at_most_alpha(missed: u64, what: &str) {
    eprintln!("{what}: {missed} of {STUDIES} studies ever missed the mean");
    assert!(
        missed as f64 <= ALPHA * STUDIES as f64,
        "{what}: {missed} of {STUDIES} studies ever missed the mean"
    );
}

/// Two models tied on 40% of the targets, either one better by up to 0.5 on the rest: the
/// mean difference is 0, and 200 targets are watched one by one.
#[test]
fn under_a_null_the_sequence_rarely_ever_excludes_0() {
    let missed = ever_missing(0.0, None, |rng| {
        (0..200)
            .map(|_| {
                if rng.random_bool(0.4) {
                    0.0
                } else {
                    rng.random_range(-0.5..=0.5)
                }
            })
            .collect()
    });
    assert_at_most_alpha(missed, "null, stream");
}

/// A study's 300 chosen targets, rated in a random order to the last one: their mean
/// difference is exactly 0 (differences come in pairs ±u, multiples of 1/64 so that sums are
/// exact).
#[test]
fn without_replacement_the_sequence_rarely_ever_excludes_the_population_mean() {
    let missed = ever_missing(0.0, Some(300), |rng| {
        let mut population: Vec<f64> = (0..150)
            .flat_map(|_| {
                let u = f64::from(rng.random_range(0..=64u32)) / 64.0;
                [u, -u]
            })
            .collect();
        population.shuffle(rng);
        population
    });
    assert_at_most_alpha(missed, "null, without replacement");
}

/// A model better by 0.1 on average with skewed differences (often a small loss, sometimes a
/// large win): the sequence covers 0.1 at every time in at least 95% of the studies.
#[test]
fn under_an_alternative_the_sequence_covers_the_true_difference_at_every_time() {
    // -0.1 with probability 0.8, 0.9 with probability 0.2: mean 0.1.
    let missed = ever_missing(0.1, None, |rng| {
        (0..200)
            .map(|_| if rng.random_bool(0.2) { 0.9 } else { -0.1 })
            .collect()
    });
    assert_at_most_alpha(missed, "alternative, stream");
}
