//! The resampling statistics against oracles that share nothing with their code but the
//! definition: the sign-flip p-value against exact enumeration of all 2^n sign patterns, and
//! the bootstrap interval against a plain reference written from the definition (the same
//! ChaCha8 streams, a straightforward sum, NumPy's percentile).

use paperjudge::metrics::{bootstrap_ci95, sign_flip_p_value, RESAMPLES};
use rand::{Rng, SeedableRng};
use rand_chacha::rand_core::RngCore;
use rand_chacha::ChaCha8Rng;

/// The exact two-sided p-value: the share of all 2^n sign patterns whose |Σ ±d| reaches |Σ d|
/// (within the rounding error of a sum, as the test counts ties).
fn exact_p_value(differences: &[f64]) -> f64 {
    let n = differences.len();
    let observed = differences.iter().sum::<f64>().abs();
    let magnitude: f64 = differences.iter().map(|d| d.abs()).sum();
    let reach = observed - n as f64 * f64::EPSILON * magnitude;
    let patterns = 1u32 << n;
    let extreme = (0..patterns)
        .filter(|signs| {
            let sum: f64 = (differences.iter().enumerate())
                .map(|(i, &d)| if signs >> i & 1 == 1 { -d } else { d })
                .sum();
            sum.abs() >= reach
        })
        .count();
    extreme as f64 / f64::from(patterns)
}

/// Differences of 1 to 12 targets: half on a grid of sixteenths (many ties between patterns),
/// half continuous, each shifted so that the p-values spread over (0, 1].
fn fixed_inputs() -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut inputs = Vec::new();
    for n in 1..=12 {
        for case in 0..16 {
            let shift = rng.random_range(0.0..0.5);
            let differences = (0..n)
                .map(|_| {
                    let d: f64 = rng.random_range(-1.0..=1.0) * (1.0 - shift) + shift;
                    if case % 2 == 0 {
                        (d * 16.0).round() / 16.0
                    } else {
                        d
                    }
                })
                .collect();
            inputs.push(differences);
        }
    }
    inputs.push(vec![0.0; 7]);
    inputs
}

/// p = (1 + X) / (1 + B) with X ~ Binomial(B, p_exact): each Monte Carlo p-value lies within
/// four of its standard errors of its expectation, and two thirds of them within one (as
/// many as a normal law puts there, less a margin).
#[test]
fn sign_flip_p_values_agree_with_exact_enumeration() {
    let b = RESAMPLES as f64;
    let mut within_one = 0;
    let mut random = 0;
    let mut largest = 0.0f64;
    for differences in fixed_inputs() {
        let exact = exact_p_value(&differences);
        let monte_carlo = sign_flip_p_value(&differences).unwrap();
        let expected = (1.0 + b * exact) / (1.0 + b);
        let standard_error = (b * exact * (1.0 - exact)).sqrt() / (1.0 + b);
        if standard_error == 0.0 {
            // Every pattern (or only the two trivial ones, for n = 1) is as extreme.
            assert_eq!(monte_carlo, expected, "{differences:?}");
            continue;
        }
        let z = (monte_carlo - expected) / standard_error;
        assert!(
            z.abs() <= 4.0,
            "{differences:?}: p {monte_carlo} against exact {exact} ({z:.2} standard errors)"
        );
        random += 1;
        within_one += usize::from(z.abs() <= 1.0);
        largest = largest.max(z.abs());
    }
    eprintln!("{within_one} of {random} p-values within one standard error, at most {largest:.2}");
    assert!(random >= 150, "{random}");
    assert!(
        within_one as f64 >= 0.6 * random as f64,
        "{within_one} of {random}"
    );
}

const BOOTSTRAP_SEED: [u8; 32] = *b"paperjudge/bootstrap-ci95/v1....";

/// The bootstrap interval as its definition reads: resample r draws `len` indices from
/// ChaCha8 stream r (word i gives index ⌊word · len / 2^32⌋ unless rejected, a rejected draw
/// taking the next accepted word after the first `len`), the mean of the drawn values summed
/// left to right, then NumPy's linear percentile of the sorted means.
fn reference_bootstrap_ci95(values: &[f64]) -> [f64; 2] {
    let len = values.len() as u64;
    let reject_below = (1u64 << 32) % len;
    let mut means: Vec<f64> = (0..RESAMPLES as u64)
        .map(|resample| {
            let mut rng = ChaCha8Rng::from_seed(BOOTSTRAP_SEED);
            rng.set_stream(resample);
            let words: Vec<u64> = (0..len).map(|_| u64::from(rng.next_u32())).collect();
            let mut sum = 0.0;
            for word in words {
                let mut word = word;
                while (word * len) % (1 << 32) < reject_below {
                    word = u64::from(rng.next_u32());
                }
                sum += values[((word * len) >> 32) as usize];
            }
            sum / len as f64
        })
        .collect();
    means.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let percentile = |q: f64| {
        let h = (means.len() - 1) as f64 * q;
        let below = h.floor() as usize;
        means[below] + (h - below as f64) * (means[below + 1] - means[below])
    };
    [percentile(0.025), percentile(0.975)]
}

#[test]
fn bootstrap_intervals_agree_with_a_plain_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for len in [1, 2, 3, 7, 40, 333] {
        let values: Vec<f64> = (0..len).map(|_| rng.random::<f64>()).collect();
        let [low, high] = bootstrap_ci95(&values).unwrap();
        let [reference_low, reference_high] = reference_bootstrap_ci95(&values);
        // Only the order of the additions differs.
        assert!(
            (low - reference_low).abs() < 1e-12,
            "{len}: {low} {reference_low}"
        );
        assert!(
            (high - reference_high).abs() < 1e-12,
            "{len}: {high} {reference_high}"
        );
    }
}
