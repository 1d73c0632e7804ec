//! The resampling written plainly, one sample and one resample at a time, as the definitions
//! read: the reference that the parent module's table of rows must match to the bit. It
//! shares with it only what fixes the bits: the ChaCha8 words each resample takes, and the
//! order in which each sum adds its terms.

use proptest::prelude::*;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{quantile, BOOTSTRAP_SEED, RESAMPLES};

/// The mean of each bootstrap resample of `values`, resample by resample.
fn resampled_means(values: &[f64]) -> Vec<f64> {
    (0..RESAMPLES)
        .map(|resample| resampled_mean(values, resample))
        .collect()
}

fn resampled_mean(values: &[f64], resample: usize) -> f64 {
    let indices = bootstrap_indices(values.len(), resample);
    sum_in_fours(indices.iter().map(|&index| values[index])) / values.len() as f64
}

/// Word i of ChaCha8 stream `resample` gives index ⌊word × len / 2^32⌋ unless the low half of
/// word × len falls below 2^32 mod len; a rejected word's draw takes the next accepted word
/// after the first `len`, in order.
fn bootstrap_indices(len: usize, resample: usize) -> Vec<usize> {
    let len = len as u64;
    let reject_below = (1 << 32) % len;
    let mut rng = ChaCha8Rng::from_seed(BOOTSTRAP_SEED);
    rng.set_stream(resample as u64);
    let words: Vec<u64> = (0..len).map(|_| u64::from(rng.next_u32())).collect();
    (words.into_iter())
        .map(|mut word| {
            while word * len % (1 << 32) < reject_below {
                word = u64::from(rng.next_u32());
            }
            ((word * len) >> 32) as usize
        })
        .collect()
}

/// How many of the first `len` words of bootstrap resample `resample` are rejected.
fn rejected_words(len: usize, resample: usize) -> usize {
    let len = len as u64;
    let mut rng = ChaCha8Rng::from_seed(BOOTSTRAP_SEED);
    rng.set_stream(resample as u64);
    (0..len)
        .filter(|_| u64::from(rng.next_u32()) * len % (1 << 32) < (1 << 32) % len)
        .count()
}

/// Σ `terms` in four partial sums: term j goes to sum j mod 4, the terms after the last full
/// four go to sum 0, and the result is (s0 + s1) + (s2 + s3).
fn sum_in_fours(terms: impl ExactSizeIterator<Item = f64>) -> f64 {
    let in_full_fours = terms.len() / 4 * 4;
    let mut partial = [0.0; 4];
    for (j, term) in terms.enumerate() {
        partial[if j < in_full_fours { j % 4 } else { 0 }] += term;
    }
    (partial[0] + partial[1]) + (partial[2] + partial[3])
}

/// The interval of the resample `means`.
fn bootstrap_ci95(mut means: Vec<f64>) -> [f64; 2] {
    means.sort_unstable_by(f64::total_cmp);
    [quantile(&means, 0.025), quantile(&means, 0.975)]
}

fn bits(values: impl IntoIterator<Item = f64>) -> Vec<u64> {
    values.into_iter().map(f64::to_bits).collect()
}

/// Column `column` of the table's results: the plain version's order.
fn column(values: &[f64], width: usize, column: usize) -> Vec<f64> {
    super::of_column(values, width, column).collect()
}

/// Samples of one or two sizes, each size repeated one to ten times (as a leaderboard's
/// models share the number of targets; nine or more fill two rows of lanes), in random
/// order.
fn samples() -> impl Strategy<Value = Vec<Vec<f64>>> {
    prop::collection::vec((1..80usize, 1..=10usize), 1..=2)
        .prop_flat_map(move |sizes| {
            let samples: Vec<_> = (sizes.iter())
                .flat_map(|&(size, copies)| std::iter::repeat_n(size, copies))
                .map(|size| prop::collection::vec(0.0..=1.0f64, size))
                .collect();
            samples
        })
        .prop_shuffle()
}

proptest! {
    // Each case runs 10,000 resamples of up to 20 samples twice, in a debug build.
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn bootstrap_means_and_intervals_are_the_plain_ones(samples in samples()) {
        let samples: Vec<&[f64]> = samples.iter().map(Vec::as_slice).collect();
        let mut plain = vec![None; samples.len()];
        for (members, columns) in super::by_size(&samples) {
            let means = super::resampled_means(&columns);
            for (position, &member) in members.iter().enumerate() {
                let plain_means = resampled_means(samples[member]);
                prop_assert_eq!(bits(column(&means, columns.len(), position)), bits(plain_means.clone()));
                plain[member] = Some(bootstrap_ci95(plain_means));
            }
        }
        prop_assert_eq!(super::bootstrap_ci95_each(&samples), plain);
    }
}

/// Rejected words are rare at leaderboard sizes (17 of the 10,000 resamples of 2,501 values
/// reject one); at three million values each resample rejects over a thousand.
#[test]
fn index_draws_with_rejected_words_are_the_plain_ones() {
    for (len, resample, rejected) in [
        (3_000_000, 0, 1_340),
        (3_000_000, 9_999, 1_298),
        (2_501, 1_632, 1),
        (5_000, 17, 0),
        (1, 3, 0),
    ] {
        assert_eq!(rejected_words(len, resample), rejected, "{len} {resample}");
        let fast: Vec<usize> = (super::bootstrap_indices(len, resample).into_iter())
            .map(|index| index as usize)
            .collect();
        assert!(fast == bootstrap_indices(len, resample), "{len} {resample}");
    }
}

/// The resample means of 2,501 values where a word is rejected (17 of the 10,000
/// resamples), and every hundredth.
#[test]
fn resample_means_with_rejected_words_are_the_plain_ones() {
    let values: Vec<f64> = (0..2_501u32)
        .map(|i| f64::from(i * 7_919 % 1_000) / 999.0)
        .collect();
    let rejecting: Vec<usize> = (0..RESAMPLES)
        .filter(|&resample| rejected_words(values.len(), resample) > 0)
        .collect();
    assert_eq!(rejecting.len(), 17);
    let fast = super::resampled_means(&[&values]);
    for resample in rejecting.into_iter().chain((0..RESAMPLES).step_by(100)) {
        let plain = resampled_mean(&values, resample);
        assert!(
            fast[resample].to_bits() == plain.to_bits(),
            "resample {resample}"
        );
    }
}
