//! Rating through HTTP: rate, re-rate, clear and undo, answered as JSON or as a 303, with every
//! change in the history, on a page whose order never changes.

use crate::web_support::{location, papers_in_page_order, Answer, Page, TestApp, T1_POOL_SIZE};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_plain_form_saves_and_answers_303_back_to_the_paper() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;

    let response = app.rate(&session, t1, "P2", "4", Answer::Redirect).await;

    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&response), format!("/targets/{t1}#paper-P2"));
    assert_eq!(app.stored_stars("T1", "P2").await, Some(4));
    assert_eq!(
        app.history("T1", "P2").await,
        [(None, Some(4), "web".to_owned())]
    );
}

#[tokio::test]
async fn the_anchor_of_an_odd_paper_id_is_escaped() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;

    let response = app
        .rate(
            &session,
            t1,
            crate::web_support::HOSTILE_ID,
            "1",
            Answer::Redirect,
        )
        .await;

    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        location(&response),
        format!("/targets/{t1}#paper-h_3cb_3e_26_22_27")
    );
    let page = Page::parse(&app.get_text(&format!("/targets/{t1}")).await);
    assert_eq!(
        page.attr("article.paper#paper-h_3cb_3e_26_22_27", "data-paper"),
        crate::web_support::HOSTILE_ID
    );
}

#[tokio::test]
async fn the_json_answer_reports_the_saved_rating_and_the_target_progress() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    app.rate(&session, t1, "P1", "2", Answer::Json).await;

    let response = app.rate(&session, t1, "P2", "4", Answer::Json).await;

    assert_eq!(response.status(), StatusCode::OK);
    let answer: serde_json::Value = response.json().await.expect("a JSON answer");
    assert_eq!(
        answer,
        json!({"saved": true, "paper": "P2", "stars": 4, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 2, "total": T1_POOL_SIZE}})
    );
}

#[tokio::test]
async fn re_rating_and_clearing_are_each_recorded_in_the_history() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;

    app.rate(&session, t1, "P3", "2", Answer::Json).await;
    app.rate(&session, t1, "P3", "5", Answer::Json).await;
    app.rate(&session, t1, "P3", "5", Answer::Json).await;
    let cleared = app.rate(&session, t1, "P3", "clear", Answer::Json).await;

    assert_eq!(cleared.status(), StatusCode::OK);
    let answer: serde_json::Value = cleared.json().await.expect("a JSON answer");
    assert_eq!(
        answer,
        json!({"saved": true, "paper": "P3", "stars": null, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 0, "total": T1_POOL_SIZE}})
    );
    assert_eq!(app.stored_stars("T1", "P3").await, None);
    // Setting the same value again changes nothing and so records nothing.
    assert_eq!(
        app.history("T1", "P3").await,
        [
            (None, Some(2), "web".to_owned()),
            (Some(2), Some(5), "web".to_owned()),
            (Some(5), None, "web".to_owned()),
        ]
    );
}

#[tokio::test]
async fn undo_walks_back_through_the_web_changes_of_the_target() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    app.rate(&session, t1, "P1", "3", Answer::Json).await;
    app.rate(&session, t1, "P2", "4", Answer::Json).await;
    app.rate(&session, t1, "P2", "5", Answer::Json).await;

    let first = app.undo(&session, t1, Answer::Json).await;
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(
        first.json::<serde_json::Value>().await.expect("JSON"),
        json!({"undone": true, "paper": "P2", "stars": 4, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 2, "total": T1_POOL_SIZE}})
    );
    assert_eq!(app.stored_stars("T1", "P2").await, Some(4));

    let second = app.undo(&session, t1, Answer::Json).await;
    assert_eq!(
        second.json::<serde_json::Value>().await.expect("JSON"),
        json!({"undone": true, "paper": "P2", "stars": null, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 1, "total": T1_POOL_SIZE}})
    );

    // A new change is the next one undone; then the undo goes on where it left off.
    app.rate(&session, t1, "P4", "1", Answer::Json).await;
    let third = app.undo(&session, t1, Answer::Json).await;
    assert_eq!(
        third.json::<serde_json::Value>().await.expect("JSON"),
        json!({"undone": true, "paper": "P4", "stars": null, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 1, "total": T1_POOL_SIZE}})
    );
    let fourth = app.undo(&session, t1, Answer::Json).await;
    assert_eq!(
        fourth.json::<serde_json::Value>().await.expect("JSON"),
        json!({"undone": true, "paper": "P1", "stars": null, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 0, "total": T1_POOL_SIZE}})
    );

    let nothing_left = app.undo(&session, t1, Answer::Json).await;
    assert_eq!(
        nothing_left
            .json::<serde_json::Value>()
            .await
            .expect("JSON"),
        json!({"undone": false, "paper": null, "stars": null, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 0, "total": T1_POOL_SIZE}})
    );
    assert_eq!(
        app.history("T1", "P2").await,
        [
            (None, Some(4), "web".to_owned()),
            (Some(4), Some(5), "web".to_owned()),
            (Some(5), Some(4), "undo".to_owned()),
            (Some(4), None, "undo".to_owned()),
        ]
    );
}

#[tokio::test]
async fn undo_stays_within_its_target() {
    let app = TestApp::with_fixture().await;
    let (t1, t2) = (app.paper_id("T1").await, app.paper_id("T2").await);
    let session = app.session(t1).await;
    app.rate(&session, t1, "P1", "3", Answer::Json).await;
    app.rate(&session, t2, "P1", "5", Answer::Json).await;

    let response = app.undo(&session, t1, Answer::Json).await;

    assert_eq!(
        response.json::<serde_json::Value>().await.expect("JSON"),
        json!({"undone": true, "paper": "P1", "stars": null, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 0, "total": T1_POOL_SIZE}})
    );
    assert_eq!(app.stored_stars("T1", "P1").await, None);
    assert_eq!(app.stored_stars("T2", "P1").await, Some(5));
}

#[tokio::test]
async fn a_plain_undo_answers_303_to_the_paper_it_changed_or_to_the_page() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    app.rate(&session, t1, "P5", "2", Answer::Redirect).await;

    let undone = app.undo(&session, t1, Answer::Redirect).await;
    assert_eq!(undone.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&undone), format!("/targets/{t1}#paper-P5"));
    assert_eq!(app.stored_stars("T1", "P5").await, None);

    let nothing = app.undo(&session, t1, Answer::Redirect).await;
    assert_eq!(nothing.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&nothing), format!("/targets/{t1}"));
}

#[tokio::test]
async fn the_page_lists_the_pool_in_the_stored_order_on_every_request() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let stored = app.blind_order("T1").await;
    assert_eq!(stored.len() as i64, T1_POOL_SIZE);

    let first = papers_in_page_order(&app.get_text(&format!("/targets/{t1}")).await);
    let session = app.session(t1).await;
    app.rate(&session, t1, &stored[3], "5", Answer::Json).await;
    let second = papers_in_page_order(&app.get_text(&format!("/targets/{t1}")).await);

    assert_eq!(first, stored);
    assert_eq!(second, stored);
}

#[tokio::test]
async fn the_page_shows_each_stored_rating_and_the_target_progress() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    app.store_rating("T1", "P2", 4).await;
    app.store_rating("T1", "P6", 1).await;

    let page = Page::parse(&app.get_text(&format!("/targets/{t1}")).await);

    let paper = |id: &str| {
        let css = format!("article.paper[data-paper='{id}']");
        let checked = page.attrs(&format!("{css} input[name=stars][checked]"), "value");
        (
            page.attr(&css, "data-stars"),
            page.text(&format!("{css} .paper-status")),
            checked,
        )
    };
    assert_eq!(
        paper("P2"),
        (
            "4".to_owned(),
            "Rated 4 relevant".to_owned(),
            vec!["4".to_owned()]
        )
    );
    assert_eq!(
        paper("P6"),
        (
            "1".to_owned(),
            "Rated 1 irrelevant".to_owned(),
            vec!["1".to_owned()]
        )
    );
    assert_eq!(
        paper("P1"),
        (String::new(), "Not rated yet".to_owned(), Vec::new())
    );
    let statuses = page.texts("article.paper .paper-status");
    assert_eq!(statuses.len(), 7);
    assert_eq!(statuses.iter().filter(|s| *s == "Not rated yet").count(), 5);
    assert_eq!(page.count("input[name=stars][checked]"), 2);
    assert_eq!(page.text(".target-progress-text"), "2 of 7 rated");
    assert_eq!(
        (page.text("#target-rated"), page.text("#target-total")),
        ("2".to_owned(), "7".to_owned())
    );
}

#[tokio::test]
async fn undo_reverts_only_the_changes_of_the_browser_that_asks() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    // Two browsers (two raters, or two tabs of different profiles): each gets its own session.
    let tab_a = app.session(t1).await;
    let tab_b = app.session(t1).await;
    assert_ne!(tab_a.cookie, tab_b.cookie);
    app.rate(&tab_a, t1, "P1", "3", Answer::Json).await;
    app.rate(&tab_b, t1, "P2", "5", Answer::Json).await;

    let undone_by_a = app.undo(&tab_a, t1, Answer::Json).await;

    assert_eq!(undone_by_a.status(), StatusCode::OK);
    assert_eq!(
        undone_by_a.json::<serde_json::Value>().await.expect("JSON"),
        json!({"undone": true, "paper": "P1", "stars": null, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 1, "total": T1_POOL_SIZE}})
    );
    assert_eq!(app.stored_stars("T1", "P1").await, None);
    assert_eq!(
        app.stored_stars("T1", "P2").await,
        Some(5),
        "B's rating stays"
    );
    // A has nothing left to undo; B's own undo reverts B's change.
    let nothing = app.undo(&tab_a, t1, Answer::Json).await;
    assert_eq!(
        nothing.json::<serde_json::Value>().await.expect("JSON"),
        json!({"undone": false, "paper": null, "stars": null, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 1, "total": T1_POOL_SIZE}})
    );
    let undone_by_b = app.undo(&tab_b, t1, Answer::Json).await;
    assert_eq!(
        undone_by_b.json::<serde_json::Value>().await.expect("JSON"),
        json!({"undone": true, "paper": "P2", "stars": null, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 0, "total": T1_POOL_SIZE}})
    );
    assert_eq!(
        app.history("T1", "P2").await,
        [
            (None, Some(5), "web".to_owned()),
            (Some(5), None, "undo".to_owned()),
        ]
    );
}

#[tokio::test]
async fn an_undo_keeps_a_rating_another_browser_gave_the_same_paper_since() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let tab_a = app.session(t1).await;
    let tab_b = app.session(t1).await;
    app.rate(&tab_a, t1, "P3", "2", Answer::Json).await;
    app.rate(&tab_b, t1, "P3", "4", Answer::Json).await;

    let kept = app.undo(&tab_a, t1, Answer::Json).await;

    assert_eq!(
        kept.json::<serde_json::Value>().await.expect("JSON"),
        json!({"undone": false, "paper": "P3", "stars": 4, "cannot_judge": false, "note": null,
               "target_progress": {"rated": 1, "total": T1_POOL_SIZE}})
    );
    assert_eq!(app.stored_stars("T1", "P3").await, Some(4));
    // The undo cancelled A's change: A's next undo has nothing left.
    let nothing = app.undo(&tab_a, t1, Answer::Json).await;
    assert_eq!(
        nothing.json::<serde_json::Value>().await.expect("JSON")["paper"],
        serde_json::Value::Null
    );
    assert_eq!(app.stored_stars("T1", "P3").await, Some(4));
}
