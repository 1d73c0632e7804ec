//! The statistics that resample: the percentile-bootstrap interval of a mean and the paired
//! sign-flip randomization test, plus Holm's adjustment of the test's p-values.
//!
//! Written one resample at a time: draw the resample's indices (or signs), then compute each
//! model's statistic from them. rayon spreads the resamples over the cores. Resample r always
//! draws the same words of a ChaCha8 stream with a fixed key, and every sum adds its terms in
//! one fixed order, so the numbers depend on the data alone, not on the machine or its number
//! of cores: the same data always prints the same interval and p-value, to the last digit.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

#[cfg(test)]
mod vectorised;

/// Resamples of the bootstrap and permutations of the randomization test.
pub const RESAMPLES: usize = 10_000;

// Fixed ChaCha8 keys. ChaCha8's keystream is specified, unlike the `rand` range-sampling
// algorithms, which is why indices and signs are derived from raw words below.
const BOOTSTRAP_SEED: [u8; 32] = *b"paperjudge/bootstrap-ci95/v1....";
const SIGN_FLIP_SEED: [u8; 32] = *b"paperjudge/sign-flip-test/v1....";

/// 95% percentile-bootstrap interval `[lo, hi]` of the mean of `values`; `None` when there
/// are none.
///
/// [`RESAMPLES`] resamples of `values.len()` draws with replacement; `lo` and `hi` are the
/// 2.5% and 97.5% quantiles of the resample means, interpolated linearly between order
/// statistics (Hyndman & Fan type 7, NumPy's default): the quantile p of sorted means
/// m_0..m_{B−1} is m_j + f·(m_{j+1} − m_j) with j + f = p·(B − 1).
pub fn bootstrap_ci95(values: &[f64]) -> Option<[f64; 2]> {
    bootstrap_ci95_each(&[values]).pop().flatten()
}

/// [`bootstrap_ci95`] of each sample, with identical results. Resample r of every sample of
/// one size draws the same indices (they depend on the size alone), so a leaderboard draws
/// them once per resample for all its models.
pub fn bootstrap_ci95_each(samples: &[&[f64]]) -> Vec<Option<[f64; 2]>> {
    let mut intervals = vec![None; samples.len()];
    for (members, size) in by_size(samples) {
        // means[resample][member]
        let means: Vec<Vec<f64>> = (0..RESAMPLES)
            .into_par_iter()
            .map(|resample| {
                let indices = bootstrap_indices(size, resample);
                (members.iter())
                    .map(|&member| resampled_mean(samples[member], &indices))
                    .collect()
            })
            .collect();
        for (position, &member) in members.iter().enumerate() {
            let mut means: Vec<f64> = means.iter().map(|means| means[position]).collect();
            means.sort_unstable_by(f64::total_cmp);
            intervals[member] = Some([quantile(&means, 0.025), quantile(&means, 0.975)]);
        }
    }
    intervals
}

/// The non-empty samples grouped by size: the positions of each group's members, and the size.
fn by_size(samples: &[&[f64]]) -> Vec<(Vec<usize>, usize)> {
    let mut sizes: Vec<usize> = samples.iter().map(|s| s.len()).filter(|&n| n > 0).collect();
    sizes.sort_unstable();
    sizes.dedup();
    (sizes.into_iter())
        .map(|size| {
            let members = (0..samples.len()).filter(|&s| samples[s].len() == size);
            (members.collect(), size)
        })
        .collect()
}

/// The indices drawn by bootstrap resample `resample` of `len` values, uniform and
/// independent: word i of ChaCha8 stream `resample` gives draw i by Lemire's
/// multiply-and-shift (the high half of word × len). The rare word whose low half falls below
/// 2^32 mod len would favour some indices and is rejected (probability below len / 2^32):
/// each rejected draw, in order, takes the next accepted word after the first `len`.
pub(super) fn bootstrap_indices(len: usize, resample: usize) -> Vec<usize> {
    let len = u64::from(u32::try_from(len).expect("fewer than 2^32 targets"));
    let reject_below = (len as u32).wrapping_neg() % len as u32;
    let mut rng = ChaCha8Rng::from_seed(BOOTSTRAP_SEED);
    rng.set_stream(resample as u64);
    let words: Vec<u32> = (0..len).map(|_| rng.next_u32()).collect();
    (words.into_iter())
        .map(|word| {
            let mut product = u64::from(word) * len;
            while (product as u32) < reject_below {
                product = u64::from(rng.next_u32()) * len;
            }
            (product >> 32) as usize
        })
        .collect()
}

/// The mean of `values` at `indices` (as many as there are values).
fn resampled_mean(values: &[f64], indices: &[usize]) -> f64 {
    sum_in_fours(indices.iter().map(|&index| values[index])) / values.len() as f64
}

/// Σ `terms` in four interleaved partial sums: term j goes to sum j mod 4, the terms after
/// the last full four go to sum 0, and the result is (s0 + s1) + (s2 + s3). Floating-point
/// addition depends on its order; this one is fixed so that every printed interval and p-value
/// stays the same from one release to the next.
fn sum_in_fours(terms: impl ExactSizeIterator<Item = f64>) -> f64 {
    let in_full_fours = terms.len() / 4 * 4;
    let mut partial = [0.0; 4];
    for (j, term) in terms.enumerate() {
        partial[if j < in_full_fours { j % 4 } else { 0 }] += term;
    }
    (partial[0] + partial[1]) + (partial[2] + partial[3])
}

/// The quantile `p` of `sorted` values, interpolated linearly between order statistics
/// (Hyndman & Fan type 7, NumPy's default).
pub(super) fn quantile(sorted: &[f64], p: f64) -> f64 {
    let position = p * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    sorted[below] + (position - below as f64) * (sorted[above] - sorted[below])
}

/// Two-sided p-value of the paired sign-flip randomization test on per-target differences
/// between two models; `None` when there are none.
///
/// Each of [`RESAMPLES`] permutations flips the sign of every difference with probability
/// 1/2; p = (1 + #{|Σ flipped| ≥ |Σ d|}) / (1 + RESAMPLES). Sums stand in for means (same
/// count). Sums that differ from the observed one by no more than their rounding error count
/// as ties, so all-zero differences give exactly p = 1.
pub fn sign_flip_p_value(differences: &[f64]) -> Option<f64> {
    sign_flip_p_values_each(&[differences]).pop().flatten()
}

/// [`sign_flip_p_value`] of each set of differences, with identical results. Permutation r
/// of every set of one size flips the same signs (they depend on the size alone), so a
/// leaderboard draws them once per permutation for all its models.
pub fn sign_flip_p_values_each(differences: &[&[f64]]) -> Vec<Option<f64>> {
    let mut p_values = vec![None; differences.len()];
    for (members, size) in by_size(differences) {
        let thresholds: Vec<f64> = (members.iter())
            .map(|&member| extreme_from(differences[member]))
            .collect();
        // at_least_as_extreme[permutation][member]
        let at_least_as_extreme: Vec<Vec<bool>> = (0..RESAMPLES)
            .into_par_iter()
            .map(|permutation| {
                let signs = sign_words(size, permutation);
                (members.iter().zip(&thresholds))
                    .map(|(&member, &threshold)| {
                        flipped_sum(differences[member], &signs).abs() >= threshold
                    })
                    .collect()
            })
            .collect();
        for (position, &member) in members.iter().enumerate() {
            let count = (at_least_as_extreme.iter())
                .filter(|extreme| extreme[position])
                .count();
            p_values[member] = Some((1 + count) as f64 / (1 + RESAMPLES) as f64);
        }
    }
    p_values
}

/// What a permutation's |Σ| must reach to count as at least as extreme as `differences`:
/// |Σ d| less the rounding error of a sum of them.
fn extreme_from(differences: &[f64]) -> f64 {
    let observed = differences.iter().sum::<f64>().abs();
    let magnitude: f64 = differences.iter().map(|d| d.abs()).sum();
    let rounding = differences.len() as f64 * f64::EPSILON * magnitude;
    observed - rounding
}

/// The signs of permutation `permutation` of `len` differences: bit j of word w flips
/// difference 64·w + j. The permutations take consecutive 64-bit words of one ChaCha8
/// stream, ⌈len / 64⌉ each.
fn sign_words(len: usize, permutation: usize) -> Vec<u64> {
    let words = len.div_ceil(64);
    let mut rng = ChaCha8Rng::from_seed(SIGN_FLIP_SEED);
    // The position counts 32-bit words.
    rng.set_word_pos(2 * words as u128 * permutation as u128);
    (0..words).map(|_| rng.next_u64()).collect()
}

/// Σ ±d with the signs of `signs`: each four consecutive differences summed in order, and
/// those sums added [`sum_in_fours`].
fn flipped_sum(differences: &[f64], signs: &[u64]) -> f64 {
    let flipped = |index: usize, difference: f64| {
        if signs[index / 64] >> (index % 64) & 1 == 1 {
            -difference
        } else {
            difference
        }
    };
    let sums_of_fours = (differences.chunks(4).enumerate()).map(|(four, differences)| {
        (differences.iter().enumerate())
            .map(|(j, &difference)| flipped(4 * four + j, difference))
            .sum()
    });
    sum_in_fours(sums_of_fours)
}

/// Holm's step-down adjustment of `p_values` (one family), returned in the same order;
/// monotone in the sorted order and capped at 1.
pub fn holm(p_values: &[f64]) -> Vec<f64> {
    let count = p_values.len();
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![0.0; count];
    let mut running_max: f64 = 0.0;
    for (position, &index) in order.iter().enumerate() {
        let scaled = ((count - position) as f64 * p_values[index]).min(1.0);
        running_max = running_max.max(scaled);
        adjusted[index] = running_max;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holm_is_monotone_and_capped() {
        assert_eq!(holm(&[0.01, 0.04, 0.03]), vec![0.03, 0.06, 0.06]);
        assert_eq!(holm(&[0.5, 0.6]), vec![1.0, 1.0]);
        assert_eq!(holm(&[]), Vec::<f64>::new());
    }

    #[test]
    fn quantile_interpolates_linearly() {
        let sorted = [0.0, 1.0, 2.0, 3.0];
        assert_eq!(quantile(&sorted, 0.5), 1.5);
        assert_eq!(quantile(&sorted, 1.0), 3.0);
        assert_eq!(quantile(&sorted, 0.0), 0.0);
    }

    #[test]
    fn sums_in_fours_add_in_the_fixed_order() {
        // 1e16 + 1 + 1 rounds differently from 1e16 + (1 + 1): the order shows.
        let terms = [1e16, 1.0, -1e16, 1.0, 1.0, 0.5];
        let [t0, t1, t2, t3, t4, t5] = terms;
        assert_eq!(
            sum_in_fours(terms.into_iter()),
            (((t0 + t4) + t5) + t1) + (t2 + t3)
        );
        assert_ne!(sum_in_fours(terms.into_iter()), terms.iter().sum::<f64>());
        assert_eq!(sum_in_fours([2.5].into_iter()), 2.5);
        assert_eq!(sum_in_fours([].into_iter()), 0.0);
    }

    #[test]
    fn samples_of_one_size_share_resamples_without_changing_intervals() {
        let first: Vec<f64> = (0..40).map(|i| f64::from(i % 7) / 7.0).collect();
        let second: Vec<f64> = (0..40).map(|i| f64::from(i % 3) / 3.0).collect();
        let third = vec![0.25, 0.75];
        let more: Vec<Vec<f64>> = (1..=3)
            .map(|k| (0..40).map(|i| f64::from(i % (k + 3)) / 5.0).collect())
            .collect();
        let together =
            bootstrap_ci95_each(&[&first, &[], &more[0], &second, &third, &more[1], &more[2]]);
        assert_eq!(
            together,
            [
                bootstrap_ci95(&first),
                None,
                bootstrap_ci95(&more[0]),
                bootstrap_ci95(&second),
                bootstrap_ci95(&third),
                bootstrap_ci95(&more[1]),
                bootstrap_ci95(&more[2]),
            ]
        );
        assert_eq!(bootstrap_ci95(&[0.5; 9]), Some([0.5, 0.5]));
    }

    #[test]
    fn sets_of_one_size_share_permutations_without_changing_p_values() {
        let sets: Vec<Vec<f64>> = (0..11)
            .map(|k| {
                (0..70)
                    .map(|i| f64::from((i * (k + 2)) % 9) / 8.0 - 0.45)
                    .collect()
            })
            .collect();
        let mut all: Vec<&[f64]> = sets.iter().map(Vec::as_slice).collect();
        all.insert(3, &[0.5, -0.25, 0.125]);
        all.insert(5, &[]);
        let separately: Vec<Option<f64>> = all.iter().map(|set| sign_flip_p_value(set)).collect();
        assert_eq!(sign_flip_p_values_each(&all), separately);
        assert_eq!(separately[5], None);
        assert!(separately.iter().flatten().any(|&p| p < 1.0));
    }

    /// Intervals and p-values are printed to the last digit, so they may not change from one
    /// release to the next: these are the bits the leaderboard printed before resampling was
    /// written plainly (by the hand-vectorised kernel it replaced).
    #[test]
    fn the_printed_numbers_stay_the_same() {
        let value = |model: u64, i: u64| ((i * 7919 + model * 31) % 1000) as f64 / 999.0;
        let samples: Vec<Vec<f64>> = [(0, 301), (1, 301), (2, 37)]
            .iter()
            .map(|&(model, n)| (0..n).map(|i| value(model, i)).collect())
            .collect();
        let differences: Vec<Vec<f64>> = [(3, 301), (4, 301), (5, 70)]
            .iter()
            .map(|&(model, n)| {
                (0..n)
                    .map(|i| value(model, i) - value(model + 7, i) + 0.01)
                    .collect()
            })
            .collect();
        let samples: Vec<&[f64]> = samples.iter().map(Vec::as_slice).collect();
        let differences: Vec<&[f64]> = differences.iter().map(Vec::as_slice).collect();
        let intervals: Vec<[u64; 2]> = (bootstrap_ci95_each(&samples).into_iter())
            .map(|interval| interval.unwrap().map(f64::to_bits))
            .collect();
        assert_eq!(
            intervals,
            [
                [0x3fddfe7b725caa53, 0x3fe113dd52a4a01f],
                [0x3fde53df3542fa16, 0x3fe1372fcb979f5b],
                [0x3fd9f6f8b22d5354, 0x3fe2d9f1fc1fd1f2],
            ]
        );
        let p_values: Vec<u64> = (sign_flip_p_values_each(&differences).into_iter())
            .map(|p| p.unwrap().to_bits())
            .collect();
        assert_eq!(
            p_values,
            [0x3fe08e1df2f1ff8a, 0x3fdbcc7f79aa256c, 0x3fe63238e0a4a48a]
        );
    }

    /// Of the 10,000 resamples of 2,501 values, 17 reject a word; resample 1632 rejects the
    /// word of draw 2323, which takes the next accepted word instead (the kernel's draws).
    #[test]
    fn a_rejected_word_is_replaced_by_the_next_accepted_one() {
        let indices = bootstrap_indices(2501, 1632);
        assert_eq!(indices[2323], 2483);
        let weighted: usize = (indices.iter().enumerate())
            .map(|(position, index)| (position + 1) * index)
            .sum();
        assert_eq!(weighted, 3_844_245_627);
    }

    #[test]
    fn clear_differences_are_significant() {
        let differences = vec![0.1; 30];
        let p = sign_flip_p_value(&differences).unwrap();
        // Only the identity and the all-flipped sign patterns are as extreme: p ≈ 1/10001.
        assert!(p < 0.001, "{p}");
    }
}
