//! Blindness: no model name or score of the study reaches the rater, in any page, answer,
//! address or script of the rating workflow.

use crate::web_support::{Answer, TestApp, MODELS, SCORES};
use reqwest::Response;

/// Everything a response shows: its status line, headers (Location included) and body.
async fn everything_in(response: Response) -> String {
    let mut text = format!("{}\n", response.status());
    for (name, value) in response.headers() {
        text.push_str(&format!("{name}: {}\n", value.to_str().unwrap_or_default()));
    }
    text + &response.text().await.expect("a body")
}

#[tokio::test]
async fn no_model_name_or_score_appears_in_the_rating_workflow() {
    let app = TestApp::with_fixture().await;
    let (t1, t2) = (app.paper_id("T1").await, app.paper_id("T2").await);
    let session = app.session(t1).await;

    let mut seen = Vec::new();
    for path in [
        format!("/targets/{t1}"),
        format!("/targets/{t2}"),
        "/targets".to_owned(),
        "/targets?show=unfinished".to_owned(),
        "/next".to_owned(),
        "/papers?q=paper".to_owned(),
        "/static/rating.js".to_owned(),
        "/checks/recheck".to_owned(),
        "/static/recheck.js".to_owned(),
        "/static/style.css".to_owned(),
    ] {
        seen.push((path.clone(), everything_in(app.get(&path).await).await));
    }
    for answer in [Answer::Json, Answer::Redirect] {
        let rated = app.rate(&session, t1, "P1", "3", answer).await;
        seen.push((format!("rating, {answer:?}"), everything_in(rated).await));
        let undone = app.undo(&session, t1, answer).await;
        seen.push((format!("undo, {answer:?}"), everything_in(undone).await));
    }
    let refused = app.rate(&session, t1, "P10", "3", Answer::Json).await;
    seen.push(("refused rating".to_owned(), everything_in(refused).await));

    assert_eq!(seen.len(), 15);
    for (what, text) in &seen {
        let text = text.to_lowercase();
        for name in MODELS.iter().chain(&SCORES) {
            assert!(!text.contains(name), "{name:?} appears in {what}");
        }
        for word in ["model", "rank", "score"] {
            assert!(!text.contains(word), "{word:?} appears in {what}");
        }
    }
}
