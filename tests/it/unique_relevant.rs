//! Unique relevant@k end to end, against an implementation of its own (trec_eval and ranx
//! have no such measure): tests/fixtures/unique_relevant/reference.py reads the trec
//! fixture's runs and qrels (which the app exports byte for byte) and writes each run's mean
//! under 48 settings (k, threshold, unjudged, empty). The real app, serving the fixture
//! imported into a study file, must answer exactly those values, in its CSV and its JSON.

use std::collections::HashMap;

use serde_json::Value;

use crate::trec_agreement_study::{imported_fixture, FIXTURE as TREC};
use crate::web_support::TestApp;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/unique_relevant"
);

/// Each model's `unique_relevant` field of the leaderboard's CSV, as written.
fn csv_values(csv: &str) -> HashMap<String, String> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = (header.iter().position(|&key| key == "unique_relevant"))
        .expect("a unique_relevant column");
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            (fields[0].to_owned(), fields[column].to_owned())
        })
        .collect()
}

#[tokio::test]
async fn unique_relevant_equals_the_reference_implementation() {
    let app = TestApp::spawn(imported_fixture().await).await;
    // The reference read the qrels this app exports, byte for byte.
    let qrels = std::fs::read_to_string(format!("{TREC}/qrels.txt")).unwrap();
    assert_eq!(app.get_text("/export/qrels.txt").await, qrels);

    let reference = std::fs::read_to_string(format!("{FIXTURE}/reference.json")).unwrap();
    let reference: Value = serde_json::from_str(&reference).unwrap();
    let cases = reference["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 48);
    let mut found_alone = 0;
    for case in cases {
        // trec_eval's population: every target of the qrels, partly rated ones too.
        let query = format!(
            "partial=include&k={}&threshold={}&unjudged={}&empty={}",
            case["k"],
            case["threshold"],
            case["unjudged"].as_str().unwrap(),
            case["empty"].as_str().unwrap(),
        );
        let csv = csv_values(&app.get_text(&format!("/leaderboard.csv?{query}")).await);
        let json = app.get_text(&format!("/leaderboard.json?{query}")).await;
        let json: Value = serde_json::from_str(&json).unwrap();
        let expected = case["unique_relevant"].as_object().unwrap();
        assert_eq!(csv.len(), expected.len(), "{query}");
        for row in json["models"].as_array().unwrap() {
            let model = row["model"].as_str().unwrap();
            // The shortest texts that read back as the same doubles: equal texts, equal values.
            let theirs = expected[model].as_str().expect("defined over the fixture");
            assert_eq!(
                csv[model].parse::<f64>().unwrap(),
                theirs.parse::<f64>().unwrap(),
                "{query} {model}: ours {}, the reference {theirs}",
                csv[model]
            );
            assert_eq!(
                row["unique_relevant"].as_f64(),
                serde_json::from_str::<f64>(theirs).ok(),
                "{query} {model}: the JSON"
            );
            found_alone += usize::from(theirs.parse::<f64>().unwrap() > 0.0);
        }
    }
    // The cases tell models apart (many means above 0), and targets with nothing relevant are
    // among them (`empty` changes means: each case with `skip` is followed by its `zero`).
    assert!(found_alone > 60, "{found_alone}");
    let empty_matters = (cases.chunks(2))
        .filter(|pair| pair[0]["unique_relevant"] != pair[1]["unique_relevant"])
        .count();
    assert!(empty_matters > 10, "{empty_matters}");
}
