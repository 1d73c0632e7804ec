//! trec_eval agreement with "I can't judge this" (issue 40): the trec fixture's study, with
//! some of its pairs marked "can't judge" (every seventh pair of its qrels, and T13's only
//! one), exports the qrels without them, and the leaderboard's NDCG equals trec_eval's on that
//! export: per target, and the mean as `trec_eval -c` averages it (over the topics of the
//! qrels; T13, judged nowhere now, is one of trec_eval's topics no more, and not evaluated
//! here either). tests/fixtures/cannot_judge/reference.py says how the reference was made.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::trec_agreement_study::{imported_fixture, trec_eval_variants};
use paperjudge::export;
use paperjudge::leaderboard::{columns, Partial};
use paperjudge::metrics::{Judgments, Relevance};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cannot_judge");

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURE}/{name}")).unwrap()
}

#[tokio::test]
async fn the_leaderboard_equals_trec_eval_on_the_qrels_exported_without_the_pairs_not_judged() {
    let study = imported_fixture().await;
    let summary = study.ratings(&fixture("cannot_judge.csv")).await;
    let reference: Value = serde_json::from_str(&fixture("reference.json")).unwrap();
    assert_eq!(summary.updated, reference["cannot_judge"].as_u64().unwrap());

    let judged = study
        .study
        .rating()
        .judged_pairs(&Judgments::LowerMedian)
        .await
        .unwrap();
    let mut qrels = Vec::new();
    export::qrels(&judged, Relevance::StarsMinusOne, &mut qrels).unwrap();
    assert_eq!(String::from_utf8(qrels).unwrap(), fixture("qrels.txt"));

    let topics: BTreeSet<&str> = (reference["topics"].as_array().unwrap().iter())
        .map(|topic| topic.as_str().unwrap())
        .collect();
    assert!(!topics.contains("T13"));
    let mut compared = 0;
    for (variant, k, options) in trec_eval_variants() {
        // trec_eval scores every topic of its qrels, partly rated ones too.
        let board = (study
            .study
            .evaluation()
            .leaderboard(&options, Partial::Include)
            .await)
            .unwrap()
            .board;
        let evaluated: BTreeSet<&str> = (board.per_target.iter())
            .map(|target| target.target.as_str())
            .collect();
        assert_eq!(evaluated, topics, "{variant} @{k}: the targets evaluated");
        let measure = format!("ndcg_cut_{k}");
        for (row, model) in board.models.iter().enumerate() {
            let expected = &reference["models"][&model.model][variant];
            for target in board.per_target.iter() {
                let ours = target.value(row, columns::RANKING);
                let theirs = expected["per_target"][&target.target][&measure].as_f64();
                match (ours, theirs) {
                    (Some(ours), Some(theirs)) => assert!(
                        (ours - theirs).abs() < 1e-9,
                        "{variant} {measure} {} {}: ours {ours}, trec_eval {theirs}",
                        model.model,
                        target.target
                    ),
                    // trec_eval has no value where the run lacks the topic: ours is 0.
                    (Some(ours), None) => assert_eq!(ours, 0.0, "{}", model.model),
                    (None, _) => panic!("{} {}: no NDCG", model.model, target.target),
                }
                compared += 1;
            }
            let mean = model.number(columns::RANKING).expect("a mean");
            let trec_eval_c = expected["mean_c"][&measure].as_f64().unwrap();
            assert!(
                (mean - trec_eval_c).abs() < 1e-9,
                "{variant} {measure} {}: ours {mean}, trec_eval -c {trec_eval_c}",
                model.model
            );
        }
    }
    assert_eq!(compared, 2 * 3 * 4 * topics.len());
}
