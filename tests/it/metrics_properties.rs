//! Properties every setting must keep, on random targets and lists.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use paperjudge::decision::Margin;
use paperjudge::domain::{PoolDepth, Stars};
use paperjudge::leaderboard::{Collection, Leaderboard, Partial, TargetInput};
use paperjudge::metrics::{
    bootstrap_ci95, evaluate_target, poisson_bootstrap_ci95, sign_flip_p_value, ApDenominator,
    Empty, Gain, Ideal, Relevance, Settings, TargetScores, Unjudged,
};
use proptest::prelude::*;
use proptest::sample::subsequence;

/// Papers 0..30; a target judges some of them.
const PAPERS: i64 = 30;

fn any_settings() -> impl Strategy<Value = Settings> {
    (
        1usize..=12,
        prop_oneof![Just(Gain::Linear), Just(Gain::Exponential)],
        prop_oneof![Just(Relevance::StarsMinusOne), Just(Relevance::Stars)],
        prop_oneof![Just(Ideal::Judged), Just(Ideal::List)],
        prop_oneof![Just(Unjudged::Zero), Just(Unjudged::Skip)],
        prop_oneof![Just(Empty::Skip), Just(Empty::Zero)],
        1i64..=5,
        prop_oneof![
            Just(ApDenominator::Relevant),
            Just(ApDenominator::Hits),
            Just(ApDenominator::MinKRelevant)
        ],
    )
        .prop_map(
            |(k, gain, relevance, ideal, unjudged, empty, threshold, ap_denominator)| Settings {
                k: NonZeroUsize::new(k).unwrap(),
                gain,
                relevance,
                ideal,
                unjudged,
                empty,
                threshold: Stars::new(threshold).unwrap(),
                ap_denominator,
            },
        )
}

fn any_judgments() -> impl Strategy<Value = HashMap<i64, Stars>> {
    prop::collection::hash_map(
        0..PAPERS,
        (1i64..=5).prop_map(|s| Stars::new(s).unwrap()),
        1..20,
    )
}

/// A ranked list of distinct papers, judged or not.
fn any_list() -> impl Strategy<Value = Vec<i64>> {
    (subsequence((0..PAPERS).collect::<Vec<_>>(), 0..20)).prop_shuffle()
}

fn binary_and_ndcg(scores: &TargetScores) -> [Option<f64>; 6] {
    [
        scores.ndcg,
        scores.precision,
        scores.recall,
        scores.f1,
        scores.ap,
        scores.rr,
    ]
}

/// NDCG@k with natural logarithms in the discount, written out independently.
fn ndcg_with_natural_log(
    list: &[i64],
    judgments: &HashMap<i64, Stars>,
    settings: &Settings,
) -> Option<f64> {
    let k = settings.k.get();
    let discounted = |gains: &[f64]| -> f64 {
        gains
            .iter()
            .take(k)
            .enumerate()
            .map(|(i, g)| g / ((i + 2) as f64).ln())
            .sum()
    };
    let mut ideal: Vec<f64> = judgments.values().map(|&s| settings.gain(s)).collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let gains: Vec<f64> = list
        .iter()
        .filter_map(|p| match judgments.get(p) {
            Some(&stars) => Some(settings.gain(stars)),
            None => (settings.unjudged == Unjudged::Zero).then_some(0.0),
        })
        .collect();
    if discounted(&ideal) == 0.0 {
        return (settings.empty == Empty::Zero).then_some(0.0);
    }
    let ideal = match settings.ideal {
        Ideal::Judged => discounted(&ideal),
        Ideal::List => {
            let mut top: Vec<f64> = gains.iter().take(k).copied().collect();
            top.sort_by(|a, b| b.total_cmp(a));
            discounted(&top)
        }
    };
    Some(if ideal > 0.0 {
        discounted(&gains) / ideal
    } else {
        0.0
    })
}

proptest! {
    #[test]
    fn every_score_is_between_0_and_1(
        settings in any_settings(), judgments in any_judgments(), list in any_list(),
    ) {
        let scores = evaluate_target(&list, &judgments, &settings);
        for value in binary_and_ndcg(&scores).into_iter().chain([scores.judged_at_k]).flatten() {
            prop_assert!((0.0..=1.0 + 1e-12).contains(&value), "{value} in {scores:?}");
        }
    }

    #[test]
    fn a_list_in_ideal_order_scores_1(settings in any_settings(), judgments in any_judgments()) {
        let mut list: Vec<i64> = judgments.keys().copied().collect();
        list.sort_by_key(|p| (std::cmp::Reverse(judgments[p]), *p));
        let ndcg = evaluate_target(&list, &judgments, &settings).ndcg;
        let has_gain = judgments.values().any(|&s| settings.gain(s) > 0.0);
        if has_gain {
            prop_assert_eq!(ndcg, Some(1.0));
        } else {
            prop_assert_eq!(ndcg, (settings.empty == Empty::Zero).then_some(0.0));
        }
    }

    #[test]
    fn the_logarithm_base_does_not_change_ndcg(
        settings in any_settings(), judgments in any_judgments(), list in any_list(),
    ) {
        let ours = evaluate_target(&list, &judgments, &settings).ndcg;
        let natural = ndcg_with_natural_log(&list, &judgments, &settings);
        match (ours, natural) {
            (Some(ours), Some(natural)) => prop_assert!((ours - natural).abs() < 1e-12),
            _ => prop_assert_eq!(ours, natural),
        }
    }

    #[test]
    fn an_unjudged_paper_changes_nothing_when_skipped(
        settings in any_settings(),
        judgments in any_judgments(),
        list in any_list(),
        position in any::<prop::sample::Index>(),
    ) {
        let settings = Settings { unjudged: Unjudged::Skip, ..settings };
        let unjudged_paper = PAPERS + 1;
        let mut longer = list.clone();
        longer.insert(position.index(list.len() + 1), unjudged_paper);
        let before = evaluate_target(&list, &judgments, &settings);
        let after = evaluate_target(&longer, &judgments, &settings);
        prop_assert_eq!(binary_and_ndcg(&before), binary_and_ndcg(&after));
    }
}

proptest! {
    // Each case draws 10,000 resamples: fewer cases keep the suite quick.
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_bootstrap_interval_contains_the_mean(values in prop::collection::vec(0.0..=1.0f64, 1..60)) {
        let [low, high] = bootstrap_ci95(&values).unwrap();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        prop_assert!(low <= high);
        prop_assert!(low <= mean + 1e-12 && mean <= high + 1e-12, "{mean} outside [{low}, {high}]");
    }

    /// The leaderboard's Poisson bootstrap: its resamples' means are of the values rounded to
    /// 2^−30, so within that of the mean.
    #[test]
    fn the_poisson_bootstrap_interval_contains_the_mean(values in prop::collection::vec(0.0..=1.0f64, 1..60)) {
        let names: Vec<String> = (0..values.len()).map(|t| format!("t{t}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let [low, high] = poisson_bootstrap_ci95(&names, &values).unwrap();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        prop_assert!(low <= high);
        prop_assert!(low <= mean + 1e-9 && mean <= high + 1e-9, "{mean} outside [{low}, {high}]");
    }

    #[test]
    fn a_model_compared_with_itself_has_p_1(values in prop::collection::vec(0.0..=1.0f64, 1..200)) {
        let differences: Vec<f64> = values.iter().map(|v| v - v).collect();
        let names: Vec<String> = (0..differences.len()).map(|t| format!("t{t}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        prop_assert_eq!(sign_flip_p_value(&names, &differences), Some(1.0));
    }

    #[test]
    fn a_model_with_a_twin_on_the_leaderboard_has_p_1(
        targets in prop::collection::vec((any_judgments(), any_list()), 1..12),
    ) {
        let models = vec!["twin a".to_owned(), "twin b".to_owned()];
        let targets: Vec<TargetInput<i64>> = targets
            .into_iter()
            .enumerate()
            .map(|(n, (judgments, list))| TargetInput {
                target: format!("T{n}"),
                fully_rated: true,
                judgments: judgments.into_iter().map(|(paper, stars)| (paper, stars.into())).collect(),
                lists: vec![Some(list.clone()), Some(list)],
                left_out: Vec::new(),
            })
            .collect();
        let study = Collection::of(models, targets, PoolDepth::DEFAULT);
        let board = Leaderboard::of(&study, Settings::default(), Margin::NONE, Partial::Exclude);
        let second = &board.models[1];
        if second.ndcg().is_some() {
            prop_assert_eq!(second.p_value_vs_leader, Some(1.0));
            prop_assert_eq!(second.p_value_holm, Some(1.0));
            prop_assert_eq!(second.mean_diff_vs_leader, Some(0.0));
            prop_assert!(second.tied_with_leader());
        }
    }
}
