//! "I can't judge this" (issue 40): a pair a rater marks so is handled (it finishes its
//! target) and unjudged everywhere else: the qrels leave it out, the leaderboard scores it as
//! an unrated paper, the agreement among raters ignores it, and with several raters a pair's
//! judgment comes from those who gave it stars. The checks show its share by rater and by
//! model.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::web_support::{
    fixture_study, password_of, selector, served_with_raters, text, Answer, Browser, Page, TestApp,
    HOSTILE_ID, OWNER_PASSWORD,
};
use paperjudge::domain::RaterName;
use paperjudge::metrics::{krippendorff_alpha, Judgments, Level};

/// Rates T2's pairs (P1, P7, P8, P9) through the rating form as `rate` says, one at a time,
/// with the session's token; answers the last JSON answer.
async fn rate_t2(
    app: &TestApp,
    session: &crate::web_support::Session,
    answers: [(&str, &str); 4],
) -> Value {
    let t2 = app.paper_id("T2").await;
    let mut last = Value::Null;
    for (paper, stars) in answers {
        let saved = app.rate(session, t2, paper, stars, Answer::Json).await;
        assert_eq!(saved.status(), StatusCode::OK, "{paper}");
        last = saved.json().await.unwrap();
    }
    last
}

#[tokio::test]
async fn a_target_whose_last_pair_is_cannot_judge_finishes_and_the_qrels_leave_that_pair_out() {
    let app = TestApp::with_fixture().await;
    let t2 = app.paper_id("T2").await;
    let session = app.session(t2).await;
    let last = rate_t2(
        &app,
        &session,
        [
            ("P1", "3"),
            ("P7", "4"),
            ("P8", "1"),
            ("P9", "cannot-judge"),
        ],
    )
    .await;
    assert_eq!(
        last,
        json!({"saved": true, "paper": "P9", "stars": null, "cannot_judge": true, "note": null,
               "target_progress": {"rated": 4, "total": 4}})
    );
    let stored: (Option<i64>, i64) = sqlx::query_as(
        "SELECT r.stars, t.fully_rated FROM ratings r JOIN targets t USING (target_id)
         JOIN papers p ON p.id = r.paper_id WHERE p.external_id = 'P9'",
    )
    .fetch_one(&app.study.connections)
    .await
    .unwrap();
    assert_eq!(
        stored,
        (None, 1),
        "stored as no stars, and the target is finished"
    );
    assert_eq!(app.study.study.status().await.unwrap().targets_finished, 1);

    // The page says so, and the rater's choice is checked.
    let page = Page::parse(&app.get_text(&format!("/targets/{t2}")).await);
    assert_eq!(
        page.text("article[data-paper=P9] .paper-status"),
        "Marked: can't judge"
    );
    assert_eq!(
        page.attr("article[data-paper=P9]", "data-stars"),
        "cannot-judge"
    );
    assert_eq!(
        page.attrs("article[data-paper=P9] input[name=stars][checked]", "value"),
        ["cannot-judge"]
    );

    assert_eq!(
        app.get_text("/export/qrels.txt").await,
        "T2 0 P1 2\nT2 0 P7 3\nT2 0 P8 0\n"
    );
    // The leaderboard scores P9 as unrated: NDCG@8 over the judged P7 (rel 3), P1 (2), P8 (0).
    let board: Value = app
        .get("/leaderboard.json?per_target=1")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(board["targets"]["evaluated"], 1);
    let ideal = 3.0 + 2.0 / 3f64.log2();
    let expected = [
        ("alpha-lda-300", 3.0 / ideal), // P7, P8
        ("bravo-lsa-200", 0.0),         // P8, P9: nothing judged relevant
        ("charlie-bm25", 2.0 / ideal),  // P1
    ];
    for (model, ndcg) in expected {
        let value = (board["per_target"].as_array().unwrap().iter())
            .find(|row| row["model"] == model && row["target"] == "T2")
            .and_then(|row| row["ndcg"].as_f64())
            .unwrap_or_else(|| panic!("{model} on T2"));
        assert!((value - ndcg).abs() < 1e-12, "{model}: {value}, not {ndcg}");
    }
    // Undone, the pair is open again and the target unfinished.
    let undone: Value = app
        .undo(&session, t2, Answer::Json)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (
            undone["paper"].clone(),
            undone["cannot_judge"].clone(),
            undone["target_progress"].clone()
        ),
        (json!("P9"), json!(false), json!({"rated": 3, "total": 4}))
    );
    assert_eq!(app.study.study.status().await.unwrap().targets_finished, 0);
}

#[tokio::test]
async fn agreement_leaves_cannot_judge_out_and_a_pair_is_judged_by_those_who_gave_it_stars() {
    let app = served_with_raters(fixture_study().await, &["Ann", "Bo"], 2).await;
    let t2 = app.paper_id("T2").await;
    for (rater, answers) in [
        (
            "Ann",
            [
                ("P1", "3"),
                ("P7", "4"),
                ("P8", "1"),
                ("P9", "cannot-judge"),
            ],
        ),
        ("Bo", [("P1", "3"), ("P7", "5"), ("P8", "1"), ("P9", "2")]),
    ] {
        let mut browser = Browser::new(&app);
        let signed = browser.log_in_as(rater, &password_of(rater)).await;
        assert_eq!(signed.status(), StatusCode::SEE_OTHER);
        let token = browser.form_token(&format!("/targets/{t2}")).await;
        for (paper, stars) in answers {
            let fields = [
                ("paper", paper),
                ("stars", stars),
                ("csrf_token", token.as_str()),
            ];
            let saved =
                (browser.post(&format!("/targets/{t2}/ratings"), &fields, Answer::Json)).await;
            assert_eq!(saved.status(), StatusCode::OK, "{rater} {paper}");
        }
    }
    let mut owner = Browser::new(&app);
    assert_eq!(
        owner.log_in(OWNER_PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let checks: Value = owner.get("/checks.json").await.json().await.unwrap();
    let raters = &checks["raters"];
    assert_eq!(raters["pairs_rated_twice"], 3, "P9 is rated by Bo alone");
    let expected = krippendorff_alpha(
        &[[0, 0, 2, 0, 0], [0, 0, 0, 1, 1], [2, 0, 0, 0, 0]],
        Level::Ordinal,
    )
    .unwrap();
    let alpha = raters["alpha_ordinal"].as_f64().unwrap();
    assert!((alpha - expected).abs() < 1e-12, "{alpha}, not {expected}");
    assert_eq!(raters["kappa"][0]["pairs"], 3);
    let counted: Vec<(Value, Value)> = (raters["raters"].as_array().unwrap().iter())
        .map(|rater| (rater["name"].clone(), rater["ratings"].clone()))
        .collect();
    assert_eq!(counted, [(json!("Ann"), json!(3)), (json!("Bo"), json!(4))]);
    let shares: Vec<Value> = (checks["cannot_judge"]["raters"].as_array().unwrap().iter())
        .map(|rater| {
            json!([
                rater["name"],
                rater["answers"],
                rater["cannot_judge"],
                rater["share"]
            ])
        })
        .collect();
    assert_eq!(
        shares,
        [json!(["Ann", 4, 1, 0.25]), json!(["Bo", 4, 0, 0.0])]
    );
    assert_eq!(checks["cannot_judge"]["unjudged_pairs"], 0);

    // P9's judgment is Bo's stars; on Ann's stars alone it has none.
    let qrels = owner.get("/export/qrels.txt").await.text().await.unwrap();
    assert_eq!(qrels, "T2 0 P1 2\nT2 0 P7 3\nT2 0 P8 0\nT2 0 P9 1\n");
    let ann = Judgments::Rater(RaterName::new("Ann").unwrap());
    let judged = app.study.study.rating().judged_pairs(&ann).await.unwrap();
    let papers: Vec<&str> = judged.iter().map(|(_, paper, _)| paper.as_str()).collect();
    assert_eq!(papers, ["P1", "P7", "P8"]);
}

#[tokio::test]
async fn the_checks_show_the_share_of_cannot_judge_by_rater_and_by_model() {
    let app = TestApp::with_fixture().await;
    app.study
        .ratings(&format!(
            "target,paper,stars\nT1,P1,5\nT1,P2,4\nT1,P3,cannot-judge\nT1,P4,3\n\
             T1,P5,cannot-judge\nT1,P6,2\nT1,\"{}\",1\n",
            HOSTILE_ID.replace('"', "\"\"")
        ))
        .await;
    let checks: Value = app.get("/checks.json").await.json().await.unwrap();
    let report = &checks["cannot_judge"];
    assert_eq!(
        json!([
            report["answers"],
            report["cannot_judge"],
            report["unjudged_pairs"]
        ]),
        json!([7, 2, 2])
    );
    assert_eq!(
        report["raters"],
        json!([{"name": "owner", "answers": 7, "cannot_judge": 2, "share": 2.0 / 7.0}])
    );
    // alpha lists P1, P2, P3; bravo P2, P4, P5; charlie P6, P1 and the hostile paper.
    assert_eq!(
        report["models"],
        json!([
            {"model": "alpha-lda-300", "pairs": 3, "unjudged": 1, "share": 1.0 / 3.0},
            {"model": "bravo-lsa-200", "pairs": 3, "unjudged": 1, "share": 1.0 / 3.0},
            {"model": "charlie-bm25", "pairs": 3, "unjudged": 0, "share": 0.0},
        ])
    );
    assert_eq!(
        report["sentence"],
        "2 of 7 answers (29%) are \"can't judge\"; 2 pairs nobody could judge are unjudged in \
         every metric. Most in alpha-lda-300's top 8: 1 of 3 pairs (33%)."
    );
    // The qrels hold the five pairs given stars, and not P3 and P5.
    assert_eq!(
        app.get_text("/export/qrels.txt").await,
        format!("T1 0 P1 4\nT1 0 P2 3\nT1 0 P4 2\nT1 0 P6 1\nT1 0 {HOSTILE_ID} 0\n")
    );
    let page = Page::parse(&app.get_text("/checks").await);
    let rows: Vec<String> = (page
        .select("#cannot-judge-models-caption ~ tbody tr")
        .iter())
    .map(|row| {
        let cells: Vec<String> = row.select(&selector("th, td")).map(text).collect();
        cells.join(" ")
    })
    .collect();
    assert_eq!(
        rows,
        [
            "alpha-lda-300 3 1 33%",
            "bravo-lsa-200 3 1 33%",
            "charlie-bm25 3 0 0%"
        ]
    );
    let text = crate::process_support::succeeded(&crate::process_support::paperjudge(
        &app.study.db_path(),
        &["checks"],
        &[],
    ));
    assert!(
        text.contains(
            "\nPairs the raters could not judge\n2 of 7 answers (29%) are \"can't judge\""
        ),
        "{text}"
    );
}
