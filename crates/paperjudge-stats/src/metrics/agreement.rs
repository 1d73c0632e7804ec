//! Agreement among several raters of one study (docs/metrics.md, "Several raters"):
//! Krippendorff's alpha over the pairs rated by two raters or more, ordinal and interval, with
//! a bootstrap interval over those pairs; and Cohen's kappa with quadratic weights between two
//! raters over the pairs both rated ([`super::quadratic_weighted_kappa`]).
//!
//! Alpha follows Krippendorff (2011, "Computing Krippendorff's alpha-reliability") with the
//! value domain 1..5 stars, and equals the `krippendorff` package's (PyPI) on
//! `tests/fixtures/agreement`: from the coincidence matrix o of the pairable values and its
//! marginals n_c, alpha = 1 − Σ o_ck δ²_ck / Σ e_ck δ²_ck with the expected coincidences
//! e_ck = n_c (n_k − [c = k]) / (n − 1).

use rayon::prelude::*;

use crate::domain::Stars;

use super::resampling::{bootstrap_indices, quantile, RESAMPLES};

/// How far apart two numbers of stars are for alpha.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Ranks only: the distance between c and k grows with how many pairable values lie
    /// between them (Krippendorff's ordinal metric).
    Ordinal,
    /// Stars as numbers: (c − k)².
    Interval,
}

/// How many raters gave each number of stars to one pair: `counts[stars − 1]`.
pub type StarCounts = [u32; 5];

/// The counts of the stars `ratings` gave one pair.
pub fn star_counts(ratings: &[Stars]) -> StarCounts {
    let mut counts = [0; 5];
    for stars in ratings {
        counts[usize::from(stars.get()) - 1] += 1;
    }
    counts
}

/// Krippendorff's alpha over `pairs` (each the stars its raters gave it); a pair rated once
/// counts for nothing. `None` when undefined: fewer than two pairable ratings, or no variation
/// at all (every pairable rating the same number of stars).
pub fn krippendorff_alpha(pairs: &[StarCounts], level: Level) -> Option<f64> {
    let mut coincidences = [[0.0f64; 5]; 5];
    for counts in pairs {
        let raters: u32 = counts.iter().sum();
        if raters < 2 {
            continue;
        }
        let weight = f64::from(raters - 1);
        for c in 0..5 {
            for k in 0..5 {
                let same = u32::from(c == k);
                let together = counts[c] * counts[k] - same * counts[c];
                coincidences[c][k] += f64::from(together) / weight;
            }
        }
    }
    let totals: [f64; 5] = std::array::from_fn(|c| coincidences[c].iter().sum());
    let n: f64 = totals.iter().sum();
    if n < 2.0 {
        return None;
    }
    let distance = |c: usize, k: usize| -> f64 {
        match level {
            Level::Interval => ((c as f64) - (k as f64)).powi(2),
            Level::Ordinal => {
                let (low, high) = (c.min(k), c.max(k));
                let between: f64 = totals[low..=high].iter().sum();
                (between - (totals[c] + totals[k]) / 2.0).powi(2)
            }
        }
    };
    let (mut observed, mut expected) = (0.0, 0.0);
    for c in 0..5 {
        for k in 0..5 {
            let d = distance(c, k);
            observed += coincidences[c][k] * d;
            let same = if c == k { 1.0 } else { 0.0 };
            expected += totals[c] * (totals[k] - same) / (n - 1.0) * d;
        }
    }
    (expected > 0.0).then(|| 1.0 - observed / expected)
}

/// The 95% percentile-bootstrap interval of alpha over the pairs rated twice or more:
/// [`RESAMPLES`] resamples of those pairs with replacement, with the fixed draws of the
/// leaderboard's bootstrap, the 2.5% and 97.5% quantiles interpolated linearly. A resample
/// whose alpha is undefined is left out; with no defined resample there is no interval.
pub fn krippendorff_alpha_ci95(pairs: &[StarCounts], level: Level) -> Option<[f64; 2]> {
    let pairable: Vec<StarCounts> = (pairs.iter())
        .filter(|counts| counts.iter().sum::<u32>() >= 2)
        .copied()
        .collect();
    if pairable.is_empty() {
        return None;
    }
    let mut alphas: Vec<f64> = (0..RESAMPLES)
        .into_par_iter()
        .filter_map(|resample| {
            let resampled: Vec<StarCounts> = (bootstrap_indices(pairable.len(), resample))
                .into_iter()
                .map(|index| pairable[index as usize])
                .collect();
            krippendorff_alpha(&resampled, level)
        })
        .collect();
    if alphas.is_empty() {
        return None;
    }
    alphas.sort_unstable_by(f64::total_cmp);
    Some([quantile(&alphas, 0.025), quantile(&alphas, 0.975)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stars(values: &[i64]) -> Vec<Stars> {
        values.iter().map(|&s| Stars::new(s).unwrap()).collect()
    }

    #[test]
    fn perfect_agreement_is_one_and_no_variation_is_undefined() {
        let agree: Vec<StarCounts> = [&[1, 1][..], &[3, 3], &[5, 5, 5], &[2, 2]]
            .iter()
            .map(|pair| star_counts(&stars(pair)))
            .collect();
        for level in [Level::Ordinal, Level::Interval] {
            assert_eq!(krippendorff_alpha(&agree, level), Some(1.0));
        }
        let same = vec![star_counts(&stars(&[3, 3])); 4];
        assert_eq!(krippendorff_alpha(&same, Level::Interval), None);
        let single = vec![star_counts(&stars(&[3])), star_counts(&stars(&[5]))];
        assert_eq!(krippendorff_alpha(&single, Level::Ordinal), None);
        assert_eq!(krippendorff_alpha_ci95(&single, Level::Ordinal), None);
    }

    /// Two raters, 1/5 swapped on two of ten pairs: interval alpha by hand. Coincidences:
    /// o_33 = 16, o_15 = o_51 = 2; n_3 = 16, n_1 = n_5 = 2, n = 20. Observed Σ o δ² = 2·2·16 =
    /// 64; expected Σ e δ² = (2·n_1·n_5·16 + 2·n_1·n_3·4 + 2·n_3·n_5·4) / 19 = (128 + 256 +
    /// 256) / 19; alpha = 1 − 64·19/640 = −0.9.
    #[test]
    fn interval_alpha_by_hand() {
        let mut pairs = vec![star_counts(&stars(&[3, 3])); 8];
        pairs.push(star_counts(&stars(&[1, 5])));
        pairs.push(star_counts(&stars(&[5, 1])));
        let alpha = krippendorff_alpha(&pairs, Level::Interval).unwrap();
        assert!((alpha - (-0.9)).abs() < 1e-12, "{alpha}");
    }
}
