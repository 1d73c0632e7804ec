//! Agreement among raters against independent implementations on fixed data
//! (tests/fixtures/agreement, made by its reference.py): Krippendorff's alpha against the
//! `krippendorff` package, quadratic-weighted kappa between two raters against scikit-learn's
//! `cohen_kappa_score`, each to 1e-9; and the bootstrap interval of alpha.

use paperjudge::domain::Stars;
use paperjudge::metrics::{
    krippendorff_alpha, krippendorff_alpha_ci95, quadratic_weighted_kappa, star_counts,
    ConfusionMatrix, Level, StarCounts,
};
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    cases: Vec<Case>,
}

/// One case of the fixture (also read by `raters_cli`, on a study).
#[derive(Deserialize)]
pub struct Case {
    pub name: String,
    /// One row per rater, one column per pair.
    pub ratings: Vec<Vec<Option<i64>>>,
    pub alpha_ordinal: f64,
    pub alpha_interval: f64,
    pub kappa: Vec<Kappa>,
}

/// Kappa between raters `a` and `b` (their rows) over the pairs both rated.
#[derive(Deserialize)]
pub struct Kappa {
    pub a: usize,
    pub b: usize,
    pub pairs: usize,
    pub kappa: f64,
}

/// The cases of tests/fixtures/agreement/reference.json.
pub fn reference() -> Vec<Case> {
    let text = include_str!("../fixtures/agreement/reference.json");
    serde_json::from_str::<Reference>(text)
        .expect("the fixture parses")
        .cases
}

fn stars(value: i64) -> Stars {
    Stars::new(value).expect("1 to 5 stars")
}

/// Each pair's star counts, from a ratings matrix (rows raters, columns pairs).
fn pairs(ratings: &[Vec<Option<i64>>]) -> Vec<StarCounts> {
    (0..ratings[0].len())
        .map(|pair| {
            let given: Vec<Stars> = ratings
                .iter()
                .filter_map(|row| row[pair])
                .map(stars)
                .collect();
            star_counts(&given)
        })
        .collect()
}

#[test]
fn alpha_equals_the_krippendorff_package() {
    let cases = reference();
    assert_eq!(cases.len(), 4);
    for case in cases {
        let pairs = pairs(&case.ratings);
        for (level, expected) in [
            (Level::Ordinal, case.alpha_ordinal),
            (Level::Interval, case.alpha_interval),
        ] {
            let alpha = krippendorff_alpha(&pairs, level).expect("defined");
            assert!(
                (alpha - expected).abs() < 1e-9,
                "{} {level:?}: {alpha} against {expected}",
                case.name
            );
        }
    }
}

#[test]
fn kappa_between_two_raters_equals_scikit_learn() {
    for case in reference() {
        for expected in &case.kappa {
            let both: Vec<(Stars, Stars)> = (case.ratings[expected.a].iter())
                .zip(&case.ratings[expected.b])
                .filter_map(|(x, y)| Some((stars((*x)?), stars((*y)?))))
                .collect();
            assert_eq!(both.len(), expected.pairs, "{}", case.name);
            let kappa = quadratic_weighted_kappa(&ConfusionMatrix::of(&both).counts).unwrap();
            assert!(
                (kappa - expected.kappa).abs() < 1e-9,
                "{} raters {} and {}: {kappa} against {}",
                case.name,
                expected.a,
                expected.b,
                expected.kappa
            );
        }
    }
}

/// The interval holds the alpha of the data, is the same on every run (fixed draws), and is
/// wider for fewer pairs.
#[test]
fn the_alpha_interval_brackets_alpha_and_is_reproducible() {
    let case = (reference().into_iter())
        .find(|case| case.name == "three_raters_overlap")
        .unwrap();
    let all = pairs(&case.ratings);
    let alpha = krippendorff_alpha(&all, Level::Ordinal).unwrap();
    let [low, high] = krippendorff_alpha_ci95(&all, Level::Ordinal).unwrap();
    assert!(low < alpha && alpha < high, "{low} {alpha} {high}");
    assert_eq!(
        krippendorff_alpha_ci95(&all, Level::Ordinal),
        Some([low, high])
    );
    let fewer = &all[..60];
    let [few_low, few_high] = krippendorff_alpha_ci95(fewer, Level::Ordinal).unwrap();
    assert!(few_high - few_low > high - low);
}

/// The null alpha must not reject: two raters who rate independently at random. Over 100
/// simulated studies of 40 pairs each, alpha lies near 0 on average, and its 95% interval
/// covers 0 in all but a few (a percentile bootstrap of 40 pairs covers a little less often
/// than 95%).
#[test]
fn independent_raters_have_alpha_near_zero_and_its_interval_covers_zero() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(25);
    let (studies, pairs) = (100, 40);
    let mut covered = 0;
    let mut sum = 0.0;
    for _ in 0..studies {
        let study: Vec<StarCounts> = (0..pairs)
            .map(|_| {
                star_counts(&[
                    stars(rng.random_range(1..=5)),
                    stars(rng.random_range(1..=5)),
                ])
            })
            .collect();
        let alpha = krippendorff_alpha(&study, Level::Ordinal).unwrap();
        sum += alpha;
        let [low, high] = krippendorff_alpha_ci95(&study, Level::Ordinal).unwrap();
        covered += usize::from(low <= 0.0 && 0.0 <= high);
    }
    let mean = sum / f64::from(studies);
    assert!(mean.abs() < 0.05, "mean alpha {mean}");
    assert!(
        covered >= 88,
        "the interval covered 0 in {covered} of {studies}"
    );
}
