//! A note on any rating (issue 40): posted with the stars or alone on a pair already rated,
//! durable and undoable like a star, out in the ratings CSV (which re-imports byte for byte),
//! shown to the owner on fully rated targets only, and never to another rater.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::TestStudy;
use crate::web_support::{
    fixture_study, password_of, selector, served_with_raters, text, Answer, Browser, Page, Session,
    TestApp, OWNER_PASSWORD,
};
use paperjudge::export;
use paperjudge::study::import::Kind;

/// Posts a rating form of T1 with `fields` besides the token.
async fn post(app: &TestApp, session: &Session, fields: &[(&str, &str)]) -> reqwest::Response {
    let t1 = app.paper_id("T1").await;
    let mut all = fields.to_vec();
    all.push(("csrf_token", session.token.as_str()));
    app.post(
        &format!("/targets/{t1}/ratings"),
        Some(session),
        &all,
        Answer::Json,
    )
    .await
}

async fn saved(app: &TestApp, session: &Session, fields: &[(&str, &str)]) -> Value {
    let response = post(app, session, fields).await;
    assert_eq!(response.status(), StatusCode::OK, "{fields:?}");
    response.json().await.unwrap()
}

/// The stored (stars, note) of a T1 pair.
async fn stored(app: &TestApp, paper: &str) -> Option<(Option<i64>, Option<String>)> {
    app.stored_rating("T1", paper).await
}

/// The ratings CSV as `paperjudge export ratings` writes it.
async fn ratings_csv(study: &TestStudy) -> String {
    let rows = study.study.rating().ratings(None).await.unwrap();
    let mut bytes = Vec::new();
    export::ratings_csv(&rows, &mut bytes).unwrap();
    String::from_utf8(bytes).unwrap()
}

/// Each rating of `study` as (paper, stars, note).
async fn answers(study: &TestStudy) -> Vec<(String, String, Option<String>)> {
    let rows = study.study.rating().ratings(None).await.unwrap();
    (rows.into_iter())
        .map(|row| {
            let note = row.note.map(|note| note.to_string());
            (row.paper.as_str().to_owned(), row.answer.to_string(), note)
        })
        .collect()
}

/// `csv`'s rows without their `rated_at`, which is the time of each rating.
fn without_times(csv: &str) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    (reader.records())
        .map(|record| {
            let record = record.unwrap();
            (record.iter().enumerate())
                .filter(|(at, _)| *at != 5)
                .map(|(_, field)| field.to_owned())
                .collect()
        })
        .collect()
}

const TRICKY_NOTE: &str = "Cites the target, \"closely\";\nsame task, different modality";

#[tokio::test]
async fn a_note_posted_with_the_stars_or_alone_is_in_the_ratings_csv_and_reimports_byte_for_byte() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;

    let with_stars = saved(
        &app,
        &session,
        &[("paper", "P2"), ("stars", "2"), ("note", "Same task")],
    )
    .await;
    assert_eq!(
        with_stars,
        json!({"saved": true, "paper": "P2", "stars": 2, "cannot_judge": false,
               "note": "Same task", "target_progress": {"rated": 1, "total": 7}})
    );
    saved(&app, &session, &[("paper", "P3"), ("stars", "4")]).await;
    // A note alone, as a browser sends a text area's (CR LF), on a pair rated already.
    let sent = TRICKY_NOTE.replace('\n', "\r\n");
    let alone = saved(&app, &session, &[("paper", "P3"), ("note", sent.as_str())]).await;
    assert_eq!(
        alone,
        json!({"saved": true, "paper": "P3", "stars": 4, "cannot_judge": false,
               "note": TRICKY_NOTE, "target_progress": {"rated": 2, "total": 7}})
    );
    // New stars keep the note; "can't judge" takes one too.
    saved(&app, &session, &[("paper", "P2"), ("stars", "3")]).await;
    saved(
        &app,
        &session,
        &[
            ("paper", "P5"),
            ("stars", "cannot-judge"),
            ("note", "A field I do not know"),
        ],
    )
    .await;
    assert_eq!(
        stored(&app, "P2").await,
        Some((Some(3), Some("Same task".to_owned())))
    );
    assert_eq!(
        stored(&app, "P5").await,
        Some((None, Some("A field I do not know".to_owned())))
    );

    let csv = ratings_csv(&app.study).await;
    assert!(csv.starts_with("target,target_title,paper,paper_title,stars,rated_at,rater,note\r\n"));
    assert_eq!(
        without_times(&csv),
        [
            [
                "T1",
                "Target one",
                "P2",
                "Paper two",
                "3",
                "owner",
                "Same task"
            ],
            [
                "T1",
                "Target one",
                "P3",
                "Paper three",
                "4",
                "owner",
                TRICKY_NOTE
            ],
            [
                "T1",
                "Target one",
                "P5",
                "Paper five",
                "cannot-judge",
                "owner",
                "A field I do not know"
            ],
        ]
        .map(|row| row.map(str::to_owned).to_vec())
    );
    let download = app.get_text("/export/ratings.csv").await;
    assert_eq!(download, csv);

    // Into a new study with the same papers and lists, the file comes out again byte for byte.
    let fresh = fixture_study().await;
    let summary = fresh.ratings(&csv).await;
    assert_eq!((summary.added, summary.updated), (3, 0));
    assert_eq!(ratings_csv(&fresh).await, csv);
    // Into the study it came from, it changes nothing.
    let again = app.study.ratings(&csv).await;
    assert_eq!((again.added, again.updated, again.unchanged), (0, 0, 3));
    // A file without a note column leaves the notes as they are; one with it sets them.
    fresh.ratings("target,paper,stars\nT1,P3,5\n").await;
    let p3 = (answers(&fresh).await.into_iter()).find(|(paper, _, _)| paper == "P3");
    assert_eq!(
        p3,
        Some((
            "P3".to_owned(),
            "5".to_owned(),
            Some(TRICKY_NOTE.to_owned())
        ))
    );
    fresh.ratings("target,paper,stars,note\nT1,P3,5,\n").await;
    let notes: Vec<Option<String>> = (answers(&fresh).await.into_iter())
        .map(|(_, _, note)| note)
        .collect();
    assert_eq!(
        notes,
        [
            Some("Same task".to_owned()),
            None,
            Some("A field I do not know".to_owned())
        ]
    );
}

#[tokio::test]
async fn a_note_is_refused_on_an_unrated_pair_past_2000_characters_or_with_a_cleared_rating() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    let refusal = async |fields: &[(&str, &str)]| {
        let response = post(&app, &session, fields).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{fields:?}");
        response.json::<Value>().await.unwrap()["error"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        refusal(&[("paper", "P4"), ("note", "Why")]).await,
        "paper \"P4\" has no rating of yours yet: a note goes with a rating, so give it stars \
         (or \"can't judge\") first"
    );
    let long = "n".repeat(2001);
    assert_eq!(
        refusal(&[("paper", "P4"), ("stars", "2"), ("note", long.as_str())]).await,
        "the note is 2001 characters long; a note holds at most 2,000"
    );
    assert_eq!(
        refusal(&[("paper", "P4"), ("stars", "2"), ("note", "bell \u{7}")]).await,
        "the note contains the control or format character U+0007"
    );
    assert_eq!(
        refusal(&[("paper", "P4"), ("stars", "clear"), ("note", "Why")]).await,
        "a cleared rating has no note: send stars=clear without one"
    );
    assert_eq!(
        refusal(&[("paper", "P4")]).await,
        "missing field: stars (1 to 5, cannot-judge, or clear), or note"
    );
    assert_eq!(app.study.count("ratings").await, 0);
    assert_eq!(app.study.count("rating_history").await, 0);
    // 2,000 characters of four bytes each, every byte percent-encoded: taken whole.
    let longest = "𝄞".repeat(2000);
    let taken = saved(
        &app,
        &session,
        &[("paper", "P4"), ("stars", "2"), ("note", longest.as_str())],
    )
    .await;
    assert_eq!(taken["note"], longest.as_str());
}

#[tokio::test]
async fn an_empty_note_removes_it_and_undo_walks_back_through_notes_as_through_stars() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    saved(
        &app,
        &session,
        &[("paper", "P2"), ("stars", "2"), ("note", "first")],
    )
    .await;
    saved(&app, &session, &[("paper", "P2"), ("note", "second")]).await;
    saved(&app, &session, &[("paper", "P2"), ("note", "  ")]).await;
    assert_eq!(stored(&app, "P2").await, Some((Some(2), None)));

    let undo = async || -> Value {
        app.undo(&session, t1, Answer::Json)
            .await
            .json()
            .await
            .unwrap()
    };
    assert_eq!(
        undo().await,
        json!({"undone": true, "paper": "P2", "stars": 2, "cannot_judge": false,
               "note": "second", "target_progress": {"rated": 1, "total": 7}})
    );
    assert_eq!(undo().await["note"], "first");
    assert_eq!(
        undo().await,
        json!({"undone": true, "paper": "P2", "stars": null, "cannot_judge": false,
               "note": null, "target_progress": {"rated": 0, "total": 7}})
    );
    assert_eq!(stored(&app, "P2").await, None);
    // The history has every step: stars, the note before and after, and the source.
    let steps: Vec<HistoryStep> =
        sqlx::query_as("SELECT stars, previous_note, note, source FROM rating_history ORDER BY id")
            .fetch_all(&app.study.connections)
            .await
            .unwrap();
    let step = |stars: Option<i64>, previous: Option<&str>, note: Option<&str>, source: &str| {
        (
            stars,
            previous.map(str::to_owned),
            note.map(str::to_owned),
            source.to_owned(),
        )
    };
    assert_eq!(
        steps,
        [
            step(Some(2), None, Some("first"), "web"),
            step(Some(2), Some("first"), Some("second"), "web"),
            step(Some(2), Some("second"), None, "web"),
            step(Some(2), None, Some("second"), "undo"),
            step(Some(2), Some("second"), Some("first"), "undo"),
            step(None, Some("first"), None, "undo"),
        ]
    );
}

/// An entry of the rating history: stars, the note before and after, the source.
type HistoryStep = (Option<i64>, Option<String>, Option<String>, String);

/// Rates every pair of T2 as `rater`, with `note` on P7.
async fn rate_t2(app: &TestApp, browser: &mut Browser, note: &str) {
    let t2 = app.paper_id("T2").await;
    let path = format!("/targets/{t2}");
    let token = browser.form_token(&path).await;
    for (paper, stars) in [
        ("P1", "3"),
        ("P7", "4"),
        ("P8", "1"),
        ("P9", "cannot-judge"),
    ] {
        let mut fields = vec![
            ("paper", paper),
            ("stars", stars),
            ("csrf_token", token.as_str()),
        ];
        if paper == "P7" {
            fields.push(("note", note));
        }
        let saved = browser
            .post(&format!("{path}/ratings"), &fields, Answer::Json)
            .await;
        assert_eq!(saved.status(), StatusCode::OK, "{paper}");
    }
}

#[tokio::test]
async fn a_rater_never_sees_another_raters_note_and_the_owner_reads_them_once_the_target_is_finished(
) {
    let app = served_with_raters(fixture_study().await, &["Ann", "Bo"], 2).await;
    let t2 = app.paper_id("T2").await;
    let mut ann = Browser::new(&app);
    assert_eq!(
        ann.log_in_as("Ann", &password_of("Ann")).await.status(),
        StatusCode::SEE_OTHER
    );
    let mut bo = Browser::new(&app);
    assert_eq!(
        bo.log_in_as("Bo", &password_of("Bo")).await.status(),
        StatusCode::SEE_OTHER
    );
    let mut owner = Browser::new(&app);
    assert_eq!(
        owner.log_in(OWNER_PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );

    rate_t2(&app, &mut ann, "Ann's reason: same benchmark").await;
    let target_view = format!("/leaderboard/targets/{t2}");
    let before = owner.get(&target_view).await;
    assert_eq!(
        before.status(),
        StatusCode::FORBIDDEN,
        "T2 is not finished yet"
    );
    assert!(!before.text().await.unwrap().contains("same benchmark"));
    // Bo's page and download hold no word of Ann's note; Ann's hold it.
    let bo_page = bo
        .get(&format!("/targets/{t2}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(!bo_page.contains("same benchmark"));
    let ann_page = Page::parse(
        &ann.get(&format!("/targets/{t2}"))
            .await
            .text()
            .await
            .unwrap(),
    );
    assert_eq!(
        ann_page
            .one("article[data-paper=P7] textarea[name=note]")
            .text()
            .collect::<String>(),
        "Ann's reason: same benchmark"
    );

    rate_t2(&app, &mut bo, "Bo's view").await;
    for (who, browser) in [("Ann", &mut ann), ("Bo", &mut bo)] {
        let download = browser
            .get("/export/ratings.csv")
            .await
            .text()
            .await
            .unwrap();
        let other = if who == "Ann" {
            "Bo's view"
        } else {
            "same benchmark"
        };
        assert!(!download.contains(other), "{who}'s download: {download}");
        let page = browser
            .get(&format!("/targets/{t2}"))
            .await
            .text()
            .await
            .unwrap();
        assert!(!page.contains(other), "{who}'s page");
        let refused = browser.get(&target_view).await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{who}");
    }
    // Finished: the owner reads both notes beside the lists.
    let finished = owner.get(&target_view).await;
    assert_eq!(finished.status(), StatusCode::OK);
    let finished = Page::parse(&finished.text().await.unwrap());
    // P9, which neither could judge, is said so in the lists that hold it.
    let p9: Vec<String> = (finished.select(".listed-papers li").iter())
        .filter(|item| text(**item).contains("P9"))
        .map(|item| item.select(&selector(".listed-stars")).map(text).collect())
        .collect();
    assert_eq!(p9, ["can't judge"], "bravo alone lists P9 in its top 8");
    assert_eq!(
        finished.texts("#notes-title + .rater-notes li"),
        [
            "Paper seven P7 Ann (4 relevant): Ann's reason: same benchmark",
            "Paper seven P7 Bo (4 relevant): Bo's view",
        ]
    );
}

/// A judge's grades of T1: those of the raters (`T1_STARS`) but for P1, 2 stars instead of 5.
const JUDGE_OF_T1: &str = "target,paper,stars\nT1,P1,2\nT1,P2,4\nT1,P3,1\nT1,P4,3\nT1,P5,1\n\
                           T1,P6,2\nT1,\"h<b>&\"\"'\",1\n";

/// A judge's disagreements page shows the raters' notes beside each pair.
#[tokio::test]
async fn the_judges_disagreements_page_shows_the_raters_notes() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    app.study
        .ratings("target,paper,stars,note\nT1,P1,5,\"Foundational, for the target\"\n")
        .await;
    let kind = Kind::Judgments(paperjudge::study::import::judgments::Options {
        judge: paperjudge::domain::JudgeName::new("local").unwrap(),
    });
    app.study
        .import(&kind, JUDGE_OF_T1.as_bytes(), 1)
        .await
        .expect("the judge's grades");
    let page = Page::parse(&app.get_text("/judges/local/disagreements").await);
    assert_eq!(page.count("li.disagreement"), 1);
    assert_eq!(
        page.texts("li.disagreement .rater-notes li"),
        ["owner (5 highly relevant): Foundational, for the target"]
    );
}
