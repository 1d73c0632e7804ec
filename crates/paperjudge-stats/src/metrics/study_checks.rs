//! The statistics of the study checks (docs/metrics.md, "Study checks"): how well the
//! rater agrees with their own earlier ratings (quadratic-weighted Cohen's kappa with a
//! bootstrap interval, exact agreement, agreement within one star, the confusion matrix), and
//! Kendall's tau-b between two rankings of the models.

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::domain::Stars;

use super::resampling::{bootstrap_indices, quantile, RESAMPLES};

/// Re-checked pairs counted by their stars: `counts[then − 1][now − 1]`, the stars first
/// given in rows and the stars given on the re-check in columns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConfusionMatrix {
    pub counts: [[u64; 5]; 5],
}

impl ConfusionMatrix {
    /// The matrix of `pairs` of (stars then, stars now).
    pub fn of(pairs: &[(Stars, Stars)]) -> ConfusionMatrix {
        let mut counts = [[0; 5]; 5];
        for &(then, now) in pairs {
            counts[usize::from(then.get()) - 1][usize::from(now.get()) - 1] += 1;
        }
        ConfusionMatrix { counts }
    }

    /// How many pairs it counts.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().flatten().sum()
    }

    /// The share of pairs whose stars differ by at most `stars`; `None` without pairs.
    pub fn agreement_within(&self, stars: usize) -> Option<f64> {
        let within: u64 = (0..5usize)
            .flat_map(|then| (0..5).map(move |now| (then, now)))
            .filter(|&(then, now)| then.abs_diff(now) <= stars)
            .map(|(then, now)| self.counts[then][now])
            .sum();
        let pairs = self.pairs();
        (pairs > 0).then(|| within as f64 / pairs as f64)
    }
}

/// The rater's consistency over re-checked pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct Consistency {
    pub confusion: ConfusionMatrix,
    /// Share of pairs given the same stars both times.
    pub exact_agreement: Option<f64>,
    /// Share of pairs whose stars differ by at most one.
    pub within_one_star: Option<f64>,
    /// Cohen's kappa with quadratic weights; `None` when undefined (see
    /// [`quadratic_weighted_kappa`]).
    pub kappa: Option<f64>,
    /// 95% percentile-bootstrap interval of `kappa` over the pairs.
    pub kappa_ci95: Option<[f64; 2]>,
}

/// Agreement of re-checked `pairs` of (stars then, stars now) with the rater's first ratings.
///
/// The interval resamples the pairs with replacement [`RESAMPLES`] times with the fixed
/// draws of the bootstrap of drawn indices ([`super::bootstrap_ci95`]), and takes the 2.5% and
/// 97.5% quantiles of the resamples' kappas as that bootstrap does. A resample whose kappa is undefined (all its
/// pairs at one number of stars) is left out; with no defined resample there is no interval.
pub fn consistency(pairs: &[(Stars, Stars)]) -> Consistency {
    let confusion = ConfusionMatrix::of(pairs);
    let kappa = quadratic_weighted_kappa(&confusion.counts);
    let kappa_ci95 = kappa.and_then(|_| kappa_ci95(pairs));
    Consistency {
        confusion,
        exact_agreement: confusion.agreement_within(0),
        within_one_star: confusion.agreement_within(1),
        kappa,
        kappa_ci95,
    }
}

fn kappa_ci95(pairs: &[(Stars, Stars)]) -> Option<[f64; 2]> {
    let mut kappas: Vec<f64> = (0..RESAMPLES)
        .into_par_iter()
        .filter_map(|resample| {
            let resampled: Vec<(Stars, Stars)> = (bootstrap_indices(pairs.len(), resample))
                .into_iter()
                .map(|index| pairs[index as usize])
                .collect();
            quadratic_weighted_kappa(&ConfusionMatrix::of(&resampled).counts)
        })
        .collect();
    if kappas.is_empty() {
        return None;
    }
    kappas.sort_unstable_by(f64::total_cmp);
    Some([quantile(&kappas, 0.025), quantile(&kappas, 0.975)])
}

/// Cohen's kappa with quadratic weights w_ij = 1 − (i − j)² / (K − 1)² over a K × K table of
/// counts (rows: the first rating, columns: the second): (p_o − p_e) / (1 − p_e), where p_o
/// is the weighted share of agreement observed and p_e the one expected from the margins.
/// `None` when undefined: no pairs, or both ratings always the same single category
/// (p_e = 1).
///
/// Computed as 1 − n·Σ (i − j)² n_ij / Σ (i − j)² r_i c_j (the same number: the weights'
/// scale cancels), whose sums are exact integers, so the result has one rounding.
pub fn quadratic_weighted_kappa<const K: usize>(table: &[[u64; K]; K]) -> Option<f64> {
    let pairs: u64 = table.iter().flatten().sum();
    let rows: Vec<u64> = table.iter().map(|row| row.iter().sum()).collect();
    let columns: Vec<u64> = (0..K)
        .map(|j| table.iter().map(|row| row[j]).sum())
        .collect();
    let mut observed: u128 = 0;
    let mut expected: u128 = 0;
    for i in 0..K {
        for j in 0..K {
            let distance = (i.abs_diff(j) * i.abs_diff(j)) as u128;
            observed += distance * u128::from(table[i][j]);
            expected += distance * u128::from(rows[i]) * u128::from(columns[j]);
        }
    }
    (expected > 0).then(|| 1.0 - (u128::from(pairs) * observed) as f64 / expected as f64)
}

/// Kendall's tau-b between two rankings of the same items, given as scores (or ranks) in the
/// same item order: (concordant − discordant) / sqrt((n₀ − n₁)(n₀ − n₂)), where n₀ counts
/// all pairs of items and n₁, n₂ the pairs tied in the first and in the second ranking
/// (scipy's `kendalltau`, Kendall 1945). `None` when undefined: fewer than two items, or a
/// ranking that ties every item. Scores compare as numbers (−0 ties with 0; NaN, which no
/// ranking holds, with everything).
///
/// # Panics
/// When the rankings have different lengths.
pub fn kendall_tau_b(first: &[f64], second: &[f64]) -> Option<f64> {
    assert_eq!(first.len(), second.len(), "two rankings of the same items");
    let items = first.len();
    let (mut concordant, mut discordant) = (0i64, 0i64);
    let (mut tied_first, mut tied_second) = (0i64, 0i64);
    for a in 0..items {
        for b in a + 1..items {
            let in_first = first[a].partial_cmp(&first[b]).unwrap_or(Ordering::Equal);
            let in_second = second[a].partial_cmp(&second[b]).unwrap_or(Ordering::Equal);
            if in_first.is_eq() {
                tied_first += 1;
            }
            if in_second.is_eq() {
                tied_second += 1;
            }
            if in_first.is_ne() && in_second.is_ne() {
                if in_first == in_second {
                    concordant += 1;
                } else {
                    discordant += 1;
                }
            }
        }
    }
    let all = (items * items.saturating_sub(1) / 2) as i64;
    let denominator = ((all - tied_first) as f64 * (all - tied_second) as f64).sqrt();
    (denominator > 0.0).then(|| (concordant - discordant) as f64 / denominator)
}

/// Spearman's rank correlation of two samples of the same items: Pearson's correlation of
/// their ranks, tied values sharing the mean of their ranks (scipy's `spearmanr`). `None` when
/// undefined: fewer than two items, or a sample whose values are all equal.
///
/// # Panics
/// When the samples have different lengths.
pub fn spearman(first: &[f64], second: &[f64]) -> Option<f64> {
    assert_eq!(first.len(), second.len(), "two samples of the same items");
    let (a, b) = (ranks(first), ranks(second));
    let n = a.len() as f64;
    if a.len() < 2 {
        return None;
    }
    let (mean_a, mean_b) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut covariance, mut variance_a, mut variance_b) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(&b) {
        covariance += (x - mean_a) * (y - mean_b);
        variance_a += (x - mean_a).powi(2);
        variance_b += (y - mean_b).powi(2);
    }
    (variance_a > 0.0 && variance_b > 0.0).then(|| covariance / (variance_a * variance_b).sqrt())
}

/// The 1-based ranks of `values`, ties given the mean of the ranks they span.
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let tied = order[start..]
            .iter()
            .take_while(|&&i| values[i] == values[order[start]])
            .count();
        // Ranks start + 1 ..= start + tied share their mean.
        let mean = start as f64 + (tied as f64 + 1.0) / 2.0;
        for &i in &order[start..start + tied] {
            ranks[i] = mean;
        }
        start += tied;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stars(then: i64, now: i64) -> (Stars, Stars) {
        (Stars::new(then).unwrap(), Stars::new(now).unwrap())
    }

    /// By hand: pairs (1,1) (2,3) (3,3) (5,4). Margins: then 1,1,1,0,1; now 1,0,2,1,0.
    /// Σ (i−j)² n_ij = 0 + 1 + 0 + 1 = 2, so n·that = 8. Σ (i−j)² r_i c_j: row 1 against
    /// columns 1,3,3,4 gives 0 + 4·2 + 9 = 17; row 2 gives 1 + 1·2 + 4 = 7; row 3 gives
    /// 4 + 0 + 1 = 5; row 5 gives 16 + 4·2 + 1 = 25; in all 54. kappa = 1 − 8/54 = 23/27.
    /// By hand: x = [1, 2, 2, 3] ranks [1, 2.5, 2.5, 4]; y = [4, 3, 1, 2] ranks [4, 3, 1, 2].
    /// Centred (mean 2.5): [-1.5, 0, 0, 1.5] and [1.5, 0.5, -1.5, -0.5]: covariance −2.25 −
    /// 0.75 = −3, variances 4.5 and 5, rho = −3 / sqrt(22.5).
    #[test]
    fn spearman_by_hand_with_ties() {
        let rho = spearman(&[1.0, 2.0, 2.0, 3.0], &[4.0, 3.0, 1.0, 2.0]).unwrap();
        assert!((rho - (-3.0 / 22.5f64.sqrt())).abs() < 1e-15, "{rho}");
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0], &[1.0]), None);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
    }

    #[test]
    fn kappa_of_a_table_computed_by_hand() {
        let pairs = [stars(1, 1), stars(2, 3), stars(3, 3), stars(5, 4)];
        let consistency = consistency(&pairs);
        assert_eq!(consistency.kappa, Some(1.0 - 8.0 / 54.0));
        assert_eq!(consistency.exact_agreement, Some(0.5));
        assert_eq!(consistency.within_one_star, Some(1.0));
        assert_eq!(consistency.confusion.counts[1][2], 1);
        assert_eq!(consistency.confusion.counts[4][3], 1);
        assert_eq!(consistency.confusion.pairs(), 4);
    }

    /// The two examples of Maple's EssayTools `QuadraticWeightedKappa` documentation, on a
    /// 1..10 scale: 0.758620689655172 (22/29) and 0.438095238095238 (46/105).
    #[test]
    fn kappa_of_a_published_example() {
        fn table(first: &[usize], second: &[usize]) -> [[u64; 10]; 10] {
            let mut table = [[0; 10]; 10];
            for (&a, &b) in first.iter().zip(second) {
                table[a - 1][b - 1] += 1;
            }
            table
        }
        let essays = [9, 7, 8, 7, 6, 8, 3, 5, 10];
        let first = quadratic_weighted_kappa(&table(&essays, &[8, 8, 6, 6, 7, 6, 1, 4, 8]));
        let second = quadratic_weighted_kappa(&table(&essays, &[3, 5, 6, 6, 7, 6, 1, 4, 8]));
        assert!((first.unwrap() - 22.0 / 29.0).abs() < 1e-15);
        assert!((second.unwrap() - 46.0 / 105.0).abs() < 1e-15);
        assert!((first.unwrap() - 0.758620689655172).abs() < 1e-14);
        assert!((second.unwrap() - 0.438095238095238).abs() < 1e-14);
    }

    #[test]
    fn kappa_is_1_for_perfect_agreement_and_undefined_without_spread() {
        let perfect = [stars(1, 1), stars(3, 3), stars(5, 5)];
        assert_eq!(consistency(&perfect).kappa, Some(1.0));
        let constant = [stars(4, 4), stars(4, 4)];
        let consistency = consistency(&constant);
        assert_eq!((consistency.kappa, consistency.kappa_ci95), (None, None));
        assert_eq!(consistency.exact_agreement, Some(1.0));
        let nothing = super::consistency(&[]);
        assert_eq!(nothing.exact_agreement, None);
        assert_eq!(nothing.kappa, None);
    }

    #[test]
    fn the_kappa_interval_holds_the_kappa() {
        let pairs: Vec<(Stars, Stars)> = (0..60)
            .map(|i| {
                let then = i % 5 + 1;
                let now = if i % 4 == 0 { (then % 5) + 1 } else { then };
                stars(then, now)
            })
            .collect();
        let consistency = consistency(&pairs);
        let kappa = consistency.kappa.unwrap();
        let [low, high] = consistency.kappa_ci95.unwrap();
        assert!(
            low < kappa && kappa < high && high <= 1.0,
            "{low} {kappa} {high}"
        );
    }

    /// By hand: x = 1 2 3 4, y = 1 3 2 4. Of the 6 pairs only (2, 3) is discordant:
    /// tau = (5 − 1) / 6. With a tie in x (1 1 2 3 against 1 2 3 4): 5 concordant pairs,
    /// n₁ = 1, tau-b = 5 / sqrt(5 · 6).
    #[test]
    fn kendall_tau_b_by_hand() {
        assert_eq!(
            kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]),
            Some(4.0 / 6.0)
        );
        assert_eq!(
            kendall_tau_b(&[1.0, 1.0, 2.0, 3.0], &[1.0, 2.0, 3.0, 4.0]),
            Some(5.0 / 30f64.sqrt())
        );
        assert_eq!(
            kendall_tau_b(&[3.0, 2.0, 1.0], &[1.0, 2.0, 3.0]),
            Some(-1.0)
        );
        assert_eq!(kendall_tau_b(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert_eq!(kendall_tau_b(&[1.0], &[1.0]), None);
        assert_eq!(
            kendall_tau_b(&[0.0, -0.0, 1.0], &[1.0, 2.0, 3.0]),
            Some(2.0 / 6f64.sqrt())
        );
    }
}
