//! The statistics that resample: the percentile-bootstrap interval of a mean and the paired
//! sign-flip randomization test, plus Holm's adjustment of the test's p-values.
//!
//! Both spread their [`RESAMPLES`] resamples over the cores. Resample r always draws the same
//! words of a ChaCha8 stream with a fixed key, so the numbers depend on the data alone, not on
//! the machine or its number of cores.

use std::ops::Range;

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::parallel;

/// Resamples of the bootstrap and permutations of the randomization test.
pub const RESAMPLES: usize = 10_000;

// Fixed ChaCha8 keys. ChaCha8's keystream is specified, unlike the `rand` range-sampling
// algorithms, which is why indices and signs are derived from raw words below.
const BOOTSTRAP_SEED: [u8; 32] = *b"paperjudge/bootstrap-ci95/v1....";
const SIGN_FLIP_SEED: [u8; 32] = *b"paperjudge/sign-flip-test/v1....";

/// Samples resampled side by side: each bootstrap draw reads one row holding the drawn
/// target's value in `LANES` samples, which the processor adds as vectors.
const LANES: usize = 8;

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

/// [`bootstrap_ci95`] of each sample, with identical results; samples of the same size share
/// the resample indices (the stream depends on the size alone), which makes a leaderboard of
/// many models fast.
pub fn bootstrap_ci95_each(samples: &[&[f64]]) -> Vec<Option<[f64; 2]>> {
    let mut intervals = vec![None; samples.len()];
    for (members, size) in by_size(samples) {
        let rows = SideBySide::new(members.iter().map(|&member| samples[member]), size);
        let shares = in_shares(|resamples| rows.resampled_means(resamples));
        for (position, &member) in members.iter().enumerate() {
            let mut means: Vec<f64> = (shares.iter())
                .flat_map(|share| share[position].iter().copied())
                .collect();
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

/// Runs `work` on consecutive shares of `0..RESAMPLES`, one per core, and returns their
/// results in order.
fn in_shares<T: Send>(work: impl Fn(Range<usize>) -> T + Sync) -> Vec<T> {
    let share = RESAMPLES.div_ceil(parallel::cores());
    let shares: Vec<Range<usize>> = (0..RESAMPLES)
        .step_by(share)
        .map(|first| first..(first + share).min(RESAMPLES))
        .collect();
    parallel::map(&shares, |share| work(share.clone()))
}

/// Samples of one size, stored by rows of [`LANES`] samples (the last row padded with zeros).
struct SideBySide {
    /// `groups[g][i]` holds value i of samples `g * LANES ..`.
    groups: Vec<Vec<[f64; LANES]>>,
    samples: usize,
    size: usize,
}

impl SideBySide {
    fn new<'a>(samples: impl ExactSizeIterator<Item = &'a [f64]>, size: usize) -> SideBySide {
        let count = samples.len();
        let mut groups = vec![vec![[0.0; LANES]; size]; count.div_ceil(LANES)];
        for (sample, values) in samples.enumerate() {
            for (row, &value) in groups[sample / LANES].iter_mut().zip(values) {
                row[sample % LANES] = value;
            }
        }
        SideBySide {
            groups,
            samples: count,
            size,
        }
    }

    /// The means of bootstrap resamples `resamples`, per sample.
    fn resampled_means(&self, resamples: Range<usize>) -> Vec<Vec<f64>> {
        let mut means = vec![Vec::with_capacity(resamples.len()); self.samples];
        let mut draws = IndexDraws::new(self.size);
        let mut indices = vec![0; self.size];
        for resample in resamples {
            draws.fill(resample as u64, &mut indices);
            for (group, rows) in self.groups.iter().enumerate() {
                let sums = gathered_sums(rows, &indices);
                for (means, sum) in means[group * LANES..].iter_mut().zip(sums) {
                    means.push(sum / self.size as f64);
                }
            }
        }
        means
    }
}

/// Σ rows[i] over `indices`, lane by lane, in four interleaved partial sums (index j goes to
/// sum j mod 4, the leftover indices to sum 0, and the result is (s0 + s1) + (s2 + s3)), so
/// that the processor adds in parallel and every lane's result is the same whatever the other
/// lanes hold.
#[inline(never)]
fn gathered_sums(rows: &[[f64; LANES]], indices: &[u32]) -> [f64; LANES] {
    let mut partial = [[0.0; LANES]; 4];
    let mut quads = indices.chunks_exact(4);
    for quad in &mut quads {
        for (sums, &index) in partial.iter_mut().zip(quad) {
            add_lanes(sums, &rows[index as usize]);
        }
    }
    for &index in quads.remainder() {
        add_lanes(&mut partial[0], &rows[index as usize]);
    }
    combined(partial)
}

/// The four partial sums as one, lane by lane, always as (s0 + s1) + (s2 + s3).
fn combined([a, b, c, d]: [[f64; LANES]; 4]) -> [f64; LANES] {
    std::array::from_fn(|lane| (a[lane] + b[lane]) + (c[lane] + d[lane]))
}

#[inline(always)]
fn add_lanes(sums: &mut [f64; LANES], row: &[f64; LANES]) {
    for (sum, value) in sums.iter_mut().zip(row) {
        *sum += value;
    }
}

fn quantile(sorted: &[f64], p: f64) -> f64 {
    let position = p * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    sorted[below] + (position - below as f64) * (sorted[above] - sorted[below])
}

/// Uniform indices below `len` from the bootstrap stream: Lemire's multiply-and-shift on
/// 32-bit words, with rejection, so no index is favoured.
struct IndexDraws {
    rng: ChaCha8Rng,
    words: Vec<u8>,
    len: u64,
    reject_below: u32,
}

impl IndexDraws {
    fn new(len: usize) -> IndexDraws {
        let len32 = u32::try_from(len).expect("fewer than 2^32 targets");
        IndexDraws {
            rng: ChaCha8Rng::from_seed(BOOTSTRAP_SEED),
            words: vec![0; 4 * len],
            len: u64::from(len32),
            reject_below: len32.wrapping_neg() % len32,
        }
    }

    /// Resample number `resample`: as many indices as `len`, one little-endian word each of
    /// the generator's stream `resample`.
    fn fill(&mut self, resample: u64, indices: &mut [u32]) {
        self.rng.set_stream(resample);
        self.rng.set_word_pos(0);
        let IndexDraws {
            rng,
            words,
            len,
            reject_below,
        } = self;
        let product = |word: &[u8]| {
            u64::from(u32::from_le_bytes(
                word.try_into().expect("chunks of 4 bytes"),
            )) * *len
        };
        rng.fill_bytes(words);
        let mut any_rejected = false;
        for (index, word) in indices.iter_mut().zip(words.chunks_exact(4)) {
            let product = product(word);
            any_rejected |= (product as u32) < *reject_below;
            *index = (product >> 32) as u32;
        }
        // Rare (probability below len / 2^32 a word): each rejected word, in order, is
        // replaced by the next accepted word of the stream.
        if any_rejected {
            for (index, word) in indices.iter_mut().zip(words.chunks_exact(4)) {
                let mut product = product(word);
                while (product as u32) < *reject_below {
                    product = u64::from(rng.next_u32()) * *len;
                }
                *index = (product >> 32) as u32;
            }
        }
    }
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

/// [`sign_flip_p_value`] of each set of differences, with identical results; sets of the same
/// size share the permutations (the signs depend on the size alone).
pub fn sign_flip_p_values_each(differences: &[&[f64]]) -> Vec<Option<f64>> {
    let mut p_values = vec![None; differences.len()];
    for (members, size) in by_size(differences) {
        let test = SignFlips::new(members.iter().map(|&member| differences[member]), size);
        let shares = in_shares(|permutations| test.at_least_as_extreme(permutations));
        for (lane, &member) in members.iter().enumerate() {
            let at_least_as_extreme: usize = shares.iter().map(|share| share[lane]).sum();
            p_values[member] = Some((1 + at_least_as_extreme) as f64 / (1 + RESAMPLES) as f64);
        }
    }
    p_values
}

/// The randomization tests of sets of differences of one size, side by side, ready to run
/// any range of permutations.
struct SignFlips {
    /// For every four consecutive differences, the sum Σ ±d under each of the 16 sign
    /// patterns, in each of [`LANES`] sets (padded with zeros): a permutation then needs one
    /// lookup per four differences.
    groups: Vec<Vec<[[f64; LANES]; 16]>>,
    /// What a permutation's |Σ| must reach, per set: |Σ d| less the rounding error of a sum.
    thresholds: Vec<f64>,
}

impl SignFlips {
    fn new<'a>(sets: impl ExactSizeIterator<Item = &'a [f64]>, size: usize) -> SignFlips {
        let mut groups =
            vec![vec![[[0.0; LANES]; 16]; size.div_ceil(4)]; sets.len().div_ceil(LANES)];
        let mut thresholds = Vec::with_capacity(sets.len());
        for (set, differences) in sets.enumerate() {
            let observed = differences.iter().sum::<f64>().abs();
            let magnitude: f64 = differences.iter().map(|d| d.abs()).sum();
            let rounding = differences.len() as f64 * f64::EPSILON * magnitude;
            thresholds.push(observed - rounding);
            let quads = groups[set / LANES].iter_mut().zip(differences.chunks(4));
            for (sums, quad) in quads {
                for (pattern, sums) in sums.iter_mut().enumerate() {
                    sums[set % LANES] = (quad.iter().enumerate())
                        .map(|(j, &d)| if pattern >> j & 1 == 1 { -d } else { d })
                        .sum();
                }
            }
        }
        SignFlips { groups, thresholds }
    }

    /// How many of `permutations` give a sum at least as extreme as the observed one, per
    /// set. Permutation j takes the 64-bit words of the stream that follow those of
    /// permutation j − 1, one word per 64 differences.
    fn at_least_as_extreme(&self, permutations: Range<usize>) -> Vec<usize> {
        let quads = self.groups.first().map_or(0, Vec::len);
        let words_per_permutation = quads.div_ceil(16) as u128;
        let mut counts = vec![0; self.thresholds.len()];
        // A group at a time, so that its sums stay in the cache.
        for (group, sums) in self.groups.iter().enumerate() {
            let mut rng = ChaCha8Rng::from_seed(SIGN_FLIP_SEED);
            // The position counts 32-bit words.
            rng.set_word_pos(2 * words_per_permutation * permutations.start as u128);
            let lanes = group * LANES..self.thresholds.len().min((group + 1) * LANES);
            for _ in permutations.clone() {
                let flipped = flipped_sums(sums, &mut rng);
                for (lane, set) in lanes.clone().enumerate() {
                    counts[set] += usize::from(flipped[lane].abs() >= self.thresholds[set]);
                }
            }
        }
        counts
    }
}

/// Σ ±d with independent fair signs, lane by lane: one random word gives the signs of 64
/// differences, bit j for difference j, so 4 bits pick the pattern of each quad. Four
/// interleaved partial sums, [`combined`] as in [`gathered_sums`].
#[inline(never)]
fn flipped_sums(sums: &[[[f64; LANES]; 16]], rng: &mut ChaCha8Rng) -> [f64; LANES] {
    let mut partial = [[0.0; LANES]; 4];
    for word_of_quads in sums.chunks(16) {
        let mut signs = rng.next_u64();
        let mut fours = word_of_quads.chunks_exact(4);
        for four in &mut fours {
            for (partial, quad) in partial.iter_mut().zip(four) {
                add_lanes(partial, &quad[(signs & 15) as usize]);
                signs >>= 4;
            }
        }
        for quad in fours.remainder() {
            add_lanes(&mut partial[0], &quad[(signs & 15) as usize]);
            signs >>= 4;
        }
    }
    combined(partial)
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
    fn samples_of_one_size_share_resamples_without_changing_intervals() {
        let first: Vec<f64> = (0..40).map(|i| f64::from(i % 7) / 7.0).collect();
        let second: Vec<f64> = (0..40).map(|i| f64::from(i % 3) / 3.0).collect();
        let third = vec![0.25, 0.75];
        // Five samples of size 40 fill one row of LANES and part of a second.
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

    /// The resample means of a share are those of the same resamples drawn in one run, so
    /// the results cannot depend on the number of cores.
    #[test]
    fn shares_of_resamples_add_up_to_one_run() {
        let values: Vec<f64> = (0..37).map(|i| f64::from(i * i % 11) / 10.0).collect();
        let differences: Vec<f64> = values.iter().map(|v| v - 0.45).collect();
        let rows = SideBySide::new([values.as_slice()].into_iter(), values.len());
        let whole = rows.resampled_means(0..RESAMPLES);
        let mut parts = rows.resampled_means(0..3_333);
        parts[0].extend(rows.resampled_means(3_333..RESAMPLES).remove(0));
        assert_eq!(whole, parts);

        let test = SignFlips::new([differences.as_slice()].into_iter(), differences.len());
        let [whole] = test.at_least_as_extreme(0..RESAMPLES)[..] else {
            panic!("one set")
        };
        assert!(whole > 0 && whole < RESAMPLES, "{whole}");
        assert_eq!(
            whole,
            test.at_least_as_extreme(0..4_001)[0] + test.at_least_as_extreme(4_001..RESAMPLES)[0]
        );
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

    #[test]
    fn clear_differences_are_significant() {
        let differences = vec![0.1; 30];
        let p = sign_flip_p_value(&differences).unwrap();
        // Only the identity and the all-flipped sign patterns are as extreme: p ≈ 1/10001.
        assert!(p < 0.001, "{p}");
    }
}
