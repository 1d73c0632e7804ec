//! trec_eval agreement end to end: the fixture's runs and qrels go through the importers into
//! a study, and the leaderboard's per-target NDCG equals trec_eval's (tests/fixtures/trec).

use std::collections::{BTreeSet, HashMap};
use std::num::NonZeroUsize;

use crate::common::TestStudy;
use paperjudge::formats::Format;
use paperjudge::leaderboard::LeaderboardOptions;
use paperjudge::leaderboard::{columns, Partial};
use paperjudge::metrics::{Empty, Unjudged};
use serde_json::Value;

pub const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/trec");

/// The fixture's papers, runs (through the TREC importer) and qrels (as ratings, stars = rel + 1)
/// in a new study.
pub async fn imported_fixture() -> TestStudy {
    let qrels = std::fs::read_to_string(format!("{FIXTURE}/qrels.txt")).unwrap();
    let mut runs = Vec::new();
    for entry in std::fs::read_dir(format!("{FIXTURE}/runs")).unwrap() {
        let path = entry.unwrap().path();
        runs.push(std::fs::read_to_string(path).unwrap());
    }
    let mut ids = BTreeSet::new();
    for line in qrels.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        ids.extend([fields[0].to_owned(), fields[2].to_owned()]);
    }
    for run in &runs {
        for line in run.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            ids.extend([fields[0].to_owned(), fields[2].to_owned()]);
        }
    }
    let study = TestStudy::new().await;
    let mut papers = String::from("id,title\n");
    for id in &ids {
        papers.push_str(&format!("{id},Paper {id}\n"));
    }
    study.papers(&papers).await;
    for run in &runs {
        study
            .import(
                &crate::common::recommendations(Format::Trec),
                run.as_bytes(),
                1,
            )
            .await
            .unwrap();
    }
    let mut ratings = String::from("target,paper,stars\n");
    for line in qrels.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let rel: i64 = fields[3].parse().unwrap();
        ratings.push_str(&format!("{},{},{}\n", fields[0], fields[2], rel + 1));
    }
    study.ratings(&ratings).await;
    study
}

/// The reference's variants (`graded`, `condensed`: trec_eval with `-J`) at each cutoff, with
/// the leaderboard's options that compute trec_eval's `ndcg_cut` there.
pub fn trec_eval_variants() -> impl Iterator<Item = (&'static str, usize, LeaderboardOptions)> {
    [(Unjudged::Zero, "graded"), (Unjudged::Skip, "condensed")]
        .into_iter()
        .flat_map(|(unjudged, variant)| {
            [5, 10, 20].into_iter().map(move |k| {
                let options = LeaderboardOptions {
                    k: NonZeroUsize::new(k),
                    unjudged: Some(unjudged),
                    empty: Some(Empty::Zero),
                    ..LeaderboardOptions::default()
                };
                (variant, k, options)
            })
        })
}

#[tokio::test]
async fn per_target_ndcg_of_an_imported_study_equals_trec_eval() {
    let study = imported_fixture().await;
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{FIXTURE}/reference.json")).unwrap(),
    )
    .unwrap();
    let mut compared = 0;
    for (variant, k, options) in trec_eval_variants() {
        // trec_eval scores every target of its qrels: partly rated ones too.
        let board = study
            .study
            .evaluation()
            .leaderboard(&options, Partial::Include)
            .await
            .unwrap()
            .board;
        let ndcg = columns::RANKING;
        let ours: HashMap<(String, String), Option<f64>> = (board.per_target.iter())
            .flat_map(|target| {
                (board.models.iter().enumerate()).map(move |(row, model)| {
                    let key = (model.model.clone(), target.target.clone());
                    (key, target.value(row, ndcg))
                })
            })
            .collect();
        let models = reference["models"].as_object().unwrap();
        for (model, values) in models {
            let per_target = values[variant]["per_target"].as_object().unwrap();
            for (target, measures) in per_target {
                let expected = measures[format!("ndcg_cut_{k}")].as_f64().unwrap();
                let actual = ours[&(model.clone(), target.clone())]
                    .unwrap_or_else(|| panic!("{model} {target}: no NDCG"));
                assert!(
                    (actual - expected).abs() < 1e-9,
                    "{variant} ndcg_cut_{k} {model} {target}: ours {actual}, trec_eval {expected}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 500, "only {compared} values compared");
}
