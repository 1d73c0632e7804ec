//! The numbers that must come out (docs/metrics.md), from the worked examples of the
//! seeds, through the plain DCG helpers and through `evaluate_target`.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use paperjudge::domain::Stars;
use paperjudge::metrics::{
    dcg, evaluate_target, mean, ndcg, ApDenominator, Empty, Gain, Ideal, Relevance, Settings,
    TargetScores, Unjudged,
};

const TOLERANCE: f64 = 1e-12;

#[track_caller]
fn assert_close(actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() <= TOLERANCE,
        "got {actual}, expected {expected}"
    );
}

#[track_caller]
fn assert_close_option(actual: Option<f64>, expected: Option<f64>) {
    match (actual, expected) {
        (Some(actual), Some(expected)) => assert_close(actual, expected),
        _ => assert_eq!(actual, expected),
    }
}

fn stars(value: i64) -> Stars {
    Stars::new(value).unwrap()
}

fn exponential(grades: &[u32]) -> Vec<f64> {
    grades.iter().map(|&g| f64::from(2u32.pow(g) - 1)).collect()
}

fn linear(grades: &[u32]) -> Vec<f64> {
    grades.iter().map(|&g| f64::from(g)).collect()
}

fn settings(k: usize, gain: Gain, relevance: Relevance) -> Settings {
    Settings {
        k: NonZeroUsize::new(k).unwrap(),
        gain,
        relevance,
        ..Settings::default()
    }
}

/// Papers 0, 1, 2, ... rated `stars` in order, listed in that order.
fn rated_in_order(stars_in_order: &[i64]) -> (Vec<i64>, HashMap<i64, Stars>) {
    let list: Vec<i64> = (0..stars_in_order.len() as i64).collect();
    let judgments = list
        .iter()
        .map(|&p| (p, stars(stars_in_order[p as usize])))
        .collect();
    (list, judgments)
}

#[test]
fn seed_000_classic_dcg_and_ndcg() {
    let gains = linear(&[2, 4, 5, 3, 1, 1]);
    assert_close(dcg(&gains, 6), 9.058808682848573);
    assert_close(dcg(&linear(&[5, 4, 3, 2, 1, 1]), 6), 10.628132124775181);
    assert_close(ndcg(&gains, &gains, 6).unwrap(), 0.8523424978629719);

    // The same ratings as stars, gain = stars.
    let (list, judgments) = rated_in_order(&[2, 4, 5, 3, 1, 1]);
    let scores = evaluate_target(
        &list,
        &judgments,
        &settings(6, Gain::Linear, Relevance::Stars),
    );
    assert_close(scores.ndcg.unwrap(), 0.8523424978629719);
}

#[test]
fn seed_000_linear_against_exponential() {
    let (list_grades, ideal_grades) = ([4, 3, 3, 4, 2, 2, 0, 0], [4, 4, 3, 3, 2, 2, 2, 1]);
    let linear_ndcg = ndcg(&linear(&list_grades), &linear(&ideal_grades), 8).unwrap();
    assert_close(linear_ndcg, 0.8996618536310678);
    let exponential_ndcg =
        ndcg(&exponential(&list_grades), &exponential(&ideal_grades), 8).unwrap();
    assert_close(exponential_ndcg, 0.9154921993797634);

    // As a study: grades are stars − 1; papers 8 and 9 (grades 2 and 1) were judged but not
    // retrieved, which is what makes the ideal [4,4,3,3,2,2,2,1].
    let (list, mut judgments) = rated_in_order(&[5, 4, 4, 5, 3, 3, 1, 1]);
    judgments.extend([(8, stars(3)), (9, stars(2))]);
    for (gain, expected) in [
        (Gain::Linear, 0.8996618536310678),
        (Gain::Exponential, 0.9154921993797634),
    ] {
        let scores = evaluate_target(
            &list,
            &judgments,
            &settings(8, gain, Relevance::StarsMinusOne),
        );
        assert_close(scores.ndcg.unwrap(), expected);
    }
}

#[test]
fn seed_002_exponential_gain_on_raw_ratings() {
    let ratings = [3, 4, 5, 1, 2, 3, 4, 5, 5, 4];
    // The seed's estimates: alternately half a star low and half a star high.
    let estimates: Vec<f64> = (ratings.iter().enumerate())
        .map(|(i, &r)| f64::from(r) + if i % 2 == 0 { -0.5 } else { 0.5 })
        .collect();
    let mut list: Vec<i64> = (0..ratings.len() as i64).collect();
    // Stable: ties keep input order.
    list.sort_by(|&a, &b| estimates[b as usize].total_cmp(&estimates[a as usize]));
    let judgments: HashMap<i64, Stars> = (0..ratings.len())
        .map(|i| (i as i64, stars(i64::from(ratings[i]))))
        .collect();
    for (k, expected) in [(10, 0.9618453554812123), (5, 0.9590911770652969)] {
        let scores = evaluate_target(
            &list,
            &judgments,
            &settings(k, Gain::Exponential, Relevance::Stars),
        );
        assert_close(scores.ndcg.unwrap(), expected);

        let ranked: Vec<u32> = list.iter().map(|&p| ratings[p as usize]).collect();
        assert_close(
            ndcg(&exponential(&ranked), &exponential(&ratings), k).unwrap(),
            expected,
        );
    }
}

#[test]
fn seed_004_exponential_gain() {
    let gains = exponential(&[3, 1, 2, 3, 2, 0]);
    assert_close(dcg(&gains, 6), 13.306224081788834);
    assert_close(
        dcg(&exponential(&[3, 3, 2, 2, 1, 0]), 6),
        14.595390756454924,
    );
    assert_close(ndcg(&gains, &gains, 6).unwrap(), 0.9116730277265138);

    let (list, judgments) = rated_in_order(&[4, 2, 3, 4, 3, 1]);
    let scores = evaluate_target(
        &list,
        &judgments,
        &settings(6, Gain::Exponential, Relevance::StarsMinusOne),
    );
    assert_close(scores.ndcg.unwrap(), 0.9116730277265138);
}

/// Seed 003's five users: binary relevance (a label is a 2-star paper: gain 1, relevant at
/// threshold 2, anything else unrated), `ideal = list`, AP over the hits.
fn seed_003_users() -> [(Vec<i64>, HashMap<i64, Stars>); 5] {
    let labelled = |labels: &[i64]| -> HashMap<i64, Stars> {
        labels.iter().map(|&paper| (paper, stars(2))).collect()
    };
    [
        (vec![1, 6, 8], labelled(&[1, 2, 3, 4, 5, 6])),
        (vec![1, 2, 3, 4, 5], labelled(&[2, 4, 6])),
        (vec![], labelled(&[2, 4, 6])),
        // No labels: its papers were rated, all irrelevant, so the target is evaluated and
        // has nothing to find.
        (vec![1, 2, 3, 4], [1, 2, 3, 4].map(|p| (p, stars(1))).into()),
        // No labels, no predictions: never rated, so not evaluated at all.
        (vec![], HashMap::new()),
    ]
}

fn seed_003_settings(k: usize) -> Settings {
    Settings {
        k: NonZeroUsize::new(k).unwrap(),
        gain: Gain::Linear,
        relevance: Relevance::StarsMinusOne,
        ideal: Ideal::List,
        unjudged: Unjudged::Zero,
        empty: Empty::Skip,
        threshold: stars(2),
        ap_denominator: ApDenominator::Hits,
    }
}

/// Checks one metric's table: per user at k = 1, 3, 5, then the means over the users with a
/// defined value (users 4 and 5 are NaN in the seed and are skipped).
fn check_seed_003_table(
    metric: fn(&TargetScores) -> Option<f64>,
    table: [[f64; 3]; 3],
    means: [f64; 3],
) {
    let users = seed_003_users();
    for (column, k) in [1, 3, 5].into_iter().enumerate() {
        let settings = seed_003_settings(k);
        let values: Vec<Option<f64>> = (users.iter())
            .map(|(list, judgments)| metric(&evaluate_target(list, judgments, &settings)))
            .collect();
        for (user, expected) in table.iter().enumerate() {
            assert_close_option(values[user], Some(expected[column]));
        }
        assert_eq!(values[3..], [None, None], "users 4 and 5 are undefined");
        let mean = mean(values);
        assert_close(mean.value.unwrap(), means[column]);
        assert_eq!((mean.used, mean.skipped), (3, 2));
    }
}

#[test]
fn seed_003_precision() {
    check_seed_003_table(
        |s| s.precision,
        [[1.0, 2.0 / 3.0, 0.4], [0.0, 1.0 / 3.0, 0.4], [0.0; 3]],
        [1.0 / 3.0, 1.0 / 3.0, 4.0 / 15.0],
    );
}

#[test]
fn seed_003_recall() {
    check_seed_003_table(
        |s| s.recall,
        [
            [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0],
            [0.0, 1.0 / 3.0, 2.0 / 3.0],
            [0.0; 3],
        ],
        [1.0 / 18.0, 2.0 / 9.0, 1.0 / 3.0],
    );
}

#[test]
fn seed_003_f1() {
    check_seed_003_table(
        |s| s.f1,
        [
            [2.0 / 7.0, 4.0 / 9.0, 4.0 / 11.0],
            [0.0, 1.0 / 3.0, 0.5],
            [0.0; 3],
        ],
        [2.0 / 21.0, 7.0 / 27.0, 19.0 / 66.0],
    );
}

#[test]
fn seed_003_average_precision_over_hits() {
    check_seed_003_table(
        |s| s.ap,
        [[1.0; 3], [0.0, 0.5, 0.5], [0.0; 3]],
        [1.0 / 3.0, 0.5, 0.5],
    );
}

#[test]
fn seed_003_reciprocal_rank() {
    // The seed's table prints 1/3 as the mean at k = 3 and 5, but its own per-user values
    // (1, 1/2, 0) and its code give (1 + 1/2 + 0) / 3 = 1/2.
    check_seed_003_table(
        |s| s.rr,
        [[1.0; 3], [0.0, 0.5, 0.5], [0.0; 3]],
        [1.0 / 3.0, 0.5, 0.5],
    );
}

#[test]
fn seed_003_ndcg_with_the_lists_own_ideal() {
    // Natural logarithms in the seed's formula; the ratio does not depend on the base.
    let user_2_at_3 = (1.0 / 3f64.ln()) / (1.0 / 2f64.ln());
    let user_2_at_5 = (1.0 / 3f64.ln() + 1.0 / 5f64.ln()) / (1.0 / 2f64.ln() + 1.0 / 3f64.ln());
    assert_close(user_2_at_3, 0.6309297535714574);
    assert_close(user_2_at_5, 0.6509209298071323);
    check_seed_003_table(
        |s| s.ndcg,
        [[1.0; 3], [0.0, user_2_at_3, user_2_at_5], [0.0; 3]],
        [
            1.0 / 3.0,
            (1.0 + user_2_at_3) / 3.0,
            (1.0 + user_2_at_5) / 3.0,
        ],
    );
}
