//! The evaluation path over a real study file: a packed list or rating the loader cannot read
//! fails the evaluation instead of scoring as missing; imports and choices of targets bump the
//! study's revision once each; and the server keeps its evaluation until the study changes,
//! and not a moment longer.

use rand::SeedableRng;
use reqwest::StatusCode;
use serde_json::Value;

use crate::common::{self, revision, Revision};
use crate::process_support::{paperjudge, stderr};
use crate::web_support::{fixture_study, Answer, TestApp, MODELS};
use paperjudge::domain::PaperId;
use paperjudge::formats::Format;
use paperjudge::leaderboard::{LeaderboardOptions, Partial};
use paperjudge::study::evaluation::EvaluationSet;
use paperjudge::study::import::Kind;
use paperjudge::study::targets::DropRule;

/// Runs `statements` on one connection of the study, with the checks that would refuse
/// them turned off: a study file damaged by hand or by another tool.
async fn damage(app: &TestApp, statements: &str) {
    let sql = format!(
        "PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON; {statements}; \
         PRAGMA foreign_keys = ON; PRAGMA ignore_check_constraints = OFF;"
    );
    let mut conn = app.study.connections.acquire().await.unwrap();
    sqlx::raw_sql(&sql).execute(&mut *conn).await.unwrap();
}

/// The evaluation, the command line and the page all fail on `app`'s study, naming `cause`.
async fn unreadable(app: &TestApp, cause: &str) {
    let error = (app.study.study)
        .evaluation()
        .leaderboard(&LeaderboardOptions::default(), Partial::Exclude)
        .await
        .expect_err("the evaluation fails");
    assert!(error.to_string().contains(cause), "{error}");

    let output = paperjudge(&app.study.db_path(), &["leaderboard"], &[]);
    assert_eq!(output.status.code(), Some(1));
    let errors = stderr(&output);
    assert!(errors.contains(cause), "{errors}");
    assert!(
        errors.contains("paperjudge: the leaderboard cannot be computed from the study file"),
        "{errors}"
    );
    assert!(output.stdout.is_empty());

    let page = app.get("/leaderboard.json").await;
    assert_eq!(page.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body = page.text().await.unwrap();
    assert!(!body.contains(MODELS[0]), "no numbers: {body}");
}

/// The statement that sets the packed list of model `alpha-lda-300` for T1 to `set` (SQL).
fn damage_t1_list(set: &str) -> String {
    format!(
        "UPDATE packed_lists SET papers = {set}
         WHERE model_id = (SELECT id FROM models WHERE name = 'alpha-lda-300')
           AND target_id = (SELECT id FROM papers WHERE external_id = 'T1')"
    )
}

#[tokio::test]
async fn a_torn_packed_list_fails_the_evaluation() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    // Its last key cut short: read as a list, its model would score T1 on the wrong papers.
    damage(
        &app,
        &damage_t1_list("substr(papers, 1, length(papers) - 1)"),
    )
    .await;

    let t1 = app.paper_id("T1").await;
    unreadable(&app, &format!("the packed list of target {t1} is torn")).await;
}

#[tokio::test]
async fn a_packed_list_that_is_no_blob_fails_the_evaluation() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    damage(&app, &damage_t1_list("'P2'")).await;

    unreadable(&app, "Invalid column type Text at index: 2, name: papers").await;
}

/// The server's evaluation read again after a rating (the changed target alone) fails on a
/// torn list as the whole read does.
#[tokio::test]
async fn a_torn_packed_list_fails_the_evaluation_read_again_after_a_rating() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    let board = app.get("/leaderboard.json").await;
    assert_eq!(board.status(), StatusCode::OK);
    damage(&app, &damage_t1_list("x'04000000'")).await;
    let kept = app.get("/leaderboard.json").await;
    assert_eq!(kept.status(), StatusCode::OK, "nothing changed: kept");

    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    let rated = app.rate(&session, t1, "P1", "2", Answer::Json).await;
    assert_eq!(rated.status(), StatusCode::OK);
    let page = app.get("/leaderboard.json").await;
    assert_eq!(page.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body = page.text().await.unwrap();
    assert!(!body.contains(MODELS[0]), "no numbers: {body}");
}

#[tokio::test]
async fn stars_out_of_range_fail_the_evaluation() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    damage(
        &app,
        "UPDATE ratings SET stars = 7
         WHERE paper_id = (SELECT id FROM papers WHERE external_id = 'P1')",
    )
    .await;

    unreadable(&app, "stars must be from 1 to 5, got 7").await;
}

/// The fully rated targets in the order the verdict watches them, by external id.
async fn completion_order(app: &TestApp) -> Vec<String> {
    let set = EvaluationSet::load(&app.study.db_path(), 0).await.unwrap();
    let completion = set
        .collection
        .completion
        .expect("a study file knows the order");
    (completion.order.iter())
        .map(|&position| set.collection.targets[position].target.clone())
        .collect()
}

#[tokio::test]
async fn targets_are_ordered_by_when_their_last_pair_was_first_rated() {
    let app = TestApp::with_fixture().await;
    // T2 completed first, then T1 (the reverse of their ids' order).
    for (paper, stars) in [("P1", 1), ("P7", 5), ("P8", 3), ("P9", 2)] {
        app.store_rating("T2", paper, stars).await;
    }
    assert_eq!(completion_order(&app).await, ["T2"]);
    app.rate_all_of_t1().await;
    assert_eq!(completion_order(&app).await, ["T2", "T1"]);

    // A later change of a rating does not move its target.
    app.store_rating("T2", "P7", 4).await;
    assert_eq!(completion_order(&app).await, ["T2", "T1"]);
    // A rating removed leaves its target unfinished; given again, the pair keeps its first
    // rating, and the target its place.
    let t2 = app.paper_id("T2").await;
    let session = app.session(t2).await;
    let cleared = app.rate(&session, t2, "P8", "clear", Answer::Json).await;
    assert_eq!(cleared.status(), StatusCode::OK);
    assert_eq!(completion_order(&app).await, ["T1"]);
    app.store_rating("T2", "P8", 2).await;
    assert_eq!(completion_order(&app).await, ["T2", "T1"]);
}

#[tokio::test]
async fn every_import_and_every_choice_bumps_the_revision_once() {
    let study = fixture_study().await;
    let pool = &study.connections;
    let start = revision(pool).await;
    assert_eq!(start.ratings, 0, "no rating yet");

    study
        .ratings("target,paper,stars\nT1,P1,5\nT1,P2,4\nT2,P7,3\n")
        .await;
    let rated = revision(pool).await;
    assert_eq!(
        rated,
        Revision {
            ratings: 3,
            study: start.study + 1
        },
        "one history row per rating, one bump for the file"
    );
    let rejected = study
        .import(
            &paperjudge::study::import::Kind::Ratings(Default::default()),
            b"target,paper,stars\nT1,P1,9\n",
            4,
        )
        .await;
    assert!(rejected.is_err());
    assert_eq!(
        revision(pool).await,
        rated,
        "a rejected import changes nothing"
    );

    let rng = |seed| rand::rngs::StdRng::seed_from_u64(seed);
    let targets = [PaperId::given("T1"), PaperId::given("T2")];
    study
        .study
        .targets()
        .choose(&targets, rng(5))
        .await
        .unwrap();
    (study.study)
        .targets()
        .drop(&targets[1..], DropRule::Any)
        .await
        .unwrap();
    study.study.targets().choose_all(rng(6)).await.unwrap();
    assert_eq!(
        revision(pool).await,
        Revision {
            ratings: 3,
            study: rated.study + 3
        }
    );
}

#[tokio::test]
async fn an_import_that_changes_nothing_keeps_the_revision() {
    let study = fixture_study().await;
    let pool = &study.connections;
    study.ratings("target,paper,stars\nT1,P1,5\n").await;
    let start = revision(pool).await;

    // A file with a header and no rows, from Excel (CRLF) or not, of every kind.
    let kinds = [
        (Kind::Papers(Format::Csv), "id,title"),
        (
            common::recommendations(Format::Csv),
            "model,target,rank,paper",
        ),
        (
            Kind::Ratings(Default::default()),
            "target,target_title,paper,paper_title,stars,rated_at",
        ),
    ];
    for (kind, header) in &kinds {
        for ending in ["\n", "\r\n"] {
            let file = format!("{header}{ending}");
            let summary = (study.import(kind, file.as_bytes(), 6).await)
                .unwrap_or_else(|error| panic!("{file:?}: {error}"));
            assert_eq!((summary.read, summary.unchanged), (0, 0));
            assert_eq!(revision(pool).await, start, "{file:?}");
        }
    }
    // The same rows again: the same paper, list and rating.
    study.papers("id,title\nT1,Target one\n").await;
    study
        .recommendations("model,target,rank,paper,score\ncharlie-bm25,T2,1,P1,20.1\n")
        .await;
    study.ratings("target,paper,stars\nT1,P1,5\n").await;
    assert_eq!(revision(pool).await, start, "nothing changed");

    // A change moves it once.
    study.papers("id,title\nT1,Target 1\nP1,Paper one\n").await;
    assert_eq!(
        revision(pool).await,
        Revision {
            ratings: start.ratings,
            study: start.study + 1
        }
    );
}

/// Alpha's NDCG@8 in the leaderboard JSON of `app`.
async fn alpha_ndcg(app: &TestApp) -> f64 {
    let json: Value = serde_json::from_str(&app.get_text("/leaderboard.json").await).unwrap();
    let models = json["models"].as_array().unwrap();
    let alpha = models.iter().find(|row| row["model"] == MODELS[0]).unwrap();
    alpha["ndcg"].as_f64().unwrap()
}

#[track_caller]
fn assert_close(actual: f64, expected: f64) {
    assert!((actual - expected).abs() < 1e-12, "{actual} vs {expected}");
}

fn dcg(gains: &[f64]) -> f64 {
    (gains.iter().enumerate())
        .map(|(index, gain)| gain / ((index + 2) as f64).log2())
        .sum()
}

#[tokio::test]
async fn the_server_keeps_its_evaluation_until_the_study_changes() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    let t1 = app.paper_id("T1").await;
    // T1's gains: P1 4, P2 3, P3 0, P4 2, P5 0, P6 1, the hostile paper 0; alpha lists
    // P1 P2 P3.
    let before = dcg(&[4.0, 3.0]) / dcg(&[4.0, 3.0, 2.0, 1.0]);
    assert_close(alpha_ndcg(&app).await, before);
    let dashboard = app.get_text("/").await;

    // A change that leaves no trace in the history (no program of paperjudge makes one) is
    // not seen: the pages come from the evaluation kept, not from the database each time.
    damage(
        &app,
        "UPDATE ratings SET stars = 1
         WHERE paper_id = (SELECT id FROM papers WHERE external_id = 'P1')
           AND target_id = (SELECT id FROM papers WHERE external_id = 'T1')",
    )
    .await;
    assert_close(alpha_ndcg(&app).await, before);
    assert_eq!(app.get_text("/").await, dashboard);

    // A rating through the page adds to the history: the next view sees both changes.
    let session = app.session(t1).await;
    let rated = app.rate(&session, t1, "P2", "2", Answer::Json).await;
    assert_eq!(rated.status(), StatusCode::OK);
    let gains_now = dcg(&[0.0, 1.0]) / dcg(&[2.0, 1.0, 1.0]);
    assert_close(alpha_ndcg(&app).await, gains_now);

    // An import without a rating in it (a new model's lists, of papers already pooled) moves
    // the study's revision: the new model appears.
    app.study
        .recommendations("model,target,rank,paper\ndelta,T1,1,P4\ndelta,T1,2,P2\ndelta,T1,3,P6\n")
        .await;
    let json: Value = serde_json::from_str(&app.get_text("/leaderboard.json").await).unwrap();
    let leader = &json["models"][0];
    assert_eq!(leader["model"], "delta");
    assert_eq!(
        leader["ndcg"].as_f64(),
        Some(1.0),
        "P4 2, P2 1, P6 1: the ideal order"
    );
    assert_close(alpha_ndcg(&app).await, gains_now);

    // A new choice of targets moves it too: the dashboard counts T1 alone.
    assert!(app
        .get_text("/")
        .await
        .contains("<strong>1</strong> of 2 targets finished"));
    let session = app.session(t1).await;
    let fields = [("paper", "T1"), ("csrf_token", session.token.as_str())];
    let chosen = app
        .post("/targets", Some(&session), &fields, Answer::Redirect)
        .await;
    assert_eq!(chosen.status(), StatusCode::SEE_OTHER);
    assert!(app
        .get_text("/")
        .await
        .contains("<strong>1</strong> of 1 targets finished"));
}
