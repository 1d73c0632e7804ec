//! The study checks through the app: re-checks stored apart from the ratings (and never
//! changing one) with the kappa computed by hand, the re-check page blind, the timing of a
//! rating history with known times, and the dashboard's suggestion to re-check.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::{papers_csv, TestStudy};
use crate::web_support::{
    hidden_token, location, Answer, Page, Session, TestApp, HOSTILE_ID, MODELS, SCORES, T1_STARS,
};

async fn recheck(app: &TestApp, session: &Session, paper: &str, stars: &str) -> reqwest::Response {
    let fields = [
        ("target", "T1"),
        ("paper", paper),
        ("stars", stars),
        ("csrf_token", session.token.as_str()),
    ];
    app.post("/checks/recheck", Some(session), &fields, Answer::Redirect)
        .await
}

async fn checks_json(app: &TestApp) -> Value {
    serde_json::from_str(&app.get_text("/checks.json").await).unwrap()
}

async fn ratings_and_history(app: &TestApp) -> (Vec<Option<i64>>, i64) {
    let mut stars = Vec::new();
    for (paper, _) in T1_STARS {
        stars.push(app.stored_stars("T1", paper).await);
    }
    (stars, app.study.count("rating_history").await)
}

/// By hand (as in crates/paperjudge-stats/src/metrics/study_checks.rs): pairs (then, now) (1,1) (2,3) (3,3) (5,4):
/// Σ (i−j)² n_ij = 2, Σ (i−j)² r_i c_j = 54 over 4 pairs, so κ = 1 − 4·2/54 = 23/27.
#[tokio::test]
async fn rechecks_are_stored_apart_and_give_the_kappa_computed_by_hand() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    let before = ratings_and_history(&app).await;
    let session = app.session_from("/checks/recheck").await;
    for (paper, stars) in [("P3", "1"), ("P6", "3"), ("P4", "3"), ("P1", "4")] {
        let answer = recheck(&app, &session, paper, stars).await;
        assert_eq!(answer.status(), StatusCode::SEE_OTHER, "{paper}");
        assert_eq!(location(&answer), "/checks/recheck");
    }
    assert_eq!(
        ratings_and_history(&app).await,
        before,
        "a re-check changed a rating"
    );
    assert_eq!(app.study.count("rechecks").await, 4);

    let consistency = &checks_json(&app).await["consistency"];
    assert_eq!(consistency["pairs"], 4);
    assert_eq!(consistency["exact_agreement"], 0.5);
    assert_eq!(consistency["within_one_star"], 1.0);
    assert_eq!(consistency["kappa"].as_f64(), Some(1.0 - 8.0 / 54.0));
    assert_eq!(
        consistency["confusion"],
        json!([
            [1, 0, 0, 0, 0],
            [0, 0, 1, 0, 0],
            [0, 0, 1, 0, 0],
            [0, 0, 0, 0, 0],
            [0, 0, 0, 1, 0]
        ])
    );
    let [low, high] = [0, 1].map(|end| consistency["kappa_ci95"][end].as_f64().unwrap());
    assert!(
        (low..=high).contains(&(23.0 / 27.0)) && high <= 1.0,
        "{low} {high}"
    );
    assert_eq!(
        (
            consistency["rated_pairs"].clone(),
            consistency["suggested"].clone()
        ),
        (json!(7), json!(1))
    );
    assert_eq!(
        consistency["sentence"],
        "κ = 0.85 over 4 re-checked pairs: almost perfect."
    );
    let page = Page::parse(&app.get_text("/checks").await);
    assert_eq!(page.text("#rechecked-pairs"), "4");
    assert_eq!(page.text("#exact-agreement"), "50%");

    // A second answer for a pair keeps the first; the page offers only pairs not re-checked.
    assert_eq!(
        recheck(&app, &session, "P1", "5").await.status(),
        StatusCode::SEE_OTHER
    );
    assert_eq!(checks_json(&app).await["consistency"]["confusion"][4][3], 1);
    assert_eq!(app.study.count("rechecks").await, 4);
    for _ in 0..8 {
        let page = Page::parse(&app.get_text("/checks/recheck").await);
        let paper = page.attr("input[name=paper]", "value");
        assert!(
            ["P2", "P5", HOSTILE_ID].contains(&paper.as_str()),
            "{paper}"
        );
    }
    assert_eq!(ratings_and_history(&app).await, before);
}

#[tokio::test]
async fn a_recheck_of_anything_but_a_rated_pair_of_a_finished_target_is_refused() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    // T2 is partly rated: its rated pair is no pair to re-check yet.
    app.store_rating("T2", "P7", 4).await;
    let session = app.session_from("/checks/recheck").await;
    let refused = |fields: Vec<(&'static str, String)>| {
        let app = &app;
        let session = &session;
        async move {
            let fields: Vec<(&str, &str)> = fields
                .iter()
                .map(|(name, value)| (*name, value.as_str()))
                .collect();
            app.post("/checks/recheck", Some(session), &fields, Answer::Redirect)
                .await
        }
    };
    let token = session.token.clone();
    for (fields, status, message) in [
        (
            vec![
                ("target", "T2".into()),
                ("paper", "P7".into()),
                ("stars", "4".into()),
            ],
            StatusCode::BAD_REQUEST,
            "is not a rated pair of a finished target",
        ),
        (
            vec![
                ("target", "T1".into()),
                ("paper", "P10".into()),
                ("stars", "4".into()),
            ],
            StatusCode::BAD_REQUEST,
            "is not a rated pair of a finished target",
        ),
        (
            vec![
                ("target", "T1".into()),
                ("paper", "P1".into()),
                ("stars", "6".into()),
            ],
            StatusCode::BAD_REQUEST,
            "stars must be 1 to 5",
        ),
        (
            vec![("target", "T1".into()), ("stars", "4".into())],
            StatusCode::BAD_REQUEST,
            "missing field: paper",
        ),
    ] {
        let mut fields = fields;
        fields.push(("csrf_token", token.clone()));
        let answer = refused(fields).await;
        assert_eq!(answer.status(), status);
        let text = answer.text().await.unwrap();
        assert!(text.contains(message), "{message:?} not in {text}");
    }
    let without_token = app
        .post(
            "/checks/recheck",
            Some(&session),
            &[("target", "T1"), ("paper", "P1"), ("stars", "4")],
            Answer::Redirect,
        )
        .await;
    assert_eq!(without_token.status(), StatusCode::FORBIDDEN);
    assert_eq!(app.study.count("rechecks").await, 0);
}

/// Everything the re-check page sends, over many draws: no model name, score, or the words,
/// and never the pair's stored rating (no star chosen, no "rated" status).
#[tokio::test]
async fn the_recheck_page_is_blind_and_hides_the_stored_rating() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..20 {
        let response = app.get("/checks/recheck").await;
        assert_eq!(response.status(), StatusCode::OK);
        let mut text = String::new();
        for (name, value) in response.headers() {
            text.push_str(&format!("{name}: {}\n", value.to_str().unwrap_or_default()));
        }
        let html = response.text().await.unwrap();
        text.push_str(&html);
        let lowered = text.to_lowercase();
        for word in MODELS
            .iter()
            .chain(&SCORES)
            .chain(&["model", "rank", "score"])
        {
            assert!(!lowered.contains(word), "{word:?} on the re-check page");
        }
        let page = Page::parse(&html);
        assert_eq!(page.count("input[type=radio][checked]"), 0);
        assert_eq!(page.count("[data-stars]"), 0);
        assert!(!lowered.contains("rated 1") && !lowered.contains("saved"));
        assert_eq!(page.text("#recheck-status"), "Not re-checked yet");
        assert!(hidden_token(&html).is_some());
        seen.insert(page.attr("input[name=paper]", "value"));
    }
    assert!(seen.len() > 1, "pairs are drawn at random: {seen:?}");
    let pool: Vec<&str> = T1_STARS.iter().map(|(paper, _)| *paper).collect();
    assert!(seen.iter().all(|paper| pool.contains(&paper.as_str())));
}

/// Ratings made in the browser at known times (written straight into the history, as the
/// rating page writes them): two sittings on 2026-11-20, one on the 21st.
#[tokio::test]
async fn timing_reads_the_rating_history() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    let (t1, p1) = (app.paper_id("T1").await, app.paper_id("P1").await);
    for (time, stars) in [
        ("2026-11-20T09:00:00Z", 4),
        ("2026-11-20T09:00:10Z", 3),
        ("2026-11-20T09:00:40Z", 2),
        ("2026-11-20T09:20:00Z", 5),
        ("2026-11-20T09:20:05Z", 1),
        ("2026-11-21T08:00:00Z", 2),
    ] {
        sqlx::query(
            "INSERT INTO rating_history (target_id, paper_id, stars, source, changed_at, \
             browser_session) VALUES (?, ?, ?, 'web', ?, 'b')",
        )
        .bind(t1)
        .bind(p1)
        .bind(stars)
        .bind(time)
        .execute(&app.study.connections)
        .await
        .unwrap();
    }
    // P1's rating was the last of the first sitting: its re-check counts in the last third.
    sqlx::query("UPDATE ratings SET rated_at = '2026-11-20T09:00:40Z' WHERE paper_id = ?")
        .bind(p1)
        .execute(&app.study.connections)
        .await
        .unwrap();
    let session = app.session_from("/checks/recheck").await;
    recheck(&app, &session, "P1", "4").await;
    recheck(&app, &session, "P2", "4").await;

    let timing = &checks_json(&app).await["timing"];
    assert_eq!(timing["judgments"], 6);
    assert_eq!(timing["sittings"], 3);
    let seconds = &timing["seconds_per_judgment"];
    assert_eq!(seconds["timed"], 3);
    assert_eq!(seconds["median"], 10.0);
    assert_eq!(seconds["quartiles"], json!([7.5, 20.0]));
    let counts: Vec<i64> = (seconds["distribution"].as_array().unwrap().iter())
        .map(|bin| bin["judgments"].as_i64().unwrap())
        .collect();
    assert_eq!(counts, [0, 1, 1, 1, 0, 0, 0, 0]);
    assert_eq!(timing["ratings_per_sitting"]["sittings"], json!([3, 2, 1]));
    assert_eq!(timing["ratings_per_sitting"]["median"], 2.0);
    assert_eq!(
        timing["ratings_per_day"],
        json!([{"day": "2026-11-20", "ratings": 5}, {"day": "2026-11-21", "ratings": 1}])
    );
    assert_eq!(timing["drift"]["long_sittings"], 0);
    assert_eq!(timing["drift"]["first_third_mean_stars"], Value::Null);
    let parts: Vec<(i64, Value)> = (timing["recheck_by_position"].as_array().unwrap().iter())
        .map(|part| {
            (
                part["rechecked"].as_i64().unwrap(),
                part["exact_agreement"].clone(),
            )
        })
        .collect();
    // P2's rating (an import) has no place in a sitting and is left out.
    assert_eq!(parts, [(0, Value::Null), (0, Value::Null), (1, json!(0.0))]);
    assert_eq!(
        timing["sentence"],
        "A judgment took 10 s (median) over 6 ratings in 3 sittings."
    );
    let page = Page::parse(&app.get_text("/checks").await);
    assert_eq!(page.count(".checks-chart svg"), 2);
    assert_eq!(
        page.texts(".checks-chart figcaption"),
        ["Ratings per day", "Judgments by seconds taken"]
    );
}

/// A study of four targets with one model: P1 (pool P5, P6), P2 (P5), P3 (P6), P4 (P7).
async fn four_targets() -> TestApp {
    let study = TestStudy::new().await;
    study.papers(&papers_csv(8)).await;
    study
        .recommendations(
            "model,target,rank,paper\nm,P1,1,P5\nm,P1,2,P6\nm,P2,1,P5\nm,P3,1,P6\nm,P4,1,P7\n",
        )
        .await;
    TestApp::spawn(study).await
}

#[tokio::test]
async fn the_dashboard_suggests_rechecks_once_three_targets_are_finished() {
    let app = four_targets().await;
    app.study
        .ratings("target,paper,stars\nP1,P5,4\nP1,P6,2\nP2,P5,3\n")
        .await;
    let dashboard = Page::parse(&app.get_text("/").await);
    assert_eq!(dashboard.count("#recheck-suggestion"), 0);
    app.study.ratings("target,paper,stars\nP3,P6,5\n").await;
    let dashboard = Page::parse(&app.get_text("/").await);
    assert_eq!(
        dashboard.text("#recheck-suggestion a[href='/checks/recheck']"),
        "Re-check about 1 rated pair"
    );
    let json = checks_json(&app).await;
    assert_eq!(json["consistency"]["rated_pairs"], 4);
    assert_eq!(json["consistency"]["suggested"], 1);
}

/// Nothing rated: every undefined number is `null`, and each sentence says what is missing.
#[tokio::test]
async fn an_unrated_study_has_null_checks() {
    let app = TestApp::with_fixture().await;
    let json = checks_json(&app).await;
    for key in ["pool_bias", "consistency", "sensitivity", "timing"] {
        assert!(json[key].is_object(), "{key}");
    }
    assert_eq!(json["targets_evaluated"], 0);
    assert_eq!(json["pool_bias"]["largest_drop"], Value::Null);
    assert_eq!(json["pool_bias"]["models"][0]["ndcg"], Value::Null);
    assert_eq!(json["consistency"]["kappa"], Value::Null);
    assert_eq!(json["consistency"]["kappa_ci95"], Value::Null);
    assert_eq!(json["sensitivity"]["leader"], Value::Null);
    assert_eq!(
        json["timing"]["seconds_per_judgment"]["median"],
        Value::Null
    );
    assert_eq!(
        json["pool_bias"]["sentence"],
        "Pool bias needs a fully rated target and a model with an NDCG."
    );
    let page = Page::parse(&app.get_text("/checks/recheck").await);
    assert!(page
        .text("#nothing-to-recheck")
        .starts_with("Nothing to re-check yet"));
    let wrong = app.get("/checks.json?gain=quadratic").await;
    assert_eq!(wrong.status(), StatusCode::BAD_REQUEST);
}
