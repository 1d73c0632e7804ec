//! Nothing a rater can reach while rating unblinds a target still being rated: every
//! leaderboard output stays byte for byte the same while a target is rated paper by paper, and
//! changes only with its last rating. `partial=include` is the explicit exception, and says
//! so; a rating changed after a per-target view showed its target is marked in the history.

use crate::process_support::{paperjudge, succeeded};
use crate::web_support::{papers_in_page_order, Answer, TestApp};
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
         WHERE h.source = 'web' ORDER BY h.id",
    )
    .fetch_all(&app.study.connections)
    .await
    .unwrap()
}

fn entry(target: &str, paper: &str, known: bool) -> (String, String, bool) {
    (target.to_owned(), paper.to_owned(), known)
}

#[tokio::test]
async fn a_rating_changed_after_a_per_target_view_showed_its_target_is_marked() {
    let app = study_with_t1_rated().await;
    let (t1, t2) = (app.paper_id("T1").await, app.paper_id("T2").await);
    let session = app.session(t1).await;

    app.rate(&session, t1, "P3", "2", Answer::Json).await;
    // The aggregate views unblind nothing; neither does T2's refused breakdown.
    app.get_text("/leaderboard").await;
    app.get_text("/leaderboard.json").await;
    assert_eq!(
        app.get(&format!("/leaderboard/targets/{t2}"))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    app.rate(&session, t1, "P3", "1", Answer::Json).await;
    app.rate(&session, t2, "P7", "4", Answer::Json).await;

    app.get_text(&format!("/leaderboard/targets/{t1}")).await;
    app.rate(&session, t1, "P5", "3", Answer::Json).await;
    app.rate(&session, t2, "P8", "4", Answer::Json).await;
    assert_eq!(
        provenance(&app).await,
        [
            entry("T1", "P3", false),
            entry("T1", "P3", false),
            entry("T2", "P7", false),
            entry("T1", "P5", true),
            entry("T2", "P8", false),
        ]
    );

    // Including partly rated targets unblinds T2, still being rated.
    let page = app.get_text("/leaderboard?partial=include").await;
    assert!(page.contains("<strong>Not blind.</strong>"));
    app.rate(&session, t2, "P9", "2", Answer::Json).await;
    assert_eq!(
        provenance(&app).await.last(),
        Some(&entry("T2", "P9", true))
    );
    let status: Value = serde_json::from_str(&succeeded(&paperjudge(
        &app.study.db_path(),
        &["status", "--format", "json"],
        &[],
    )))
    .unwrap();
    assert_eq!(status["judgments_with_provenance_known"], 2);
}

#[tokio::test]
async fn per_target_downloads_and_the_matrix_unblind_the_targets_they_show() {
    let app = study_with_t1_rated().await;
    let unblinded = || async {
        sqlx::query_scalar::<_, String>(
            "SELECT p.external_id FROM targets t JOIN papers p ON p.id = t.target_id
             WHERE t.unblinded_at IS NOT NULL ORDER BY p.external_id",
        )
        .fetch_all(&app.study.connections)
        .await
        .unwrap()
    };
    app.get_text("/leaderboard.csv").await;
    app.get_text("/").await;
    assert!(unblinded().await.is_empty());
    app.get_text("/leaderboard.csv?per_target=1").await;
    assert_eq!(unblinded().await, ["T1"]);

    app.store_rating("T2", "P7", 5).await;
    app.get_text("/leaderboard/targets").await;
    assert_eq!(
        unblinded().await,
        ["T1"],
        "T2 is not fully rated: not shown"
    );
    succeeded(&paperjudge(
        &app.study.db_path(),
        &["leaderboard", "--include-partial"],
        &[],
    ));
    assert_eq!(unblinded().await, ["T1", "T2"]);
}
