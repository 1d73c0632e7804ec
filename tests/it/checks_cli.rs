//! `paperjudge checks` as a user runs it: the sensitivity table equals `paperjudge leaderboard`
//! run with each variant's options, the text names the four checks, and bad options are
//! refused with exit status 2.

use serde_json::Value;

use crate::process_support::{paperjudge, stderr, succeeded};
use crate::web_support::TestApp;

/// The web fixture with both targets fully rated: T1 as `rate_all_of_t1`, T2 (P1, P7, P8,
/// P9) with stars that make the ranking move with the variant.
async fn rated_fixture() -> TestApp {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    for (paper, stars) in [("P1", 5), ("P7", 2), ("P8", 4), ("P9", 3)] {
        app.store_rating("T2", paper, stars).await;
    }
    app
}

#[tokio::test]
async fn every_variant_ranks_the_models_as_the_leaderboard_does_with_its_options() {
    let app = rated_fixture().await;
    let db = app.study.db_path();
    let checks: Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["checks", "--format", "json"],
        &[],
    )))
    .unwrap();
    let sensitivity = &checks["sensitivity"];
    let variants = sensitivity["variants"].as_array().unwrap();
    assert_eq!(
        variants.len(),
        24,
        "2 gains × 2 ideals × 2 unjudged × k in 5, 8, 10"
    );
    let default_board: Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["leaderboard", "--format", "json"],
        &[],
    )))
    .unwrap();
    let leader = default_board["models"][0]["model"].clone();
    assert_eq!(sensitivity["leader"], leader);
    let mut leader_changes = 0;
    for variant in variants {
        let k = variant["k"].to_string();
        let options = [
            "leaderboard",
            "--format",
            "json",
            "--gain",
            variant["gain"].as_str().unwrap(),
            "--ideal",
            variant["ideal"].as_str().unwrap(),
            "--unjudged",
            variant["unjudged"].as_str().unwrap(),
            "--k",
            &k,
        ];
        let board: Value =
            serde_json::from_str(&succeeded(&paperjudge(&db, &options, &[]))).unwrap();
        let expected: Vec<(Value, Value, Value)> = (board["models"].as_array().unwrap().iter())
            .map(|row| {
                (
                    row["model"].clone(),
                    row["rank"].clone(),
                    row["ndcg"].clone(),
                )
            })
            .collect();
        let actual: Vec<(Value, Value, Value)> = (variant["ranking"].as_array().unwrap().iter())
            .map(|row| {
                (
                    row["model"].clone(),
                    row["rank"].clone(),
                    row["ndcg"].clone(),
                )
            })
            .collect();
        assert_eq!(actual, expected, "{}", options.join(" "));
        let changed = board["models"][0]["model"] != leader;
        assert_eq!(variant["leader_changed"], changed, "{}", options.join(" "));
        leader_changes += usize::from(changed);
        if variant["is_default"] == true {
            assert_eq!(variant["kendall_tau"], 1.0);
            assert_eq!(variant["name"], "the settings asked for");
        }
    }
    // The fixture is small enough for the leader to change under 18 variants.
    assert_eq!(leader_changes, 18);
    assert_eq!(
        sensitivity["sentence"],
        "bravo-lsa-200 leads under ideal = list with k = 5; bravo-lsa-200 leads under ideal = \
         list; bravo-lsa-200 leads under ideal = list with k = 10; another model leads under 15 \
         more of the 24 variants."
    );
    assert_eq!(
        sensitivity["leader_changes"].as_array().unwrap().len(),
        leader_changes
    );
    assert_eq!(
        (variants.iter())
            .filter(|variant| variant["is_default"] == true)
            .count(),
        1
    );
}

#[tokio::test]
async fn the_text_states_each_check_and_bad_options_are_refused() {
    let app = rated_fixture().await;
    let db = app.study.db_path();
    let text = succeeded(&paperjudge(&db, &["checks"], &[]));
    for heading in [
        "Pool bias (leave one model out)",
        "Consistency (re-checked pairs)",
        "Variant sensitivity",
        "Time and drift",
    ] {
        assert!(text.contains(heading), "{heading:?} missing from:\n{text}");
    }
    assert!(text.contains("2 targets evaluated; pool depth 8"), "{text}");
    assert!(text.contains("No pair re-checked yet: re-check about 1 of the 11 rated pairs"));

    // The page's JSON is the command's, byte for byte, options included.
    let json = succeeded(&paperjudge(
        &db,
        &[
            "checks",
            "--format",
            "json",
            "--k",
            "5",
            "--gain",
            "exponential",
        ],
        &[],
    ));
    assert_eq!(
        app.get_text("/checks.json?k=5&gain=exponential").await,
        json
    );

    let wrong = paperjudge(&db, &["checks", "--gain", "quadratic"], &[]);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(stderr(&wrong).contains("quadratic"), "{}", stderr(&wrong));
    let wrong = paperjudge(&db, &["checks", "--format", "xml"], &[]);
    assert_eq!(wrong.status.code(), Some(2));
}
