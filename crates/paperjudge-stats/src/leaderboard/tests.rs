use std::num::NonZeroUsize;

use serde_json::{json, Value};

use super::columns;

use super::*;
use crate::domain::Stars;

/// Three models, four targets, k = 3, the contract's defaults otherwise:
/// - T1: a 5★, b 3★, c 1★ (gains 4, 2, 0; one relevant paper)
/// - T2: d 4★, e 2★ (gains 3, 1; one relevant paper)
/// - T3: f 1★, g 1★ (nothing to find: skipped from every mean)
/// - T4: no rating (unrated)
fn study() -> (Vec<String>, Vec<TargetInput<&'static str>>) {
    let models = ["gamma, v2", "beta", "alpha"].map(String::from).to_vec();
    let target = |id: &str, rated: &[(&'static str, i64)], lists: [Option<&[&'static str]>; 3]| {
        fully_rated(id, rated, &lists, Vec::new())
    };
    let targets = vec![
        target(
            "T1",
            &[("a", 5), ("b", 3), ("c", 1)],
            [None, Some(&["a", "b", "c"]), Some(&["a", "b", "c"])],
        ),
        target(
            "T2",
            &[("d", 4), ("e", 2)],
            [Some(&["z", "d"]), Some(&["d", "e"]), Some(&["d", "e"])],
        ),
        target(
            "T3",
            &[("f", 1), ("g", 1)],
            [Some(&["g", "f"]), Some(&["f", "z"]), Some(&["f"])],
        ),
        target("T4", &[], [Some(&["a"]), None, Some(&["x"])]),
    ];
    (models, targets)
}

/// A fully rated target: its papers' stars, each model's list, the models its pool left out.
fn fully_rated(
    id: &str,
    rated: &[(&'static str, i64)],
    lists: &[Option<&[&'static str]>],
    left_out: Vec<usize>,
) -> TargetInput<&'static str> {
    TargetInput {
        target: id.to_owned(),
        fully_rated: true,
        judgments: (rated.iter())
            .map(|&(paper, stars)| (paper, Stars::new(stars).unwrap().into()))
            .collect(),
        lists: lists.iter().map(|list| list.map(<[_]>::to_vec)).collect(),
        left_out,
    }
}

fn settings() -> Settings {
    Settings {
        k: NonZeroUsize::new(3).unwrap(),
        ..Settings::default()
    }
}

/// The study's leaderboard; every target given is evaluated if it has a rating.
fn board() -> Leaderboard {
    let (models, targets) = study();
    let pool_depth = PoolDepth::new(3).unwrap();
    Leaderboard::of(
        &Collection::of(models, targets, pool_depth),
        settings(),
        Margin::NONE,
        Partial::Include,
    )
}

/// A row's value in the column named `key`.
fn value(row: &ModelRow, key: &str) -> Option<f64> {
    row.number(columns::named(key).unwrap())
}

#[track_caller]
fn assert_close(actual: Option<f64>, expected: f64) {
    let actual = actual.expect("a defined value");
    assert!((actual - expected).abs() < 1e-12, "{actual} vs {expected}");
}

#[test]
fn hand_computed_study() {
    let board = board();
    assert_eq!(
        board.targets,
        TargetCounts {
            evaluated: 3,
            skipped_empty: 1,
            unrated: 1,
            skipped_no_relevant: 1,
            partly_rated: 0,
            judged: None,
        }
    );
    let names: Vec<&str> = board.models.iter().map(|m| m.model.as_str()).collect();
    assert_eq!(
        names,
        ["alpha", "beta", "gamma, v2"],
        "NDCG descending, then name"
    );

    let [alpha, beta, gamma] = &board.models[..] else {
        panic!("three rows")
    };
    // alpha and beta rank every list ideally; beta's T3 list has an unrated paper.
    for (row, rank, judged) in [(alpha, 1, 1.0), (beta, 2, 5.0 / 6.0)] {
        assert_eq!(row.rank, rank);
        assert_eq!(row.ndcg(), Some(1.0));
        assert_eq!(row.ci95, Some([1.0, 1.0]));
        assert_eq!(row.targets, 2);
        assert_close(value(row, "judged_at_k"), judged);
        assert_eq!(row.mean_diff_vs_leader, Some(0.0));
        assert_close(value(row, "precision"), 1.0 / 3.0);
        assert_eq!(
            ["recall", "f1", "ap", "rr"].map(|key| value(row, key)),
            [Some(1.0), Some(0.5), Some(1.0), Some(1.0)]
        );
    }
    assert_eq!((alpha.p_value_vs_leader, alpha.p_value_holm), (None, None));
    assert!(!alpha.tied_with_leader());
    assert_eq!(
        (beta.p_value_vs_leader, beta.p_value_holm),
        (Some(1.0), Some(1.0))
    );
    assert!(beta.tied_with_leader());

    // gamma: no list for T1 (0); T2 = [z (unrated), d]: DCG 3/log2 3 of ideal 3 + 1/log2 3.
    let gamma_t2 = (3.0 / 3f64.log2()) / (3.0 + 1.0 / 3f64.log2());
    assert_eq!(gamma.rank, 3);
    assert_close(gamma.ndcg(), gamma_t2 / 2.0);
    // Two values: the 2.5% and 97.5% quantiles of the resample means are the extremes (a
    // resample weighs either target 0 with probability 0.37), the values rounded to 2^−32.
    let rounded = |x: f64| (x * 2f64.powi(32)).round() / 2f64.powi(32);
    assert_eq!(gamma.ci95, Some([0.0, rounded(gamma_t2)]));
    assert_eq!(gamma.targets, 2);
    assert_close(value(gamma, "judged_at_k"), (0.5 + 1.0) / 2.0);
    assert_close(gamma.mean_diff_vs_leader, (-1.0 + gamma_t2 - 1.0) / 2.0);
    // Two differences: half of the sign patterns are as extreme as the observed one.
    let p = gamma.p_value_vs_leader.unwrap();
    assert!((0.45..0.55).contains(&p), "{p}");
    // Holm over every pair, not only the leader's: {alpha-beta: 1, alpha-gamma: p,
    // beta-gamma: p} (beta equals alpha on both targets), so gamma's p is the smallest, times 3.
    assert_eq!(gamma.p_value_holm, Some((3.0 * p).min(1.0)));
    assert_close(value(gamma, "precision"), 1.0 / 6.0);
    assert_close(value(gamma, "recall"), 0.5);
    assert_close(value(gamma, "f1"), 0.25);
    assert_close(value(gamma, "ap"), 0.25);
    assert_close(value(gamma, "rr"), 0.25);
}

/// Whether `keys` occur in `json` in this order (as a subsequence of its keys).
fn keys_in_order(json: &str, keys: &[&str]) -> bool {
    let mut from = 0;
    keys.iter()
        .all(|key| match json[from..].find(&format!("\"{key}\":")) {
            Some(position) => {
                from += position + 1;
                true
            }
            None => false,
        })
}

#[test]
fn json_has_the_interface_shape() {
    let json = board().to_json(true);
    assert!(json.ends_with("}\n"));
    assert!(keys_in_order(
        &json,
        &["settings", "targets", "decision", "models", "per_target"]
    ));
    assert!(keys_in_order(
        &json,
        &[
            "k",
            "gain",
            "relevance",
            "ideal",
            "unjudged",
            "empty",
            "threshold",
            "ap_denominator",
            "pool_depth",
            "evaluated",
            "skipped_empty",
            "unrated",
            "skipped_no_relevant",
            "partly_rated",
            "model",
            "rank",
            "ndcg",
            "ci95",
            "targets",
            "judged_at_k",
            "mean_diff_vs_leader",
            "p_value_vs_leader",
            "p_value_holm",
            "precision",
            "recall",
            "f1",
            "ap",
            "rr",
            "unique_relevant"
        ]
    ));
    let value: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["settings"],
        json!({"k": 3, "gain": "linear", "relevance": "stars-minus-one", "ideal": "judged",
               "unjudged": "zero", "empty": "skip", "threshold": 4,
               "ap_denominator": "relevant", "pool_depth": 3, "partial": "include"})
    );
    assert_eq!(
        value["targets"],
        json!({"evaluated": 3, "skipped_empty": 1, "unrated": 1, "skipped_no_relevant": 1,
               "partly_rated": 0})
    );
    let leader = &value["models"][0];
    assert_eq!(leader["model"], "alpha");
    assert_eq!(leader["ci95"], json!([1.0, 1.0]));
    assert_eq!(leader["mean_diff_vs_leader"], json!(0.0));
    assert!(leader["p_value_vs_leader"].is_null() && leader["p_value_holm"].is_null());

    let rows = value["per_target"].as_array().unwrap();
    assert_eq!(rows.len(), 9, "3 evaluated targets × 3 models");
    assert_eq!(
        rows[0],
        json!({"target": "T1", "model": "alpha", "ndcg": 1.0, "judged_at_k": 1.0})
    );
    assert_eq!(
        rows[2],
        json!({"target": "T1", "model": "gamma, v2", "ndcg": 0.0, "judged_at_k": null})
    );
    assert!(rows[6..]
        .iter()
        .all(|row| row["target"] == "T3" && row["ndcg"].is_null()));
    assert!(!json.contains("NaN"));

    assert!(!board().to_json(false).contains("per_target"));
}

#[test]
fn csv_and_table_state_values_and_settings() {
    let board = board();
    let csv = board.to_csv();
    let lines: Vec<&str> = csv.split_terminator("\r\n").collect();
    assert_eq!(
        lines[0],
        "model,rank,ndcg,ci95_low,ci95_high,targets,judged_at_k,mean_diff_vs_leader,\
         p_value_vs_leader,p_value_holm,precision,recall,f1,ap,rr,unique_relevant,\
         k,gain,relevance,ideal,unjudged,empty,threshold,ap_denominator,pool_depth,partial"
    );
    assert!(lines[1].starts_with("alpha,1,1,1,1,2,1,0,,,0.3333333333333333,1,0.5,1,1,"));
    assert!(lines[1].ends_with(",3,linear,stars-minus-one,judged,zero,skip,4,relevant,3,include"));
    assert!(lines[3].starts_with("\"gamma, v2\",3,"));
    assert_eq!(lines.len(), 4);

    let per_target = board.per_target_csv();
    assert!(per_target.starts_with("target,model,ndcg,judged_at_k,k,"));
    assert!(per_target.contains("\r\nT1,\"gamma, v2\",0,,3,"));
    assert!(per_target.contains("\r\nT3,alpha,,1,3,"));

    let table = board.to_table();
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some(settings().describe().as_str()));
    assert!(table.contains("  alpha      1.0000  [1.0000, 1.0000]"));
    assert!(table.contains("gamma, v2  0.2606"));
}

#[test]
fn a_study_without_ratings_has_nothing_defined() {
    let study = Collection::of(
        vec!["m".to_owned()],
        vec![TargetInput {
            target: "T".to_owned(),
            fully_rated: false,
            judgments: HashMap::new(),
            lists: vec![Some(vec![1])],
            left_out: Vec::new(),
        }],
        PoolDepth::DEFAULT,
    );
    let board = Leaderboard::of(&study, settings(), Margin::NONE, Partial::Exclude);
    let row = &board.models[0];
    assert_eq!((row.ndcg(), row.ci95, row.targets), (None, None, 0));
    assert_eq!(
        (row.mean_diff_vs_leader, row.p_value_vs_leader),
        (None, None)
    );
    assert_eq!(board.targets.unrated, 1);
    assert_eq!(
        board.targets.partly_rated, 0,
        "a target without ratings is unrated"
    );
    assert!(board.per_target.is_empty());
    let empty = Collection::<i64>::of(Vec::new(), Vec::new(), PoolDepth::DEFAULT);
    let empty = Leaderboard::of(&empty, settings(), Margin::NONE, Partial::Exclude);
    assert!(empty.models.is_empty());
    assert!(empty.to_table().lines().count() >= 3);
}

#[test]
fn renders_are_byte_identical() {
    // Fresh hash maps each time, so nothing may depend on their iteration order.
    let (first, second) = (board(), board());
    assert_eq!(first.to_json(true), second.to_json(true));
    assert_eq!(first.to_csv(), second.to_csv());
    assert_eq!(first.per_target_csv(), second.per_target_csv());
    assert_eq!(first.to_table(), second.to_table());
}

/// Unique relevant@k (docs/metrics.md): a relevant paper counts for the one model whose top k
/// holds it alone, for neither of two that share it; a model without a list finds 0 and takes
/// nothing from the others; a model the pool left out is scored nowhere on that target, yet its
/// list still has the papers it has; undefined where nothing reaches the threshold.
#[test]
fn unique_relevant_counts_the_relevant_papers_no_other_model_has() {
    let models = ["a", "b", "c", "pruned"].map(String::from).to_vec();
    let target = |id: &str,
                  rated: &[(&'static str, i64)],
                  lists: [Option<&[&'static str]>; 4],
                  left_out: Vec<usize>| fully_rated(id, rated, &lists, left_out);
    let targets = vec![
        // a alone has p (t is in the pruned model's list too), b alone r; they share q.
        target(
            "T1",
            &[("p", 5), ("q", 4), ("r", 4), ("s", 2), ("t", 5)],
            [
                Some(&["p", "q", "t", "r"]),
                Some(&["q", "r", "s"]),
                None,
                Some(&["t", "x"]),
            ],
            vec![3],
        ),
        // Nothing reaches 4 stars.
        target(
            "T2",
            &[("u", 2)],
            [Some(&["u"]), Some(&["u"]), None, Some(&["u"])],
            Vec::new(),
        ),
        // a and b share v; the pruned model, pooled here, has w alone.
        target(
            "T3",
            &[("v", 5), ("w", 4)],
            [Some(&["v"]), Some(&["v"]), None, Some(&["w"])],
            Vec::new(),
        ),
    ];
    let collection = Collection::of(models, targets, PoolDepth::new(3).unwrap());
    let board = Leaderboard::of(&collection, settings(), Margin::NONE, Partial::Include);
    let unique = |model: &str| {
        let row = board.models.iter().find(|row| row.model == model).unwrap();
        value(row, "unique_relevant")
    };
    assert_eq!(unique("a"), Some(0.5));
    assert_eq!(unique("b"), Some(0.5));
    assert_eq!(unique("c"), Some(0.0));
    assert_eq!(unique("pruned"), Some(1.0));
    assert_eq!(board.targets.skipped_no_relevant, 1);
}
