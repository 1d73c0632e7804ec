//! The statistics that resample. The leaderboard's Poisson bootstrap of each model's mean and
//! its paired sign-flip tests are sums a target adds to ([`additive`]); Holm's adjustment of
//! the tests' p-values is here. So is the bootstrap that draws each resample's indices, which
//! the lists' batched intervals, Cohen's kappa and Krippendorff's alpha resample with.
//!
//! It runs one loop. The samples of one size are the columns of a table; resample r picks
//! rows of that table (the targets it draws), and each sample's statistic comes from the sum
//! of its column over the picked rows. Resample r picks the same rows for every sample of one
//! size, so the lists draw them once for all their models, and a row holds eight samples'
//! values in one cache line, which the processor adds as vectors; rayon spreads the resamples
//! over the cores. The plain version, one sample and one resample at a time, stays as the
//! tests' reference (`plain.rs`): the two give the same resample means and intervals to the
//! bit, on random samples and on samples whose index draws are rejected.
//!
//! Resample r always takes the same words of a ChaCha8 stream with a fixed key, and every sum
//! adds its terms in one fixed order, so the numbers depend on the data alone, not on the
//! machine or its number of cores: the same data always prints the same interval, to the
//! last digit.

use rand::Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

pub mod additive;
#[cfg(test)]
mod plain;

/// Resamples of the bootstraps and permutations of the randomization test.
pub const RESAMPLES: usize = 10_000;

// A fixed ChaCha8 key. ChaCha8's keystream is specified, unlike the `rand` range-sampling
// algorithms, which is why indices are derived from raw words below.
const BOOTSTRAP_SEED: [u8; 32] = *b"paperjudge/bootstrap-ci95/v1....";

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
    for (members, columns) in by_size(samples) {
        let means = resampled_means(&columns);
        let found: Vec<[f64; 2]> = (0..columns.len())
            .into_par_iter()
            .map(|column| {
                let mut means: Vec<f64> = of_column(&means, columns.len(), column).collect();
                [
                    quantile_of(&mut means, 0.025),
                    quantile_of(&mut means, 0.975),
                ]
            })
            .collect();
        for (&member, interval) in members.iter().zip(found) {
            intervals[member] = Some(interval);
        }
    }
    intervals
}

/// The non-empty samples grouped by size: each group's positions among `samples`, and its
/// samples.
fn by_size<'a>(samples: &[&'a [f64]]) -> Vec<(Vec<usize>, Vec<&'a [f64]>)> {
    let mut sizes: Vec<usize> = samples.iter().map(|s| s.len()).filter(|&n| n > 0).collect();
    sizes.sort_unstable();
    sizes.dedup();
    (sizes.into_iter())
        .map(|size| {
            (0..samples.len())
                .filter(|&s| samples[s].len() == size)
                .map(|s| (s, samples[s]))
                .unzip()
        })
        .collect()
}

/// Column `column` of the values of a table `width` wide, stored row by row.
fn of_column(values: &[f64], width: usize, column: usize) -> impl Iterator<Item = f64> + '_ {
    values.iter().skip(column).step_by(width).copied()
}

/// The bootstrap resamples' means of `samples`, all of one size: the mean of sample s in
/// resample r is at r × samples + s.
fn resampled_means(samples: &[&[f64]]) -> Vec<f64> {
    let size = samples[0].len();
    let values = Table::of_columns(samples, size);
    let mut sums = values.resampled_sums(size, draw_bootstrap_indices, size, |indices, j| {
        indices[j] as usize
    });
    for sum in &mut sums {
        *sum /= size as f64;
    }
    sums
}

/// Samples side by side: row i holds value i of every sample, the samples being its
/// columns, in groups of [`LANES`] columns (the last group padded with zeros) so that a row of
/// a group is one cache line, which the processor adds as vectors.
struct Table {
    /// `groups[g][i]` holds value i of columns `LANES · g ..`.
    groups: Vec<Vec<Row>>,
    width: usize,
}

/// Columns side by side in one row of a [`Table`]'s group: 8 × 8 bytes, one cache line.
const LANES: usize = 8;

#[derive(Clone, Copy)]
#[repr(align(64))]
struct Row([f64; LANES]);

impl Table {
    /// The table whose columns are `columns`, each `height` values long.
    fn of_columns(columns: &[impl AsRef<[f64]>], height: usize) -> Table {
        let mut groups = vec![vec![Row([0.0; LANES]); height]; columns.len().div_ceil(LANES)];
        for (column, values) in columns.iter().enumerate() {
            for (row, &value) in groups[column / LANES].iter_mut().zip(values.as_ref()) {
                row.0[column % LANES] = value;
            }
        }
        Table {
            groups,
            width: columns.len(),
        }
    }

    /// The column sums of the rows that each resample picks: `draw(r, words)` fills the
    /// `word_count` random words that resample r takes, and the resample picks `picks` rows,
    /// pick j being row `row(words, j)`. The sum of column c over resample r's rows is at
    /// r × width + c.
    fn resampled_sums(
        &self,
        word_count: usize,
        draw: impl Fn(usize, &mut [u32]) + Sync,
        picks: usize,
        row: impl Fn(&[u32], usize) -> usize + Sync,
    ) -> Vec<f64> {
        let mut sums = vec![0.0; RESAMPLES * self.width];
        sums.par_chunks_mut(self.width).enumerate().for_each_init(
            || vec![0; word_count],
            |words, (resample, sums)| {
                draw(resample, words);
                for (group, sums) in self.groups.iter().zip(sums.chunks_mut(LANES)) {
                    let group_sums = sum_rows_in_fours(group, picks, |j| row(words, j));
                    sums.copy_from_slice(&group_sums[..sums.len()]);
                }
            },
        );
        sums
    }
}

/// Σ of `group`'s rows `row(0)`, `row(1)`, … `row(picks − 1)`, lane by lane, in four
/// interleaved partial sums: pick j goes to sum j mod 4, the picks after the last full four go
/// to sum 0, and the result is (s0 + s1) + (s2 + s3). Floating-point addition depends on its
/// order; this one is fixed so that every printed interval and p-value stays the same from
/// one release to the next (and four independent sums keep the processor busy).
fn sum_rows_in_fours(group: &[Row], picks: usize, row: impl Fn(usize) -> usize) -> [f64; LANES] {
    let in_full_fours = picks / 4 * 4;
    let mut partial = [[0.0; LANES]; 4];
    for first in (0..in_full_fours).step_by(4) {
        for (j, partial) in (first..).zip(&mut partial) {
            add(partial, &group[row(j)]);
        }
    }
    for j in in_full_fours..picks {
        add(&mut partial[0], &group[row(j)]);
    }
    let [s0, s1, s2, s3] = partial;
    std::array::from_fn(|lane| (s0[lane] + s1[lane]) + (s2[lane] + s3[lane]))
}

fn add(sums: &mut [f64; LANES], row: &Row) {
    for (sum, value) in sums.iter_mut().zip(&row.0) {
        *sum += value;
    }
}

/// The indices drawn by bootstrap resample `resample` of `len` values (see
/// [`draw_bootstrap_indices`]).
pub(super) fn bootstrap_indices(len: usize, resample: usize) -> Vec<u32> {
    let mut indices = vec![0; len];
    draw_bootstrap_indices(resample, &mut indices);
    indices
}

/// Fills `indices` with the draws of bootstrap resample `resample` from as many values,
/// uniform and independent: word i of ChaCha8 stream `resample` gives draw i by Lemire's
/// multiply-and-shift (the high half of word × len). The rare word whose low half falls below
/// 2^32 mod len would favour some indices and is rejected (probability below len / 2^32):
/// each rejected draw, in order, takes the next accepted word after the first `len`.
fn draw_bootstrap_indices(resample: usize, indices: &mut [u32]) {
    let len = u32::try_from(indices.len()).expect("fewer than 2^32 targets");
    let reject_below = len.wrapping_neg() % len;
    let product = |word: u32| u64::from(word) * u64::from(len);
    let rejected = |word: u32| (product(word) as u32) < reject_below;
    let mut rng = ChaCha8Rng::from_seed(BOOTSTRAP_SEED);
    rng.set_stream(resample as u64);
    // The first `len` words, then the rejected ones replaced. Rejections are rare, so all
    // words are checked at once (as vectors) before any is replaced.
    rng.fill(indices);
    let any_rejected = indices
        .iter()
        .fold(false, |any, &word| any | rejected(word));
    if any_rejected {
        for word in indices.iter_mut().filter(|word| rejected(**word)) {
            *word = std::iter::repeat_with(|| rng.next_u32())
                .find(|&word| !rejected(word))
                .expect("an endless stream");
        }
    }
    for index in indices.iter_mut() {
        *index = (product(*index) >> 32) as u32;
    }
}

/// The quantile `p` of `values` as [`quantile`] gives it of them sorted, found by selection
/// (which reorders them) rather than a sort: the leaderboard after a rating takes 16 of them
/// from 10,000 means, the lists' view 112.
pub(super) fn quantile_of(values: &mut [f64], p: f64) -> f64 {
    let position = p * (values.len() - 1) as f64;
    let below = position.floor() as usize;
    let (_, &mut at_below, higher) = values.select_nth_unstable_by(below, f64::total_cmp);
    let at_above = (higher.iter().copied())
        .min_by(f64::total_cmp)
        .unwrap_or(at_below);
    at_below + (position - below as f64) * (at_above - at_below)
}

/// The quantile `p` of `sorted` values, interpolated linearly between order statistics
/// (Hyndman & Fan type 7, NumPy's default).
pub(super) fn quantile(sorted: &[f64], p: f64) -> f64 {
    let position = p * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    sorted[below] + (position - below as f64) * (sorted[above] - sorted[below])
}

/// A model compared with the first of [`additive::Sums::compare_with_first`]'s models (the
/// leader).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// The mean of the model's value less the leader's, over the targets where both are
    /// defined; 0 for the leader itself.
    pub mean_difference: Option<f64>,
    /// The paired sign-flip test of those differences ([`additive::sign_flip_p_value`]).
    pub p_value: Option<f64>,
    /// `p_value` adjusted by Holm's method over every pair of the models.
    pub p_value_holm: Option<f64>,
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
        let table = Table::of_columns(&[terms], terms.len());
        let sum = |rows: &[usize]| sum_rows_in_fours(&table.groups[0], rows.len(), |j| rows[j])[0];
        assert_eq!(
            sum(&[0, 1, 2, 3, 4, 5]),
            (((t0 + t4) + t5) + t1) + (t2 + t3)
        );
        assert_ne!(sum(&[0, 1, 2, 3, 4, 5]), terms.iter().sum::<f64>());
        assert_eq!(sum(&[5, 5, 0, 2]), (t5 + t5) + (t0 + t2));
        assert_eq!(sum(&[4]), 1.0);
        assert_eq!(sum(&[]), 0.0);
    }

    #[test]
    fn a_table_keeps_each_column_in_its_lane() {
        let columns: Vec<Vec<f64>> = (0..10)
            .map(|column| (0..3).map(|row| f64::from(10 * row + column)).collect())
            .collect();
        let table = Table::of_columns(&columns, 3);
        assert_eq!(table.width, 10);
        assert_eq!(table.groups.len(), 2);
        assert_eq!(
            table.groups[0][2].0,
            [20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0]
        );
        assert_eq!(
            table.groups[1][1].0,
            [18.0, 19.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        );
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

    /// The lists print these intervals to the last digit, so they may not change from one
    /// release to the next: these are the bits printed with the hand-vectorised kernel this
    /// module's loop replaced.
    #[test]
    fn the_printed_numbers_stay_the_same() {
        let value = |model: u64, i: u64| ((i * 7919 + model * 31) % 1000) as f64 / 999.0;
        let samples: Vec<Vec<f64>> = [(0, 301), (1, 301), (2, 37)]
            .iter()
            .map(|&(model, n)| (0..n).map(|i| value(model, i)).collect())
            .collect();
        let samples: Vec<&[f64]> = samples.iter().map(Vec::as_slice).collect();
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
    }

    /// Of the 10,000 resamples of 2,501 values, 17 reject a word; resample 1632 rejects the
    /// word of draw 2323, which takes the next accepted word instead (the draws of the
    /// hand-vectorised kernel that came before).
    #[test]
    fn a_rejected_word_is_replaced_by_the_next_accepted_one() {
        let indices = bootstrap_indices(2501, 1632);
        assert_eq!(indices[2323], 2483);
        let weighted: usize = (indices.iter().enumerate())
            .map(|(position, &index)| (position + 1) * index as usize)
            .sum();
        assert_eq!(weighted, 3_844_245_627);
    }
}
