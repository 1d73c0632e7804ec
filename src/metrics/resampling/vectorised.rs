//! The hand-vectorised kernel the leaderboard used before the plain version in the parent
//! module, kept for the tests only, which check that the plain version gives the same numbers
//! bit for bit. Unchanged but for running all resamples in one share.

use std::ops::Range;

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Resamples of the bootstrap and permutations of the randomization test.
use super::RESAMPLES;

// Fixed ChaCha8 keys. ChaCha8's keystream is specified, unlike the `rand` range-sampling
// algorithms, which is why indices and signs are derived from raw words below.
const BOOTSTRAP_SEED: [u8; 32] = *b"paperjudge/bootstrap-ci95/v1....";
const SIGN_FLIP_SEED: [u8; 32] = *b"paperjudge/sign-flip-test/v1....";

/// Samples resampled side by side: each bootstrap draw reads one row holding the drawn
/// target's value in `LANES` samples, which the processor adds as vectors.
const LANES: usize = 8;

/// The 95% percentile-bootstrap interval of each sample, with identical results; samples of the same size share
/// the resample indices (the stream depends on the size alone), which makes a leaderboard of
/// many models fast.
pub fn bootstrap_ci95_each(samples: &[&[f64]]) -> Vec<Option<[f64; 2]>> {
    let mut intervals = vec![None; samples.len()];
    for (members, size) in by_size(samples) {
        let rows = SideBySide::new(members.iter().map(|&member| samples[member]), size);
        let shares = [rows.resampled_means(0..RESAMPLES)];
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

/// The sign-flip p-value of each set of differences, with identical results; sets of the same
/// size share the permutations (the signs depend on the size alone).
pub fn sign_flip_p_values_each(differences: &[&[f64]]) -> Vec<Option<f64>> {
    let mut p_values = vec![None; differences.len()];
    for (members, size) in by_size(differences) {
        let test = SignFlips::new(members.iter().map(|&member| differences[member]), size);
        let shares = [test.at_least_as_extreme(0..RESAMPLES)];
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

/// The plain version in the parent module gives the kernel's numbers bit for bit.
#[cfg(test)]
mod same_as_plain {
    use proptest::prelude::*;

    use super::IndexDraws;

    /// Samples of a few sizes, some sharing a size (as a leaderboard's models do).
    fn samples(range: f64) -> impl Strategy<Value = Vec<Vec<f64>>> {
        prop::collection::vec(1..300usize, 1..4).prop_flat_map(move |sizes| {
            let samples: Vec<_> = (sizes.iter().chain(&sizes))
                .map(|&size| prop::collection::vec(-range..=1.0f64, size))
                .collect();
            samples
        })
    }

    proptest! {
        // Each case runs both versions' 10,000 resamples in a debug build.
        #![proptest_config(ProptestConfig::with_cases(12))]

        #[test]
        fn bootstrap_intervals(samples in samples(0.0)) {
            let samples: Vec<&[f64]> = samples.iter().map(Vec::as_slice).collect();
            let plain = super::super::bootstrap_ci95_each(&samples);
            let kernel = super::bootstrap_ci95_each(&samples);
            prop_assert_eq!(bits(plain.iter().flatten().flatten()), bits(kernel.iter().flatten().flatten()));
        }

        #[test]
        fn sign_flip_p_values(sets in samples(1.0)) {
            let sets: Vec<&[f64]> = sets.iter().map(Vec::as_slice).collect();
            let plain = super::super::sign_flip_p_values_each(&sets);
            let kernel = super::sign_flip_p_values_each(&sets);
            prop_assert_eq!(bits(plain.iter().flatten()), bits(kernel.iter().flatten()));
        }
    }

    fn bits<'a>(values: impl Iterator<Item = &'a f64>) -> Vec<u64> {
        values.map(|v| v.to_bits()).collect()
    }

    /// Rejected words are rare at leaderboard sizes; at three million values a resample
    /// rejects about two thousand of them.
    #[test]
    fn bootstrap_indices_with_rejected_words() {
        for (len, resample) in [(3_000_000, 0), (3_000_000, 9_999), (5_000, 17), (1, 3)] {
            let mut draws = IndexDraws::new(len);
            let mut kernel = vec![0; len];
            draws.fill(resample as u64, &mut kernel);
            let kernel: Vec<usize> = kernel.into_iter().map(|i| i as usize).collect();
            assert_eq!(super::super::bootstrap_indices(len, resample), kernel);
        }
    }
}
