//! Nothing a rater can reach while rating unblinds a target still being rated: every
//! leaderboard output stays byte for byte the same while a target is rated paper by paper, and
//! changes only with its last rating. `partial=include` is the explicit exception, and says
//! so. A change of a rating on a target already fully rated is made with the target's numbers
//! out, and is marked so in the history in its own transaction; no view writes anything.

use crate::process_support::{paperjudge, succeeded};
use crate::web_support::{papers_in_page_order, Answer, TestApp, MODELS};
use reqwest::StatusCode;
use serde_json::Value;

/// The fixture with T1 fully rated and T2 (P1, P7, P8, P9) not rated at all.
async fn study_with_t1_rated() -> TestApp {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    app
}

/// Every leaderboard output a rater can reach: the page, the downloads with and without rows
/// per target, the dashboard's leaderboard, and the command line's table and JSON.
async fn outputs(app: &TestApp) -> Vec<(&'static str, String)> {
    let mut outputs = Vec::new();
    for (name, path) in [
        ("page", "/leaderboard"),
        ("csv", "/leaderboard.csv"),
        ("json", "/leaderboard.json"),
        ("per-target csv", "/leaderboard.csv?per_target=1"),
        ("per-target json", "/leaderboard.json?per_target=1"),
    ] {
        outputs.push((name, app.get_text(path).await));
    }
    let dashboard = app.get_text("/").await;
    let start = dashboard
        .find("<section class=\"leaderboard-summary\"")
        .expect("the dashboard's leaderboard");
    let end = start + dashboard[start..].find("</section>").unwrap();
    outputs.push(("dashboard", dashboard[start..end].to_owned()));
    let db = app.study.db_path();
    for (name, args) in [
        ("cli table", &["leaderboard"][..]),
        ("cli json", &["leaderboard", "--format", "json"][..]),
        (
            "cli per-target json",
            &["leaderboard", "--format", "json", "--per-target"][..],
        ),
    ] {
        outputs.push((name, succeeded(&paperjudge(&db, args, &[]))));
    }
    outputs
}

/// An output without the counts of targets, which the first rating of a target moves from
/// "unrated" to "partly rated" (counts that say nothing about which model listed what).
fn without_counts(name: &str, text: &str) -> String {
    if name.contains("json") {
        let mut json: Value = serde_json::from_str(text).unwrap();
        json.as_object_mut().unwrap().remove("targets");
        return json.to_string();
    }
    let counts_line = |line: &&str| match name {
        "page" => line.starts_with("<p class=\"board-targets\">"),
        "cli table" => line.contains(" targets evaluated ("),
        _ => false,
    };
    text.lines()
        .filter(|line| !counts_line(line))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn every_output_stays_the_same_until_the_last_paper_of_a_target_is_rated() {
    let app = study_with_t1_rated().await;
    let t2 = app.paper_id("T2").await;
    let session = app.session(t2).await;
    let blind_order = papers_in_page_order(&app.get_text(&format!("/targets/{t2}")).await);
    assert_eq!(blind_order.len(), 4);
    let stars = |paper: &str| match paper {
        "P7" => "5",
        "P8" => "3",
        "P9" => "2",
        _ => "1",
    };

    let mut before = outputs(&app).await;
    assert_eq!(before.len(), 9);
    for (index, paper) in blind_order.iter().enumerate() {
        let rated = app
            .rate(&session, t2, paper, stars(paper), Answer::Json)
            .await;
        assert_eq!(rated.status(), StatusCode::OK);
        let after = outputs(&app).await;
        for ((name, old), (_, new)) in before.iter().zip(&after) {
            // (Whole pages in a failed assertion would bury the message.)
            match index {
                // The first rating makes T2 partly rated: only that count may change.
                0 => assert!(
                    without_counts(name, new) == without_counts(name, old),
                    "{name} moved with the first rating of {paper}"
                ),
                3 => assert!(new != old, "{name} did not change with T2's last rating"),
                _ => assert!(new == old, "{name} moved with rating {} of T2", index + 1),
            }
        }
        if index == 0 {
            let json: Value = serde_json::from_str(&after[2].1).unwrap();
            assert_eq!(
                json["targets"],
                serde_json::json!({"evaluated": 1, "skipped_empty": 0, "unrated": 0,
                                   "skipped_no_relevant": 0, "partly_rated": 1})
            );
        }
        before = after;
    }
    let json: Value = serde_json::from_str(&before[2].1).unwrap();
    assert_eq!(json["targets"]["evaluated"], 2);
    assert_eq!(json["targets"]["partly_rated"], 0);
}

/// The history entries of T1 and T2 as `(target, paper, provenance known)`, oldest first.
async fn provenance(app: &TestApp) -> Vec<(String, String, bool)> {
    sqlx::query_as(
        "SELECT t.external_id, p.external_id, h.provenance_known
         FROM rating_history h
         JOIN papers t ON t.id = h.target_id JOIN papers p ON p.id = h.paper_id
         WHERE h.source IN ('web', 'undo') ORDER BY h.id",
    )
    .fetch_all(&app.study.connections)
    .await
    .unwrap()
}

fn entry(target: &str, paper: &str, known: bool) -> (String, String, bool) {
    (target.to_owned(), paper.to_owned(), known)
}

/// `paperjudge status`'s count of rating changes made with provenance known.
fn changes_with_provenance_known(app: &TestApp) -> Value {
    let status = succeeded(&paperjudge(
        &app.study.db_path(),
        &["status", "--format", "json"],
        &[],
    ));
    serde_json::from_str::<Value>(&status).unwrap()["judgments_with_provenance_known"].clone()
}

/// Alpha's NDCG in the leaderboard JSON: the one view the rater of these tests reads.
async fn alpha_ndcg(app: &TestApp) -> Value {
    let json: Value = serde_json::from_str(&app.get_text("/leaderboard.json").await).unwrap();
    let models = json["models"].as_array().unwrap().iter();
    models
        .clone()
        .find(|row| row["model"] == MODELS[0])
        .unwrap()["ndcg"]
        .clone()
}

#[tokio::test]
async fn a_change_on_a_fully_rated_target_is_made_with_its_provenance_known() {
    let app = study_with_t1_rated().await;
    let (t1, t2) = (app.paper_id("T1").await, app.paper_id("T2").await);
    let session = app.session(t1).await;

    // Nothing but the leaderboard's JSON is read: T1's numbers are in it, and a change of
    // a rating moves the NDCG of exactly the models that listed the paper (alpha lists P1).
    let before = alpha_ndcg(&app).await;
    app.rate(&session, t1, "P1", "1", Answer::Json).await;
    assert_ne!(alpha_ndcg(&app).await, before);
    assert_eq!(provenance(&app).await, [entry("T1", "P1", true)]);
    assert_eq!(changes_with_provenance_known(&app), 1);

    // A clear, the rating that makes the target whole again and an undo are changes of a
    // target whose numbers were out, whatever they leave.
    app.rate(&session, t1, "P2", "clear", Answer::Json).await;
    app.rate(&session, t1, "P2", "2", Answer::Json).await;
    let undone = app.undo(&session, t1, Answer::Json).await;
    assert_eq!(undone.status(), StatusCode::OK);
    // T2 was never fully rated: its ratings are blind up to the one that completes it (its
    // numbers appear only after that), and a change after it is not.
    for (paper, stars) in [
        ("P7", "5"),
        ("P8", "3"),
        ("P9", "2"),
        ("P1", "1"),
        ("P7", "4"),
    ] {
        app.rate(&session, t2, paper, stars, Answer::Json).await;
    }
    assert_eq!(
        provenance(&app).await,
        [
            entry("T1", "P1", true),
            entry("T1", "P2", true),
            entry("T1", "P2", true),
            entry("T1", "P2", true),
            entry("T2", "P7", false),
            entry("T2", "P8", false),
            entry("T2", "P9", false),
            entry("T2", "P1", false),
            entry("T2", "P7", true),
        ]
    );
    assert_eq!(changes_with_provenance_known(&app), 5);
}

/// Everything that `targets` and the rating history hold.
async fn provenance_state(app: &TestApp) -> (Vec<(i64, Option<String>)>, i64) {
    let targets = sqlx::query_as("SELECT target_id, unblinded_at FROM targets ORDER BY target_id")
        .fetch_all(&app.study.connections)
        .await
        .unwrap();
    (targets, app.study.count("rating_history").await)
}

#[tokio::test]
async fn no_view_writes_a_marker_not_even_one_that_shows_a_target_still_being_rated() {
    let app = study_with_t1_rated().await;
    let (t1, t2) = (app.paper_id("T1").await, app.paper_id("T2").await);
    let session = app.session(t2).await;
    app.rate(&session, t2, "P7", "5", Answer::Json).await;
    let before = provenance_state(&app).await;

    for path in [
        format!("/leaderboard/targets/{t1}"),
        "/leaderboard/targets".to_owned(),
        "/leaderboard.json?per_target=1".to_owned(),
        "/leaderboard.csv?per_target=1".to_owned(),
        "/leaderboard?partial=include".to_owned(),
        "/leaderboard.json?partial=include&per_target=1".to_owned(),
        "/checks?partial=include".to_owned(),
        "/checks.json?partial=include".to_owned(),
    ] {
        app.get_text(&path).await;
        assert_eq!(provenance_state(&app).await, before, "GET {path}");
    }
    let db = app.study.db_path();
    for args in [
        &["leaderboard", "--include-partial", "--per-target"][..],
        &["checks", "--include-partial"],
    ] {
        succeeded(&paperjudge(&db, args, &[]));
        assert_eq!(provenance_state(&app).await, before, "{args:?}");
    }

    // So a change of T2, shown partly rated above, is not marked: nothing recorded that
    // anyone looked (docs/leaderboard.md, "Only targets rated whole are scored").
    app.rate(&session, t2, "P7", "4", Answer::Json).await;
    assert_eq!(
        provenance(&app).await,
        [entry("T2", "P7", false), entry("T2", "P7", false)]
    );
}

/// A target fully rated stops being so when the rating plan asks for more raters than rated
/// it (or a rater who took it is removed before finishing): the leaderboard kept from before
/// must not show it any more, although no rating and no import moved since.
#[tokio::test]
async fn a_target_the_plan_takes_back_from_fully_rated_leaves_the_leaderboard_at_once() {
    use paperjudge::domain::RaterName;
    use paperjudge::leaderboard::{LeaderboardOptions, Partial};
    let app = study_with_t1_rated().await;
    let study = &app.study.study;
    let options = LeaderboardOptions::default();
    let before = study
        .evaluation()
        .leaderboard(&options, Partial::Exclude)
        .await
        .unwrap();
    assert_eq!(before.board.targets.evaluated, 1);
    for name in ["Ann", "Bo"] {
        let name = RaterName::new(name).unwrap();
        study
            .raters()
            .add(&name, "a long enough password")
            .await
            .unwrap();
    }
    study.raters().set_plan(Some(2), None).await.unwrap();
    let after = study
        .evaluation()
        .leaderboard(&options, Partial::Exclude)
        .await
        .unwrap();
    assert_eq!(after.board.targets.evaluated, 0);
}
